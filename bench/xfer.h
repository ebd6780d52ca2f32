/* Moving 1 GiB of malloc'ed doubles between host and device with data directives,
 * repeated: `enter data copyin` (xfer_in) or `exit data copyout` (xfer_out) is timed, GB/s
 * counting the bytes moved once. Every element is checked on the other side: a device
 * kernel compares the copied-in data with what the host wrote (a count of mismatches,
 * reduced), and the host compares every copied-out element with what a device kernel wrote.
 * xfer_in.c and xfer_out.c define XFER_NAME and XFER_OUT (0 or 1) and include this.
 *   xfer_in|xfer_out [log2(n)=27] [reps=5] */
#include "bench.h"

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 27), reps = bench_arg(argc, argv, 2, 5), warm = 1;
  const long n = 1L << lg;
  double *x = bench_alloc(XFER_NAME, sizeof(double) * n);
  double time = 0;
  char why[160];
  for (long r = 0; r < warm + reps; r++) {
    const double salt = (double)(r * 7 + 1);
    long bad = 0;
    if (!XFER_OUT) {
      for (long i = 0; i < n; i++) x[i] = (double)(i % 100003) + salt;
      double t0 = bench_now();
#pragma acc enter data copyin(x[0:n])
      double t1 = bench_now();
      if (r >= warm) time += t1 - t0;
#pragma acc parallel loop reduction(+:bad) present(x[0:n])
      for (long i = 0; i < n; i++)
        bad += x[i] != (double)(i % 100003) + salt;
#pragma acc exit data delete(x[0:n])
      if (bad) {
        snprintf(why, sizeof why, "wrong answer: %ld elements differ on the device (repetition %ld)", bad, r);
        return bench_fail(XFER_NAME, why);
      }
    } else {
      for (long i = 0; i < n; i++) x[i] = -1.0;
#pragma acc enter data create(x[0:n])
#pragma acc parallel loop present(x[0:n])
      for (long i = 0; i < n; i++)
        x[i] = (double)(i % 100019) + salt;
      double t0 = bench_now();
#pragma acc exit data copyout(x[0:n])
      double t1 = bench_now();
      if (r >= warm) time += t1 - t0;
      for (long i = 0; i < n; i++)
        if (x[i] != (double)(i % 100019) + salt) {
          snprintf(why, sizeof why, "wrong answer: x[%ld] = %g, want %g (repetition %ld)", i, x[i],
                   (double)(i % 100019) + salt, r);
          return bench_fail(XFER_NAME, why);
        }
    }
  }
  free(x);
  printf("# " XFER_NAME ": %.3f ms per copy of %ld doubles\n", 1e3 * time / (double)reps, n);
  return bench_pass(XFER_NAME, "bandwidth", 8.0 * (double)n * (double)reps / time / 1e9, "GB/s");
}
