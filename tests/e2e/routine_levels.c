/* gang, worker and vector routines (OpenACC 3.3 §2.15.1) whose loops are partitioned with
 * the caller's launch: a vector routine called from a gang loop and from a gang-worker loop
 * (all lanes of a worker call it together), one with a vector reduction that returns its
 * result, one with side effects outside its loop (done once per call, not per lane); a
 * worker routine calling a vector routine from its worker loop; a gang routine called from
 * gang-redundant code. Odd sizes, every element checked. */
#define E2E_NAME "routine_levels"
#include "e2e.h"

enum { N = 37, M = 101, B = 5, L = 1001 };

#pragma acc routine vector
static void scale_row(double *row, int m, double s) {
#pragma acc loop vector
  for (int j = 0; j < m; j++) row[j] *= s;
}

#pragma acc routine worker
void scale_rows(double *a, int n, int m) {
#pragma acc loop worker
  for (int i = 0; i < n; i++) scale_row(a + (long)i * m, m, 2.0 + i);
}

#pragma acc routine vector
double row_sum(const double *x, int m) {
  double s = 0;
#pragma acc loop vector reduction(+:s)
  for (int j = 0; j < m; j++) s += x[j];
  return s;
}

#pragma acc routine vector
void bump(int *a, int n, int *count) {
  *count += 1;
#pragma acc loop vector
  for (int i = 0; i < n; i++) a[i] += 1;
  *count += 10;
}

#pragma acc routine gang
void fill(int *a, int n, int v) {
#pragma acc loop gang vector
  for (int i = 0; i < n; i++) a[i] = v + i;
}

int main(void) {
  double *a = e2e_alloc(N * M * sizeof *a), *c = e2e_alloc(B * N * M * sizeof *c);
  double *d = e2e_alloc(N * sizeof *d), *e = e2e_alloc(N * M * sizeof *e);
  int *f = e2e_alloc(L * sizeof *f);
  int cnt = 0;
  for (int i = 0; i < N * M; i++) a[i] = e[i] = i;
  for (int i = 0; i < B * N * M; i++) c[i] = 1;
#pragma acc parallel loop gang copy(a[0:N*M])
  for (int i = 0; i < N; i++) scale_row(a + (long)i * M, M, 0.5);
#pragma acc parallel loop gang worker copy(e[0:N*M]) num_workers(4) vector_length(32)
  for (int i = 0; i < N; i++) scale_row(e + (long)i * M, M, -1.0 * i);
#pragma acc parallel loop gang copy(c[0:B*N*M]) num_workers(4)
  for (int b = 0; b < B; b++) scale_rows(c + (long)b * N * M, N, M);
#pragma acc parallel loop gang copyin(a[0:N*M]) copyout(d[0:N])
  for (int i = 0; i < N; i++) d[i] = row_sum(a + (long)i * M, M);
#pragma acc parallel copyout(f[0:L]) num_gangs(7)
  fill(f, L, 5);
#pragma acc parallel copy(f[0:L], cnt) num_gangs(1) vector_length(64)
  bump(f, L, &cnt);

  for (int i = 0; i < N * M; i++) {
    CHECK(a[i] == i * 0.5, "a[%d] = %g, want %g", i, a[i], i * 0.5);
    CHECK(e[i] == i * -1.0 * (i / M), "e[%d] = %g", i, e[i]);
  }
  for (int b = 0; b < B; b++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) CHECK(c[(b * N + i) * M + j] == 2.0 + i, "c[%d][%d][%d] = %g", b, i, j, c[(b * N + i) * M + j]);
  for (int i = 0; i < N; i++) {
    double w = 0;
    for (int j = 0; j < M; j++) w += (i * M + j) * 0.5;
    CHECK(e2e_close(d[i], w, 1e-12), "d[%d] = %g, want %g", i, d[i], w);
  }
  for (int i = 0; i < L; i++) CHECK(f[i] == 5 + i + 1, "f[%d] = %d, want %d", i, f[i], 6 + i);
  CHECK(cnt == 11, "cnt = %d, want 11 (once per call, not per lane)", cnt);
  free(a);
  free(c);
  free(d);
  free(e);
  free(f);
  return e2e_finish();
}
