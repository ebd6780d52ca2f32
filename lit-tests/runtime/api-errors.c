// Errors of the OpenACC runtime routines (openacc.h): each prints "accc runtime: error:
// <routine>: ..." and exits with status 1 before the program goes on. With separate device
// memory (the emulator) data that is not mapped, present or device memory is an error; on
// the host path (shared memory) the data routines have nothing to check. Invalid async
// arguments and device types are errors everywhere.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=host %t unmap-copied | FileCheck %s --check-prefix=DONE
// RUN: env ACC_DEVICE_TYPE=host %t update-absent | FileCheck %s --check-prefix=DONE
// DONE: done
// RUN: not env ACC_DEVICE_TYPE=emulator %t unmap-copied 2>&1 | FileCheck %s --check-prefix=UNMAP-COPIED
// UNMAP-COPIED: accc runtime: error: acc_unmap_data: host address 0x[[#%x,A:]] was not mapped by acc_map_data
// UNMAP-COPIED-SAME: (it lies in the present range 0x[[#A]]..0x[[#A+32]], made by a data clause or routine)
// RUN: not env ACC_DEVICE_TYPE=emulator %t unmap-absent 2>&1 | FileCheck %s --check-prefix=UNMAP-ABSENT
// UNMAP-ABSENT: accc runtime: error: acc_unmap_data: host address 0x{{[0-9a-f]+}} is not present on the device
// RUN: not env ACC_DEVICE_TYPE=emulator %t unmap-inside 2>&1 | FileCheck %s --check-prefix=UNMAP-INSIDE
// UNMAP-INSIDE: accc runtime: error: acc_unmap_data: host address 0x{{[0-9a-f]+}} was not mapped by acc_map_data (it lies in the present range {{.*}}, mapped at its start)
// RUN: not env ACC_DEVICE_TYPE=emulator %t unmap-in-region 2>&1 | FileCheck %s --check-prefix=UNMAP-REGION
// UNMAP-REGION: accc runtime: error: acc_unmap_data: host address 0x{{[0-9a-f]+}} is still used by 1 data construct(s) or compute construct(s)
// RUN: not env ACC_DEVICE_TYPE=emulator %t map-present 2>&1 | FileCheck %s --check-prefix=MAP-PRESENT
// MAP-PRESENT: accc runtime: error: data in acc_map_data is already present on the device: host 0x{{[0-9a-f]+}}..0x{{[0-9a-f]+}} (16 bytes) overlaps the present range
// RUN: not env ACC_DEVICE_TYPE=emulator %t map-host-memory 2>&1 | FileCheck %s --check-prefix=MAP-HOST
// MAP-HOST: accc runtime: error: acc_map_data: 0x{{[0-9a-f]+}}..0x{{[0-9a-f]+}} is not device memory
// RUN: not env ACC_DEVICE_TYPE=emulator %t update-absent 2>&1 | FileCheck %s --check-prefix=UPDATE
// UPDATE: accc runtime: error: data in acc_update_device was not found on the device: host 0x[[#%x,B:]]..
// UPDATE-SAME: 0x[[#B+8]] (8 bytes)
// RUN: not env ACC_DEVICE_TYPE=emulator %t partial 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: accc runtime: error: data in acc_copyout is only partially present on the device: host {{.*}} (32 bytes) overlaps the present range
// RUN: not env ACC_DEVICE_TYPE=emulator %t free-host 2>&1 | FileCheck %s --check-prefix=FREE
// FREE: accc runtime: error: acc_free: 0x{{[0-9a-f]+}} was not returned by acc_malloc
// RUN: not env ACC_DEVICE_TYPE=emulator %t free-present 2>&1 | FileCheck %s --check-prefix=FREE-PRESENT
// FREE-PRESENT: accc runtime: error: acc_free: 0x{{[0-9a-f]+}} is the device copy of present data (acc_delete or exit data frees it)
// RUN: not env ACC_DEVICE_TYPE=emulator %t memcpy-host 2>&1 | FileCheck %s --check-prefix=MEMCPY
// MEMCPY: accc runtime: error: acc_memcpy_to_device: 0x{{[0-9a-f]+}}..0x{{[0-9a-f]+}} is not device memory
// RUN: not env ACC_DEVICE_TYPE=emulator %t change-type 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: accc runtime: error: acc_set_device_type: the device type cannot change to the host once the runtime runs regions on the device emulator (choose it before the first data or compute operation)
// RUN: not env ACC_DEVICE_TYPE=emulator %t null 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: accc runtime: error: acc_copyin: null host address with 8 bytes
// RUN: not env ACC_DEVICE_TYPE=host %t async 2>&1 | FileCheck %s --check-prefix=ASYNC
// RUN: not env ACC_DEVICE_TYPE=emulator %t async 2>&1 | FileCheck %s --check-prefix=ASYNC
// ASYNC: accc runtime: error: acc_wait: -7 is not a valid async argument (a queue number >= 0, acc_async_noval, acc_async_sync or acc_async_default)
// RUN: not env ACC_DEVICE_TYPE=host %t async-copyin 2>&1 | FileCheck %s --check-prefix=ASYNC-COPYIN
// ASYNC-COPYIN: accc runtime: error: acc_copyin_async: -4 is not a valid async argument
// RUN: not env ACC_DEVICE_TYPE=host %t device-type 2>&1 | FileCheck %s --check-prefix=DEVTYPE
// DEVTYPE: accc runtime: error: acc_get_num_devices: 42 is not an acc_device_t value
// RUN: not env ACC_DEVICE_TYPE=host %t device-num 2>&1 | FileCheck %s --check-prefix=DEVNUM
// DEVNUM: accc runtime: error: acc_wait_device: 3 is not a valid device number (there are 1 device(s) of this type)
// Without a GPU, asking for one is an error (on a machine with a GPU it is used).
// RUN: %if no-gpu %{ not env ACC_DEVICE_TYPE=host %t gpu 2>&1 | FileCheck %s --check-prefix=GPU %}
// GPU: accc runtime: error: acc_device_nvidia was requested but no GPU is usable

#include <openacc.h>
#include <stdio.h>
#include <string.h>

double a[4], b[4];

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
#define IS(s) (!strcmp(what, s))
  if (IS("unmap-copied")) {
    acc_copyin(a, sizeof a);
    acc_unmap_data(a);
  }
  if (IS("unmap-absent")) acc_unmap_data(b);
  if (IS("unmap-inside") || IS("unmap-in-region") || IS("map-present")) {
    void *d = acc_malloc(sizeof a);
    acc_map_data(a, d, sizeof a);
    if (IS("unmap-inside")) acc_unmap_data(a + 1);
    if (IS("map-present")) acc_map_data(a + 2, acc_malloc(16), 16);
    if (IS("unmap-in-region")) {
#pragma acc data copy(a[0:4])
      acc_unmap_data(a);
    }
  }
  if (IS("map-host-memory")) acc_map_data(a, b, sizeof a);
  if (IS("update-absent")) acc_update_device(b + 1, 8);
  if (IS("partial")) {
    acc_copyin(a, 16);
    acc_copyout(a + 1, 32);
  }
  if (IS("free-host")) acc_free(b);
  if (IS("free-present")) acc_free(acc_copyin(a, sizeof a));
  if (IS("memcpy-host")) acc_memcpy_to_device(b, a, 8);
  if (IS("change-type")) {
    acc_copyin(a, sizeof a);
    acc_set_device_type(acc_device_host);
  }
  if (IS("null")) acc_copyin(NULL, 8);
  if (IS("async")) acc_wait(-7);
  if (IS("async-copyin")) acc_copyin_async(a, sizeof a, -4);
  if (IS("device-type")) acc_get_num_devices((acc_device_t)42);
  if (IS("device-num")) acc_wait_device(1, 3);
  if (IS("gpu")) acc_init(acc_device_nvidia);
  printf("done\n");
  return 0;
}
