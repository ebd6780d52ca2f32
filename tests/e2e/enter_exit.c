/* Unstructured data: enter data copyin/create, update device, update self, exit data
 * copyout/delete, with compute regions in between using the present data. */
#define E2E_NAME "enter_exit"
#include "e2e.h"

int main(void) {
  int n = 200003;
  int *a = e2e_alloc(sizeof(int) * n), *b = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) a[i] = i, b[i] = -1;

#pragma acc enter data copyin(a[0:n]) create(b[0:n])

#pragma acc parallel loop present(a[0:n], b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = a[i] + 1;

  /* bring b back while it stays on the device */
#pragma acc update self(b[0:n])
  for (int i = 0; i < n; i++)
    if (b[i] != i + 1) {
      CHECK(0, "after update self: b[%d]=%d want %d", i, b[i], i + 1);
      break;
    }

  /* change a on the host and push it */
  for (int i = 0; i < n; i++) a[i] = 3 * i;
#pragma acc update device(a[0:n])

#pragma acc parallel loop present(a[0:n], b[0:n])
  for (int i = 0; i < n; i++)
    b[i] += a[i];

  /* partial update of a sub-range */
#pragma acc update self(b[10:5])
  for (int i = 10; i < 15; i++)
    CHECK(b[i] == 4 * i + 1, "after partial update: b[%d]=%d want %d", i, b[i], 4 * i + 1);

#pragma acc exit data copyout(b[0:n]) delete(a[0:n])

  for (int i = 0; i < n; i++)
    if (b[i] != 4 * i + 1) {
      CHECK(0, "after exit data: b[%d]=%d want %d", i, b[i], 4 * i + 1);
      break;
    }
  free(a), free(b);
  return e2e_finish();
}
