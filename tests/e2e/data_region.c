/* A structured data region (copyin / copyout / create) enclosing two compute regions that
 * communicate through a device-only temporary; `present` on the inner regions. */
#define E2E_NAME "data_region"
#include "e2e.h"

int main(void) {
  int n = 300007;
  float *in = e2e_alloc(sizeof(float) * n), *out = e2e_alloc(sizeof(float) * n);
  float *tmp = e2e_alloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) {
    in[i] = (float)(i % 500);
    out[i] = -1.0f;
  }

#pragma acc data copyin(in[0:n]) copyout(out[0:n]) create(tmp[0:n])
  {
#pragma acc parallel loop present(in[0:n], tmp[0:n])
    for (int i = 0; i < n; i++)
      tmp[i] = in[i] * in[i];
#pragma acc parallel loop present(tmp[0:n]) copyout(out[0:n])
    for (int i = 0; i < n; i++)
      out[i] = tmp[i] + 1.0f;
  }

  for (int i = 0; i < n; i++) {
    float v = (float)(i % 500), want = v * v + 1.0f;
    if (out[i] != want) {
      CHECK(0, "out[%d]=%g want %g", i, out[i], want);
      break;
    }
  }
  free(in), free(out), free(tmp);
  return e2e_finish();
}
