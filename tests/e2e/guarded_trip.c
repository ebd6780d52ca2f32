/* Launch sizes are computed only in a way that cannot trap where the program would not
 * compute them: gang loops whose trip count divides by a value that is zero (or -1 with
 * INT_MIN) exactly when the program does not reach the loop. */
#define E2E_NAME "guarded_trip"
#include <limits.h>
#include "e2e.h"

/* The gang loop is reached only when k != 0 (the test inside the region). */
static void inside(int n, int k, float *a) {
#pragma acc parallel copy(a[0:n])
  {
    if (k) {
#pragma acc loop gang
      for (int i = 0; i < n / k; i++) a[i] += 1.0f;
    }
  }
}

/* The whole region is skipped when k == 0 (the test around the region). */
static void around(int n, int k, float *a) {
  if (k) {
#pragma acc parallel loop copy(a[0:n])
    for (int i = 0; i < n / k; i++) a[i] += 10.0f;
  }
}

/* INT_MIN / -1 traps on x86 like a division by zero; here it is never evaluated. */
static void overflow(int m, int k, int n, float *a) {
#pragma acc parallel copy(a[0:n])
  {
    if (k != -1) {
      int t = m / k % n;
#pragma acc loop gang vector
      for (int i = 0; i < t; i++) a[i] += 100.0f;
    }
  }
}

/* A remainder by zero guarded the same way, and an empty gang loop (zero trip count). */
static void rem(int n, int k, float *a) {
#pragma acc parallel copy(a[0:n])
  {
    if (k > 0) {
#pragma acc loop gang worker vector
      for (int i = 0; i < n % k; i++) a[i] += 1000.0f;
    }
  }
}

int main(void) {
  int n = 1001;
  float *a = e2e_alloc(sizeof(float) * n), *want = e2e_alloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) a[i] = want[i] = 0.0f;

  inside(n, 0, a);
  inside(n, 7, a); /* i < 143 */
  for (int i = 0; i < n / 7; i++) want[i] += 1.0f;
  around(n, 0, a);
  around(n, 3, a); /* i < 333 */
  for (int i = 0; i < n / 3; i++) want[i] += 10.0f;
  overflow(INT_MIN, -1, n, a);
  overflow(-2 * n - 5, -2, n, a); /* (2n+5)/2 % n = (n+2) % n = 2 */
  for (int i = 0; i < 2; i++) want[i] += 100.0f;
  rem(n, 0, a);
  rem(n, 19, a); /* 1001 % 19 = 13 */
  for (int i = 0; i < n % 19; i++) want[i] += 1000.0f;
  rem(0, 5, a);  /* zero trip count */

  for (int i = 0; i < n; i++) {
    if (a[i] != want[i]) {
      CHECK(0, "a[%d]=%g want %g", i, a[i], want[i]);
      break;
    }
  }
  free(a), free(want);
  return e2e_finish();
}
