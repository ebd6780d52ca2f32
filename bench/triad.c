/* STREAM triad a[i] = b[i] + s*c[i] on 2^27 doubles (1 GiB per array) inside a data
 * region, repeated; TB/s counting 24 bytes (two loads, one store) per element.
 *   triad [log2(n)=27] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 27), reps = bench_arg(argc, argv, 2, 20), warm = 2;
  const int n = (int)(1L << lg);
  const double s = 3.0;
  double *a = bench_alloc("triad", sizeof(double) * n), *b = bench_alloc("triad", sizeof(double) * n);
  double *c = bench_alloc("triad", sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    a[i] = -1.0;
    b[i] = (double)(i & 1023);
    c[i] = 0.5 * (double)((i >> 10) & 1023);
  }

  double t0 = 0, t1 = 0;
#pragma acc data copyin(b[0:n], c[0:n]) copyout(a[0:n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
#pragma acc parallel loop present(a[0:n], b[0:n], c[0:n])
      for (int i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
    }
    t1 = bench_now();
  }

  for (int i = 0; i < n; i++) {
    double want = (double)(i & 1023) + s * 0.5 * (double)((i >> 10) & 1023);
    if (a[i] != want) {
      char why[128];
      snprintf(why, sizeof why, "wrong answer: a[%d] = %g, want %g", i, a[i], want);
      return bench_fail("triad", why);
    }
  }
  free(a), free(b), free(c);
  return bench_pass("triad", "bandwidth", 24.0 * (double)n * (double)reps / (t1 - t0) / 1e12, "TB/s");
}
