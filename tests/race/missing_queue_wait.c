/* A missing wait between two queues on purpose, for scripts/emulator-selfcheck: a kernel on
 * queue 2 reads what a kernel on queue 1 writes, without `wait(1)` on its construct. On the
 * GPU the two kernels may run in either order or at once; the emulator holds each queue's
 * kernels until the queue is waited for (runtime emu_queue.rs), and the program waits for
 * queue 2 first, so queue 2's kernel must read the values from before queue 1's, or a
 * program that forgets the wait clause passes. */
#define E2E_NAME "missing_queue_wait"
#include "../e2e/e2e.h"

enum { N = 1001 };

int main(void) {
  static int a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = -1, b[i] = 0;
#pragma acc data copyin(a[0:N]) copyout(b[0:N])
  {
#pragma acc parallel loop present(a) async(1)
    for (int i = 0; i < N; i++) a[i] = i * 3;
    /* No wait(1) on this construct. */
#pragma acc parallel loop present(a, b) async(2)
    for (int i = 0; i < N; i++) b[i] = a[i] + 1;
#pragma acc wait(2)
#pragma acc wait(1)
  }
  long bad = 0;
  for (int i = 0; i < N; i++) bad += b[i] != i * 3 + 1;
  CHECK(bad == 0, "%ld of %d elements read a before queue 1 wrote it (the missing wait is visible)", bad, (int)N);
  return e2e_finish();
}
