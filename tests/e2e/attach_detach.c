/* Explicit attach and detach clauses (OpenACC 3.3 §2.7.13-14): a struct and its data are
 * mapped separately (the data through a plain pointer, so nothing is attached implicitly),
 * then `enter data attach(s->p)` points the device struct at the device data; kernels reach
 * it through the struct; `attach` on a data construct and a compute construct counts on the
 * same attachment; `exit data detach(s->p)` gives the device struct the host pointer back,
 * `finalize` zeroes the count at once; and a struct copied out whole never brings a device
 * address home. */
#define E2E_NAME "attach_detach"
#include "e2e.h"
#include <openacc.h>
#include <stddef.h>

typedef struct {
  long n;
  float *p;
} buf;

/* The device copy of s->p, as the device sees it. */
static float *device_member(buf *s) {
  float *v = 0;
  acc_memcpy_from_device(&v, (char *)acc_deviceptr(s) + offsetof(buf, p), sizeof v);
  return v;
}

int main(void) {
  int n = 4099;
  buf *s = e2e_alloc(sizeof *s);
  float *data = e2e_alloc(sizeof(float) * n);
  s->n = n, s->p = data;
  for (int i = 0; i < n; i++) data[i] = i;
  int shared = 0;

#pragma acc enter data copyin(s[0:1]) copyin(data[0:n])
  shared = acc_deviceptr(data) == data;
  CHECK(shared || device_member(s) == data, "before attach the device struct holds the host pointer");
#pragma acc enter data attach(s->p)
  CHECK(device_member(s) == acc_deviceptr(data), "attach: device s->p %p, want %p", (void *)device_member(s), acc_deviceptr(data));

#pragma acc parallel loop present(s[0:1])
  for (long i = 0; i < s->n; i++)
    s->p[i] = 2 * s->p[i] + 1;

  /* Attached three more times (counted), detached three times: still attached. */
#pragma acc data attach(s->p)
  {
#pragma acc parallel loop present(s[0:1]) attach(s->p)
    for (long i = 0; i < s->n; i++)
      s->p[i] += 1;
  }
#pragma acc enter data attach(s->p)
#pragma acc exit data detach(s->p)
  CHECK(device_member(s) == acc_deviceptr(data), "still attached after balanced attach/detach");

  /* finalize: one detach ends every attachment. */
#pragma acc enter data attach(s->p)
#pragma acc enter data attach(s->p)
#pragma acc exit data detach(s->p) finalize
  CHECK(device_member(s) == data, "detach finalize: device s->p %p, want the host value %p", (void *)device_member(s), (void *)data);

  /* Attach again and copy the struct out while attached: the host keeps its pointer. */
#pragma acc enter data attach(s->p)
#pragma acc exit data copyout(s[0:1])
  CHECK(s->p == data, "copyout of an attached struct wrote %p into the host pointer", (void *)s->p);
#pragma acc exit data copyout(data[0:n])
  for (int i = 0; i < n; i++)
    CHECK(data[i] == 2.0f * i + 2, "data[%d]=%g want %g", i, data[i], 2.0f * i + 2);
  free(data), free(s);
  return e2e_finish();
}
