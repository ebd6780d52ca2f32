/* Array reductions in regions that read the reduced elements (a read, a plain store), in
 * the two forms that were rejected as "not supported yet" until 2026-11-28:
 *  - a part of each row of an array of three or more dimensions (`m[0:a][1:b][2:c]`), with
 *    constant and run-time bounds, on the construct (across gangs) and on a loop;
 *  - an item whose bounds the region computes (`int k = ...;` inside it) on a gang loop
 *    (reduced across gangs), or that is not one flat range (a part of each row, rows that
 *    are pointers), on a gang, worker or vector loop;
 *  - rows that are pointers to arrays (`double (**q)[6]`), whole or a part of each array;
 *  - arrays the region declares, with run-time bounds, read in the loop that reduces them.
 * Each thread gets private copies (codegen/src/reduction.rs `View`): a read sees the thread's
 * own partial result, so every check below holds however the iterations are spread. Sizes are
 * odd, elements are hit by many iterations of different gangs and lanes, original values take
 * part, and elements outside the section must keep their values exactly. */
#define E2E_NAME "reduction_region_bounds"
#include "e2e.h"

#define A 4
#define B 5
#define C 7

/* A constant part of each row of a 3-D array, on the construct: across gangs. */
static void box_constant(int n) {
  static long m[A][B][C];
  for (int i = 0; i < A; i++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < C; k++) m[i][j][k] = i * 10000 + j * 100 + k;
#pragma acc parallel loop gang vector_length(64) reduction(+: m[1:2][1:3][2:4])
  for (int t = 0; t < n; t++) {
    int i = 1 + t % 2, j = 1 + (t / 2) % 3, k = 2 + (t * 5) % 4;
    long v = m[i][j][k];
    m[i][j][k] = v < -1000000000L ? 0 : v + t % 7;
  }
  for (int i = 0; i < A; i++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < C; k++) {
        long want = i * 10000 + j * 100 + k;
        for (int t = 0; t < n; t++)
          if (1 + t % 2 == i && 1 + (t / 2) % 3 == j && 2 + (t * 5) % 4 == k) want += t % 7;
        CHECK(m[i][j][k] == want, "box_constant(%d): m[%d][%d][%d] = %ld, want %ld", n, i, j, k, m[i][j][k], want);
      }
}

/* Run-time bounds of a part of each row of a 4-D array (a variable-length array), under
 * `max` (the identity must not leak out of the part: every element outside it keeps its
 * value, and NaN/-0.0 would show a whole-box combine). */
static void box_runtime(int n, int a, int b, int c, int d) {
  int e1 = b + 2, e2 = c + 1, e3 = d + 3;
  double (*q)[e1][e2][e3] = e2e_alloc(sizeof(double) * (a + 1) * e1 * e2 * e3);
  for (int i = 0; i <= a; i++)
    for (int j = 0; j < e1; j++)
      for (int k = 0; k < e2; k++)
        for (int l = 0; l < e3; l++) q[i][j][k][l] = (i + j + k + l) % 5 == 0 ? -0.0 : i * 1000 + j * 100 + k * 10 + l;
#pragma acc parallel loop reduction(max: q[1:a][2:b][0:c][1:d])
  for (int t = 0; t < n; t++) {
    int i = 1 + t % a, j = 2 + (t / 3) % b, k = (t * 7) % c, l = 1 + (t / 5) % d;
    double v = (t * 37) % 1001;
    double old = q[i][j][k][l];
    q[i][j][k][l] = v > old ? v : old;
  }
  for (int i = 0; i <= a; i++)
    for (int j = 0; j < e1; j++)
      for (int k = 0; k < e2; k++)
        for (int l = 0; l < e3; l++) {
          double orig = (i + j + k + l) % 5 == 0 ? -0.0 : i * 1000 + j * 100 + k * 10 + l, want = orig;
          for (int t = 0; t < n; t++)
            if (1 + t % a == i && 2 + (t / 3) % b == j && (t * 7) % c == k && 1 + (t / 5) % d == l && (t * 37) % 1001 > want) want = (t * 37) % 1001;
          int same = q[i][j][k][l] == want && signbit(q[i][j][k][l]) == signbit(want);
          CHECK(same, "box_runtime(%d, %d, %d, %d, %d): q[%d][%d][%d][%d] = %g, want %g", n, a, b, c, d, i, j, k, l, q[i][j][k][l], want);
        }
  free(q);
}

/* A 3-D part of each row on a worker loop inside a gang loop: each gang's worker loop
 * reduces into the shared array. */
static void box_loop(int gangs, int n) {
  static int m[A][B][C];
  for (int i = 0; i < A; i++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < C; k++) m[i][j][k] = i + j + k;
#pragma acc parallel loop gang num_workers(4) vector_length(1) copy(m)
  for (int g = 0; g < gangs; g++) {
#pragma acc loop worker reduction(+: m[0:3][2:3][1:5])
    for (int t = 0; t < n; t++) {
      int i = t % 3, j = 2 + (t + g) % 3, k = 1 + (t * 3) % 5;
      int v = m[i][j][k];
      m[i][j][k] = v < -100000 ? 0 : v + 1 + g % 2;
    }
  }
  for (int i = 0; i < A; i++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < C; k++) {
        int want = i + j + k;
        for (int g = 0; g < gangs; g++)
          for (int t = 0; t < n; t++)
            if (t % 3 == i && 2 + (t + g) % 3 == j && 1 + (t * 3) % 5 == k) want += 1 + g % 2;
        CHECK(m[i][j][k] == want, "box_loop(%d, %d): m[%d][%d][%d] = %d, want %d", gangs, n, i, j, k, m[i][j][k], want);
      }
}

/* A gang loop's item whose bounds the region computes (from device memory): reduced across
 * gangs, each gang combining its copy into the variable. */
static void gang_computed(int gangs, int n, int m) {
  long *h = e2e_alloc(sizeof(long) * (m + 2));
  int len[1] = {m};
  for (int j = 0; j < m + 2; j++) h[j] = 7 * j;
#pragma acc parallel num_gangs(gangs) vector_length(32) copy(h[0:m + 2]) copyin(len)
  {
    int k = len[0];
#pragma acc loop gang reduction(+: h[0:k])
    for (int t = 0; t < n; t++) {
      long v = h[(t * 11) % k];
      h[(t * 11) % k] = v < -1000000000L ? 0 : v + t % 3;
    }
  }
  for (int j = 0; j < m + 2; j++) {
    long want = 7 * j;
    for (int t = 0; t < n; t++)
      if ((t * 11) % m == j) want += t % 3;
    CHECK(h[j] == want, "gang_computed(%d, %d, %d): h[%d] = %ld, want %ld", gangs, n, m, j, h[j], want);
  }
  free(h);
}

/* The same on a gang vector loop, with a nested vector loop reducing the same section
 * (its partials go to the gang loop's copies), under `*` on double. */
static void gang_vector_computed(int n, int w, int m) {
  double *p = e2e_alloc(sizeof(double) * m);
  int len[1] = {m};
  for (int j = 0; j < m; j++) p[j] = j % 2 ? 1.5 : -1.0;
#pragma acc parallel num_gangs(9) vector_length(64) copy(p[0:m]) copyin(len)
  {
    int k = len[0] / 1;
#pragma acc loop gang reduction(*: p[0:k])
    for (int t = 0; t < n; t++) {
#pragma acc loop vector reduction(*: p[0:k])
      for (int u = 0; u < w; u++) {
        int e = (t * w + u) % k;
        double f = (t + u) % 17 == 0 ? 2.0 : 1.0;
        double v = p[e];
        p[e] = v == 0.0 ? 3.0 : v * f;
      }
    }
  }
  for (int j = 0; j < m; j++) {
    double want = j % 2 ? 1.5 : -1.0;
    for (int t = 0; t < n; t++)
      for (int u = 0; u < w; u++)
        if ((t * w + u) % m == j && (t + u) % 17 == 0) want *= 2.0;
    CHECK(p[j] == want, "gang_vector_computed(%d, %d, %d): p[%d] = %g, want %g", n, w, m, j, p[j], want);
  }
  free(p);
}

/* A part of each row with bounds the gang loop's body computes, on a vector loop; under
 * `&&`, so an element outside the part (5) would become 1 if it were combined. */
static void part_computed(int gangs, int n, int rows, int cols) {
  int w = cols + 3;
  int (*a)[w] = e2e_alloc(sizeof(int) * rows * w);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < w; j++) a[i][j] = 5;
#pragma acc parallel loop gang copy(a[0:rows][0:w])
  for (int g = 0; g < gangs; g++) {
    int c = cols - g % 2, r = rows - 1;
#pragma acc loop vector reduction(&&: a[1:r][2:c])
    for (int t = 0; t < n; t++) {
      int i = 1 + t % r, j = 2 + (t / 2) % c;
      int v = a[i][j];
      a[i][j] = v && (t + g) % 101 != 0;
    }
  }
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < w; j++) {
      int want = 5, hit = 0;
      for (int g = 0; g < gangs; g++) {
        int c = cols - g % 2, r = rows - 1;
        for (int t = 0; t < n; t++)
          if (1 + t % r == i && 2 + (t / 2) % c == j) {
            hit = 1;
            if ((t + g) % 101 == 0) want = 0;
          }
      }
      if (hit && want) want = 1;
      CHECK(a[i][j] == want, "part_computed(%d, %d, %d, %d): a[%d][%d] = %d, want %d", gangs, n, rows, cols, i, j, a[i][j], want);
    }
  free(a);
}

/* Rows that are pointers, with bounds a gang loop's body computes, on a worker vector loop. */
static void rows_computed(int gangs, int n, int r, int c) {
  long **p = e2e_alloc(sizeof(long *) * (r + 1));
  for (int i = 0; i <= r; i++) {
    p[i] = e2e_alloc(sizeof(long) * (c + 2));
    for (int j = 0; j < c + 2; j++) p[i][j] = 100 * i + j;
  }
#pragma acc parallel loop gang num_workers(2) vector_length(32) copy(p[0:r + 1][0:c + 2])
  for (int g = 0; g < gangs; g++) {
    int rr = r - g % 2, cc = c / 1;
#pragma acc loop worker vector reduction(+: p[1:rr][1:cc])
    for (int t = 0; t < n; t++) {
      int i = 1 + t % rr, j = 1 + (t * 3) % cc;
      long v = p[i][j];
      p[i][j] = v < -1000000000L ? 0 : v + (t + g) % 4;
    }
  }
  for (int i = 0; i <= r; i++)
    for (int j = 0; j < c + 2; j++) {
      long want = 100 * i + j;
      for (int g = 0; g < gangs; g++) {
        int rr = r - g % 2;
        for (int t = 0; t < n; t++)
          if (1 + t % rr == i && 1 + (t * 3) % c == j) want += (t + g) % 4;
      }
      CHECK(p[i][j] == want, "rows_computed(%d, %d, %d, %d): p[%d][%d] = %ld, want %ld", gangs, n, r, c, i, j, p[i][j], want);
    }
  for (int i = 0; i <= r; i++) free(p[i]);
  free(p);
}

/* Two sibling vector loops of one gang loop, reducing sections of one array with bounds the
 * body computes differently: each loop's copies are its own size. */
static void siblings(int gangs, int n, int base) {
  int top = 2 * base + 4;
  int *h = e2e_alloc(sizeof(int) * top);
  for (int j = 0; j < top; j++) h[j] = j;
#pragma acc parallel loop gang vector_length(64) copy(h[0:top])
  for (int g = 0; g < gangs; g++) {
    int a = base + g % 2, b = 2 * base + g % 4;
#pragma acc loop vector reduction(+: h[0:a])
    for (int i = 0; i < n; i++) {
      int v = h[i % a];
      h[i % a] = v < -1000000 ? 0 : v + 1;
    }
#pragma acc loop vector reduction(+: h[1:b])
    for (int i = 0; i < n; i++) {
      int v = h[1 + (i * 3) % b];
      h[1 + (i * 3) % b] = v < -1000000 ? 0 : v + 2;
    }
  }
  for (int j = 0; j < top; j++) {
    int want = j;
    for (int g = 0; g < gangs; g++) {
      int a = base + g % 2, b = 2 * base + g % 4;
      for (int i = 0; i < n; i++) {
        if (i % a == j) want += 1;
        if (1 + (i * 3) % b == j) want += 2;
      }
    }
    CHECK(h[j] == want, "siblings(%d, %d, %d): h[%d] = %d, want %d", gangs, n, base, j, h[j], want);
  }
  free(h);
}

/* q[i][j][k] of the rows_of_arrays tests: -0.0 outside [1:][2:3] when `part`. */
static double array_rows_value(int i, int j, int k, int part) {
  return part && (j < 1 || k < 2 || k >= 5) ? -0.0 : i * 100 + j * 10 + k;
}

/* `a` row pointers to `b + 1` arrays of 6 each, set to array_rows_value. */
static double (**array_rows(int a, int b, int part))[6] {
  double (**q)[6] = e2e_alloc(sizeof(double (*)[6]) * a);
  for (int i = 0; i < a; i++) {
    q[i] = e2e_alloc(sizeof(double[6]) * (b + 1));
    for (int j = 0; j <= b; j++)
      for (int k = 0; k < 6; k++) q[i][j][k] = array_rows_value(i, j, k, part);
  }
  return q;
}

static void free_array_rows(double (**q)[6], int a) {
  for (int i = 0; i < a; i++) free(q[i]);
  free(q);
}

/* Rows that are pointers to arrays (`double (**q)[6]`), whole arrays: updates only (atomics),
 * then a read (copies). */
static void rows_of_arrays(int n, int a, int b) {
  double (**q)[6] = array_rows(a, b, 0);
#pragma acc parallel loop reduction(+: q[0:a][0:b + 1][0:6])
  for (int t = 0; t < n; t++) q[t % a][(t / 2) % (b + 1)][(t * 5) % 6] += 1;
#pragma acc parallel loop vector_length(32) reduction(+: q[0:a][0:b + 1][0:6])
  for (int t = 0; t < n; t++) {
    double v = q[t % a][(t / 3) % (b + 1)][t % 6];
    q[t % a][(t / 3) % (b + 1)][t % 6] = v < -1e300 ? 0 : v + 2;
  }
  for (int i = 0; i < a; i++)
    for (int j = 0; j <= b; j++)
      for (int k = 0; k < 6; k++) {
        double want = array_rows_value(i, j, k, 0);
        for (int t = 0; t < n; t++) {
          if (t % a == i && (t / 2) % (b + 1) == j && (t * 5) % 6 == k) want += 1;
          if (t % a == i && (t / 3) % (b + 1) == j && t % 6 == k) want += 2;
        }
        CHECK(q[i][j][k] == want, "rows_of_arrays(%d, %d, %d): q[%d][%d][%d] = %g, want %g", n, a, b, i, j, k, q[i][j][k], want);
      }
  free_array_rows(q, a);
}

/* A part of each array through pointer rows (`q[0:a][1:b][2:3]`), read and stored plainly:
 * copies of the whole arrays, combined over the part only; an element outside it holding
 * -0.0 would become +0.0 if it were combined (-0.0 + 0.0). */
static void rows_of_array_parts(int n, int a, int b) {
  double (**q)[6] = array_rows(a, b, 1);
#pragma acc parallel loop reduction(+: q[0:a][1:b][2:3])
  for (int t = 0; t < n; t++) {
    int i = t % a, j = 1 + (t / 2) % b, k = 2 + (t / 7) % 3;
    double v = q[i][j][k];
    q[i][j][k] = v < -1e300 ? 0 : v + t % 3;
  }
  for (int i = 0; i < a; i++)
    for (int j = 0; j <= b; j++)
      for (int k = 0; k < 6; k++) {
        double want = array_rows_value(i, j, k, 1);
        for (int t = 0; t < n; t++)
          if (t % a == i && 1 + (t / 2) % b == j && 2 + (t / 7) % 3 == k) want += t % 3;
        int same = q[i][j][k] == want && signbit(q[i][j][k]) == signbit(want);
        CHECK(same, "rows_of_array_parts(%d, %d, %d): q[%d][%d][%d] = %g, want %g", n, a, b, i, j, k, q[i][j][k], want);
      }
  free_array_rows(q, a);
}

/* Arrays of the region's own (declared in the gang loop's body, shared by its lanes) with
 * run-time bounds, read in the vector loop that reduces them: the lanes' copies are made
 * where the loop begins and combined into the gang's array. A flat range, and a part of
 * each row of a 2-D array. */
static void region_arrays(int gangs, int n, int m, int r, int c) {
  long *out = e2e_alloc(sizeof(long) * gangs * 2);
#pragma acc parallel loop gang vector_length(64) copyout(out[0:gangs * 2])
  for (int g = 0; g < gangs; g++) {
    long t[40];
    int u[5][9];
    for (int k = 0; k < 40; k++) t[k] = k;
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 9; j++) u[i][j] = 100 * i + j;
#pragma acc loop vector reduction(+: t[0:m]) reduction(max: u[1:r][2:c])
    for (int k = 0; k < n; k++) {
      long v = t[(k * 3 + g) % m];
      t[(k * 3 + g) % m] = v < -1000000000L ? 0 : v + 1 + k % 2;
      int i = 1 + k % r, j = 2 + (k / 3) % c, w = (k * 7 + g) % 1000, old = u[i][j];
      u[i][j] = w > old ? w : old;
    }
    long s = 0, q = 0;
    for (int k = 0; k < 40; k++) s += t[k] * (k + 1);
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 9; j++) q += (long)u[i][j] * (i * 9 + j + 1);
    out[2 * g] = s, out[2 * g + 1] = q;
  }
  for (int g = 0; g < gangs; g++) {
    long t[40], s = 0, q = 0;
    int u[5][9];
    for (int k = 0; k < 40; k++) t[k] = k;
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 9; j++) u[i][j] = 100 * i + j;
    for (int k = 0; k < n; k++) {
      t[(k * 3 + g) % m] += 1 + k % 2;
      int i = 1 + k % r, j = 2 + (k / 3) % c, w = (k * 7 + g) % 1000;
      if (w > u[i][j]) u[i][j] = w;
    }
    for (int k = 0; k < 40; k++) s += t[k] * (k + 1);
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 9; j++) q += (long)u[i][j] * (i * 9 + j + 1);
    CHECK(out[2 * g] == s, "region_arrays(%d, %d, %d, %d, %d): gang %d's t sums to %ld, want %ld", gangs, n, m, r, c, g, out[2 * g], s);
    CHECK(out[2 * g + 1] == q, "region_arrays(%d, %d, %d, %d, %d): gang %d's u sums to %ld, want %ld", gangs, n, m, r, c, g, out[2 * g + 1], q);
  }
  free(out);
}

int main(void) {
  box_constant(3001);
  box_runtime(4001, 2, 3, 3, 2);
  box_runtime(7, 1, 1, 2, 3);
  box_loop(5, 301);
  gang_computed(7, 3001, 13);
  gang_computed(1, 99, 300); /* 2.4 KiB copies: from the device heap */
  gang_vector_computed(41, 23, 11);
  part_computed(6, 777, 4, 5);
  rows_computed(5, 999, 3, 4);
  siblings(7, 501, 5);
  rows_of_arrays(3001, 3, 4);
  rows_of_arrays(5, 2, 1);
  rows_of_array_parts(3001, 3, 4);
  rows_of_array_parts(9, 2, 1);
  region_arrays(7, 1001, 13, 3, 5);
  region_arrays(3, 9, 37, 4, 7);
  siblings(3, 2001, 40); /* 336-byte copies: from the device heap */
  return e2e_finish();
}
