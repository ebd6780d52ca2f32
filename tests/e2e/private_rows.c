/* private and firstprivate sections through pointer rows (`p[0:n][lo:m]` of `double **p`,
 * OpenACC 3.3 §2.5.13-14): each gang's (or, on a loop, each thread's) copy holds the row
 * pointers and the rows, the pointers aimed at the copy's rows; firstprivate rows start as
 * the host's (through the rows' device copies). Every gang writes its copy and reads it back
 * reversed, so copies shared between gangs lose values; the host's rows never change. Was:
 * "'p[0:n][0:m]' in a 'private' clause ... is not supported yet". */
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
  for (int r = 0; r < n; r++) free(p[r]);
  free(p), free(out);
  return e2e_finish();
}
