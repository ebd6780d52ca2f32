// Array reductions whose bounds are only known at run time (codegen/src/atomic_reduction.rs):
// each update of an element becomes an atomic update of its device copy (atom.global.add,
// .max/.min, a compare-and-swap loop for *, &&, ||, _Bool elements and complex products);
// a region that reads an element, stores one plainly or passes its address gets private
// copies of run-time size instead; the report says which, and the forms neither can express
// are located errors. ptxas assembles the PTX.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -save-temps -Minfo=accel -c %s -o %t/r.o 2> %t/report.txt
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.txt
// RUN: FileCheck %s --check-prefix=PTX < %t/reduction-runtime-bounds.ptx
// RUN: %ptxas -arch=sm_90 %t/reduction-runtime-bounds.ptx -o %t/r.cubin
// RUN: not %accc -DSM80 --gpu-arch=sm_80 -c %s -o %t/e.o 2>&1 | FileCheck %s --check-prefix=SM80

// REPORT-LABEL: reduction-runtime-bounds.c: histogram:
// REPORT: [[@LINE+6]], Generating reduction(+:h[0:m]) over the compute region: atomic updates of its elements in device memory (its bounds are only known at run time)
// REPORT: Generating copy(h[0:m])
// PTX-LABEL: .entry histogram_l{{[0-9]+}}(
// PTX: atom.global.add.f64
// PTX: ret;
void histogram(int n, int m, const int *bin, const double *w, double *h) {
#pragma acc parallel loop reduction(+:h[0:m]) copyin(bin[0:n], w[0:n])
  for (int i = 0; i < n; i++) h[bin[i]] += w[i];
}

// REPORT-LABEL: reduction-runtime-bounds.c: extremes:
// REPORT: [[@LINE+7]], Generating reduction(max:hi[0:m]) over gang worker vector: atomic updates
// REPORT: Generating copy(hi[0:m])
// PTX-LABEL: .entry extremes_l{{[0-9]+}}(
// PTX: atom.global.max.s32
// PTX: ret;
void extremes(int n, int m, int *hi) {
#pragma acc parallel
#pragma acc loop gang reduction(max:hi[0:m])
  for (int i = 0; i < n; i++) {
    int j = i % m;
    hi[j] = hi[j] > i ? hi[j] : i;
  }
}

// REPORT-LABEL: reduction-runtime-bounds.c: products:
// REPORT: [[@LINE+5]], Generating reduction(*:p[0:m]) over the compute region: atomic updates
// PTX-LABEL: .entry products_l{{[0-9]+}}(
// PTX: atom.{{.*}}global.cas.b64
// PTX: ret;
void products(int n, int m, double *p) {
#pragma acc parallel loop reduction(*:p[0:m])
  for (int i = 0; i < n; i++) p[i % m] *= 1.5;
}

// A part of each row: atomics too, and the implied copy maps the whole rows.
// REPORT-LABEL: reduction-runtime-bounds.c: row_part:
// REPORT: [[@LINE+4]], Generating reduction(+:b[1:m][2:3]) over the compute region: atomic updates of its elements in device memory (a part of each row, not one range of elements)
// REPORT: [[@LINE+3]], Generating copy(b[1:m][:])
// PTX-LABEL: .entry row_part_l{{[0-9]+}}(
void row_part(int n, int m, double (*b)[7]) {
#pragma acc parallel loop reduction(+:b[1:m][2:3])
  for (int i = 0; i < n; i++) b[1 + i % m][2 + i % 3] += 1;
}

// A region that reads an element other than to update it: each thread gets copies of run-time
// size in the launch's private area (reduction.rs `View`), combined into h with
// compare-and-swaps at the end of each gang.
// REPORT-LABEL: reduction-runtime-bounds.c: reads:
// REPORT: [[@LINE+9]], Generating reduction(+:h[0:m]) across gangs: a copy per thread of run-time size in the launch's private area (the region reads its elements); each gang combines its copy into the variable with compare-and-swaps
// REPORT: [[@LINE+8]], Generating reduction(+:h[0:m]) over gang worker vector: a copy per thread of run-time size in the launch's private area (the region reads its elements) (gang tree
// REPORT: Generating copy(h[0:m])
// PTX-LABEL: .entry reads_l{{[0-9]+}}(
// PTX-NOT: atom.global.add.f64
// PTX: bar.sync
// PTX: atom.relaxed.sys.global.cas.b64
// PTX: ret;
void reads(int n, int m, double *h, double *out) {
#pragma acc parallel loop reduction(+:h[0:m]) copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    h[i % m] += 1;
    out[i] = h[i % m];
  }
}

// A gang's own array that its vector lanes reduce: they share it (shared memory).
// REPORT-LABEL: reduction-runtime-bounds.c: private_array:
// REPORT: [[@LINE+8]], Generating reduction(+:t[0:m]) over worker vector: atomic updates of its elements where the loop's threads share it (its bounds are only known at run time; an array private to an enclosing level)
// PTX-LABEL: .entry private_array_l{{[0-9]+}}(
// PTX: atom.shared.add.f64
// PTX: ret;
void private_array(int n, int m, double *out) {
#pragma acc parallel loop gang copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    double t[64];
#pragma acc loop vector reduction(+:t[0:m])
    for (int k = 0; k < n; k++) t[k % m] += k;
    out[i] = t[0];
  }
}

// && and a _Bool element: compare-and-swap loops (32 bits; an 8-bit one on a 32-bit word).
// REPORT-LABEL: reduction-runtime-bounds.c: logical:
// REPORT: [[@LINE+5]], Generating reduction(&&:f[0:m]) over the compute region: atomic updates
// PTX-LABEL: .entry logical_l{{[0-9]+}}(
// PTX: atom.{{.*}}cas.b32
// PTX: ret;
void logical(int n, int m, int *f, _Bool *b, const int *x) {
#pragma acc parallel loop reduction(&&:f[0:m]) reduction(|:b[0:m]) copyin(x[0:n])
  for (int i = 0; i < n; i++) {
    f[i % m] = f[i % m] && x[i];
    b[i % m] |= x[i] > 3;
  }
}

// A double _Complex product: one 128-bit compare-and-swap of both parts (PTX 8.4, sm_90).
// REPORT-LABEL: reduction-runtime-bounds.c: complex_product:
// REPORT: [[@LINE+5]], Generating reduction(*:z[0:m]) over the compute region: atomic updates
// PTX-LABEL: .entry complex_product_l{{[0-9]+}}(
// PTX: atom.{{.*}}cas.b128
// PTX: ret;
void complex_product(int n, int m, double _Complex *z, const double _Complex *w) {
#pragma acc parallel loop reduction(*:z[0:m]) copyin(w[0:n])
  for (int i = 0; i < n; i++) z[i % m] *= w[i];
}

// Rows that are pointers: the implied copy maps each row, the updates go through the
// device row pointers.
// REPORT-LABEL: reduction-runtime-bounds.c: pointer_rows:
// REPORT: [[@LINE+6]], Generating reduction(+:p[0:n][0:m]) over the compute region: atomic updates of its elements in device memory (its rows are pointers, not one range of elements)
// REPORT: [[@LINE+5]], Generating copy(p[0:n][0:m])
// PTX-LABEL: .entry pointer_rows_l{{[0-9]+}}(
// PTX: atom{{.*}}.add.f64
// PTX: ret;
void pointer_rows(int k, int n, int m, double **p) {
#pragma acc parallel loop reduction(+:p[0:n][0:m])
  for (int i = 0; i < k; i++) p[i % n][i % m] += 1;
}

#ifdef SM80
// SM80: error: a 'double _Complex' array reduction with '*' updates its elements with a 128-bit compare-and-swap, which GPU architecture sm_80 lacks
#endif

// A plain store and an element's address passed to a function: copies too.
// REPORT-LABEL: reduction-runtime-bounds.c: assigns:
// REPORT: [[@LINE+4]], Generating reduction(max:h[0:m]) across gangs: a copy per thread of run-time size
// PTX-LABEL: .entry assigns_l{{[0-9]+}}(
// PTX: atom.relaxed.sys.global.cas.b64
void assigns(int n, int m, double *h) {
#pragma acc parallel loop reduction(max:h[0:m])
  for (int i = 0; i < n; i++) h[i % m] = i;
}

#pragma acc routine seq
static void bump(int *p) { *p += 2; }
// REPORT-LABEL: reduction-runtime-bounds.c: calls:
// REPORT: [[@LINE+4]], Generating reduction(+:h[0:m]) across gangs: a copy per thread of run-time size
// PTX-LABEL: .entry calls_l{{[0-9]+}}(
// PTX: atom.relaxed.sys.global.cas.b32
void calls(int n, int m, int *h) {
#pragma acc parallel loop reduction(+:h[0:m])
  for (int i = 0; i < n; i++) bump(&h[i % m]);
}

// A part of each row whose region stores an element plainly: private copies of the whole
// rows, combined into the array row by row, the part's columns only.
// REPORT-LABEL: reduction-runtime-bounds.c: row_part_stores:
// REPORT: [[@LINE+3]], Generating reduction(+:m[0:8][0:4]) across gangs: per-gang partials of the part of each row, the last gang combines them in gang order
// PTX-LABEL: .entry row_part_stores_l{{[0-9]+}}(
void row_part_stores(int n, double m[8][8]) {
#pragma acc parallel loop reduction(+:m[0:8][0:4])
  for (int i = 0; i < n; i++) m[i % 8][i % 4] = i;
}

// A part of each row of a 3-D array whose region stores an element plainly: copies of
// run-time size holding the whole rows, combined into the array over the part's elements
// only (row by row, every trailing dimension's part).
// REPORT-LABEL: reduction-runtime-bounds.c: box_stores:
// REPORT: [[@LINE+6]], Generating reduction(+:b[1:2][1:3][2:4]) across gangs: a copy per thread of run-time size in the launch's private area (the region reads its elements); each gang combines its copy into the variable with compare-and-swaps
// REPORT: [[@LINE+5]], Generating copy(b[1:2][:][:])
// PTX-LABEL: .entry box_stores_l{{[0-9]+}}(
// PTX: atom.relaxed.sys.global.cas.b64
// PTX: ret;
void box_stores(int n, long b[4][5][7]) {
#pragma acc parallel loop reduction(+:b[1:2][1:3][2:4])
  for (int i = 0; i < n; i++) b[1 + i % 2][1 + i % 3][2 + i % 4] = i;
}

// A gang loop's item whose bounds the region computes, in a region that reads an element:
// each thread's copy is made where the loop begins (on its stack, or from the device heap
// when large), and each gang combines the loop's result into the variable.
// REPORT-LABEL: reduction-runtime-bounds.c: gang_computed:
// REPORT: [[@LINE+11]], Generating reduction(+:h[0:k]) over gang worker vector: a copy per thread of run-time size made where the loop begins (the region reads its elements) (gang tree (a partial per warp in shared memory)); combined into the variable with compare-and-swaps where the loop ends
// REPORT: Generating implicit private(a reduction copy of h[0:k]): a thread's own array whose size the region computes: on its stack up to 256 bytes, else from the device heap
// PTX-LABEL: .entry gang_computed_l{{[0-9]+}}(
// PTX: malloc
// PTX: bar.sync
// PTX: atom.relaxed.sys.global.cas.b64
// PTX: free
void gang_computed(int n, const int *len, double *h, double *out) {
#pragma acc parallel copyin(len[0:1]) copy(h[0:64]) copyout(out[0:n])
  {
    int k = len[0];
#pragma acc loop gang vector reduction(+:h[0:k])
    for (int i = 0; i < n; i++) {
      h[i % k] += 1;
      out[i] = h[i % k];
    }
  }
}

// Rows that are pointers to arrays (`double (**q)[6]`): the arrays' elements are the rows'
// (contract.rs `rows_of_arrays`); a part of each array read and stored plainly gets copies
// of the whole arrays, combined over the part only; the implied copy maps the rows' arrays.
// REPORT-LABEL: reduction-runtime-bounds.c: array_rows:
// REPORT: [[@LINE+5]], Generating reduction(max:q[0:a][1:b][2:3]) across gangs: a copy per thread of run-time size in the launch's private area (the region reads its elements); each gang combines its copy into the variable with compare-and-swaps
// REPORT: [[@LINE+4]], Generating copy(q[0:a][1:b][:])
// PTX-LABEL: .entry array_rows_l{{[0-9]+}}(
// PTX: atom.relaxed.sys.cas.b64
void array_rows(int n, int a, int b, double (**q)[6]) {
#pragma acc parallel loop reduction(max:q[0:a][1:b][2:3])
  for (int t = 0; t < n; t++) {
    double v = q[t % a][1 + t % b][2 + t % 3];
    q[t % a][1 + t % b][2 + t % 3] = v > t ? v : t;
  }
}
