/* C = A * B on 2048 x 2048 doubles with the dot product as a reduction: a gang loop over rows
 * i, a worker loop over columns j, and the inner k loop a `loop vector reduction(+:sum)`
 * (B is stored transposed so the vector lanes read consecutive elements of both operands).
 * GFLOP/s counting 2 n^3 flops per product. A and B hold small integers so C is exact; it is
 * checked with Freivalds' test (C x == A (B x) for two integer vectors x) plus a few full dot
 * products.
 *   matmul_red [n=2048] [reps=3] */
#include "bench.h"

int main(int argc, char **argv) {
  const int n = (int)bench_arg(argc, argv, 1, 2048);
  const long reps = bench_arg(argc, argv, 2, 3), warm = 1;
  double *A = bench_alloc("matmul_red", sizeof(double) * n * n), *Bt = bench_alloc("matmul_red", sizeof(double) * n * n);
  double *C = bench_alloc("matmul_red", sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = (double)((i + j) % 7 - 3);
      Bt[j * n + i] = (double)((2 * i + j) % 5 - 2); /* B[i][j] */
      C[i * n + j] = -1.0;
    }

  double t0 = 0, t1 = 0;
#pragma acc data copyin(A[0:n*n], Bt[0:n*n]) copyout(C[0:n*n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
#pragma acc parallel loop gang present(A[0:n*n], Bt[0:n*n], C[0:n*n])
      for (int i = 0; i < n; i++) {
#pragma acc loop worker
        for (int j = 0; j < n; j++) {
          double sum = 0.0;
#pragma acc loop vector reduction(+:sum)
          for (int k = 0; k < n; k++)
            sum += A[i * n + k] * Bt[j * n + k];
          C[i * n + j] = sum;
        }
      }
    }
    t1 = bench_now();
  }

  double *x = bench_alloc("matmul_red", sizeof(double) * n), *bx = bench_alloc("matmul_red", sizeof(double) * n);
  char why[160];
  for (int trial = 0; trial < 2; trial++) {
    for (int j = 0; j < n; j++) x[j] = (double)((j * (trial + 3) + trial) % 7 - 3);
    for (int k = 0; k < n; k++) {
      double s = 0.0;
      for (int j = 0; j < n; j++) s += Bt[j * n + k] * x[j];
      bx[k] = s;
    }
    for (int i = 0; i < n; i++) {
      double cx = 0.0, abx = 0.0;
      for (int j = 0; j < n; j++) cx += C[i * n + j] * x[j];
      for (int k = 0; k < n; k++) abx += A[i * n + k] * bx[k];
      if (!(cx == abx)) {
        snprintf(why, sizeof why, "wrong answer: row %d of C fails Freivalds' test (%g != %g)", i, cx, abx);
        return bench_fail("matmul_red", why);
      }
    }
  }
  for (int t = 0; t < 64; t++) {
    int i = (t * 977) % n, j = (t * 331 + 17) % n;
    double s = 0.0;
    for (int k = 0; k < n; k++) s += A[i * n + k] * Bt[j * n + k];
    if (!(C[i * n + j] == s)) {
      snprintf(why, sizeof why, "wrong answer: C[%d][%d] = %g, want %g", i, j, C[i * n + j], s);
      return bench_fail("matmul_red", why);
    }
  }
  free(A), free(Bt), free(C), free(x), free(bx);
  double flops = 2.0 * (double)n * (double)n * (double)n * (double)reps;
  return bench_pass("matmul_red", "flops", flops / (t1 - t0) / 1e9, "GFLOP/s");
}
