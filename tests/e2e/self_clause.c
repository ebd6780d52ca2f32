/* self(c) / self on compute constructs (OpenACC 3.3 §2.5.x): when c is true (self alone:
 * true) the region runs on the local thread, the host, with its data clauses ignored, as under
 * a false if; the device only when every if is true and self is false. Each region records
 * acc_on_device(acc_device_host) where it ran. */
#include <openacc.h>
#define E2E_NAME "self_clause"
#include "e2e.h"

static void check(const int *a, int n, int want_host, int add, const char *what) {
  for (int i = 0; i < n; i++)
    if (a[i] != 2 * want_host + add * i) {
      CHECK(0, "%s: a[%d]=%d want %d", what, i, a[i], 2 * want_host + add * i);
      return;
    }
}

int main(void) {
  int n = 1001;
  int *a = e2e_alloc(sizeof(int) * n);
  int dev = acc_get_device_type() != acc_device_host; /* else every region is on the host */
  int yes = n > 5, no = n < 5;

  /* self true: on the host, even with only copyin the writes reach host memory. */
#pragma acc parallel loop self(yes) copyin(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 2 * acc_on_device(acc_device_host) + i;
  check(a, n, 1, 1, "self(yes)");

  /* self false: on the device; copy brings the values back. */
#pragma acc parallel loop self(no) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 2 * acc_on_device(acc_device_host) + 3 * i;
  check(a, n, !dev, 3, "self(no)");

  /* self alone: the host. */
#pragma acc parallel loop self copyin(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 2 * acc_on_device(acc_device_host) + 5 * i;
  check(a, n, 1, 5, "self");

  /* if true and self false: device; if false or self true: host. */
  for (int k = 0; k < 4; k++) {
    int c_if = k & 1, c_self = (k >> 1) & 1;
#pragma acc parallel loop if(c_if) self(c_self) copy(a[0:n])
    for (int i = 0; i < n; i++) a[i] = 2 * acc_on_device(acc_device_host) + 7 * i;
    check(a, n, !(dev && c_if && !c_self), 7, "if/self");
  }

  /* kernels (one launch per loop nest, a data region around them) and serial. */
  for (int s = 0; s < 2; s++) {
#pragma acc kernels self(s) copyin(a[0:n])
    {
#pragma acc loop independent
      for (int i = 0; i < n; i++) a[i] = 2 * acc_on_device(acc_device_host) + 9 * i;
#pragma acc loop independent
      for (int i = 0; i < n; i++) a[i] += 2 * i;
    }
    /* on the device the copyin-only data never comes back. */
    if (s || !dev) check(a, n, 1, 11, "kernels self(1)");
    for (int i = 0; i < n; i++) a[i] = -1;
#pragma acc serial self(s) copy(a[0:n])
    for (int i = 0; i < n; i++) a[i] = 2 * acc_on_device(acc_device_host) + 13 * i;
    check(a, n, s || !dev, 13, "serial self");
  }
  free(a);
  return e2e_finish();
}
