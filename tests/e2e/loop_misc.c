/* More loop forms: long and unsigned induction variables, collapse(3), an inner `loop seq`,
 * and a call to a static inline function from the kernel. */
#define E2E_NAME "loop_misc"
#include "e2e.h"

static inline float sq(float x) { return x * x; }

enum { NI = 9, NJ = 11, NK = 67 };

int main(void) {
  long m = 20011;
  unsigned un = 20011;
  float *a = e2e_alloc(sizeof(float) * m);

#pragma acc parallel loop copyout(a[0:m])
  for (long i = 0; i < m; i++)
    a[i] = sq((float)(i % 1000));
#pragma acc parallel loop copy(a[0:un])
  for (unsigned i = 0; i < un; i++)
    a[i] += 1.0f;
  for (long i = 0; i < m; i++)
    if (a[i] != sq((float)(i % 1000)) + 1.0f) {
      CHECK(0, "a[%ld]=%g want %g", i, a[i], sq((float)(i % 1000)) + 1.0f);
      break;
    }

  int ni = NI, nj = NJ, nk = NK, n = NI * NJ * NK;
  int *b = e2e_alloc(sizeof(int) * n);
#pragma acc parallel loop collapse(3) copyout(b[0:n])
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      for (int k = 0; k < nk; k++)
        b[(i * nj + j) * nk + k] = i * 10000 + j * 100 + k;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++)
        CHECK(b[(i * NJ + j) * NK + k] == i * 10000 + j * 100 + k, "collapse(3): b[%d][%d][%d]=%d", i,
              j, k, b[(i * NJ + j) * NK + k]);

  /* each row is an order-dependent running sum: the inner loop must stay sequential */
#pragma acc parallel loop gang copy(b[0:n])
  for (int r = 0; r < ni * nj; r++) {
#pragma acc loop seq
    for (int k = 1; k < nk; k++)
      b[r * nk + k] += b[r * nk + k - 1];
  }
  for (int r = 0; r < NI * NJ; r++) {
    int i = r / NJ, j = r % NJ, s = 0;
    for (int k = 0; k < NK; k++) {
      s += i * 10000 + j * 100 + k;
      if (b[r * NK + k] != s) {
        CHECK(0, "loop seq: row %d k=%d: %d want %d", r, k, b[r * NK + k], s);
        break;
      }
    }
  }
  free(a), free(b);
  return e2e_finish();
}
