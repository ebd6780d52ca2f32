// Inputs by language: -x c for any name (-x none goes back to extensions), preprocessed C
// (.i, -x cpp-output), contract IR
// (.ll/.bc, e.g. accc's own -emit-llvm dumps) compiled with the pass, assembly assembled;
// flags that matter when linking reach the link; -flto is refused. Programs run (host path).
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
//
// CHECK-LABEL: sum 6
// RUN: cp %s prog.acc && %accc -O2 -x c prog.acc -x none %S/Inputs/seven.s -o xc && ./xc | FileCheck %s
// A linker input with -c/-S/-E/-M is left alone with a warning, as clang and GCC do.
// RUN: %accc -c %s prog.acc -o warn.o 2>&1 | FileCheck %s --check-prefix=NOTC
// RUN: %accc -E %s prog.acc -o warn.i 2>&1 | FileCheck %s --check-prefix=NOTC
// RUN: %accc -M %s prog.acc 2>&1 | FileCheck %s --check-prefix=NOTC
// NOTC: accc: warning: 'prog.acc': linker input unused (nothing is linked with -c, -S, -E or -M)
//
// Preprocessed C (.i, or -x cpp-output), as ccache hands it over after `accc -E`: rewritten
// and offloaded, not preprocessed again. A header alone is refused.
// RUN: %accc -E %s -o pre.i && %accc -O2 -c pre.i -o pre.o && llvm-nm pre.o | FileCheck %s --check-prefix=OFFLOADED
// RUN: %accc -O2 pre.o %S/Inputs/seven.s -o pre && ./pre | FileCheck %s
// RUN: cp pre.i pre.txt && %accc -O2 -x cpp-output pre.txt -x none %S/Inputs/seven.s -o pretxt && ./pretxt | FileCheck %s
// RUN: echo 'int seven(void);' > seven.h && not %accc -c seven.h 2>&1 | FileCheck %s --check-prefix=HEADER
// HEADER: accc: error: 'seven.h': a header is not compiled on its own (accc makes no precompiled headers; -x c compiles it as C)
//
// A file name that is not UTF-8 is refused by name, not turned into another one.
// RUN: cp %s "$(printf 'caf\351.c')" && not %accc -c "$(printf 'caf\351.c')" 2>&1 | FileCheck %s --check-prefix=UTF8
// UTF8: accc: error: argument 'caf{{.*}}.c' is not valid UTF-8 (accc takes file names and flags in UTF-8)
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
