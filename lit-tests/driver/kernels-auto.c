// Dependence analysis of kernels loops without independent and of auto loops (autopar.rs,
// depend.rs): the -Minfo report says which are partitioned and why the others stay
// sequential; the e2e program tests/e2e/kernels_auto.c launches its proved loops with more
// than one lane on the emulator, and its kept ones with one.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -Minfo=accel -c %s -o %t/k.o 2> %t/report.txt
// RUN: FileCheck %s < %t/report.txt
// RUN: %accc -O2 -Minfo=json -c %s -o %t/j.o
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print(l['location']['line'], l['proved_independent'], l['sequential_reason']) for r in d['regions'] for l in r['loops']]" %t/j.accinfo.json | FileCheck %s --check-prefix=JSON
// RUN: %accc -O2 %S/../../tests/e2e/kernels_auto.c -o %t/kernels_auto
// RUN: env ACC_DEVICE_TYPE=emulator ACC_NOTIFY=1 %t/kernels_auto 2>&1 | FileCheck %s --check-prefix=EMU

// EMU-DAG: launch kernel scale_l{{[0-9]+}} {{.*}} block=256x1
// EMU-DAG: launch kernel sweep_l{{[0-9]+}} {{.*}} grid=35 block=256x1
// EMU-DAG: launch kernel blocks_l{{[0-9]+}} {{.*}} block=256x1
// EMU-DAG: launch kernel matvec_l{{[0-9]+}} {{.*}} block=256x1
// EMU-DAG: launch kernel shift_l{{[0-9]+}} {{.*}} grid=1 block=1x1
// EMU: PASS kernels_auto

// JSON: {{^}}[[# @LINE+7]] True None
// JSON: {{^}}[[# @LINE+15]] False kernels loop without independent, not proved parallel: 'x' and 'y' may point to the same memory
// CHECK-LABEL: kernels-auto.c: copy:
// CHECK: [[@LINE+4]], #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
// CHECK-NEXT: loop is parallelizable: accc proved its iterations independent (no loop-carried dependence)
void copy(int n, const float *restrict x, float *restrict y) {
#pragma acc kernels copyin(x[0:n]) copyout(y[0:n])
#pragma acc loop
  for (int i = 0; i < n; i++) y[i] = x[i];
}

// Plain pointers may alias: the reason names both and suggests restrict.
// CHECK-LABEL: kernels-auto.c: alias:
// CHECK: [[@LINE+3]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: 'x' and 'y' may point to the same memory: declare the pointers restrict (e.g. 'double *restrict x') or mark the loop independent */
void alias(int n, const float *x, float *y) {
#pragma acc kernels copyin(x[0:n]) copyout(y[0:n])
#pragma acc loop
  for (int i = 0; i < n; i++) y[i] = x[i];
}

// A recurrence, an indirect subscript, a reversed copy within one array (the halves meet),
// a copy from odd to even elements (proved by the GCD test), a call that writes memory, an
// atomic, a scalar whose last value is used, a reduction clause without independent, and
// one with it (partitioned on the user's word: no proof note).
// CHECK-LABEL: kernels-auto.c: reasons:
// CHECK: [[@LINE+20]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: 'a' written in one iteration is read in another (dependence distance 2) */
// CHECK: [[@LINE+21]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: the subscripts of 'a' are not affine in the loop variables, so accc cannot tell which iterations touch the same element */
// CHECK: [[@LINE+22]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: the subscripts of 'a' are not affine in the loop variables, so accc cannot tell which iterations touch the same element */
// CHECK: [[@LINE+23]], #pragma acc loop gang, worker, vector
// CHECK-NEXT: loop is parallelizable
// CHECK: [[@LINE+23]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: it calls 'tick': it may write memory (accc proves only calls of functions that write none) */
// CHECK: [[@LINE+24]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: it has atomic operations (accc keeps them in program order) */
// CHECK: [[@LINE+30]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: 'last' is written in every iteration (after the loop it holds the last iteration's value) */
// CHECK: [[@LINE+33]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: it has a reduction clause, which accc applies to analysed loops only with independent: write 'loop independent reduction(...)' */
// CHECK: [[@LINE+34]], #pragma acc loop gang, worker, vector /* {{.*}} */ 
// CHECK-NOT: loop is parallelizable
int counter;
#pragma acc declare create(counter)
#pragma acc routine seq
static void tick(void) { counter++; }
void reasons(int n, double *restrict a, const int *restrict idx) {
  int hits = 0;
  double s = 0;
#pragma acc kernels copy(a[0:2*n+2]) copyin(idx[0:n]) copy(hits, s)
  {
#pragma acc loop
    for (int i = 2; i < n; i++) a[i] = a[i - 2] * 0.5;
#pragma acc loop
    for (int i = 0; i < n; i++) a[idx[i]] = 1.0;
#pragma acc loop
    for (int i = 0; i < n; i++) a[i] = a[n - 1 - i];
#pragma acc loop
    for (int i = 0; i < n; i++) a[2 * i] = a[2 * i + 1];
#pragma acc loop
    for (int i = 0; i < n; i++) tick();
#pragma acc loop
    for (int i = 0; i < n; i++) {
#pragma acc atomic update
      hits += 1;
    }
    {
      double last = 0;
#pragma acc loop
      for (int i = 0; i < n; i++) last = a[i];
      a[0] = last;
    }
#pragma acc loop reduction(+:s)
    for (int i = 0; i < n; i++) s += a[i];
#pragma acc loop independent reduction(+:s)
    for (int i = 0; i < n; i++) s += a[i];
  }
}

// The jacobi sweep: the row loop is gang, the column loop (a symbolic row width
// delinearised by its range) worker and vector.
// CHECK-LABEL: kernels-auto.c: jacobi:
// CHECK: [[@LINE+6]], #pragma acc loop gang /* blockIdx.x */
// CHECK-NEXT: loop is parallelizable
// CHECK: [[@LINE+6]], #pragma acc loop worker, vector /* threadIdx.y threadIdx.x */
// CHECK-NEXT: loop is parallelizable
void jacobi(int n, const double *restrict u, double *restrict v) {
#pragma acc kernels present(u[0:n*n], v[0:n*n])
#pragma acc loop
  for (int i = 1; i < n - 1; i++)
#pragma acc loop
    for (int j = 1; j < n - 1; j++)
      v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

// Under a sequential loop a proved loop gets no gang (the gangs could not wait for each
// other between rows); an auto loop in a parallel construct is analysed too, and a
// pointer that moves through the array is not followed.
// CHECK-LABEL: kernels-auto.c: under_seq:
// CHECK: [[@LINE+8]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: 'm' written in one iteration is read in another */
// CHECK: [[@LINE+9]], #pragma acc loop worker, vector /* threadIdx.y threadIdx.x */
// CHECK: [[@LINE+10]], #pragma acc loop gang, worker, vector
// CHECK-NEXT: loop is parallelizable
// CHECK: [[@LINE+13]], #pragma acc loop seq /* sequential: auto loop, not proved parallel: the pointer 'p' is carried from one iteration to the next
float m[50][60];
void under_seq(int n, float *restrict q) {
#pragma acc kernels
#pragma acc loop
  for (int i = 1; i < 50; i++)
#pragma acc loop
    for (int j = 0; j < 60; j++) m[i][j] = m[i - 1][59 - j] + 1;
#pragma acc parallel loop auto copy(q[0:n])
  for (int i = 0; i < n; i++) q[i] *= 2;
#pragma acc parallel copy(q[0:n])
  {
    float *p = q;
#pragma acc loop auto
    for (int i = 0; i < n; i++) *p++ += 1;
  }
}

// A loop left by break, and pointers held in global variables (their targets may be one
// array).
// CHECK-LABEL: kernels-auto.c: globals_and_break:
// CHECK: [[@LINE+6]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: it can be left before its last iteration (break, return or goto) */
// CHECK: [[@LINE+12]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: 'gq' and 'gp' may point to the same memory
double *gp, *gq;
void globals_and_break(int n, double *restrict a) {
#pragma acc kernels copy(a[0:n])
  {
#pragma acc loop
    for (int i = 0; i < n; i++) {
      if (a[i] < 0) break;
      a[i] = 1;
    }
  }
#pragma acc kernels copy(gp[0:n]) copyin(gq[0:n])
#pragma acc loop
  for (int i = 0; i < n; i++) gp[i] = gq[i];
}

// A bound read from memory in every iteration stays sequential.
// CHECK-LABEL: kernels-auto.c: loaded_bound:
// CHECK: [[@LINE+5]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: its bound is read again in every iteration (from memory the loop may change) */
struct vec { int n; double *x; };
void loaded_bound(struct vec *v, double *restrict y) {
#pragma acc kernels copyin(v[0:1]) copy(y[0:100])
  {
#pragma acc loop
    for (int i = 0; i < v->n; i++) y[i] = 1;
  }
}

// Calls: a routine that touches no memory and C math functions are fine; a routine of
// another file may write memory.
// CHECK-LABEL: kernels-auto.c: calls:
// CHECK: [[@LINE+11]], #pragma acc loop gang, worker, vector
// CHECK-NEXT: loop is parallelizable
// CHECK: [[@LINE+11]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: it calls 'ext': defined in another file, it may write memory (accc proves only calls of functions that write none) */
double sin(double);
#pragma acc routine seq
static double sq(double x) { return x * x; }
#pragma acc routine seq
double ext(double x);
void calls(int n, const double *restrict a, double *restrict b) {
#pragma acc kernels copyin(a[0:n]) copyout(b[0:n])
  {
#pragma acc loop
    for (int i = 0; i < n; i++) b[i] = sq(a[i]) + sin(a[i]);
#pragma acc loop
    for (int i = 0; i < n; i++) b[i] = ext(a[i]);
  }
}
