/* File-scope `declare` of sections through pointer rows (OpenACC 3.3 §2.13, §2.7.1):
 * `copyin(rows_g[0:4][1:6])` of a global array of pointers to global rows (a sub-range of each
 * row), read by a `seq` routine and written in a region; `create(made[0:3][0:5])` whose rows
 * the program allocates before its first OpenACC operation. Each is mapped at that first
 * operation from the row pointers the global holds then (runtime/src/declare.rs). Values
 * come back only through `update self`, so a region that used the host's rows, or a row left
 * unmapped, shows. Was: "'rows_g[0:4][1:6]' in a 'declare copyin' clause ... is not
 * supported yet". */
#define E2E_NAME "declare_rows"
#include "e2e.h"
#include <openacc.h>

double a0[8], a1[8], a2[8], a3[8];
double *rows_g[4] = {a0, a1, a2, a3};
#pragma acc declare copyin(rows_g[0:4][1:6])
double *made[3];
#pragma acc declare create(made[0:3][0:5])

#pragma acc routine seq
static double through(int r, int c) { return rows_g[r][c]; }

int main(void) {
  for (int c = 0; c < 8; c++) a0[c] = c, a1[c] = 10 + c, a2[c] = 20 + c, a3[c] = 30 + c;
  for (int r = 0; r < 3; r++) made[r] = e2e_alloc(5 * sizeof(double));
  double out[4][6];
#pragma acc parallel loop collapse(2) copyout(out)
  for (int r = 0; r < 4; r++)
    for (int c = 1; c < 7; c++) {
      out[r][c - 1] = through(r, c);
      rows_g[r][c] *= 2;
    }
#pragma acc parallel loop collapse(2)
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 5; c++) made[r][c] = r * c + 0.5;
  int host = acc_get_device_type() == acc_device_host;
  CHECK(host || (a1[3] == 13 && a3[6] == 36), "the host's rows changed before update self: a1[3] = %g", a1[3]);
#pragma acc update self(rows_g[0:4][1:6], made[0:3][0:5])
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++) {
      double e = r * 10 + c;
      if (c >= 1 && c < 7) {
        CHECK(out[r][c - 1] == e, "out[%d][%d] = %g, want %g", r, c - 1, out[r][c - 1], e);
        e *= 2;
      }
      CHECK(rows_g[r][c] == e, "rows_g[%d][%d] = %g, want %g", r, c, rows_g[r][c], e);
    }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 5; c++) CHECK(made[r][c] == r * c + 0.5, "made[%d][%d] = %g, want %g", r, c, made[r][c], r * c + 0.5);
  return e2e_finish();
}
