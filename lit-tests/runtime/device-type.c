// device_type(...) / dtype(...) clause sets: the rewriter keeps the default clauses, overridden
// per kind by a set naming nvidia (or, failing that, `*`), and drops the sets of other device
// types; the launches show the sizes chosen. The host path runs the same program.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=emulator ACC_NOTIFY=1 %t 2>&1 | FileCheck %s
// RUN: env ACC_DEVICE_TYPE=host %t | FileCheck %s --check-prefix=HOST
#include <stdio.h>

int main(void) {
  int n = 1001, a[1001], bad = 0;
  for (int i = 0; i < n; i++) a[i] = i;
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_gangs=8 num_workers=1 vector_length=64 grid=8 block=64x1
#pragma acc parallel loop copy(a[0:n]) num_gangs(4) vector_length(32) device_type(nvidia) num_gangs(8) dtype(host, radeon) num_gangs(2) vector_length(128) device_type(*) vector_length(64)
  for (int i = 0; i < n; i++) a[i] += 1;
  // The defaults when no set applies.
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_gangs=3 num_workers=1 vector_length=32 grid=3 block=32x1
#pragma acc parallel loop copy(a[0:n]) num_gangs(3) vector_length(32) device_type(multicore) num_gangs(5)
  for (int i = 0; i < n; i++) a[i] += 1;
  // A loop's schedule: the nvidia set's `seq` (a loop of one lane in one gang; clang allows
  // no other level beside it, in any set).
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} grid=1 block=
#pragma acc parallel loop copy(a[0:n]) device_type(nvidia) seq
  for (int i = 0; i < n; i++) a[i] += 1;
  // kernels with a set of its own, and a loop inside it (its kernel is named at the loop).
#pragma acc kernels copy(a[0:n]) device_type(*) num_gangs(6) vector_length(32) dtype(radeon) num_gangs(1)
  {
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_gangs=6 num_workers=1 vector_length=32 grid=6 block=32x1
#pragma acc loop independent device_type(nvidia) gang vector
    for (int i = 0; i < n; i++) a[i] += 1;
  }
  // update and data: a set's async only for its type (host: dropped, so synchronous).
#pragma acc data copy(a[0:n]) device_type(host) async(1)
  {
#pragma acc update device(a[0:n]) device_type(radeon) async(2)
  }
  for (int i = 0; i < n; i++) bad += a[i] != i + 4;
  printf("bad=%d\n", bad);
  // CHECK: bad=0
  // HOST: bad=0
  return bad != 0;
}
