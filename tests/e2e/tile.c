/* tile(...) (OpenACC 3.3 §2.9.8): 2-D and 3-D tiles whose trip counts are not multiples of
 * the sizes (partial last tiles), `*` sizes, gang/worker/vector on the tile and element
 * loops, a reduction and private over a tiled nest, a stencil reading neighbours, negative
 * steps, `<=`/`>`/`>=`/`!=` tests, int/long/unsigned variables declared in the `for` or
 * before it, bounds that are expressions, `kernels loop` and a `loop` in a `parallel`
 * region. Every element is updated with `+=`, so an iteration run twice or never shows. */
#define E2E_NAME "tile"
#include "e2e.h"

#define N 37
#define M 45
#define K 13

static int check2(const char *what, const float *a, const float *want, int n, int m) {
  for (int x = 0; x < n * m; x++) {
    if (a[x] != want[x]) {
      CHECK(0, "%s: a[%d][%d]=%g want %g", what, x / m, x % m, a[x], want[x]);
      return 0;
    }
  }
  return 1;
}

static void fill(float *a, float *want, int len) {
  for (int x = 0; x < len; x++) a[x] = want[x] = (float)(x % 23);
}

/* tile(8, 32): j (innermost) in tiles of 8, i in tiles of 32; no level clause. */
static void plain_2d(int n, int m, float *a) {
#pragma acc parallel loop tile(8, 32) copy(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * m + j] += (float)(i * 3 + j);
}

/* Stars, negative steps, >= and > tests, gang vector. */
static void stars_down(int n, int m, float *a) {
#pragma acc parallel loop tile(*, *) gang vector copy(a[0:n*m])
  for (int i = n - 1; i >= 0; i--)
    for (int j = m - 1; j > 0; j -= 2) a[i * m + j] += 1000.0f;
}

/* Outer variables (declared before the loops), long and unsigned, <=, += steps, worker
 * only (element loops), braces between the loops. */
static void outer_vars(int n, int m, float *a) {
  long i;
  unsigned j;
#pragma acc parallel loop tile(4, 3) worker copy(a[0:n*m])
  for (i = 1; i <= n - 2; i += 2) {
    for (j = 2u; j != (unsigned)m; j++) a[i * m + j] += 10000.0f;
  }
}

/* 3-D tile with gang worker vector (worker goes to the tile loops beside vector), a
 * private scalar per iteration, odd sizes, a step of 3 and `i = i + s` forms. */
static void three_d(int n, int m, int k, float *a) {
  float t;
#pragma acc parallel loop tile(5, 3, 2) gang worker vector private(t) copy(a[0:n*m*k])
  for (int i = 0; i < n; i = i + 1)
    for (int j = m - 1; j >= 0; j = j - 3)
      for (int l = 0; l < k; l += 1) {
        t = (float)(i + 2 * j + 5 * l);
        a[(i * m + j) * k + l] += t;
      }
}

/* A reduction over the whole tiled nest. */
static double sum_2d(int n, int m, const float *a) {
  double s = 0;
#pragma acc parallel loop tile(16, 4) reduction(+:s) copyin(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) s += a[i * m + j] * (double)(j + 1);
  return s;
}

/* A max reduction on a `loop tile` inside a parallel region, with a 1-D `tile(*)`. */
static int max_1d(int n, const int *v) {
  int mx = -1;
#pragma acc parallel copyin(v[0:n])
  {
#pragma acc loop tile(*) reduction(max:mx)
    for (int i = 0; i < n; i++) mx = v[i] > mx ? v[i] : mx;
  }
  return mx;
}

/* A 5-point stencil: the element loops read neighbours the tile's other lanes also read;
 * default(none): the trip counts the rewrite adds are the region's own variables. */
static void stencil(int n, int m, const float *in, float *out) {
#pragma acc parallel loop tile(32, 4) default(none) firstprivate(n, m) copyin(in[0:n*m]) copy(out[0:n*m])
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i * m + j] += 0.25f * (in[(i - 1) * m + j] + in[(i + 1) * m + j] + in[i * m + j - 1] + in[i * m + j + 1]) - in[i * m + j];
}

/* kernels loop: tile makes the nest independent; tile sizes larger than the trip counts. */
static void kernels_tile(int n, int m, float *a) {
#pragma acc kernels loop tile(64, 64) copy(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * m + j] *= 2.0f;
}

/* Tile loops inside an outer gang loop: tile loops worker, element loops vector. */
static void inside_gang(int n, int m, int k, float *a) {
#pragma acc parallel loop gang copy(a[0:n*m*k])
  for (int l = 0; l < k; l++) {
#pragma acc loop tile(8, 2) worker vector
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) a[(i * m + j) * k + l] += (float)l;
  }
}

/* Bounds that are expressions and a run-time step; an empty range runs nothing. */
static void expr_bounds(int n, int m, int s, int lo, float *a) {
#pragma acc parallel loop tile(3, 7) vector copy(a[0:n*m])
  for (int i = lo + 1; i < (n + lo) / 2 + 3; i++)
    for (int j = m - lo - 1; j >= lo; j -= s) a[i * m + j] += 7.0f;
}

/* An atomic statement as the whole body (the driver rewrites it inside the rewritten nest):
 * the lanes of every tile update the same few counters. */
static void histogram(int n, int m, int *hist) {
#pragma acc parallel loop tile(8, 4) copy(hist[0:7])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
#pragma acc atomic update
      hist[(i * j) % 7]++;
}

/* `continue` in the body goes on with the next iteration (of the element loops). */
static void skip_some(int n, int m, float *a) {
#pragma acc parallel loop tile(16, 2) copy(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if ((i + j) % 5 == 0) continue;
      a[i * m + j] += 3.0f;
    }
}

/* Trip counts of every comparison, signed and unsigned variables, up and down, run-time
 * steps: the iterations a tiled loop runs (count and sum of the values it sees) against the
 * plain loop's. TRIPS(name, type, test, step) defines name(lo, hi, s, &count) -> sum. */
#define TRIPS(name, T, TEST, STEP)                                                          \
  static long name(T lo, T hi, T s, long *count) {                                          \
    long sum = 0, cnt = 0, wsum = 0, wcnt = 0;                                              \
    _Pragma("acc parallel loop tile(4) reduction(+:sum, cnt)")                            \
    for (T i = lo; TEST; STEP) {                                                            \
      sum += (long)i;                                                                       \
      cnt++;                                                                                \
    }                                                                                       \
    for (T i = lo; TEST; STEP) {                                                            \
      wsum += (long)i;                                                                      \
      wcnt++;                                                                               \
    }                                                                                       \
    *count = cnt;                                                                           \
    return (sum == wsum && cnt == wcnt) ? sum : -999999;                                    \
  }
TRIPS(int_lt, int, i < hi, i += s)
TRIPS(int_le, int, i <= hi, i = i + s)
TRIPS(int_gt, int, i > hi, i -= s)
TRIPS(int_ge, int, hi <= i, i = i - s)
TRIPS(int_ne_up, int, i != hi, i++)
TRIPS(int_ne_down, int, i != hi, --i)
TRIPS(uns_lt, unsigned, i < hi, i += s)
TRIPS(uns_ge, unsigned, i >= hi, i -= s)
TRIPS(uns_ne_down, unsigned, i != hi, i--)
TRIPS(long_le, long, i <= hi, i += s)
TRIPS(long_gt, long, i > hi, i -= s)
TRIPS(char_lt, signed char, i < hi, i += s)

static void trip_counts(void) {
  long c;
  struct { int lo, hi, s; } sv[] = {{0, 10, 1}, {-7, 12, 3}, {5, 5, 2}, {9, 2, 1}, {-20, -3, 4}, {1, 30, 7}};
  for (unsigned k = 0; k < sizeof sv / sizeof sv[0]; k++) {
    int lo = sv[k].lo, hi = sv[k].hi, s = sv[k].s;
    CHECK(int_lt(lo, hi, s, &c) != -999999, "int_lt(%d, %d, %d)", lo, hi, s);
    CHECK(int_le(lo, hi, s, &c) != -999999, "int_le(%d, %d, %d)", lo, hi, s);
    CHECK(int_gt(hi, lo, s, &c) != -999999, "int_gt(%d, %d, %d)", hi, lo, s);
    CHECK(int_ge(hi, lo, s, &c) != -999999, "int_ge(%d, %d, %d)", hi, lo, s);
    CHECK(long_le(lo, hi, s, &c) != -999999, "long_le(%d, %d, %d)", lo, hi, s);
    CHECK(long_gt(hi, lo, s, &c) != -999999, "long_gt(%d, %d, %d)", hi, lo, s);
    CHECK(char_lt((signed char)lo, (signed char)hi, (signed char)s, &c) != -999999, "char_lt(%d, %d, %d)", lo, hi, s);
    if (lo <= hi) {
      CHECK(int_ne_up(lo, hi, 1, &c) != -999999 && c == hi - lo, "int_ne_up(%d, %d): %ld", lo, hi, c);
      CHECK(int_ne_down(hi, lo, 1, &c) != -999999 && c == hi - lo, "int_ne_down(%d, %d): %ld", hi, lo, c);
    }
    if (lo >= 0 && hi >= 0) {
      CHECK(uns_lt((unsigned)lo, (unsigned)hi, (unsigned)s, &c) != -999999, "uns_lt(%d, %d, %d)", lo, hi, s);
      /* (a bound below the step would wrap the plain loop around) */
      if (lo + 1 >= s) CHECK(uns_ge((unsigned)hi, (unsigned)lo + 1u, (unsigned)s, &c) != -999999, "uns_ge(%d, %d, %d)", hi, lo + 1, s);
      if (lo <= hi) CHECK(uns_ne_down((unsigned)hi, (unsigned)lo, 1u, &c) != -999999 && c == hi - lo, "uns_ne_down(%d, %d)", hi, lo);
    }
  }
  /* Near the type's limits: the difference of the bounds does not fit the type (and the
   * plain loop never steps past it). */
  CHECK(int_lt(-2000000000, 2000000000, 100000000, &c) != -999999 && c == 40, "int_lt wide: %ld", c);
  CHECK(uns_ge(4294967295u, 1073741824u, 1073741824u, &c) != -999999 && c == 3, "uns_ge wide: %ld", c);
  CHECK(char_lt(-128, 127, 51, &c) != -999999 && c == 5, "char_lt wide: %ld", c);
}

/* collapse(3) beside tile(4, 8): three associated loops, the outermost (only collapse names
 * it) tiled by 1; and collapse(1) beside tile(2, 3), which tile already covers. Every element
 * written once, by its own indices. */
static void tile_collapse(int n, int m, int k, float *a) {
#pragma acc parallel loop tile(4, 8) collapse(3) copy(a[0:n*m*k])
  for (int l = 0; l < k; l++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++) a[(l * n + i) * m + j] += (float)(l * 7 + i * 3 + j);
#pragma acc parallel loop collapse(1) tile(2, 3) copy(a[0:n*m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * m + j] -= 1.0f;
}

/* seq: the nest is split but runs sequentially, in order: a running value proves it. */
static void seq_order(int n, float *a) {
#pragma acc serial loop tile(4) seq copy(a[0:n])
  for (int i = 1; i < n; i++) a[i] += a[i - 1];
}

int main(void) {
  float *a = e2e_alloc(sizeof(float) * N * M * K), *want = e2e_alloc(sizeof(float) * N * M * K);

  fill(a, want, N * M * K);
  tile_collapse(N, M, K, a);
  for (int l = 0; l < K; l++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) want[(l * N + i) * M + j] += (float)(l * 7 + i * 3 + j) - (l == 0 ? 1.0f : 0.0f);
  check2("tile_collapse", a, want, N * K, M);

  fill(a, want, N * M);
  plain_2d(N, M, a);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) want[i * M + j] += (float)(i * 3 + j);
  check2("plain_2d", a, want, N, M);

  stars_down(N, M, a);
  for (int i = N - 1; i >= 0; i--)
    for (int j = M - 1; j > 0; j -= 2) want[i * M + j] += 1000.0f;
  check2("stars_down", a, want, N, M);

  outer_vars(N, M, a);
  for (long i = 1; i <= N - 2; i += 2)
    for (unsigned j = 2u; j != (unsigned)M; j++) want[i * M + j] += 10000.0f;
  check2("outer_vars", a, want, N, M);

  /* Trip counts that are multiples of nothing: 37 x 45, 37 x 1, 1 x 45. */
  double s = sum_2d(N, M, a), ws = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) ws += want[i * M + j] * (double)(j + 1);
  CHECK(e2e_close(s, ws, 1e-12), "sum_2d: %.17g want %.17g", s, ws);
  CHECK(sum_2d(N, 0, a) == 0.0, "sum_2d over an empty nest");
  {
    double w1 = 0;
    for (int j = 0; j < M; j++) w1 += want[j] * (double)(j + 1);
    CHECK(e2e_close(sum_2d(1, M, a), w1, 1e-12), "sum_2d one row");
  }

  kernels_tile(N, M, a);
  for (int x = 0; x < N * M; x++) want[x] *= 2.0f;
  check2("kernels_tile", a, want, N, M);

  expr_bounds(N, M, 3, 2, a);
  for (int i = 3; i < (N + 2) / 2 + 3; i++)
    for (int j = M - 3; j >= 2; j -= 3) want[i * M + j] += 7.0f;
  check2("expr_bounds", a, want, N, M);
  expr_bounds(2, M, 1, 5, a); /* i from 6 below 6: nothing */
  check2("expr_bounds empty", a, want, N, M);

  trip_counts();

  {
    int hist[7] = {0}, whist[7] = {0};
    histogram(N, M, hist);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) whist[(i * j) % 7]++;
    for (int k = 0; k < 7; k++) CHECK(hist[k] == whist[k], "histogram[%d] = %d, want %d", k, hist[k], whist[k]);
  }

  skip_some(N, M, a);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      if ((i + j) % 5 != 0) want[i * M + j] += 3.0f;
  check2("skip_some", a, want, N, M);

  {
    float *in = e2e_alloc(sizeof(float) * N * M);
    for (int x = 0; x < N * M; x++) in[x] = (float)((x * 7) % 31);
    fill(a, want, N * M);
    stencil(N, M, in, a);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        want[i * M + j] += 0.25f * (in[(i - 1) * M + j] + in[(i + 1) * M + j] + in[i * M + j - 1] + in[i * M + j + 1]) - in[i * M + j];
    check2("stencil", a, want, N, M);
    free(in);
  }

  fill(a, want, N * M * K);
  three_d(N, M, K, a);
  for (int i = 0; i < N; i++)
    for (int j = M - 1; j >= 0; j -= 3)
      for (int l = 0; l < K; l++) want[(i * M + j) * K + l] += (float)(i + 2 * j + 5 * l);
  check2("three_d", a, want, N * M, K);

  inside_gang(N, M, K, a);
  for (int l = 0; l < K; l++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) want[(i * M + j) * K + l] += (float)l;
  check2("inside_gang", a, want, N * M, K);

  {
    int v[1001];
    for (int i = 0; i < 1001; i++) v[i] = (i * 7919) % 1000;
    v[517] = 5000;
    CHECK(max_1d(1001, v) == 5000, "max_1d: %d", max_1d(1001, v));
    CHECK(max_1d(0, v) == -1, "max_1d over nothing");
  }

  {
    float r[29];
    for (int i = 0; i < 29; i++) r[i] = 1.0f;
    seq_order(29, r);
    for (int i = 0; i < 29; i++) CHECK(r[i] == (float)(i + 1), "seq_order r[%d]=%g", i, r[i]);
  }

  free(a), free(want);
  return e2e_finish();
}
