/* kernels region with `loop independent` (two loops in one region) and `kernels loop`. */
#define E2E_NAME "kernels"
#include "e2e.h"

int main(void) {
  int n = 100003;
  float *a = e2e_alloc(sizeof(float) * n), *b = e2e_alloc(sizeof(float) * n);
  float *c = e2e_alloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) a[i] = (float)(i % 1024);

#pragma acc kernels copyin(a[0:n]) copyout(b[0:n], c[0:n])
  {
#pragma acc loop independent
    for (int i = 0; i < n; i++)
      b[i] = a[i] * 2.0f;
#pragma acc loop independent
    for (int i = 0; i < n; i++)
      c[i] = a[i] + 1.0f;
  }

#pragma acc kernels loop independent copy(c[0:n]) copyin(b[0:n])
  for (int i = 0; i < n; i++)
    c[i] += b[i];

  for (int i = 0; i < n; i++) {
    float want_b = (float)(i % 1024) * 2.0f, want_c = (float)(i % 1024) * 3.0f + 1.0f;
    if (b[i] != want_b || c[i] != want_c) {
      CHECK(0, "i=%d: b=%g (want %g) c=%g (want %g)", i, b[i], want_b, c[i], want_c);
      break;
    }
  }
  free(a), free(b), free(c);
  return e2e_finish();
}
