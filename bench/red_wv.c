/* Reduction position "worker + vector": row sums of a 8192 x (16 x 1024) matrix of doubles
 * (1 GiB), `parallel loop gang` over rows, then one reduction spanning `loop worker
 * reduction(+:t)` over each row's 16 blocks and `loop vector reduction(+:t)` over each
 * block's 1024 columns, the sum stored per row (the OpenUH paper's Table 2, worker+vector
 * row). GB/s counting 8 bytes per element; small-integer data, so every row sum is exact and
 * all of them are checked after each repetition's copy-out.
 *   red_wv [rows=8192] [blocks=16] [cols=1024] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const int rows = (int)bench_arg(argc, argv, 1, 8192), nw = (int)bench_arg(argc, argv, 2, 16);
  const int nv = (int)bench_arg(argc, argv, 3, 1024);
  const long reps = bench_arg(argc, argv, 4, 20), warm = 2;
  const long cols = (long)nw * nv, n = (long)rows * cols;
  double *x = bench_alloc("red_wv", sizeof(double) * n);
  double *r = bench_alloc("red_wv", sizeof(double) * rows), *want = bench_alloc("red_wv", sizeof(double) * rows);
  for (int i = 0; i < rows; i++) {
    want[i] = 0.0;
    for (long j = 0; j < cols; j++) {
      long k = (long)i * cols + j;
      x[k] = (double)(k % 1021 + 1);
      want[i] += x[k];
    }
  }

  double time = 0;
  long bad_rep = -1;
  int bad_row = -1;
#pragma acc data copyin(x[0:n]) create(r[0:rows])
  {
    for (long rep = 0; rep < warm + reps; rep++) {
      for (int i = 0; i < rows; i++) r[i] = -1.0;
#pragma acc update device(r[0:rows])
      double t0 = bench_now();
#pragma acc parallel loop gang present(x[0:n], r[0:rows])
      for (int i = 0; i < rows; i++) {
        double t = 0.0;
#pragma acc loop worker reduction(+:t)
        for (int w = 0; w < nw; w++) {
#pragma acc loop vector reduction(+:t)
          for (int v = 0; v < nv; v++)
            t += x[(long)i * cols + (long)w * nv + v];
        }
        r[i] = t;
      }
      double t1 = bench_now();
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
    return bench_fail("red_wv", why);
  }
  free(x), free(r), free(want);
  printf("# red_wv: %.4f ms per pass over %d x %ld doubles\n", 1e3 * time / (double)reps, rows, cols);
  return bench_pass("red_wv", "bandwidth", 8.0 * (double)n * (double)reps / time / 1e9, "GB/s");
}
