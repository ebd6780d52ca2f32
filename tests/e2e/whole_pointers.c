/* Data clauses that name a whole pointer variable, and one construct that names the same
 * data in two clauses (found by the OpenACC V&V suite's serial_private and data_create_zero):
 * - `present(p)` after `enter data copyin(p[0:n])`: the data p points to must be present and
 *   the region uses its device copy (was: "data in PRESENT clause was not found on the
 *   device: p (... 8 bytes)", the pointer variable itself looked up);
 * - `copy(p)`/`copyin(p)` with p's target present: the device copy of p is attached to the
 *   target's device copy (OpenACC 3.3 §2.7.2; was: it held the host address, so the kernel
 *   wrote host memory on the emulator and faulted on the GPU);
 * - `create(zero: b[0:n]) copyout(b[0:n])` on one construct: zeroed, and copied out at the
 *   end (was: the create's exit dropped the last reference and freed b without copying out);
 * - acc_get_property(acc_property_free_memory) sees acc_malloc and acc_free.
 * Odd sizes; every element checked; gangs write elements other gangs read on the host. */
#define E2E_NAME "whole_pointers"
#include <openacc.h>
#include "e2e.h"

static void add_present(double *p, int n, double v) {
#pragma acc parallel loop present(p)
  for (int i = 0; i < n; i++) p[i] += v;
}

int main(void) {
  int n = 1001;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 7; c[i] = -1; }

#pragma acc enter data copyin(a[0:n])
  add_present(a, n, 1);
#pragma acc data present(a)
  {
#pragma acc parallel loop
    for (int i = 0; i < n; i++) a[i] *= 2;
  }
#pragma acc parallel loop copy(a)
  for (int i = 0; i < n; i++) a[i] += 3;
#pragma acc serial copyin(a)
  {
    for (int i = 0; i < n; i++) a[n - 1 - i] += 0.5;
  }
#pragma acc exit data copyout(a[0:n])
  for (int i = 0; i < n; i++) CHECK(a[i] == (i + 1) * 2 + 3.5, "a[%d] = %g, want %g", i, a[i], (i + 1) * 2 + 3.5);

  /* On the host path memory is shared: nothing is allocated, so nothing is zeroed. */
  double b0 = acc_get_device_type() == acc_device_host ? 7 : 0, c0 = b0 ? 5 : 0;
#pragma acc data copyin(a[0:n]) create(zero: b[0:n]) copyout(b[0:n])
  {
#pragma acc parallel loop
    for (int i = 0; i < n; i++) b[i] += a[n - 1 - i];
  }
  for (int i = 0; i < n; i++) CHECK(b[i] == b0 + a[n - 1 - i], "b[%d] = %g, want %g", i, b[i], b0 + a[n - 1 - i]);

  for (int i = 0; i < n; i++) c[i] = 5;
#pragma acc parallel loop copyin(a[0:n]) create(zero: c[0:n]) copyout(c[0:n])
  for (int i = 0; i < n; i++) c[i] -= a[i];
  for (int i = 0; i < n; i++) CHECK(c[i] == c0 - a[i], "c[%d] = %g, want %g", i, c[i], c0 - a[i]);

  {
    acc_device_t t = acc_get_device_type();
    int d = acc_get_device_num(t);
    size_t bytes = (size_t)3 << 20;
    size_t before = acc_get_property(d, t, acc_property_free_memory);
    void *m = acc_malloc(bytes);
    size_t during = acc_get_property(d, t, acc_property_free_memory);
    acc_free(m);
    size_t after = acc_get_property(d, t, acc_property_free_memory);
    CHECK(before > 0 && during + bytes <= before, "free memory %zu before acc_malloc(%zu), %zu after", before, bytes, during);
    CHECK(after >= during + bytes, "free memory %zu before acc_free of %zu bytes, %zu after", during, bytes, after);
  }
  free(a);
  free(b);
  free(c);
  return e2e_finish();
}
