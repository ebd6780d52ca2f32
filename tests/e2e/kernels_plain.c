/* Plain C loops in `kernels` (no loop directive at all): the rewriter marks them as implicit
 * loops (driver/src/implicit.rs), the pass parallelises those it proves independent and keeps
 * the others sequential (lit-tests/driver/kernels-plain-report.c checks the -Minfo report of
 * this file). Each answer must be the sequential one: a Jacobi sweep (both loops partitioned),
 * a prefix sum (carried), a sum into a scalar, a parallel row loop over a carried column
 * loop, a while loop around a loop, a loop left by a break, a loop whose variable is declared
 * before it. Odd sizes, every element checked against the same code on the host. */
#define E2E_NAME "kernels_plain"
#include "e2e.h"

#define R 37
#define C 43

static void jacobi(int n, int m, const double *restrict a, double *restrict b) {
#pragma acc kernels copyin(a[0:n*m]) copy(b[0:n*m])
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      b[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1]);
}

static void prefix(int n, double *restrict x) {
#pragma acc kernels copy(x[0:n])
  for (int i = 1; i < n; i++) x[i] += x[i - 1];
}

static double total(int n, const double *restrict x) {
  double s = 0;
#pragma acc kernels copyin(x[0:n])
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

/* Rows independent (partitioned), each row a recurrence along j (sequential). */
static void rows(int n, int m, double *restrict g) {
#pragma acc kernels copy(g[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j++) g[i * m + j] = g[i * m + j - 1] * 0.5 + g[i * m + j];
}

/* A block with several loops, a while loop around one, a loop left by a break, a loop whose
 * variable lives outside. */
static void mixed(int n, double *restrict x, double *restrict y, int *restrict out) {
  int k;
#pragma acc kernels copy(x[0:n], y[0:n], out[0:3])
  {
    for (int i = 0; i < n; i++) y[i] = 2.0 * x[i];
    int t = 0;
    while (t < 3) {
      for (int i = 0; i < n; i++) y[i] += x[i];
      t++;
    }
    int first = -1;
    for (int i = 0; i < n; i++) {
      if (y[i] > 100.0) {
        first = i;
        break;
      }
      y[i] += 1.0;
    }
    for (k = 0; k < n; k += 2) x[k] = -x[k];
    out[0] = first;
    out[1] = k;
    out[2] = t;
  }
}

int main(void) {
  double *a = e2e_alloc(sizeof(double) * R * C), *b = e2e_alloc(sizeof(double) * R * C);
  for (int k = 0; k < R * C; k++) a[k] = (double)((k * 7) % 13), b[k] = -1.0;
  jacobi(R, C, a, b);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      double want = (i == 0 || j == 0 || i == R - 1 || j == C - 1)
                        ? -1.0
                        : 0.25 * (a[(i - 1) * C + j] + a[(i + 1) * C + j] + a[i * C + j - 1] + a[i * C + j + 1]);
      CHECK(b[i * C + j] == want, "jacobi: b[%d][%d] = %g, want %g", i, j, b[i * C + j], want);
    }

  const int n = 1001;
  double *x = e2e_alloc(sizeof(double) * n), *w = e2e_alloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) x[i] = w[i] = (double)(i % 7) - 2.0;
  prefix(n, x);
  for (int i = 1; i < n; i++) w[i] += w[i - 1];
  for (int i = 0; i < n; i++) CHECK(x[i] == w[i], "prefix: x[%d] = %g, want %g", i, x[i], w[i]);

  double s = total(n, x), want_s = 0;
  for (int i = 0; i < n; i++) want_s += x[i];
  CHECK(s == want_s, "total: %.17g, want %.17g", s, want_s);

  double *g = e2e_alloc(sizeof(double) * R * C), *h = e2e_alloc(sizeof(double) * R * C);
  for (int k = 0; k < R * C; k++) g[k] = h[k] = (double)(k % 11);
  rows(R, C, g);
  for (int i = 0; i < R; i++)
    for (int j = 1; j < C; j++) h[i * C + j] = h[i * C + j - 1] * 0.5 + h[i * C + j];
  for (int k = 0; k < R * C; k++) CHECK(g[k] == h[k], "rows: g[%d][%d] = %.17g, want %.17g", k / C, k % C, g[k], h[k]);

  double *mx = e2e_alloc(sizeof(double) * n), *my = e2e_alloc(sizeof(double) * n);
  double *hx = e2e_alloc(sizeof(double) * n), *hy = e2e_alloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) mx[i] = hx[i] = (double)(i % 31), my[i] = hy[i] = 0.0;
  int out[3] = {0, 0, 0};
  mixed(n, mx, my, out);
  int first = -1, k;
  for (int i = 0; i < n; i++) hy[i] = 2.0 * hx[i];
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < n; i++) hy[i] += hx[i];
  for (int i = 0; i < n; i++) {
    if (hy[i] > 100.0) {
      first = i;
      break;
    }
    hy[i] += 1.0;
  }
  for (k = 0; k < n; k += 2) hx[k] = -hx[k];
  for (int i = 0; i < n; i++) {
    CHECK(mx[i] == hx[i], "mixed: x[%d] = %g, want %g", i, mx[i], hx[i]);
    CHECK(my[i] == hy[i], "mixed: y[%d] = %g, want %g", i, my[i], hy[i]);
  }
  CHECK(out[0] == first && out[1] == k && out[2] == 3, "mixed: out = %d %d %d, want %d %d 3", out[0], out[1], out[2], first, k);

  free(a), free(b), free(x), free(w), free(g), free(h), free(mx), free(my), free(hx), free(hy);
  return e2e_finish();
}
