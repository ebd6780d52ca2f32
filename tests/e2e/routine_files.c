/* Routines across files (OpenACC 3.3 §2.15): routines declared with `routine seq` in a
 * header and defined in routine_files/lib.c are called from this file's compute regions,
 * and lib.c's compute region calls a routine this file defines. Built with each file
 * compiled on its own and linked (scripts/e2e, scripts/gpu-test: the e2e-also line below);
 * lit-tests/runtime/routine-two-files.c builds it with one command. A `nohost` routine has
 * no host version anywhere: this file's host fallback must not call it. */
/* e2e-also: routine_files/lib.c */
#include <openacc.h>
#define E2E_NAME "routine_files"
#include "e2e.h"
#include "routine_files/routines.h"

enum { N = 1003, M = 77 };

int main_tweak(int x) { return 2 * x - 1; }

static long steps(long n) {
  long s = 0;
  for (; n > 1; s++) n = n % 2 ? 3 * n + 1 : n / 2;
  return s;
}

int main(void) {
  double *y = e2e_alloc(N * sizeof *y);
  int *z = e2e_alloc(N * sizeof *z);
  long *s = e2e_alloc(M * sizeof *s);
  int *f = e2e_alloc(M * sizeof *f);
  int on_host = acc_get_device_type() == acc_device_host;
#pragma acc parallel loop copyout(y[0:N], z[0:N])
  for (int i = 0; i < N; i++) {
    y[i] = lib_mix(i * -0.5, i % 7);
    z[i] = on_host ? -1 : lib_dev_only(i);
  }
#pragma acc parallel loop gang vector copyout(s[0:M]) vector_length(32)
  for (int i = 0; i < M; i++) s[i] = lib_steps(i + 1);
  lib_fill(f, M);
  for (int i = 0; i < N; i++) {
    double want = i * 0.5 * (i % 7) + 0.25;
    CHECK(y[i] == want, "y[%d] = %g, want %g", i, y[i], want);
    int zw = on_host ? -1 : 2 * i - 1 + 5;
    CHECK(z[i] == zw, "z[%d] = %d, want %d", i, z[i], zw);
  }
  for (int i = 0; i < M; i++) {
    CHECK(s[i] == steps(i + 1), "s[%d] = %ld, want %ld", i, s[i], steps(i + 1));
    CHECK(f[i] == (int)steps(i + 1) + 2 * i - 1, "f[%d] = %d", i, f[i]);
  }
  free(y);
  free(z);
  free(s);
  free(f);
  return e2e_finish();
}
