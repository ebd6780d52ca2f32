/* if(0) runs the region on the host (data clauses ignored); if(1) / if(cond) on the device. */
#define E2E_NAME "if_clause"
#include "e2e.h"

int main(void) {
  int n = 10007;
  int *a = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) a[i] = i;

  /* runs on the host: writes go straight to host memory, even with only copyin */
#pragma acc parallel loop if(0) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = 2 * i;
  for (int i = 0; i < n; i++)
    if (a[i] != 2 * i) {
      CHECK(0, "if(0): a[%d]=%d want %d", i, a[i], 2 * i);
      break;
    }

  int on = n > 5, off = n < 5;
#pragma acc parallel loop if(on) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] += 1;
#pragma acc parallel loop if(off) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] += 10;

  for (int i = 0; i < n; i++)
    if (a[i] != 2 * i + 11) {
      CHECK(0, "if(var): a[%d]=%d want %d", i, a[i], 2 * i + 11);
      break;
    }
  free(a);
  return e2e_finish();
}
