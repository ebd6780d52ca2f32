/* Execution model, item 5: `private(arr)` on a gang loop is one copy per gang, shared by its
 * workers and vector lanes (lanes write it in one vector loop and read other lanes' elements
 * in the next); an array declared in a gang loop's body is the same by C scoping; on a
 * vector loop `private` is one copy per thread. A gang loop with no partitioned loop inside is
 * spread over the gang's workers and lanes too, so its private array is then one copy per
 * thread (fuzz seed 65: a shared copy raced). Odd sizes, several gangs and workers. */
#define E2E_NAME "gang_private"
#include "e2e.h"

#define N 19
#define M 37

int main(void) {
  int *out = e2e_alloc(sizeof(int) * N * M), *out2 = e2e_alloc(sizeof(int) * N * M), *out3 = e2e_alloc(sizeof(int) * N * M);
  int row[M];
  for (int i = 0; i < N * M; i++) out[i] = out2[i] = out3[i] = -1;

#pragma acc parallel loop gang private(row) num_gangs(4) vector_length(32) copy(out[0:N*M])
  for (int i = 0; i < N; i++) {
#pragma acc loop vector
    for (int j = 0; j < M; j++) row[j] = i * 7 + j;
#pragma acc loop vector
    for (int j = 0; j < M; j++) out[i * M + j] = row[M - 1 - j] + row[(j + 3) % M];
  }

#pragma acc parallel num_gangs(3) num_workers(2) vector_length(64) copy(out2[0:N*M])
  {
#pragma acc loop gang
    for (int i = 0; i < N; i++) {
      int tmp[M]; /* declared in the gang loop's body: one per gang */
      tmp[0] = i;  /* worker-single */
#pragma acc loop vector
      for (int j = 1; j < M; j++) tmp[j] = i + j * j;
#pragma acc loop vector
      for (int j = 0; j < M; j++) out2[i * M + j] = tmp[(j * 5) % M] - tmp[0];
    }
  }

  /* `private` on a gang loop inside a `parallel` construct, of an array declared outside it. */
  int *out4 = e2e_alloc(sizeof(int) * N * M);
  int row2[M];
  for (int i = 0; i < N * M; i++) out4[i] = -1;
#pragma acc parallel num_gangs(2) num_workers(3) vector_length(33) copy(out4[0:N*M])
  {
#pragma acc loop gang private(row2)
    for (int i = 0; i < N; i++) {
#pragma acc loop vector
      for (int j = 0; j < M; j++) row2[j] = i * 3 + j;
#pragma acc loop worker
      for (int j = 0; j < M; j++) out4[i * M + j] = row2[(j + 5) % M] * 2;
    }
  }

  int scratch[4];
#pragma acc parallel loop gang vector_length(32) copy(out3[0:N*M])
  for (int i = 0; i < N; i++) {
#pragma acc loop vector private(scratch)
    for (int j = 0; j < M; j++) {
      for (int q = 0; q < 4; q++) scratch[q] = i + j + q; /* every lane its own copy */
      out3[i * M + j] = scratch[0] + scratch[3];
    }
  }

  /* `private` on a gang loop (collapsed) with no loop inside it: every iteration fills and
   * reads its own copy while the gang's other threads run other iterations. */
  int *out5 = e2e_alloc(sizeof(int) * N * M);
  int tri[5];
#pragma acc parallel loop gang collapse(2) private(tri) num_gangs(3) vector_length(32) copy(out5[0:N*M])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      for (int q = 0; q < 5; q++) tri[q] = i * 100 + j + q;
      out5[i * M + j] = tri[(i + j) % 5] + tri[4] - tri[0];
    }

  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      CHECK(out5[i * M + j] == i * 100 + j + (i + j) % 5 + 4, "out5[%d][%d] = %d", i, j, out5[i * M + j]);
      CHECK(out[i * M + j] == (i * 7 + M - 1 - j) + (i * 7 + (j + 3) % M), "out[%d][%d] = %d", i, j, out[i * M + j]);
      int k = (j * 5) % M;
      int want2 = (k == 0 ? i : i + k * k) - i;
      CHECK(out2[i * M + j] == want2, "out2[%d][%d] = %d, want %d", i, j, out2[i * M + j], want2);
      CHECK(out3[i * M + j] == 2 * (i + j) + 3, "out3[%d][%d] = %d", i, j, out3[i * M + j]);
      CHECK(out4[i * M + j] == 2 * (i * 3 + (j + 5) % M), "out4[%d][%d] = %d", i, j, out4[i * M + j]);
    }
  free(out); free(out2); free(out3); free(out4); free(out5);
  return e2e_finish();
}
