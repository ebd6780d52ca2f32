/* math.h functions inside a kernel (mapped to libdevice on the GPU): sqrtf, expf, sin, and
 * a few more. Results are compared with the host libm within a small tolerance. */
#define E2E_NAME "math"
#include "e2e.h"

int main(void) {
  int n = 100003;
  float *a = e2e_alloc(sizeof(float) * n), *b = e2e_alloc(sizeof(float) * n);
  double *c = e2e_alloc(sizeof(double) * n), *d = e2e_alloc(sizeof(double) * n);

#pragma acc parallel loop copyout(a[0:n], b[0:n], c[0:n], d[0:n])
  for (int i = 0; i < n; i++) {
    float x = (float)i * 1e-3f;
    a[i] = sqrtf(x);
    b[i] = expf(-x);
    c[i] = sin((double)i * 1e-2);
    d[i] = cos((double)i) + log(1.0 + i) + pow((double)i, 0.5) + fabs(-2.0 * i) + floor(i * 0.1);
  }

  for (int i = 0; i < n; i++) {
    float x = (float)i * 1e-3f;
    double wd = cos((double)i) + log(1.0 + i) + pow((double)i, 0.5) + fabs(-2.0 * i) + floor(i * 0.1);
    if (!e2e_close(a[i], sqrtf(x), 1e-6) || !e2e_close(b[i], expf(-x), 1e-6) ||
        !e2e_close(c[i], sin((double)i * 1e-2), 1e-12) || !e2e_close(d[i], wd, 1e-12)) {
      CHECK(0, "i=%d: sqrtf=%g/%g expf=%g/%g sin=%.17g/%.17g d=%.17g/%.17g", i, a[i], sqrtf(x),
            b[i], expf(-x), c[i], sin((double)i * 1e-2), d[i], wd);
      break;
    }
  }
  free(a), free(b), free(c), free(d);
  return e2e_finish();
}
