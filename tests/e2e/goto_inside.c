/* `goto`, `break` and `continue` that stay inside a region. Clang routes them through
 * cleanup switches whose other edges lead out of the region (to the function's return):
 * the pass must not take those for exits (codegen/src/cleanups.rs). Every -O level. */
#define E2E_NAME "goto_inside"
#include "e2e.h"

int main(void) {
  int n = 1001;
  float *a = e2e_alloc(sizeof(float) * n);
  float *b = e2e_alloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) a[i] = i, b[i] = 0;

  /* forward goto past a continue, to a label at the end of the loop body */
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) {
    float t = a[i];
    if (i % 3 == 0) goto skip;
    if (i % 7 == 0) continue;
    a[i] = 2 * t;
  skip:;
  }

  /* goto out of a plain loop to a label inside a serial region */
  int stop = 500;
#pragma acc serial copy(b[0:n]) copyin(stop)
  {
    for (int i = 0; i < n; i++) {
      float t = i;
      if (i == stop) goto done;
      b[i] = t + 0.5f;
    }
  done:
    b[n - 1] = -1;
  }

  /* goto forward inside a loop of a parallel region with a nested loop directive */
#pragma acc parallel copy(b[0:n])
  {
#pragma acc loop gang vector
    for (int i = 0; i < n; i++) {
      int k = i % 5;
      if (k == 0) goto next;
      b[i] += 10;
    next:;
    }
  }

  for (int i = 0; i < n; i++) {
    float want = (i % 3 == 0 || i % 7 == 0) ? (float)i : 2.0f * i;
    CHECK(a[i] == want, "a[%d] = %g, want %g", i, a[i], want);
    float wb = i == n - 1 ? -1 : i < stop ? i + 0.5f : 0;
    if (i % 5) wb += 10;
    CHECK(b[i] == wb, "b[%d] = %g, want %g", i, b[i], wb);
  }
  free(a), free(b);
  return e2e_finish();
}
