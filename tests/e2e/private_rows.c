/* private and firstprivate sections through pointer rows (`p[0:n][lo:m]` of `double **p`,
 * OpenACC 3.3 §2.5.13-14): each gang's (or, on a loop, each thread's) copy holds the row
 * pointers and the rows, the pointers aimed at the copy's rows; firstprivate rows start as
 * the host's (through the rows' device copies). Every gang writes its copy and reads it back
 * reversed, so copies shared between gangs lose values; the host's rows never change. Was:
 * "'p[0:n][0:m]' in a 'private' clause ... is not supported yet". Also two levels of rows
 * (`q[1:a][2:b][lo:c]` of `int ***q`, each level's section starting past 0), which were
 * "a private copy through 2 levels of pointer rows ... is not supported yet". */
#define E2E_NAME "private_rows"
#include "e2e.h"

enum { G = 29 };

int main(void) {
  int n = 7, m = 11, lo = 2;
  double **p = e2e_alloc(sizeof(double *) * n);
  for (int r = 0; r < n; r++) {
    p[r] = e2e_alloc(sizeof(double) * (lo + m + 3));
    for (int c = 0; c < lo + m + 3; c++) p[r][c] = r * 100 + c;
  }
  double *out = e2e_alloc(sizeof(double) * G * n * m);
  /* firstprivate on the construct: each gang writes the second half of its copy's rows
   * (the first half keeps the host's values), then reads the rows reversed. */
  int h = m / 2;
#pragma acc parallel num_gangs(G) firstprivate(p[1:n - 1][lo:m]) copyout(out[0:G * n * m])
  {
#pragma acc loop gang
    for (int g = 0; g < G; g++) {
#pragma acc loop vector collapse(2)
      for (int r = 1; r < n; r++)
        for (int c = lo + h; c < lo + m; c++) p[r][c] = -(g * 1000 + r * 10 + c);
#pragma acc loop vector collapse(2)
      for (int r = 1; r < n; r++)
        for (int c = 0; c < m; c++) out[(g * n + r) * m + c] = p[n - r][lo + m - 1 - c];
    }
  }
  for (int g = 0; g < G; g++)
    for (int r = 1; r < n; r++)
      for (int c = 0; c < m; c++) {
        int col = lo + m - 1 - c;
        double want = col < lo + h ? (n - r) * 100 + col : -(g * 1000 + (n - r) * 10 + col);
        CHECK(out[(g * n + r) * m + c] == want, "firstprivate: gang %d [%d][%d] = %g, want %g", g, r, c, out[(g * n + r) * m + c], want);
      }
  /* private on a gang loop: written before read. */
#pragma acc parallel loop gang private(p[0:n][0:m]) copyout(out[0:G * n * m])
  for (int g = 0; g < G; g++) {
#pragma acc loop vector collapse(2)
    for (int r = 0; r < n; r++)
      for (int c = 0; c < m; c++) p[r][c] = g * 1000 + r * 10 + c;
#pragma acc loop vector collapse(2)
    for (int r = 0; r < n; r++)
      for (int c = 0; c < m; c++) out[(g * n + r) * m + c] = p[n - 1 - r][m - 1 - c];
  }
  for (int g = 0; g < G; g++)
    for (int r = 0; r < n; r++)
      for (int c = 0; c < m; c++) {
        double want = g * 1000 + (n - 1 - r) * 10 + (m - 1 - c);
        CHECK(out[(g * n + r) * m + c] == want, "private: gang %d [%d][%d] = %g, want %g", g, r, c, out[(g * n + r) * m + c], want);
      }
  for (int r = 0; r < n; r++)
    for (int c = 0; c < lo + m + 3; c++) CHECK(p[r][c] == r * 100 + c, "the host's p[%d][%d] changed to %g", r, c, p[r][c]);

  /* Two levels: firstprivate on the construct (each gang negates the last plane of its copy,
   * then reads every element through the copy's tables), private on a gang loop. */
  int a = 4, b = 3, c3 = 5;
  int ***q = e2e_alloc(sizeof(int **) * (a + 1));
  for (int i = 0; i < a + 1; i++) {
    q[i] = e2e_alloc(sizeof(int *) * (b + 2));
    for (int j = 0; j < b + 2; j++) {
      q[i][j] = e2e_alloc(sizeof(int) * (lo + c3 + 1));
      for (int k = 0; k < lo + c3 + 1; k++) q[i][j][k] = i * 10000 + j * 100 + k;
    }
  }
  int *got = e2e_alloc(sizeof(int) * G * a * b * c3);
#pragma acc parallel num_gangs(G) firstprivate(q[1:a][2:b][lo:c3]) copyout(got[0:G * a * b * c3])
  {
#pragma acc loop gang
    for (int g = 0; g < G; g++) {
#pragma acc loop vector
      for (int j = 2; j < 2 + b; j++)
        for (int k = lo; k < lo + c3; k++) q[a][j][k] = -(g * 100000 + j * 100 + k);
#pragma acc loop vector collapse(3)
      for (int i = 0; i < a; i++)
        for (int j = 0; j < b; j++)
          for (int k = 0; k < c3; k++) got[((g * a + i) * b + j) * c3 + k] = q[1 + i][2 + j][lo + k];
    }
  }
  for (int g = 0; g < G; g++)
    for (int i = 0; i < a; i++)
      for (int j = 0; j < b; j++)
        for (int k = 0; k < c3; k++) {
          int host = (1 + i) * 10000 + (2 + j) * 100 + lo + k, want = i == a - 1 ? -(g * 100000 + (2 + j) * 100 + lo + k) : host;
          int v = got[((g * a + i) * b + j) * c3 + k];
          CHECK(v == want, "firstprivate q: gang %d [%d][%d][%d] = %d, want %d", g, 1 + i, 2 + j, lo + k, v, want);
        }
#pragma acc parallel loop gang private(q[0:a][0:b][0:c3]) copyout(got[0:G * a * b * c3])
  for (int g = 0; g < G; g++) {
#pragma acc loop vector collapse(3)
    for (int i = 0; i < a; i++)
      for (int j = 0; j < b; j++)
        for (int k = 0; k < c3; k++) q[i][j][k] = g * 1000 + i * 100 + j * 10 + k;
#pragma acc loop vector collapse(3)
    for (int i = 0; i < a; i++)
      for (int j = 0; j < b; j++)
        for (int k = 0; k < c3; k++) got[((g * a + i) * b + j) * c3 + k] = q[a - 1 - i][b - 1 - j][c3 - 1 - k];
  }
  for (int g = 0; g < G; g++)
    for (int i = 0; i < a; i++)
      for (int j = 0; j < b; j++)
        for (int k = 0; k < c3; k++) {
          int want = g * 1000 + (a - 1 - i) * 100 + (b - 1 - j) * 10 + (c3 - 1 - k), v = got[((g * a + i) * b + j) * c3 + k];
          CHECK(v == want, "private q: gang %d [%d][%d][%d] = %d, want %d", g, i, j, k, v, want);
        }
  for (int i = 0; i < a + 1; i++)
    for (int j = 0; j < b + 2; j++)
      for (int k = 0; k < lo + c3 + 1; k++) CHECK(q[i][j][k] == i * 10000 + j * 100 + k, "the host's q[%d][%d][%d] changed to %d", i, j, k, q[i][j][k]);
  for (int i = 0; i < a + 1; i++) {
    for (int j = 0; j < b + 2; j++) free(q[i][j]);
    free(q[i]);
  }
  free(q), free(got);
  for (int r = 0; r < n; r++) free(p[r]);
  free(p), free(out);
  return e2e_finish();
}
