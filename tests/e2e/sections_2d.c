/* Two-dimensional arrays `double a[N][M]` in data clauses: whole arrays, row sections
 * a[i:k][0:M] (contiguous: the inner dimension is whole, written [0:M] or [:]), a section
 * whose inner length is a variable checked at run time, a variable-length array, and
 * `copyout(zero:)` of one. Odd sizes, every element checked. */
#define E2E_NAME "sections_2d"
#include "e2e.h"
#include <openacc.h>

/* Regions run on the host, sharing its memory (nothing is zero-filled there). */
static int host_path(void) { return acc_get_device_type() == acc_device_host; }

#define N 23
#define M 17
static double g[N][M];

static void vla(int n, int m) {
  double (*v)[m] = e2e_alloc(sizeof(double) * n * m);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) v[i][j] = i - j;
#pragma acc parallel loop copy(v[1:n - 2][0:m])
  for (int i = 1; i < n - 1; i++)
    for (int j = 0; j < m; j++) v[i][j] *= 3;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double want = (i - j) * ((i >= 1 && i < n - 1) ? 3.0 : 1.0);
      CHECK(v[i][j] == want, "vla: v[%d][%d]=%g want %g", i, j, v[i][j], want);
    }
  free(v);
}

int main(void) {
  double a[N][M], z[N][M];
  int m = M;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) a[i][j] = i * M + j, g[i][j] = -1, z[i][j] = 99;

  /* Rows 3..10 of a, the whole global g, z zero-filled then partly written. */
#pragma acc parallel loop copy(a[3:8][0:M]) copyout(g) copyout(zero: z[0:N][:])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      if (i >= 3 && i < 11) a[i][j] += 0.5;
      g[i][j] = 2 * i + j;
      if (j % 2) z[i][j] = i;
    }
  /* Inner length known only at run time. */
#pragma acc parallel loop copy(a[0:N][0:m])
  for (int i = 0; i < N; i++) a[i][M - 1] = -a[i][M - 1];

  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      double want = i * M + j + ((i >= 3 && i < 11) ? 0.5 : 0);
      if (j == M - 1) want = -want;
      CHECK(a[i][j] == want, "a[%d][%d]=%g want %g", i, j, a[i][j], want);
      CHECK(g[i][j] == 2 * i + j, "g[%d][%d]=%g", i, j, g[i][j]);
      /* The host path has no separate copy to zero: z keeps its 99s there. */
      double zwant = (j % 2) ? i : (host_path() ? 99 : 0);
      CHECK(z[i][j] == zwant, "z[%d][%d]=%g want %g", i, j, z[i][j], zwant);
    }
  vla(19, 11);
  return e2e_finish();
}
