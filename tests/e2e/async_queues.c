/* Async queues that depend on each other: `wait(1) async(2)` on a compute construct, the
 * wait directive with a list and an async queue (queue 3 waits for 1 and 2 without blocking
 * the host), acc_wait_async, a reduction on a queue read after the wait, the default queue
 * (a bare `async`, acc_async_noval, acc_set_default_async), queue numbers as expressions, a
 * data construct and a kernels construct on a queue, and the host fallback (if(0)) of an
 * async construct running in the queue's order. On the GPU each dependence is an event
 * between streams: a missing one shows as stale values. */
#include <openacc.h>
#define E2E_NAME "async_queues"
#include "e2e.h"

static void expect(const char *what, const long *got, int n, long (*want)(int)) {
  for (int i = 0; i < n; i++)
    if (got[i] != want(i)) {
      CHECK(0, "%s: [%d] is %ld, want %ld", what, i, got[i], want(i));
      return;
    }
}

static long n_global;
static long y_reversed(int i) { return 3L * (n_global - 1 - i) + 1; }
static long x_second(int i) { return 3L * i + 1; }
static long y_second(int i) { return 2 * x_second(i) + y_reversed(i); }
static long x_default(int i) { return x_second(i) + 10; }
static long x_seven(int i) { return x_default(i) * 2; }
static long z_final(int i) { return i + 1 + (i == 0 ? 100 : 0); }

int main(void) {
  int n = 1 << 16;
  n_global = n;
  long *x = e2e_alloc(sizeof(long) * n), *y = e2e_alloc(sizeof(long) * n);
  long *z = e2e_alloc(sizeof(long) * n);
  for (int i = 0; i < n; i++) x[i] = y[i] = -1, z[i] = i;

#pragma acc data create(x[0:n], y[0:n])
  {
    /* Queue 2 reads what queue 1 wrote, through the wait clause. */
#pragma acc parallel loop present(x[0:n]) async(1)
    for (int i = 0; i < n; i++) x[i] = 3L * i;
#pragma acc parallel loop present(x[0:n], y[0:n]) async(2) wait(1)
    for (int i = 0; i < n; i++) y[i] = x[n - 1 - i] + 1;
#pragma acc update self(y[0:n]) async(2)
#pragma acc wait(2)
    expect("y on queue 2 after wait(1)", y, n, y_reversed);

    /* Queue 3 waits for queues 1 and 2 (the host does not). */
#pragma acc parallel loop present(x[0:n]) async(1)
    for (int i = 0; i < n; i++) x[i] += 1;
#pragma acc wait(1, 2) async(3)
#pragma acc parallel loop present(x[0:n], y[0:n]) async(3)
    for (int i = 0; i < n; i++) y[i] += 2 * x[i];
#pragma acc update self(x[0:n], y[0:n]) async(3)
#pragma acc wait
    expect("x after wait(1, 2) async(3)", x, n, x_second);
    expect("y after wait(1, 2) async(3)", y, n, y_second);
    CHECK(acc_async_test_all() != 0, "acc_async_test_all after wait");

    /* A reduction on a queue: its result is there after the wait. */
    long sum = 0;
#pragma acc parallel loop present(y[0:n]) reduction(+:sum) async(4)
    for (int i = 0; i < n; i++) sum += y[i] - 2 * x_second(i);
#pragma acc wait(4)
    long want = 0;
    for (int i = 0; i < n; i++) want += y_reversed(i);
    CHECK(sum == want, "reduction on queue 4: %ld, want %ld", sum, want);

    /* The default queue: a bare async and acc_async_noval are one queue; acc_wait_async
     * makes queue 5 wait for it. Queue numbers may be expressions. */
    int q = 2;
#pragma acc parallel loop present(x[0:n]) async
    for (int i = 0; i < n; i++) x[i] += 4;
#pragma acc parallel loop present(x[0:n]) async(acc_async_noval)
    for (int i = 0; i < n; i++) x[i] += 6;
    acc_wait_async(acc_async_noval, 5);
#pragma acc update self(x[0:n]) async(q * 2 + 1)
    acc_wait(5);
    expect("x on the default queue, then queue 5", x, n, x_default);

    /* acc_set_default_async: a bare async now means queue 7. */
    acc_set_default_async(q + 5);
    CHECK(acc_get_default_async() == 7, "acc_get_default_async() is %d", acc_get_default_async());
#pragma acc parallel loop present(x[0:n]) async
    for (int i = 0; i < n; i++) x[i] *= 2;
#pragma acc update self(x[0:n]) async(7)
#pragma acc wait(q + 5)
    expect("x on queue 7 as the default queue", x, n, x_seven);
    acc_set_default_async(acc_async_default);
    CHECK(acc_get_default_async() == acc_async_noval, "default queue not restored");

    /* if(0): the host runs the region after the queue's earlier work. */
#pragma acc parallel loop present(x[0:n]) async(6)
    for (int i = 0; i < n; i++) x[i] += 1;
#pragma acc update self(x[0:n]) async(6)
    int on_device = 0;
#pragma acc parallel loop async(6) if(on_device)
    for (int i = 0; i < n; i++) x[i] -= 1;
    acc_wait(6);
    expect("x after the host fallback on queue 6", x, n, x_seven);
  }

  /* A data construct and a kernels construct on queue 8: copyin, two launches, one serial
   * region and the copy-out all in the queue's order. */
#pragma acc data copy(z[0:n]) async(8)
  {
#pragma acc kernels async(8)
    {
#pragma acc loop independent
      for (int i = 0; i < n; i++) z[i] += 1;
    }
#pragma acc serial present(z[0:n]) async(8)
    z[0] += 100;
  }
#pragma acc wait(8)
  expect("z after data async(8)", z, n, z_final);
  CHECK(acc_async_test(8) != 0, "acc_async_test(8) after wait(8)");
  free(x), free(y), free(z);
  return e2e_finish();
}
