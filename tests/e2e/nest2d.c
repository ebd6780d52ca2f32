/* 2-D nest: `parallel loop gang` outer + `loop vector` inner, on a non-square odd shape:
 * matrix add C = A + B and transpose T = A^T (37 x 1001). */
#define E2E_NAME "nest2d"
#include "e2e.h"

enum { R = 37, C = 1001 };

int main(void) {
  int r = R, c = C;
  float *a = e2e_alloc(sizeof(float) * R * C), *b = e2e_alloc(sizeof(float) * R * C);
  float *s = e2e_alloc(sizeof(float) * R * C), *t = e2e_alloc(sizeof(float) * R * C);
  for (int i = 0; i < R * C; i++) {
    a[i] = (float)i;
    b[i] = (float)(2 * i + 1);
    s[i] = t[i] = -1.0f;
  }

#pragma acc parallel loop gang copyin(a[0:r*c], b[0:r*c]) copyout(s[0:r*c])
  for (int i = 0; i < r; i++) {
#pragma acc loop vector
    for (int j = 0; j < c; j++)
      s[i * c + j] = a[i * c + j] + b[i * c + j];
  }

  /* transpose: t is c x r */
#pragma acc parallel loop gang copyin(a[0:r*c]) copyout(t[0:r*c])
  for (int j = 0; j < c; j++) {
#pragma acc loop vector
    for (int i = 0; i < r; i++)
      t[j * r + i] = a[i * c + j];
  }

  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) {
      float want = (float)(3 * (i * c + j) + 1);
      if (s[i * c + j] != want) {
        CHECK(0, "add: s[%d][%d]=%g want %g", i, j, s[i * c + j], want);
        goto done_add;
      }
    }
done_add:
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++)
      if (t[j * r + i] != a[i * c + j]) {
        CHECK(0, "transpose: t[%d][%d]=%g want %g", j, i, t[j * r + i], a[i * c + j]);
        goto done_t;
      }
done_t:
  free(a), free(b), free(s), free(t);
  return e2e_finish();
}
