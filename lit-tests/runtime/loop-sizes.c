// The launch sizes that loop clauses give: in `kernels`, worker(num: n) and vector(length: n)
// of a loop nest size its kernel (the top loop's value, or a constant of a loop inside it;
// clang allows them only without the construct's num_workers/vector_length), as
// gang(num: n) does its gangs; gang(dim:)
// loops and num_gangs of several values launch grids of two and three dimensions. The
// launches show them; the host path runs the same program.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=emulator ACC_NOTIFY=1 %t 2>&1 | FileCheck %s
// RUN: env ACC_DEVICE_TYPE=host %t | FileCheck %s --check-prefix=HOST
#include <stdio.h>

int main(int argc, char **argv) {
  (void)argv;
  int n = 1001, a[1001], bad = 0, w = 2 * argc, rounds = 0;
  for (int i = 0; i < n; i++) a[i] = i;
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_gangs=3 num_workers=4 vector_length=64 grid=3 block=64x4
#pragma acc kernels loop gang(3) worker(4) vector(length: 64) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] += 1;
  rounds++;
  // A run-time value on the top loop; the inner loop's constant vector length.
#pragma acc kernels copy(a[0:n])
  {
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_gangs=5 num_workers=2 vector_length=32 grid=5 block=32x2
#pragma acc loop independent gang(num: 5) worker(num: w)
    for (int j = 0; j < 7; j++) {
#pragma acc loop independent vector(32)
      for (int i = j; i < n; i += 7) a[i] += 1;
    }
    // A run-time value on the inner loop only: computed again before the construct.
    // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_workers=1 vector_length=64 grid={{[0-9]+}} block=64x1
#pragma acc loop independent gang
    for (int j = 0; j < 7; j++) {
#pragma acc loop independent vector(length: 32 * w)
      for (int i = j; i < n; i += 7) a[i] += 1;
    }
    // Each loop nest is a kernel of its own sizes.
    // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_workers=1 vector_length=96 grid={{[0-9]+}} block=96x1
#pragma acc loop independent gang vector(96)
    for (int i = 0; i < n; i++) a[i] += 1;
  }
  // Without sizes on the loops: the construct's.
#pragma acc kernels copy(a[0:n]) num_workers(8) vector_length(128)
  {
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_workers=8 vector_length=128 grid={{[0-9]+}} block=128x8
#pragma acc loop independent gang worker vector
    for (int i = 0; i < n; i++) a[i] += 1;
  }
  rounds++;
  rounds += 3;
  // Two dimensions from the clause, three from the loops' trip counts.
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_gangs=3x2 num_workers=1 vector_length=32 grid=3x2 block=32x1
#pragma acc parallel loop gang(dim: 2) num_gangs(3, 2) vector_length(32) copy(a[0:n])
  for (int j = 0; j < 7; j++) {
#pragma acc loop gang vector
    for (int i = j; i < n; i += 7) a[i] += 1;
  }
  rounds++;
  // (the dimension-1 loop's trip count depends on the outer loops: the runtime sizes it)
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} num_gangs=1024x3x7 num_workers=1 vector_length=32 grid=1024x3x7 block=32x1
#pragma acc parallel loop gang(dim: 3) vector_length(32) copy(a[0:n])
  for (int k = 0; k < 7; k++) {
#pragma acc loop gang(dim: 2)
    for (int j = 0; j < 3; j++) {
#pragma acc loop gang(dim: 1) vector
      for (int i = k * 143 + j; i < k * 143 + 143; i += 3) a[i] += 1;
    }
  }
  rounds++;
  // On an async queue (__accrt_launch_grid_async).
  // CHECK: launch kernel main_l[[#@LINE+1]] {{.*}} grid=3x7 block=32x1 on async queue 2
#pragma acc parallel loop gang(dim: 2) num_gangs(3, 7) vector_length(32) copy(a[0:n]) async(2)
  for (int j = 0; j < 7; j++) {
#pragma acc loop gang vector
    for (int i = j; i < n; i += 7) a[i] += 1;
  }
#pragma acc wait(2)
  rounds++;
  for (int i = 0; i < n; i++) bad += a[i] != i + rounds;
  printf("bad=%d\n", bad);
  // CHECK: bad=0
  // HOST: bad=0
  return bad != 0;
}
