/* Array reductions with bounds only known at run time whose regions do more than update an
 * element with the clause's operator: they read one (for something else), store one plainly,
 * or pass its address to a function. Atomics cannot give those the private copy the spec
 * promises, so each thread gets copies of run-time size in the launch's private area
 * (codegen/src/reduction.rs `View`): a read sees the thread's own partial result. Every
 * check holds however the iterations are spread (the reads test what any partial result
 * satisfies); sizes are odd, each element is hit by many iterations from different gangs
 * and lanes, and the original values take part. Also rows that are pointers and a part of
 * each row with run-time bounds (copies combined into the variable row by row). */
#define E2E_NAME "reduction_runtime_reads"
#include "e2e.h"
#include <complex.h>

/* Implicitly a `seq` routine: the region passes it an element's address. */
static void add_to(long *p, long v) { *p += v; }

/* A read and a plain store in a combined construct, on double and int elements. */
static void combined(int n, int m) {
  double *h = e2e_alloc(m * sizeof(double));
  int *c = e2e_alloc(m * sizeof(int));
  int *ok = e2e_alloc(n * sizeof(int));
  for (int j = 0; j < m; j++) { h[j] = j * 0.5; c[j] = 3 * j; }
#pragma acc parallel loop reduction(+: h[0:m], c[0:m]) copyout(ok[0:n])
  for (int i = 0; i < n; i++) {
    int b = (i * 7) % m;
    double t = h[b] + (i % 5);
    if (t > 1e300) t = -1; /* never: a plain store of a value that is not h[b] + x */
    h[b] = t;
    c[i % m] = c[i % m] + 2 * (i % 3) - 1 > -1000000 ? c[i % m] + 2 * (i % 3) - 1 : 0;
    /* The thread's copy: the identity plus its own additions, never negative. */
    ok[i] = h[b] >= 0.0;
  }
  for (int j = 0; j < m; j++) {
    double wh = j * 0.5;
    long wc = 3 * j;
    for (int i = 0; i < n; i++) {
      if ((i * 7) % m == j) wh += i % 5;
      if (i % m == j) wc += 2 * (i % 3) - 1;
    }
    CHECK(h[j] == wh, "combined(%d, %d): h[%d] = %g, want %g", n, m, j, h[j], wh);
    CHECK(c[j] == wc, "combined(%d, %d): c[%d] = %d, want %ld", n, m, j, c[j], wc);
  }
  for (int i = 0; i < n; i++) CHECK(ok[i] == 1, "combined(%d, %d): ok[%d] = %d", n, m, i, ok[i]);
  free(h), free(c), free(ok);
}

/* An element's address passed to a function. */
static void address(int n, int m) {
  long *s = e2e_alloc(m * sizeof(long));
  for (int j = 0; j < m; j++) s[j] = 100 + j;
#pragma acc parallel loop gang vector_length(64) reduction(+: s[0:m])
  for (int i = 0; i < n; i++) add_to(&s[(i * 3) % m], i);
  for (int j = 0; j < m; j++) {
    long w = 100 + j;
    for (int i = 0; i < n; i++) w += (i * 3) % m == j ? i : 0;
    CHECK(s[j] == w, "address(%d, %d): s[%d] = %ld, want %ld", n, m, j, s[j], w);
  }
  free(s);
}

/* max with a read after the update; * on int; a section that does not start at 0. */
static void operators(int n, int m) {
  int *mx = e2e_alloc(m * sizeof(int)), *seen = e2e_alloc(n * sizeof(int));
  long long *p = e2e_alloc((m + 3) * sizeof(long long));
  for (int j = 0; j < m; j++) mx[j] = j - 50;
  for (int j = 0; j < m + 3; j++) p[j] = j % 4 == 0 ? 2 : 1;
#pragma acc parallel loop reduction(max: mx[0:m]) reduction(*: p[3:m]) copyout(seen[0:n])
  for (int i = 0; i < n; i++) {
    int v = (i * 37) % 101 - 40, b = i % m;
    mx[b] = v > mx[b] ? v : mx[b];
    seen[i] = mx[b] >= v;
    long long f = i % 13 == 0 ? 3 : 1;
    long long q = p[3 + (i * 5) % m] * f;
    p[3 + (i * 5) % m] = q == 0 ? 7 : q; /* never 0: a plain store */
  }
  for (int j = 0; j < m; j++) {
    int w = j - 50;
    long long wp = (j + 3) % 4 == 0 ? 2 : 1;
    for (int i = 0; i < n; i++) {
      int v = (i * 37) % 101 - 40;
      if (i % m == j && v > w) w = v;
      if ((i * 5) % m == j && i % 13 == 0) wp *= 3;
    }
    CHECK(mx[j] == w, "operators(%d, %d): mx[%d] = %d, want %d", n, m, j, mx[j], w);
    CHECK(p[j + 3] == wp, "operators(%d, %d): p[%d] = %lld, want %lld", n, m, j + 3, p[j + 3], wp);
  }
  for (int j = 0; j < 3; j++) CHECK(p[j] == (j % 4 == 0 ? 2 : 1), "operators: p[%d] outside the section changed", j);
  for (int i = 0; i < n; i++) CHECK(seen[i] == 1, "operators(%d, %d): seen[%d] = %d", n, m, i, seen[i]);
  free(mx), free(seen), free(p);
}

/* A gang loop's item with a vector loop inside that reduces it too and reads it; the gang
 * loop's body reads its gang's copy after the vector loop. */
static void nested(int rows, int w, int m) {
  double *a = e2e_alloc(rows * w * sizeof(double)), *h = e2e_alloc(m * sizeof(double));
  int *ok = e2e_alloc(rows * sizeof(int));
  for (int k = 0; k < rows * w; k++) a[k] = (k % 9) * 0.25;
  for (int j = 0; j < m; j++) h[j] = 1.0;
#pragma acc parallel loop gang reduction(+: h[0:m]) copyin(a[0:rows * w]) copyout(ok[0:rows])
  for (int i = 0; i < rows; i++) {
#pragma acc loop vector reduction(+: h[0:m])
    for (int j = 0; j < w; j++) {
      int b = (i + j) % m;
      h[b] = h[b] >= 0 ? h[b] + a[i * w + j] : -1.0;
    }
    ok[i] = h[i % m] >= 0.0;
  }
  for (int j = 0; j < m; j++) {
    double want = 1.0;
    for (int i = 0; i < rows; i++)
      for (int k = 0; k < w; k++)
        if ((i + k) % m == j) want += a[i * w + k];
    CHECK(e2e_close(h[j], want, 1e-12), "nested(%d, %d, %d): h[%d] = %.17g, want %.17g", rows, w, m, j, h[j], want);
  }
  for (int i = 0; i < rows; i++) CHECK(ok[i] == 1, "nested: ok[%d] = %d", i, ok[i]);
  free(a), free(h), free(ok);
}

/* A worker loop's item in one gang, entered again by a sequential loop: each entry starts
 * its copies at the identity. */
static void repeated(int n, int m) {
  long *h = e2e_alloc(m * sizeof(long));
  for (int j = 0; j < m; j++) h[j] = -j;
#pragma acc parallel num_gangs(1) num_workers(4) vector_length(32) copy(h[0:m])
  for (int t = 0; t < 3; t++) {
#pragma acc loop worker vector reduction(+: h[0:m])
    for (int i = 0; i < n; i++) {
      long v = h[(i + t) % m];
      h[(i + t) % m] = v + (v < 1000000000 ? i : 0);
    }
  }
  for (int j = 0; j < m; j++) {
    long want = -j;
    for (int t = 0; t < 3; t++)
      for (int i = 0; i < n; i++) want += (i + t) % m == j ? i : 0;
    CHECK(h[j] == want, "repeated(%d, %d): h[%d] = %ld, want %ld", n, m, j, h[j], want);
  }
  free(h);
}

/* Complex elements: + with a read of the element. */
static void complexes(int n, int m) {
  double _Complex *z = e2e_alloc(m * sizeof(double _Complex));
  for (int j = 0; j < m; j++) z[j] = j + 1.0 * I;
#pragma acc parallel loop reduction(+: z[0:m])
  for (int i = 0; i < n; i++) {
    double _Complex old = z[i % m];
    z[i % m] = creal(old) > -1e300 ? old + (i % 4) - 2.0 * (i % 3) * I : old;
  }
  for (int j = 0; j < m; j++) {
    double _Complex want = j + 1.0 * I;
    for (int i = 0; i < n; i++) want += i % m == j ? (i % 4) - 2.0 * (i % 3) * I : 0;
    CHECK(z[j] == want, "complexes(%d, %d): z[%d] = %g%+gi, want %g%+gi", n, m, j, creal(z[j]), cimag(z[j]), creal(want), cimag(want));
  }
  free(z);
}

/* Rows that are pointers (`p[1:r][2:c]` of `double **p`: each copy is a row table and its
 * rows) and a part of each row with run-time bounds (`q[a:r][b:c]` of `int (*q)[9]`, under
 * `&&`: the elements outside the part keep their 5s); reads and plain stores. */
static void rows(int n, int r, int c) {
  double **p = e2e_alloc(sizeof(double *) * (r + 2));
  for (int i = 0; i < r + 2; i++) {
    p[i] = e2e_alloc(sizeof(double) * (c + 4));
    for (int j = 0; j < c + 4; j++) p[i][j] = i * 100 + j;
  }
  int (*q)[9] = e2e_alloc(sizeof(int[9]) * (r + 3));
  for (int i = 0; i < r + 3; i++)
    for (int j = 0; j < 9; j++) q[i][j] = 5;
  int a = 2, b = 3, w = 4;
  for (int i = a; i < a + r; i++)
    for (int j = b; j < b + w; j++) q[i][j] = 1;
  int *ok = e2e_alloc(sizeof(int) * n);
#pragma acc parallel loop reduction(+: p[1:r][2:c]) reduction(&&: q[a:r][b:w]) copyout(ok[0:n])
  for (int i = 0; i < n; i++) {
    int y = 1 + i % r, x = 2 + (i * 7) % c;
    double t = p[y][x] + (i % 3);
    p[y][x] = t > 1e300 ? 0 : t;
    ok[i] = p[y][x] >= 0;
    int u = a + (i * 5) % r, v = b + i % w, keep = q[u][v];
    q[u][v] = keep && (i != n / 2);
  }
  for (int i = 0; i < r + 2; i++)
    for (int j = 0; j < c + 4; j++) {
      double want = i * 100 + j;
      for (int k = 0; k < n; k++)
        if (i >= 1 && i < 1 + r && j >= 2 && j < 2 + c && 1 + k % r == i && 2 + (k * 7) % c == j) want += k % 3;
      CHECK(p[i][j] == want, "rows(%d, %d, %d): p[%d][%d] = %g, want %g", n, r, c, i, j, p[i][j], want);
    }
  for (int i = 0; i < r + 3; i++)
    for (int j = 0; j < 9; j++) {
      int inside = i >= a && i < a + r && j >= b && j < b + w, want = inside ? 1 : 5;
      for (int k = 0; k < n; k++)
        if (inside && a + (k * 5) % r == i && b + k % w == j) want = want && k != n / 2;
      CHECK(q[i][j] == want, "rows(%d, %d, %d): q[%d][%d] = %d, want %d", n, r, c, i, j, q[i][j], want);
    }
  for (int i = 0; i < n; i++) CHECK(ok[i] == 1, "rows: ok[%d] = %d", i, ok[i]);
  for (int i = 0; i < r + 2; i++) free(p[i]);
  free(p), free(q), free(ok);
}

/* Two levels of pointer rows (`q[1:a][0:b][2:c]` of `long ***q`), read and stored plainly. */
static void planes(int n, int a, int b, int c) {
  long ***q = e2e_alloc(sizeof(long **) * (a + 1));
  for (int i = 0; i < a + 1; i++) {
    q[i] = e2e_alloc(sizeof(long *) * b);
    for (int j = 0; j < b; j++) {
      q[i][j] = e2e_alloc(sizeof(long) * (c + 3));
      for (int k = 0; k < c + 3; k++) q[i][j][k] = i * 10000 + j * 100 + k;
    }
  }
#pragma acc parallel loop gang vector_length(64) reduction(+: q[1:a][0:b][2:c])
  for (int t = 0; t < n; t++) {
    int i = 1 + t % a, j = (t / 3) % b, k = 2 + (t * 7) % c;
    long v = q[i][j][k];
    q[i][j][k] = v < -1000000000 ? 0 : v + t % 5;
  }
  for (int i = 0; i < a + 1; i++)
    for (int j = 0; j < b; j++)
      for (int k = 0; k < c + 3; k++) {
        long want = i * 10000 + j * 100 + k;
        for (int t = 0; t < n; t++)
          if (i >= 1 && k >= 2 && k < 2 + c && 1 + t % a == i && (t / 3) % b == j && 2 + (t * 7) % c == k) want += t % 5;
        CHECK(q[i][j][k] == want, "planes(%d, %d, %d, %d): q[%d][%d][%d] = %ld, want %ld", n, a, b, c, i, j, k, q[i][j][k], want);
      }
  for (int i = 0; i < a + 1; i++) {
    for (int j = 0; j < b; j++) free(q[i][j]);
    free(q[i]);
  }
  free(q);
}

/* A vector loop's item whose bounds the gang loop's body computes: each thread's copies are
 * made where the loop begins (on its stack, or from the device heap when large); every gang
 * adds its loop's result into the shared array. */
static void inner(int gangs, int n, int base) {
  int top = base + 3;
  long *h = e2e_alloc(sizeof(long) * top);
  for (int j = 0; j < top; j++) h[j] = 1000 * j;
#pragma acc parallel loop gang copy(h[0:top])
  for (int g = 0; g < gangs; g++) {
    int m = base + g % 3;
#pragma acc loop vector reduction(+: h[0:m])
    for (int i = 0; i < n; i++) {
      long v = h[(i * 7) % m];
      h[(i * 7) % m] = v < -1000000000L ? 0 : v + (i + g) % 4;
    }
  }
  for (int j = 0; j < top; j++) {
    long want = 1000 * j;
    for (int g = 0; g < gangs; g++) {
      int m = base + g % 3;
      for (int i = 0; i < n; i++)
        if ((i * 7) % m == j) want += (i + g) % 4;
    }
    CHECK(h[j] == want, "inner(%d, %d, %d): h[%d] = %ld, want %ld", gangs, n, base, j, h[j], want);
  }
  free(h);
}

int main(void) {
  combined(3001, 37);
  combined(5, 11);
  address(2049, 23);
  operators(4001, 29);
  nested(45, 77, 13);
  repeated(1001, 17);
  complexes(999, 19);
  rows(2999, 5, 7);
  rows(17, 3, 2);
  planes(3001, 3, 4, 5);
  inner(13, 777, 5);
  inner(7, 3001, 400); /* 3.2 KiB copies: from the device heap */
  return e2e_finish();
}
