/* Array reductions whose bounds are only known at run time (codegen/src/atomic_reduction.rs:
 * each update of an element becomes an atomic update of its device copy). Every element is
 * checked against a serial computation; the arrays start from values that are not the
 * operator's identity (the original value takes part), sizes are odd, and many iterations
 * hit each element, from every gang, worker and lane. */
#define E2E_NAME "reduction_runtime_bounds"
#include "e2e.h"
#include <stdint.h>

/* A histogram of weights: `+` on doubles (exact: multiples of 0.25), on the combined
 * construct; and `-=` on ints, a `+` reduction too. */
static void histogram(int n, int m) {
  int *bin = e2e_alloc(n * sizeof(int));
  double *w = e2e_alloc(n * sizeof(double)), *h = e2e_alloc(m * sizeof(double)), *want = e2e_alloc(m * sizeof(double));
  int *c = e2e_alloc(m * sizeof(int)), *cwant = e2e_alloc(m * sizeof(int));
  for (int j = 0; j < m; j++) { h[j] = want[j] = 0.5 * j; c[j] = cwant[j] = 1000 + j; }
  for (int i = 0; i < n; i++) {
    bin[i] = (int)(((long)i * 7919) % m);
    w[i] = 0.25 * (i % 9);
    want[bin[i]] += w[i];
    cwant[bin[i]] -= i % 5;
  }
#pragma acc parallel loop reduction(+:h[0:m], c[0:m]) copyin(bin[0:n], w[0:n])
  for (int i = 0; i < n; i++) {
    h[bin[i]] += w[i];
    c[bin[i]] -= i % 5;
  }
  for (int j = 0; j < m; j++) {
    CHECK(h[j] == want[j], "histogram(%d, %d): h[%d] = %g, want %g", n, m, j, h[j], want[j]);
    CHECK(c[j] == cwant[j], "histogram(%d, %d): c[%d] = %d, want %d", n, m, j, c[j], cwant[j]);
  }
  free(bin), free(w), free(h), free(want), free(c), free(cwant);
}

/* max and min in C's spellings (?: both ways round, fmax/fmin), signed and unsigned, on a
 * gang vector loop inside a data region; the loop's own reduction clause. */
static void extremes(int n, int m) {
  int *hi = e2e_alloc(m * sizeof(int)), *hiw = e2e_alloc(m * sizeof(int));
  unsigned *lo = e2e_alloc(m * sizeof(unsigned)), *low = e2e_alloc(m * sizeof(unsigned));
  double *fx = e2e_alloc(m * sizeof(double)), *fxw = e2e_alloc(m * sizeof(double));
  float *fn = e2e_alloc(m * sizeof(float)), *fnw = e2e_alloc(m * sizeof(float));
  for (int j = 0; j < m; j++) {
    hi[j] = hiw[j] = -5000 + j;
    lo[j] = low[j] = 4000000000u - j;
    fx[j] = fxw[j] = -1e300;
    fn[j] = fnw[j] = 1e30f;
  }
  for (int i = 0; i < n; i++) {
    int j = i % m, v = (int)(((long)i * 104729) % 20011) - 10005;
    unsigned u = (unsigned)(((long)i * 7919) % 3999999999L);
    if (v > hiw[j]) hiw[j] = v;
    if ((i % 3 == 0 ? v : -v) > hiw[j]) hiw[j] = (i % 3 == 0 ? v : -v);
    if (u < low[j]) low[j] = u;
    fxw[j] = fmax(fxw[j], 0.5 * v);
    fnw[j] = fminf(fnw[j], 0.25f * v);
  }
#pragma acc data copy(hi[0:m], lo[0:m], fx[0:m], fn[0:m])
#pragma acc parallel
#pragma acc loop gang vector reduction(max:hi[0:m], fx[0:m]) reduction(min:lo[0:m], fn[0:m])
  for (int i = 0; i < n; i++) {
    int j = i % m, v = (int)(((long)i * 104729) % 20011) - 10005;
    unsigned u = (unsigned)(((long)i * 7919) % 3999999999L);
    hi[j] = hi[j] > v ? hi[j] : v;
    /* A conditional store whose contribution has a ?: of its own (computed twice). */
    if ((i % 3 == 0 ? v : -v) > hi[j]) hi[j] = (i % 3 == 0 ? v : -v);
    lo[j] = u < lo[j] ? u : lo[j];
    fx[j] = fmax(fx[j], 0.5 * v);
    fn[j] = fminf(0.25f * v, fn[j]);
  }
  for (int j = 0; j < m; j++) {
    CHECK(hi[j] == hiw[j], "extremes: hi[%d] = %d, want %d", j, hi[j], hiw[j]);
    CHECK(lo[j] == low[j], "extremes: lo[%d] = %u, want %u", j, lo[j], low[j]);
    CHECK(fx[j] == fxw[j], "extremes: fx[%d] = %g, want %g", j, fx[j], fxw[j]);
    CHECK(fn[j] == fnw[j], "extremes: fn[%d] = %g, want %g", j, fn[j], fnw[j]);
  }
  free(hi), free(hiw), free(lo), free(low), free(fx), free(fxw), free(fn), free(fnw);
}

/* `*` (a compare-and-swap loop): each element doubled ten times and halved three (exact),
 * over 64-bit integers too; and the bit operators on unsigned 64-bit words. */
static void products_and_bits(int m) {
  int n = 13 * m;
  double *p = e2e_alloc(m * sizeof(double));
  int64_t *q = e2e_alloc(m * sizeof(int64_t));
  uint64_t *a = e2e_alloc(m * sizeof(uint64_t)), *o = e2e_alloc(m * sizeof(uint64_t)), *x = e2e_alloc(m * sizeof(uint64_t));
  uint64_t *aw = e2e_alloc(m * sizeof(uint64_t)), *ow = e2e_alloc(m * sizeof(uint64_t)), *xw = e2e_alloc(m * sizeof(uint64_t));
  for (int j = 0; j < m; j++) {
    p[j] = 1.5 + j;
    q[j] = -3 - j;
    a[j] = aw[j] = ~0ull;
    o[j] = ow[j] = (uint64_t)j << 40;
    x[j] = xw[j] = 0x5555555555555555ull * (uint64_t)(j & 1);
  }
  for (int i = 0; i < n; i++) {
    int j = i % m;
    uint64_t bit = 1ull << ((i * 7) % 64);
    aw[j] &= ~bit;
    ow[j] |= bit;
    xw[j] ^= bit * (uint64_t)(i % 3);
  }
#pragma acc parallel loop num_gangs(5) vector_length(64) reduction(*:p[0:m], q[0:m]) reduction(&:a[0:m]) reduction(|:o[0:m]) reduction(^:x[0:m])
  for (int i = 0; i < n; i++) {
    int j = i % m, r = i / m;
    p[j] *= r < 10 ? 2.0 : 0.5;
    q[j] = q[j] * (r % 4 == 0 ? -1 : 1);
    uint64_t bit = 1ull << ((i * 7) % 64);
    a[j] &= ~bit;
    o[j] = bit | o[j];
    x[j] ^= bit * (uint64_t)(i % 3);
  }
  for (int j = 0; j < m; j++) {
    double pw = (1.5 + j) * 128.0;
    int64_t qw = -3 - j; /* r = 0, 4, 8, 12: four sign flips leave it unchanged */
    CHECK(p[j] == pw, "products: p[%d] = %g, want %g", j, p[j], pw);
    CHECK(q[j] == qw, "products: q[%d] = %lld, want %lld", j, (long long)q[j], (long long)qw);
    CHECK(a[j] == aw[j], "bits: a[%d] = %llx, want %llx", j, (unsigned long long)a[j], (unsigned long long)aw[j]);
    CHECK(o[j] == ow[j], "bits: o[%d] = %llx, want %llx", j, (unsigned long long)o[j], (unsigned long long)ow[j]);
    CHECK(x[j] == xw[j], "bits: x[%d] = %llx, want %llx", j, (unsigned long long)x[j], (unsigned long long)xw[j]);
  }
  free(p), free(q), free(a), free(o), free(x), free(aw), free(ow), free(xw);
}

/* The reduction on an inner vector loop, the array in device memory shared by the gangs
 * of the outer loop: the rows of a matrix summed into a runtime-sized column histogram. */
static void inner_loop(int rows, int cols, int m) {
  float *v = e2e_alloc(rows * cols * sizeof(float)), *col = e2e_alloc(m * sizeof(float)), *want = e2e_alloc(m * sizeof(float));
  for (int j = 0; j < m; j++) col[j] = want[j] = (float)j;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      v[r * cols + c] = (float)((r + 3 * c) % 7);
      want[c % m] += v[r * cols + c];
    }
#pragma acc parallel loop gang num_workers(2) vector_length(32) copyin(v[0:rows*cols]) copy(col[0:m])
  for (int r = 0; r < rows; r++) {
#pragma acc loop worker vector reduction(+:col[0:m])
    for (int c = 0; c < cols; c++) col[c % m] += v[r * cols + c];
  }
  for (int j = 0; j < m; j++) CHECK(col[j] == want[j], "inner_loop: col[%d] = %g, want %g", j, col[j], want[j]);
  free(v), free(col), free(want);
}

/* Constant bounds too large for private copies (4099 doubles: over 1 KiB a thread): atomic
 * updates as well; and whole rows of a 2-D array (`g[1:3][:]`), whose private copies span
 * the rows (rows outside the section are left alone). */
#define BINS 4099
static double g[6][7];
static void large_and_rows(int n) {
  double *h = e2e_alloc(BINS * sizeof(double)), *want = e2e_alloc(BINS * sizeof(double));
  double gw[6][7];
  for (int j = 0; j < BINS; j++) h[j] = want[j] = j;
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 7; c++) g[r][c] = gw[r][c] = r * 10 + c;
  for (int i = 0; i < n; i++) {
    want[(i * 31) % BINS] += 0.5;
    gw[1 + i % 3][i % 7] += i % 4;
  }
#pragma acc parallel loop reduction(+:h[0:BINS])
  for (int i = 0; i < n; i++) h[(i * 31) % BINS] += 0.5;
#pragma acc parallel loop reduction(+:g[1:3][:])
  for (int i = 0; i < n; i++) g[1 + i % 3][i % 7] += i % 4;
  for (int j = 0; j < BINS; j++) CHECK(h[j] == want[j], "large: h[%d] = %g, want %g", j, h[j], want[j]);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 7; c++) CHECK(g[r][c] == gw[r][c], "rows: g[%d][%d] = %g, want %g", r, c, g[r][c], gw[r][c]);
  free(h), free(want);
}

/* A part of each row (`q[1:3][2:4]` of a global, `b[1:m][2:3]` through a pointer to rows):
 * atomic updates of the part; the elements outside it are left alone. */
static int q2[5][9];
static void row_parts(int n, int m) {
  int qw[5][9];
  double (*b)[7] = e2e_alloc((m + 1) * sizeof(double[7])), (*bw)[7] = e2e_alloc((m + 1) * sizeof(double[7]));
  for (int r = 0; r < 5; r++)
    for (int c = 0; c < 9; c++) q2[r][c] = qw[r][c] = 100 * r + c;
  for (int r = 0; r <= m; r++)
    for (int c = 0; c < 7; c++) b[r][c] = bw[r][c] = 0.5 * (r + c);
  for (int i = 0; i < n; i++) {
    qw[1 + i % 3][2 + i % 4] ^= i;
    bw[1 + i % m][2 + i % 3] += 0.25;
  }
#pragma acc parallel loop reduction(^:q2[1:3][2:4])
  for (int i = 0; i < n; i++) q2[1 + i % 3][2 + i % 4] ^= i;
#pragma acc parallel loop reduction(+:b[1:m][2:3])
  for (int i = 0; i < n; i++) b[1 + i % m][2 + i % 3] += 0.25;
  for (int r = 0; r < 5; r++)
    for (int c = 0; c < 9; c++) CHECK(q2[r][c] == qw[r][c], "row_parts: q2[%d][%d] = %d, want %d", r, c, q2[r][c], qw[r][c]);
  for (int r = 0; r <= m; r++)
    for (int c = 0; c < 7; c++) CHECK(b[r][c] == bw[r][c], "row_parts(%d, %d): b[%d][%d] = %g, want %g", n, m, r, c, b[r][c], bw[r][c]);
  free(b), free(bw);
}

/* char and short elements, which C promotes to int in the update (`c[j] += 1` is
 * trunc(sext(c[j]) + 1)): the atomic works on the narrow element; sums wrap. */
static void narrow_types(int n, int m) {
  signed char *c = e2e_alloc(m), *cw = e2e_alloc(m);
  unsigned short *s = e2e_alloc(m * sizeof(short)), *sw = e2e_alloc(m * sizeof(short));
  short *mx = e2e_alloc(m * sizeof(short)), *mxw = e2e_alloc(m * sizeof(short));
  unsigned char *mn = e2e_alloc(m), *mnw = e2e_alloc(m);
  for (int j = 0; j < m; j++) {
    c[j] = cw[j] = (signed char)(j - 3);
    s[j] = sw[j] = (unsigned short)(60000 + j);
    mx[j] = mxw[j] = -300;
    mn[j] = mnw[j] = 250;
  }
  for (int i = 0; i < n; i++) {
    int j = i % m;
    cw[j] += (signed char)(i % 7);
    sw[j] *= (unsigned short)(i % 50 == 0 ? 3 : 1);
    short v = (short)((i * 37) % 1001 - 500);
    mxw[j] = mxw[j] > v ? mxw[j] : v;
    unsigned char u = (unsigned char)((i * 11) % 240 + 3);
    if (u < mnw[j]) mnw[j] = u;
  }
#pragma acc parallel loop reduction(+:c[0:m]) reduction(*:s[0:m]) reduction(max:mx[0:m]) reduction(min:mn[0:m])
  for (int i = 0; i < n; i++) {
    int j = i % m;
    c[j] += (signed char)(i % 7);
    s[j] *= (unsigned short)(i % 50 == 0 ? 3 : 1);
    short v = (short)((i * 37) % 1001 - 500);
    mx[j] = mx[j] > v ? mx[j] : v;
    unsigned char u = (unsigned char)((i * 11) % 240 + 3);
    if (u < mn[j]) mn[j] = u;
  }
  for (int j = 0; j < m; j++) {
    CHECK(c[j] == cw[j], "narrow: c[%d] = %d, want %d", j, c[j], cw[j]);
    CHECK(s[j] == sw[j], "narrow: s[%d] = %u, want %u", j, s[j], sw[j]);
    CHECK(mx[j] == mxw[j], "narrow: mx[%d] = %d, want %d", j, mx[j], mxw[j]);
    CHECK(mn[j] == mnw[j], "narrow: mn[%d] = %u, want %u", j, mn[j], mnw[j]);
  }
  free(c), free(cw), free(s), free(sw), free(mx), free(mxw), free(mn), free(mnw);
}

int main(void) {
  histogram(100003, 37);
  histogram(999, 1);
  histogram(5, 11);
  extremes(50021, 17);
  extremes(3, 5);
  products_and_bits(19);
  products_and_bits(1);
  inner_loop(33, 301, 23);
  large_and_rows(30011);
  row_parts(20011, 5);
  row_parts(7, 1);
  narrow_types(10007, 13);
  narrow_types(3, 2);
  return e2e_finish();
}
