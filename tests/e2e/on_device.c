/* acc_on_device in device code: a kernel (and a function it calls) runs on the NVIDIA device
 * (the emulator stands in for it), so acc_on_device(acc_device_nvidia) and
 * (acc_device_not_host) are true there and acc_device_host false, also for an argument
 * known only at run time; the host path's copy of the region is on the host. */
#include <openacc.h>
#define E2E_NAME "on_device"
#include "e2e.h"

enum { N = 333 };

static int where(acc_device_t t) { return acc_on_device(t); }

int main(void) {
  int r[N];
  acc_device_t types[2] = {acc_device_host, acc_device_nvidia};
  int on_host = acc_get_device_type() == acc_device_host;
#pragma acc parallel loop copyout(r[0:N]) copyin(types)
  for (int i = 0; i < N; i++) {
    r[i] = acc_on_device(acc_device_nvidia) + 2 * acc_on_device(acc_device_host) + 4 * acc_on_device(acc_device_not_host) +
           8 * where(types[i % 2]) + 16 * acc_on_device(acc_device_none);
  }
  for (int i = 0; i < N; i++) {
    int want = on_host ? 2 + (i % 2 == 0 ? 8 : 0) : 1 + 4 + (i % 2 == 1 ? 8 : 0);
    CHECK(r[i] == want, "r[%d] = %d, want %d", i, r[i], want);
  }
  CHECK(acc_on_device(acc_device_host), "host code is on the host");
  return e2e_finish();
}
