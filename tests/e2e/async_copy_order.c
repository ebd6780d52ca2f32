/* An async region's copy-out, then another region's copy-in of the same array on the same
 * queue (OpenACC 3.3 §2.16.1: operations on one queue run in order): the second region must
 * start from what the first copied out. Small arrays go through page-locked slots on the
 * GPU (runtime bounce.rs), whose download lands in the program's memory from a host function
 * in the queue's order; the upload read the program's memory at the call, before that
 * download had landed: the second region started from the old values (found by the fuzzer
 * with async groups, seeds 12, 19, 33, 40, 53, 57 on an H200). A large array too (the
 * driver's own staging reads the host memory at the call as well). Every element checked. */
#define E2E_NAME "async_copy_order"
#include "e2e.h"

enum { N = 77, BIG = 300007, ROUNDS = 4 };

int main(void) {
  static long a[N];
  static double big[BIG];
  for (int i = 0; i < N; i++) a[i] = i;
  for (int i = 0; i < BIG; i++) big[i] = i % 17;
  for (int r = 0; r < ROUNDS; r++) {
#pragma acc parallel loop copy(a[0:N]) async(2)
    for (int i = 0; i < N; i++) a[i] = a[i] * 2 + 1;
#pragma acc parallel loop copy(a[0:N]) async(2)
    for (int i = 0; i < N; i++) a[i] = a[i] * 3 - i;
  }
#pragma acc parallel loop copy(big[0:BIG]) async(3)
  for (int i = 0; i < BIG; i++) big[i] = big[i] * 3 - 1;
#pragma acc parallel loop copy(a[0:N], big[0:BIG]) async(3)
  for (int i = 0; i < BIG; i++) big[i] = big[i] * 2 + (i < N ? a[i] % 5 : 0);
#pragma acc wait

  long want[N];
  for (int i = 0; i < N; i++) want[i] = i;
  for (int r = 0; r < ROUNDS; r++)
    for (int i = 0; i < N; i++) want[i] = (want[i] * 2 + 1) * 3 - i;
  for (int i = 0; i < N; i++) CHECK(a[i] == want[i], "a[%d] = %ld, want %ld", i, a[i], want[i]);
  for (int i = 0; i < BIG; i++) {
    double w = ((i % 17) * 3.0 - 1) * 2 + (i < N ? want[i] % 5 : 0);
    CHECK(big[i] == w, "big[%d] = %g, want %g", i, big[i], w);
  }
  return e2e_finish();
}
