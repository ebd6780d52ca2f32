/* gang(dim: 2|3) and num_gangs(x, y, z): a gang loop of dimension d is partitioned over the
 * grid's dimension d, gang loops nest by decreasing dimension, and the grid has as many
 * dimensions as the clause or the loops give. Every iteration must run exactly once (odd
 * trip counts, odd gang counts, more and fewer gangs than iterations); code in a dim-2 loop's
 * body runs once per row on each gang of the row (gang-redundant in dimension 1), lanes
 * sharing a row's private array; reductions across a grid of several dimensions count each
 * iteration once (gangs that only repeat another's work add nothing); a `routine gang(dim: 2)`
 * partitions its loops with the caller's grid; gang(static:) in dimension 2. */
#define E2E_NAME "gang_dims"
#include "e2e.h"

enum { N = 37, M = 11, L = 5, R = 23 };

/* A gang routine of two dimensions: rows over dimension 2, columns over dimension 1. */
#pragma acc routine gang(dim: 2)
static void add_grid(int *a, int m, int n, int k) {
#pragma acc loop gang(dim: 2)
  for (int j = 0; j < m; j++) {
#pragma acc loop gang(dim: 1) vector
    for (int i = 0; i < n; i++) a[j * n + i] += k * (j * n + i + 1);
  }
}

static void check(const int *a, int n, int times, const char *what) {
  for (int i = 0; i < n; i++)
    if (a[i] != times * (i + 1)) {
      CHECK(0, "%s: a[%d]=%d want %d", what, i, a[i], times * (i + 1));
      return;
    }
}

int main(void) {
  int *a = e2e_alloc(sizeof(int) * M * N), *c = e2e_alloc(sizeof(int) * L * M * N);
  int *row = e2e_alloc(sizeof(int) * M), *pr = e2e_alloc(sizeof(int) * M * N);
  for (int i = 0; i < M * N; i++) a[i] = pr[i] = 0;
  for (int i = 0; i < L * M * N; i++) c[i] = 0;
  for (int j = 0; j < M; j++) row[j] = 0;

#pragma acc data copy(a[0:M * N], c[0:L * M * N], row[0:M], pr[0:M * N])
  {
    /* Two dimensions from the clause: 3 x 5 gangs for 11 x 37 iterations. */
#pragma acc parallel loop gang(dim: 2) num_gangs(3, 5) vector_length(32)
    for (int j = 0; j < M; j++) {
#pragma acc loop gang(dim: 1) vector
      for (int i = 0; i < N; i++) a[j * N + i] += j * N + i + 1;
    }
    /* No num_gangs: the compiler sizes both dimensions from the trip counts. */
#pragma acc parallel loop gang(dim: 2)
    for (int j = 0; j < M; j++) {
#pragma acc loop gang(dim: 1) worker vector
      for (int i = 0; i < N; i++) a[j * N + i] += j * N + i + 1;
    }
    /* More gangs than rows and columns; a worker loop under the dimension-1 loop. */
#pragma acc parallel num_gangs(41, 13) num_workers(2) vector_length(32)
    {
#pragma acc loop gang(dim: 2)
      for (int j = 0; j < M; j++) {
#pragma acc loop gang(dim: 1) worker
        for (int i = 0; i < N; i++) a[j * N + i] += j * N + i + 1;
      }
    }
    /* Three dimensions: 2 x 3 x 2 gangs over 37 x 11 x 5. */
#pragma acc parallel loop gang(dim: 3) num_gangs(2, 3, 2) vector_length(32)
    for (int k = 0; k < L; k++) {
#pragma acc loop gang(dim: 2)
      for (int j = 0; j < M; j++) {
#pragma acc loop gang(dim: 1) vector
        for (int i = 0; i < N; i++) c[(k * M + j) * N + i] += (k * M + j) * N + i + 1;
      }
    }
    /* Three dimensions sized by the compiler, dimension 2 skipped (gang(dim: 3) over dim 1). */
#pragma acc parallel loop gang(dim: 3)
    for (int k = 0; k < L; k++) {
#pragma acc loop gang vector
      for (int i = 0; i < M * N; i++) c[k * M * N + i] += k * M * N + i + 1;
    }
    /* A dimension-2 loop alone on a two-dimensional grid: each row runs on every gang of its
     * dimension-1 column, all storing the same value (gang-redundant in dimension 1). */
#pragma acc parallel num_gangs(4, 3) vector_length(32)
    {
#pragma acc loop gang(dim: 2)
      for (int j = 0; j < M; j++) {
        int s = 0;
#pragma acc loop vector reduction(+: s)
        for (int i = 0; i < N; i++) s += j * N + i + 1;
        row[j] = s;
      }
    }
    /* A row's private array, written by the row's lanes, read across lanes by the
     * dimension-1 loop of every gang of the row. */
#pragma acc parallel num_gangs(3, 4) num_workers(2) vector_length(32)
    {
      int tmp[N];
#pragma acc loop gang(dim: 2) private(tmp)
      for (int j = 0; j < M; j++) {
#pragma acc loop vector
        for (int i = 0; i < N; i++) tmp[i] = j * N + i + 1;
#pragma acc loop gang(dim: 1) vector
        for (int i = 0; i < N; i++) pr[j * N + i] = tmp[N - 1 - i];
      }
    }
    /* gang(static:) over dimension 2 and dimension 1. */
#pragma acc parallel loop gang(dim: 2, static: 2) num_gangs(2, 3) vector_length(32)
    for (int j = 0; j < M; j++) {
#pragma acc loop gang(dim: 1, static: 5) vector
      for (int i = 0; i < N; i++) a[j * N + i] += j * N + i + 1;
    }
    /* The routine of two gang dimensions, from a grid of 5 x 2 and one sized by nothing. */
#pragma acc parallel num_gangs(5, 2) vector_length(32)
    add_grid(a, M, N, 1);
#pragma acc parallel vector_length(32)
    add_grid(a, M, N, 1);
  }
  check(a, M * N, 6, "2-D grids");
  check(c, L * M * N, 2, "3-D grids");
  for (int j = 0; j < M; j++) {
    int want = 0;
    for (int i = 0; i < N; i++) want += j * N + i + 1;
    CHECK(row[j] == want, "row[%d]=%d want %d", j, row[j], want);
  }
  for (int j = 0; j < M; j++)
    for (int i = 0; i < N; i++)
      CHECK(pr[j * N + i] == j * N + (N - 1 - i) + 1, "pr[%d][%d]=%d want %d", j, i, pr[j * N + i], j * N + (N - 1 - i) + 1);

  /* Reductions across a grid of several dimensions. */
  long sum = 0, want = 0;
  for (int i = 0; i < M * N; i++) want += a[i];
  /* (OpenACC allows no gang reduction under num_gangs of several values: the compiler sizes
   * these grids, and the runtime caps a reduction kernel's gangs to one wave) */
#pragma acc parallel vector_length(32) copyin(a[0:M * N])
  {
#pragma acc loop gang(dim: 2)
    for (int j = 0; j < M; j++) {
#pragma acc loop gang(dim: 1) vector reduction(+: sum)
      for (int i = 0; i < N; i++) sum += a[j * N + i];
    }
  }
  CHECK(sum == want, "2-D reduction: %ld want %ld", sum, want);
  /* Three dimensions, max and min too. */
  long big = -1, small = 1L << 40, cnt = 0;
#pragma acc parallel loop gang(dim: 3) copyin(c[0:L * M * N])
  for (int k = 0; k < L; k++) {
#pragma acc loop gang(dim: 2)
    for (int j = 0; j < M; j++) {
#pragma acc loop gang(dim: 1) vector reduction(max: big) reduction(min: small) reduction(+: cnt)
      for (int i = 0; i < N; i++) {
        long v = c[(k * M + j) * N + i];
        big = v > big ? v : big;
        small = v < small ? v : small;
        cnt += 1;
      }
    }
  }
  CHECK(big == 2L * L * M * N && small == 2 && cnt == (long)L * M * N, "3-D reductions: max %ld min %ld count %ld", big, small, cnt);
  /* A dimension-1 reduction in a kernel whose other loop makes the grid two-dimensional:
   * the gangs of dimension 2 repeat it, only one counts. (OpenACC allows reductions on
   * dimension-1 gang loops only.) */
  long rows = 0;
#pragma acc parallel vector_length(32) copy(pr[0:M * N])
  {
#pragma acc loop gang vector reduction(+: rows)
    for (int j = 0; j < R; j++) rows += j + 1;
#pragma acc loop gang(dim: 2) vector
    for (int j = 0; j < M * N; j++) pr[j] = -pr[j];
  }
  CHECK(rows == (long)R * (R + 1) / 2, "dimension-1 reduction on a 2-D grid: %ld want %ld", rows, (long)R * (R + 1) / 2);
  /* A row's sum: a dimension-1 reduction of a variable private to the dimension-2 loop's
   * iteration (the row runs on one gang of dimension 1, its lanes sharing the columns). */
  long *rsum = e2e_alloc(sizeof(long) * M);
#pragma acc parallel loop gang(dim: 2) vector_length(32) copyin(a[0:M * N]) copyout(rsum[0:M])
  for (int j = 0; j < M; j++) {
    long s = 0;
#pragma acc loop gang(dim: 1) vector reduction(+: s)
    for (int i = 0; i < N; i++) s += a[j * N + i];
    rsum[j] = s;
  }
  for (int j = 0; j < M; j++) {
    long w = 0;
    for (int i = 0; i < N; i++) w += a[j * N + i];
    CHECK(rsum[j] == w, "row sum %d: %ld want %ld", j, rsum[j], w);
  }
  free(rsum);
  for (int j = 0; j < M; j++)
    for (int i = 0; i < N; i++)
      CHECK(pr[j * N + i] == -(j * N + (N - 1 - i) + 1), "pr[%d][%d]=%d after negation", j, i, pr[j * N + i]);
  free(a);
  free(c);
  free(row);
  free(pr);
  return e2e_finish();
}
