/* Launch round trip: a `parallel loop` over one element, launched 10000 times inside a
 * data region (each construct waits for its kernel); microseconds per launch.
 *   launch [launches=10000] */
#include "bench.h"

int main(int argc, char **argv) {
  const long reps = bench_arg(argc, argv, 1, 10000), warm = 100;
  double *x = bench_alloc("launch", sizeof(double));
  const int one = 1;
  x[0] = 0.0;

  double t0 = 0, t1 = 0;
#pragma acc data copy(x[0:1])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
#pragma acc parallel loop present(x[0:1])
      for (int i = 0; i < one; i++)
        x[i] += 1.0;
    }
    t1 = bench_now();
  }

  if (x[0] != (double)(warm + reps)) {
    char why[128];
    snprintf(why, sizeof why, "wrong answer: x = %g, want %ld", x[0], warm + reps);
    return bench_fail("launch", why);
  }
  free(x);
  return bench_pass("launch", "latency", 1e6 * (t1 - t0) / (double)reps, "us");
}
