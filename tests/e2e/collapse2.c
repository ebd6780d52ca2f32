/* 2-D nest with collapse(2) on an odd non-square shape (37 x 1001), plus a 2-D C array. */
#define E2E_NAME "collapse2"
#include "e2e.h"

enum { R = 37, C = 1001 };
static float m[R][C];

int main(void) {
  int r = R, c = C;
  float *a = e2e_alloc(sizeof(float) * R * C), *b = e2e_alloc(sizeof(float) * R * C);
  for (int i = 0; i < R * C; i++) {
    a[i] = (float)(i % 4099);
    b[i] = -1.0f;
  }

#pragma acc parallel loop collapse(2) copyin(a[0:r*c]) copyout(b[0:r*c])
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      b[i * c + j] = 2.0f * a[i * c + j] + (float)i - (float)j;

#pragma acc parallel loop gang vector collapse(2) copyout(m)
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      m[i][j] = (float)(i * 10000 + j);

  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) {
      float want = 2.0f * a[i * c + j] + (float)i - (float)j;
      if (b[i * c + j] != want) {
        CHECK(0, "b[%d][%d]=%g want %g", i, j, b[i * c + j], want);
        goto next;
      }
    }
next:
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      if (m[i][j] != (float)(i * 10000 + j)) {
        CHECK(0, "m[%d][%d]=%g want %d", i, j, m[i][j], i * 10000 + j);
        goto done;
      }
done:
  free(a), free(b);
  return e2e_finish();
}
