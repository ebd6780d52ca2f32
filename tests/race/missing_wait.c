/* A missing wait on purpose, for scripts/emulator-selfcheck: the host reads what an async
 * copy-out and an async reduction deliver without waiting for their queue. On the GPU the
 * bytes may not have landed yet; the emulator holds a queue's copies until a wait, a test,
 * a kernel on the queue or a synchronous operation (runtime emu_queue.rs), so the reads
 * below must see the old values there, or a program that forgets `wait` passes. */
#define E2E_NAME "missing_wait"
#include "../e2e/e2e.h"

enum { N = 1001 };

int main(void) {
  static int a[N];
  long sum = 0;
  for (int i = 0; i < N; i++) a[i] = -1;
#pragma acc parallel loop copyout(a[0:N]) async(1)
  for (int i = 0; i < N; i++) a[i] = i * 3;
#pragma acc parallel loop reduction(+ : sum) async(2)
  for (int i = 0; i < N; i++) sum += i;
  /* No '#pragma acc wait' here. */
  long bad = 0;
  for (int i = 0; i < N; i++) bad += a[i] != i * 3;
  CHECK(bad == 0, "%ld of %d elements not copied out yet (the missing wait is visible)", bad, (int)N);
  CHECK(sum == (long)N * (N - 1) / 2, "sum = %ld before the wait (the missing wait is visible)", sum);
#pragma acc wait
  return e2e_finish();
}
