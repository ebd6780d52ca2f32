/* A data race on purpose, for scripts/emulator-selfcheck: every thread adds to one element
 * with a plain read-modify-write (no atomic, no reduction). On the GPU updates are lost; the
 * emulator's random schedule must lose some too (it yields before stores to device memory),
 * or a kernel that updates shared data without an atomic would pass the e2e tests there. */
#define E2E_NAME "element_update"
#include "../e2e/e2e.h"

enum { N = 1001 };

int main(void) {
  long c[3] = {0, 0, 0};
#pragma acc parallel loop copy(c) num_gangs(3) vector_length(64)
  for (int i = 0; i < N; i++) c[1] += i % 7 + 1;
  long want = 0;
  for (int i = 0; i < N; i++) want += i % 7 + 1;
  CHECK(c[1] == want, "c[1] = %ld, want %ld (updates lost: the race is visible)", c[1], want);
  return e2e_finish();
}
