/* Execution model, item 3: gang-redundant code loads a value, single-lane code stores it
 * back changed, and the old value is carried into the following vector loop. Every lane
 * must see the value lane 0 loaded (a broadcast), not what memory holds after its store. */
#define E2E_NAME "broadcast"
#include "e2e.h"

#define N 41
#define M 23

int main(void) {
  int *c = e2e_alloc(sizeof(int) * N), *out = e2e_alloc(sizeof(int) * N * M);
  for (int i = 0; i < N; i++) c[i] = 3 * i + 1;
  for (int i = 0; i < N * M; i++) out[i] = -1;
#pragma acc parallel loop gang num_workers(2) vector_length(64) copy(c[0:N], out[0:N*M])
  for (int i = 0; i < N; i++) {
    int t = c[i];
    c[i] = t * 2;
    int u = c[i] + 5; /* reads lane 0's store: every lane must see 2t */
#pragma acc loop vector
    for (int j = 0; j < M; j++) out[i * M + j] = t * 1000 + u + j;
  }
  for (int i = 0; i < N; i++) {
    int t = 3 * i + 1;
    CHECK(c[i] == 2 * t, "c[%d] = %d", i, c[i]);
    for (int j = 0; j < M; j++)
      CHECK(out[i * M + j] == t * 1000 + 2 * t + 5 + j, "out[%d][%d] = %d", i, j, out[i * M + j]);
  }
  free(c); free(out);
  return e2e_finish();
}
