/* serial region: one thread runs the whole (order-dependent) body; plus `serial loop`. */
#define E2E_NAME "serial"
#include "e2e.h"

int main(void) {
  int n = 1000;
  long *f = e2e_alloc(sizeof(long) * n);
  for (int i = 0; i < n; i++) f[i] = 0;

  /* a prefix recurrence: only correct when run sequentially */
#pragma acc serial copy(f[0:n])
  {
    f[0] = 1;
    f[1] = 1;
    for (int i = 2; i < n; i++)
      f[i] = (f[i - 1] + f[i - 2]) % 1000003;
  }

  long *g = e2e_alloc(sizeof(long) * n);
#pragma acc serial loop copyin(f[0:n]) copyout(g[0:n])
  for (int i = 0; i < n; i++)
    g[i] = f[i] * 2;

  long p = 1, q = 1;
  for (int i = 0; i < n; i++) {
    long want = i < 2 ? 1 : (p + q) % 1000003;
    if (i >= 2) p = q, q = want;
    if (f[i] != want || g[i] != 2 * want) {
      CHECK(0, "i=%d: f=%ld g=%ld want %ld", i, f[i], g[i], want);
      break;
    }
  }
  free(f), free(g);
  return e2e_finish();
}
