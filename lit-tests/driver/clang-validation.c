// Clang's own OpenACC checks run first and their diagnostics reach the user verbatim;
// accc then exits non-zero without writing an output.
// RUN: rm -f %t.o
// RUN: not %accc -c -DCASE_NOT_A_LOOP %s -o %t.o 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not %accc -c -DCASE_BOGUS_CLAUSE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CLAUSE
// RUN: not %accc -c -DCASE_BOGUS_DIRECTIVE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: test ! -e %t.o
// The "no runtime behavior" warning of clang is suppressed.
// RUN: %accc -emit-llvm -S %s -o /dev/null 2>&1 | count 0

void f(float *x, int n) {
#ifdef CASE_NOT_A_LOOP
// LOOP: clang-validation.c:[[@LINE+2]]:3: error: OpenACC 'parallel loop' construct can only be applied to a 'for' loop
#pragma acc parallel loop
  x[0] = 1;
#endif
#ifdef CASE_BOGUS_CLAUSE
// CLAUSE: clang-validation.c:[[@LINE+1]]:22: error: invalid OpenACC clause 'frobnicate'
#pragma acc parallel frobnicate(x)
  x[0] = 1;
#endif
#ifdef CASE_BOGUS_DIRECTIVE
// DIR: clang-validation.c:[[@LINE+1]]:13: error: invalid OpenACC directive 'frobnicate'
#pragma acc frobnicate
  x[0] = 1;
#endif
#pragma acc parallel loop copy(x[0:n])
  for (int i = 0; i < n; i++) x[i] = i;
}
