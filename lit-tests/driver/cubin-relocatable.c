// A kernel image is relocatable (ptxas -c, linked by the CUDA JIT linker at load time) only
// when its kernels call a routine of another file. libdevice's __nvvm_reflect, a declaration
// before the device pipeline folds it, does not count: a reduction over a libm call stays
// a whole-program cubin.
// RUN: %accc -O2 -c %s -o %t.o
// RUN: python3 %S/Inputs/elf-types.py %t.o | FileCheck %s --check-prefix=WHOLE
// WHOLE: embedded ELF e_types: [2]
// RUN: %accc -O2 -DEXTERNAL -c %s -o %t.ext.o
// RUN: python3 %S/Inputs/elf-types.py %t.ext.o | FileCheck %s --check-prefix=EXT
// EXT: embedded ELF e_types: [1]
#include <math.h>

#ifdef EXTERNAL
#pragma acc routine seq
double elsewhere(double);
#define F elsewhere
#else
#define F sqrt
#endif

double norm(const double *x, int n) {
  double s = 0;
#pragma acc parallel loop reduction(+:s) copyin(x[0:n])
  for (int i = 0; i < n; i++) s += F(fabs(x[i]));
  return s;
}
