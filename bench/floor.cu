// CUDA reference points for scripts/bench, compiled with nvcc on the GPU machine:
//  - launch: a one-thread kernel launched and synchronised (cudaDeviceSynchronize) 10000
//    times, microseconds per round trip (the floor under `launch`);
//  - copy: device-to-device cudaMemcpy of 1 GiB, TB/s counting bytes read + written (the
//    roof over `triad` and `jacobi`);
//  - pinned: host-to-device and device-to-host cudaMemcpy of 1 GiB of page-locked host
//    memory (cudaMallocHost), GB/s (the roof over `xfer_in` and `xfer_out`, which copy
//    malloc'ed memory).
// Prints "RESULT <name> <metric> <value> <unit>" lines, then PASS/FAIL.
//   nvcc -O2 -arch=native floor.cu -o floor && ./floor [launches=10000]
// With -DFLOOR_LIB it is instead a shared library for bench/launch.c's paired rounds (the
// CUDA launch timed in accc's own process, between accc's launches, on the same primary
// context and CPU):
//   nvcc -O2 -arch=native -shared -Xcompiler -fPIC -DFLOOR_LIB floor.cu -o libfloor.so
// exporting `double floor_launch_us(long launches)`: microseconds per launch + synchronise
// of the same one-thread kernel, or -1 when a CUDA call fails or the kernel miscounted.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      printf("FAIL floor: %s: %s\n", #x, cudaGetErrorString(e_));                      \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

__global__ void tiny(double *x) {
  if (threadIdx.x == 0 && blockIdx.x == 0) x[0] += 1.0;
}

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#ifdef FLOOR_LIB
extern "C" double floor_launch_us(long launches) {
  static double *x = nullptr;
  static long done = 0;
  if (!x && (cudaMalloc(&x, sizeof(double)) != cudaSuccess || cudaMemset(x, 0, sizeof(double)) != cudaSuccess)) return -1;
  double t0 = now();
  for (long r = 0; r < launches; r++) {
    tiny<<<1, 1>>>(x);
    if (cudaDeviceSynchronize() != cudaSuccess) return -1;
  }
  double t1 = now();
  done += launches;
  double hx = 0;
  if (cudaMemcpy(&hx, x, sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess || hx != (double)done) return -1;
  return 1e6 * (t1 - t0) / (double)launches;
}
#else
int main(int argc, char **argv) {
  long reps = argc > 1 ? atol(argv[1]) : 10000, warm = 100;
  if (reps <= 0) reps = 10000;
  double *x, hx = 0;
  CK(cudaMalloc(&x, sizeof(double)));
  CK(cudaMemset(x, 0, sizeof(double)));
  double t0 = 0;
  for (long r = 0; r < warm + reps; r++) {
    if (r == warm) t0 = now();
    tiny<<<1, 1>>>(x);
    CK(cudaDeviceSynchronize());
  }
  double t1 = now();
  CK(cudaGetLastError());
  CK(cudaMemcpy(&hx, x, sizeof(double), cudaMemcpyDeviceToHost));
  if (hx != (double)(warm + reps)) {
    printf("FAIL floor: launch counter %g, want %ld\n", hx, warm + reps);
    return 1;
  }
  printf("RESULT launch latency %.4g us\n", 1e6 * (t1 - t0) / (double)reps);

  const size_t bytes = size_t(1) << 30;
  const int copies = 20;
  void *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes));
  CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  CK(cudaDeviceSynchronize());
  t0 = now();
  for (int r = 0; r < copies; r++) CK(cudaMemcpy(r % 2 ? a : b, r % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice));
  CK(cudaDeviceSynchronize());
  t1 = now();
  printf("RESULT copy bandwidth %.4g TB/s\n", 2.0 * (double)bytes * copies / (t1 - t0) / 1e12);

  // Pinned host memory both ways, one warm-up each, then the mean of five.
  void *h;
  CK(cudaMallocHost(&h, bytes));
  CK(cudaMemset(a, 3, bytes));
  double in = 0, out = 0;
  for (int r = 0; r < 6; r++) {
    t0 = now();
    CK(cudaMemcpy(h, a, bytes, cudaMemcpyDeviceToHost));
    t1 = now();
    CK(cudaMemcpy(b, h, bytes, cudaMemcpyHostToDevice));
    double t2 = now();
    if (r) out += (t1 - t0), in += (t2 - t1);
  }
  if (((unsigned char *)h)[bytes - 1] != 3) {
    printf("FAIL floor: pinned copy read back %d, want 3\n", ((unsigned char *)h)[bytes - 1]);
    return 1;
  }
  printf("RESULT pinned in %.4g GB/s\nRESULT pinned out %.4g GB/s\n", 5.0 * (double)bytes / in / 1e9, 5.0 * (double)bytes / out / 1e9);
  CK(cudaFreeHost(h));
  printf("PASS floor\n");
  return 0;
}
#endif
