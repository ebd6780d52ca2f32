// Host globals in device code. A global used directly in a compute region is mapped
// through the data environment (implicitly copy), also when Clang writes the access as a
// constant expression (a constant index, `c ? &g[1] : &g[2]`). A writable global reached
// any other way (in a called function, a function's static variable, through a constant
// table of addresses) or a constant defined in another file would silently be a device
// copy of its static initialiser: a located error naming the variable and saying to
// declare it (declare.c shows declared globals in called functions). Constant tables and
// string literals are fine.
// RUN: %accc -O2 -c %s -o %t.o
// RUN: %accc -O0 -c %s -o %t.o
// RUN: not %accc -O2 -c -DCASE_CALLEE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CALLEE
// RUN: not %accc -O0 -c -DCASE_CALLEE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CALLEE
// RUN: not %accc -O2 -c -DCASE_STATIC %s -o %t.o 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not %accc -O2 -c -DCASE_TABLE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: not %accc -O2 -c -DCASE_EXTERN_CONST %s -o %t.o 2>&1 | FileCheck %s --check-prefix=EXTERN

int g = 5;
float garr[100];
const float table[4] = {1, 2, 3, 4};

void direct(int n, float *a, int c) {
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = garr[3] + garr[i % 100] + g + table[i % 4] + "hello"[i % 5] + *(c ? &garr[1] : &garr[2]);
}

#ifdef CASE_CALLEE
static int scaled(int i) { return i * g; }
void callee(int n, int *a) {
// CALLEE: globals.c:[[@LINE+1]]:9: error: global variable 'g' is used in a compute region through a called function (or a table of addresses) and has no device copy: give it one with a file-scope '#pragma acc declare create(...)' (or copyin), or pass it through a local pointer or array with a data clause
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = scaled(i);
}
#endif

#ifdef CASE_STATIC
static int next_id(void) {
  static int counter;
  return ++counter;
}
void ids(int n, int *a) {
// STATIC: globals.c:[[@LINE+1]]:9: error: global variable 'counter' (a static variable of 'next_id') is used in a compute region through a called function
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = next_id();
}
#endif

#ifdef CASE_TABLE
int *const ptab[2] = {&g, &g};
void through_table(int n, int *a) {
// TABLE: globals.c:[[@LINE+1]]:9: error: global variable 'g' is used in a compute region
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = *ptab[i % 2];
}
#endif

#ifdef CASE_EXTERN_CONST
extern const int coeffs[4];
static int coeff(int i) { return coeffs[i & 3]; }
void ext(int n, int *a) {
// EXTERN: globals.c:[[@LINE+1]]:9: error: global variable 'coeffs' is used in a compute region
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = coeff(i);
}
#endif
