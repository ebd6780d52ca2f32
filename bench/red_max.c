/* max of 2^27 doubles (1 GiB) with `parallel loop reduction(max:m)`: negative data (so an
 * identity of 0 shows) whose unique maximum sits near the end; GB/s counting 8 bytes per
 * element; each repetition's result is checked (max is exact).
 *   red_max [log2(n)=27] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 27), reps = bench_arg(argc, argv, 2, 20), warm = 2;
  const int n = (int)(1L << lg);
  double *x = bench_alloc("red_max", sizeof(double) * n);
  for (int i = 0; i < n; i++) x[i] = -1.0 - (double)((i * 7919L) % 100003);
  const int at = n - 3 - n / 7; /* the unique maximum */
  x[at] = -0.5;
  const double want = -0.5;

  double t0 = 0, t1 = 0, bad = 0.0;
  long bad_rep = -1;
#pragma acc data copyin(x[0:n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
      double m = -1e300;
#pragma acc parallel loop reduction(max:m) present(x[0:n])
      for (int i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
      if (m != want && bad_rep < 0) bad = m, bad_rep = r;
    }
    t1 = bench_now();
  }
  if (bad_rep >= 0) {
    char why[160];
    snprintf(why, sizeof why, "wrong answer: max %.17g, want %.17g at %d (repetition %ld)", bad, want, at, bad_rep);
    return bench_fail("red_max", why);
  }
  free(x);
  printf("# red_max: %.4f ms per max of %d doubles\n", 1e3 * (t1 - t0) / (double)reps, n);
  return bench_pass("red_max", "bandwidth", 8.0 * (double)n * (double)reps / (t1 - t0) / 1e9, "GB/s");
}
