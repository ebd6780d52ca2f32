// The init, shutdown and set directives act as acc_init, acc_shutdown(_device) and
// acc_set_device_type/num / acc_set_default_async, with errors reported at the directive.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=2 ACC_NOTIFY=1 %t 2>&1 | FileCheck %s
// CHECK: after init: device 0 of 2
// CHECK: after set: device 1, default queue 5
// CHECK: accc: launch kernel main_l{{[0-9]+}} {{.*}} on device 1
// CHECK: x 3
// CHECK: after if(0): device 1
// RUN: not env ACC_DEVICE_TYPE=host %t 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: after init: device 0 of 1
// HOST: device-directives.c:[[#@LINE+16]]:9: error: set device_num: 1 is not a valid device number (there are 1 device(s) of this type)
// RUN: not env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=2 %t bad-num 2>&1 | FileCheck %s --check-prefix=BAD-NUM
// BAD-NUM: device-directives.c:[[#@LINE+27]]:9: error: set device_num: 7 is not a valid device number (there are 2 device(s) of this type)
// RUN: not env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=2 %t bad-queue 2>&1 | FileCheck %s --check-prefix=BAD-QUEUE
// BAD-QUEUE: device-directives.c:[[#@LINE+12]]:9: error: set default_async: -17 is not a valid async argument
// RUN: not %accc -O1 -DBAD_TYPE %s -o %t.bad 2>&1 | FileCheck %s --check-prefix=BAD-TYPE
// BAD-TYPE: device-directives.c:[[#@LINE+26]]:9: error: unknown device type 'radeon' in 'device_type' (accc knows nvidia, host, multicore, not_host, default and *)
#include <openacc.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  acc_device_t t = acc_get_device_type();
#pragma acc init
  printf("after init: device %d of %d\n", acc_get_device_num(t), acc_get_num_devices(t)); fflush(stdout);
  int one = 1, q = argc > 1 && !strcmp(argv[1], "bad-queue") ? -17 : 5;
#pragma acc set device_num(one) default_async(q)
  printf("after set: device %d, default queue %d\n", acc_get_device_num(t), acc_get_default_async());
  fflush(stdout);
  int x = 1;
#pragma acc parallel num_gangs(1) copy(x)
  x += 2;
  printf("x %d\n", x);
#pragma acc set device_num(0) if(argc > 5)
  printf("after if(0): device %d\n", acc_get_device_num(t));
#pragma acc shutdown device_num(0)
#pragma acc shutdown device_type(nvidia)
  fflush(stdout);
  if (argc > 1 && !strcmp(argv[1], "bad-num")) {
#pragma acc set device_num(7)
  }
#ifdef BAD_TYPE
#pragma acc set device_type(radeon)
#endif
  return 0;
}
