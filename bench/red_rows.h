/* Row sums of a rows x cols matrix of doubles: `parallel loop gang` over rows and
 * `loop RED_LEVEL reduction(+:t)` over each row's columns, the sum stored per row; every row
 * sum is checked after each repetition's copy-out. red_worker.c and red_vector.c define
 * RED_NAME and RED_LEVEL and include this. */
#include "bench.h"

int main(int argc, char **argv) {
  const int rows = (int)bench_arg(argc, argv, 1, 8192), cols = (int)bench_arg(argc, argv, 2, 16384);
  const long reps = bench_arg(argc, argv, 3, 20), warm = 2;
  const long n = (long)rows * cols;
  double *x = bench_alloc(RED_NAME, sizeof(double) * n);
  double *r = bench_alloc(RED_NAME, sizeof(double) * rows), *want = bench_alloc(RED_NAME, sizeof(double) * rows);
  for (int i = 0; i < rows; i++) {
    want[i] = 0.0;
    for (int j = 0; j < cols; j++) {
      long k = (long)i * cols + j;
      x[k] = (double)(k % 1021 + 1);
      want[i] += x[k];
    }
  }

  double t0 = 0, t1 = 0, time = 0;
  long bad_rep = -1;
  int bad_row = -1;
#pragma acc data copyin(x[0:n]) create(r[0:rows])
  {
    for (long rep = 0; rep < warm + reps; rep++) {
      for (int i = 0; i < rows; i++) r[i] = -1.0;
#pragma acc update device(r[0:rows])
      t0 = bench_now();
#pragma acc parallel loop gang present(x[0:n], r[0:rows])
      for (int i = 0; i < rows; i++) {
        double t = 0.0;
        BENCH_PRAGMA(acc loop RED_LEVEL reduction(+:t))
        for (int j = 0; j < cols; j++)
          t += x[(long)i * cols + j];
        r[i] = t;
      }
      t1 = bench_now();
      if (rep >= warm) time += t1 - t0;
#pragma acc update self(r[0:rows])
      for (int i = 0; i < rows && bad_rep < 0; i++)
        if (r[i] != want[i]) bad_rep = rep, bad_row = i;
    }
  }
  if (bad_rep >= 0) {
    char why[160];
    snprintf(why, sizeof why, "wrong answer: row %d sums to %.17g, want %.17g (repetition %ld)", bad_row,
             r[bad_row], want[bad_row], bad_rep);
    return bench_fail(RED_NAME, why);
  }
  free(x), free(r), free(want);
  printf("# " RED_NAME ": %.4f ms per pass over %d x %d doubles\n", 1e3 * time / (double)reps, rows, cols);
  return bench_pass(RED_NAME, "bandwidth", 8.0 * (double)n * (double)reps / time / 1e9, "GB/s");
}
