// Dependency files are the ones clang writes for the same command line: the target names
// the real output (never accc's scratch .i), -MD/-MMD without -MF write <output>.d beside
// the output (or <stem>.d without -o), -M/-MM print the rules and compile nothing.
// RUN: rm -rf %t.dir && mkdir -p %t.dir/obj %t.dir/ref && cd %t.dir
// RUN: cp %s deps.c && cp %S/Inputs/acc-header.h .
//
// CHECK-LABEL: obj/deps.o: deps.c acc-header.h
// RUN: %accc -MMD -c deps.c -o obj/deps.o
// RUN: FileCheck %s < obj/deps.d
// RUN: test ! -e deps.d
// RUN: %clang -MMD -c deps.c -o ref/deps.o && sed 's|ref/|obj/|' ref/deps.d | diff - obj/deps.d
//
// -MD (system headers too) without -o: deps.d and the target deps.o, in the current directory.
// RUN: %accc -MD -c deps.c && %clang -MD -c deps.c -o ref/x.o -MF ref/x.d -MT deps.o
// RUN: diff ref/x.d deps.d
//
// -MF, -MT/-MQ (quoting $ as $$) and -MP as given; a link writes <output>.d for target <output>.
// RUN: %accc -MMD -MF my.d -MT 'a$b' -MQ 'c$d' -MP -c deps.c -o obj/x.o
// RUN: FileCheck %s --check-prefix=NAMED < my.d
// NAMED-LABEL: a$b c$$d: deps.c acc-header.h
// NAMED: acc-header.h:
// RUN: %accc -MMD deps.c -o prog && FileCheck %s --check-prefix=LINK < prog.d
// LINK-LABEL: prog: deps.c acc-header.h
// RUN: %accc -MMD -S deps.c -o obj/deps.s && FileCheck %s --check-prefix=ASM < obj/deps.d
// ASM-LABEL: obj/deps.s: deps.c acc-header.h
//
// -M/-MM print to stdout (or -o, -MF) like clang, and compile nothing.
// RUN: rm -f deps.o && %accc -MM deps.c | FileCheck %s --check-prefix=MM
// MM-LABEL: deps.o: deps.c acc-header.h
// RUN: test ! -e deps.o && test ! -e a.out
// RUN: %accc -MM -c deps.c -o rules.txt && FileCheck %s --check-prefix=MM < rules.txt
// RUN: %accc -M -MF all.d deps.c && %clang -M -MF ref/all.d deps.c && diff ref/all.d all.d
// RUN: test ! -e deps.o

#include <stdio.h>
#include "acc-header.h"

int main(void) {
  float v[4] = {1, 2, 3, 4};
  scale(v, 4, 2.0f);
  printf("%g\n", v[3]);
  return 0;
}
