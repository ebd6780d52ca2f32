/* saxpy over several trip counts, including 0, 1, a non-multiple of 32 and a large odd one. */
#define E2E_NAME "saxpy"
#include "e2e.h"

static void saxpy(int n, float a, const float *x, float *y) {
#pragma acc parallel loop copy(y[0:n]) copyin(x[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

int main(void) {
  static const int sizes[] = {1, 31, 1000003, 0};
  for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int n = sizes[s];
    /* one guard element past the end must stay untouched */
    float *x = e2e_alloc((n + 1) * sizeof *x), *y = e2e_alloc((n + 1) * sizeof *y);
    for (int i = 0; i <= n; i++) {
      x[i] = (float)(i % 1000);
      y[i] = (float)(i % 7);
    }
    saxpy(n, 3.0f, x, y);
    for (int i = 0; i < n; i++) {
      float want = 3.0f * (float)(i % 1000) + (float)(i % 7);
      if (y[i] != want) {
        CHECK(0, "n=%d: y[%d]=%g want %g", n, i, y[i], want);
        break;
      }
    }
    CHECK(y[n] == (float)(n % 7), "n=%d: guard element y[n] changed to %g", n, y[n]);
    free(x);
    free(y);
  }
  return e2e_finish();
}
