/* Per-thread private copies of a large section on the GPU: `parallel loop gang vector
 * private(t[0:N])` with 800 KB per thread would need about 216 GB for one wave of gangs on
 * an H100/H200. The runtime lowers the gang count it chose until the private area fits in
 * half the free memory (runtime/src/private_area.rs `gangs_that_fit`); the loop strides over
 * the gangs it gets. Was: the launch failed for lack of device memory. Every element
 * checked; each thread's copy is written and read back at two places. */
#define E2E_NAME "private_area_fit_gpu"
#include "../e2e/e2e.h"

enum { N = 100000, M = 1000003 };

int main(void) {
  double *t = malloc(sizeof(double) * N);
  long *out = malloc(sizeof(long) * M);
  t[0] = -1;
#pragma acc parallel loop gang vector private(t[0:N]) copyout(out[0:M])
  for (int i = 0; i < M; i++) {
    t[i % N] = i;
    t[N - 1 - i % 7] = 2 * i;
    out[i] = (long)t[i % N] + (long)t[N - 1 - i % 7];
  }
  for (int i = 0; i < M; i++) {
    long want = (i % N == N - 1 - i % 7) ? 4L * i : 3L * i;
    CHECK(out[i] == want, "out[%d] = %ld, want %ld", i, out[i], want);
  }
  CHECK(t[0] == -1, "the host's t changed");
  free(t), free(out);
  return e2e_finish();
}
