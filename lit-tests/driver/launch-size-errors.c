// num_gangs, num_workers and vector_length must be positive (OpenACC 3.3 §2.5.10-12): a
// run-time value <= 0 is an error at the directive, on the device path and on the host
// path alike (the host fallback ignores sizes, but the program is wrong either way), and
// also under a false `if`. Positive values run.
// RUN: %accc -O2 %s -o %t
// RUN: ACC_DEVICE_TYPE=emulator %t 4 32 1 | FileCheck %s --check-prefix=OK
// RUN: ACC_DEVICE_TYPE=host %t 4 32 1 | FileCheck %s --check-prefix=OK
// RUN: not env ACC_DEVICE_TYPE=emulator %t 0 32 1 2>&1 | FileCheck %s --check-prefix=GANGS0
// RUN: not env ACC_DEVICE_TYPE=host %t 0 32 1 2>&1 | FileCheck %s --check-prefix=GANGS0
// RUN: not env ACC_DEVICE_TYPE=emulator %t -5 32 1 2>&1 | FileCheck %s --check-prefix=GANGSNEG
// RUN: not env ACC_DEVICE_TYPE=emulator %t 4 0 1 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not env ACC_DEVICE_TYPE=host %t 4 32 -1 2>&1 | FileCheck %s --check-prefix=WORKERS
// RUN: not env ACC_DEVICE_TYPE=emulator %t 4 32 0 2>&1 | FileCheck %s --check-prefix=WORKERS0
// A constant one is a compile-time error.
// RUN: not %accc -O2 -c -DCONSTANT %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CONSTANT

#include <stdio.h>
#include <stdlib.h>

#ifdef CONSTANT
void constant(int n, int *a) {
// CONSTANT: launch-size-errors.c:[[#@LINE+1]]:9: error: vector_length(0): the value must be positive
#pragma acc parallel loop vector_length(0) copyout(a[0:n])
  for (int i = 0; i < n; i++) a[i] = i;
}
#endif

void run(int g, int v, int w, int n, int *a) {
// OK: sum 4950
// GANGS0-NOT: sum
// GANGS0: launch-size-errors.c:[[#@LINE+5]]:9: error: num_gangs(0): the value must be positive
// GANGSNEG: launch-size-errors.c:[[#@LINE+4]]:9: error: num_gangs(-5): the value must be positive
// VECTOR: launch-size-errors.c:[[#@LINE+3]]:9: error: vector_length(0): the value must be positive
// WORKERS: launch-size-errors.c:[[#@LINE+2]]:9: error: num_workers(-1): the value must be positive
// WORKERS0: launch-size-errors.c:[[#@LINE+1]]:9: error: num_workers(0): the value must be positive
#pragma acc parallel num_gangs(g) vector_length(v) num_workers(w) copyout(a[0:n]) if(n > 0)
#pragma acc loop gang worker vector
  for (int i = 0; i < n; i++) a[i] = i;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  int n = 100;
  int *a = malloc(sizeof(int) * n);
  run(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), n, a);
  long sum = 0;
  for (int i = 0; i < n; i++) sum += a[i];
  printf("sum %ld\n", sum);
  return 0;
}
