/* Structured and dynamic reference counts (OpenACC 3.3 §2.6.7), seen through directives
 * only: where a copy-back must and must not happen. With separate device memory (the
 * emulator, a GPU) a missing or extra copy-out changes the host data; on the host path
 * (shared memory) the kernels write the host data directly, and the checks say so. */
#define E2E_NAME "refcount"
#include "e2e.h"

/* 1 when device memory is separate from host memory: a kernel's write to a copyin scalar
 * does not reach the host. */
static int separate_memory(void) {
  int x = 0;
#pragma acc parallel copyin(x)
  { x = 1; }
  return x == 0;
}

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

int main(void) {
  const int n = 1237; /* odd, not a multiple of any block size */
  int *a = e2e_alloc(sizeof(int) * n);
  int sep = separate_memory();

  /* 1. exit data delete inside data copy: the dynamic count is zero, no action; the
   *    region's copy stays present and its copy-back at the end happens. */
  fill(a, n, 0);
#pragma acc data copy(a[0:n])
  {
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] = 1000 + i;
#pragma acc exit data delete(a[0:n])
#pragma acc exit data delete(a[0:n]) finalize
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] += 1000;
  }
  expect("delete inside data copy", a, 0, n, 2000);

  /* 2. enter twice, exit once: still present, no copy-out; the second exit copies out. */
  fill(a, n, 0);
#pragma acc enter data copyin(a[0:n])
#pragma acc enter data copyin(a[0:n])
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 3000 + i;
#pragma acc exit data copyout(a[0:n])
  expect("first of two exits", a, 0, n, sep ? 0 : 3000);
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] += 1000;
#pragma acc exit data copyout(a[0:n])
  expect("second of two exits", a, 0, n, 4000);

  /* 3. finalize: three dynamic references dropped at once, with the copy-out. */
  fill(a, n, 0);
#pragma acc enter data copyin(a[0:n])
#pragma acc enter data create(a[0:n])
#pragma acc enter data copyin(a[0:n])
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 5000 + i;
#pragma acc exit data copyout(a[0:n]) finalize
  expect("copyout finalize", a, 0, n, 5000);
  /* Absent now: a data region copies the host values in again. */
#pragma acc data copy(a[0:n])
  {
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] += 1;
  }
  expect("after finalize", a, 0, n, 5001);

  /* 4. exit data copyout while a data region holds the data: only the dynamic count drops;
   *    no copy-out until the region ends (its copyin clause then copies nothing back). */
  fill(a, n, 0);
#pragma acc enter data copyin(a[0:n])
#pragma acc data copyin(a[0:n])
  {
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] = 6000 + i;
#pragma acc exit data copyout(a[0:n])
    expect("copyout inside data", a, 0, n, sep ? 0 : 6000);
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] += 1;
  }
  expect("after data copyin", a, 0, n, sep ? 0 : 6001);

  /* 5. The same with copy on the region: its end is the last reference and copies out. */
  fill(a, n, 0);
#pragma acc enter data copyin(a[0:n])
#pragma acc data copy(a[0:n])
  {
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] = 7000 + i;
#pragma acc exit data copyout(a[0:n])
  }
  expect("data copy ends last", a, 0, n, 7000);

  /* 6. Sub-ranges count on the enclosing range; the exit that drops the last reference
   *    copies out only its own section and frees the whole range. */
  fill(a, n, 0);
#pragma acc enter data copyin(a[0:n])
#pragma acc parallel loop present(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 8000 + i;
#pragma acc enter data copyin(a[10:100])
#pragma acc exit data copyout(a[10:100])
  expect("sub-range exit, still held", a, 0, n, sep ? 0 : 8000);
#pragma acc exit data copyout(a[17:301])
  expect("sub-range exit, before", a, 0, 17, sep ? 0 : 8000);
  expect("sub-range exit, section", a, 17, 318, 8000);
  expect("sub-range exit, after", a, 318, n, sep ? 0 : 8000);
  /* The whole range is gone: present(a[0:n]) data regions would fail; a copy works. */
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] += 1;
  expect("after sub-range exit", a, 17, 318, 8001);

  /* 7. update if_present skips absent data; update of present data copies. */
  fill(a, n, 0);
#pragma acc update self(a[0:n]) if_present
#pragma acc update device(a[0:n]) if_present
  expect("if_present of absent data", a, 0, n, 0);
#pragma acc data copyin(a[0:n])
  {
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] = 9000 + i;
#pragma acc update self(a[5:7]) if_present
    expect("update self if_present", a, 5, 12, 9000);
    expect("update self if_present, outside", a, 12, n, sep ? 0 : 9000);
  }

  /* 8. no_create: absent data is used at its host address (never touched here), present
   *    data through its device copy. */
  fill(a, n, 0);
  int *unused = e2e_alloc(sizeof(int) * 8);
  unused[0] = 42;
#pragma acc data copy(a[0:n])
  {
    int touch = n < 0; /* the kernel reaches `unused` but never accesses it */
#pragma acc parallel loop no_create(a[0:n], unused[0:8])
    for (int i = 0; i < n; i++) {
      a[i] += 10000;
      if (touch) unused[i % 8] = -1;
    }
  }
  expect("no_create of present data", a, 0, n, 10000);
  CHECK(unused[0] == 42, "no_create of absent data changed it");

  free(unused);
  free(a);
  return e2e_finish();
}
