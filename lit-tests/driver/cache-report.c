// The cache directive in the compile report (codegen/src/cache.rs): each item is either in
// shared memory (the tile's shape and the loads that read it) or kept in global memory with
// the reason, never silently. The JSON report carries the same.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -Minfo=accel,json -c %s -o %t/cache.o 2> %t/accel.txt
// RUN: FileCheck %s < %t/accel.txt
// RUN: python3 -m json.tool %t/cache.accinfo.json | FileCheck %s --check-prefix=JSON

// CHECK-LABEL: cache-report.c: stencil1:
// CHECK: {{^}}         [[@LINE+7]], Caching a[i-1:3] in shared memory: 1 x 2050 elements of 8 bytes (16400 bytes) per window of the vector loop (8 iterations per thread), read by 3 loads of the body
// CHECK: Kernel stencil1_l{{[0-9]+}} for sm_90: {{[0-9]+}} registers, 16400 bytes shared memory
// JSON: "item": "a[i-1:3]",
// JSON: "placement": "shared",
void stencil1(int n, const double *a, double *b) {
#pragma acc parallel loop copyin(a[0:n]) copy(b[0:n])
  for (int i = 1; i < n - 1; i++) {
#pragma acc cache(a[i-1:3])
    b[i] = a[i - 1] + a[i] + a[i + 1];
  }
}

// A constant vector_length sizes the tile: 64 lanes of a[i-4:9] take 72 columns.
// CHECK-LABEL: cache-report.c: wide:
// CHECK: {{^}}         [[@LINE+4]], Caching a[i-4:9] in shared memory: 1 x 520 elements of 4 bytes (2080 bytes) per window of the vector loop (8 iterations per thread), read by 1 load where its index falls inside the section (checked at run time)
void wide(int n, const float *a, float *b) {
#pragma acc parallel loop vector_length(64) copyin(a[0:n]) copy(b[0:n])
  for (int i = 4; i < n - 4; i++) {
#pragma acc cache(readonly: a[i-4:9])
    float s = 0;
    for (int r = -4; r <= 4; r++) s += a[i + r];
    b[i] = s;
  }
}

// Two dimensions: three rows of a gang loop's j, the vector loop's columns.
// CHECK-LABEL: cache-report.c: five_point:
// CHECK: {{^}}         [[@LINE+6]], Caching a[j-1:3][i-1:3] in shared memory: 3 x 514 elements of 8 bytes (12336 bytes) per window of the vector loop (2 iterations per thread), read by 5 loads of the body
void five_point(int n, double (*a)[100], double (*b)[100]) {
#pragma acc parallel loop gang copyin(a[0:n][0:100]) copy(b[0:n][0:100])
  for (int j = 1; j < n - 1; j++) {
#pragma acc loop vector
    for (int i = 1; i < 99; i++) {
#pragma acc cache(a[j-1:3][i-1:3])
      b[j][i] = a[j][i] + a[j - 1][i] + a[j + 1][i] + a[j][i - 1] + a[j][i + 1];
    }
  }
}

// Kept in global memory, each with its reason, at the directive (and two that are cached).
// CHECK-LABEL: cache-report.c: reasons:
// JSON: "placement": "global",
// JSON-NEXT: "reason": "the start of its last dimension is not the loop index plus a constant offset (unit stride)"
#pragma acc routine seq
static double g(double x) { return 2 * x; }
void reasons(int n, int m, double *a, double *b, const double *c) {
#pragma acc parallel loop copyin(a[0:2*n+m], c[0:4]) copy(b[0:n])
  for (int i = 0; i < n; i++) {
// CHECK: {{^}}         [[@LINE+5]], Not caching a[2*i:2] (kept in global memory): the start of its last dimension is not the loop index plus a constant offset (unit stride)
// CHECK-NEXT: {{^}}             Not caching a[i:m] (kept in global memory): the length of dimension 1 is not a constant
// CHECK-NEXT: {{^}}             Not caching b[i:1] (kept in global memory): the loop body writes it; only data the loop does not write is cached (add 'readonly:' if it does not)
// CHECK-NEXT: {{^}}             Not caching c[0:4] (kept in global memory): the start of its last dimension does not follow the loop index
// CHECK: Kernel reasons_l{{[0-9]+}} for sm_90: {{[0-9]+}} registers, 0 bytes shared memory,
#pragma acc cache(a[2*i:2], a[i:m], b[i:1], c[0:4])
    b[i] += a[2 * i] + a[i] + c[i % 4];
  }
#pragma acc parallel loop gang copyin(a[0:2*n]) copy(b[0:n])
  for (int j = 0; j < n; j++) {
#pragma acc loop seq
    for (int i = 0; i < n; i++) {
// CHECK: {{^}}         [[@LINE+1]], Not caching a[i:2] (kept in global memory): the loop around it is sequential: only a loop spread over vector lanes is cached
#pragma acc cache(a[i:2])
      b[j] += a[i] + a[i + 1];
    }
  }
#pragma acc parallel loop gang worker copyin(a[0:n*m]) copy(b[0:n])
  for (int j = 0; j < n; j++) {
#pragma acc loop vector
    for (int i = 0; i < m; i++) {
// A vector loop inside a worker loop: a tile per worker, of one warp's lanes.
// CHECK: {{^}}         [[@LINE+1]], Caching a[j*m+i:1] in shared memory: 1 x 64 elements of 8 bytes (8192 bytes, a copy per worker (16 copies)) per window of the vector loop (2 iterations per thread), read by 1 load of the body
#pragma acc cache(a[j*m+i:1])
      b[j] += a[j * m + i];
    }
  }
  double (*v)[m] = (double (*)[m])a;
#pragma acc parallel loop gang copyin(v[0:n][0:m]) copy(b[0:n])
  for (int j = 1; j < n - 1; j++) {
#pragma acc loop vector
    for (int i = 0; i < m; i++) {
// CHECK: {{^}}         [[@LINE+1]], Not caching v[j-1:3][i:1] (kept in global memory): the rows of dimension 2 have no constant extent (a variable-length array)
#pragma acc cache(v[j-1:3][i:1])
      b[j] += v[j - 1][i] + v[j + 1][i];
    }
  }
#pragma acc parallel loop copyin(a[0:n+1]) copy(b[0:n])
  for (int i = 0; i < n; i++) {
// CHECK: {{^}}         [[@LINE+1]], Not caching a[i:2] (kept in global memory): the loop body calls 'g', which may write it; only data the loop does not write is cached (add 'readonly:' if it does not)
#pragma acc cache(a[i:2])
    b[i] = g(a[i] + a[i + 1]);
  }
#pragma acc parallel loop copyin(a[0:n+4000]) copy(b[0:n])
  for (int i = 0; i < n; i++) {
// CHECK: {{^}}         [[@LINE+1]], Not caching a[i:4000] (kept in global memory): its tile takes 34040 bytes of shared memory, over the 32768 left to tiles (at most 32768, less the private arrays' shared memory)
#pragma acc cache(a[i:4000])
    b[i] = a[i] + a[i + 3999];
  }
#pragma acc parallel loop copyin(a[0:n+1]) copy(b[0:n])
  for (int i = 0; i < n; i++) {
// With readonly the call does not stop it.
// CHECK: {{^}}         [[@LINE+1]], Caching a[i:2] in shared memory: 1 x 2049 elements of 8 bytes (16392 bytes) per window of the vector loop (8 iterations per thread), read by 2 loads of the body
#pragma acc cache(readonly: a[i:2])
    b[i] = g(a[i] + a[i + 1]);
  }
}
