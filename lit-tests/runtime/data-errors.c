// Data errors at run time, with separate device memory (the emulator): each names the
// clause item as written, its host address range and the directive's position, and exits
// with status 1 before the program goes on. On the host path (shared memory) every data
// clause is satisfied and the program runs to its end.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=host %t present | FileCheck %s --check-prefix=HOST
// RUN: env ACC_DEVICE_TYPE=host %t partial | FileCheck %s --check-prefix=HOST
// RUN: env ACC_DEVICE_TYPE=host %t update | FileCheck %s --check-prefix=HOST
// RUN: env ACC_DEVICE_TYPE=emulator %t none | FileCheck %s --check-prefix=HOST
// HOST: done
// RUN: not env ACC_DEVICE_TYPE=emulator %t present 2>&1 | FileCheck %s --check-prefix=PRESENT
// RUN: not env ACC_DEVICE_TYPE=emulator %t partial 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not env ACC_DEVICE_TYPE=emulator %t update 2>&1 | FileCheck %s --check-prefix=UPDATE
// RUN: not env ACC_DEVICE_TYPE=emulator %t exit 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: env ACC_DEVICE_TYPE=host %t use_device | FileCheck %s --check-prefix=HOST
// RUN: not env ACC_DEVICE_TYPE=emulator %t use_device 2>&1 | FileCheck %s --check-prefix=USE-DEVICE

#include <stdio.h>
#include <string.h>

void keep(void *p) { (void)p; }

#define N 37
int a[N];

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "none";
  int n = N;
  if (!strcmp(what, "present")) {
// PRESENT-NOT: done
// PRESENT: data-errors.c:[[#@LINE+2]]:9: error: data in PRESENT clause was not found on the device: a[0:n] (host 0x[[#%x,A:]]..
// PRESENT-SAME: 0x[[#%x,A+148]], 148 bytes)
#pragma acc parallel loop present(a[0:n])
    for (int i = 0; i < n; i++) a[i] = i;
  }
  if (!strcmp(what, "partial")) {
#pragma acc enter data copyin(a[0:10])
// PARTIAL-NOT: done
// PARTIAL: data-errors.c:[[#@LINE+2]]:9: error: data in COPY clause is only partially present on the device: a[5:10] (host 0x[[#%x,A5:]]..
// PARTIAL-SAME: 0x[[#%x,A5+40]], 40 bytes) overlaps the present range 0x[[#%x,A5-20]]..0x[[#%x,A5+20]]
#pragma acc data copy(a[5:10])
    a[0] = 1;
  }
  if (!strcmp(what, "update")) {
// UPDATE-NOT: done
// UPDATE: data-errors.c:[[#@LINE+2]]:9: error: data in UPDATE SELF clause was not found on the device: a[1:n-2] (host 0x[[#%x,A1:]]..
// UPDATE-SAME: 0x[[#%x,A1+140]], 140 bytes)
#pragma acc update self(a[1:n-2])
  }
  if (!strcmp(what, "exit")) {
    int *p = a;
#pragma acc enter data create(a[0:n])
// EXIT-NOT: done
// EXIT: data-errors.c:[[#@LINE+1]]:9: error: data in COPYOUT clause is only partially present on the device: p[30:10] (host {{.*}}, 40 bytes) overlaps the present range
#pragma acc exit data copyout(p[30:10])
  }
  if (!strcmp(what, "use_device")) {
    int *p = a + 3;
    /* if_present: no error, the host address. */
#pragma acc host_data use_device(p) if_present
    keep(p);
// USE-DEVICE-NOT: done
// USE-DEVICE: data-errors.c:[[#@LINE+1]]:9: error: 'p' (host address 0x{{[0-9a-f]+}}) in a use_device clause is not present on the device; map it with a data construct or enter data first, or add if_present
#pragma acc host_data use_device(p)
    keep(p);
  }
  printf("done\n");
  return 0;
}
