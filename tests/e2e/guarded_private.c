/* Execution model: single-mode code (one lane runs it, the others get its results) that
 * updates the thread's own copy of a variable between two accesses to shared memory. The
 * update sits inside the guarded group, so lane 0 alone makes it; every lane's copy must
 * still see it, because the copies are combined (here: a redundant gang- or worker-level
 * reduction copy of an array, whose elements different lanes hand to the combine).
 * Found by accfuzz seed 1213 (lost gang-level updates of hist[3]). */
#define E2E_NAME "guarded_private"
#include "e2e.h"

#define N 37
#define W 9
#define M 5

int main(void) {
  long *g = e2e_alloc(sizeof(long) * N), *gw = e2e_alloc(sizeof(long) * N * W);
  for (int i = 0; i < N; i++) g[i] = i * 7 % 11 - 3;
  for (int i = 0; i < N * W; i++) gw[i] = i % 13 - 6;

  /* Worker-single (gang-redundant) code: one lane per gang. */
  signed char hist[M] = {8, 18, 12, 2, 9};
#pragma acc parallel num_gangs(5) vector_length(33) reduction(+:hist[0:M]) copy(g[0:N])
  {
#pragma acc loop gang reduction(+:hist[0:M])
    for (int i = 0; i < N; i++) {
#pragma acc loop vector
      for (int p = 0; p < 1; p++) hist[M - 1 - p] = 1 + hist[M - 1 - p];
      hist[3] += (signed char)g[i]; /* between the read of g[i] ... */
      hist[i % 3] += 2;
      g[i] = 5 + i; /* ... and its write */
    }
  }
  signed char want[M] = {8, 18, 12, 2, 9};
  for (int i = 0; i < N; i++) {
    want[M - 1] += 1;
    want[3] += (signed char)(i * 7 % 11 - 3);
    want[i % 3] += 2;
  }
  for (int e = 0; e < M; e++) CHECK(hist[e] == want[e], "worker-single: hist[%d] = %d, want %d", e, hist[e], want[e]);
  for (int i = 0; i < N; i++) CHECK(g[i] == 5 + i, "g[%d] = %ld", i, g[i]);

  /* Vector-single code: one lane per worker. */
  int acc[3] = {1, 2, 3};
#pragma acc parallel num_gangs(4) num_workers(3) vector_length(17) copy(gw[0:N*W], acc[0:3])
  {
#pragma acc loop gang worker collapse(2) reduction(+:acc[0:3])
    for (int i = 0; i < N; i++)
      for (int k = 0; k < W; k++) {
        int t = 0;
#pragma acc loop vector reduction(+:t)
        for (int j = 0; j < 7; j++) t += j;
        acc[1] += (int)gw[i * W + k] + t;
        acc[(i + k) % 3] -= 1;
        gw[i * W + k] = -1;
      }
  }
  int wa[3] = {1, 2, 3};
  for (int i = 0; i < N; i++)
    for (int k = 0; k < W; k++) {
      wa[1] += (int)((i * W + k) % 13 - 6) + 21;
      wa[(i + k) % 3] -= 1;
    }
  for (int e = 0; e < 3; e++) CHECK(acc[e] == wa[e], "vector-single: acc[%d] = %d, want %d", e, acc[e], wa[e]);
  for (int i = 0; i < N * W; i++) CHECK(gw[i] == -1, "gw[%d] = %ld", i, gw[i]);
  free(g); free(gw);
  return e2e_finish();
}
