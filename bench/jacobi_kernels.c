/* The `jacobi` sweeps written as a `kernels` construct with no clauses on its loops and no
 * loop directives at all: plain C loops, which the rewriter marks as implicit loops
 * (driver/src/implicit.rs) and accc's dependence analysis (codegen/src/autopar.rs) must prove
 * independent (restrict grids; the column loop's range keeps each row's elements apart, the
 * rows' width n being symbolic) and map as `jacobi`'s `parallel loop` gang and vector loops,
 * at the same speed (`accc -Minfo=accel bench/jacobi_kernels.c` shows the schedule).
 * 4096 x 4096 doubles, TB/s counting 16 bytes per interior point, checked exactly against
 * the same sweeps on the host.
 *   jacobi_kernels [n=4096] [sweeps=50] */
#include "bench.h"

static void init(double *g, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      g[(long)i * n + j] = (i == 0 || j == 0 || i == n - 1 || j == n - 1)
                               ? (double)(i + 2 * j)            /* fixed boundary */
                               : (double)((i * 7 + j * 13) % 17); /* changes every sweep */
}

static void host_sweep(const double *u, double *v, int n) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

/* One sweep on the device: no loop directive, the compiler decides. */
static void sweep(const double *restrict u, double *restrict v, int n) {
#pragma acc kernels present(u[0:n*n], v[0:n*n])
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

int main(int argc, char **argv) {
  const int n = (int)bench_arg(argc, argv, 1, 4096);
  /* warm + sweeps is even, so the newest grid ends in the first array */
  const long sweeps = bench_arg(argc, argv, 2, 50) & ~1L, warm = 2;
  double *u = bench_alloc("jacobi_kernels", sizeof(double) * n * n), *v = bench_alloc("jacobi_kernels", sizeof(double) * n * n);
  init(u, n);
  init(v, n);
  double *u0 = u, *t;

  double t0 = 0, t1 = 0;
#pragma acc data copy(u[0:n*n], v[0:n*n])
  {
    for (long s = 0; s < warm + sweeps; s++) {
      if (s == warm) t0 = bench_now();
      sweep(u, v, n);
      t = u;
      u = v;
      v = t;
    }
    t1 = bench_now();
  }
  if (u != u0) return bench_fail("jacobi_kernels", "internal: odd number of sweeps");

  double *ru = bench_alloc("jacobi_kernels", sizeof(double) * n * n), *rv = bench_alloc("jacobi_kernels", sizeof(double) * n * n);
  init(ru, n);
  init(rv, n);
  for (long s = 0; s < warm + sweeps; s++) {
    host_sweep(ru, rv, n);
    t = ru;
    ru = rv;
    rv = t;
  }
  for (long k = 0; k < (long)n * n; k++)
    if (!(u[k] == ru[k])) {
      char why[160];
      snprintf(why, sizeof why, "wrong answer: u[%ld][%ld] = %.17g, want %.17g (after %ld sweeps)", k / n, k % n,
               u[k], ru[k], warm + sweeps);
      return bench_fail("jacobi_kernels", why);
    }
  free(u), free(v), free(ru), free(rv);
  double pts = (double)(n - 2) * (double)(n - 2);
  return bench_pass("jacobi_kernels", "bandwidth", 16.0 * pts * (double)sweeps / (t1 - t0) / 1e12, "TB/s");
}
