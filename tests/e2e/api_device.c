/* The device management, property and async routines of <openacc.h>, and acc_on_device in
 * host code. The device in use is the host (ACC_DEVICE_TYPE=host), the GPU, or the
 * emulator standing in for it (acc_device_nvidia). The queues used here have no work, so
 * tests answer "finished" and waits return on every device. */
#include <openacc.h>
#include <string.h>
#define E2E_NAME "api_device"
#include "e2e.h"

static void properties(int num, acc_device_t type, int host) {
  size_t mem = acc_get_property(num, type, acc_property_memory);
  size_t free_mem = acc_get_property(num, type, acc_property_free_memory);
  CHECK(mem > 0, "acc_property_memory is 0");
  CHECK(free_mem > 0 && free_mem <= mem, "acc_property_free_memory %zu of %zu", free_mem, mem);
  CHECK(acc_get_property(num, type, acc_property_shared_memory_support) == (size_t)host,
        "acc_property_shared_memory_support should be %d", host);
  const acc_device_property_t strings[] = {acc_property_name, acc_property_vendor, acc_property_driver};
  for (int i = 0; i < 3; i++) {
    const char *s = acc_get_property_string(num, type, strings[i]);
    CHECK(s && strlen(s) > 0, "string property %d is empty", (int)strings[i]);
    CHECK(acc_get_property(num, type, strings[i]) == 0, "a string property as a number");
  }
  CHECK(acc_get_property_string(num, type, acc_property_memory) == NULL, "a number property as a string");
  /* No such device: 0 and null. */
  CHECK(acc_get_property(99, type, acc_property_memory) == 0, "memory of device 99");
  CHECK(acc_get_property_string(99, type, acc_property_name) == NULL, "name of device 99");
  CHECK(acc_get_property(0, acc_device_none, acc_property_memory) == 0, "memory of acc_device_none");
}

static void async_routines(int num) {
  CHECK(acc_get_default_async() == acc_async_noval, "initial default queue %d", acc_get_default_async());
  acc_set_default_async(7);
  CHECK(acc_get_default_async() == 7, "acc_set_default_async(7)");
  acc_set_default_async(acc_async_default);
  CHECK(acc_get_default_async() == acc_async_noval, "acc_async_default does not restore the default");

  CHECK(acc_async_test(0) != 0 && acc_async_test(12345) != 0, "acc_async_test");
  CHECK(acc_async_test(acc_async_noval) != 0 && acc_async_test(acc_async_sync) != 0, "acc_async_test special");
  CHECK(acc_async_test_device(1, num) != 0, "acc_async_test_device");
  CHECK(acc_async_test_all() != 0, "acc_async_test_all");
  CHECK(acc_async_test_all_device(num) != 0, "acc_async_test_all_device");
  acc_wait(3);
  acc_wait(acc_async_noval);
  acc_wait_device(3, num);
  acc_wait_async(1, 2);
  acc_wait_device_async(1, 2, num);
  acc_wait_all();
  acc_wait_all_device(num);
  acc_wait_all_async(4);
  acc_wait_all_device_async(acc_async_noval, num);
  int queues[3] = {acc_async_sync, 5, 6};
  CHECK(acc_wait_any(3, queues) == 1, "acc_wait_any gave %d", acc_wait_any(3, queues));
  CHECK(acc_wait_any_device(2, queues, num) == 1, "acc_wait_any_device");
  CHECK(acc_wait_any(1, queues) == -1, "acc_wait_any of acc_async_sync only");
  CHECK(acc_wait_any(0, NULL) == -1, "acc_wait_any of nothing");
}

int main(void) {
  acc_device_t type = acc_get_device_type();
  CHECK(type == acc_device_host || type == acc_device_nvidia, "acc_get_device_type() = %d", (int)type);
  int host = type == acc_device_host;
  int num = acc_get_device_num(type);
  int count = acc_get_num_devices(type);
  CHECK(num >= 0 && num < count, "device %d of %d", num, count);
  CHECK(acc_get_num_devices(acc_device_host) == 1, "one host");
  CHECK(acc_get_num_devices(acc_device_none) == 0, "acc_device_none has devices");
  CHECK(acc_get_num_devices(acc_device_current) == count, "acc_device_current");
  CHECK(acc_get_device_num(acc_device_host) == 0, "the host is not device 0");
  if (!host) {
    CHECK(acc_get_num_devices(acc_device_nvidia) == count, "acc_device_nvidia count");
    CHECK(acc_get_num_devices(acc_device_not_host) == count, "acc_device_not_host count");
  }

  /* Choosing what is in use again is fine; so are acc_init and its _device form. */
  acc_set_device_type(type);
  acc_set_device_type(acc_device_current);
  acc_set_device_num(num, type);
  acc_set_device_num(-1, type); /* "the default" */
  acc_init(type);
  acc_init_device(num, type);
  CHECK(acc_get_device_type() == type && acc_get_device_num(type) == num, "the device changed");

  CHECK(acc_on_device(acc_device_host) == 1, "host code is not on the host");
  CHECK(acc_on_device(acc_device_not_host) == 0, "host code on a device");
  CHECK(acc_on_device(acc_device_nvidia) == 0, "host code on the GPU");
  CHECK(acc_on_device(acc_device_current) == host, "acc_on_device(acc_device_current)");
  CHECK(acc_on_device(acc_device_none) == 0, "acc_on_device(acc_device_none)");

  properties(num, type, host);
  properties(num, acc_device_current, host);
  properties(0, acc_device_host, 1);
  async_routines(num);

  /* The device still works after all that. */
  int n = 333;
  int *a = e2e_alloc(sizeof(int) * n);
#pragma acc parallel loop copyout(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 3 * i + 1;
  for (int i = 0; i < n; i++)
    if (a[i] != 3 * i + 1) {
      CHECK(0, "a[%d]=%d want %d", i, a[i], 3 * i + 1);
      break;
    }
  free(a);
  acc_shutdown_device(num, type);
  acc_shutdown(type);
  return e2e_finish();
}
