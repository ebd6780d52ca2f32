// accc changes only the directives: a string literal in a Latin-1 source (a raw 0xE9 byte,
// not UTF-8) reaches the program byte for byte, in the output of the host path.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: sed 's/CAFE/caf\xe9/' %s > latin1.c
// RUN: %accc -O2 latin1.c -o latin1 2>/dev/null
// RUN: ./latin1 | od -An -c | FileCheck %s
// RUN: %clang -O2 -w latin1.c -o reference && ./reference > expected.txt
// RUN: ./latin1 | cmp - expected.txt
// CHECK-LABEL: c   a   f 351       3  \n

#include <stdio.h>

int main(void) {
  int n = 1;
#pragma acc parallel loop copy(n)
  for (int i = 0; i < 2; i++) n += 0;
  n += 2;
  printf("CAFE %d\n", n);
  return 0;
}
