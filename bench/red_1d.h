/* A 1-D sum of 2^RED_LOG2N doubles with `parallel loop RED_LEVELS reduction(+:s)` inside a
 * data region, repeated; small-integer data, so each repetition's sum is exact and checked.
 * red_sum.c and red_gang.c define RED_NAME, RED_LOG2N and RED_LEVELS and include this. */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, RED_LOG2N), reps = bench_arg(argc, argv, 2, 20), warm = 2;
  const int n = (int)(1L << lg);
  double *x = bench_alloc(RED_NAME, sizeof(double) * n);
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
      BENCH_PRAGMA(acc parallel loop RED_LEVELS reduction(+:s) present(x[0:n]))
      for (int i = 0; i < n; i++)
        s += x[i];
      if (s != want && bad_rep < 0) bad = s, bad_rep = r;
    }
    t1 = bench_now();
  }
  if (bad_rep >= 0) {
    char why[160];
    snprintf(why, sizeof why, "wrong answer: sum %.17g, want %.17g (repetition %ld)", bad, want, bad_rep);
    return bench_fail(RED_NAME, why);
  }
  free(x);
  printf("# " RED_NAME ": %.4f ms per sum of %d doubles\n", 1e3 * (t1 - t0) / (double)reps, n);
  return bench_pass(RED_NAME, "bandwidth", 8.0 * (double)n * (double)reps / (t1 - t0) / 1e9, "GB/s");
}
