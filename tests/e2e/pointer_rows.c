/* Sections through pointer rows in one clause (OpenACC 3.3 §2.7.1-2): `p[0:n][0:m]` with
 * `double **p` maps the row pointers p[0:n] and each row p[i][0:m], and attaches p[i] (the
 * device copy of p[i] points at the row's device copy); the exit detaches them (the host
 * keeps host pointers) and copies the rows back for copy/copyout. Covered: copy on a
 * compute construct, data + present, enter data copyin / exit data copyout and delete with
 * reference counts, create + copyout, update self/device of the rows, three levels
 * (`int ***q`), a struct member of type `double **` (through a pointer and in a struct
 * value), a sub-range of rows and of columns
 * (`p[2:n-3][1:m-2]`), rows shared by two pointers, a null row, `async`, and a
 * function-scope `declare copy` of rows (copied back at each of the function's returns).
 *
 * On a device with memory of its own, the host changes its copy after a copyin without
 * update: which values a kernel sees says whether it used the attached device rows. */
#define E2E_NAME "pointer_rows"
#include "e2e.h"
#include <openacc.h>
#include <stdint.h>

/* Whether the device shares the host's memory (the host path). */
static int shared_memory(void *p) { return acc_deviceptr(p) == p; }

static double **matrix(int n, int m, double base) {
  double **p = e2e_alloc(sizeof(double *) * n);
  for (int i = 0; i < n; i++) {
    p[i] = e2e_alloc(sizeof(double) * m);
    for (int j = 0; j < m; j++) p[i][j] = base + i * m + j;
  }
  return p;
}

static void free_matrix(double **p, int n) {
  for (int i = 0; i < n; i++) free(p[i]);
  free(p);
}

/* copy on a compute construct: every element, host pointers unchanged afterwards. */
static void copy_on_compute(int n, int m) {
  double **p = matrix(n, m, 0);
  double **rows = e2e_alloc(sizeof(double *) * n);
  for (int i = 0; i < n; i++) rows[i] = p[i];
#pragma acc parallel loop copy(p[0:n][0:m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) p[i][j] = 2 * p[i][j] + 1;
  for (int i = 0; i < n; i++) {
    CHECK(p[i] == rows[i], "copy: host pointer p[%d] changed to %p", i, (void *)p[i]);
    for (int j = 0; j < m; j++) CHECK(p[i][j] == 2.0 * (i * m + j) + 1, "copy: p[%d][%d]=%g", i, j, p[i][j]);
  }
  CHECK(!acc_is_present(p, sizeof(double *) * n) || shared_memory(p), "copy: p[0:n] still present after the region");
  CHECK(!acc_is_present(p[0], sizeof(double) * m) || shared_memory(p[0]), "copy: a row still present after the region");
  free(rows);
  free_matrix(p, n);
}

/* enter data copyin, kernels with present(p[0:n][0:m]) and with only p named (implicitly
 * present through the pointer array), exit data copyout; counts: a second enter keeps the
 * data through the first exit. */
static void enter_exit(int n, int m) {
  double **p = matrix(n, m, 100);
#pragma acc enter data copyin(p[0:n][0:m])
#pragma acc enter data copyin(p[0:n][0:m])
  /* Host values change after the copyin: the device keeps 100 + i*m + j. */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) p[i][j] = -7;
#pragma acc parallel loop present(p[0:n][0:m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) p[i][j] += 1;
#pragma acc exit data copyout(p[0:n][0:m])
  /* Still present (a second dynamic reference): nothing was copied back. */
  int dev = !shared_memory(p);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double want = dev ? -7 : -6;
      CHECK(p[i][j] == want, "enter/exit: p[%d][%d]=%g before the last exit, want %g", i, j, p[i][j], want);
    }
  CHECK(acc_is_present(p[n - 1], sizeof(double) * m), "enter/exit: the last row is not present after one exit of two");
#pragma acc parallel loop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) p[i][j] *= 3;
#pragma acc exit data copyout(p[0:n][0:m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double want = dev ? (100.0 + i * m + j + 1) * 3 : -18;
      CHECK(p[i][j] == want, "enter/exit: p[%d][%d]=%g want %g", i, j, p[i][j], want);
    }
  CHECK(dev == 0 || !acc_is_present(p[0], sizeof(double) * m), "enter/exit: a row still present after the last exit");
  /* create twice, no_create on a compute construct, delete with finalize: all gone. */
#pragma acc enter data create(p[0:n][0:m])
#pragma acc enter data create(p[0:n][0:m])
#pragma acc parallel loop no_create(p[0:n][0:m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) p[i][j] = i + j;
#pragma acc update self(p[1:n-1][0:m])
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++) CHECK(p[i][j] == (double)(i + j), "no_create: p[%d][%d]=%g", i, j, p[i][j]);
#pragma acc exit data delete(p[0:n][0:m]) finalize
  CHECK(dev == 0 || !acc_is_present(p, sizeof(double *) * n), "finalize: the row pointers are still present");
  CHECK(dev == 0 || !acc_is_present(p[n - 1], sizeof(double) * m), "finalize: a row is still present");
  free_matrix(p, n);
}

/* A data region with create, filled on the device, update self of the rows, then update
 * device after the host changes them, copied out by an inner copyout. */
static void create_update(int n, int m) {
  double **p = matrix(n, m, 0);
#pragma acc data create(p[0:n][0:m])
  {
#pragma acc parallel loop present(p[0:n][0:m])
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) p[i][j] = i - j;
#pragma acc update self(p[0:n][0:m])
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) CHECK(p[i][j] == (double)(i - j), "update self: p[%d][%d]=%g", i, j, p[i][j]);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) p[i][j] = 10 * i + j;
#pragma acc update device(p[0:n][0:m])
#pragma acc parallel loop
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) p[i][j] += 0.5;
    /* The host pointers were never replaced by device addresses. */
    CHECK(acc_hostptr(acc_deviceptr(p[n / 2])) == p[n / 2], "update: the device copy of a row is not the row's");
#pragma acc update self(p[0:n][0:m])
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) CHECK(p[i][j] == 10.0 * i + j + 0.5, "update device: p[%d][%d]=%g", i, j, p[i][j]);
  free_matrix(p, n);
}

/* Sub-ranges: rows 2..n-2, columns 1..m-2; the rest of the host data is untouched. */
static void sub_ranges(int n, int m) {
  double **p = matrix(n, m, 0);
#pragma acc parallel loop copy(p[2:n-3][1:m-2])
  for (int i = 2; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++) p[i][j] = -p[i][j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      int inside = i >= 2 && i < n - 1 && j >= 1 && j < m - 1;
      double want = inside ? -(double)(i * m + j) : (double)(i * m + j);
      CHECK(p[i][j] == want, "sub-range: p[%d][%d]=%g want %g", i, j, p[i][j], want);
    }
  free_matrix(p, n);
}

/* Three levels: int ***q, q[0:a][0:b][0:c], copied in and out (the rows of pointers too). */
static void three_levels(int a, int b, int c) {
  int ***q = e2e_alloc(sizeof(int **) * a);
  for (int i = 0; i < a; i++) {
    q[i] = e2e_alloc(sizeof(int *) * b);
    for (int j = 0; j < b; j++) {
      q[i][j] = e2e_alloc(sizeof(int) * c);
      for (int k = 0; k < c; k++) q[i][j][k] = (i * b + j) * c + k;
    }
  }
  int **saved = q[a - 1], *saved_leaf = q[a - 1][b - 1];
#pragma acc data copy(q[0:a][0:b][0:c])
  {
    for (int i = 0; i < a; i++)
      for (int j = 0; j < b; j++)
        for (int k = 0; k < c; k++) q[i][j][k] = -1; /* the device keeps the first values */
#pragma acc parallel loop collapse(2) present(q[0:a][0:b][0:c])
    for (int i = 0; i < a; i++)
      for (int j = 0; j < b; j++)
        for (int k = 0; k < c; k++) q[i][j][k] = q[i][j][k] * 2 + 1;
#pragma acc update self(q[0:a][0:b][0:c])
  }
  /* The copy-back of the pointer rows brought host pointers home. */
  CHECK(q[a - 1] == saved && q[a - 1][b - 1] == saved_leaf, "three levels: host pointers changed");
  int dev = !shared_memory(q);
  for (int i = 0; i < a; i++)
    for (int j = 0; j < b; j++)
      for (int k = 0; k < c; k++) {
        int want = dev ? ((i * b + j) * c + k) * 2 + 1 : -1;
        CHECK(q[i][j][k] == want, "three levels: q[%d][%d][%d]=%d want %d", i, j, k, q[i][j][k], want);
      }
  for (int i = 0; i < a; i++) {
    for (int j = 0; j < b; j++) free(q[i][j]);
    free(q[i]);
  }
  free(q);
}

/* A struct member of type double **: the struct is present, the member is attached to the
 * pointer array's device copy, each row to its row. Two pointers share one row, one is null. */
typedef struct {
  int n, m;
  double **rows;
} grid;

static void struct_member(int n, int m) {
  grid *g = e2e_alloc(sizeof *g);
  g->n = n, g->m = m;
  g->rows = matrix(n, m, 0);
  double *shared = g->rows[1];
  double *own = g->rows[3];
  g->rows[3] = shared; /* rows 1 and 3 are one row */
  double *dropped = g->rows[n - 1];
  g->rows[n - 1] = NULL; /* a null row maps nothing */
  double *out = e2e_alloc(sizeof(double) * m);
#pragma acc enter data copyin(g[0:1])
#pragma acc enter data copyin(g->rows[0:n][0:m])
  /* Row 3 is row 1 on the device too. */
#pragma acc parallel loop present(g[0:1]) copyout(out[0:m])
  for (int j = 0; j < m; j++) out[j] = g->rows[3][j];
#pragma acc parallel loop present(g[0:1])
  for (int i = 0; i < g->n; i++)
    if (g->rows[i] != NULL && i != 3)
      for (int j = 0; j < g->m; j++) g->rows[i][j] += 1;
#pragma acc exit data copyout(g->rows[0:n][0:m])
#pragma acc exit data delete(g[0:1])
  CHECK(g->rows[3] == shared && g->rows[n - 1] == NULL, "member: host pointers changed");
  for (int j = 0; j < m; j++) CHECK(out[j] == 1.0 * m + j, "member: out[%d]=%g (row 3 is not row 1 on the device)", j, out[j]);
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < m; j++) {
      double want = i == 3 ? 1.0 * m + j + 1 : i * m + j + 1.0;
      CHECK(g->rows[i][j] == want, "member: rows[%d][%d]=%g want %g", i, j, g->rows[i][j], want);
    }
  free(out);
  CHECK(!acc_is_present(g, sizeof *g) || shared_memory(g), "member: the struct is still present");
  g->rows[3] = own, g->rows[n - 1] = dropped;
  free_matrix(g->rows, n);
  free(g);
}

/* A struct value whose member is the row pointers, on a compute construct: the struct is
 * copied implicitly and its member attached to the row pointers' device copy. */
static void struct_value(int n, int m) {
  grid v;
  v.n = n, v.m = m;
  v.rows = matrix(n, m, 0);
  double **keep = v.rows;
#pragma acc parallel loop copy(v.rows[0:v.n][0:v.m])
  for (int i = 0; i < v.n; i++)
    for (int j = 0; j < v.m; j++) v.rows[i][j] = -v.rows[i][j];
  CHECK(v.rows == keep, "struct value: the member changed");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) CHECK(v.rows[i][j] == -(double)(i * m + j), "struct value: rows[%d][%d]=%g", i, j, v.rows[i][j]);
  free_matrix(v.rows, n);
}

/* async: the rows go on queue 1, the kernel on the same queue, the copy-back after a wait. */
static void on_a_queue(int n, int m) {
  double **p = matrix(n, m, 1);
#pragma acc enter data copyin(p[0:n][0:m]) async(1)
#pragma acc parallel loop present(p[0:n][0:m]) async(1)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) p[i][j] = p[i][j] * p[i][j];
#pragma acc exit data copyout(p[0:n][0:m]) async(1)
#pragma acc wait(1)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double v = 1.0 + i * m + j;
      CHECK(p[i][j] == v * v, "async: p[%d][%d]=%g want %g", i, j, p[i][j], v * v);
    }
  free_matrix(p, n);
}

/* A function-scope declare: a data region to every return (two here). */
static int declared_rows(double **p, int n, int m, int early) {
#pragma acc declare copy(p[0:n][1:m - 2])
#pragma acc parallel loop collapse(2) present(p[0:n][1:m - 2])
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m - 1; j++) p[i][j] *= 2;
  if (early) return 1;
#pragma acc parallel loop present(p[0:n][1:m - 2])
  for (int i = 0; i < n; i++) p[i][1] += 1;
  return 0;
}

static void declare_in_function(int n, int m) {
  for (int early = 0; early < 2; early++) {
    double **p = matrix(n, m, 0.5);
    declared_rows(p, n, m, early);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) {
        double want = 0.5 + i * m + j;
        if (j >= 1 && j < m - 1) want = 2 * want + (j == 1 && !early);
        CHECK(p[i][j] == want, "declare (early return %d): p[%d][%d]=%g, want %g", early, i, j, p[i][j], want);
      }
    CHECK(!acc_is_present(p[0] + 1, sizeof(double)) || shared_memory(p[0]), "declare (early return %d): a row still present after the return", early);
    free_matrix(p, n);
  }
}

int main(void) {
  copy_on_compute(37, 19);
  enter_exit(11, 23);
  create_update(9, 31);
  sub_ranges(13, 7);
  three_levels(5, 6, 7);
  struct_member(7, 13);
  struct_value(6, 9);
  on_a_queue(17, 5);
  declare_in_function(7, 11);
  return e2e_finish();
}
