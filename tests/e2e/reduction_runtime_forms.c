/* Array reductions with bounds only known at run time, in the forms that need more than one
 * atomic instruction (codegen/src/atomic_reduction.rs): `&&`/`||` in either operand order on
 * int, char and double elements, `_Bool` elements under every operator, complex `+` and `*`
 * (a 64-bit and a 128-bit compare-and-swap of both parts), and arrays private to a gang or
 * worker that an inner loop reduces (shared by that loop's threads), and sections through rows
 * that are pointers (`double **p`: each row mapped and attached on its own). Every element is
 * checked against a serial computation; sizes are odd and each element is hit by many
 * iterations from different gangs and lanes, and the original values take part. */
#define E2E_NAME "reduction_runtime_forms"
#include "e2e.h"
#include <complex.h>

static void logical(int n, int m) {
  int *a = e2e_alloc(m * sizeof(int)), *o = e2e_alloc(m * sizeof(int));
  char *c = e2e_alloc(m);
  double *d = e2e_alloc(m * sizeof(double));
  for (int j = 0; j < m; j++) { a[j] = j + 3; o[j] = j % 3 == 0; c[j] = 2; d[j] = j == 1 ? -0.5 : 0.0; }
  /* && with the element first, || with it second, each false (or true) for some elements.
   * Every element is updated at least once: one that no iteration updates keeps its
   * original value (5 stays 5 under ||), as on the host path. */
#pragma acc parallel loop reduction(&&: a[0:m]) reduction(||: o[0:m])
  for (int i = 0; i < n; i++) {
    a[i % m] = a[i % m] && (i != 2 * m + 4);
    o[(i * 5) % m] = (i == 3 * m + 2) || o[(i * 5) % m];
  }
#pragma acc parallel loop gang vector_length(64) reduction(&&: c[0:m]) reduction(||: d[0:m])
  for (int i = 0; i < n; i++) {
    c[i % m] = (i % m != 5 || i < n / 2) && c[i % m];
    d[i % m] = d[i % m] || (i == m + 2);
  }
  for (int j = 0; j < m; j++) {
    int hit_o = 0;
    for (int i = 0; i < n; i++) hit_o |= (i * 5) % m == j && i == 3 * m + 2;
    int wa = j != 4 % m || n <= 2 * m + 4, wo = (j % 3 == 0) || hit_o, wc = !(j == 5 && n / 2 < n && m > 5), wd = j == 1 || (j == 2 % m && n > m + 2);
    CHECK(a[j] == wa, "logical(%d, %d): a[%d] = %d, want %d", n, m, j, a[j], wa);
    CHECK(o[j] == wo, "logical(%d, %d): o[%d] = %d, want %d", n, m, j, o[j], wo);
    CHECK(c[j] == wc, "logical(%d, %d): c[%d] = %d, want %d", n, m, j, c[j], wc);
    CHECK(d[j] == wd, "logical(%d, %d): d[%d] = %g, want %d", n, m, j, d[j], wd);
  }
  free(a), free(o), free(c), free(d);
}

static void bools(int n, int m) {
  _Bool *p = e2e_alloc(m), *t = e2e_alloc(m), *x = e2e_alloc(m), *hi = e2e_alloc(m), *lo = e2e_alloc(m), *s = e2e_alloc(m);
  _Bool *wx = e2e_alloc(m), *ws = e2e_alloc(m);
  for (int j = 0; j < m; j++) { p[j] = 0; t[j] = 1; x[j] = wx[j] = j & 1; hi[j] = 0; lo[j] = 1; s[j] = ws[j] = j == 2; }
  for (int i = 0; i < n; i++) { wx[i % m] ^= (i % 3 == 0); ws[(i * 5) % m] = ws[(i * 5) % m] + (i == 7); }
#pragma acc parallel loop reduction(|: p[0:m]) reduction(*: t[0:m]) reduction(^: x[0:m]) reduction(max: hi[0:m]) reduction(min: lo[0:m]) reduction(+: s[0:m])
  for (int i = 0; i < n; i++) {
    p[i % m] |= (i == m + 1);
    t[i % m] *= (i != 2 * m);
    x[i % m] ^= (i % 3 == 0);
    hi[i % m] = hi[i % m] > (i == 4) ? hi[i % m] : (i == 4);
    lo[i % m] = lo[i % m] < (i != 3) ? lo[i % m] : (i != 3);
    s[(i * 5) % m] += (i == 7);
  }
  for (int j = 0; j < m; j++) {
    int wp = n > m + 1 && j == (m + 1) % m, wt = !(n > 2 * m && j == 0), wh = n > 4 && j == 4 % m, wl = !(n > 3 && j == 3 % m);
    CHECK(p[j] == wp, "bools(%d, %d): p[%d] = %d, want %d", n, m, j, p[j], wp);
    CHECK(t[j] == wt, "bools(%d, %d): t[%d] = %d, want %d", n, m, j, t[j], wt);
    CHECK(x[j] == wx[j], "bools(%d, %d): x[%d] = %d, want %d", n, m, j, x[j], wx[j]);
    CHECK(hi[j] == wh, "bools(%d, %d): hi[%d] = %d, want %d", n, m, j, hi[j], wh);
    CHECK(lo[j] == wl, "bools(%d, %d): lo[%d] = %d, want %d", n, m, j, lo[j], wl);
    CHECK(s[j] == ws[j], "bools(%d, %d): s[%d] = %d, want %d", n, m, j, s[j], ws[j]);
  }
  free(p), free(t), free(x), free(hi), free(lo), free(s), free(wx), free(ws);
}

static void complexes(int n, int m) {
  double _Complex *sum = e2e_alloc(m * sizeof *sum), *prod = e2e_alloc(m * sizeof *prod), *wprod = e2e_alloc(m * sizeof *wprod);
  float _Complex *fprod = e2e_alloc(m * sizeof *fprod), *wf = e2e_alloc(m * sizeof *wf);
  for (int j = 0; j < m; j++) { sum[j] = j - 1.0 * I; prod[j] = wprod[j] = 2.0 + j * I; fprod[j] = wf[j] = 1.0f; }
  /* Factors of modulus 1 (rotations by multiples of a quarter turn are exact). */
  const double _Complex turn[4] = {1.0, I, -1.0, -I};
  for (int i = 0; i < n; i++) { wprod[i % m] *= turn[i % 4]; wf[(i * 3) % m] *= (float _Complex)turn[(i / 2) % 4]; }
#pragma acc parallel loop reduction(+: sum[0:m]) reduction(*: prod[0:m], fprod[0:m]) copyin(turn)
  for (int i = 0; i < n; i++) {
    sum[i % m] += 0.5 + 0.25 * (i % 4) * I;
    prod[i % m] *= turn[i % 4];
    fprod[(i * 3) % m] = (float _Complex)turn[(i / 2) % 4] * fprod[(i * 3) % m];
  }
  for (int j = 0; j < m; j++) {
    double re = j, im = -1.0;
    for (int i = j; i < n; i += m) re += 0.5, im += 0.25 * (i % 4);
    CHECK(creal(sum[j]) == re && cimag(sum[j]) == im, "complexes(%d, %d): sum[%d] = %g%+gi, want %g%+gi", n, m, j, creal(sum[j]), cimag(sum[j]), re, im);
    CHECK(prod[j] == wprod[j], "complexes(%d, %d): prod[%d] = %g%+gi, want %g%+gi", n, m, j, creal(prod[j]), cimag(prod[j]), creal(wprod[j]), cimag(wprod[j]));
    CHECK(fprod[j] == wf[j], "complexes(%d, %d): fprod[%d] = %g%+gi, want %g%+gi", n, m, j, crealf(fprod[j]), cimagf(fprod[j]), crealf(wf[j]), cimagf(wf[j]));
  }
  free(sum), free(prod), free(wprod), free(fprod), free(wf);
}

/* A gang's own histogram (declared in the gang loop) filled by its vector lanes, a worker's
 * (declared in a worker loop, a run-time-sized one too) filled by its lanes, and one that a
 * sequential loop updates. */
static void private_arrays(int gangs, int n, int m) {
  int *out = e2e_alloc(gangs * 9 * sizeof(int)), *wout = e2e_alloc(gangs * 4 * 9 * sizeof(int)), *sout = e2e_alloc(gangs * 9 * sizeof(int));
#pragma acc parallel loop gang copyout(out[0:gangs * 9], wout[0:gangs * 4 * 9], sout[0:gangs * 9])
  for (int g = 0; g < gangs; g++) {
    int h[9], s[9];
    for (int k = 0; k < 9; k++) h[k] = s[k] = g;
#pragma acc loop vector reduction(+: h[0:m])
    for (int i = 0; i < n; i++) h[(i * 3 + g) % m] += 1 + (i & 1);
#pragma acc loop worker
    for (int w = 0; w < 4; w++) {
      int v[m];
      for (int k = 0; k < m; k++) v[k] = w;
#pragma acc loop vector reduction(max: v[0:m])
      for (int i = 0; i < n; i++) v[i % m] = v[i % m] > (i * w + g) % 1000 ? v[i % m] : (i * w + g) % 1000;
      for (int k = 0; k < 9; k++) wout[(g * 4 + w) * 9 + k] = k < m ? v[k] : -1;
    }
#pragma acc loop seq reduction(+: s[0:m])
    for (int i = 0; i < n; i++) s[i % m] += i % 3;
    for (int k = 0; k < 9; k++) out[g * 9 + k] = h[k], sout[g * 9 + k] = s[k];
  }
  for (int g = 0; g < gangs; g++) {
    for (int k = 0; k < m; k++) {
      int e = g, se = g;
      for (int i = 0; i < n; i++) {
        if ((i * 3 + g) % m == k) e += 1 + (i & 1);
        if (i % m == k) se += i % 3;
      }
      CHECK(out[g * 9 + k] == e, "private_arrays(%d, %d, %d): gang %d h[%d] = %d, want %d", gangs, n, m, g, k, out[g * 9 + k], e);
      CHECK(sout[g * 9 + k] == se, "private_arrays(%d, %d, %d): gang %d s[%d] = %d, want %d", gangs, n, m, g, k, sout[g * 9 + k], se);
      for (int w = 0; w < 4; w++) {
        int ve = w;
        for (int i = 0; i < n; i++) if (i % m == k && (i * w + g) % 1000 > ve) ve = (i * w + g) % 1000;
        CHECK(wout[(g * 4 + w) * 9 + k] == ve, "private_arrays(%d, %d, %d): gang %d worker %d v[%d] = %d, want %d", gangs, n, m, g, w, k, wout[(g * 4 + w) * 9 + k], ve);
      }
    }
  }
  free(out), free(wout), free(sout);
}

static void pointer_rows(int n, int m, int iters) {
  double **p = e2e_alloc(n * sizeof *p), **pw = e2e_alloc(n * sizeof *pw);
  int **q = e2e_alloc(n * sizeof *q), **qw = e2e_alloc(n * sizeof *qw);
  for (int r = 0; r < n; r++) {
    p[r] = e2e_alloc(m * sizeof **p), pw[r] = e2e_alloc(m * sizeof **pw);
    q[r] = e2e_alloc(m * sizeof **q), qw[r] = e2e_alloc(m * sizeof **qw);
    for (int c = 0; c < m; c++) p[r][c] = pw[r][c] = r + 0.5 * c, q[r][c] = qw[r][c] = -r;
  }
  for (int i = 0; i < iters; i++) {
    pw[i % n][(i / n) % m] += 0.25 * (i % 3);
    int r = 1 + i % (n - 1), c = 2 + (i / 3) % (m - 3), v = (i * 31) % 997;
    if (v > qw[r][c]) qw[r][c] = v;
  }
  /* On the construct (its implied copy maps every row), then a part of each row on a gang
   * loop, then a worker loop's item inside a data region that maps the rows. */
#pragma acc parallel loop reduction(+: p[0:n][0:m])
  for (int i = 0; i < iters; i++) p[i % n][(i / n) % m] += 0.25 * (i % 3);
#pragma acc parallel
#pragma acc loop gang reduction(max: q[1:n - 1][2:m - 3])
  for (int i = 0; i < iters; i++) {
    int r = 1 + i % (n - 1), c = 2 + (i / 3) % (m - 3), v = (i * 31) % 997;
    q[r][c] = q[r][c] > v ? q[r][c] : v;
  }
  for (int r = 0; r < n; r++)
    for (int c = 0; c < m; c++) {
      CHECK(p[r][c] == pw[r][c], "pointer_rows(%d, %d): p[%d][%d] = %g, want %g", n, m, r, c, p[r][c], pw[r][c]);
      CHECK(q[r][c] == qw[r][c], "pointer_rows(%d, %d): q[%d][%d] = %d, want %d", n, m, r, c, q[r][c], qw[r][c]);
      pw[r][c] = p[r][c];
    }
  for (int g = 0; g < 5; g++)
    for (int i = 0; i < iters; i++) pw[(i + g) % n][i % m] -= 1.0;
#pragma acc data copy(p[0:n][0:m])
#pragma acc parallel loop gang num_gangs(5)
  for (int g = 0; g < 5; g++) {
#pragma acc loop worker reduction(+: p[0:n][0:m])
    for (int i = 0; i < iters; i++) p[(i + g) % n][i % m] -= 1.0;
  }
  for (int r = 0; r < n; r++)
    for (int c = 0; c < m; c++) CHECK(p[r][c] == pw[r][c], "pointer_rows(%d, %d): after the worker loops p[%d][%d] = %g, want %g", n, m, r, c, p[r][c], pw[r][c]);
  for (int r = 0; r < n; r++) free(p[r]), free(pw[r]), free(q[r]), free(qw[r]);
  free(p), free(pw), free(q), free(qw);
}

int main(void) {
  logical(20011, 13);
  logical(9, 7);
  bools(10007, 11);
  bools(5, 7);
  complexes(4001, 9);
  complexes(3, 5);
  private_arrays(37, 1001, 7);
  private_arrays(3, 5, 9);
  pointer_rows(7, 9, 20011);
  pointer_rows(2, 4, 3);
  return e2e_finish();
}
