// Loads a PTX file with the driver API at a chosen JIT optimisation level, runs kernel
// main_l66 of max-neg-bool.ptx (README.md) on one block and prints the reduced value.
//   run_kernel FILE.ptx KERNEL [BLOCK=32] [LEVEL=4]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>
#include <cuda.h>
#define CK(x) do { CUresult e = (x); if (e) { const char* s; cuGetErrorString(e, &s); printf("%s: %s\n", #x, s); exit(1); } } while (0)
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
  char* ptx = (char*)malloc(n + 1); fread(ptx, 1, n, f); ptx[n] = 0;
  CK(cuInit(0)); CUdevice d; CK(cuDeviceGet(&d, 0)); CUcontext c; CK(cuCtxCreate(&c, NULL, 0, d));
  CUmodule m;
  unsigned level = argc > 4 ? atoi(argv[4]) : 4;
  CUjit_option opts[] = {CU_JIT_OPTIMIZATION_LEVEL}; void* vals[] = {(void*)(size_t)level};
  CK(cuModuleLoadDataEx(&m, ptx, 1, opts, vals)); CUfunction k; CK(cuModuleGetFunction(&k, m, argv[2]));
  const int NI = 77; int h1[NI * 3], h2[NI];
  for (int x = 0; x < NI * 3; x++) h1[x] = (x * 16 + 897) % 1001 - 500;
  for (int x = 0; x < NI; x++) h2[x] = (x * 12 + 177) % 1001 - 500;
  CUdeviceptr d1, d2, dr, ds; CK(cuMemAlloc(&d1, sizeof h1)); CK(cuMemAlloc(&d2, sizeof h2)); CK(cuMemAlloc(&dr, 4)); CK(cuMemAlloc(&ds, 1 << 16));
  CK(cuMemcpyHtoD(d1, h1, sizeof h1)); CK(cuMemcpyHtoD(d2, h2, sizeof h2)); CK(cuMemsetD8(ds, 0, 1 << 16));
  int r0 = 99; CK(cuMemcpyHtoD(dr, &r0, 4));
  unsigned nn = NI;
  void* args[] = {&dr, &d2, &nn, &d1, &ds};
  int block = argc > 3 ? atoi(argv[3]) : 32;
  CK(cuLaunchKernel(k, 1, 1, 1, block, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize());
  int r; CK(cuMemcpyDtoH(&r, dr, 4));
}
