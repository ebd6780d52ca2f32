/* Loop shapes: step 2, decreasing, `i <= n`, `!=`, a struct-member bound, a non-zero start. */
#define E2E_NAME "loop_shapes"
#include "e2e.h"

struct vec {
  int n;
  float *v;
};

int main(void) {
  int n = 10001;
  int *a = e2e_alloc(sizeof(int) * (n + 1));
  for (int i = 0; i <= n; i++) a[i] = 0;

  /* step 2: even indices */
#pragma acc parallel loop copy(a[0:n+1])
  for (int i = 0; i < n; i += 2)
    a[i] += 1;

  /* decreasing */
#pragma acc parallel loop copy(a[0:n+1])
  for (int i = n - 1; i >= 0; i--)
    a[i] += 10;

  /* i <= n touches a[n] too */
#pragma acc parallel loop copy(a[0:n+1])
  for (int i = 0; i <= n; i++)
    a[i] += 100;

  /* decreasing by 3 with `>` */
#pragma acc parallel loop copy(a[0:n+1])
  for (int i = n; i > 0; i -= 3)
    a[i] += 1000;

  /* != bound, non-zero start */
#pragma acc parallel loop copy(a[0:n+1])
  for (int i = 5; i != n; i++)
    a[i] += 10000;

  for (int i = 0; i <= n; i++) {
    int want = (i < n && i % 2 == 0) + 10 * (i < n) + 100 + 1000 * (i > 0 && (n - i) % 3 == 0) +
               10000 * (i >= 5 && i < n);
    if (a[i] != want) {
      CHECK(0, "a[%d]=%d want %d", i, a[i], want);
      break;
    }
  }

  /* loop bound is a struct member */
  struct vec s;
  s.n = 777;
  s.v = e2e_alloc(sizeof(float) * s.n);
  float *v = s.v;
#pragma acc parallel loop copyout(v[0:s.n])
  for (int i = 0; i < s.n; i++)
    v[i] = (float)i * 0.5f;
  for (int i = 0; i < s.n; i++)
    if (s.v[i] != (float)i * 0.5f) {
      CHECK(0, "struct bound: v[%d]=%g want %g", i, s.v[i], (float)i * 0.5f);
      break;
    }
  free(s.v);
  free(a);
  return e2e_finish();
}
