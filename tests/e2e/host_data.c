/* host_data use_device (OpenACC 3.3 §2.8): inside the construct a listed pointer or array
 * is the device address of its data, as acc_deviceptr gives it; a library function (here a
 * noinline one, as MPI or cuBLAS would be) receives that address. With if_present, absent
 * data keeps its host address, and a false if leaves every address alone. A device pointer
 * taken inside host_data works in a compute region with deviceptr, after the construct and
 * inside it. On the host path the
 * device address is the host address, and the checks say so. */
#define E2E_NAME "host_data"
#include "e2e.h"
#include <openacc.h>

static void *seen[8];

/* The "library": records what it was given. */
__attribute__((noinline)) static void take(int k, void *p) { seen[k] = p; }

/* Doubles every element and adds its index, on device data given by its device address. */
__attribute__((noinline)) static void scale_on_device(float *dp, int n) {
#pragma acc parallel loop deviceptr(dp)
  for (int i = 0; i < n; i++) dp[i] = 2.0f * dp[i] + (float)i;
}

int main(void) {
  const int n = 1001; /* odd */
  float *a = e2e_alloc(sizeof(float) * n);
  float arr[37];
  float *absent = e2e_alloc(sizeof(float) * 5);
  for (int i = 0; i < n; i++) a[i] = (float)(i % 13);
  for (int i = 0; i < 37; i++) arr[i] = (float)i;
  int host = acc_get_device_type() == acc_device_host;

#pragma acc data copy(a[0:n]) copyin(arr)
  {
    void *da = acc_deviceptr(a), *darr = acc_deviceptr(arr), *dmid = acc_deviceptr(a + 5);
    CHECK(da != NULL && darr != NULL, "acc_deviceptr gave null");
    CHECK(host ? da == (void *)a : da != (void *)a, "acc_deviceptr(a)=%p a=%p on %s", da, (void *)a, host ? "host" : "device");
    float *mid = a + 5;
#pragma acc host_data use_device(a, arr, mid)
    {
      take(0, a);
      take(1, arr);
      take(2, &arr[3]);
      take(3, mid);
    }
    CHECK(seen[0] == da, "use_device(a): %p, acc_deviceptr %p", seen[0], da);
    CHECK(seen[1] == darr, "use_device(arr): %p, acc_deviceptr %p", seen[1], darr);
    CHECK(seen[2] == (char *)darr + 3 * sizeof(float), "use_device(arr): &arr[3] %p, want %p", seen[2], (void *)((char *)darr + 3 * sizeof(float)));
    CHECK(seen[3] == dmid, "use_device(mid): %p, acc_deviceptr(a+5) %p", seen[3], dmid);
    /* Outside the construct the variables are the host's again. */
    take(4, a);
    CHECK(seen[4] == (void *)a, "after host_data: a is %p, want the host %p", seen[4], (void *)a);

    /* A false if: host addresses. */
    int off = n < 0;
#pragma acc host_data use_device(a) if(off)
    take(5, a);
    CHECK(seen[5] == (void *)a, "if(0): %p, want the host %p", seen[5], (void *)a);

    /* A device pointer taken inside host_data, used in compute regions with deviceptr. */
    float *dp = NULL;
#pragma acc host_data use_device(a)
    { dp = a; }
    CHECK(dp == da, "dp=%p want %p", (void *)dp, da);
#pragma acc parallel loop deviceptr(dp)
    for (int i = 0; i < n; i++) dp[i] += 1.0f;
#pragma acc host_data use_device(a[0:n])
    scale_on_device(a, n);
    /* A compute construct inside host_data, with deviceptr of the listed pointer. */
    float *q = a;
#pragma acc host_data use_device(q)
    {
#pragma acc parallel loop deviceptr(q)
      for (int i = 0; i < n; i++) q[i] -= 0.5f;
    }
    /* Separate memory: the host copy has not changed yet. */
    if (!host) CHECK(a[7] == (float)(7 % 13), "a[7]=%g changed before the copy-out", a[7]);
  }
  for (int i = 0; i < n; i++) {
    float want = 2.0f * ((float)(i % 13) + 1.0f) + (float)i - 0.5f;
    if (a[i] != want) {
      CHECK(0, "a[%d]=%g want %g", i, a[i], want);
      break;
    }
  }

  /* if_present: absent data keeps its host address. */
#pragma acc host_data use_device(absent) if_present
  take(6, absent);
  CHECK(seen[6] == (void *)absent, "if_present of absent data: %p, want the host %p", seen[6], (void *)absent);
  /* Present through enter data, with if_present: the device address. */
#pragma acc enter data copyin(absent[0:5])
  void *dabs = acc_deviceptr(absent);
#pragma acc host_data use_device(absent) if_present if(n > 0)
  take(7, absent);
  CHECK(seen[7] == dabs, "if_present of present data: %p, want %p", seen[7], dabs);
#pragma acc exit data delete(absent[0:5])

  free(a);
  free(absent);
  return e2e_finish();
}
