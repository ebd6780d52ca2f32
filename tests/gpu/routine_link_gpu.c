/* GPU only: routines across files. This file's kernels call routines that
 * routine_link_gpu/lib.c defines (declared `routine seq` in its header): their cubin is
 * relocatable and the runtime links it with lib.c's routine library (the CUDA JIT linker)
 * before loading; lib.c's kernel calls a routine of this file the same way. Checked: the
 * routines ran on the GPU (lib_where adds 1000 there: acc_on_device in the library), every
 * element of odd sizes, a linked kernel launched again (the loaded module is cached) and on
 * an async queue, math from libdevice in the library, a recursive routine. The emulator
 * version of the same is tests/e2e/routine_files.c. routine_link_ptx_gpu.c builds this
 * program for an older GPU, so that the H100 links the PTX instead. */
/* e2e-also: routine_link_gpu/lib.c */
#include <openacc.h>
#define E2E_NAME "routine_link_gpu"
#include "../e2e/e2e.h"
#include "routine_link_gpu/routines.h"

long main_side(long x) { return 7 * x; }

enum { N = 100003, M = 333 };

int main(void) {
  if (acc_get_device_type() == acc_device_host || getenv("ACC_DEVICE_TYPE")) {
    printf("FAIL %s: needs the GPU (acc_device_nvidia, ACC_DEVICE_TYPE unset)\n", E2E_NAME);
    return 1;
  }
  long *w = e2e_alloc(N * sizeof *w);
  double *d = e2e_alloc(N * sizeof *d);
  long *c = e2e_alloc(M * sizeof *c);
  long *k = e2e_alloc(M * sizeof *k);
  for (int rep = 0; rep < 3; rep++) {
#pragma acc parallel loop copyout(w[0:N], d[0:N])
    for (int i = 0; i < N; i++) {
      w[i] = lib_where(i + rep);
      d[i] = lib_norm(3.0 * i, 4.0 * i);
    }
    for (int i = 0; i < N; i++) {
      CHECK(w[i] == 1000 + 3 * (long)(i + rep), "rep %d: w[%d] = %ld (1000 + 3*%d on the GPU)", rep, i, w[i], i + rep);
      CHECK(e2e_close(d[i], 5.0 * i, 1e-12), "d[%d] = %g, want %g", i, d[i], 5.0 * i);
    }
  }
#pragma acc parallel loop gang vector copyout(c[0:M]) async(1) vector_length(64)
  for (int i = 0; i < M; i++) c[i] = lib_chain(i);
#pragma acc wait(1)
  for (int i = 0; i < M; i++) CHECK(c[i] == (long)i * (i + 1) / 2, "c[%d] = %ld", i, c[i]);
  lib_kernels(k, M);
  for (int i = 0; i < M; i++) CHECK(k[i] == 1000 + 3L * i + 7L * i, "k[%d] = %ld", i, k[i]);
  free(w);
  free(d);
  free(c);
  free(k);
  return e2e_finish();
}
