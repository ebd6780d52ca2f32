// The OpenACC compile report: -Minfo=accel (and -Minfo, -Minfo=all, ACCC_INFO=1: the same
// text) on stderr, -Minfo=json beside the object; NVHPC's other -Minfo kinds are accepted
// with a warning. Every kernel's PTX is assembled by ptxas (-v for the usage lines).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -Minfo=accel -c %s -o %t/minfo.o 2> %t/accel.txt
// RUN: FileCheck %s < %t/accel.txt
// RUN: %accc -O2 -Minfo -c %s -o %t/plain.o 2> %t/plain.txt
// RUN: diff %t/accel.txt %t/plain.txt
// RUN: ACCC_INFO=1 %accc -O2 -c %s -o %t/env.o 2> %t/env.txt
// RUN: diff %t/accel.txt %t/env.txt
// RUN: %accc -O2 -Minfo=all,loop,json -c %s -o %t/json.o 2> %t/all.txt
// RUN: FileCheck %s --check-prefix=WARN < %t/all.txt
// RUN: python3 -m json.tool %t/json.accinfo.json | FileCheck %s --check-prefix=JSON
// RUN: %accc -O2 -Minfo=json -c %s -o %t/quiet.o 2>&1 | count 0
// RUN: %accc -O2 -c %s -o %t/none.o 2>&1 | count 0
// RUN: not ls %t/none.accinfo.json
// RUN: %accc -O2 -Minfo=json -c %S/Inputs/no-regions.c -o %t/empty.o
// RUN: python3 -m json.tool %t/empty.accinfo.json | FileCheck %s --check-prefix=EMPTY

// WARN: accc: warning: -Minfo=loop is not reported (accc reports only -Minfo=accel and -Minfo=json)
// WARN: minfo.c: saxpy:

// A combined gang vector loop: the pointers into data clause items, the implicit scalar.
// CHECK-LABEL: minfo.c: saxpy:
// CHECK-NEXT: {{^}}     [[@LINE+10]], Generating NVIDIA GPU code: parallel loop as kernel saxpy_l[[@LINE+10]]
// CHECK-NEXT: {{^}}         [[@LINE+9]], launch: gangs enough for the gang loop's iterations, num_workers 1, vector_length 256
// CHECK-NEXT: {{^}}         [[@LINE+8]], #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
// CHECK-NEXT: {{^}}             gang, vector assigned; also over worker: no worker loop around this vector loop spreads it over the workers
// CHECK-NEXT: {{^}}     [[@LINE+6]], Generating copy(y[0:n])
// CHECK-NEXT: {{^}}     [[@LINE+5]], Generating copyin(x[0:n])
// CHECK-DAG: {{^}}     [[@LINE+4]], Generating implicit firstprivate(a): scalar used in the region without a data clause
// CHECK-DAG: {{^}}     [[@LINE+3]], Generating implicit firstprivate(n): scalar used in the region without a data clause
// CHECK: {{^}}     [[@LINE+2]], Kernel saxpy_l[[@LINE+2]] for sm_90: {{[0-9]+}} registers, 0 bytes shared memory, {{[0-9]+}} bytes stack, {{no|[0-9]+}} ld.global.nc (read-only cache) loads
void saxpy(int n, float a, const float *x, float *y) {
#pragma acc parallel loop copy(y[0:n]) copyin(x[0:n])
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}

// Explicit gang and vector loops, a seq loop between them, an implicit copy of an array.
// CHECK-LABEL: minfo.c: nest:
// CHECK-NEXT: [[@LINE+14]], Generating NVIDIA GPU code: parallel as kernel nest_l[[@LINE+14]]
// CHECK: {{^}}         [[@LINE+15]], #pragma acc loop gang /* blockIdx.x */
// CHECK-NEXT: {{^}}         [[@LINE+16]], #pragma acc loop seq /* sequential: seq clause */
// CHECK-NEXT: {{^}}         [[@LINE+17]], #pragma acc loop worker, vector /* threadIdx.y threadIdx.x */
// CHECK-NEXT: {{^}}             vector assigned; also over worker: no worker loop around this vector loop spreads it over the workers
// CHECK: Generating implicit copy(t) [4000 bytes]: array or struct used in the region without a data clause
// CHECK: Kernel nest_l{{[0-9]+}} for sm_90: {{[0-9]+}} registers
//
// JSON: "construct": "parallel",
// JSON: "seq"
// JSON-NEXT: ],
// JSON: "sequential_reason": "seq clause"
float t[10][100];
void nest(int n) {
#pragma acc parallel
  {
#pragma acc loop gang
    for (int i = 0; i < 10; i++) {
#pragma acc loop seq
      for (int k = 0; k < 4; k++) {
#pragma acc loop vector
        for (int j = 0; j < 100; j++) t[i][j] += k * n;
      }
    }
  }
}

// kernels: a loop without independent that carries a dependence stays sequential, one with
// independent is partitioned, and an auto loop whose iterations are independent too
// (lit-tests/driver/kernels-auto.c has the analysis' other cases).
// CHECK-LABEL: minfo.c: kern:
// CHECK: [[@LINE+13]], Generating NVIDIA GPU code: kernels loop as kernel kern_l[[@LINE+13]]
// CHECK: {{^}}         [[@LINE+12]], #pragma acc loop seq /* sequential: kernels loop without independent, not proved parallel: 'w' written in one iteration is read in another (dependence distance 1) */
// CHECK: {{^}}         [[@LINE+13]], #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
// CHECK: Generating implicit firstprivate(v): pointer into a data clause item: its value is translated to the device copy
// CHECK: {{^}}         [[@LINE+13]], #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
// CHECK-NEXT: {{^}}             loop is parallelizable: accc proved its iterations independent (no loop-carried dependence)
//
// JSON: "proved_independent": false,
// JSON: "sequential_reason": "kernels loop without independent, not proved parallel: 'w' written in one iteration is read in another (dependence distance 1)"
void kern(int n, double *restrict v) {
  double w[64];
#pragma acc kernels copy(v[0:n]) create(w)
  {
#pragma acc loop
    for (int i = 1; i < 64; i++) w[i] = w[i - 1] + 1;
#pragma acc loop independent
    for (int i = 0; i < n; i++) v[i] = 2 * v[i];
#pragma acc loop auto
    for (int i = 0; i < 64; i++) w[i] += 1;
  }
}

// A reduction across gangs: its span and strategy, the implicit copy of the variable, and
// the shared memory of the gang tree (non-zero unless the cubin is relocatable).
// CHECK-LABEL: minfo.c: dot:
// CHECK: [[@LINE+13]], Generating reduction(+:s) across gangs: per-gang partials, the last gang combines them in gang order
// CHECK-NEXT: [[@LINE+12]], Generating reduction(+:s) over gang worker vector: gang tree (a partial per warp in shared memory), shuffles per warp
// CHECK: Generating implicit copy(s) [8 bytes]: reduction across gangs: the result goes to the variable itself
// CHECK: Kernel dot_l{{[0-9]+}} for sm_90: {{[0-9]+}} registers, {{[1-9][0-9]*}} bytes shared memory
//
// JSON: "span": "gangs",
// JSON: "arch": "sm_90",
// JSON-NEXT: "ld_global_nc": {{[0-9]+}},
// JSON-NEXT: "registers": {{[0-9]+}},
// JSON-NEXT: "relocatable": false,
// JSON-NEXT: "shared_memory_bytes": {{[1-9][0-9]*}},
double dot(int n, const double *x, const double *y) {
  double s = 0;
#pragma acc parallel loop reduction(+:s) copyin(x[0:n], y[0:n])
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

// A kernels loop reduction that stays sequential runs on one gang: no "per-gang partials".
// CHECK-LABEL: minfo.c: running:
// CHECK: [[@LINE+3]], Generating reduction(+:s) over one gang: the kernel runs one gang: its result is combined into the variable once
double running(int n, double *x) {
  double s = 0;
#pragma acc kernels loop reduction(+:s) copy(x[0:n])
  for (int i = 1; i < n; i++) {
    x[i] += x[i - 1];
    s += x[i];
  }
  return s;
}

// JSON: "source": "{{.*}}minfo.c",
// JSON: "version": 1

// EMPTY: "regions": [],
// EMPTY: "version": 1
