/* 1-D stencil of radius 8 (17 points) over 2^27 floats, `parallel loop` over the points,
 * with (STENCIL_CACHE 1) or without the cache directive on the 17-point section: with it,
 * each block loads its points' union into shared memory once per window and the 17 reads
 * per point come from there (codegen/src/cache.rs); without it they are 17 global loads
 * (L1 hits, mostly: a warp's 32 floats at an offset span two 128-byte lines, two L1
 * wavefronts, where shared memory serves them in one). TB/s counting 8 bytes (one load
 * and one store that miss cache) per point; the answer is checked against the sums in
 * double on the host (relative to the sum of the terms' magnitudes, 1e-5: float sums).
 *   STENCIL_NAME [n=134217728] [reps=50] */
#include "bench.h"
#include <math.h>

#define R 8

static double weight(int r) { return 1.0 + 0.125 * r * r; }

int main(int argc, char **argv) {
  const int n = (int)bench_arg(argc, argv, 1, 1 << 27);
  const long reps = bench_arg(argc, argv, 2, 50), warm = 2;
  float *a = bench_alloc(STENCIL_NAME, sizeof(float) * n), *b = bench_alloc(STENCIL_NAME, sizeof(float) * n);
  for (int i = 0; i < n; i++) {
    a[i] = (float)((i * 7) % 1021) - 510.0f;
    b[i] = 0;
  }
  double t0 = 0, t1 = 0;
#pragma acc data copyin(a[0:n]) copy(b[0:n])
  {
    for (long s = 0; s < warm + reps; s++) {
      if (s == warm) t0 = bench_now();
#pragma acc parallel loop present(a[0:n], b[0:n])
      for (int i = R; i < n - R; i++) {
#if STENCIL_CACHE
#pragma acc cache(a[i-R:2*R+1])
#endif
        float sum = 0;
        for (int r = -R; r <= R; r++) sum += (1.0f + 0.125f * r * r) * a[i + r];
        b[i] = sum;
      }
    }
    t1 = bench_now();
  }
  for (int i = 0; i < n; i++) {
    double want = 0, size = 0;
    if (i >= R && i < n - R)
      for (int r = -R; r <= R; r++) {
        want += weight(r) * a[i + r];
        size += fabs(weight(r) * a[i + r]);
      }
    if (!(fabs(b[i] - want) <= 1e-5 * (1.0 + size))) {
      char why[160];
      snprintf(why, sizeof why, "wrong answer: b[%d] = %.9g, want %.9g", i, b[i], want);
      return bench_fail(STENCIL_NAME, why);
    }
  }
  free(a), free(b);
  return bench_pass(STENCIL_NAME, "bandwidth", 8.0 * (double)(n - 2 * R) * (double)reps / (t1 - t0) / 1e12, "TB/s");
}
