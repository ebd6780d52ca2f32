// Routines across files: tests/e2e/routine_files.c calls routines that routine_files/lib.c
// defines, and lib.c's kernel calls one of routine_files.c's. Built with one command (the
// e2e runs build each file apart), in both orders; run on the emulator and the host path.
// The kernels that call another file's routine are relocatable PTX with the routine
// `.extern`; a file's exported routines are a library of their own (`.routines.ptx`); a
// kernel that calls no other file's routine stays whole-program (this file's).
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %accc -O2 -save-temps %S/../../tests/e2e/routine_files.c %S/../../tests/e2e/routine_files/lib.c -o prog
// RUN: env ACC_DEVICE_TYPE=emulator ./prog | FileCheck %s
// RUN: env ACC_DEVICE_TYPE=host ./prog | FileCheck %s
// RUN: FileCheck %s --check-prefix=MAIN-PTX < routine_files.ptx
// RUN: FileCheck %s --check-prefix=LIB-PTX < lib.routines.ptx
// RUN: %accc -O0 %S/../../tests/e2e/routine_files/lib.c %S/../../tests/e2e/routine_files.c -o prog0
// RUN: env ACC_DEVICE_TYPE=emulator ./prog0 | FileCheck %s
// A routine whose defining file is missing: the emulator copy's symbol is undefined.
// RUN: not %accc -O2 %S/../../tests/e2e/routine_files.c -o missing 2>&1 | FileCheck %s --check-prefix=MISSING
// A kernel calling only routines of its own file: no .extern, no library.
// RUN: %accc -O2 -save-temps %s -o self && env ACC_DEVICE_TYPE=emulator ./self | FileCheck %s --check-prefix=SELF
// RUN: not grep -q extern routine-two-files.ptx
// RUN: test ! -e routine-two-files.routines.ptx
// CHECK: PASS routine_files
// MAIN-PTX: .extern .func {{.*}}lib_mix
// MAIN-PTX: .visible .entry
// LIB-PTX-NOT: .entry
// LIB-PTX-DAG: .visible .func {{.*}}lib_mix(
// LIB-PTX-DAG: .visible .func {{.*}}lib_steps(
// LIB-PTX-DAG: .visible .func {{.*}}lib_dev_only(
// LIB-PTX-DAG: .extern .func {{.*}}main_tweak
// MISSING: undefined reference to `__accemu.routine.lib_mix'
// SELF: 45

#include <stdio.h>
#pragma acc routine seq
static int sq(int x) { return x * x; }
int main(void) {
  int a[10];
#pragma acc parallel loop copyout(a)
  for (int i = 0; i < 10; i++) a[i] = sq(i) - i;
  printf("%d\n", a[7] + a[2] + 1);
  return 0;
}
