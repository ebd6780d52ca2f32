/* A local array declared inside the loop body is private to each iteration. */
#define E2E_NAME "private_array"
#include "e2e.h"

int main(void) {
  int n = 65537;
  int *out = e2e_alloc(sizeof(int) * n);

#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    int tmp[8];
    for (int j = 0; j < 8; j++) tmp[j] = i + j;
    int s = 0;
    for (int j = 7; j >= 0; j--) s = s * 3 + (tmp[j] & 15);
    out[i] = s;
  }

  for (int i = 0; i < n; i++) {
    int s = 0;
    for (int j = 7; j >= 0; j--) s = s * 3 + ((i + j) & 15);
    if (out[i] != s) {
      CHECK(0, "out[%d]=%d want %d", i, out[i], s);
      break;
    }
  }
  free(out);
  return e2e_finish();
}
