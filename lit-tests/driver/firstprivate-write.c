// A scalar a parallel or serial region assigns without a data clause is firstprivate
// (OpenACC 3.3 §2.5.1, §2.5.2): the host never sees the new value. accc warns, naming the
// variable and the fix, and the compile goes on. No warning with a clause, a local, a loop
// variable, a value the host does not read afterwards, or in kernels (implicitly copy).
// RUN: %accc -O2 %s -o %t 2>&1 | FileCheck %s --implicit-check-not=warning:
// RUN: %accc -O0 -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=warning:
// RUN: ACC_DEVICE_TYPE=emulator %t | FileCheck %s --check-prefix=OUT

#include <stdio.h>

int main(void) {
  int n = 10, sum = 0, count = 0, flag = 0, last = 0, idx = 0, tmp = 0;
  float a[10];

// CHECK: firstprivate-write.c:[[#@LINE+1]]:9: warning: 'sum' is assigned in this serial region but is firstprivate (no data clause): the host will not see the new value; add copy(sum)
#pragma acc serial copy(a)
  for (int i = 0; i < n; i++) {
    a[i] = i;
    sum += i;
  }

// CHECK: firstprivate-write.c:[[#@LINE+1]]:9: warning: 'flag' is assigned in this parallel loop region but is firstprivate (no data clause): the host will not see the new value; add copy(flag)
#pragma acc parallel loop copy(a) copy(count)
  for (int i = 0; i < n; i++) {
    a[i] += 1;
    count = 1;
    flag = 1;
  }

  // Handled: a clause, a local, a loop variable declared outside, a private temporary.
#pragma acc parallel copy(a) firstprivate(tmp)
  {
    int local = 3;
    tmp = local;
#pragma acc loop private(last)
    for (idx = 0; idx < n; idx++) {
      last = idx;
      a[idx] += last + tmp;
    }
  }

  // kernels: a written scalar is copy.
  int k = 0;
#pragma acc kernels
  { k = n; }

  printf("%d %d %d %d %d\n", sum, count, flag, k, tmp);
  // OUT: 0 1 0 10 0
  return 0;
}

// Clang's own cleanup.dest.slot, stored by a loop's end in one region and read by the next
// region's launch, is no user variable: no warning.
void loops(int n, int *u, int *v) {
  for (int s = 0; s < 3; s++) {
#pragma acc parallel loop copy(v[0:n]) copyin(u[0:n])
    for (int i = 0; i < n; i++) v[i] = u[i];
#pragma acc parallel loop copy(v[0:n]) copyin(u[0:n])
    for (int i = 0; i < 2; i++) v[i] = u[i];
  }
}
