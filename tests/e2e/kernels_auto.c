/* Loops whose parallelism the compiler decides (autopar.rs): `kernels` loops without
 * `independent` and `auto` loops. Those proved independent are partitioned
 * (lit-tests/driver/kernels-auto.c checks the -Minfo report of this file); the others must
 * still give the sequential answer: a recurrence, a carried scalar, pointers that really
 * alias at run time, a stencil whose outer loop carries a dependence while its inner loop
 * is partitioned. Odd sizes, every element checked against a host computation. */
#define E2E_NAME "kernels_auto"
#include "e2e.h"

#define R 37
#define C 41
double ga[1001], gb[1001];

/* Proved: restrict parameters, distinct arrays. */
static void scale(int n, const double *restrict x, double *restrict y) {
#pragma acc kernels copyin(x[0:n]) copyout(y[0:n])
#pragma acc loop
  for (int i = 0; i < n; i++) y[i] = 2.0 * x[i] + 1.0;
}

/* Proved: a 5-point sweep over rows of a symbolic width (delinearised by the j range). */
static void sweep(int n, int m, const double *restrict u, double *restrict v) {
#pragma acc kernels copyin(u[0:n*m]) copy(v[0:n*m])
  {
#pragma acc loop
    for (int i = 1; i < n - 1; i++)
#pragma acc loop
      for (int j = 1; j < m - 1; j++)
        v[i * m + j] = 0.25 * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]);
  }
}

/* Not proved: plain pointers, which the caller makes overlap (b = a + 1). The answer must
 * be the sequential one: each element becomes the previous one plus 1. */
static void shift(int n, double *a, double *b) {
#pragma acc kernels present(a[0:n], b[0:n])
#pragma acc loop
  for (int i = 0; i < n; i++) b[i] = a[i] + 1.0;
}

/* Proved: the row loop of a matrix-vector product; the inner loop has a reduction clause
 * without independent, so it stays sequential in each row's thread. */
static void matvec(int rows, int cols, const double *restrict m, const double *restrict x, double *restrict y) {
#pragma acc kernels copyin(m[0:rows*cols], x[0:cols]) copyout(y[0:rows])
#pragma acc loop
  for (int i = 0; i < rows; i++) {
    double t = 0;
#pragma acc loop reduction(+:t)
    for (int j = 0; j < cols; j++) t += m[i * cols + j] * x[j];
    y[i] = t;
  }
}

/* Proved: collapse(2) over a row-major block, an inner plain loop with a constant range, an
 * array private to each iteration. */
static void blocks(int n, const double *restrict x, double *restrict y) {
#pragma acc kernels copyin(x[0:4*n*3]) copyout(y[0:n*3])
#pragma acc loop collapse(2)
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double t[4];
      for (int q = 0; q < 4; q++) t[q] = x[(i * 3 + k) * 4 + q];
      y[i * 3 + k] = t[0] + 2 * t[1] + 3 * t[2] + 4 * t[3];
    }
}

int main(void) {
  const int n = 1001;
  double *x = e2e_alloc(sizeof(double) * n), *y = e2e_alloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) x[i] = (double)(i % 97) - 40.0;

  scale(n, x, y);
  for (int i = 0; i < n; i++) CHECK(y[i] == 2.0 * x[i] + 1.0, "scale: y[%d] = %g, want %g", i, y[i], 2.0 * x[i] + 1.0);

  /* Globals: distinct arrays, proved; then a recurrence on one of them, kept sequential. */
  for (int i = 0; i < n; i++) gb[i] = (double)(i * 3 % 11);
#pragma acc kernels copyin(gb) copyout(ga)
  {
#pragma acc loop
    for (int i = 0; i < n; i++) ga[i] = gb[i] * gb[i];
  }
  for (int i = 0; i < n; i++) CHECK(ga[i] == gb[i] * gb[i], "globals: ga[%d] = %g", i, ga[i]);
#pragma acc kernels copy(ga)
  {
#pragma acc loop
    for (int i = 1; i < n; i++) ga[i] = ga[i - 1] + 1.0;
  }
  for (int i = 0; i < n; i++) CHECK(ga[i] == gb[0] * gb[0] + i, "recurrence: ga[%d] = %g, want %g", i, ga[i], gb[0] * gb[0] + i);

  /* A scalar carried from one iteration to the next (declared in the region: private to it,
   * an SSA value the analysis sees as a phi). */
  double *run = e2e_alloc(sizeof(double) * n);
#pragma acc kernels copyin(x[0:n]) copyout(run[0:n])
  {
    double s = 0.5;
#pragma acc loop
    for (int i = 0; i < n; i++) {
      s = s * 0.5 + x[i];
      run[i] = s;
    }
  }
  double s = 0.5;
  for (int i = 0; i < n; i++) {
    s = s * 0.5 + x[i];
    CHECK(e2e_close(run[i], s, 1e-12), "carried scalar: run[%d] = %.17g, want %.17g", i, run[i], s);
  }

  /* A sum into a host scalar (copy): kept sequential, exact. */
  double sum = 0;
#pragma acc kernels copyin(x[0:n])
#pragma acc loop
  for (int i = 0; i < n; i++) sum += x[i];
  double want_sum = 0;
  for (int i = 0; i < n; i++) want_sum += x[i];
  CHECK(sum == want_sum, "sum: %.17g, want %.17g", sum, want_sum);

  /* Aliasing pointers that overlap: b = a + 1. */
  double *a = e2e_alloc(sizeof(double) * (n + 1));
  for (int i = 0; i <= n; i++) a[i] = (double)(i % 5);
#pragma acc data copy(a[0:n + 1])
  shift(n, a, a + 1);
  for (int i = 0; i <= n; i++) CHECK(a[i] == (double)i, "alias: a[%d] = %g, want %d", i, a[i], i);

  /* The stencil sweep, and a recurrence over rows: the outer loop carries it (sequential),
   * the inner one is partitioned over workers and lanes (each lane reads another lane's
   * element of the previous row, so the lanes must wait for each other between rows). */
  double *u = e2e_alloc(sizeof(double) * R * C), *v = e2e_alloc(sizeof(double) * R * C);
  for (int k = 0; k < R * C; k++) u[k] = (double)((k * 7) % 13), v[k] = -1.0;
  sweep(R, C, u, v);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      double want = (i == 0 || j == 0 || i == R - 1 || j == C - 1)
                        ? -1.0
                        : 0.25 * (u[(i - 1) * C + j] + u[(i + 1) * C + j] + u[i * C + j - 1] + u[i * C + j + 1]);
      CHECK(v[i * C + j] == want, "sweep: v[%d][%d] = %g, want %g", i, j, v[i * C + j], want);
    }
  static double col[R][C];
  for (int j = 0; j < C; j++) col[0][j] = (double)j;
#pragma acc kernels copy(col)
  {
#pragma acc loop
    for (int i = 1; i < R; i++)
#pragma acc loop
      for (int j = 0; j < C; j++) col[i][j] = col[i - 1][C - 1 - j] * 0.5 + (double)(i + j);
  }
  double want_col[R][C];
  for (int j = 0; j < C; j++) want_col[0][j] = (double)j;
  for (int i = 1; i < R; i++)
    for (int j = 0; j < C; j++) want_col[i][j] = want_col[i - 1][C - 1 - j] * 0.5 + (double)(i + j);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) CHECK(col[i][j] == want_col[i][j], "columns: col[%d][%d] = %.17g, want %.17g", i, j, col[i][j], want_col[i][j]);

  /* collapse(2) with an inner plain loop and a private array. */
  int nb = 77;
  double *bx = e2e_alloc(sizeof(double) * 4 * nb * 3), *by = e2e_alloc(sizeof(double) * nb * 3);
  for (int k = 0; k < 4 * nb * 3; k++) bx[k] = (double)(k % 9);
  blocks(nb, bx, by);
  for (int k = 0; k < nb * 3; k++) {
    double want = bx[k * 4] + 2 * bx[k * 4 + 1] + 3 * bx[k * 4 + 2] + 4 * bx[k * 4 + 3];
    CHECK(by[k] == want, "blocks: y[%d] = %g, want %g", k, by[k], want);
  }

  /* A matrix-vector product, 53 x 29. */
  double *mm = e2e_alloc(sizeof(double) * 53 * 29), *mv = e2e_alloc(sizeof(double) * 53);
  for (int k = 0; k < 53 * 29; k++) mm[k] = (double)(k % 7) - 3.0;
  matvec(53, 29, mm, x, mv);
  for (int i = 0; i < 53; i++) {
    double t = 0;
    for (int j = 0; j < 29; j++) t += mm[i * 29 + j] * x[j];
    CHECK(mv[i] == t, "matvec: y[%d] = %.17g, want %.17g", i, mv[i], t);
  }
  free(mm), free(mv);

  /* auto in a parallel construct: proved, partitioned. */
#pragma acc parallel loop auto copy(y[0:n])
  for (int i = 0; i < n; i++) y[i] = y[i] * 3.0 - 1.0;
  for (int i = 0; i < n; i++) CHECK(y[i] == (2.0 * x[i] + 1.0) * 3.0 - 1.0, "auto: y[%d] = %g", i, y[i]);

  free(x), free(y), free(run), free(a), free(u), free(v), free(bx), free(by);
  return e2e_finish();
}
