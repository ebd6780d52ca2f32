/* The library half of routine_link_gpu.c and routine_link_ptx_gpu.c: routines those files'
 * kernels call, and a kernel of its own that calls its own routine (loaded whole, no link)
 * and one of the other file's (linked). */
#include <openacc.h>
#include "routines.h"

/* 1000 on the GPU (acc_on_device folds to 1 in device code), plus the work. */
long lib_where(long x) { return acc_on_device(acc_device_nvidia) * 1000 + 3 * x; }

double lib_norm(double a, double b) { return __builtin_sqrt(a * a + b * b); }

long lib_chain(long n) { return n <= 0 ? 0 : n + lib_chain(n - 1); }

void lib_kernels(long *out, int n) {
#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) out[i] = lib_where(i) + main_side(i);
}
