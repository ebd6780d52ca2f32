/* Launch round trip: a `parallel loop` over one element, launched 10000 times inside a
 * data region (each construct waits for its kernel); microseconds per launch.
 *   launch [launches=10000]
 * With BENCH_FLOOR_LIB naming bench/floor.cu built as a library (scripts/bench does), the
 * launches then run again in PAIRED_ROUNDS rounds, each followed by as many CUDA runtime
 * launches of the same kind from that library in this process (the same primary context,
 * CPU and moment of the machine): "RESULT launch paired_accc/paired_cuda <median> us" and
 * "RESULT launch paired_ratio <ratio of the medians> x". */
#include "bench.h"
#include <dlfcn.h>

enum { PAIRED_ROUNDS = 21 };

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_of(double *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  return v[n / 2];
}

int main(int argc, char **argv) {
  const long reps = bench_arg(argc, argv, 1, 10000), warm = 100;
  double *x = bench_alloc("launch", sizeof(double));
  const int one = 1;
  x[0] = 0.0;

  /* The paired rounds' CUDA launches (none without the library). */
  double (*cuda_us)(long) = NULL;
  const char *lib = getenv("BENCH_FLOOR_LIB");
  if (lib && *lib) {
    void *h = dlopen(lib, RTLD_NOW);
    if (!h || !(*(void **)&cuda_us = dlsym(h, "floor_launch_us"))) {
      char why[256];
      snprintf(why, sizeof why, "BENCH_FLOOR_LIB=%s: %s", lib, dlerror());
      return bench_fail("launch", why);
    }
  }
  const long per_round = reps / PAIRED_ROUNDS > 0 ? reps / PAIRED_ROUNDS : 1;
  const long paired = cuda_us ? per_round * PAIRED_ROUNDS : 0; /* launches of the paired rounds */
  double ours[PAIRED_ROUNDS], theirs[PAIRED_ROUNDS];

  double t0 = 0, t1 = 0;
  int floor_failed = 0;
#pragma acc data copy(x[0:1])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
#pragma acc parallel loop present(x[0:1])
      for (int i = 0; i < one; i++)
        x[i] += 1.0;
    }
    t1 = bench_now();
    floor_failed = cuda_us && cuda_us(warm) < 0;
    for (int k = 0; k < (cuda_us && !floor_failed ? PAIRED_ROUNDS : 0); k++) {
      double s = bench_now();
      for (long r = 0; r < per_round; r++) {
#pragma acc parallel loop present(x[0:1])
        for (int i = 0; i < one; i++)
          x[i] += 1.0;
      }
      ours[k] = 1e6 * (bench_now() - s) / (double)per_round;
      theirs[k] = cuda_us(per_round);
      if (theirs[k] < 0) {
        floor_failed = 1;
        break;
      }
    }
  }
  if (floor_failed) return bench_fail("launch", "the CUDA floor library (BENCH_FLOOR_LIB) failed");

  if (x[0] != (double)(warm + reps + paired)) {
    char why[128];
    snprintf(why, sizeof why, "wrong answer: x = %g, want %ld", x[0], warm + reps + paired);
    return bench_fail("launch", why);
  }
  free(x);
  if (cuda_us) {
    double a = median_of(ours, PAIRED_ROUNDS), c = median_of(theirs, PAIRED_ROUNDS);
    printf("RESULT launch paired_accc %.4g us\n", a);
    printf("RESULT launch paired_cuda %.4g us\n", c);
    printf("RESULT launch paired_ratio %.4g x\n", a / c);
  }
  return bench_pass("launch", "latency", 1e6 * (t1 - t0) / (double)reps, "us");
}
