// device_type sets: clang's validation rejects an unknown device type and a clause that may
// not follow device_type, each at its own column (the rewriter checks the same, for input
// that reaches it some other way: driver/src/rewrite.rs); the selection itself is
// lit-tests/runtime/device-type.c.
// RUN: not %accc -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=error:

void f(int *a, int n) {
// CHECK: device-type.c:[[@LINE+1]]:39: error: invalid value 'foo' in 'device_type' clause
#pragma acc parallel loop device_type(foo) num_gangs(2)
  for (int i = 0; i < n; i++) a[i]++;
// CHECK: device-type.c:[[@LINE+1]]:44: error: OpenACC clause 'copy' may not follow a 'dtype' clause in a 'kernels' construct
#pragma acc kernels dtype(nvidia) async(1) copy(a[0:n])
  a[0] = 1;
}
// CHECK: accc: error: clang-22 command failed
