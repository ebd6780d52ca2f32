// Device code the GPU cannot run gets a located error at the compute construct (at the
// instruction's -g location when it has one), never an LLVM crash: `long double` (x86_fp80, NVPTX
// back end aborted) and `_Thread_local` variables, used directly (the device module did not
// verify) or in a called function. `long double` on the host, outside regions, is fine.
// RUN: %accc -O2 -c %s -o %t.o
// RUN: not %accc -O2 -c -DCASE_LD %s -o %t.o 2>&1 | FileCheck %s --check-prefix=LD
// RUN: not %accc -O0 -c -DCASE_LD %s -o %t.o 2>&1 | FileCheck %s --check-prefix=LD
// RUN: not %accc -O2 -c -DCASE_LDCALL %s -o %t.o 2>&1 | FileCheck %s --check-prefix=LDCALL
// RUN: not %accc -O2 -c -DCASE_TLS %s -o %t.o 2>&1 | FileCheck %s --check-prefix=TLS
// RUN: not %accc -O0 -c -DCASE_TLS %s -o %t.o 2>&1 | FileCheck %s --check-prefix=TLS
// RUN: not %accc -O2 -c -DCASE_TLSCALL %s -o %t.o 2>&1 | FileCheck %s --check-prefix=TLSCALL
// LD-NOT: Stack dump
// TLS-NOT: internal compiler error

long double host_only(long double x) { return x * 3.0L; }

#ifdef CASE_LD
void ld(int n, double *a, long double s) {
// LD: device-unsupported.c:[[@LINE+1]]:9: error: 'long double' (80-bit x87 floating point) cannot be used in a compute region: the GPU has no arithmetic for it (use 'double')
#pragma acc parallel loop copyout(a[0:n])
  for (int i = 0; i < n; i++) {
    long double x = i;
    a[i] = (double)(x / s);
  }
}
#endif

#ifdef CASE_LDCALL
#include <math.h>
void ldcall(int n, double *a) {
// LDCALL: device-unsupported.c:[[@LINE+1]]:9: error: 'long double' (80-bit x87 floating point) cannot be used in a compute region
#pragma acc parallel loop copyout(a[0:n])
  for (int i = 0; i < n; i++) a[i] = (double)sqrtl((long double)i);
}
#endif

#if defined(CASE_TLS) || defined(CASE_TLSCALL)
_Thread_local int tls = 3;
static int get(int i) { return tls + i; }
#endif

#ifdef CASE_TLS
void direct(int n, int *a) {
// TLS: device-unsupported.c:[[@LINE+1]]:9: error: thread-local variable 'tls' is used in a compute region: GPU threads have no host thread's copy (copy it to an ordinary variable before the region)
#pragma acc parallel loop copyout(a[0:n])
  for (int i = 0; i < n; i++) a[i] = tls + i;
}
#endif

#ifdef CASE_TLSCALL
void called(int n, int *a) {
// TLSCALL: device-unsupported.c:[[@LINE+1]]:9: error: thread-local variable 'tls' is used in a compute region
#pragma acc parallel loop copyout(a[0:n])
  for (int i = 0; i < n; i++) a[i] = get(i);
}
#endif

void fine(int n, double *a) {
#pragma acc parallel loop copyout(a[0:n])
  for (int i = 0; i < n; i++) a[i] = i * 0.5;
}
