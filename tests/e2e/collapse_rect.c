/* collapse(2) of rectangular nests whose inner bounds clang computes inside the outer loop
 * (`j < m - 1`, `j < m / 2 + k`, a run-time inner step): they do not depend on the outer
 * loop, so the nest is rectangular. Odd bounds, every element checked. */
#define E2E_NAME "collapse_rect"
#include "e2e.h"

static void interior(int n, int m, float *a) {
#pragma acc parallel loop collapse(2) copy(a[0:n*m])
  for (int i = 1; i < n - 1; i++)
    for (int j = 0; j < m - 1; j++)
      a[i * m + j] += (float)(i * 3 + j);
}

static void shifted(int n, int m, int k, int s, float *a) {
#pragma acc parallel loop collapse(2) copy(a[0:n*m])
  for (int i = n - 2; i >= 1; i--)
    for (int j = 1; j < m / 2 + k; j += s)
      a[i * m + j] += 1000.0f;
}

static void kernels_nest(int n, int m, float *a) {
  int i, j;
#pragma acc kernels loop independent collapse(2) copy(a[0:n*m])
  for (i = 0; i < n; i++)
    for (j = m - 1; j > 0; j -= 2)
      a[i * m + j] += 100000.0f;
}

int main(void) {
  int n = 37, m = 101, k = 9, s = 3;
  float *a = e2e_alloc(sizeof(float) * n * m), *want = e2e_alloc(sizeof(float) * n * m);
  for (int x = 0; x < n * m; x++) a[x] = want[x] = (float)(x % 17);

  interior(n, m, a);
  for (int i = 1; i < n - 1; i++)
    for (int j = 0; j < m - 1; j++) want[i * m + j] += (float)(i * 3 + j);
  shifted(n, m, k, s, a);
  for (int i = n - 2; i >= 1; i--)
    for (int j = 1; j < m / 2 + k; j += s) want[i * m + j] += 1000.0f;
  kernels_nest(n, m, a);
  for (int i = 0; i < n; i++)
    for (int j = m - 1; j > 0; j -= 2) want[i * m + j] += 100000.0f;
  /* empty inner range: nothing happens */
  interior(n, 1, a);

  for (int x = 0; x < n * m; x++) {
    if (a[x] != want[x]) {
      CHECK(0, "a[%d][%d]=%g want %g", x / m, x % m, a[x], want[x]);
      break;
    }
  }
  free(a), free(want);
  return e2e_finish();
}
