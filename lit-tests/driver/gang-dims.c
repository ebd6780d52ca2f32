// gang(dim: 2|3): the kernel reads the grid dimension of each gang loop (ctaid.y, ctaid.z),
// the host launches a grid of several dimensions (__accrt_launch_grid, the counts from
// num_gangs or from the loops' trip counts), and -Minfo shows the loop's blockIdx.y / .z.
// tests/e2e/gang_dims.c runs such kernels.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %accc -O2 -save-temps -Minfo=accel -c %s -o gd.o 2>&1 | FileCheck %s --check-prefix=INFO
// RUN: FileCheck %s --check-prefix=PTX < gang-dims.ptx
// RUN: %ptxas -arch=sm_90 gang-dims.ptx -o k.cubin
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload gang-dims.acc.ll -S -o - | FileCheck %s --check-prefix=HOST
// A row reduction keeps its dimension to one gang: num_gangs for it is a warning, not used.
// RUN: %accc -O2 -DROW_REDUCTION -c %s -o rr.o 2>&1 | FileCheck %s --check-prefix=ROW

// INFO-LABEL: gang-dims.c: rows:
// INFO: {{[0-9]+}}, launch: gangs in dimensions 1 and 2 of the grid, enough for each gang loop's iterations
// INFO-NEXT: {{[0-9]+}}, #pragma acc loop gang(dim: 2) /* blockIdx.y */
// INFO-NEXT: {{[0-9]+}}, #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
// PTX-LABEL: .entry rows_l{{[0-9]+}}(
// PTX-DAG: %ctaid.y
// PTX-DAG: %nctaid.y
// PTX-DAG: %ctaid.x
// HOST-LABEL: define dso_local void @rows(
// The trip counts of both loops give the two dimensions.
// HOST: call void @__accrt_launch_grid(ptr @__acc_kernel.rows_l{{[0-9]+}}, i64 %{{.*}}, i64 %{{.*}}, i64 1, i64 1, i64 256, ptr %acc.args)
void rows(double *a, int n, int m) {
#pragma acc parallel loop gang(dim: 2) copy(a[0:n * m])
  for (int j = 0; j < m; j++) {
#pragma acc loop gang(dim: 1) vector
    for (int i = 0; i < n; i++) a[j * n + i] *= 2;
  }
}

// INFO-LABEL: gang-dims.c: cube:
// INFO: {{[0-9]+}}, launch: num_gangs from the clause (a grid of several gang dimensions)
// INFO-NEXT: {{[0-9]+}}, #pragma acc loop gang(dim: 3), worker, vector /* blockIdx.z threadIdx.y threadIdx.x */
// PTX-LABEL: .entry cube_l{{[0-9]+}}(
// PTX: %ctaid.z
// HOST-LABEL: define dso_local void @cube(
// The clause's values; a dimension it leaves out would be 1.
// HOST: call void @__accrt_launch_grid(ptr @__acc_kernel.cube_l{{[0-9]+}}, i64 2, i64 3, i64 %{{.*}}, i64 1, i64 256, ptr %acc.args)
void cube(double *a, int n) {
#pragma acc parallel loop gang(dim: 3) num_gangs(2, 3, n) copy(a[0:n])
  for (int k = 0; k < n; k++) a[k] += 1;
}

// A one-dimensional grid keeps the one-dimensional launch.
// HOST-LABEL: define dso_local void @line(
// HOST: call void @__accrt_launch(ptr @__acc_kernel.line_l{{[0-9]+}}, i64 4,
void line(double *a, int n) {
#pragma acc parallel loop gang(dim: 1) num_gangs(4) copy(a[0:n])
  for (int k = 0; k < n; k++) a[k] += 1;
}

#ifdef ROW_REDUCTION
// ROW: gang-dims.c:[[@LINE+2]]:9: warning: 'num_gangs' for gang dimension 1 is not used: a gang(dim: 1) loop nested in a gang loop of a higher dimension reduces a variable private to that loop's iteration
void row_sums(double *out, int n, int m) {
#pragma acc parallel num_gangs(4) copyout(out[0:n])
#pragma acc loop gang(dim: 2)
  for (int i = 0; i < n; i++) {
    double s = 0;
#pragma acc loop gang reduction(+: s)
    for (int j = 0; j < m; j++) s += j;
    out[i] = s;
  }
}
#endif
