/* Arrays of run-time size declared inside a region with a size computed there (it changes
 * per gang iteration), shared by the lanes of a gang (a vector loop fills the array, a
 * vector reduction reads other lanes' elements backwards) or of a worker (declared in a
 * worker loop's body): one copy per gang or per worker from the device heap, allocated at
 * the declaration and freed at the end of the scope (codegen/src/privatize.rs). Was "not
 * supported yet". Odd sizes, every result checked; the gang loop runs more iterations than
 * gangs in flight, so the heap is reused. */
#define E2E_NAME "vla_shared"
#include "e2e.h"

enum { N = 1301, W = 3 };

int main(void) {
  double *out = e2e_alloc(sizeof(double) * N);
  long *out2 = e2e_alloc(sizeof(long) * N * W);
#pragma acc parallel loop gang copyout(out[0:N])
  for (int j = 0; j < N; j++) {
    int m = j % 37 + 40;
    double t[m];
#pragma acc loop vector
    for (int k = 0; k < m; k++) t[k] = k + j;
    double s = 0;
#pragma acc loop vector reduction(+:s)
    for (int k = 0; k < m; k++) s += t[m - 1 - k] * (k % 3);
    out[j] = s + t[m / 2];
  }
#pragma acc parallel loop gang num_workers(W) vector_length(32) copyout(out2[0:N * W])
  for (int j = 0; j < N; j++) {
#pragma acc loop worker
    for (int w = 0; w < W; w++) {
      int m = (j + w) % 29 + 33;
      long t[m];
#pragma acc loop vector
      for (int k = 0; k < m; k++) t[k] = 1000L * w + k + j;
      long s = 0;
#pragma acc loop vector reduction(+:s)
      for (int k = 0; k < m; k++) s += t[m - 1 - k] * (k & 1);
      out2[j * W + w] = s;
    }
  }
  for (int j = 0; j < N; j++) {
    int m = j % 37 + 40;
    double s = 0;
    for (int k = 0; k < m; k++) s += (double)(m - 1 - k + j) * (k % 3);
    s += m / 2 + j;
    CHECK(out[j] == s, "gang: out[%d] = %g, want %g", j, out[j], s);
    for (int w = 0; w < W; w++) {
      int m2 = (j + w) % 29 + 33;
      long s2 = 0;
      for (int k = 0; k < m2; k++) s2 += (1000L * w + m2 - 1 - k + j) * (k & 1);
      CHECK(out2[j * W + w] == s2, "worker: out2[%d][%d] = %ld, want %ld", j, w, out2[j * W + w], s2);
    }
  }
  free(out);
  free(out2);
  return e2e_finish();
}
