// codegen/src/ptx_fixups.rs: an integer max whose second operand is a negation takes it
// first, because ptxas drops the negation of `max.s32 d, a, -x` feeding a max with a 0/1
// operand (docs/ptxas-bugs/, found by accfuzz reduce seed 156). ptxas assembles the PTX.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -save-temps -c %s -o %t/w.o
// RUN: FileCheck %s < %t/ptxas-workaround.ptx
// RUN: %ptxas -arch=sm_90 %t/ptxas-workaround.ptx -o %t/w.cubin

// CHECK-LABEL: .entry negated_max_l{{[0-9]+}}(
// CHECK: neg.s32 [[NEG:%r[0-9]+]], %r
// CHECK-NEXT: max.s32 %r{{[0-9]+}}, [[NEG]], %r
// CHECK: selp.b32
// CHECK: max.s32
// CHECK: ret;
void negated_max(int n, const int *a, const int *b, int c, int *out) {
  int r = 99;
#pragma acc parallel loop reduction(max:r) copyin(a[0:n], b[0:n])
  for (int i = 0; i < n; i++) {
    r = r > -(a[i] * i) ? r : -(a[i] * i);
    r = r > (-b[n - 1 - i] != c) ? r : (-b[n - 1 - i] != c);
  }
  *out = r;
}
