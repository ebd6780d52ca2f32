// How a reduction loop's body is compiled (reduction.rs `fresh_each_iteration`,
// partition.rs `body_plan`, widen.rs): in the IR the pass leaves (the emulator's copy shows
// the helper calls before inlining) and in the PTX, assembled by ptxas.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -emit-llvm -S %s -o %t/contract.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t/contract.ll -S -o - | FileCheck %s --check-prefix=IR
// RUN: %accc -O2 -save-temps -c %s -o %t/loop-body.o
// RUN: FileCheck %s --check-prefix=PTX < %t/loop-body.ptx
// RUN: %ptxas -arch=sm_90 %t/loop-body.ptx -o %t/loop-body.cubin

// `&&`: each iteration gets a copy of its own at the identity, combined into the thread's
// copy at the latch, so the short circuit no longer makes the next load wait for this one.
// IR-LABEL: define internal void @__accemu.kernel.all_positive_l{{[0-9]+}}(
// IR: call void @__acc_red_identity_land_i32(ptr %[[RED:all.red[0-9]+.acc.vector]], i64 1)
// IR: for.body:
// IR-NEXT: call void @__acc_red_identity_land_i32(ptr %[[ITER:all.iter[0-9]+.acc.vector]], i64 1)
// IR: store i32 %{{.*}}, ptr %[[ITER]]
// IR: for.inc:
// IR: call void @__acc_red_combine_land_i32(ptr %[[RED]], ptr %[[ITER]], i64 1)
// IR: acc.ret:
// IR: call void @__acc_red_block_land_i32(ptr %[[RED]],
//
// One stream loaded per iteration: unrolled 4x (the unroller marks the unrolled loop and
// its remainder `nounroll`), loads in a row.
// PTX-LABEL: .entry all_positive_l{{[0-9]+}}(
// PTX: .pragma "nounroll";
// PTX-NEXT: ld.global.b32
// PTX-NOT: bra
// PTX: ld.global.b32
// PTX-NOT: bra
// PTX: ld.global.b32
// PTX-NOT: bra
// PTX: ld.global.b32
int all_positive(int n, const int *x) {
  int all = 1;
#pragma acc parallel loop reduction(&&:all) copyin(x[0:n])
  for (int i = 0; i < n; i++)
    all = all && x[i] > 0;
  return all;
}

// PTX-LABEL: .entry sum_l{{[0-9]+}}(
// PTX: .pragma "nounroll";
double sum(int n, const double *x) {
  double s = 0;
#pragma acc parallel loop reduction(+:s) copyin(x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

// Two streams: unrolled 8x, and the int index `i * n + k` is widened: the loop adds to
// 64-bit offsets, with no `mul.wide` per access.
// PTX-LABEL: .entry dots_l{{[0-9]+}}(
// PTX: .pragma "nounroll";
// PTX-NEXT: add.s64
// PTX-NEXT: ld.global.b64
// PTX-NEXT: add.s64
// PTX-NEXT: ld.global.b64
// PTX-NEXT: fma.rn.f64
// PTX: ret;
void dots(int n, const double *a, const double *b, double *c) {
#pragma acc parallel loop gang copyin(a[0:n*n], b[0:n*n]) copyout(c[0:n])
  for (int i = 0; i < n; i++) {
    double t = 0;
#pragma acc loop vector reduction(+:t)
    for (int k = 0; k < n; k++)
      t += a[i * n + k] * b[i * n + k];
    c[i] = t;
  }
}

// A stencil (five loads and a store): neither unrolled nor widened.
// PTX-LABEL: .entry stencil_max_l{{[0-9]+}}(
// PTX-NOT: nounroll
// PTX: mul.wide.s32
// PTX-NOT: nounroll
// PTX: ret;
double stencil_max(int n, const double *u, double *v) {
  double m = 0;
#pragma acc parallel loop gang reduction(max:m) copyin(u[0:n*n]) copy(v[0:n*n])
  for (int i = 1; i < n - 1; i++) {
#pragma acc loop vector reduction(max:m)
    for (int j = 1; j < n - 1; j++) {
      double w = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
      v[i * n + j] = w;
      m = w - u[i * n + j] > m ? w - u[i * n + j] : m;
    }
  }
  return m;
}
