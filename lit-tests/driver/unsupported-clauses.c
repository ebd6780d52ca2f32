// Clauses that accc recognises but does not lower yet: each is reported at its own column
// (also on a continuation line), all in one run, and no object file is written.
// (bind, nohost, default_async and device_num only occur on routine, init, shutdown and set,
// which accc lowers: routine.c, lit-tests/runtime/device-directives.c.)
// RUN: rm -f %t.o
// RUN: not %accc -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: test ! -e %t.o

void f(float *p, float **q, float m[8][8], int n, int c) {
  float s = 0;
// A clause on a continuation line is reported on that line (`always` is an OpenACC 3.4
// modifier, which clang accepts).
#pragma acc parallel loop copy(p[0:n]) \
  copyin(always: m[0:8][0:4])
// CHECK: unsupported-clauses.c:[[@LINE-1]]:3: error: OpenACC 'copyin(always:)' is not supported yet
  for (int i = 0; i < n; i++) p[i] = s;
}
