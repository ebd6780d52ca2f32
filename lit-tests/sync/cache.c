// The PTX of cached stencils (codegen/src/cache.rs): a .shared tile per item (a window of
// several iterations per thread: 8 x 256 + 2 doubles for three_point), a barrier before the
// window's cooperative fill (global loads stored to shared memory), one after it, the body's
// reads of the section from shared memory only. ptxas assembles it.
// RUN: rm -rf %t && mkdir -p %t/nosync
// RUN: %accc -O2 -save-temps -c %s -o %t/cache.o
// RUN: FileCheck %s < %t/cache.ptx
// RUN: %ptxas -arch=sm_90 %t/cache.ptx -o %t/cache.cubin
// RUN: ACCC_DEBUG_NO_SYNC=1 %accc -O2 -save-temps -c %s -o %t/nosync/cache.o
// RUN: FileCheck %s --check-prefix=NOSYNC < %t/nosync/cache.ptx

// CHECK-LABEL: .entry three_point_l{{[0-9]+}}(
// CHECK: .shared .align 8 .b8 [[TILE:acc_\$_cache_\$_a[0-9]*]][16400];
// CHECK: bar.sync 0;
// CHECK: ld.global.b64
// CHECK: st.shared.b64
// CHECK: bar.sync 0;
// CHECK-NOT: ld.global
// CHECK: ld.shared.b64
// CHECK: ld.shared.b64
// CHECK: ld.shared.b64
// CHECK-NOT: ld.global
// CHECK: st.global.b64
// CHECK: ret;
// NOSYNC-LABEL: .entry three_point_l{{[0-9]+}}(
// NOSYNC-NOT: bar.sync
// NOSYNC: ret;
void three_point(int n, const double *a, double *b) {
#pragma acc parallel loop copyin(a[0:n]) copy(b[0:n])
  for (int i = 1; i < n - 1; i++) {
#pragma acc cache(a[i-1:3])
    b[i] = a[i - 1] + 2 * a[i] + a[i + 1];
  }
}

// Three rows of a 2-D section, filled together; five shared reads per iteration.
// CHECK-LABEL: .entry five_point_l{{[0-9]+}}(
// CHECK: .shared .align 4 .b8 {{acc_\$_cache_\$_u[0-9]*}}[12312];
// CHECK: bar.sync 0;
// CHECK-COUNT-3: st.shared.b32
// CHECK: bar.sync 0;
// CHECK-NOT: ld.global
// CHECK-COUNT-5: ld.shared.b32
// CHECK-NOT: ld.global
// CHECK: st.global.b32
// CHECK: ret;
void five_point(int n, const float (*u)[131], float (*v)[131]) {
#pragma acc parallel loop gang copyin(u[0:n][0:131]) copy(v[0:n][0:131])
  for (int j = 1; j < n - 1; j++) {
#pragma acc loop vector
    for (int i = 1; i < 130; i++) {
#pragma acc cache(u[j-1:3][i-1:3])
      v[j][i] = u[j][i] + u[j - 1][i] + u[j + 1][i] + u[j][i - 1] + u[j][i + 1];
    }
  }
}

// A vector loop inside a worker loop: a tile per worker (16 copies) and worker barriers
// (bar.warp.sync: the runtime gives such kernels workers of one warp).
// CHECK-LABEL: .entry per_worker_l{{[0-9]+}}(
// CHECK: .shared .align 8 .b8 {{acc_\$_cache_\$_a[0-9]*}}[8448];
// CHECK-NOT: bar.sync
// CHECK: bar.warp.sync -1;
// CHECK: ld.global.b64
// CHECK: st.shared.b64
// CHECK: bar.warp.sync -1;
// CHECK-NOT: ld.global
// CHECK-COUNT-3: ld.shared.b64
// CHECK: st.global.b64
// CHECK-NOT: bar.sync
// CHECK: ret;
void per_worker(int n, int m, const double *a, double *b) {
#pragma acc parallel loop gang worker copyin(a[0:n*m]) copy(b[0:n*m])
  for (int j = 0; j < n; j++) {
#pragma acc loop vector
    for (int i = 1; i < m - 1; i++) {
#pragma acc cache(a[j*m+i-1:3])
      b[j * m + i] = a[j * m + i - 1] + a[j * m + i] + a[j * m + i + 1];
    }
  }
}
