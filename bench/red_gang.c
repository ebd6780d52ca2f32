/* Reduction position "gang only": a 1-D sum of 2^27 doubles (1 GiB) with
 * `parallel loop gang reduction(+:s)`, no worker or vector loop (one lane per gang does the
 * work; the OpenUH paper's Table 2, first row). GB/s counting 8 bytes per element; the data
 * are small integers, so the sums are exact and each repetition's is checked.
 *   red_gang [log2(n)=27] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 27), reps = bench_arg(argc, argv, 2, 20), warm = 2;
  const int n = (int)(1L << lg);
  double *x = bench_alloc("red_gang", sizeof(double) * n);
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
#pragma acc parallel loop gang reduction(+:s) present(x[0:n])
      for (int i = 0; i < n; i++)
        s += x[i];
      if (s != want && bad_rep < 0) bad = s, bad_rep = r;
    }
    t1 = bench_now();
  }
  if (bad_rep >= 0) {
    char why[160];
    snprintf(why, sizeof why, "wrong answer: sum %.17g, want %.17g (repetition %ld)", bad, want, bad_rep);
    return bench_fail("red_gang", why);
  }
  free(x);
  printf("# red_gang: %.4f ms per sum of %d doubles\n", 1e3 * (t1 - t0) / (double)reps, n);
  return bench_pass("red_gang", "bandwidth", 8.0 * (double)n * (double)reps / (t1 - t0) / 1e9, "GB/s");
}
