// Reductions on one array element (OpenACC 3.3 §2.5.15: a reduction variable may be an
// array element). The body's own `t[q]` / `c[1]` accesses must go to the private copy
// (element_address.rs makes them the clause's address): before, the construct's
// `reduction(+: t[q])` was dropped (its address was an instruction of the region, not a
// captured variable) and the loop's `reduction(max: c[1])` combined an untouched copy, while
// every thread updated the element in device memory directly: right on the host and the
// emulator (one thread at a time), a data race on the GPU (tests/e2e/reduction_element.c
// failed there). The emulator's copy of each kernel shows the helper calls; the PTX is
// assembled by ptxas.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -emit-llvm -S %s -o %t/contract.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t/contract.ll -S -o - | FileCheck %s --check-prefix=IR
// RUN: %accc -O2 -Minfo=accel -save-temps -c %s -o %t/element.o 2>&1 | FileCheck %s --check-prefix=INFO
// RUN: %ptxas -arch=sm_90 %t/element.ptx -o %t/element.cubin

// IR-LABEL: define internal void @__accemu.kernel.element_sum_l{{[0-9]+}}(
// IR: %[[ADDR:[0-9]+]] = getelementptr inbounds [5 x double], ptr %t, i64 0, i64 %{{[0-9]+}}
// IR: for.body:
// IR-NOT: store double {{.*}}, ptr %t
// IR: store double %{{[0-9]+}}, ptr %"t[q].red{{[0-9]+}}.acc.vector"
// IR: acc.ret:
// IR: call void @__acc_red_gang_add_f64(ptr %"t[q].gang{{[0-9]+}}.acc.vector", ptr %[[ADDR]],
// INFO-LABEL: element_sum:
// INFO: Generating reduction(+:t[q]) across gangs
// INFO: Generating reduction(+:t[q]) over gang worker vector
double element_sum(int n, int q, const double *x) {
  double t[5] = {1, 0, 0, 0, 0};
#pragma acc parallel loop reduction(+ : t[q]) copyin(x[0:n])
  for (int i = 0; i < n; i++)
    t[q] += x[i] * t[0];
  return t[q];
}

// IR-LABEL: define internal void @__accemu.kernel.element_max_l{{[0-9]+}}(
// IR: %[[C1:[0-9]+]] = getelementptr inbounds [3 x i64], ptr %c, i64 0, i64 1
// IR-NOT: store i64 {{.*}}, ptr %[[C1]]
// IR: call void @__acc_red_block_max_i64(ptr %"c[1].red{{[0-9]+}}.acc.vector"
// IR: store i64 %cond, ptr %"c[1].red{{[0-9]+}}.acc.vector"
// IR: call void @__acc_red_gang_max_i64(ptr %"c[1].gang{{[0-9]+}}.acc.vector", ptr %[[C1]],
// INFO-LABEL: element_max:
// INFO: Generating reduction(max:c[1]) across gangs
long element_max(int n) {
  long c[3] = {4, 5, 6};
#pragma acc parallel
  {
#pragma acc loop gang vector reduction(max : c[1])
    for (int i = 0; i < n; i++)
      c[1] = c[1] > i + c[0] ? c[1] : i + c[0];
  }
  return c[1];
}
