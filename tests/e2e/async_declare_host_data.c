/* Async queues together with declare and host_data (they come from separate branches):
 *  - file-scope declared globals (copyin, create) used by kernels on two queues, directly
 *    and through called functions (their device slots), then update self on a queue;
 *  - a link global mapped by the data clauses of kernels on two queues at once (each
 *    construct maps its own device copy: the kernels must not see each other's);
 *  - a function-scope declare whose kernel runs on a queue: the copy-out at the return
 *    comes after the kernel;
 *  - host_data use_device of data an async enter data mapped: the device address is known
 *    at once and serves a deviceptr kernel on the same queue, before the async copy-out.
 * On the host path the device is the host's memory, and the checks say so. */
#include <openacc.h>
#define E2E_NAME "async_declare_host_data"
#include "e2e.h"

#define N 4099 /* odd */
int g_base[N];
float g_acc[N];
int g_link[N];
#pragma acc declare copyin(g_base) create(g_acc)
#pragma acc declare link(g_link)

__attribute__((noinline)) static int base(int i) { return g_base[i]; }
__attribute__((noinline)) static void add(int i, float v) { g_acc[i] += v; }
__attribute__((noinline)) static int linked(int i) { return g_link[i]; }

/* A function-scope declare: `out` is mapped from the directive to the return, where it is
 * copied out; the kernel that fills it runs on queue q. */
static void fill_on_queue(int *out, int n, int q) {
#pragma acc declare copyout(out[0:n])
#pragma acc parallel loop async(q)
  for (int i = 0; i < n; i++) out[i] = 3 * i + base(i % N);
}

int main(void) {
  /* g_base's initial value is all zeros (copyin of zeros); the device copy is filled by
   * update device. */
  for (int i = 0; i < N; i++) g_base[i] = i % 17;
#pragma acc update device(g_base) async(1)

  /* Declared globals on two queues: queue 2 waits for queue 1's update first. */
#pragma acc parallel loop async(1)
  for (int i = 0; i < N; i++) g_acc[i] = 0.5f * (float)i;
#pragma acc parallel loop async(1)
  for (int i = 0; i < N; i++) add(i, (float)base(i));
  int *o2 = e2e_alloc(sizeof(int) * N);
#pragma acc parallel loop wait(1) async(2) copyout(o2[0:N])
  for (int i = 0; i < N; i++) o2[i] = 2 * base(N - 1 - i);
#pragma acc update self(g_acc) async(1)
#pragma acc wait
  for (int i = 0; i < N; i++) {
    if (g_acc[i] != 0.5f * (float)i + (float)(i % 17)) {
      CHECK(0, "declared globals on queue 1: g_acc[%d]=%g want %g", i, g_acc[i], 0.5f * (float)i + (float)(i % 17));
      break;
    }
    if (o2[i] != 2 * ((N - 1 - i) % 17)) {
      CHECK(0, "declared global on queue 2: o2[%d]=%d want %d", i, o2[i], 2 * ((N - 1 - i) % 17));
      break;
    }
  }

  /* A link global mapped by two constructs on two queues. */
  for (int i = 0; i < N; i++) g_link[i] = i % 7;
  int *o1 = e2e_alloc(sizeof(int) * N), *o3 = e2e_alloc(sizeof(int) * N);
#pragma acc parallel loop async(1) copyin(g_link) copyout(o1[0:N])
  for (int i = 0; i < N; i++) o1[i] = linked(i) + 1;
#pragma acc parallel loop async(2) copyin(g_link) copyout(o3[0:N])
  for (int i = 0; i < N; i++) o3[i] = 10 * linked(N - 1 - i);
#pragma acc wait(1, 2)
  for (int i = 0; i < N; i++)
    if (o1[i] != i % 7 + 1 || o3[i] != 10 * ((N - 1 - i) % 7)) {
      CHECK(0, "link global on two queues: o1[%d]=%d o3[%d]=%d, want %d and %d", i, o1[i], i, o3[i], i % 7 + 1, 10 * ((N - 1 - i) % 7));
      break;
    }
  int host = acc_get_device_type() == acc_device_host;
  CHECK(host || !acc_is_present(g_link, sizeof g_link), "the link global is still present");

  /* Function-scope declare with an async kernel: out is right once the function returns. */
  int *out = e2e_alloc(sizeof(int) * N);
  for (int i = 0; i < N; i++) out[i] = -1;
  fill_on_queue(out, N, 3);
  for (int i = 0; i < N; i++)
    if (out[i] != 3 * i + i % 17) {
      CHECK(0, "declare copyout with a kernel on queue 3: out[%d]=%d want %d", i, out[i], 3 * i + i % 17);
      break;
    }
  CHECK(host || !acc_is_present(out, sizeof(int) * N), "out is still present after the function returned");

  /* host_data of data an async enter data mapped. */
  float *a = e2e_alloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) a[i] = (float)(i % 13);
#pragma acc enter data copyin(a[0:N]) async(4)
  float *da = NULL;
#pragma acc host_data use_device(a)
  da = a;
  CHECK(da == acc_deviceptr(a), "use_device(a) after enter data async: %p, acc_deviceptr %p", (void *)da, acc_deviceptr(a));
  CHECK(host ? da == a : da != a, "use_device(a)=%p a=%p on %s", (void *)da, (void *)a, host ? "host" : "device");
#pragma acc parallel loop deviceptr(da) async(4)
  for (int i = 0; i < N; i++) da[i] = 2.0f * da[i] + 1.0f;
#pragma acc exit data copyout(a[0:N]) async(4)
#pragma acc wait(4)
  for (int i = 0; i < N; i++)
    if (a[i] != 2.0f * (float)(i % 13) + 1.0f) {
      CHECK(0, "host_data + deviceptr on queue 4: a[%d]=%g want %g", i, a[i], 2.0f * (float)(i % 13) + 1.0f);
      break;
    }

  free(o1), free(o2), free(o3), free(out), free(a);
  return e2e_finish();
}
