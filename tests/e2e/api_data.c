/* The OpenACC data and memory routines of <openacc.h>: their results, their reference
 * counting (dynamic counts, beside the structured counts of data regions), acc_map_data,
 * the acc_memcpy_* round trips and acc_attach/acc_detach. With separate device memory (the
 * emulator, a GPU) every missing or extra copy shows in the host data; on the host path
 * (shared memory) device addresses are host addresses and the checks say so. */
#include <openacc.h>
#include <string.h>
#define E2E_NAME "api_data"
#include "e2e.h"

static int sep; /* device memory is separate from host memory */

static void fill(int *a, int n, int v) {
  for (int i = 0; i < n; i++) a[i] = v + i;
}

/* a[i] == base + i for i in [lo, hi). */
static void expect(const char *what, const int *a, int lo, int hi, int base) {
  for (int i = lo; i < hi; i++)
    if (a[i] != base + i) {
      CHECK(0, "%s: a[%d]=%d want %d", what, i, a[i], base + i);
      return;
    }
}

/* The pointer value held by the device copy of the pointer at host address pp. */
static void *device_pointer_value(void **pp) {
  void *v = NULL;
  acc_memcpy_from_device(&v, acc_deviceptr(pp), sizeof v);
  return v;
}

static void addresses(int *a, int *b, int n) {
  size_t bytes = sizeof(int) * n;
  fill(a, n, 0);
  int *da = acc_copyin(a, bytes);
  CHECK(da != NULL, "acc_copyin returned null");
  CHECK(sep ? da != a : da == a, "acc_copyin's address %p for %p", (void *)da, (void *)a);
  CHECK(acc_deviceptr(a) == da, "acc_deviceptr(a)");
  CHECK(acc_deviceptr(a + 17) == da + 17, "acc_deviceptr inside");
  CHECK(acc_hostptr(da) == a, "acc_hostptr(da)");
  CHECK(acc_hostptr(da + n - 1) == a + n - 1, "acc_hostptr of the last element");
  CHECK(acc_hostptr(acc_deviceptr(a + 500)) == a + 500, "acc_hostptr(acc_deviceptr(p)) != p");
  CHECK(acc_is_present(a, bytes), "acc_is_present(a)");
  CHECK(acc_is_present(a + 10, 40), "acc_is_present of a sub-range");
  CHECK(acc_is_present(a + n - 1, 0), "acc_is_present with 0 bytes (one byte)");
  if (sep) {
    CHECK(!acc_is_present(a + n - 1, 8), "acc_is_present past the end");
    CHECK(!acc_is_present(a - 1, 8), "acc_is_present before the start");
    CHECK(!acc_is_present(b, 4), "acc_is_present of absent data");
    CHECK(acc_deviceptr(b) == NULL, "acc_deviceptr of absent data");
    CHECK(acc_deviceptr(a + n) == NULL, "acc_deviceptr one past the end");
    CHECK(acc_hostptr(da + n) == NULL, "acc_hostptr one past the end");
  } else {
    CHECK(acc_is_present(b, 4) && acc_deviceptr(b) == b && acc_hostptr(b) == b, "shared memory");
  }
  CHECK(acc_deviceptr(NULL) == NULL && acc_hostptr(NULL) == NULL && !acc_is_present(NULL, 4), "null");

  /* Entered twice: one acc_copyout leaves it present and copies nothing. */
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 100 + i;
  CHECK(acc_copyin(a, bytes) == da, "a second acc_copyin moved the data");
  acc_copyout(a, bytes);
  expect("copyout with a reference left", a, 0, n, sep ? 0 : 100);
  CHECK(acc_is_present(a, bytes), "gone after one of two copyouts");
  acc_update_self(a + 10, 5 * sizeof(int));
  expect("acc_update_self of a sub-range", a, 10, 15, 100);
  expect("outside acc_update_self's range", a, 15, n, sep ? 0 : 100);
  acc_copyout(a, bytes);
  expect("the last copyout", a, 0, n, 100);
  CHECK(!sep || !acc_is_present(a, bytes), "present after the last copyout");
}

static void create_and_finalize(int *a, int n) {
  size_t bytes = sizeof(int) * n;
  fill(a, n, 0);
  int *d = acc_create(a, bytes);
  CHECK(acc_pcreate(a, bytes) == d && acc_present_or_create(a, bytes) == d, "present_or_create");
  CHECK(acc_pcopyin(a, bytes) == d && acc_present_or_copyin(a, bytes) == d, "present_or_copyin");
  acc_update_device(a, bytes); /* the host values reach the created copy */
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] += 1;
  acc_delete(a, bytes);
  CHECK(acc_is_present(a, bytes), "one of five references deleted: gone");
  acc_copyout_finalize(a, bytes); /* four references at once, with the copy-out */
  expect("acc_copyout_finalize", a, 0, n, 1);
  CHECK(!sep || !acc_is_present(a, bytes), "present after finalize");

  /* acc_delete_finalize: no copy-out. */
  fill(a, n, 0);
  acc_copyin(a, bytes);
  acc_copyin(a, bytes);
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 50 + i;
  acc_delete_finalize(a, bytes);
  expect("acc_delete_finalize", a, 0, n, sep ? 0 : 50);
  CHECK(!sep || !acc_is_present(a, bytes), "present after acc_delete_finalize");
}

static void with_a_data_region(int *a, int n) {
  size_t bytes = sizeof(int) * n;
  fill(a, n, 0);
#pragma acc data copy(a[0:n])
  {
    /* The dynamic count is zero: no action, the region's copy stays. */
    acc_delete(a, bytes);
    acc_delete_finalize(a, bytes);
    acc_copyout(a, bytes);
    CHECK(acc_is_present(a, bytes), "the data region's copy was deleted");
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] = 200 + i;
    /* copyout with the structured count held: only the dynamic count drops. */
    acc_copyin(a, bytes);
    acc_copyout(a, bytes);
    expect("acc_copyout inside data copy", a, 0, n, sep ? 0 : 200);
  }
  expect("the data region's copy-back", a, 0, n, 200);
}

static void async_forms(int *a, int n) {
  size_t bytes = sizeof(int) * n;
  fill(a, n, 0);
  acc_copyin_async(a, bytes, 1);
  acc_wait(1);
  acc_create_async(a, bytes, acc_async_noval);
  acc_wait(acc_async_noval);
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 300 + i;
  acc_update_self_async(a, bytes, 2);
  acc_wait_all();
  expect("acc_update_self_async", a, 0, n, 300);
  for (int i = 0; i < n; i++) a[i] += 1;
  acc_update_device_async(a, bytes, acc_async_sync);
  acc_delete_async(a, bytes, 3);
  acc_wait(3);
  CHECK(acc_async_test(3), "queue 3 not finished after acc_wait(3)");
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] += 1;
  acc_copyout_async(a, bytes, 0);
  acc_wait(0);
  expect("acc_copyout_async", a, 0, n, 302);
  acc_copyin(a, bytes);
  acc_copyin(a, bytes);
  acc_delete_finalize_async(a, bytes, 4);
  CHECK(!sep || !acc_is_present(a, bytes), "acc_delete_finalize_async");
  acc_copyin(a, bytes);
  acc_copyout_finalize_async(a, bytes, 4);
  acc_wait(4);
  expect("acc_copyout_finalize_async", a, 0, n, 302);
}

static void memcpy_round_trips(void) {
  size_t nb = 777 * sizeof(double) + 3; /* odd */
  unsigned char *src = e2e_alloc(nb), *dst = e2e_alloc(nb);
  for (size_t i = 0; i < nb; i++) src[i] = (unsigned char)(i * 7 + 3);
  void *d1 = acc_malloc(nb), *d2 = acc_malloc(nb);
  CHECK(d1 && d2 && d1 != d2, "acc_malloc");
  CHECK(sep ? acc_hostptr(d1) == NULL : acc_hostptr(d1) == d1, "acc_hostptr of acc_malloc memory");
  acc_memcpy_to_device(d1, src, nb);
  acc_memcpy_device(d2, d1, nb);
  memset(dst, 0, nb);
  acc_memcpy_from_device(dst, d2, nb);
  for (size_t i = 0; i < nb; i++)
    if (dst[i] != src[i]) {
      CHECK(0, "memcpy round trip: byte %zu is %d want %d", i, dst[i], src[i]);
      break;
    }
  /* Unaligned parts, async forms. */
  acc_memcpy_to_device_async((char *)d1 + 5, src + 100, 33, 1);
  acc_memcpy_device_async((char *)d2 + 1, (char *)d1 + 5, 33, 1);
  memset(dst, 0, nb);
  acc_memcpy_from_device_async(dst + 3, (char *)d2 + 1, 33, 1);
  acc_wait(1);
  for (size_t i = 0; i < 33; i++)
    CHECK(dst[3 + i] == src[100 + i], "partial memcpy: byte %zu", i);
  CHECK(dst[2] == 0 && dst[36] == 0, "partial memcpy wrote outside its range");
  acc_free(d1);
  acc_free(d2);
  acc_free(NULL);
  free(src), free(dst);
}

static void mapped(int *b, int n) {
  size_t bytes = sizeof(int) * n;
  int *dm = acc_malloc(bytes);
  int *tmp = e2e_alloc(bytes);
  acc_map_data(b, dm, bytes);
  CHECK(acc_is_present(b, bytes), "mapped data not present");
  CHECK(acc_deviceptr(b) == (sep ? dm : b), "acc_deviceptr of mapped data");
  CHECK(acc_deviceptr(b + 3) == (sep ? dm + 3 : b + 3), "acc_deviceptr inside mapped data");
  if (sep) CHECK(acc_hostptr(dm + 7) == b + 7, "acc_hostptr of mapped memory");
  fill(b, n, 0);
  acc_update_device(b, bytes);
#pragma acc parallel loop present(b[0:n])
  for (int i = 0; i < n; i++) b[i] += 300;
  /* Neither exits nor deletes free mapped data. */
#pragma acc exit data delete(b[0:n])
#pragma acc exit data copyout(b[0:n]) finalize
  acc_delete(b, bytes);
  acc_delete_finalize(b, bytes);
  acc_copyout(b, bytes);
  CHECK(acc_is_present(b, bytes), "mapped data freed by an exit");
  expect("copyout of mapped data copies nothing", b, 0, n, sep ? 0 : 300);
#pragma acc data copy(b[0:n])
  {
#pragma acc parallel loop present(b[0:n])
    for (int i = 0; i < n; i++) b[i] += 1;
  }
  expect("a data region over mapped data copies nothing back", b, 0, n, sep ? 0 : 301);
  if (sep) {
    acc_memcpy_from_device(tmp, dm, bytes);
    expect("the program's device memory", tmp, 0, n, 301);
  }
  acc_update_self(b, bytes);
  expect("acc_update_self of mapped data", b, 0, n, 301);
  acc_unmap_data(b);
  CHECK(!sep || !acc_is_present(b, bytes), "present after acc_unmap_data");
  if (sep) {
    memset(tmp, 0, bytes);
    acc_memcpy_from_device(tmp, dm, bytes); /* still the program's memory */
    expect("device memory after unmapping", tmp, 0, n, 301);
  }
  acc_free(dm);
  free(tmp);
}

static void device_to_device(int *a, int *b, int n) {
  size_t bytes = sizeof(int) * n;
  int dev = acc_get_device_num(acc_get_device_type());
  fill(a, n, 1000);
  fill(b, n, 0);
  acc_copyin(a, bytes);
  acc_copyin(b, bytes);
  acc_memcpy_d2d(b + 1, a + 2, 100 * sizeof(int), dev, dev);
  acc_memcpy_d2d_async(b + 200, a + 300, 7 * sizeof(int), dev, dev, 5);
  acc_wait(5);
  acc_copyout(b, bytes);
  acc_delete(a, bytes);
  expect("before the d2d range", b, 0, 1, 0);
  expect("acc_memcpy_d2d", b, 1, 101, 1001);
  expect("between the d2d ranges", b, 101, 200, 0);
  expect("acc_memcpy_d2d_async", b, 200, 207, 1100);
  expect("after the d2d ranges", b, 207, n, 0);
}

struct holder {
  int *p;
  int n;
};

static void attach_detach(int *b, int n) {
  size_t bytes = sizeof(int) * n;
  struct holder s = {b, n};
  fill(b, n, 0);
  acc_copyin(&s, sizeof s);
  acc_copyin(b, bytes);
  void **pp = (void **)&s.p;
  CHECK(device_pointer_value(pp) == b, "before acc_attach the device copy holds the host pointer");
  acc_attach(pp);
  acc_attach_async(pp, 2); /* attachment count 2 */
  acc_wait(2);
  CHECK(device_pointer_value(pp) == acc_deviceptr(b), "acc_attach did not point the device copy at b's");
#pragma acc parallel loop present(s)
  for (int i = 0; i < n; i++) s.p[i] = 400 + i;
  expect("writes through the attached pointer stay on the device", b, 0, n, sep ? 0 : 400);
  acc_detach(pp);
  CHECK(device_pointer_value(pp) == acc_deviceptr(b), "detached with one attachment left");
  acc_attach(pp);
  acc_detach_finalize(pp);
  CHECK(device_pointer_value(pp) == b, "acc_detach_finalize did not restore the host pointer");
  acc_attach(pp);
  acc_detach_async(pp, 3);
  CHECK(device_pointer_value(pp) == b, "acc_detach_async");
  acc_attach(pp);
  acc_attach(pp);
  acc_detach_finalize_async(pp, 3);
  acc_wait(3);
  CHECK(device_pointer_value(pp) == b, "acc_detach_finalize_async");
  acc_copyout(b, bytes);
  expect("attached data copied out", b, 0, n, 400);
  acc_delete(&s, sizeof s);
  /* Attaching a pointer whose target is not present does nothing. */
  int *absent = e2e_alloc(sizeof(int) * 4);
  s.p = absent;
  acc_copyin(&s, sizeof s);
  acc_attach(pp);
  CHECK(device_pointer_value(pp) == absent, "attached to absent data");
  acc_delete(&s, sizeof s);
  free(absent);
}

int main(void) {
  const int n = 1001;
  sep = acc_get_device_type() != acc_device_host;
  CHECK(acc_get_property(acc_get_device_num(acc_device_current), acc_device_current, acc_property_shared_memory_support) == (size_t)!sep,
        "shared memory support should be %d", !sep);
  int *a = e2e_alloc(sizeof(int) * n), *b = e2e_alloc(sizeof(int) * n);
  addresses(a, b, n);
  create_and_finalize(a, n);
  with_a_data_region(a, n);
  async_forms(a, n);
  memcpy_round_trips();
  mapped(b, n);
  device_to_device(a, b, n);
  attach_detach(b, n);
  free(a), free(b);
  return e2e_finish();
}
