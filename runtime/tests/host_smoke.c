/* Smoke test of libaccrt.a on the host path (no GPU, or ACC_DEVICE_TYPE=host):
 * __accrt_use_device() is 0, data calls are no-ops, deviceptr is the identity.
 *   cargo build --release -p accrt
 *   cc -I runtime/include runtime/tests/host_smoke.c target/release/libaccrt.a \
 *      -lpthread -ldl -lm -o /tmp/smoke && ACC_DEVICE_TYPE=host /tmp/smoke */
#include <stdio.h>
#include <stdlib.h>
#include "../include/accrt.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "host_smoke: FAILED: %s\n", #c); return 1; } } while (0)

int main(void) {
  enum { N = 1000 };
  static float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)i;

  int32_t dev = __accrt_use_device();
  CHECK(dev == 0);
  CHECK(__accrt_use_device() == dev); /* cached */

  for (int kind = ACCRT_COPY; kind <= ACCRT_DEVICEPTR; kind++) {
    if (kind != ACCRT_DELETE)
      __accrt_data_enter(x, sizeof x, kind, "smoke.c:1:1", "x[0:n]");
  }
  /* PRESENT of absent data is not an error on the host. */
  __accrt_data_enter(x + 1, 4, ACCRT_PRESENT, "smoke.c:2:1", "x[1:1]");
  __accrt_update_device(x, sizeof x, 0, "smoke.c:3:1", "x[0:n]");
  __accrt_update_self(x, sizeof x, 0, "smoke.c:4:1", "x[0:n]");
  CHECK(__accrt_deviceptr(x, "smoke.c:5:1", "x") == (void *)x);
  CHECK(__accrt_deviceptr(x + N, "smoke.c:5:1", "x") == (void *)(x + N));
  CHECK(__accrt_deviceptr(NULL, "smoke.c:5:1", "p") == NULL);
  __accrt_data_enter(x, 0, ACCRT_COPYIN, "smoke.c:6:1", "x[0:0]");
  for (int kind = ACCRT_COPY; kind <= ACCRT_DEVICEPTR; kind++)
    __accrt_data_exit(x, sizeof x, kind, "smoke.c:7:1", "x[0:n]");

  for (int i = 0; i < N; i++) CHECK(x[i] == (float)i);
  printf("host_smoke: ok (use_device=%d)\n", dev);
  return 0;
}
