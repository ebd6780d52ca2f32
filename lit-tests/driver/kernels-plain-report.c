// The -Minfo report of the implicit loops of tests/e2e/kernels_plain.c (plain C loops in
// `kernels`, driver/src/implicit.rs): a Jacobi nest gang over the rows and vector over the
// columns, a prefix sum and a sum sequential with the dependence, a row loop parallel over a
// carried column loop, the loops the rewriter leaves unmarked sequential with its reason.
// The emulator launches the proved nests with 256 lanes, the others with one, and the
// program checks every element.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -Minfo=accel -c %S/../../tests/e2e/kernels_plain.c -o %t/k.o 2> %t/report.txt
// RUN: FileCheck %s < %t/report.txt
// RUN: %accc -O2 -Minfo=json -c %S/../../tests/e2e/kernels_plain.c -o %t/j.o
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print(l['location']['line'], l['implicit'], l['schedule'], l['sequential_reason']) for r in d['regions'] for l in r['loops']]" %t/j.accinfo.json | FileCheck %s --check-prefix=JSON
// RUN: %accc -O2 %S/../../tests/e2e/kernels_plain.c -o %t/kernels_plain
// RUN: env ACC_DEVICE_TYPE=emulator ACC_NOTIFY=1 %t/kernels_plain 2>&1 | FileCheck %s --check-prefix=EMU

// EMU-DAG: launch kernel jacobi_l16 {{.*}} grid=35 block=256x1
// EMU-DAG: launch kernel prefix_l23 {{.*}} grid=1 block=1x1
// EMU-DAG: launch kernel total_l29 {{.*}} grid=1 block=1x1
// EMU-DAG: launch kernel rows_l36 {{.*}} block=256x1
// EMU-DAG: launch kernel mixed_l46 {{.*}} block=256x1
// EMU: PASS kernels_plain

// CHECK-LABEL: kernels_plain.c: jacobi:
// CHECK: 16, Generating NVIDIA GPU code: kernels loop as kernel jacobi_l16
// CHECK: 16, #pragma acc loop gang /* blockIdx.x */
// CHECK-NEXT: implicit loop (no loop directive) is parallelizable: accc proved its iterations independent (no loop-carried dependence)
// CHECK-NEXT: 17, #pragma acc loop worker, vector /* threadIdx.y threadIdx.x */
// CHECK-NEXT: implicit loop (no loop directive) is parallelizable
// CHECK-LABEL: kernels_plain.c: prefix:
// CHECK: 23, #pragma acc loop seq /* sequential: implicit loop, not proved parallel: 'x' written in one iteration is read in another (dependence distance 1) */
// CHECK-LABEL: kernels_plain.c: total:
// CHECK: 29, #pragma acc loop seq /* sequential: implicit loop, not proved parallel: 's' is written in every iteration and read in the others
// CHECK-LABEL: kernels_plain.c: rows:
// CHECK: 36, #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
// CHECK-NEXT: implicit loop (no loop directive) is parallelizable
// CHECK: 37, #pragma acc loop seq /* sequential: implicit loop, not proved parallel: 'g' written in one iteration is read in another (dependence distance 1) */
// CHECK-LABEL: kernels_plain.c: mixed:
// CHECK: 46, #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
// CHECK: 48, #pragma acc loop seq /* sequential: implicit loop, not parallelised: not a countable loop (a 'while' loop: only 'for' loops are analysed) */
// CHECK-NEXT: 53, #pragma acc loop seq /* sequential: implicit loop, not parallelised: a 'break' leaves it early */
// CHECK-NEXT: 60, #pragma acc loop seq /* sequential: implicit loop, not parallelised: not a countable loop of its own: its variable 'k' is declared before it

// JSON: 16 True ['gang'] None
// JSON-NEXT: 17 True ['worker', 'vector'] None
// JSON-NEXT: 23 True ['seq'] implicit loop, not proved parallel: 'x' written
// JSON: 53 True ['seq'] implicit loop, not parallelised: a 'break' leaves it early
