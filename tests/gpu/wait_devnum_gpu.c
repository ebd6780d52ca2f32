/* GPU only, two GPUs: wait(devnum: d: q) orders work across devices (OpenACC 3.3 §2.16.3).
 * Device 1's queue 3 runs a long kernel, then copies its result into device 0's memory
 * (acc_memcpy_d2d_async on device 1's queue 3). Device 0's queue 2 waits for that queue by
 * device number and then reads the copy in a kernel of its own: had the wait not held queue 2
 * back (an event recorded on device 1's stream, waited for by device 0's stream), queue 2's
 * kernel would have read device 0's copy before the data arrived (it starts as -1). The host
 * form is checked the same way: `wait(devnum: 1: 3)` on the host, then device 1's second
 * long kernel's copy must be there. With one GPU the program says so and checks the same
 * orderings on device 0 alone (devnum 0), so the bundle still runs it. */
#include <openacc.h>
#define E2E_NAME "wait_devnum_gpu"
#include "../e2e/e2e.h"

enum { N = 4099, STEPS = 500000 };

/* A result that takes a long dependent chain to compute: about 40 ms for the kernel at STEPS. */
#pragma acc routine seq
static int slow_value(int i, int steps) {
  unsigned x = (unsigned)i + 1u;
  for (int s = 0; s < steps; s++) x = x * 1664525u + 1013904223u;
  return i + 1000 + (int)(x == 0xdeadbeefu); /* x keeps the chain alive; the term is 0 */
}

int main(void) {
  if (acc_get_device_type() == acc_device_host || getenv("ACC_DEVICE_TYPE")) {
    printf("FAIL %s: needs the GPU (acc_device_nvidia, ACC_DEVICE_TYPE unset)\n", E2E_NAME);
    return 1;
  }
  acc_device_t t = acc_get_device_type();
  int ndev = acc_get_num_devices(t), other = ndev > 1 ? 1 : 0;
  printf("# %d device(s); the producer is device %d\n", ndev, other);
  int *src = e2e_alloc(sizeof(int) * N), *dst = e2e_alloc(sizeof(int) * N), *got = e2e_alloc(sizeof(int) * N);
  for (int i = 0; i < N; i++) src[i] = dst[i] = got[i] = -1;

  /* Device 0: dst's copy, -1 everywhere until device 1's result lands in it. */
  acc_set_device_num(0, t);
#pragma acc enter data copyin(dst[0:N]) create(got[0:N])
  int *dst_dev = acc_deviceptr(dst);

  /* Device 1, queue 3: the long kernel, then its result into device 0's dst. */
  acc_set_device_num(other, t);
#pragma acc enter data create(src[0:N])
#pragma acc parallel loop async(3) present(src[0:N]) num_gangs(4) vector_length(32)
  for (int i = 0; i < N; i++) src[i] = slow_value(i, STEPS);
  acc_memcpy_d2d_async(dst, src, sizeof(int) * N, 0, other, 3);

  /* Device 0, queue 2: waits for device 1's queue 3, then reads dst. */
  acc_set_device_num(0, t);
#pragma acc wait(devnum: other: 3) async(2)
#pragma acc parallel loop async(2) present(dst[0:N], got[0:N])
  for (int i = 0; i < N; i++) got[i] = dst[(i + 1) % N] - dst[i];
#pragma acc update self(got[0:N]) async(2)
#pragma acc wait(2)
  int bad = 0;
  for (int i = 0; i < N; i++) {
    int want = ((i + 1) % N + 1000) - (i + 1000);
    if (got[i] != want && bad++ == 0) CHECK(0, "queue 2 ran before device %d's queue 3: got[%d] = %d, want %d", other, i, got[i], want);
  }

  /* The host waits for device 1's queue 3 by device number while device 0 is current. */
  acc_set_device_num(other, t);
#pragma acc parallel loop async(3) present(src[0:N]) num_gangs(4) vector_length(32)
  for (int i = 0; i < N; i++) src[i] = slow_value(i, STEPS) + 1;
  acc_memcpy_d2d_async(dst, src, sizeof(int) * N, 0, other, 3);
  acc_set_device_num(0, t);
#pragma acc wait(devnum: other: 3)
  CHECK(acc_async_test_device(3, other), "device %d's queue 3 still busy after wait(devnum: %d: 3)", other, other);
  acc_memcpy_from_device(got, dst_dev, sizeof(int) * N);
  bad = 0;
  for (int i = 0; i < N; i++)
    if (got[i] != i + 1001 && bad++ == 0) CHECK(0, "host wait(devnum) returned early: dst[%d] = %d, want %d", i, got[i], i + 1001);

#pragma acc exit data delete(dst[0:N], got[0:N])
  acc_set_device_num(other, t);
#pragma acc exit data delete(src[0:N])
  free(src), free(dst), free(got);
  return e2e_finish();
}
