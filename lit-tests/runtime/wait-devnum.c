// wait(devnum: d: q, ...): the queues are device d's. Device 1 fills an array on its queue 3;
// device 0's directives wait for that queue by device number (the host, a queue, and a data
// directive's wait clause), and a device number outside 0..count-1 is an error at the
// directive. A queue list is required after the device number.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=2 %t 2>&1 | FileCheck %s
// CHECK: sum 4950 4950 4950
// RUN: env ACC_DEVICE_TYPE=host %t 2>&1 | FileCheck %s
// RUN: not env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=2 %t bad 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: wait-devnum.c:[[#@LINE+27]]:9: error: wait(devnum: 5): not a valid device number (there are 2 device(s) of this type)
// RUN: not %accc -DNO_QUEUES -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOQ
// NOQ: wait-devnum.c:[[#@LINE+28]]:27: error: expected ':'
#include <openacc.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int a[100], b[100], c[100];
  acc_device_t t = acc_get_device_type();
  int other = acc_get_num_devices(t) > 1 ? 1 : 0, k = 1;
  acc_set_device_num(other, t);
#pragma acc enter data create(a[0:100])
#pragma acc parallel loop async(3) present(a[0:100])
  for (int i = 0; i < 100; i++) a[i] = i;
#pragma acc update self(a[0:100]) async(3)
  acc_set_device_num(0, t);
#pragma acc wait(devnum: other: 3)
  memcpy(b, a, sizeof a);
#pragma acc data copy(c[0:100])
  {
#pragma acc wait(devnum: other ? 1 : 0 : queues: 3, 3) async(2)
#pragma acc parallel loop async(2) present(c[0:100])
    for (int i = 0; i < 100; i++) c[i] = i;
#pragma acc update self(c[0:100]) wait(devnum: k ? other : 0: 3, 2)
  }
  if (argc > 1 && !strcmp(argv[1], "bad")) {
#pragma acc wait(devnum: 5: 1)
  }
#ifdef NO_QUEUES
#pragma acc wait(devnum: 1)
#endif
  long sa = 0, sb = 0, sc = 0;
  for (int i = 0; i < 100; i++) sa += a[i], sb += b[i], sc += c[i];
  printf("sum %ld %ld %ld\n", sa, sb, sc);
  return 0;
}
