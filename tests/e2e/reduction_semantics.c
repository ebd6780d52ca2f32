/* What a reduction means beyond its operator: the original value is combined exactly once
 * (+ from 5, * from 3, max from a value above every element, repeated launches that
 * accumulate), several variables in one clause and several clauses of mixed types, a
 * reduction variable inside `data copy(s)` (seen after `update self` and after the region),
 * `parallel copy(s)` around a gang loop reduction, trip counts 0 and 1, non-unit and
 * negative strides, collapse(2), an `if` clause both ways, a reduction on a `loop seq`,
 * update forms (s = s + x, s = x + s, conditional, counting, a libm call), and results
 * the host then uses (fed into a second kernel). Every result is compared with plain C.
 * float/double _Complex + and * reductions (which clang-22 -fopenacc rejects and accc
 * accepts) are in the reduction_matrix_* programs, at every position. */
#define E2E_NAME "reduction_semantics"
#include "e2e.h"

enum { N = 1003 };

int main(void) {
  int *a = e2e_alloc(sizeof(int) * N);
  double *d = e2e_alloc(sizeof(double) * N);
  float *f = e2e_alloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    a[i] = (int)((i * 31L + 7) % 41) - 20; /* [-20, 20] */
    d[i] = 0.5 * (double)((i * 13L + 5) % 99) - 20.0;
    f[i] = 0.25f * (float)((i * 17L + 3) % 61) - 5.0f;
  }
  long sum = 0;
  double dmax_all = -1e300;
  float fmin_all = 1e30f;
  for (int i = 0; i < N; i++) {
    sum += a[i];
    dmax_all = d[i] > dmax_all ? d[i] : dmax_all;
    fmin_all = f[i] < fmin_all ? f[i] : fmin_all;
  }

  /* the original value, exactly once */
  long s = 5;
#pragma acc parallel loop reduction(+:s) copyin(a[0:N])
  for (int i = 0; i < N; i++)
    s += a[i];
  CHECK(s == 5 + sum, "+ from 5: got %ld, want %ld", s, 5 + sum);

  long p = 3;
#pragma acc parallel loop reduction(*:p)
  for (int i = 0; i < N; i++)
    p *= (i % 250 == 17) ? 2 : (i % 101 == 4 ? -1 : 1);
  long pw = 3;
  for (int i = 0; i < N; i++) pw *= (i % 250 == 17) ? 2 : (i % 101 == 4 ? -1 : 1);
  CHECK(p == pw, "* from 3: got %ld, want %ld", p, pw);

  int m = 1000; /* above every element: the result is the original value */
#pragma acc parallel loop reduction(max:m) copyin(a[0:N])
  for (int i = 0; i < N; i++)
    m = a[i] > m ? a[i] : m;
  CHECK(m == 1000, "max from 1000 (above all): got %d", m);
  m = -1000; /* below every element */
#pragma acc parallel loop reduction(min:m) copyin(a[0:N])
  for (int i = 0; i < N; i++)
    m = a[i] < m ? a[i] : m;
  CHECK(m == -1000, "min from -1000 (below all): got %d", m);

  /* repeated launches accumulate into the same variable */
  s = 1;
  for (int rep = 0; rep < 3; rep++) {
#pragma acc parallel loop reduction(+:s) copyin(a[0:N])
    for (int i = 0; i < N; i++)
      s += a[i] + rep;
  }
  CHECK(s == 1 + 3 * sum + 3L * N, "three launches: got %ld, want %ld", s, 1 + 3 * sum + 3L * N);

  /* several variables in one clause, several clauses of mixed types */
  long sa = 10, sb = -10;
#pragma acc parallel loop reduction(+:sa, sb) copyin(a[0:N])
  for (int i = 0; i < N; i++) {
    sa += a[i];
    sb += 2 * a[i] + 1;
  }
  CHECK(sa == 10 + sum, "reduction(+:a,b) a: got %ld, want %ld", sa, 10 + sum);
  CHECK(sb == -10 + 2 * sum + N, "reduction(+:a,b) b: got %ld, want %ld", sb, -10 + 2 * sum + N);

  int isum = 0;
  double dmax = -1e300;
  float fmin = 1e30f;
#pragma acc parallel loop reduction(+:isum) reduction(max:dmax) reduction(min:fmin) copyin(a[0:N], d[0:N], f[0:N])
  for (int i = 0; i < N; i++) {
    isum += a[i];
    dmax = d[i] > dmax ? d[i] : dmax;
    fmin = f[i] < fmin ? f[i] : fmin;
  }
  CHECK(isum == sum, "mixed clauses isum: got %d, want %ld", isum, sum);
  CHECK(dmax == dmax_all, "mixed clauses dmax: got %g, want %g", dmax, dmax_all);
  CHECK(fmin == fmin_all, "mixed clauses fmin: got %g, want %g", fmin, fmin_all);

  /* inside a data region that holds the variable: the device copy takes the result */
  s = 100;
  long seen = -1;
#pragma acc data copy(s) copyin(a[0:N])
  {
#pragma acc parallel loop reduction(+:s)
    for (int i = 0; i < N; i++)
      s += a[i];
#pragma acc update self(s)
    seen = s;
#pragma acc parallel loop reduction(+:s)
    for (int i = 0; i < N; i += 2)
      s += 1;
  }
  CHECK(seen == 100 + sum, "data copy(s): after update self: got %ld, want %ld", seen, 100 + sum);
  CHECK(s == 100 + sum + (N + 1) / 2, "data copy(s): after the region: got %ld, want %ld", s,
        100 + sum + (N + 1) / 2);

  /* parallel copy(s) around a gang loop reduction (no clause on the construct) */
  s = 7;
#pragma acc parallel copy(s) copyin(a[0:N])
  {
#pragma acc loop gang reduction(+:s)
    for (int i = 0; i < N; i++)
      s += a[i];
  }
  CHECK(s == 7 + sum, "parallel copy(s) + loop gang reduction: got %ld, want %ld", s, 7 + sum);

  /* trip counts 0 and 1, strides, negative strides */
  static const int lens[] = {0, 1, 2, 31, 33, N};
  static const int steps[] = {1, 3, 32, 1000};
  for (unsigned li = 0; li < sizeof lens / sizeof *lens; li++)
    for (unsigned si = 0; si < sizeof steps / sizeof *steps; si++) {
      int n = lens[li], st = steps[si];
      long up = -3, down = 4, uw = -3, dw = 4;
      for (int i = 0; i < n; i += st) uw += a[i];
      for (int i = n - 1; i >= 0; i -= st) dw += (long)a[i] * (i + 1);
#pragma acc parallel loop reduction(+:up) copyin(a[0:n])
      for (int i = 0; i < n; i += st)
        up += a[i];
#pragma acc parallel loop reduction(+:down) copyin(a[0:n])
      for (int i = n - 1; i >= 0; i -= st)
        down += (long)a[i] * (i + 1);
      CHECK(up == uw, "n=%d step %d: got %ld, want %ld", n, st, up, uw);
      CHECK(down == dw, "n=%d step -%d: got %ld, want %ld", n, st, down, dw);
    }

  /* collapse(2) */
  s = 2;
#pragma acc parallel loop collapse(2) reduction(+:s) copyin(a[0:N])
  for (int i = 0; i < 17; i++)
    for (int j = 0; j < 59; j++)
      s += a[i * 59 + j];
  long cw = 2;
  for (int k = 0; k < 17 * 59; k++) cw += a[k];
  CHECK(s == cw, "collapse(2): got %ld, want %ld", s, cw);

  /* if clause both ways (false: the host runs the region; the same result) */
  for (int cond = 0; cond < 2; cond++) {
    s = 9;
#pragma acc parallel loop if(cond) reduction(+:s) copyin(a[0:N])
    for (int i = 0; i < N; i++)
      s += a[i];
    CHECK(s == 9 + sum, "if(%d): got %ld, want %ld", cond, s, 9 + sum);
  }

  /* a reduction on a `loop seq` inside a gang loop, stored per row */
  enum { R = 31, C = 31 }; /* R * C <= N: every row reads inside a[0:N] */
  long *row = e2e_alloc(sizeof(long) * R);
#pragma acc parallel loop gang copyin(a[0:N]) copyout(row[0:R])
  for (int i = 0; i < R; i++) {
    long t = i;
#pragma acc loop seq reduction(+:t)
    for (int j = 0; j < C; j++)
      t += a[i * C + j];
    row[i] = t;
  }
  for (int i = 0; i < R; i++) {
    long t = i;
    for (int j = 0; j < C; j++) t += a[i * C + j];
    CHECK(row[i] == t, "loop seq reduction row %d: got %ld, want %ld", i, row[i], t);
  }

  /* update forms: s = s + x, s = x + s, conditional, counting, a libm call */
  long s1 = 0, s2 = 0, pos = 0, cnt = 0;
  double fm = -1e300;
#pragma acc parallel loop reduction(+:s1, s2, pos, cnt) reduction(max:fm) copyin(a[0:N], d[0:N])
  for (int i = 0; i < N; i++) {
    s1 = s1 + a[i];
    s2 = a[i] * 3 + s2;
    if (a[i] > 0) {
      pos += a[i];
      cnt++;
    }
    fm = fmax(fm, fabs(d[i]));
  }
  long pw2 = 0, cw2 = 0;
  double fmw = -1e300;
  for (int i = 0; i < N; i++) {
    if (a[i] > 0) pw2 += a[i], cw2++;
    fmw = fmax(fmw, fabs(d[i]));
  }
  CHECK(s1 == sum && s2 == 3 * sum, "s = s + x / s = x + s: got %ld %ld, want %ld %ld", s1, s2, sum, 3 * sum);
  CHECK(pos == pw2 && cnt == cw2, "conditional: got %ld/%ld, want %ld/%ld", pos, cnt, pw2, cw2);
  CHECK(fm == fmw, "fmax(fabs): got %g, want %g", fm, fmw);

  /* the host uses the results: mean, then a second kernel centres the data with it */
  double tot = 0.0;
#pragma acc parallel loop reduction(+:tot) copyin(d[0:N])
  for (int i = 0; i < N; i++)
    tot += d[i];
  double dw = 0.0;
  for (int i = 0; i < N; i++) dw += d[i];
  CHECK(tot == dw, "double sum: got %.17g, want %.17g", tot, dw);
  double mean = tot / N, var = 0.0;
#pragma acc parallel loop reduction(+:var) copyin(d[0:N])
  for (int i = 0; i < N; i++)
    var += (d[i] - mean) * (d[i] - mean);
  double vw = 0.0;
  for (int i = 0; i < N; i++) vw += (d[i] - mean) * (d[i] - mean);
  CHECK(e2e_close(var, vw, 1e-12), "variance with the reduced mean: got %.17g, want %.17g", var, vw);

  free(a), free(d), free(f), free(row);
  /* Floating-point sums whose value depends on the order of the additions: the device
   * combines in a fixed order (warp trees, then partials in gang order), so repeating the
   * reduction gives the same bits; and the result is close to the sequential sum. */
  {
    enum { R = 20011 };
    double *x = e2e_alloc(sizeof(double) * R), seq = 0, first = 0;
    for (int i = 0; i < R; i++) x[i] = 1.0 / (double)(i + 1) + 1e-9 * (double)(i % 7);
    for (int i = 0; i < R; i++) seq += x[i];
    for (int rep = 0; rep < 3; rep++) {
      double t = 0;
#pragma acc parallel loop reduction(+:t) copyin(x[0:R])
      for (int i = 0; i < R; i++)
        t += x[i];
      if (rep == 0) first = t;
      CHECK(t == first, "repeated float sum %d: %.17g differs from the first %.17g", rep, t, first);
      CHECK(e2e_close(t, seq, 1e-12), "float sum: %.17g, want %.17g", t, seq);
    }
    free(x);
  }
  return e2e_finish();
}
