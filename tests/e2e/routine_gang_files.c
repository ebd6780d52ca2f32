/* `gang` routines defined in another file (OpenACC 3.3 §2.15), called from gang-redundant
 * code of a compute construct: the defining file exports a device version whose gang loops
 * are spread over the caller's gangs (one thread of each gang runs its share; accc warns),
 * so every iteration runs exactly once. Read-modify-write updates show a gang that ran the
 * whole loop. Was: "calling 'fill_rows', a 'gang' routine defined in another file ... is not
 * supported yet". Odd sizes, every element checked, several calls per region. */
/* e2e-also: routine_gang_files/lib.c */
#define E2E_NAME "routine_gang_files"
#include "e2e.h"
#include "routine_gang_files/routines.h"

enum { N = 37, M = 45, B = 1001, R = 7, C = 13 };

int main(void) {
  static double a[N * M];
  static long b[B], c[R * C];
  for (int i = 0; i < B; i++) b[i] = i % 5;
  for (int i = 0; i < R * C; i++) c[i] = -i;
#pragma acc parallel num_gangs(5) copyout(a) copy(b)
  {
    fill_rows(a, N, M, 0.5);
    bump(b, B, 3);
    bump(b, B, 10);
  }
  /* A gang(dim: 2) routine: its loops over both dimensions of the grid. */
#pragma acc parallel copy(c) num_gangs(3, 2)
  {
    bump_grid(c, R, C);
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      double want = 0.5 + i * 1000 + j;
      CHECK(a[i * M + j] == want, "a[%d][%d] = %g, want %g", i, j, a[i * M + j], want);
    }
  for (int i = 0; i < B; i++) CHECK(b[i] == i % 5 + 13L * i, "b[%d] = %ld, want %ld", i, b[i], i % 5 + 13L * i);
  for (int r = 0; r < R; r++)
    for (int k = 0; k < C; k++) CHECK(c[r * C + k] == -(r * C + k) + r * 100 + k, "c[%d][%d] = %ld", r, k, c[r * C + k]);
  return e2e_finish();
}
