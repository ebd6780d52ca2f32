// A two-dimensional section whose inner length is known only at run time is checked there,
// on every path (the host path too): not whole, it is not contiguous, an error at the
// directive naming the item as written; whole, the program runs on.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=host %t 7 | FileCheck %s --check-prefix=OK
// RUN: env ACC_DEVICE_TYPE=emulator %t 7 | FileCheck %s --check-prefix=OK
// OK: done 7
// RUN: not env ACC_DEVICE_TYPE=host %t 3 2>&1 | FileCheck %s
// RUN: not env ACC_DEVICE_TYPE=emulator %t 3 2>&1 | FileCheck %s

#include <stdio.h>
#include <stdlib.h>

#define M 7
double a[5][M];

int main(int argc, char **argv) {
  int m = argc > 1 ? atoi(argv[1]) : M;
// CHECK-NOT: done
// CHECK: section-errors.c:[[#@LINE+1]]:9: error: 'a[0:5][0:m]' is not contiguous: dimension 2 takes [0:3] of rows of 7 elements, so the parts of the rows lie apart in memory; accc maps contiguous sections only: every dimension after the first must be whole ([0:7] or [:])
#pragma acc parallel loop copy(a[0:5][0:m])
  for (int i = 0; i < 5; i++) a[i][0] = i;
  printf("done %d\n", m);
  return 0;
}
