// default(none): every variable the region uses needs a data attribute from a clause of the
// construct or of an enclosing data construct (OpenACC 3.3 §2.5.16). A pointer whose
// section is in a data clause (`copy(a[0:n])`) has one; scalars need a clause too.
// RUN: %accc -O2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=OK --allow-empty
// RUN: %accc -O0 -c %s -o %t.o
// RUN: not %accc -O2 -c -DCASE_SCALAR %s -o %t.o 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not %accc -O2 -c -DCASE_POINTER %s -o %t.o 2>&1 | FileCheck %s --check-prefix=POINTER
// RUN: not %accc -O0 -c -DCASE_ARRAY %s -o %t.o 2>&1 | FileCheck %s --check-prefix=ARRAY

// OK-NOT: error
// OK-NOT: warning

void sections(int n, float *a, float *b) {
#pragma acc parallel loop default(none) copy(a[0:n]) firstprivate(n)
  for (int i = 0; i < n; i++) a[i] = 2 * a[i];

  // b's section is mapped by the enclosing data region.
#pragma acc data copyin(b[0:n])
  {
#pragma acc parallel loop default(none) copy(a[1:n - 1]) present(b[0:n]) firstprivate(n)
    for (int i = 1; i < n; i++) a[i] += b[i];
#pragma acc serial default(none) copyin(n) copyout(a[0:1])
    a[0] = b[0] + n;
  }
}

float g[64];
void arrays(int n, int k) {
  float x[32];
#pragma acc data copy(g) create(x)
#pragma acc parallel loop default(none) firstprivate(k)
  for (int i = 0; i < 32; i++) x[i] = g[i] * k;
}

#ifdef CASE_SCALAR
void scalar(int n, float *a) {
  float s = 2;
// SCALAR: default-none.c:[[#@LINE+1]]:9: error: variable 's' is used in the region but has no data clause, and default(none) requires one
#pragma acc parallel loop default(none) copy(a[0:n]) firstprivate(n)
  for (int i = 0; i < n; i++) a[i] *= s;
}
#endif

#ifdef CASE_POINTER
void pointer(int n, float *a, float *b) {
// POINTER: default-none.c:[[#@LINE+1]]:9: error: variable 'b' is used in the region but has no data clause, and default(none) requires one
#pragma acc parallel loop default(none) copy(a[0:n]) firstprivate(n)
  for (int i = 0; i < n; i++) a[i] = b[i];
}
#endif

#ifdef CASE_ARRAY
void array(void) {
  float x[16];
// ARRAY: default-none.c:[[#@LINE+1]]:9: error: variable 'g' is used in the region but has no data clause, and default(none) requires one
#pragma acc parallel loop default(none) copy(x)
  for (int i = 0; i < 16; i++) x[i] = g[i];
}
#endif
