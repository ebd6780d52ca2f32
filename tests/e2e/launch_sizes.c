/* Odd launch sizes (num_gangs(3) vector_length(33), num_workers(3)), a request that must
 * be clamped (vector_length(2048) > 1024 threads per block) and a kernels nest sized by its
 * inner loops' run-time values: results must stay right. */
#define E2E_NAME "launch_sizes"
#include "e2e.h"

int main(void) {
  int n = 100003;
  int *a = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) a[i] = 0;

#pragma acc parallel loop num_gangs(3) vector_length(33) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] += 1;

#pragma acc parallel loop vector_length(2048) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] += 10;

#pragma acc parallel loop gang worker vector num_gangs(1) num_workers(3) vector_length(1) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] += 100;

  int g = 2, v = 64;
#pragma acc parallel loop num_gangs(g) vector_length(v) copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] += 1000;

  /* A kernels nest sized by its inner loop's run-time values (computed again before the
   * construct): 3 workers of 96 lanes, rows that lanes and workers share. */
  int w = 3, vl = 3 * 32;
#pragma acc kernels copy(a[0:n])
  {
#pragma acc loop independent gang
    for (int j = 0; j < 7; j++) {
#pragma acc loop independent worker(num: w)
      for (int k = 0; k < 5; k++) {
#pragma acc loop independent vector(length: vl)
        for (int i = j * 5 + k; i < n; i += 35) a[i] += 10000;
      }
    }
  }

  for (int i = 0; i < n; i++)
    if (a[i] != 11111) {
      CHECK(0, "a[%d]=%d want 11111 (each loop must touch every element exactly once)", i, a[i]);
      break;
    }
  free(a);
  return e2e_finish();
}
