// Side effects outside a vector loop run once per gang (vector-single), not once per lane.
#include <stdio.h>
#define N 37
#define M 1001
static float b[N][M];
static int hits[N];
int main(void) {
  for (int i = 0; i < N; i++) hits[i] = 0;
#pragma acc parallel loop gang copy(hits[0:N]) copyout(b)
  for (int i = 0; i < N; i++) {
    hits[i] += 1;              /* must happen exactly once per i */
#pragma acc loop vector
    for (int j = 0; j < M; j++) b[i][j] = hits[i] + j;
  }
  for (int i = 0; i < N; i++) {
    if (hits[i] != 1) { printf("FAIL redundant_store: hits[%d] = %d\n", i, hits[i]); return 1; }
    for (int j = 0; j < M; j++)
      if (b[i][j] != 1.0f + j) { printf("FAIL redundant_store: b[%d][%d] = %g\n", i, j, b[i][j]); return 1; }
  }
  printf("PASS redundant_store\n");
  return 0;
}
