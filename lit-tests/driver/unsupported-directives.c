// Every OpenACC directive that accc recognises but does not lower yet is rejected with
// file:line:col (the directive name's column), all of them in one run, and no object.
// RUN: rm -f %t.o
// RUN: not %accc -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: test ! -e %t.o

void f(int *p, int n, int s) {
// init, shutdown and set are lowered (lit-tests/runtime/device-directives.c): no error.
#pragma acc init
#pragma acc shutdown
#pragma acc set device_num(0)
#pragma acc parallel loop copy(p[0:n])
  for (int i = 0; i < n; i++) {
// CHECK: unsupported-directives.c:[[@LINE+1]]:13: error: OpenACC 'cache' is not supported yet
#pragma acc cache(p[0:4])
// Atomics are lowered (lit-tests/driver/atomic.c): no error.
#pragma acc atomic
    s++;
  }
}
