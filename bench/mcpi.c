/* Monte Carlo pi: 2^30 points (x, y) in [0, 2^31)^2 from an integer hash of the point's index
 * (lowbias32, a macro so neither compiler needs `routine`), counted inside the quarter circle with
 * exact 64-bit integer arithmetic in a `parallel loop reduction(+:inside)`. Compute-bound;
 * Gsamples/s. Deterministic: every repetition's count must equal the host's count of the same
 * hashes.
 *   mcpi [log2(points)=30] [reps=5] */
#include "bench.h"

/* Chris Wellons' lowbias32 integer hash, in place on an unsigned lvalue. */
#define MIX32(h) (h ^= h >> 16, h *= 0x7feb352dU, h ^= h >> 15, h *= 0x846ca68bU, h ^= h >> 16)
/* Point i: x = hash(2i) / 2, y = hash(2i + 1) / 2, both in [0, 2^31). Inside the circle of
 * radius 2^31 when x^2 + y^2 < 2^62 (exact in 64 bits). Sets `in` to 0 or 1. */
#define POINT_INSIDE(i, in)                                                                \
  do {                                                                                     \
    unsigned hx_ = 2u * (unsigned)(i), hy_ = hx_ + 1u;                                     \
    MIX32(hx_);                                                                            \
    MIX32(hy_);                                                                            \
    unsigned long long px_ = hx_ >> 1, py_ = hy_ >> 1;                                     \
    in = px_ * px_ + py_ * py_ < (1ULL << 62);                                             \
  } while (0)

int main(int argc, char **argv) {
  const long lg = bench_arg(argc, argv, 1, 30), reps = bench_arg(argc, argv, 2, 5), warm = 1;
  const long n = 1L << lg;
  long want = 0;
  for (long i = 0; i < n; i++) {
    int in;
    POINT_INSIDE(i, in);
    want += in;
  }

  double t0 = 0, t1 = 0;
  long bad = -1, bad_rep = -1;
  for (long r = 0; r < warm + reps; r++) {
    if (r == warm) t0 = bench_now();
    long inside = 0;
#pragma acc parallel loop reduction(+:inside)
    for (long i = 0; i < n; i++) {
      int in;
      POINT_INSIDE(i, in);
      inside += in;
    }
    if (inside != want && bad_rep < 0) bad = inside, bad_rep = r;
  }
  t1 = bench_now();
  if (bad_rep >= 0) {
    char why[160];
    snprintf(why, sizeof why, "wrong answer: %ld points inside, want %ld (repetition %ld)", bad, want, bad_rep);
    return bench_fail("mcpi", why);
  }
  printf("# mcpi: pi ~ %.9f from %ld points, %.4f ms per pass\n", 4.0 * (double)want / (double)n, n,
         1e3 * (t1 - t0) / (double)reps);
  return bench_pass("mcpi", "rate", (double)n * (double)reps / (t1 - t0) / 1e9, "Gsamples/s");
}
