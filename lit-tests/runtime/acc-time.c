// ACC_TIME=1 (or NVHPC's NV_ACC_TIME=1) prints, at exit, one line per compute region and
// data directive in source order, with its visits, kernels (launches, grid, block, time) and
// copies (count, bytes, time), then the totals. On the emulator every count is exact; times
// vary. Without the variable (or with 0) nothing is printed. On the host path only the data
// directives are counted. The loop of data regions reuses the same device blocks (the pool).
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=emulator ACC_TIME=1 %t 2>&1 | FileCheck %s
// RUN: env ACC_DEVICE_TYPE=emulator NV_ACC_TIME=1 %t 2>&1 | FileCheck %s
// RUN: env ACC_DEVICE_TYPE=emulator ACC_TIME=0 %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env ACC_DEVICE_TYPE=emulator %t 2>&1 | FileCheck %s --check-prefix=OFF
// OFF-NOT: ACC_TIME
// OFF: reused 1 b[10] 21
// OFF-NOT: ACC_TIME
// RUN: env ACC_DEVICE_TYPE=host ACC_TIME=1 %t 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: reused 1 b[10] 21
// HOST-NEXT: accc: ACC_TIME: time per region, in source order (microseconds)
// HOST-NEXT: accc: ACC_TIME: compute regions ran on the host (no device selected): only data directives are counted
// HOST-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+25]]:9: data region, reached 4 times
// HOST-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+42]]:9: enter data, reached 1 time
// HOST-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+48]]:9: update, reached 1 time
// HOST-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+50]]:9: exit data, reached 1 time
// HOST-NEXT: accc: total: kernels: 0 launches, 0 us
// HOST-NEXT: accc: total: to device: 0 copies, 0 bytes, 0 us

#include <openacc.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  void *fa = 0, *fb = 0;
  int reused = 1;
  for (int i = 0; i < n; i++)
    a[i] = i;
  // CHECK: reused 1 b[10] 21
  // CHECK-NEXT: accc: ACC_TIME: time per region, in source order (microseconds)
  // CHECK-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+5]]:9: data region, reached 4 times
  // CHECK-NEXT: accc:     to device: 4 copies, 32000 bytes, {{[0-9]+}} us
  // CHECK-NEXT: accc:     from device: 4 copies, 32000 bytes, {{[0-9]+}} us
  // CHECK-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+12]]:9: compute region in main, reached 4 times
  for (int it = 0; it < 4; it++) {
#pragma acc data copyin(a[0:n]) copyout(b[0:n])
    {
      void *da = acc_deviceptr(a), *db = acc_deviceptr(b);
      if (it == 0) {
        fa = da;
        fb = db;
      } else {
        reused &= (da == fa && db == fb) || (da == fb && db == fa);
      }
      // CHECK-NEXT: accc:     kernel main_l[[#@LINE+1]]: 4 launches, grid {{[0-9]+}}, block {{[0-9]+}}x1, {{[0-9]+}} us (min {{[0-9]+}}, max {{[0-9]+}})
#pragma acc parallel loop
      for (int i = 0; i < n; i++)
        b[i] = 2 * a[i];
    }
  }
  // CHECK-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+3]]:9: enter data, reached 1 time
  // CHECK-NEXT: accc:     to device: 1 copy, 8000 bytes, {{[0-9]+}} us
  // CHECK-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+3]]:9: compute region in main, reached 1 time
#pragma acc enter data copyin(b[0:n])
  // CHECK-NEXT: accc:     kernel main_l[[#@LINE+1]]: 1 launch, grid 4, block 32x1, {{[0-9]+}} us{{$}}
#pragma acc parallel loop present(b[0:n]) num_gangs(4) vector_length(32) async(1)
  for (int i = 0; i < n; i++)
    b[i] += 1;
  // CHECK-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+2]]:9: update, reached 1 time
  // CHECK-NEXT: accc:     from device: 1 copy, 8000 bytes, {{[0-9]+}} us
#pragma acc update self(b[0:n]) async(1)
#pragma acc wait(1)
  // CHECK-NEXT: accc: {{.*}}acc-time.c:[[#@LINE+1]]:9: exit data, reached 1 time
#pragma acc exit data delete(b[0:n])
  // CHECK-NEXT: accc: acc_copyin: runtime routine
  // CHECK-NEXT: accc:     to device: 1 copy, 8000 bytes, {{[0-9]+}} us
  // CHECK-NEXT: accc: total: kernels: 5 launches, {{[0-9]+}} us
  // CHECK-NEXT: accc: total: to device: 6 copies, 48000 bytes, {{[0-9]+}} us
  // CHECK-NEXT: accc: total: from device: 5 copies, 40000 bytes, {{[0-9]+}} us
  // CHECK-NOT: accc
  acc_copyin(a, n * sizeof *a);
  acc_delete(a, n * sizeof *a);
  printf("reused %d b[10] %g\n", reused, b[10]);
  fflush(stdout);
  return 0;
}
