/* Loop bounds computed with a comparison (`n - (n > 300)`, `n * (n > 3)`): loop-invariant,
 * so the loops are countable (loops.rs recomputes the bound before the loop). They were
 * rejected as "the bound changes inside the loop" before icmp/select were recomputable.
 * Every element checked; odd sizes. */
#define E2E_NAME "loop_bound_compare"
#include "e2e.h"

static void run(int n) {
  int *a = e2e_alloc(sizeof(int) * (n + 1));
  for (int i = 0; i <= n; i++) a[i] = 0;
#pragma acc parallel loop copy(a[0:n+1])
  for (int i = 0; i < n - (n > 300); i++)
    a[i] += 1;
#pragma acc parallel loop copy(a[0:n+1])
  for (int i = 0; i < n * (n > 3); i += 2)
    a[i] += 2;
  for (int i = 0; i <= n; i++) {
    int want = (i < n - (n > 300)) + 2 * (i < n * (n > 3) && i % 2 == 0);
    CHECK(a[i] == want, "n=%d: a[%d] = %d, want %d", n, i, a[i], want);
  }
  free(a);
}

int main(void) {
  run(3);
  run(5);
  run(301);
  run(1001);
  return e2e_finish();
}
