/* The bitwise class: `parallel loop reduction(&:a) reduction(|:o) reduction(^:h)` over 2^27
 * unsigned longs (1 GiB). The data's bits are chosen so that each answer is known: bit 0 is
 * set everywhere (a keeps it), bit 62 nowhere but in one element near the end (o has it, a
 * not), and h is the xor of a pattern computed on the host. GB/s counting 8 bytes per
 * element; every repetition's three answers are checked.
 *   red_bits [log2(n)=27] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 27), reps = bench_arg(argc, argv, 2, 20), warm = 2;
  const long n = 1L << lg;
  unsigned long *x = bench_alloc("red_bits", sizeof(unsigned long) * n);
  unsigned long want_a = ~0UL, want_o = 0, want_h = 0;
  for (long i = 0; i < n; i++) {
    x[i] = ((unsigned long)(i * 2654435761UL) << 8 | 1UL) & ~(1UL << 62);
    if (i == n - 7 - n / 13) x[i] |= 1UL << 62;
    want_a &= x[i], want_o |= x[i], want_h ^= x[i];
  }

  double t0 = 0, t1 = 0;
  long bad_rep = -1;
  unsigned long bad[3] = {0, 0, 0};
#pragma acc data copyin(x[0:n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
      unsigned long a = ~0UL, o = 0, h = 0;
#pragma acc parallel loop reduction(&:a) reduction(|:o) reduction(^:h) present(x[0:n])
      for (long i = 0; i < n; i++) {
        a &= x[i];
        o |= x[i];
        h ^= x[i];
      }
      if ((a != want_a || o != want_o || h != want_h) && bad_rep < 0) bad[0] = a, bad[1] = o, bad[2] = h, bad_rep = r;
    }
    t1 = bench_now();
  }
  if (bad_rep >= 0) {
    char why[200];
    snprintf(why, sizeof why, "wrong answer: & %#lx | %#lx ^ %#lx, want %#lx %#lx %#lx (repetition %ld)", bad[0], bad[1],
             bad[2], want_a, want_o, want_h, bad_rep);
    return bench_fail("red_bits", why);
  }
  free(x);
  printf("# red_bits: %.4f ms per pass over %ld unsigned longs\n", 1e3 * (t1 - t0) / (double)reps, n);
  return bench_pass("red_bits", "bandwidth", 8.0 * (double)n * (double)reps / (t1 - t0) / 1e9, "GB/s");
}
