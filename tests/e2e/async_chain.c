/* Async queues, one queue at a time: kernels on one queue, each reading elements its
 * predecessor wrote in other gangs, then an update self on the same queue and a wait before
 * the host looks (on the GPU a kernel started early, or a copy that does not wait for
 * them, reads stale values); exit data copyout async then a wait; acc_async_test after the
 * wait; the data clauses of an async compute construct (copy in and out on its queue). */
#include <openacc.h>
#define E2E_NAME "async_chain"
#include "e2e.h"

enum { STEPS = 6 };

/* b = a + 1; a = 2 * b[i+1] (a neighbour, usually another gang's), STEPS times. */
static void reference(double *a, double *b, int n) {
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < n; i++) b[i] = a[i] + 1;
    for (int i = 0; i < n; i++) a[i] = 2 * b[(i + 1) % n];
  }
}

static void expect(const char *what, const double *got, const double *want, int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      CHECK(0, "%s: [%d] is %g, want %g", what, i, got[i], want[i]);
      return;
    }
}

int main(void) {
  int n = 1 << 17;
  double *a = e2e_alloc(sizeof(double) * n), *b = e2e_alloc(sizeof(double) * n);
  double *ra = e2e_alloc(sizeof(double) * n), *rb = e2e_alloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) a[i] = ra[i] = i % 1000, b[i] = rb[i] = 0;
  reference(ra, rb, n);

#pragma acc enter data copyin(a[0:n]) create(b[0:n]) async(1)
  for (int s = 0; s < STEPS; s++) {
#pragma acc parallel loop present(a[0:n], b[0:n]) async(1)
    for (int i = 0; i < n; i++) b[i] = a[i] + 1;
#pragma acc parallel loop present(a[0:n], b[0:n]) async(1)
    for (int i = 0; i < n; i++) a[i] = 2 * b[(i + 1) % n];
  }
#pragma acc update self(a[0:n]) async(1)
#pragma acc wait(1)
  expect("a after the chain on queue 1", a, ra, n);
  CHECK(acc_async_test(1) != 0, "acc_async_test(1) after wait(1)");
  CHECK(acc_async_test_all() != 0, "acc_async_test_all after wait(1)");

  /* b's last values come back with the exit, on the queue, after one more kernel. */
#pragma acc parallel loop present(b[0:n]) async(1)
  for (int i = 0; i < n; i++) b[i] = -b[i];
  for (int i = 0; i < n; i++) rb[i] = -rb[i];
#pragma acc exit data copyout(b[0:n]) delete(a[0:n]) async(1)
  acc_wait(1);
  expect("b after exit data copyout async(1)", b, rb, n);
  CHECK(acc_async_test(1) != 0, "acc_async_test(1) after acc_wait(1)");
  CHECK(acc_get_device_type() == acc_device_host || !acc_is_present(a, sizeof(double) * n), "a still present");

  /* A compute construct's own data clauses on its queue: copyin, kernel, copyout. */
  for (int i = 0; i < n; i++) b[i] = i;
#pragma acc parallel loop copy(b[0:n]) async(2)
  for (int i = 0; i < n; i++) b[i] = 3 * b[i] + 1;
#pragma acc parallel loop copy(b[0:n]) async(2)
  for (int i = 0; i < n; i++) b[i] = b[i] - i;
#pragma acc wait(2)
  for (int i = 0; i < n; i++)
    if (b[i] != 2.0 * i + 1) {
      CHECK(0, "copy(b) on queue 2: [%d] is %g, want %g", i, b[i], 2.0 * i + 1);
      break;
    }
  CHECK(acc_async_test(2) != 0, "acc_async_test(2) after wait(2)");
  free(a), free(b), free(ra), free(rb);
  return e2e_finish();
}
