// `#pragma acc routine`: the contract it becomes, and its located errors. Clang diagnoses a
// routine without a level, two levels in one directive and a name that is not a function
// (its message, verbatim); accc the rest. Every case is rejected with no object.
// RUN: %accc -O1 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %accc -O2 -c %s -o %t.o
// RUN: not %accc -c -DCASE_NOLEVEL %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=NOLEVEL
// RUN: not %accc -c -DCASE_TWOLEVELS %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=TWOLEVELS
// RUN: not %accc -c -DCASE_CONFLICT %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not %accc -c -DCASE_ORPHAN %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=ORPHAN
// RUN: not %accc -c -DCASE_POINTER %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=POINTER
// RUN: not %accc -c -g -DCASE_POINTER %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=POINTER-G
// RUN: not %accc -c -DCASE_UNDEFINED %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=UNDEFINED
// RUN: not %accc -c -DCASE_RECURSIVE_VECTOR %s -o %t.bad.o 2>&1 | FileCheck %s --check-prefix=RECURSIVE
// RUN: %accc -c -DCASE_EXTERNAL_VECTOR %s -o %t.ext.o 2>&1 | FileCheck %s --check-prefix=EXTERNAL
// RUN: %accc -c -DCASE_EXTERNAL_GANG %s -o %t.gang.o 2>&1 | FileCheck %s --check-prefix=EXTERNAL-GANG
// RUN: test ! -e %t.bad.o

// The unnamed form's markers follow the function; the named form's stand where it is.
// `bind(half_dev)` is the name as a string.
// IR: c"half_dev\00"
// IR-LABEL: define {{.*}}i32 @twice(
// IR-LABEL: define {{.*}}void @__acc_routine_1()
// IR: call void @__acc_begin(i32 noundef 1, {{.*}}, i32 noundef [[@LINE+3]], i32 noundef 9)
// IR-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef @{{.*}}, ptr noundef @twice)
// IR-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef @{{[^,]*}})
#pragma acc routine seq
int twice(int x) { return 2 * x; }
int half(int x);
// IR-LABEL: define {{.*}}void @__acc_routine_2()
// IR: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef @{{.*}}, ptr noundef @half)
// IR: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef @{{.*}}, ptr noundef @{{.*}})
#pragma acc routine(half) seq bind(half_dev)

#ifdef CASE_NOLEVEL
// NOLEVEL: routine.c:[[@LINE+1]]:1: error: OpenACC 'routine' construct must have at least one 'gang', 'seq', 'vector', or 'worker' clause
#pragma acc routine
int nolevel(int x);
#endif

#ifdef CASE_TWOLEVELS
// TWOLEVELS: routine.c:[[@LINE+1]]:25: error: OpenACC clause 'vector' cannot combine with previous 'seq' clause
#pragma acc routine seq vector
int twolevels(int x);
#endif

#ifdef CASE_CONFLICT
#pragma acc routine seq
int conflict(int x);
// CONFLICT: routine.c:[[@LINE+1]]:9: error: OpenACC 'routine' for 'conflict' says 'vector' but an earlier one says 'seq': the directives of one function must give the same level
#pragma acc routine(conflict) vector
#endif

#ifdef CASE_ORPHAN
void orphan(int *a, int n) {
// ORPHAN: routine.c:[[@LINE+1]]:9: error: OpenACC 'loop' outside a compute region must be in a function with a 'routine' directive ('orphan' has none)
#pragma acc loop vector
  for (int i = 0; i < n; i++) a[i] = 0;
}
#endif

#ifdef CASE_POINTER
int (*pick(int k))(int);
void pointer(int *a, int n) {
  int (*f)(int) = pick(n);
// POINTER: routine.c:[[@LINE+1]]:9: error: a function is called through a pointer in a compute region: device code can only call functions by name (OpenACC 'routine')
#pragma acc parallel loop copy(a[0:n]) firstprivate(f)
  for (int i = 0; i < n; i++)
// POINTER-G: routine.c:[[@LINE+1]]:12: error: a function is called through a pointer in a compute region
    a[i] = f(a[i]);
}
#endif

#ifdef CASE_UNDEFINED
int elsewhere(int x);
void undefined(int *a, int n) {
// UNDEFINED: routine.c:[[@LINE+1]]:9: error: function 'elsewhere' is called in a compute region but has no device version: it is not defined in this file, so it needs an OpenACC 'routine' directive
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = elsewhere(a[i]);
}
#endif

#ifdef CASE_RECURSIVE_VECTOR
// RECURSIVE: routine.c:[[@LINE+1]]:9: error: 'sum' is a 'vector' routine that calls itself: gang, worker and vector routines cannot be recursive
#pragma acc routine vector
void sum(int *a, int n) {
#pragma acc loop vector
  for (int i = 0; i < n; i++) a[i] += 1;
  if (n > 1) sum(a, n / 2);
}
void recursive(int *a, int n) {
#pragma acc parallel copy(a[0:n])
  sum(a, n);
}
#endif

#ifdef CASE_EXTERNAL_VECTOR
#pragma acc routine vector
void clear(int *a, int n);
void external(int *a, int n) {
// A vector routine of another file: that file's device version (loops sequential), called by
// one thread; a warning says so (tests/e2e/routine_level_files.c runs one).
// EXTERNAL: routine.c:[[@LINE+1]]:9: warning: 'clear' is a 'vector' routine defined in another file: its loops run sequentially here
#pragma acc parallel copy(a[0:n])
  clear(a, n);
}
#endif

#ifdef CASE_EXTERNAL_GANG
#pragma acc routine gang
void clear_all(int *a, int n);
void external_gang(int *a, int n) {
// A gang routine of another file: that file's device version spreads its gang loops over the
// caller's gangs (tests/e2e/routine_gang_files.c runs some); a warning says so.
// EXTERNAL-GANG: routine.c:[[@LINE+1]]:9: warning: 'clear_all' is a 'gang' routine defined in another file: its gang loops are spread over the gangs, each gang's share run by one thread
#pragma acc parallel copy(a[0:n])
  clear_all(a, n);
}
#endif

void use(int *a, int n) {
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) a[i] = twice(a[i]) + half(a[i]);
}
