/* Reduction position "gang + worker": the sum of 131072 x 1024 doubles (1 GiB) in a
 * two-level nest with the clause on both levels (`parallel loop gang reduction`,
 * `loop worker reduction`, one scalar; the OpenUH paper's Table 2, gang+worker row). GB/s
 * counting 8 bytes per element; small-integer data, so the sums are exact and each
 * repetition's is checked.
 *   red_gw [rows=131072] [cols=1024] [reps=20] */
#include "bench.h"

int main(int argc, char **argv) {
  const int nr = (int)bench_arg(argc, argv, 1, 131072), nc = (int)bench_arg(argc, argv, 2, 1024);
  const long reps = bench_arg(argc, argv, 3, 20), warm = 2;
  const long n = (long)nr * nc;
  double *x = bench_alloc("red_gw", sizeof(double) * n);
  double want = 0.0;
  for (long k = 0; k < n; k++) {
    x[k] = (double)(k % 1021 + 1);
    want += x[k];
  }

  double t0 = 0, t1 = 0, bad = -1.0;
  long bad_rep = -1;
#pragma acc data copyin(x[0:n])
  {
    for (long r = 0; r < warm + reps; r++) {
      if (r == warm) t0 = bench_now();
      double s = 0.0;
#pragma acc parallel loop gang reduction(+:s) present(x[0:n])
      for (int i = 0; i < nr; i++) {
#pragma acc loop worker reduction(+:s)
        for (int j = 0; j < nc; j++)
          s += x[(long)i * nc + j];
      }
      if (s != want && bad_rep < 0) bad = s, bad_rep = r;
    }
    t1 = bench_now();
  }
  if (bad_rep >= 0) {
    char why[160];
    snprintf(why, sizeof why, "wrong answer: sum %.17g, want %.17g (repetition %ld)", bad, want, bad_rep);
    return bench_fail("red_gw", why);
  }
  free(x);
  printf("# red_gw: %.4f ms per sum of %d x %d doubles\n", 1e3 * (t1 - t0) / (double)reps, nr, nc);
  return bench_pass("red_gw", "bandwidth", 8.0 * (double)n * (double)reps / (t1 - t0) / 1e9, "GB/s");
}
