/* declare in a function (OpenACC 3.3 §2.13): a data region from the directive to every
 * return of the function. Each clause is checked where its copy direction shows: copy and
 * copyout copy back at the return (and not before, with separate memory), copyin and create
 * never do, present needs data mapped around the call, deviceptr passes device addresses,
 * device_resident allocates on the device only. Compute regions after the directive use the
 * data without naming it (default(none) included). Early returns copy back too; a local
 * variable-length array and a local in an inner block stay alive until the return. On the
 * host path (shared memory) every write is visible at once, and the checks say so. */
#define E2E_NAME "declare_function"
#include "e2e.h"
#include <openacc.h>

static int sep; /* device memory is separate from host memory */

static int expect(const char *what, const int *a, int n, int base) {
  for (int i = 0; i < n; i++)
    if (a[i] != base + 3 * i) {
      CHECK(0, "%s: a[%d]=%d want %d", what, i, a[i], base + 3 * i);
      return 0;
    }
  return 1;
}

/* copy of a pointer's data: copied in, used by two regions, copied back at the return. */
static void with_copy(int *a, int n) {
#pragma acc declare copy(a[0:n])
#pragma acc parallel loop
  for (int i = 0; i < n; i++) a[i] += 100;
#pragma acc parallel loop default(none) firstprivate(n)
  for (int i = 0; i < n; i++) a[i] += 1000;
  /* Not yet copied back. */
  if (sep) expect("copy before the return", a, n, 0);
}

/* copyin of a local array, copyout of the caller's buffer, a local variable-length array
 * copied both ways, and an early return: every return copies out. */
static int early_return(int *res, int n, int early) {
  int in[37];
  int vla[n];
  for (int i = 0; i < 37; i++) in[i] = 3 * i;
  for (int i = 0; i < n; i++) vla[i] = i;
#pragma acc declare copyin(in) copyout(res[0:n]) copy(vla)
#pragma acc parallel loop
  for (int i = 0; i < n; i++) res[i] = in[i % 37] + 7 + vla[i] - i;
  /* A host write to copyin data stays on the host (separate memory). */
  in[0] = -50;
#pragma acc parallel loop
  for (int i = 0; i < n; i++) {
    res[i] += in[0];
    vla[i] = 2 * i;
  }
  /* Nothing copied back yet. */
  if (sep) CHECK(res[0] == -7 && res[n - 1] == -7 && vla[n - 1] == n - 1, "copyout before the return: res[0]=%d vla[n-1]=%d", res[0], vla[n - 1]);
  if (early) return 1;
  return 0;
}

static void returns(int n, int early) {
  int *res = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) res[i] = -7;
  CHECK(early_return(res, n, early) == early, "early_return's value");
  for (int i = 0; i < n; i++) {
    int want = 3 * (i % 37) + 7 + (sep ? 0 : -50);
    if (res[i] != want) {
      CHECK(0, "copyout at the return (early=%d): res[%d]=%d want %d", early, i, res[i], want);
      break;
    }
  }
  free(res);
}

/* copyout of a local, read by the caller through a pointer parameter after the return. */
static void fill_out(int *res, int n) {
  int loc[23];
#pragma acc declare create(loc)
  int *p = res;
#pragma acc declare copyout(p[0:n])
#pragma acc parallel loop
  for (int i = 0; i < 23; i++) loc[i] = 5 * i;
#pragma acc parallel loop
  for (int i = 0; i < n; i++) p[i] = loc[i % 23] + 1; /* create: device values only */
}

/* present: the caller mapped the data; deviceptr: a device address from acc_deviceptr;
 * device_resident: a device-only scratch array. */
static void with_present(int *a, int n) {
  int *d = acc_deviceptr(a);
  int scratch[19];
#pragma acc declare present(a[0:n]) deviceptr(d) device_resident(scratch)
#pragma acc parallel loop
  for (int i = 0; i < 19; i++) scratch[i] = i;
#pragma acc parallel loop
  for (int i = 0; i < n; i++) d[i] = 3 * i + scratch[i % 19] - (i % 19);
}

/* A declare in an inner block: its data region still lasts to the return. */
static void inner_block(int *res, int n) {
  {
    int tmp[n];
#pragma acc declare create(tmp)
#pragma acc parallel loop
    for (int i = 0; i < n; i++) tmp[i] = 3 * i + 1;
#pragma acc parallel loop copyout(res[0:n])
    for (int i = 0; i < n; i++) res[i] = tmp[i] - 1;
  }
}

int main(void) {
  const int n = 1001; /* odd */
  int *a = e2e_alloc(sizeof(int) * n);
  {
    int x = 0;
#pragma acc parallel copyin(x)
    { x = 1; }
    sep = x == 0;
  }

  for (int i = 0; i < n; i++) a[i] = 3 * i;
  with_copy(a, n);
  expect("copy after the return", a, n, 1100);
  CHECK(!acc_is_present(a, sizeof(int) * n) || !sep, "a still present after with_copy returned");

  returns(n, 0);
  returns(n, 1);

  int *res = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) res[i] = -7;
  fill_out(res, n);
  for (int i = 0; i < n; i++)
    if (res[i] != 5 * (i % 23) + 1) {
      CHECK(0, "copyout with create: res[%d]=%d want %d", i, res[i], 5 * (i % 23) + 1);
      break;
    }

  for (int i = 0; i < n; i++) a[i] = -1;
#pragma acc data copyout(a[0:n])
  with_present(a, n);
  expect("present and deviceptr", a, n, 0);

  for (int i = 0; i < n; i++) res[i] = -7;
  inner_block(res, n);
  expect("inner block", res, n, 0);

  free(a);
  free(res);
  return e2e_finish();
}
