// The shape of reductions (reduction.rs, runtime-ir/reduce.c): in the IR the pass leaves
// (the emulator's copy of each kernel shows the calls before inlining), in the PTX, and in
// the compile report. The PTX is assembled by ptxas.
// RUN: rm -rf %t && mkdir -p %t/sm70
// RUN: %accc -O2 -emit-llvm -S %s -o %t/contract.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t/contract.ll -S -o - | FileCheck %s --check-prefix=IR
// RUN: ACCC_INFO=1 %accc -O2 -save-temps -c %s -o %t/structure.o 2>&1 | FileCheck %s --check-prefix=INFO
// RUN: FileCheck %s --check-prefix=PTX < %t/structure.ptx
// RUN: %ptxas -arch=sm_90 %t/structure.ptx -o %t/structure.cubin
// RUN: %accc -O2 -gpu=cc70 -save-temps -c %s -o %t/sm70/structure.o
// RUN: FileCheck %s --check-prefix=SM70 < %t/sm70/structure.ptx
// RUN: %ptxas -arch=sm_70 %t/sm70/structure.ptx -o %t/sm70/structure.cubin

// A gang vector loop with the clause on the combined construct: a per-gang copy of `s`
// that replaces the variable in the whole kernel, a private copy per thread for the loop,
// the gang tree at the loop's end, and the last-gang combine into `s` itself before the
// kernel returns, counting the gangs of grid dimension 1 (the last operand: the dimensions the
// variable's gang loops partition).
// IR-LABEL: define internal void @__accemu.kernel.gang_sum_l{{[0-9]+}}(i32 %n, ptr %a, ptr %s, ptr %acc.scratch)
// IR: call void @__acc_red_identity_add_f64(ptr %[[GANG:s.gang[0-9]+.acc.vector]], i64 1)
// IR: call void @__acc_red_identity_add_f64(ptr %[[RED:s.red[0-9]+.acc.vector]], i64 1)
// IR: for.body:
// IR-NOT: ptr %s,
// IR: call void @__acc_red_block_add_f64(ptr %[[RED]], i64 1, ptr addrspace(3) @acc.red.smem, i32 0)
// IR: call void @__acc_red_combine_add_f64(ptr %[[GANG]], ptr %[[RED]], i64 1)
// IR: call void @__acc_red_gang_add_f64(ptr %[[GANG]], ptr %s, i64 1, ptr %acc.scratch, i64 1, i64 0, ptr addrspace(3) @acc.red.smem, i64 1)
// IR-NEXT: ret void
//
// INFO-LABEL: structure.c: gang_sum:
// INFO-NEXT: [[@LINE+13]], Generating NVIDIA GPU code: parallel loop as kernel gang_sum_l{{[0-9]+}}
// INFO: [[@LINE+12]], Generating reduction(+:s) across gangs: per-gang partials, the last gang combines them in gang order
// INFO: [[@LINE+11]], Generating reduction(+:s) over gang worker vector: gang tree (a partial per warp in shared memory), shuffles per warp
//
// PTX: .shared .align 16 .b8 acc_$_red_$_smem[800];
// PTX-LABEL: .entry gang_sum_l{{[0-9]+}}(
// PTX: shfl.sync.down.b32 {{.*}}, 16, 31,
// PTX: shfl.sync.idx.b32
// PTX: st.volatile.global.b64
// PTX: atom.global.add.u32
// PTX: ld.volatile.global.b64
double gang_sum(int n, const double *a) {
  double s = 0;
#pragma acc parallel loop reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++) s += a[i];
  return s;
}

// Worker loop around a vector loop, the clause written once on the worker loop (OpenUH's
// placement): the vector loop gets its own copy, and since the worker loop's body only
// accumulates it, no tree of its own: one gang tree at the worker loop's end combines every
// thread's partial (OpenUH's nested reduction); nothing across gangs (`mx` is private to
// each gang iteration).
// IR-LABEL: define internal void @__accemu.kernel.row_max_l{{[0-9]+}}(
// IR-NOT: __acc_red_worker
// IR: call void @__acc_red_block_max_i32(ptr %mx.red{{[0-9]+}}.acc.vector, i64 1, ptr addrspace(3) @acc.red.smem, i32 0)
// IR-NOT: __acc_red_gang
// IR: ret void
//
// INFO: [[@LINE+16]], Generating reduction(max:mx) over worker: gang tree (a partial per warp in shared memory) over worker vector (the inner loops' trees deferred here), redux.sync per warp from sm_80, shuffles before
// INFO: [[@LINE+17]], Generating reduction(max:mx) over vector: each thread's partial goes to the enclosing loop's tree
//
// A 32-bit integer `max` is one redux.sync per warp on sm_80 and later (shuffles on sm_70).
// PTX-LABEL: .entry row_max_l{{[0-9]+}}(
// PTX: redux.sync.max.s32
// PTX-NOT: atom.global
// PTX: ret;
// SM70-LABEL: .entry row_max_l{{[0-9]+}}(
// SM70-NOT: redux.sync
// SM70: shfl.sync.down.b32
// SM70: ret;
void row_max(int n, int m, const int *a, int *out) {
#pragma acc parallel loop gang num_workers(4) vector_length(64) copyin(a[0:n*m]) copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    int mx = -1;
#pragma acc loop worker reduction(max:mx)
    for (int k = 0; k < 4; k++) {
#pragma acc loop vector
      for (int j = 0; j < m; j++) mx = a[i * m + j] > mx ? a[i * m + j] : mx;
    }
    out[i] = mx;
  }
}

// A vector reduction whose result the worker body stores: a worker tree at each of its
// ends. A worker is one warp: the tree needs no barrier, and no barrier id lives in a
// register (ptxas would reserve all 16 of the block's barriers).
// IR-LABEL: define internal void @__accemu.kernel.row_max_each_l{{[0-9]+}}(
// IR: call void @__acc_red_worker_max_i32(ptr %mx.red{{[0-9]+}}.acc.vector, i64 1, ptr addrspace(3) @acc.red.smem)
// IR: ret void
// INFO: [[@LINE+11]], Generating reduction(max:mx) over vector: worker tree (a worker is one warp), redux.sync per warp from sm_80, shuffles before
// PTX-LABEL: .entry row_max_each_l{{[0-9]+}}(
// PTX: redux.sync.max.s32
// PTX-NOT: bar.sync {{%r[0-9]+}}
// PTX: ret;
void row_max_each(int n, int m, const int *a, int *out) {
#pragma acc parallel loop gang num_workers(4) vector_length(64) copyin(a[0:n*m]) copyout(out[0:n*4])
  for (int i = 0; i < n; i++) {
#pragma acc loop worker
    for (int k = 0; k < 4; k++) {
      int mx = -1;
#pragma acc loop vector reduction(max:mx)
      for (int j = 0; j < m; j++) mx = a[i * m + j] * (k + 1) > mx ? a[i * m + j] * (k + 1) : mx;
      out[i * 4 + k] = mx;
    }
  }
}
