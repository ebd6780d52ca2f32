/* Sum of 2^28 doubles (2 GiB) with `parallel loop reduction(+:s)` (the implementation picks
 * the levels), inside a data region, repeated; GB/s counting 8 bytes per element. The data
 * are small integers, so every sum is exact and each repetition's is checked.
 * scripts/bench puts CuPy's cupy.sum on the same data beside it.
 *   red_sum [log2(n)=28] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 28), reps = bench_arg(argc, argv, 2, 20), warm = 2;
  const int n = (int)(1L << lg);
  double *x = bench_alloc("red_sum", sizeof(double) * n);
  double want = 0.0;
  for (int i = 0; i < n; i++) {
    x[i] = (double)(i % 1021 + 1);
    want += x[i];
  }

  double t0 = 0, t1 = 0, bad = -1.0;
  long bad_rep = -1;
#pragma acc data copyin(x[0:n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
      double s = 0.0;
#pragma acc parallel loop reduction(+:s) present(x[0:n])
      for (int i = 0; i < n; i++)
        s += x[i];
      if (s != want && bad_rep < 0) bad = s, bad_rep = r;
    }
    t1 = bench_now();
  }
  if (bad_rep >= 0) {
    char why[160];
    snprintf(why, sizeof why, "wrong answer: sum %.17g, want %.17g (repetition %ld)", bad, want, bad_rep);
    return bench_fail("red_sum", why);
  }
  free(x);
  printf("# red_sum: %.4f ms per sum of %d doubles\n", 1e3 * (t1 - t0) / (double)reps, n);
  return bench_pass("red_sum", "bandwidth", 8.0 * (double)n * (double)reps / (t1 - t0) / 1e9, "GB/s");
}
