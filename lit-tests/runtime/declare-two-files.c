// A global declared copyin in the file that defines it and in one that declares it extern:
// both register it, it is mapped once, and its device copy starts with the initial value
// from the defining file's image whichever constructor runs first (a host write before the
// first OpenACC operation stays on the host). Called functions in either file read it.
// RUN: %accc -O1 -c %s -o %t.main.o
// RUN: %accc -O1 -c %S/Inputs/declare-defined.c -o %t.def.o
// RUN: %accc %t.main.o %t.def.o -o %t.1 && env ACC_DEVICE_TYPE=emulator %t.1 | FileCheck %s --check-prefix=DEVICE
// RUN: %accc %t.def.o %t.main.o -o %t.2 && env ACC_DEVICE_TYPE=emulator %t.2 | FileCheck %s --check-prefix=DEVICE
// RUN: env ACC_DEVICE_TYPE=host %t.1 | FileCheck %s --check-prefix=HOST
// DEVICE: 50 60 70 80 sum=26
// HOST: 1000 60 70 80 sum=121

#include <stdio.h>
extern int shared_g[4];
#pragma acc declare copyin(shared_g)
int sum_here(void);
static int get(int i) { return shared_g[i] * 10; }

int main(void) {
  shared_g[0] = 100;
  int out[4];
#pragma acc parallel loop copyout(out)
  for (int i = 0; i < 4; i++) out[i] = get(i);
  printf("%d %d %d %d sum=%d\n", out[0], out[1], out[2], out[3], sum_here());
  return 0;
}
