/* The logical class: `parallel loop reduction(&&:all) reduction(||:any)` over 2^27 ints
 * (512 MiB): `all` asks whether every element is positive (yes), `any` whether one equals a
 * key (exactly one does, near the end); a second pass over a copy whose one element was set
 * to 0 must answer all = 0. GB/s counting 4 bytes per element; every answer is checked.
 *   red_logic [log2(n)=27] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 27), reps = bench_arg(argc, argv, 2, 20), warm = 2;
  const int n = (int)(1L << lg);
  int *x = bench_alloc("red_logic", sizeof(int) * n);
  for (int i = 0; i < n; i++) x[i] = 1 + (int)((i * 2654435761u) >> 8); /* in [1, 2^24] */
  const int key = 1 << 30, at = n - 5 - n / 11;
  x[at] = key;

  double t0 = 0, t1 = 0;
  long bad_rep = -1;
  int bad_all = 0, bad_any = 0, zero_all = -1, zero_any = -1;
#pragma acc data copyin(x[0:n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
      int all = 1, any = 0;
#pragma acc parallel loop reduction(&&:all) reduction(||:any) present(x[0:n])
      for (int i = 0; i < n; i++) {
        all = all && x[i] > 0;
        any = any || x[i] == key;
      }
      if ((all != 1 || any != 1) && bad_rep < 0) bad_all = all, bad_any = any, bad_rep = r;
    }
    t1 = bench_now();
    /* untimed: one element not positive, and the key gone */
    x[n / 3] = 0;
    x[at] = 5;
#pragma acc update device(x[n/3:1])
#pragma acc update device(x[at:1])
    int all = 1, any = 0;
#pragma acc parallel loop reduction(&&:all) reduction(||:any) present(x[0:n])
    for (int i = 0; i < n; i++) {
      all = all && x[i] > 0;
      any = any || x[i] == key;
    }
    zero_all = all, zero_any = any;
  }
  char why[160];
  if (bad_rep >= 0) {
    snprintf(why, sizeof why, "wrong answer: all=%d any=%d, want 1 1 (repetition %ld)", bad_all, bad_any, bad_rep);
    return bench_fail("red_logic", why);
  }
  if (zero_all != 0 || zero_any != 0) {
    snprintf(why, sizeof why, "wrong answer: all=%d any=%d with a zero and no key, want 0 0", zero_all, zero_any);
    return bench_fail("red_logic", why);
  }
  free(x);
  printf("# red_logic: %.4f ms per pass over %d ints\n", 1e3 * (t1 - t0) / (double)reps, n);
  return bench_pass("red_logic", "bandwidth", 4.0 * (double)n * (double)reps / (t1 - t0) / 1e9, "GB/s");
}
