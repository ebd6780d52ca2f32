/* private and firstprivate copies whose size is known only at run time (OpenACC 3.3 §2.5.13,
 * §2.5.14, §2.9.10): sections of pointers (`private(t[lo:n])`) at the gang, worker and vector
 * levels and of a sequential loop inside a vector loop, firstprivate sections read by every
 * gang, a firstprivate array too large for a kernel parameter, and private arrays too large
 * for shared memory. Each copy is written by
 * some lanes and read back by others (reversed), so copies shared between gangs, workers or
 * lanes that should have their own lose values; the host's data never changes. Was: the
 * pointer itself was privatised (uninitialised, or pointing at the host's data: "'c' is not
 * present on the device"), "'firstprivate' of 'big' (24000 bytes ...) is not supported
 * yet", and private arrays over 40 KiB were "gang- or worker-private arrays of more than 40
 * KiB ... not supported yet"; so were sections through two pointers (`pw->r->p`), at a
 * variable index (`rpp[ix]`) and of two dimensions through a pointer to rows. Odd sizes, a
 * section that does not start at 0; every element checked. */
#define E2E_NAME "private_sections"
#include "e2e.h"

enum { G = 37, W = 3, V = 45, BIG = 3001 };

int main(void) {
  int n = 1001, m = 53, lo = 5;
  double *c = malloc(sizeof(double) * n);
  double *t = malloc(sizeof(double) * (lo + m));
  long *u = malloc(sizeof(long) * V);
  int *w = malloc(sizeof(int) * 3);
  double *b = malloc(sizeof(double) * G * n);
  long *rows = malloc(sizeof(long) * G * W * V);
  double *cols = malloc(sizeof(double) * G * m);
  for (int i = 0; i < n; i++) c[i] = 0.5 * i - 3;
  for (int i = 0; i < lo + m; i++) t[i] = -1;
  for (int i = 0; i < V; i++) u[i] = -2;
  for (int i = 0; i < 3; i++) w[i] = -3;

  /* firstprivate section, read only: every gang's copy holds the host's data. */
#pragma acc parallel firstprivate(c[0:n]) copyout(b[0:G * n])
  {
#pragma acc loop gang
    for (int j = 0; j < G; j++)
#pragma acc loop vector
      for (int i = 0; i < n; i++) b[j * n + i] = c[i] + j;
  }
  for (int j = 0; j < G; j++)
    for (int i = 0; i < n; i++) CHECK(b[j * n + i] == 0.5 * i - 3 + j, "read: b[%d][%d] = %g, want %g", j, i, b[j * n + i], 0.5 * i - 3 + j);

  /* firstprivate section written: each gang's lanes write it, then read other lanes' elements. */
#pragma acc parallel firstprivate(c[0:n]) copyout(b[0:G * n]) num_gangs(G)
  {
#pragma acc loop gang
    for (int j = 0; j < G; j++) {
#pragma acc loop vector
      for (int i = 0; i < n; i++) c[i] = i + 3.0 * j;
#pragma acc loop vector
      for (int i = 0; i < n; i++) b[j * n + i] = c[n - 1 - i];
    }
  }
  for (int j = 0; j < G; j++)
    for (int i = 0; i < n; i++) {
      double want = (n - 1 - i) + 3.0 * j;
      CHECK(b[j * n + i] == want, "write: b[%d][%d] = %g, want %g", j, i, b[j * n + i], want);
    }
  for (int i = 0; i < n; i++) CHECK(c[i] == 0.5 * i - 3, "the host's c[%d] changed: %g", i, c[i]);

  /* private section of a gang loop, not starting at 0: the vector lanes fill it, others read it. */
#pragma acc parallel loop gang private(t[lo:m]) copyout(cols[0:G * m])
  for (int j = 0; j < G; j++) {
#pragma acc loop vector
    for (int k = lo; k < lo + m; k++) t[k] = 100.0 * j + k;
#pragma acc loop vector
    for (int k = 0; k < m; k++) cols[j * m + k] = t[lo + m - 1 - k];
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < m; k++) {
      double want = 100.0 * j + (lo + m - 1 - k);
      CHECK(cols[j * m + k] == want, "gang: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }

  /* The same on two async queues at once: each launch has its own area until it is done. */
  for (int q = 1; q <= 2; q++) {
#pragma acc parallel loop gang private(t[lo:m]) copyout(b[(q - 1) * G * m:G * m]) async(q)
    for (int j = 0; j < G; j++) {
#pragma acc loop vector
      for (int k = lo; k < lo + m; k++) t[k] = 10.0 * q + 1000.0 * j + k;
#pragma acc loop vector
      for (int k = 0; k < m; k++) b[((q - 1) * G + j) * m + k] = t[lo + m - 1 - k];
    }
  }
#pragma acc wait
  for (int q = 1; q <= 2; q++)
    for (int j = 0; j < G; j++)
      for (int k = 0; k < m; k++) {
        double want = 10.0 * q + 1000.0 * j + (lo + m - 1 - k);
        CHECK(b[((q - 1) * G + j) * m + k] == want, "async %d: b[%d][%d] = %g, want %g", q, j, k, b[((q - 1) * G + j) * m + k], want);
      }

  /* Sections of struct members: the first member, and a nested one (firstprivate). */
  struct inner { int k; double *q; };
  struct rows { double *p; int n; struct inner in; } sr = {t, lo + m, {3, c}};
#pragma acc parallel loop gang private(sr.p[lo:m]) firstprivate(sr.in.q[0:n]) copyout(cols[0:G * m])
  for (int j = 0; j < G; j++) {
#pragma acc loop vector
    for (int k = lo; k < sr.n; k++) sr.p[k] = j * 100.0 + k + sr.in.q[k];
    sr.in.q[n - 1 - j] = -1; /* the gang's copy only: never read here */
#pragma acc loop vector
    for (int k = 0; k < m; k++) cols[j * m + k] = sr.p[sr.n - 1 - k] + sr.in.q[j + 1] + sr.in.k;
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < m; k++) {
      int e = lo + m - 1 - k;
      double want = j * 100.0 + e + (0.5 * e - 3) + (0.5 * (j + 1) - 3) + 3;
      CHECK(cols[j * m + k] == want, "member: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }
  CHECK(sr.p == t && t[lo] == -1 && c[n - 1] == 0.5 * (n - 1) - 3, "member: the host's data changed");

  /* Sections of members reached through a pointer variable: `ps->p` (the struct on the
   * device, its member not), firstprivate `ps->in.q` (nested), and `pp[1]` of an array of
   * pointers no clause maps: the region's loads of those members are the copies. */
  struct rows *ps = &sr;
  double *pp[3] = {c, t, c};
  double **ppp = pp;
  for (int i = 0; i < G * m; i++) cols[i] = 0;
#pragma acc parallel loop gang copyin(ps[0:1]) private(ps->p[lo:m], ppp[1][0:m]) firstprivate(ps->in.q[0:n]) copyout(cols[0:G * m])
  for (int j = 0; j < G; j++) {
#pragma acc loop vector
    for (int k = lo; k < ps->n; k++) ps->p[k] = j * 100.0 + k + ps->in.q[k];
    ps->in.q[n - 1 - j] = -1; /* the gang's copy only */
#pragma acc loop vector
    for (int k = 0; k < m; k++) ppp[1][k] = ps->p[ps->n - 1 - k] * 2;
#pragma acc loop vector
    for (int k = 0; k < m; k++) cols[j * m + k] = ppp[1][k] + ps->in.q[j + 1] + ps->in.k;
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < m; k++) {
      int e = lo + m - 1 - k;
      double want = 2 * (j * 100.0 + e + (0.5 * e - 3)) + (0.5 * (j + 1) - 3) + 3;
      CHECK(cols[j * m + k] == want, "through a pointer: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }
  CHECK(sr.p == t && t[lo] == -1 && t[0] == -1 && c[n - 1] == 0.5 * (n - 1) - 3 && pp[1] == t, "through a pointer: the host's data changed");

  /* Through two pointers (`pw->r->p`, `pw->r->in.q`): the loads of `pw->r` only found the
   * member, so `pw` needs no device data (passed no_create). */
  struct wrap { int tag; struct rows *r; } wr = {7, &sr}, *pw = &wr;
  for (int i = 0; i < G * m; i++) cols[i] = 0;
#pragma acc parallel loop gang private(pw->r->p[lo:m]) firstprivate(pw->r->in.q[0:n]) copyout(cols[0:G * m])
  for (int j = 0; j < G; j++) {
#pragma acc loop vector
    for (int k = lo; k < lo + m; k++) pw->r->p[k] = j * 10.0 + k + pw->r->in.q[k];
    pw->r->in.q[n - 1 - j] = -1; /* the gang's copy only */
#pragma acc loop vector
    for (int k = 0; k < m; k++) cols[j * m + k] = pw->r->p[lo + m - 1 - k] + pw->r->in.q[j + 1];
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < m; k++) {
      int e = lo + m - 1 - k;
      double want = j * 10.0 + e + (0.5 * e - 3) + (0.5 * (j + 1) - 3);
      CHECK(cols[j * m + k] == want, "through two pointers: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }
  CHECK(sr.p == t && t[lo] == -1 && c[n - 1] == 0.5 * (n - 1) - 3 && c[n - 1 - G + 1] == 0.5 * (n - G) - 3, "through two pointers: the host's data changed");

  /* At a variable index (`rp[ix][...]`): the element the index has where the region starts;
   * the region reads the index, never assigns it. firstprivate, so each gang's copy starts
   * from row ix's data; rp itself needs no device data. */
  double *rp[4] = {t, c, t, c};
  double **rpp = rp;
  int ix = 1;
  for (int i = 0; i < G * m; i++) cols[i] = 0;
#pragma acc parallel loop gang firstprivate(rpp[ix][0:n]) copyout(cols[0:G * m])
  for (int j = 0; j < G; j++) {
#pragma acc loop vector
    for (int k = 0; k < m; k++) rpp[ix][m + k] = j * k;
#pragma acc loop vector
    for (int k = 0; k < m; k++) cols[j * m + k] = rpp[ix][m - 1 - k] * (ix + 1) + rpp[ix][2 * m - 1 - k];
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < m; k++) {
      double want = 2 * (0.5 * (m - 1 - k) - 3) + j * (m - 1 - k);
      CHECK(cols[j * m + k] == want, "variable index: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }
  CHECK(c[0] == -3 && c[m] == 0.5 * m - 3 && c[2 * m - 1] == 0.5 * (2 * m - 1) - 3 && rp[1] == c, "variable index: the host's data changed");

  /* Two dimensions through a pointer to rows (`double (*q2)[9]`, a part of each row): the
   * copy holds the whole rows, filled from the host's. */
  {
    int nr = 6, mc = 5;
    double(*q2)[9] = malloc(nr * sizeof *q2);
    for (int r = 0; r < nr; r++)
      for (int k = 0; k < 9; k++) q2[r][k] = r * 10 + k;
#pragma acc parallel loop gang firstprivate(q2[0:nr][0:mc]) copyout(cols[0:G])
    for (int j = 0; j < G; j++) {
      for (int r = 0; r < nr; r++) q2[r][mc - 1] = j;
      double s = 0;
      for (int r = 0; r < nr; r++)
        for (int k = 0; k < mc; k++) s += q2[r][k];
      cols[j] = s;
    }
    for (int j = 0; j < G; j++) {
      double want = nr * j;
      for (int r = 0; r < nr; r++)
        for (int k = 0; k < mc - 1; k++) want += r * 10 + k;
      CHECK(cols[j] == want, "two dimensions: cols[%d] = %g, want %g", j, cols[j], want);
    }
    for (int r = 0; r < nr; r++) CHECK(q2[r][mc - 1] == r * 10 + mc - 1, "two dimensions: the host's row %d changed", r);
    free(q2);
  }

  /* private section of a worker loop: each worker's lanes share its copy. */
#pragma acc parallel loop gang num_workers(W) vector_length(32) copyout(rows[0:G * W * V])
  for (int j = 0; j < G; j++) {
#pragma acc loop worker private(u[0:V])
    for (int k = 0; k < W; k++) {
#pragma acc loop vector
      for (int v = 0; v < V; v++) u[v] = 1000L * j + 10L * k + v;
#pragma acc loop vector
      for (int v = 0; v < V; v++) rows[(j * W + k) * V + v] = u[V - 1 - v];
    }
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < W; k++)
      for (int v = 0; v < V; v++) {
        long want = 1000L * j + 10L * k + (V - 1 - v);
        CHECK(rows[(j * W + k) * V + v] == want, "worker: rows[%d][%d][%d] = %ld, want %ld", j, k, v, rows[(j * W + k) * V + v], want);
      }

  /* private section of a vector loop, and of a sequential loop inside one: per thread. */
#pragma acc parallel loop gang copyout(rows[0:G * V])
  for (int j = 0; j < G; j++) {
#pragma acc loop vector private(w[0:3])
    for (int v = 0; v < V; v++) {
      w[0] = j;
      w[1] = v;
      w[2] = w[0] * 100 + w[1];
      rows[j * V + v] = w[2];
    }
  }
  for (int j = 0; j < G; j++)
    for (int v = 0; v < V; v++) CHECK(rows[j * V + v] == 100L * j + v, "vector: rows[%d][%d] = %ld", j, v, rows[j * V + v]);
#pragma acc parallel loop gang vector copyout(rows[0:G * V])
  for (int x = 0; x < G * V; x++) {
    long s = 0;
#pragma acc loop seq private(w[0:3])
    for (int r = 0; r < 3; r++) {
      w[r] = x + r;
      s += w[r] * (r + 1) + (r > 0 ? w[r - 1] : 0);
    }
    rows[x] = s;
  }
  for (int x = 0; x < G * V; x++) {
    long want = (long)x * 6 + 8 + (2L * x + 1);
    CHECK(rows[x] == want, "seq in vector: rows[%d] = %ld, want %ld", x, rows[x], want);
  }
  for (int i = 0; i < lo + m; i++) CHECK(t[i] == -1, "the host's t[%d] changed", i);
  for (int i = 0; i < V; i++) CHECK(u[i] == -2, "the host's u[%d] changed", i);
  for (int i = 0; i < 3; i++) CHECK(w[i] == -3, "the host's w[%d] changed", i);

  /* A firstprivate array too large for a kernel parameter (24008 bytes). */
  double big[BIG];
  for (int i = 0; i < BIG; i++) big[i] = i * 0.25;
#pragma acc parallel loop firstprivate(big) copyout(b[0:n])
  for (int i = 0; i < n; i++) b[i] = big[(i * 7) % BIG] + big[BIG - 1];
  for (int i = 0; i < n; i++) CHECK(b[i] == ((i * 7) % BIG) * 0.25 + (BIG - 1) * 0.25, "big: b[%d] = %g", i, b[i]);
#pragma acc parallel num_gangs(G) firstprivate(big) copyout(cols[0:G * m])
  {
#pragma acc loop gang
    for (int j = 0; j < G; j++) {
      big[j] = -j;
#pragma acc loop vector
      for (int k = 0; k < m; k++) cols[j * m + k] = big[j] + big[BIG - 1 - k];
    }
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < m; k++) {
      double want = -j + (BIG - 1 - k) * 0.25;
      CHECK(cols[j * m + k] == want, "big written: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }
  CHECK(big[0] == 0 && big[5] == 1.25, "the host's big changed");
  /* Private arrays that shared memory cannot hold (48 KB and 16 KB): the private area. */
  enum { HUGE = 6007, MID = 4001 };
  double huge[HUGE];
  float mid[MID];
  huge[0] = -7;
#pragma acc parallel loop gang private(huge, mid) copyout(cols[0:G * m])
  for (int j = 0; j < G; j++) {
#pragma acc loop vector
    for (int k = 0; k < HUGE; k++) huge[k] = j + k;
#pragma acc loop vector
    for (int k = 0; k < MID; k++) mid[k] = 2.0f * j - k;
#pragma acc loop vector
    for (int k = 0; k < m; k++) cols[j * m + k] = huge[HUGE - 1 - k] + mid[MID - 1 - k];
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < m; k++) {
      double want = (j + HUGE - 1 - k) + (2.0 * j - (MID - 1 - k));
      CHECK(cols[j * m + k] == want, "huge: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }
  CHECK(huge[0] == -7, "the host's huge changed");

  /* Arrays declared in the region over the budget, placed by their uses: per gang, per
   * worker (its lanes share it), per thread (stays in the thread's local memory). */
#pragma acc parallel loop gang num_workers(W) vector_length(32) copyout(cols[0:G * m], rows[0:G * W * V])
  for (int j = 0; j < G; j++) {
    double per_gang[HUGE];
#pragma acc loop vector
    for (int k = 0; k < HUGE; k++) per_gang[k] = 3.0 * j + k;
#pragma acc loop vector
    for (int k = 0; k < m; k++) cols[j * m + k] = per_gang[HUGE - 1 - k];
#pragma acc loop worker
    for (int k = 0; k < W; k++) {
      long per_worker[HUGE];
#pragma acc loop vector
      for (int v = 0; v < V; v++) per_worker[HUGE - 1 - v] = 100L * j + 10L * k + v;
#pragma acc loop vector
      for (int v = 0; v < V; v++) {
        long own[HUGE];
        own[v] = v;
        own[HUGE - 1] = per_worker[HUGE - V + v];
        rows[(j * W + k) * V + v] = own[HUGE - 1] * 1000 + own[v];
      }
    }
  }
  for (int j = 0; j < G; j++) {
    for (int k = 0; k < m; k++) {
      double want = 3.0 * j + (HUGE - 1 - k);
      CHECK(cols[j * m + k] == want, "declared per gang: cols[%d][%d] = %g, want %g", j, k, cols[j * m + k], want);
    }
    for (int k = 0; k < W; k++)
      for (int v = 0; v < V; v++) {
        long want = (100L * j + 10L * k + (V - 1 - v)) * 1000 + v;
        CHECK(rows[(j * W + k) * V + v] == want, "declared per worker: rows[%d][%d][%d] = %ld, want %ld", j, k, v, rows[(j * W + k) * V + v], want);
      }
  }
  free(c), free(t), free(u), free(w), free(b), free(rows), free(cols);
  return e2e_finish();
}
