// Where synchronisation appears in the kernels, and where it must not (guard.rs).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -save-temps -c %s -o %t/placement.o
// RUN: FileCheck %s < %t/placement.ptx
// RUN: %ptxas -arch=sm_90 %t/placement.ptx -o %t/placement.cubin

// A gang/vector nest whose loops do not communicate (Jacobi's shape): no barrier at all.
// CHECK-LABEL: .entry no_communication_l{{[0-9]+}}(
// CHECK-NOT: bar.sync
// CHECK-NOT: barrier
// CHECK: ret;
void no_communication(int n, int m, const double *u, double *v) {
#pragma acc parallel loop gang copyin(u[0:n*m]) copy(v[0:n*m])
  for (int i = 1; i < n - 1; i++) {
#pragma acc loop vector
    for (int j = 1; j < m - 1; j++)
      v[i * m + j] = 0.25 * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]);
  }
}

// Two vector loops of one gang iteration that communicate: one block barrier between them,
// none after the second (only the gang loop's next iteration follows).
// CHECK-LABEL: .entry two_loops_l{{[0-9]+}}(
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: ret;
void two_loops(int n, int m, double *a, double *b) {
#pragma acc parallel loop gang copy(a[0:n*m], b[0:n*m])
  for (int i = 0; i < n; i++) {
#pragma acc loop vector
    for (int j = 0; j < m; j++) a[i * m + j] = j;
#pragma acc loop vector
    for (int j = 0; j < m; j++) b[i * m + j] = a[i * m + m - 1 - j];
  }
}

// Gang-redundant code that loads and stores: lane 0 does it, the loaded value is broadcast
// through shared memory between two barriers (the first orders it after the previous gang
// iteration's readers of the slot).
// CHECK-LABEL: .entry broadcast_l{{[0-9]+}}(
// CHECK: bar.sync 0;
// CHECK: st.shared
// CHECK: bar.sync 0;
// CHECK: ld.shared
// CHECK: ret;
void broadcast(int n, int m, int *c, int *out) {
#pragma acc parallel loop gang copy(c[0:n], out[0:n*m])
  for (int i = 0; i < n; i++) {
    int t = c[i];
    c[i] = t * 2;
#pragma acc loop vector
    for (int j = 0; j < m; j++) out[i * m + j] = t + j;
  }
}

// Vector-single code in a worker loop syncs only the worker's lanes, one warp (the runtime
// launches such kernels with vector_length 32): a warp barrier, never the block's barrier 0
// nor a named barrier whose id is in a register (ptxas would reserve all 16 barriers).
// CHECK-LABEL: .entry worker_scope_l{{[0-9]+}}(
// CHECK-NOT: bar.sync
// CHECK: bar.warp.sync -1;
// CHECK-NOT: bar.sync 0;
// CHECK: ret;
void worker_scope(int n, int w, int m, int *head, int *out) {
#pragma acc parallel loop gang num_workers(4) vector_length(32) copy(head[0:n*w], out[0:n*w*m])
  for (int i = 0; i < n; i++) {
#pragma acc loop worker
    for (int k = 0; k < w; k++) {
      head[i * w + k] += 1;
#pragma acc loop vector
      for (int j = 0; j < m; j++) out[(i * w + k) * m + j] = head[i * w + k] + j;
    }
  }
}
