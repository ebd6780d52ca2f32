/* Gang reductions on async queues (OpenACC 3.3 §2.16, §2.5.15): each queue has a reduction
 * scratch buffer of its own, so kernels with gang reductions on different queues may run
 * at once and their launches do not make the host wait; each result reaches its variable
 * in its queue's order (after the kernel) and is checked only after a wait. Several kernels
 * per queue reuse its buffer: one with three reduction variables, one with more gangs (a
 * bigger buffer), a whole-array reduction (a larger copy-back). The host computes the expected values while the queues run.
 *
 * The emulator runs each queue's work before the launch returns, so it checks results and
 * order; tests/gpu/async_reduction_gpu.c checks the overlap on the GPU. */
#define E2E_NAME "async_reduction"
#include "e2e.h"
#include <openacc.h>

#define QUEUES 4
#define STR(x) #x
#define PRAGMA(x) _Pragma(STR(x))

/* Each queue's results, in variables of their own (reductions take variables). */
#define RESULTS(Q)                                                                         \
  static double sum##Q = Q, big##Q = -1e300;                                                 \
  static long isum##Q, imax##Q = -1, count##Q, hist##Q[16];                                  \
  static int all_pos##Q = 1;
RESULTS(0)
RESULTS(1)
RESULTS(2)
RESULTS(3)

/* Queue Q's kernels over x[lo:hi), k[lo:hi). */
#define KERNELS(Q)                                                                         \
  do {                                                                                     \
    int lo = Q * 1000, hi = n - Q * 333;                                                   \
    /* One reduction variable. */                                                          \
    PRAGMA(acc parallel loop reduction(+:sum##Q) async(Q))                                 \
    for (int i = lo; i < hi; i++) sum##Q += x[i] * (Q + 1);                                \
    /* Three on the same queue: its buffer, counters left zero by the first. */            \
    PRAGMA(acc parallel loop reduction(max:big##Q) reduction(+:isum##Q) reduction(max:imax##Q) async(Q)) \
    for (int i = lo; i < hi; i++) {                                                        \
      big##Q = fmax(big##Q, x[i] + Q);                                                     \
      isum##Q += k[i];                                                                     \
      imax##Q = k[i] > imax##Q ? k[i] : imax##Q;                                           \
    }                                                                                      \
    /* More gangs than the first kernels' buffer holds. */                                 \
    PRAGMA(acc parallel loop num_gangs(300 + 50 * Q) vector_length(64) reduction(+:count##Q) reduction(&&:all_pos##Q) async(Q)) \
    for (int i = lo; i < hi; i++) {                                                        \
      count##Q += k[i] % (Q + 2) == 0;                                                     \
      all_pos##Q = all_pos##Q && k[i] >= 0;                                                \
    }                                                                                      \
    /* An array: 128 bytes copied back. */                                                 \
    PRAGMA(acc parallel loop reduction(+:hist##Q) async(Q))                                \
    for (int i = lo; i < hi; i++) hist##Q[k[i] % 16] += 1;                                 \
  } while (0)

int main(void) {
  int n = 100003;
  double *x = e2e_alloc(sizeof(double) * n);
  int *k = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    x[i] = (i % 97) * 0.25 - 7;
    k[i] = (i * 7919) % 1009;
  }
#pragma acc enter data copyin(x[0:n], k[0:n])
  KERNELS(0);
  KERNELS(1);
  KERNELS(2);
  KERNELS(3);
  /* The host works meanwhile: the expected values. */
  double want_sum[QUEUES], want_big[QUEUES];
  long want_isum[QUEUES], want_imax[QUEUES], want_count[QUEUES], want_hist[QUEUES][16];
  for (int q = 0; q < QUEUES; q++) {
    int lo = q * 1000, hi = n - q * 333;
    want_sum[q] = q, want_big[q] = -1e300, want_isum[q] = 0, want_imax[q] = -1, want_count[q] = 0;
    for (int b = 0; b < 16; b++) want_hist[q][b] = 0;
    for (int i = lo; i < hi; i++) {
      want_sum[q] += x[i] * (q + 1);
      want_big[q] = fmax(want_big[q], x[i] + q);
      want_isum[q] += k[i];
      want_imax[q] = k[i] > want_imax[q] ? k[i] : want_imax[q];
      want_count[q] += k[i] % (q + 2) == 0;
      want_hist[q][k[i] % 16] += 1;
    }
  }
  double *sum[] = {&sum0, &sum1, &sum2, &sum3}, *big[] = {&big0, &big1, &big2, &big3};
  long *isum[] = {&isum0, &isum1, &isum2, &isum3}, *imax[] = {&imax0, &imax1, &imax2, &imax3};
  long *count[] = {&count0, &count1, &count2, &count3}, *hist[] = {hist0, hist1, hist2, hist3};
  int *all_pos[] = {&all_pos0, &all_pos1, &all_pos2, &all_pos3};
  /* Queue 0 waited for on its own, the others together (3 waits for 1 and 2 first). */
#pragma acc wait(0)
  CHECK(e2e_close(sum0, want_sum[0], 1e-9), "queue 0: sum %g want %g", sum0, want_sum[0]);
#pragma acc wait(1, 2) async(3)
#pragma acc wait(3)
  for (int q = 0; q < QUEUES; q++) {
    CHECK(e2e_close(*sum[q], want_sum[q], 1e-9), "queue %d: sum %g want %g", q, *sum[q], want_sum[q]);
    CHECK(*big[q] == want_big[q], "queue %d: max %g want %g", q, *big[q], want_big[q]);
    CHECK(*isum[q] == want_isum[q], "queue %d: int sum %ld want %ld", q, *isum[q], want_isum[q]);
    CHECK(*imax[q] == want_imax[q], "queue %d: int max %ld want %ld", q, *imax[q], want_imax[q]);
    CHECK(*count[q] == want_count[q], "queue %d: count %ld want %ld", q, *count[q], want_count[q]);
    CHECK(*all_pos[q] == 1, "queue %d: && gave %d", q, *all_pos[q]);
    for (int b = 0; b < 16; b++) CHECK(hist[q][b] == want_hist[q][b], "queue %d: hist[%d] %ld want %ld", q, b, hist[q][b], want_hist[q][b]);
  }
  /* A synchronous gang reduction after the async ones (the synchronous queue's buffer). */
  double total = 0;
#pragma acc parallel loop reduction(+:total)
  for (int i = 0; i < n; i++) total += x[i];
  double want_total = 0;
  for (int i = 0; i < n; i++) want_total += x[i];
  CHECK(e2e_close(total, want_total, 1e-9), "synchronous: %g want %g", total, want_total);
#pragma acc exit data delete(x[0:n], k[0:n])
  free(x), free(k);
  return e2e_finish();
}
