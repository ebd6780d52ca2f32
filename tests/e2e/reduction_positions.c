/* `reduction` at every position of the OpenUH paper's Table 2 (gang, worker, vector,
 * gang+worker, worker+vector, gang+worker+vector; same-line and nested), on the compute
 * construct itself (parallel, serial), on loops inside `kernels`, OpenUH's placement (the
 * clause written once on the outermost loop around an inner vector loop), and explicit
 * launch sizes that are neither multiples of 32 nor powers of two. Every result is compared
 * with a plain C computation; initial values are nonzero where a lost or repeated original
 * value would show, and the data hold negative numbers so a wrong identity for max shows.
 * Trip counts 0, 1, 31, 33, 1003 (10007 on two 1-D loops); 2-D/3-D nests with empty
 * rows and odd extents. */
#define E2E_NAME "reduction_positions"
#include "e2e.h"

/* The data: a[k] in [-11, 11], b[k] in [-100, -1] (all negative: max's identity matters). */
static void fill(int *a, int *b, int n) {
  for (int k = 0; k < n; k++) {
    a[k] = (int)((k * 7L + 3) % 23) - 11;
    b[k] = -1 - (int)((k * 37L + 11) % 100);
  }
}

#define CHECKI(got, want, what, ...)                                                       \
  CHECK((got) == (want), what ": got %ld, want %ld", __VA_ARGS__, (long)(got), (long)(want))

/* ---------------- 1-D: gang only, same-line combinations, compute-construct clauses ---- */

static void one_d(const int *a, const int *b, int n) {
  long want = 0;
  int wmax = -1000;
  for (int i = 0; i < n; i++) {
    want += a[i];
    if (b[i] > wmax) wmax = b[i];
  }

  long s = 0;
#pragma acc parallel loop gang reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, want, "gang + n=%d", n);

  int m = -1000;
#pragma acc parallel loop gang reduction(max:m) copyin(b[0:n])
  for (int i = 0; i < n; i++)
    m = b[i] > m ? b[i] : m;
  CHECKI(m, wmax, "gang max n=%d", n);

  s = 17;
#pragma acc parallel loop gang worker reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, 17 + want, "same-line gang worker n=%d", n);

  s = -5;
#pragma acc parallel loop gang worker vector reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, -5 + want, "same-line gang worker vector n=%d", n);

  s = 3;
#pragma acc parallel loop vector reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, 3 + want, "same-line vector n=%d", n);

  s = 0;
#pragma acc parallel loop reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, want, "parallel loop (no level) n=%d", n);

  /* explicit sizes that are not multiples of 32 nor powers of two */
  s = 1;
#pragma acc parallel loop gang worker vector num_gangs(7) num_workers(3) vector_length(40) reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, 1 + want, "gwv num_gangs(7) num_workers(3) vector_length(40) n=%d", n);

  m = -1000;
#pragma acc parallel loop gang vector num_gangs(5) vector_length(33) reduction(max:m) copyin(b[0:n])
  for (int i = 0; i < n; i++)
    m = b[i] > m ? b[i] : m;
  CHECKI(m, wmax, "gang vector num_gangs(5) vector_length(33) max n=%d", n);

  s = 2;
#pragma acc parallel loop gang worker num_gangs(3) num_workers(5) reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, 2 + want, "gang worker num_gangs(3) num_workers(5) n=%d", n);

  /* on the compute construct and on its gang loop */
  long x = 11;
#pragma acc parallel reduction(+:x) copyin(a[0:n])
  {
#pragma acc loop gang reduction(+:x)
    for (int i = 0; i < n; i++)
      x += a[i];
  }
  CHECKI(x, 11 + want, "parallel reduction + loop gang reduction n=%d", n);

  x = 0;
#pragma acc parallel num_gangs(7) num_workers(3) vector_length(40) reduction(+:x) copyin(a[0:n])
  {
#pragma acc loop gang worker vector reduction(+:x)
    for (int i = 0; i < n; i++)
      x += a[i];
  }
  CHECKI(x, want, "parallel(7,3,40) reduction + loop gang worker vector reduction n=%d", n);

  /* serial */
  x = 9;
#pragma acc serial reduction(+:x) copyin(a[0:n])
  {
    for (int i = 0; i < n; i++)
      x += a[i];
  }
  CHECKI(x, 9 + want, "serial reduction n=%d", n);

  s = -4;
#pragma acc serial loop reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, -4 + want, "serial loop reduction n=%d", n);

  /* kernels: loop independent reduction, loop reduction (auto), kernels loop reduction */
  long ks = 6, kt = -6;
  m = -1000;
#pragma acc kernels copyin(a[0:n], b[0:n])
  {
#pragma acc loop independent reduction(+:ks)
    for (int i = 0; i < n; i++)
      ks += a[i];
#pragma acc loop reduction(+:kt)
    for (int i = 0; i < n; i++)
      kt += a[i];
#pragma acc loop independent reduction(max:m)
    for (int i = 0; i < n; i++)
      m = b[i] > m ? b[i] : m;
  }
  CHECKI(ks, 6 + want, "kernels loop independent reduction n=%d", n);
  CHECKI(kt, -6 + want, "kernels loop reduction (no independent) n=%d", n);
  CHECKI(m, wmax, "kernels loop independent max n=%d", n);

  s = 8;
#pragma acc kernels loop independent reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, 8 + want, "kernels loop independent reduction (combined) n=%d", n);
}

/* The large trip count, on the two commonest shapes only (the emulator runs a fiber per
 * thread). */
static void big(const int *a, int n) {
  long want = 0;
  for (int i = 0; i < n; i++) want += a[i];
  long s = 0;
#pragma acc parallel loop gang reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, want, "gang + n=%d", n);
  s = 1;
#pragma acc parallel loop gang worker vector reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  CHECKI(s, 1 + want, "same-line gang worker vector n=%d", n);
}

/* ---------------- 2-D: worker only, vector only, gang+worker, OpenUH placement ----------- */

static void two_d(const int *a, const int *b, int rows, int cols) {
  int n = rows * cols;
  long *r = e2e_alloc(sizeof(long) * (rows ? rows : 1));
  int *rm = e2e_alloc(sizeof(int) * (rows ? rows : 1));
  long want = 0;
  for (int k = 0; k < n; k++) want += a[k];

  /* worker only: per row, stored per gang iteration; the row's initial value is i - 50 */
  for (int i = 0; i < rows; i++) r[i] = -1;
#pragma acc parallel loop gang copyin(a[0:n]) copyout(r[0:rows])
  for (int i = 0; i < rows; i++) {
    long t = i - 50;
#pragma acc loop worker reduction(+:t)
    for (int j = 0; j < cols; j++)
      t += a[i * cols + j];
    r[i] = t;
  }
  for (int i = 0; i < rows; i++) {
    long w = i - 50;
    for (int j = 0; j < cols; j++) w += a[i * cols + j];
    CHECKI(r[i], w, "worker only %dx%d row %d", rows, cols, i);
  }

  /* worker only, num_workers(5), max over negative data, initial value below every element */
  for (int i = 0; i < rows; i++) rm[i] = 1;
#pragma acc parallel loop gang num_workers(5) copyin(b[0:n]) copyout(rm[0:rows])
  for (int i = 0; i < rows; i++) {
    int t = -1000 + i;
#pragma acc loop worker reduction(max:t)
    for (int j = 0; j < cols; j++)
      t = b[i * cols + j] > t ? b[i * cols + j] : t;
    rm[i] = t;
  }
  for (int i = 0; i < rows; i++) {
    int w = -1000 + i;
    for (int j = 0; j < cols; j++) w = b[i * cols + j] > w ? b[i * cols + j] : w;
    CHECKI(rm[i], w, "worker only num_workers(5) max %dx%d row %d", rows, cols, i);
  }

  /* vector only: per row */
  for (int i = 0; i < rows; i++) r[i] = -1;
#pragma acc parallel loop gang copyin(a[0:n]) copyout(r[0:rows])
  for (int i = 0; i < rows; i++) {
    long t = 2 * i + 1;
#pragma acc loop vector reduction(+:t)
    for (int j = 0; j < cols; j++)
      t += a[i * cols + j];
    r[i] = t;
  }
  for (int i = 0; i < rows; i++) {
    long w = 2 * i + 1;
    for (int j = 0; j < cols; j++) w += a[i * cols + j];
    CHECKI(r[i], w, "vector only %dx%d row %d", rows, cols, i);
  }

  /* vector only, vector_length(33), min */
  for (int i = 0; i < rows; i++) rm[i] = 7;
#pragma acc parallel loop gang vector_length(33) copyin(b[0:n]) copyout(rm[0:rows])
  for (int i = 0; i < rows; i++) {
    int t = 1000 - i;
#pragma acc loop vector reduction(min:t)
    for (int j = 0; j < cols; j++)
      t = b[i * cols + j] < t ? b[i * cols + j] : t;
    rm[i] = t;
  }
  for (int i = 0; i < rows; i++) {
    int w = 1000 - i;
    for (int j = 0; j < cols; j++) w = b[i * cols + j] < w ? b[i * cols + j] : w;
    CHECKI(rm[i], w, "vector only vector_length(33) min %dx%d row %d", rows, cols, i);
  }

  /* gang + worker: the clause on both levels */
  long s = 100;
#pragma acc parallel loop gang reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < rows; i++) {
#pragma acc loop worker reduction(+:s)
    for (int j = 0; j < cols; j++)
      s += a[i * cols + j];
  }
  CHECKI(s, 100 + want, "gang+worker nested %dx%d", rows, cols);

  /* gang + vector: the clause on both levels */
  s = -100;
#pragma acc parallel loop gang reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < rows; i++) {
#pragma acc loop vector reduction(+:s)
    for (int j = 0; j < cols; j++)
      s += a[i * cols + j];
  }
  CHECKI(s, -100 + want, "gang+vector nested %dx%d", rows, cols);

  /* same-line gang worker, then vector, both with the clause */
  s = 5;
#pragma acc parallel loop gang worker reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < rows; i++) {
#pragma acc loop vector reduction(+:s)
    for (int j = 0; j < cols; j++)
      s += a[i * cols + j];
  }
  CHECKI(s, 5 + want, "gang worker / vector nested %dx%d", rows, cols);

  /* OpenUH placement: the clause once, on the outermost loop; the inner vector loop's body
   * updates s. Must equal the clause-on-every-level result above. */
  s = 100;
#pragma acc parallel loop gang reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < rows; i++) {
#pragma acc loop vector
    for (int j = 0; j < cols; j++)
      s += a[i * cols + j];
  }
  CHECKI(s, 100 + want, "OpenUH placement gang(+) / vector %dx%d", rows, cols);

  int m = -1000;
  int wmax = -1000;
  for (int k = 0; k < n; k++) wmax = b[k] > wmax ? b[k] : wmax;
#pragma acc parallel loop gang reduction(max:m) vector_length(33) copyin(b[0:n])
  for (int i = 0; i < rows; i++) {
#pragma acc loop vector
    for (int j = 0; j < cols; j++)
      m = b[i * cols + j] > m ? b[i * cols + j] : m;
  }
  CHECKI(m, wmax, "OpenUH placement gang(max) / vector vector_length(33) %dx%d", rows, cols);

  /* compute-construct clause with a nested gang/vector nest, explicit odd sizes */
  long x = 0;
#pragma acc parallel num_gangs(7) vector_length(40) reduction(+:x) copyin(a[0:n])
  {
#pragma acc loop gang reduction(+:x)
    for (int i = 0; i < rows; i++) {
#pragma acc loop vector reduction(+:x)
      for (int j = 0; j < cols; j++)
        x += a[i * cols + j];
    }
  }
  CHECKI(x, want, "parallel(7,,40) reduction gang/vector %dx%d", rows, cols);
  free(r), free(rm);
}

/* ---------------- 3-D: worker+vector per gang iteration, gang+worker+vector --------------- */

static void three_d(const int *a, int ng, int nw, int nv) {
  int n = ng * nw * nv;
  long *r = e2e_alloc(sizeof(long) * (ng ? ng : 1));
  long want = 0;
  for (int k = 0; k < n; k++) want += a[k];

  /* worker + vector, per gang iteration */
  for (int i = 0; i < ng; i++) r[i] = -1;
#pragma acc parallel loop gang copyin(a[0:n]) copyout(r[0:ng])
  for (int i = 0; i < ng; i++) {
    long t = 3 * i - 7;
#pragma acc loop worker reduction(+:t)
    for (int j = 0; j < nw; j++) {
#pragma acc loop vector reduction(+:t)
      for (int k = 0; k < nv; k++)
        t += a[(i * nw + j) * nv + k];
    }
    r[i] = t;
  }
  for (int i = 0; i < ng; i++) {
    long w = 3 * i - 7;
    for (int k = 0; k < nw * nv; k++) w += a[i * nw * nv + k];
    CHECKI(r[i], w, "worker+vector %dx%dx%d gang row %d", ng, nw, nv, i);
  }

  /* same-line worker vector per gang iteration, num_workers(5) vector_length(33) */
  for (int i = 0; i < ng; i++) r[i] = -1;
#pragma acc parallel loop gang num_workers(5) vector_length(33) copyin(a[0:n]) copyout(r[0:ng])
  for (int i = 0; i < ng; i++) {
    long t = -i;
#pragma acc loop worker vector reduction(+:t)
    for (int k = 0; k < nw * nv; k++)
      t += a[i * nw * nv + k];
    r[i] = t;
  }
  for (int i = 0; i < ng; i++) {
    long w = -i;
    for (int k = 0; k < nw * nv; k++) w += a[i * nw * nv + k];
    CHECKI(r[i], w, "same-line worker vector (5,33) %dx%dx%d gang row %d", ng, nw, nv, i);
  }

  /* gang + worker + vector, the clause on every level */
  long s = 42;
#pragma acc parallel loop gang reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < ng; i++) {
#pragma acc loop worker reduction(+:s)
    for (int j = 0; j < nw; j++) {
#pragma acc loop vector reduction(+:s)
      for (int k = 0; k < nv; k++)
        s += a[(i * nw + j) * nv + k];
    }
  }
  CHECKI(s, 42 + want, "gang+worker+vector every level %dx%dx%d", ng, nw, nv);

  /* the same with num_gangs(7) num_workers(3) vector_length(40) */
  s = 0;
#pragma acc parallel loop gang num_gangs(7) num_workers(3) vector_length(40) reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < ng; i++) {
#pragma acc loop worker reduction(+:s)
    for (int j = 0; j < nw; j++) {
#pragma acc loop vector reduction(+:s)
      for (int k = 0; k < nv; k++)
        s += a[(i * nw + j) * nv + k];
    }
  }
  CHECKI(s, want, "gang+worker+vector (7,3,40) %dx%dx%d", ng, nw, nv);

  /* OpenUH placement: once on the gang loop, the worker and vector loops bare */
  s = 42;
#pragma acc parallel loop gang reduction(+:s) copyin(a[0:n])
  for (int i = 0; i < ng; i++) {
#pragma acc loop worker
    for (int j = 0; j < nw; j++) {
#pragma acc loop vector
      for (int k = 0; k < nv; k++)
        s += a[(i * nw + j) * nv + k];
    }
  }
  CHECKI(s, 42 + want, "OpenUH placement gang(+) / worker / vector %dx%dx%d", ng, nw, nv);
  free(r);
}

int main(void) {
  enum { MAXN = 10007 };
  int *a = e2e_alloc(sizeof(int) * MAXN), *b = e2e_alloc(sizeof(int) * MAXN);
  fill(a, b, MAXN);

  static const int trips[] = {0, 1, 31, 33, 1003};
  for (unsigned t = 0; t < sizeof trips / sizeof *trips; t++) one_d(a, b, trips[t]);
  big(a, MAXN);

  static const int shapes[][2] = {{0, 5}, {1, 1}, {5, 0}, {31, 33}, {33, 31}, {3, 1003}};
  for (unsigned t = 0; t < sizeof shapes / sizeof *shapes; t++) two_d(a, b, shapes[t][0], shapes[t][1]);

  static const int cubes[][3] = {{0, 3, 3}, {1, 1, 1}, {3, 0, 5}, {3, 5, 33}, {7, 3, 31}, {2, 3, 167}};
  for (unsigned t = 0; t < sizeof cubes / sizeof *cubes; t++) three_d(a, cubes[t][0], cubes[t][1], cubes[t][2]);

  free(a), free(b);
  return e2e_finish();
}
