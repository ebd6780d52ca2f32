/* Execution model, item 2: in a `loop worker` body, vector-single code stores a value that
 * the same worker's `loop vector` then reads. Workers are independent: only the worker's
 * own lanes synchronise. Several gangs, odd worker and vector counts. */
#define E2E_NAME "worker_single"
#include "e2e.h"

#define N 13
#define W 11
#define M 29

int main(void) {
  int *head = e2e_alloc(sizeof(int) * N * W), *out = e2e_alloc(sizeof(int) * N * W * M);
  for (int i = 0; i < N * W; i++) head[i] = i % 17;
  for (int i = 0; i < N * W * M; i++) out[i] = -1;
#pragma acc parallel num_gangs(3) num_workers(4) vector_length(7) copy(head[0:N*W], out[0:N*W*M])
  {
#pragma acc loop gang
    for (int i = 0; i < N; i++) {
#pragma acc loop worker
      for (int k = 0; k < W; k++) {
        head[i * W + k] = head[i * W + k] * 3 + k; /* vector-single, not idempotent */
#pragma acc loop vector
        for (int j = 0; j < M; j++) out[(i * W + k) * M + j] = head[i * W + k] + j;
        head[i * W + k] += 1; /* after the lanes read it */
      }
    }
  }
  for (int i = 0; i < N; i++)
    for (int k = 0; k < W; k++) {
      int h = ((i * W + k) % 17) * 3 + k;
      CHECK(head[i * W + k] == h + 1, "head[%d][%d] = %d", i, k, head[i * W + k]);
      for (int j = 0; j < M; j++)
        CHECK(out[(i * W + k) * M + j] == h + j, "out[%d][%d][%d] = %d", i, k, j, out[(i * W + k) * M + j]);
    }
  free(head); free(out);
  return e2e_finish();
}
