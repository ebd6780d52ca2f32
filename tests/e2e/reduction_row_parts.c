/* Reductions over a part of each row of a 2-D array (`reduction(+: m[1:5][2:3])`, constant
 * bounds) whose regions read an element, store one plainly or pass its address: each thread's
 * private copy holds the whole rows (the body indexes it as the array), and only the part's
 * columns of each row are combined into the array (codegen/src/reduction.rs `Part`): the
 * other elements keep their values exactly, even under `&&` (a 5 is not made 1) and for
 * -0.0 and NaN under `+` and `max`. Was "the array reduction ... over a part of each row
 * stores an element other than by updating it ... is not supported yet". Every element is
 * checked; many iterations from different gangs and lanes hit each element. */
#define E2E_NAME "reduction_row_parts"
#include "e2e.h"

enum { R = 7, C = 6 };

#pragma acc routine seq
static void bump(long *p, long v) { *p += v; }

static void sums(int n) {
  double m[R][C];
  long c[R][C];
  int ok[4001];
  for (int r = 0; r < R; r++)
    for (int k = 0; k < C; k++) m[r][k] = r * 10 + k, c[r][k] = -(r * 10 + k);
  m[0][2] = -0.0, m[1][0] = NAN, m[2][5] = -0.0;
  /* A read of the thread's partial sum, a plain store through a temporary, and an element's
   * address passed on. */
#pragma acc parallel loop reduction(+: m[1:5][2:3], c[2:4][1:4]) copyout(ok[0:n])
  for (int i = 0; i < n; i++) {
    int r = 1 + i % 5, k = 2 + (i / 5) % 3;
    double t = m[r][k] + (i % 4);
    m[r][k] = t;
    ok[i] = m[r][k] >= 0.0;
    bump(&c[2 + i % 4][1 + (i * 7) % 4], i % 9);
  }
  for (int r = 0; r < R; r++)
    for (int k = 0; k < C; k++) {
      double wm = r * 10 + k;
      long wc = -(r * 10 + k);
      if (r == 0 && k == 2) wm = -0.0;
      if (r == 2 && k == 5) wm = -0.0;
      for (int i = 0; i < n; i++) {
        if (1 + i % 5 == r && 2 + (i / 5) % 3 == k) wm += i % 4;
        if (2 + i % 4 == r && 1 + (i * 7) % 4 == k) wc += i % 9;
      }
      if (r == 1 && k == 0) {
        CHECK(isnan(m[r][k]), "sums(%d): m[1][0] = %g, want NaN (outside the part)", n, m[r][k]);
      } else {
        CHECK(m[r][k] == wm && signbit(m[r][k]) == signbit(wm), "sums(%d): m[%d][%d] = %g, want %g", n, r, k, m[r][k], wm);
      }
      CHECK(c[r][k] == wc, "sums(%d): c[%d][%d] = %ld, want %ld", n, r, k, c[r][k], wc);
    }
  for (int i = 0; i < n; i++) CHECK(ok[i] == 1, "sums(%d): ok[%d] = %d", n, i, ok[i]);
}

/* && and max over parts, a gang loop with a vector loop inside that reduces them too; the
 * elements outside the parts hold values the identities would change (5 under &&, NaN and
 * -0.0 under max). */
static void logic(int rows, int w) {
  int a[R][C];
  double x[R][C];
  for (int r = 0; r < R; r++)
    for (int k = 0; k < C; k++) a[r][k] = 5, x[r][k] = -0.0;
  x[3][0] = NAN;
  for (int r = 2; r < 6; r++)
    for (int k = 1; k < 5; k++) a[r][k] = 1, x[r][k] = -100.0; /* (not every element is hit: 0 or 1 keeps the host path's answer) */
#pragma acc parallel loop gang reduction(&&: a[2:4][1:4]) reduction(max: x[2:4][1:4])
  for (int i = 0; i < rows; i++) {
#pragma acc loop vector reduction(&&: a[2:4][1:4]) reduction(max: x[2:4][1:4])
    for (int j = 0; j < w; j++) {
      int r = 2 + (i + j) % 4, k = 1 + (i * 3 + j) % 4;
      int keep = a[r][k];
      a[r][k] = keep && !(i == 3 && j == 2);
      double v = (i * 13 + j * 7) % 50 - 20;
      x[r][k] = v > x[r][k] ? v : x[r][k];
    }
  }
  for (int r = 0; r < R; r++)
    for (int k = 0; k < C; k++) {
      int inside = r >= 2 && r < 6 && k >= 1 && k < 5;
      if (!inside) {
        CHECK(a[r][k] == 5, "logic: a[%d][%d] = %d, want 5 (outside the part)", r, k, a[r][k]);
        if (r == 3 && k == 0)
          CHECK(isnan(x[r][k]), "logic: x[3][0] = %g, want NaN (outside the part)", x[r][k]);
        else
          CHECK(x[r][k] == 0.0 && signbit(x[r][k]), "logic: x[%d][%d] = %g, want -0.0 (outside the part)", r, k, x[r][k]);
        continue;
      }
      int wa = 1;
      double wx = -100.0;
      for (int i = 0; i < rows; i++)
        for (int j = 0; j < w; j++)
          if (2 + (i + j) % 4 == r && 1 + (i * 3 + j) % 4 == k) {
            wa = wa && !(i == 3 && j == 2);
            double v = (i * 13 + j * 7) % 50 - 20;
            if (v > wx) wx = v;
          }
      CHECK(a[r][k] == wa, "logic: a[%d][%d] = %d, want %d", r, k, a[r][k], wa);
      CHECK(x[r][k] == wx, "logic: x[%d][%d] = %g, want %g", r, k, x[r][k], wx);
    }
}

int main(void) {
  sums(4001);
  sums(13);
  logic(37, 45);
  return e2e_finish();
}
