/* collapse(force: n) (OpenACC 3.3 §2.9.1): the loops need not be tightly nested; code
 * between them runs as often as the collapse needs, here once per iteration of the collapsed
 * space, so it must give the same result however often it runs (values it computes, stores of
 * values that do not depend on the inner loops). Perfect nests are collapsed as by collapse(n). */
#define E2E_NAME "collapse_force"
#include "e2e.h"

enum { N = 37, M = 29, K = 5 };

int main(void) {
  static int a[N][M], b[N], c[N][M][K], d[N][M];
#pragma acc data copyout(a, b, c, d)
  {
    /* intervening code before (with a branch) and after the inner loop */
#pragma acc parallel loop collapse(force: 2)
    for (int i = 0; i < N; i++) {
      int t;
      if (i % 3 == 1)
        t = 5 * i;
      else
        t = -i;
      for (int j = 0; j < M; j++) a[i][j] = t + j;
      b[i] = 7 * i;
    }
    /* three levels, code between each */
#pragma acc parallel loop gang vector collapse(force: 3)
    for (int i = 0; i < N; i++) {
      int u = i * 100;
      for (int j = 0; j < M; j++) {
        int v = u + j * 10;
        for (int k = 0; k < K; k++) c[i][j][k] = v + k;
      }
    }
    /* a perfect nest, in a loop directive of a region */
#pragma acc parallel
#pragma acc loop collapse(force: 2)
    for (int i = 0; i < N; i++)
      for (int j = M - 1; j >= 0; j--) d[i][j] = i - j;
  }
  for (int i = 0; i < N; i++) {
    CHECK(b[i] == 7 * i, "b[%d]=%d", i, b[i]);
    for (int j = 0; j < M; j++) {
      int t = i % 3 == 1 ? 5 * i : -i;
      CHECK(a[i][j] == t + j, "a[%d][%d]=%d want %d", i, j, a[i][j], t + j);
      CHECK(d[i][j] == i - j, "d[%d][%d]=%d", i, j, d[i][j]);
      for (int k = 0; k < K; k++) CHECK(c[i][j][k] == i * 100 + j * 10 + k, "c[%d][%d][%d]=%d", i, j, k, c[i][j][k]);
    }
  }
  return e2e_finish();
}
