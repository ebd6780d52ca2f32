/* A block that an async exit releases is handed out again (data blocks come from a pool,
 * runtime pool.rs) only once no queue can still use it. On the GPU the release waits for the
 * busy streams' events; on the emulator, which holds a queue's copies until the queue is
 * drained (emu_queue.rs), until nothing is held. Here queue 1's copy-out of `a` is still
 * pending when `c`, of the same size, is entered on queue 2 and written by a kernel there:
 * had `c` got `a`'s block, `a` would come back holding `c`'s values. Odd sizes, every
 * element checked, several rounds (the pool keeps the blocks between them). */
#define E2E_NAME "async_block_reuse"
#include "e2e.h"

enum { N = 4099, ROUNDS = 3 };

int main(void) {
  static double a[N], c[N];
  for (int r = 0; r < ROUNDS; r++) {
    for (int i = 0; i < N; i++) a[i] = i + r, c[i] = -1.0 - i;
#pragma acc enter data copyin(a[0:N])
#pragma acc parallel loop present(a[0:N]) async(1)
    for (int i = 0; i < N; i++) a[i] = 2 * a[i] + 1;
#pragma acc exit data copyout(a[0:N]) async(1)
#pragma acc enter data copyin(c[0:N]) async(2)
#pragma acc parallel loop present(c[0:N]) async(2)
    for (int i = 0; i < N; i++) c[i] = 3 * c[i];
#pragma acc exit data copyout(c[0:N]) async(2)
#pragma acc wait
    long bad_a = 0, bad_c = 0, first = -1;
    for (int i = 0; i < N; i++) {
      if (a[i] != 2.0 * (i + r) + 1) bad_a++, first = first < 0 ? i : first;
      bad_c += c[i] != -3.0 * (1 + i);
    }
    CHECK(bad_a == 0, "round %d: %ld elements of a wrong, first a[%ld] = %g, want %g", r, bad_a, first,
          first < 0 ? 0.0 : a[first], first < 0 ? 0.0 : 2.0 * (first + r) + 1);
    CHECK(bad_c == 0, "round %d: %ld elements of c wrong", r, bad_c);
  }
  return e2e_finish();
}
