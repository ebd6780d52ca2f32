// Local arrays of 16 bytes or more are 16-byte aligned in the PTX (device.rs
// `align_local_aggregates`): LLVM 22 joins the stores to pa[2] and pa[3] into one
// `st.local.v2.b64` at offset 16, which needs it. With the array's own alignment of 8 the
// store faulted on the H100 ("misaligned address", fuzzer seed 801). Assembled by ptxas.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -save-temps -c %s -o %t/local-array-align.o
// RUN: FileCheck %s < %t/local-array-align.ptx
// RUN: %ptxas -arch=sm_90 %t/local-array-align.ptx -o %t/local-array-align.cubin

// CHECK-LABEL: .entry f_l{{[0-9]+}}(
// CHECK: .local .align 16 .b8 __local_depot{{[0-9]+}}[48];
// CHECK: st.local.v2.b64 [%rd{{[0-9]+}}+16],
void f(int n, long *out) {
  long pa[5];
#pragma acc parallel loop gang private(pa) copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    for (int x = 0; x < 5; x++)
      pa[x] = (long)i * x;
    pa[3] = pa[4] >> 2;
    pa[2] = pa[2] * 3 + pa[3];
    pa[i % 5] += 7;
    out[i] = pa[0] + pa[1] + pa[2] + pa[3] + pa[4];
  }
}
