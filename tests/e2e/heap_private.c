/* Private arrays that lanes share beyond shared memory's budget (40 KiB per kernel), brought
 * in by inlining routines (the region's own go to the launch's private area): a gang's copy
 * of a 48 KiB array of a `worker` routine, and per-worker copies of a 3.2 KiB array of a
 * `vector` routine called from a worker loop (16 worker slots: 51 KiB). They live on the
 * device heap, one block per gang, allocated when the gang starts and freed at its end
 * (codegen/src/privatize.rs relocate). Was "not supported yet". Every result checked. */
#define E2E_NAME "heap_private"
#include "e2e.h"

enum { G = 37, M = 6001, W = 3, R = 401 };

#pragma acc routine worker
static double gang_work(int j) {
  double t[M];
  double s = 0;
#pragma acc loop worker vector
  for (int k = 0; k < M; k++) t[k] = j + k;
#pragma acc loop worker vector reduction(+:s)
  for (int k = 0; k < M; k++) s += t[M - 1 - k] * (k % 3);
  return s;
}

#pragma acc routine vector
static long worker_work(int j, int w) {
  long t[R];
  long s = 0;
#pragma acc loop vector
  for (int k = 0; k < R; k++) t[k] = 100L * w + k + j;
#pragma acc loop vector reduction(+:s)
  for (int k = 0; k < R; k++) s += t[R - 1 - k] * (k & 1);
  return s;
}

int main(void) {
  double *out = e2e_alloc(sizeof(double) * G);
  long *out2 = e2e_alloc(sizeof(long) * G * W);
#pragma acc parallel loop gang num_workers(2) vector_length(64) copyout(out[0:G])
  for (int j = 0; j < G; j++) out[j] = gang_work(j);
#pragma acc parallel loop gang num_workers(W) vector_length(32) copyout(out2[0:G * W])
  for (int j = 0; j < G; j++) {
#pragma acc loop worker
    for (int w = 0; w < W; w++) out2[j * W + w] = worker_work(j, w);
  }
  for (int j = 0; j < G; j++) {
    double s = 0;
    for (int k = 0; k < M; k++) s += (double)(j + M - 1 - k) * (k % 3);
    CHECK(out[j] == s, "gang: out[%d] = %g, want %g", j, out[j], s);
    for (int w = 0; w < W; w++) {
      long s2 = 0;
      for (int k = 0; k < R; k++) s2 += (100L * w + R - 1 - k + j) * (k & 1);
      CHECK(out2[j * W + w] == s2, "worker: out2[%d][%d] = %ld, want %ld", j, w, out2[j * W + w], s2);
    }
  }
  free(out);
  free(out2);
  return e2e_finish();
}
