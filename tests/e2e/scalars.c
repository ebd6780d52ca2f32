/* Scalars used in a region are firstprivate by default: their values reach the kernel and
 * the host copies are unchanged afterwards; explicit firstprivate/private too. */
#define E2E_NAME "scalars"
#include "e2e.h"

int main(void) {
  int n = 50021;
  double *y = e2e_alloc(sizeof(double) * n);
  int k = 7;
  double scale = 0.25;
  float off = 3.5f;
  long big = 1L << 40;
  char ch = 'x';
  unsigned short us = 65535;
  int t = 123;

#pragma acc parallel loop copyout(y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = scale * (i % k) + off + (double)(big >> 38) + (ch == 'x') + us;

#pragma acc parallel loop copy(y[0:n]) firstprivate(k) private(t)
  for (int i = 0; i < n; i++) {
    t = i % k;
    y[i] += t;
  }

  for (int i = 0; i < n; i++) {
    double want = 0.25 * (i % 7) + 3.5 + 4.0 + 1.0 + 65535.0 + (i % 7);
    if (!e2e_close(y[i], want, 1e-12)) {
      CHECK(0, "y[%d]=%.17g want %.17g", i, y[i], want);
      break;
    }
  }
  CHECK(k == 7 && scale == 0.25 && t == 123, "host scalars changed: k=%d scale=%g t=%d", k, scale, t);
  free(y);
  return e2e_finish();
}
