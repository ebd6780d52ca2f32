// Device numbers: ACC_DEVICE_NUM picks the default device of every host thread,
// ACCC_EMU_DEVICES sets how many devices the emulator has, ACC_NOTIFY names the device when
// there are several, and a number outside 0..count-1 is an error (from the environment and
// from acc_set_device_num after the device type is decided).
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=3 ACC_DEVICE_NUM=2 ACC_NOTIFY=1 %t 2>&1 | FileCheck %s --check-prefix=ENV
// ENV: devices 3, current 2
// ENV: accc: launch kernel main_l{{[0-9]+}} function=main at {{.*}}device-num.c:32:9 {{.*}} on device 2
// ENV: accc: launch kernel main_l{{[0-9]+}} function=main at {{.*}}device-num.c:35:9 {{.*}} on device 0
// ENV: sum 6 6
// RUN: env ACC_DEVICE_TYPE=emulator ACC_NOTIFY=1 %t 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: devices 1, current 0
// ONE-NOT: on device
// ONE: sum 6 6
// RUN: not env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=2 ACC_DEVICE_NUM=2 %t 2>&1 | FileCheck %s --check-prefix=BAD-ENV
// BAD-ENV: accc runtime: error: ACC_DEVICE_NUM=2 is not a valid device number (this machine has 2 device(s): 0..1)
// RUN: not env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=0 %t 2>&1 | FileCheck %s --check-prefix=BAD-EMU
// BAD-EMU: accc runtime: error: ACCC_EMU_DEVICES=0: expected a number of devices from 1 to 64
// RUN: not env ACC_DEVICE_TYPE=emulator ACCC_EMU_DEVICES=2 %t bad-num 2>&1 | FileCheck %s --check-prefix=BAD-NUM
// BAD-NUM: accc runtime: error: acc_set_device_num: 5 is not a valid device number (there are 2 device(s) of this type)
#include <openacc.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  acc_device_t t = acc_get_device_type();
  printf("devices %d, current %d\n", acc_get_num_devices(t), acc_get_device_num(t));
  fflush(stdout);
  if (argc > 1 && !strcmp(argv[1], "bad-num")) acc_set_device_num(5, t);
  int x = 1, y = 2;
  int n = acc_get_device_num(t);
#pragma acc parallel num_gangs(1) copy(x)
  x += 2;
  acc_set_device_num(0, t);
#pragma acc parallel num_gangs(1) copy(y)
  y += 1;
  printf("sum %d %d\n", x + y, 6);
  return n < 0;
}
