/* Execution model, item 1: two loops of one gang iteration that communicate through
 * memory. The second vector (and worker) loop reads elements other lanes wrote in the
 * first, so the lanes must synchronise between the loops. Odd sizes everywhere. */
#define E2E_NAME "sync_vector_loops"
#include "e2e.h"

#define N 37
#define M 45

int main(void) {
  int *a = e2e_alloc(sizeof(int) * N * M), *b = e2e_alloc(sizeof(int) * N * M);
  int *w = e2e_alloc(sizeof(int) * N * 7), *z = e2e_alloc(sizeof(int) * N * 7);
  for (int i = 0; i < N * M; i++) a[i] = b[i] = -1;
  for (int i = 0; i < N * 7; i++) w[i] = z[i] = -1;

  /* vector -> vector, reversed and rotated reads */
#pragma acc parallel loop gang vector_length(32) copy(a[0:N*M], b[0:N*M])
  for (int i = 0; i < N; i++) {
#pragma acc loop vector
    for (int j = 0; j < M; j++) a[i * M + j] = i * 100 + j;
#pragma acc loop vector
    for (int j = 0; j < M; j++) b[i * M + j] = a[i * M + (M - 1 - j)] + a[i * M + (j + 1) % M];
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      CHECK(b[i * M + j] == 2 * i * 100 + (M - 1 - j) + (j + 1) % M, "vector b[%d][%d] = %d", i, j, b[i * M + j]);

  /* worker -> worker across workers, with vector loops inside */
#pragma acc parallel num_gangs(5) num_workers(3) vector_length(33) copy(w[0:N*7], z[0:N*7])
  {
#pragma acc loop gang
    for (int i = 0; i < N; i++) {
#pragma acc loop worker
      for (int k = 0; k < 7; k++) {
#pragma acc loop vector
        for (int j = 0; j < 1; j++) w[i * 7 + k] = i + 10 * k;
      }
#pragma acc loop worker
      for (int k = 0; k < 7; k++) z[i * 7 + k] = w[i * 7 + (6 - k)] * 2;
    }
  }
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 7; k++)
      CHECK(z[i * 7 + k] == 2 * (i + 10 * (6 - k)), "worker z[%d][%d] = %d", i, k, z[i * 7 + k]);
  free(a); free(b); free(w); free(z);
  return e2e_finish();
}
