/* 2-D heat equation, Jacobi iteration on a 4096 x 4096 grid of doubles (hot top edge, cold
 * elsewhere) until the largest change of a sweep falls below a tolerance or a fixed number of
 * sweeps: each sweep is a gang loop over rows and a vector loop over columns with
 * `reduction(max:diff)` on both, inside one data region, the grids' pointers swapped between
 * sweeps. TB/s counting 16 bytes per interior point per sweep. The host replays the same
 * sweeps: every sweep's max change and the final grid must match exactly (sums then * 0.25,
 * no contraction possible).
 *   heat2d [n=4096] [max_sweeps=50] [tolerance=1/2^k, k=20] */
#include "bench.h"

static void init(double *g, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) g[(long)i * n + j] = (i == 0) ? 100.0 : 0.0;
}

int main(int argc, char **argv) {
  const int n = (int)bench_arg(argc, argv, 1, 4096);
  const long maxs = bench_arg(argc, argv, 2, 50), warm = 2;
  const double tol = 1.0 / (double)(1L << bench_arg(argc, argv, 3, 20));
  double *u = bench_alloc("heat2d", sizeof(double) * n * n), *v = bench_alloc("heat2d", sizeof(double) * n * n);
  double *hist = bench_alloc("heat2d", sizeof(double) * (warm + maxs));
  init(u, n);
  init(v, n);
  double *t;

  double t0 = 0, t1 = 0;
  long sweeps = 0; /* done, warm-up included */
#pragma acc data copy(u[0:n*n], v[0:n*n])
  {
    for (long s = 0; s < warm + maxs; s++) {
      if (s == warm) t0 = bench_now();
      double diff = 0.0;
#pragma acc parallel loop gang reduction(max:diff) present(u[0:n*n], v[0:n*n])
      for (int i = 1; i < n - 1; i++) {
#pragma acc loop vector reduction(max:diff)
        for (int j = 1; j < n - 1; j++) {
          double nv = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
          double d = nv - u[i * n + j];
          d = d < 0.0 ? -d : d;
          diff = d > diff ? d : diff;
          v[i * n + j] = nv;
        }
      }
      t = u, u = v, v = t;
      hist[s] = diff;
      sweeps = s + 1;
      if (diff < tol) break;
    }
    t1 = bench_now();
  }
  /* the data region copies both arrays back, whichever pointer they are under now */

  double *ru = bench_alloc("heat2d", sizeof(double) * n * n), *rv = bench_alloc("heat2d", sizeof(double) * n * n);
  init(ru, n);
  init(rv, n);
  char why[200];
  for (long s = 0; s < sweeps; s++) {
    double diff = 0.0;
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        double nv = 0.25 * (ru[(i - 1) * n + j] + ru[(i + 1) * n + j] + ru[i * n + j - 1] + ru[i * n + j + 1]);
        double d = nv - ru[i * n + j];
        d = d < 0.0 ? -d : d;
        diff = d > diff ? d : diff;
        rv[i * n + j] = nv;
      }
    t = ru, ru = rv, rv = t;
    if (!(hist[s] == diff)) {
      snprintf(why, sizeof why, "wrong answer: sweep %ld's max change %.17g, want %.17g", s, hist[s], diff);
      return bench_fail("heat2d", why);
    }
    if (diff < tol && s + 1 != sweeps) {
      snprintf(why, sizeof why, "wrong answer: went on after converging at sweep %ld", s);
      return bench_fail("heat2d", why);
    }
  }
  for (long k = 0; k < (long)n * n; k++)
    if (!(u[k] == ru[k])) {
      snprintf(why, sizeof why, "wrong answer: u[%ld][%ld] = %.17g, want %.17g (after %ld sweeps)", k / n, k % n,
               u[k], ru[k], sweeps);
      return bench_fail("heat2d", why);
    }
  long timed = sweeps - warm;
  if (timed < 1) return bench_fail("heat2d", "converged during the warm-up: nothing timed");
  printf("# heat2d: %ld sweeps, last max change %.6g (tolerance %.3g%s)\n", sweeps, hist[sweeps - 1], tol,
         hist[sweeps - 1] < tol ? ", converged" : ", not converged");
  free(u), free(v), free(ru), free(rv), free(hist);
  double pts = (double)(n - 2) * (double)(n - 2);
  return bench_pass("heat2d", "bandwidth", 16.0 * pts * (double)timed / (t1 - t0) / 1e12, "TB/s");
}
