// A `nohost` routine defined in another file has no host version anywhere: the program
// still links (a call in host code calls a stub), runs its kernel on the device, and stops
// with a located message only if the host path calls the routine.
// RUN: %accc -O1 -c %s -o %t.main.o
// RUN: %accc -O1 -c %S/Inputs/routine-nohost-def.c -o %t.def.o
// RUN: llvm-nm %t.def.o | FileCheck %s --check-prefix=SYMS
// RUN: %accc %t.main.o %t.def.o -o %t
// RUN: env ACC_DEVICE_TYPE=emulator %t | FileCheck %s --check-prefix=DEVICE
// RUN: not env ACC_DEVICE_TYPE=host %t 2>&1 | FileCheck %s --check-prefix=HOST
// SYMS-NOT: {{ T dev_only$}}
// SYMS: T __accemu.routine.dev_only
// DEVICE: 1 4 7 31
// HOST: routine-nohost.c:[[@LINE+1]]:9: error: function 'dev_only' was called on the host, but its 'routine' directive says 'nohost': it has no host version (the compute region ran on the host)
#pragma acc routine seq nohost
int dev_only(int x);

#include <stdio.h>
int main(void) {
  int a[11];
#pragma acc parallel loop copyout(a)
  for (int i = 0; i < 11; i++) a[i] = dev_only(i);
  printf("%d %d %d %d\n", a[0], a[1], a[2], a[10]);
  return 0;
}
