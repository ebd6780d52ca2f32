/* Out-of-place transpose B = A^T of n x n doubles with tile(32, 32) (OpenACC 3.3 §2.9.8):
 * each gang moves a 32 x 32 tile, so the rows of B it writes (strided across the tile's
 * lanes) stay in cache until the tile's other columns fill them. TB/s counting 16 bytes
 * (one load, one store) per element.
 *   transpose [n=8192] [reps=10] */
#include "bench.h"

int main(int argc, char **argv) {
  const int n = (int)bench_arg(argc, argv, 1, 8192);
  const long reps = bench_arg(argc, argv, 2, 10), warm = 2;
  double *A = bench_alloc("transpose", sizeof(double) * n * n), *B = bench_alloc("transpose", sizeof(double) * n * n);
  for (long x = 0; x < (long)n * n; x++) {
    A[x] = (double)(x % 1000003);
    B[x] = -1.0;
  }

  double t0 = 0, t1 = 0;
#pragma acc data copyin(A[0:n*n]) copyout(B[0:n*n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
#pragma acc parallel loop tile(32, 32) present(A[0:n*n], B[0:n*n])
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          B[(long)j * n + i] = A[(long)i * n + j];
    }
    t1 = bench_now();
  }

  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double want = (double)(((long)i * n + j) % 1000003);
      if (B[(long)j * n + i] != want) {
        char why[128];
        snprintf(why, sizeof why, "wrong answer: B[%d][%d] = %g, want %g", j, i, B[(long)j * n + i], want);
        return bench_fail("transpose", why);
      }
    }
  }
  free(A), free(B);
  return bench_pass("transpose", "bandwidth", 16.0 * (double)n * (double)n * (double)reps / (t1 - t0) / 1e12, "TB/s");
}
