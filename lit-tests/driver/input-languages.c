// Inputs by language: -x c for any name (-x none goes back to extensions), contract IR
// (.ll/.bc, e.g. accc's own -emit-llvm dumps) compiled with the pass, assembly assembled;
// flags that matter when linking reach the link; -flto is refused. Programs run (host path).
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
//
// CHECK-LABEL: sum 6
// RUN: cp %s prog.acc && %accc -O2 -x c prog.acc -x none %S/Inputs/seven.s -o xc && ./xc | FileCheck %s
// RUN: not %accc -c prog.acc 2>&1 | FileCheck %s --check-prefix=NOTC
// NOTC: accc: error: 'prog.acc': linker input unused with -c/-S/-E
//
// IR in, offloaded object out: no marker is left, the launch is there.
// RUN: %accc -O2 -emit-llvm -S %s -o prog.ll && %accc -O2 -c prog.ll -o ll.o
// RUN: llvm-nm ll.o | FileCheck %s --check-prefix=OFFLOADED
// RUN: %accc -O2 -emit-llvm -c %s -o prog.bc && %accc -O2 prog.bc %S/Inputs/seven.s -o bc && ./bc | FileCheck %s
// RUN: cp prog.ll prog.txt && %accc -O2 -x ir prog.txt -x assembler %S/Inputs/seven.s -o xir && ./xir | FileCheck %s
// OFFLOADED-NOT: __acc_begin
// OFFLOADED: U __accrt_launch
// OFFLOADED-NOT: __acc_begin
//
// .s/.S: assembled (-c), .S preprocessed with the user's -D.
// RUN: %accc -c %S/Inputs/seven.s -o s.o && llvm-nm s.o | FileCheck %s --check-prefix=SEVEN
// RUN: %accc -DRESULT=7 -c %S/Inputs/seven.S -o S.o && llvm-nm S.o | FileCheck %s --check-prefix=SEVEN
// SEVEN: T seven
// RUN: not %accc -S %S/Inputs/seven.s 2>&1 | FileCheck %s --check-prefix=ASMS
// ASMS: accc: error: '{{.*}}seven.s': input unused with -S/-E
// RUN: not %accc -x c++ %s 2>&1 | FileCheck %s --check-prefix=CXX
// CXX: accc: error: language 'c++' is not supported
//
// Link-time flags: -fsanitize= and -pthread reach every compile step and the link.
// RUN: %accc -v -O1 -fsanitize=address -pthread %s %S/Inputs/seven.s -o asan 2>&1 | FileCheck %s --check-prefix=SAN
// SAN: clang{{[-0-9]*}} -x cpp-output -c {{.*}}-fsanitize=address -pthread {{.*}}-fpass-plugin=
// SAN: clang{{[-0-9]*}} {{.*}}.o {{.*}}.o -o asan -fsanitize=address -pthread -L
// RUN: ./asan | FileCheck %s
//
// RUN: not %accc -flto -c %s 2>&1 | FileCheck %s --check-prefix=LTO
// RUN: not %accc -flto=thin %s 2>&1 | FileCheck %s --check-prefix=LTO
// LTO: accc: error: -flto{{(=thin)?}} is not supported

#include <stdio.h>

int seven(void);

int main(void) {
  int v[3] = {1, 2, 3}, s = 0;
#pragma acc parallel loop copyin(v[0:3])
  for (int i = 0; i < 3; i++) v[i] += 0;
  for (int i = 0; i < 3; i++) s += v[i];
  printf("sum %d\n", s + seven() - 7);
  return 0;
}
