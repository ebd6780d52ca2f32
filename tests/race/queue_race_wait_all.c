/* Two queues racing on purpose, for scripts/emulator-selfcheck: in each round a kernel on
 * queue 2 reads what a kernel on queue 1 writes, without `wait(1)` on its construct, and the
 * program then waits for every queue at once. On the GPU the kernels may run in either
 * order or together; the emulator runs the queues a wait for all of them drains in the
 * schedule's order (runtime emu_queue.rs: random, a fresh order per drain), so under the
 * random schedule some round must read the values from before queue 1's kernel. Every
 * round's result is checked. */
#define E2E_NAME "queue_race_wait_all"
#include "../e2e/e2e.h"

enum { N = 1001, ROUNDS = 12 };

int main(void) {
  static int a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = 0, b[i] = 0;
  long stale = 0;
#pragma acc data copyin(a[0:N]) create(b[0:N])
  for (int r = 1; r <= ROUNDS; r++) {
#pragma acc parallel loop present(a) async(1)
    for (int i = 0; i < N; i++) a[i] = r * 1000 + i;
    /* No wait(1) on this construct. */
#pragma acc parallel loop present(a, b) async(2)
    for (int i = 0; i < N; i++) b[i] = a[i] + 1;
#pragma acc wait
#pragma acc update self(b[0:N])
    for (int i = 0; i < N; i++) stale += b[i] != r * 1000 + i + 1;
  }
  CHECK(stale == 0, "%ld elements over %d rounds read a before queue 1 wrote it (the race is visible)", stale, (int)ROUNDS);
  return e2e_finish();
}
