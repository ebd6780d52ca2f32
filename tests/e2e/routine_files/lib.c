/* The library half of routine_files.c: defines routines that the other file's kernels call
 * (one with math from libdevice, one recursive, one calling another file's routine), and a
 * compute region of its own calling its routines and the other file's. */
#include <math.h>
#include "routines.h"

static double offset(void) { return 0.25; }

double lib_mix(double a, int k) { return sqrt(a * a) * k + offset(); }

/* Collatz steps, recursively. */
long lib_steps(long n) { return n <= 1 ? 0 : 1 + lib_steps(n % 2 ? 3 * n + 1 : n / 2); }

int lib_dev_only(int x) { return main_tweak(x) + 5; }

void lib_fill(int *out, int n) {
#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) out[i] = (int)lib_steps(i + 1) + main_tweak(i);
}
