// Every OpenACC directive that accc recognises is lowered: the last one that was rejected,
// cache, is lowered too now (codegen/src/cache.rs; lit-tests/driver/cache-report.c), so a
// unit using each compiles without an error.
// RUN: rm -f %t.o
// RUN: %accc -c %s -o %t.o 2>&1 | FileCheck %s --allow-empty --implicit-check-not=error:
// RUN: test -e %t.o

void f(int *p, int n, int s) {
// init, shutdown and set are lowered (lit-tests/runtime/device-directives.c): no error.
#pragma acc init
#pragma acc shutdown
#pragma acc set device_num(0)
#pragma acc parallel loop copy(p[0:n])
  for (int i = 0; i < n; i++) {
#pragma acc cache(p[0:4])
// Atomics are lowered (lit-tests/driver/atomic.c): no error.
#pragma acc atomic
    s++;
  }
}
