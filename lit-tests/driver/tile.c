// tile(s1, ..., sn): the driver splits the nest into n tile loops (the directive, collapsed,
// marked `tile` with the sizes, innermost first) around n element loops (a `loop` directive
// of its own, collapsed, marked `tile.element`); gang goes to the tile loops, vector to the
// element loops (tests/e2e/tile.c runs them).
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %accc -O2 -save-temps -Minfo=accel -c %s -o tile.o 2> info.txt
// RUN: FileCheck %s --check-prefix=SRC < tile.acc.i
// RUN: FileCheck %s < tile.acc.ll
// RUN: FileCheck %s --check-prefix=PTX < tile.ptx
// RUN: %ptxas -arch=sm_90 tile.ptx -o k.cubin
// RUN: FileCheck %s --check-prefix=INFO < info.txt
// RUN: %accc -O2 -Minfo=json -c %s -o tile.o
// RUN: FileCheck %s --check-prefix=JSON < tile.accinfo.json
// Errors: clang's own checks of tile (constant sizes, enough tightly nested loops), then accc's.
// RUN: not %accc -DBAD_CLANG -c %s -o bad.o 2>&1 | FileCheck %s --check-prefix=CLANG
// RUN: not %accc -DBAD_ACCC -c %s -o bad.o 2>&1 | FileCheck %s --check-prefix=BAD --implicit-check-not=error:
// RUN: not %accc -DBAD_TYPE -c %s -o bad.o 2>&1 | FileCheck %s --check-prefix=TYPE

// CHECK-DAG: [[TILE:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"tile\00"
// CHECK-DAG: [[ELEM:@.str[.0-9]*]] = private unnamed_addr constant [13 x i8] c"tile.element\00"
// CHECK-DAG: [[COLLAPSE:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"collapse\00"
// CHECK-DAG: [[GANG:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"gang\00"
// CHECK-DAG: [[VECTOR:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"vector\00"

// SRC-LABEL: void plain(
// The trip counts before the nest, in a block of their own inside the construct.
// SRC: __acc_begin(1, "parallel loop", {{.*}} __acc_clause(1, "gang"); {{.*}}__acc_clause(1, "tile", ((long long)(32)), ((long long)(4))); __acc_clause(1, "collapse", 2LL); { int __acc_tile1_lo0 = (0); _Static_assert(__builtin_classify_type(__acc_tile1_lo0) == 1 || {{.*}} must be an integer"); __auto_type __acc_tile1_hi0 = (n); long long __acc_tile1_st0 = 1LL;
// The headers stay on their lines: the outer loop steps over tiles of 4 (the last size)...
// SRC-NEXT: for (long long __acc_tile1_t0 = 0; __acc_tile1_t0 < __acc_tile1_n0; __acc_tile1_t0 += ((long long)(4)))
// ... the inner one over tiles of 32, then the element loops and the partial-tile guard.
// SRC-NEXT: for (long long __acc_tile1_t1 = 0; __acc_tile1_t1 < __acc_tile1_n1; __acc_tile1_t1 += ((long long)(32))) { __acc_begin(2, "loop", {{.*}} __acc_clause(2, "vector"); {{.*}} for (long long __acc_tile1_e0 = 0; __acc_tile1_e0 < ((long long)(4)); __acc_tile1_e0++) for (long long __acc_tile1_e1 = 0; __acc_tile1_e1 < ((long long)(32)); __acc_tile1_e1++) if ((__acc_tile1_t0 + __acc_tile1_e0 < __acc_tile1_n0) & (__acc_tile1_t1 + __acc_tile1_e1 < __acc_tile1_n1)) { __typeof__(__acc_tile1_lo0) i = {{.*}}; __typeof__(__acc_tile1_lo1) j =
// SRC-SAME: a[i * m + j] += 1.0f; } __acc_end(2); } } __acc_end(1); }

// CHECK-LABEL: define dso_local void @plain(
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[GANG]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[TILE]], i64 noundef 32, i64 noundef 4)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COLLAPSE]], i64 noundef 2)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[VECTOR]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[ELEM]], i64 noundef 32, i64 noundef 4)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[COLLAPSE]], i64 noundef 2)

// The element index splits with the constant sizes: a mask and a shift for 32.
// PTX-LABEL: .entry plain_l{{[0-9]+}}(
// PTX: and.b64 {{.*}}, 31;
// PTX: shr.u64 {{.*}}, 5;

// INFO-LABEL: tile.c: plain:
// INFO: [[@LINE+5]], #pragma acc loop gang collapse(2) /* blockIdx.x */
// INFO-NEXT: tiled by tile(32,4): the 2 tile loops (tiles of 4 x 32 iterations, outermost loop first)
// INFO-NEXT: [[@LINE+3]], #pragma acc loop worker, vector collapse(2) /* threadIdx.y threadIdx.x */
// INFO: tiled by tile(32,4): the 2 element loops (tiles of 4 x 32 iterations, outermost loop first)
void plain(float *a, int n, int m) {
#pragma acc parallel loop tile(32, 4) gang vector copy(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * m + j] += 1.0f;
}

// `*` sizes: 32 for the innermost loop, the rest up to 256 iterations a tile. In kernels the
// tiled nest is independent: without level clauses, gang tile loops and vector element loops.
// INFO-LABEL: tile.c: stars:
// INFO: [[@LINE+8]], #pragma acc loop gang collapse(3) /* blockIdx.x */
// INFO-NEXT: tiled by tile(32,4,2): the 3 tile loops (tiles of 2 x 4 x 32 iterations, outermost loop first)
// INFO-NEXT: [[@LINE+6]], #pragma acc loop worker, vector collapse(3) /* threadIdx.y threadIdx.x */
// INFO: tiled by tile(32,4,2): the 3 element loops
// JSON: "tile": {
// JSON-NEXT: "loops": "tile",
// JSON-NEXT: "sizes": [
void stars(float *a, int n) {
#pragma acc kernels loop tile(*, *, *) copy(a[0:n*n*n])
  for (int i = n - 1; i >= 0; i--)
    for (unsigned j = 0; j < (unsigned)n; j += 1)
      for (long k = 0; k != n; ++k) a[(i * n + j) * n + k] *= 2.0f;
}

// A reduction over the tiled nest: each loop set reduces its part. A tile of 64 iterations
// gets a vector of 64 lanes.
// INFO-LABEL: tile.c: sum:
// INFO: launch: gangs enough for the gang loop's iterations, num_workers 1, vector_length 64
// INFO: Generating reduction(+:s) across gangs
void sum(float *a, int n, int m, double *out) {
  double s = 0;
#pragma acc parallel loop tile(8, 8) reduction(+:s) copyin(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) s += a[i * m + j];
  *out = s;
}

// collapse(2) beside tile(8): two associated loops, the outer one (which only collapse names)
// tiled by 1; `collapse` itself becomes the tile marks' count.
// SRC-LABEL: void tile_and_collapse(
// SRC: __acc_clause([[ID:[0-9]+]], "tile", ((long long)(8)), ((long long)(1))); __acc_clause([[ID]], "collapse", 2LL);
// SRC-NOT: "collapse", 1LL
// INFO-LABEL: tile.c: tile_and_collapse:
// INFO: #pragma acc loop gang collapse(2)
void tile_and_collapse(float *a, int n, int m) {
#pragma acc parallel loop collapse(2) tile(8) copy(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * m + j] *= 2.0f;
}

#ifdef BAD_CLANG
void bad_clang(float *a, int n, int k) {
// CLANG: tile.c:[[@LINE+1]]:32: error: OpenACC 'tile' clause size expression must be an asterisk or a constant expression
#pragma acc parallel loop tile(k) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
// CLANG: tile.c:[[@LINE+1]]:1: error: 'tile' clause specifies a loop count greater than the number of available loops
#pragma acc parallel loop tile(2, 2, 2) copy(a[0:n*n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[i * n + j] = 0;
#pragma acc parallel loop tile(2, 2) copy(a[0:n*n])
  for (int i = 0; i < n; i++) {
// CLANG: tile.c:[[@LINE+1]]:5: error: inner loops must be tightly nested inside a 'tile' clause
    a[i] = 0;
    for (int j = 0; j < n; j++) a[i * n + j] = 0;
  }
}
#endif

#ifdef BAD_ACCC
void bad_accc(float *a, int n, int s) {
#pragma acc parallel loop tile(2, 2) copy(a[0:n*n])
  for (int i = 0; i < n; i++)
// BAD: tile.c:[[@LINE+1]]:5: error: 'tile' needs a rectangular loop nest: the bounds or step of this loop use 'i', the variable of a loop around it in the tiled nest
    for (int j = 0; j < i; j++) a[i * n + j] = 0;
#pragma acc parallel loop tile(4) copy(a[0:n])
// BAD: tile.c:[[@LINE+1]]:3: error: 'tile' needs loops in canonical form: 'for (int i = lo; i < hi; i += step)'; its increment must step 'i' ('i++', 'i--', 'i += s', 'i -= s', 'i = i + s')
  for (int i = 1; i < n; i = i - s + 1) a[i] = 0;
}
#endif

#ifdef BAD_TYPE
// A pointer loop (clang allows one): the rewritten nest's static assertion says why not.
void bad_type(float *a, int n) {
  float *p;
// TYPE: tile.c:[[@LINE+1]]:{{[0-9]+}}: error: static assertion failed{{.*}}OpenACC 'tile': the loop variable 'p' must be an integer
#pragma acc parallel loop tile(4) copy(a[0:n])
  for (p = a; p < a + n; p++) *p = 0;
}
#endif
