/* The cache directive: sections kept in shared memory per window of the vector loop
 * (codegen/src/cache.rs). Every element is checked against a serial computation, with odd
 * sizes and short vectors so that windows are partial and blocks run several windows. */
#define E2E_NAME "cache"
#include "e2e.h"

#define NX 67
#define NY 45

static double init(int i) { return (double)((i * 37) % 101) - 50.0 + 0.25 * (i % 3); }

/* 1-D 3-point stencil: a[i-1:3] per iteration; blocks of 32 lanes, 3 gangs. */
static void three_point(int n) {
  double *a = e2e_alloc(n * sizeof(double)), *b = e2e_alloc(n * sizeof(double));
  for (int i = 0; i < n; i++) { a[i] = init(i); b[i] = -1; }
#pragma acc parallel loop num_gangs(3) vector_length(32) copyin(a[0:n]) copy(b[0:n])
  for (int i = 1; i < n - 1; i++) {
#pragma acc cache(a[i-1:3])
    b[i] = a[i - 1] + 2.0 * a[i] + a[i + 1];
  }
  for (int i = 0; i < n; i++) {
    double want = (i == 0 || i == n - 1) ? -1 : a[i - 1] + 2.0 * a[i] + a[i + 1];
    CHECK(b[i] == want, "three_point(%d): b[%d] = %g, want %g", n, i, b[i], want);
  }
  free(a);
  free(b);
}

/* Radius 4 (9 points), readonly, default launch; a load outside the section (a[i+5]) still
 * reads global memory. */
static void radius_four(int n) {
  double *a = e2e_alloc(n * sizeof(double)), *b = e2e_alloc(n * sizeof(double));
  static const double w[9] = {0.5, -1, 2, 0.25, 3, 0.25, 2, -1, 0.5};
  for (int i = 0; i < n; i++) { a[i] = init(i + 5); b[i] = 0; }
#pragma acc parallel loop copyin(a[0:n], w[0:9]) copy(b[0:n])
  for (int i = 4; i < n - 5; i++) {
#pragma acc cache(readonly: a[i-4:9])
    double s = 0;
    for (int r = -4; r <= 4; r++) s += w[r + 4] * a[i + r];
    b[i] = s + a[i + 5];
  }
  for (int i = 0; i < n; i++) {
    double want = 0;
    if (i >= 4 && i < n - 5) {
      double s = 0;
      for (int r = -4; r <= 4; r++) s += w[r + 4] * a[i + r];
      want = s + a[i + 5];
    }
    CHECK(b[i] == want, "radius_four(%d): b[%d] = %g, want %g", n, i, b[i], want);
  }
  free(a);
  free(b);
}

/* 2-D 5-point, cache(a[j-1:3][i-1:3]) in a vector loop inside a gang loop; Jacobi steps
 * ping-pong, so each cached array is written by the other step's kernel. */
static void five_point(int steps) {
  double (*a)[NX] = e2e_alloc(sizeof(double[NY][NX])), (*b)[NX] = e2e_alloc(sizeof(double[NY][NX]));
  double (*ra)[NX] = e2e_alloc(sizeof(double[NY][NX])), (*rb)[NX] = e2e_alloc(sizeof(double[NY][NX]));
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) ra[j][i] = rb[j][i] = a[j][i] = b[j][i] = init(j * NX + i);
#pragma acc data copy(a[0:NY][0:NX], b[0:NY][0:NX])
  for (int s = 0; s < steps; s++) {
#pragma acc parallel loop gang vector_length(32)
    for (int j = 1; j < NY - 1; j++) {
#pragma acc loop vector
      for (int i = 1; i < NX - 1; i++) {
#pragma acc cache(a[j-1:3][i-1:3])
        b[j][i] = 0.2 * (a[j][i] + a[j - 1][i] + a[j + 1][i] + a[j][i - 1] + a[j][i + 1]);
      }
    }
#pragma acc parallel loop gang
    for (int j = 1; j < NY - 1; j++) {
#pragma acc loop vector
      for (int i = 1; i < NX - 1; i++) {
#pragma acc cache(b[j-1:3][i-1:3])
        a[j][i] = 0.2 * (b[j][i] + b[j - 1][i] + b[j + 1][i] + b[j][i - 1] + b[j][i + 1]);
      }
    }
  }
  for (int s = 0; s < steps; s++) {
    for (int j = 1; j < NY - 1; j++)
      for (int i = 1; i < NX - 1; i++) rb[j][i] = 0.2 * (ra[j][i] + ra[j - 1][i] + ra[j + 1][i] + ra[j][i - 1] + ra[j][i + 1]);
    for (int j = 1; j < NY - 1; j++)
      for (int i = 1; i < NX - 1; i++) ra[j][i] = 0.2 * (rb[j][i] + rb[j - 1][i] + rb[j + 1][i] + rb[j][i - 1] + rb[j][i + 1]);
  }
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) {
      CHECK(a[j][i] == ra[j][i], "five_point: a[%d][%d] = %.17g, want %.17g", j, i, a[j][i], ra[j][i]);
      CHECK(b[j][i] == rb[j][i], "five_point: b[%d][%d] = %.17g, want %.17g", j, i, b[j][i], rb[j][i]);
    }
  free(a);
  free(b);
  free(ra);
  free(rb);
}

/* A cached item the loop writes (c, not readonly) stays in global memory: each iteration
 * reads back what it wrote. `a` beside it is cached. */
static void written_in_loop(int n) {
  int *a = e2e_alloc(n * sizeof(int)), *c = e2e_alloc(n * sizeof(int));
  for (int i = 0; i < n; i++) { a[i] = i * 3 - 7; c[i] = i; }
#pragma acc parallel loop vector_length(64) copyin(a[0:n]) copy(c[0:n])
  for (int i = 1; i < n - 1; i++) {
#pragma acc cache(a[i-1:3], c[i:1])
    c[i] = c[i] * 2 + a[i - 1];
    c[i] += c[i] + a[i + 1];
  }
  for (int i = 0; i < n; i++) {
    int want = i;
    if (i > 0 && i < n - 1) {
      want = i * 2 + a[i - 1];
      want += want + a[i + 1];
    }
    CHECK(c[i] == want, "written_in_loop(%d): c[%d] = %d, want %d", n, i, c[i], want);
  }
  free(a);
  free(c);
}

/* Two cache directives in one loop, a reduction over a cached vector loop, two cached vector
 * loops in one gang loop, and a kernels construct. */
static void combinations(int n, int m) {
  double *a = e2e_alloc(n * m * sizeof(double)), *c = e2e_alloc((n * m + 1) * sizeof(double));
  double *b = e2e_alloc(n * m * sizeof(double)), *rows = e2e_alloc(n * sizeof(double));
  double *d = e2e_alloc(n * m * sizeof(double));
  for (int k = 0; k < n * m; k++) { a[k] = init(k); c[k] = init(3 * k + 1); b[k] = d[k] = 0; }
  c[n * m] = 1;
  int total = n * m;
#pragma acc parallel loop vector_length(96) copyin(a[0:total], c[0:total+1]) copy(b[0:total])
  for (int i = 1; i < total - 1; i++) {
#pragma acc cache(a[i-1:3])
#pragma acc cache(readonly: c[i:2])
    b[i] = a[i - 1] - a[i + 1] + c[i] * c[i + 1];
  }
#pragma acc parallel loop gang copyin(a[0:total]) copy(rows[0:n], d[0:total])
  for (int j = 0; j < n; j++) {
    double s = 0;
#pragma acc loop vector reduction(+:s)
    for (int i = 1; i < m - 1; i++) {
#pragma acc cache(a[j*m+i-1:3])
      s += a[j * m + i - 1] * a[j * m + i + 1] - a[j * m + i];
    }
    rows[j] = s;
#pragma acc loop vector
    for (int i = 1; i < m - 1; i++) {
#pragma acc cache(a[j*m+i-1:3])
      d[j * m + i] = a[j * m + i + 1] - a[j * m + i - 1];
    }
#pragma acc loop vector
    for (int i = 1; i < m - 1; i++) {
#pragma acc cache(d[j*m+i-1:3])
      d[j * m + i] += 1;
    }
  }
  for (int i = 0; i < total; i++) {
    double want = (i == 0 || i == total - 1) ? 0 : a[i - 1] - a[i + 1] + c[i] * c[i + 1];
    CHECK(b[i] == want, "combinations: b[%d] = %g, want %g", i, b[i], want);
  }
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int i = 1; i < m - 1; i++) s += a[j * m + i - 1] * a[j * m + i + 1] - a[j * m + i];
    CHECK(e2e_close(rows[j], s, 1e-12), "combinations: rows[%d] = %.17g, want %.17g", j, rows[j], s);
    for (int i = 0; i < m; i++) {
      double want = (i == 0 || i == m - 1) ? 0 : a[j * m + i + 1] - a[j * m + i - 1] + 1;
      CHECK(d[j * m + i] == want, "combinations: d[%d][%d] = %g, want %g", j, i, d[j * m + i], want);
    }
  }
  for (int k = 0; k < total; k++) b[k] = 0;
#pragma acc kernels copyin(a[0:total]) copy(b[0:total])
  {
#pragma acc loop independent
    for (int i = 2; i < total - 2; i++) {
#pragma acc cache(a[i-2:5])
      b[i] = a[i - 2] + a[i + 2] - a[i];
    }
  }
  for (int i = 0; i < total; i++) {
    double want = (i < 2 || i >= total - 2) ? 0 : a[i - 2] + a[i + 2] - a[i];
    CHECK(b[i] == want, "combinations (kernels): b[%d] = %g, want %g", i, b[i], want);
  }
  free(a), free(b), free(c), free(d), free(rows);
}

/* A vector loop inside a worker loop: a tile per worker, worker barriers; rows spread over
 * gangs and workers, odd sizes so that workers and windows run out at different points. */
static void per_worker(int ny, int nx) {
  float *a = e2e_alloc(ny * nx * sizeof(float)), *b = e2e_alloc(ny * nx * sizeof(float));
  for (int k = 0; k < ny * nx; k++) { a[k] = (float)init(k); b[k] = -1; }
  int total = ny * nx;
#pragma acc parallel loop gang worker num_workers(3) vector_length(32) copyin(a[0:total]) copy(b[0:total])
  for (int j = 1; j < ny - 1; j++) {
#pragma acc loop vector
    for (int i = 2; i < nx - 2; i++) {
#pragma acc cache(a[(j-1)*nx+i-2:5])
      b[j * nx + i] = a[(j - 1) * nx + i - 2] + a[(j - 1) * nx + i + 2] - a[(j - 1) * nx + i] + a[j * nx + i];
    }
  }
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      float want = -1;
      if (j >= 1 && j < ny - 1 && i >= 2 && i < nx - 2)
        want = a[(j - 1) * nx + i - 2] + a[(j - 1) * nx + i + 2] - a[(j - 1) * nx + i] + a[j * nx + i];
      CHECK(b[j * nx + i] == want, "per_worker(%d, %d): b[%d][%d] = %g, want %g", ny, nx, j, i, b[j * nx + i], want);
    }
  free(a), free(b);
}

/* Three dimensions: cache(u[k-1:3][j-1:3][i-1:3]) in a vector loop under a gang loop over k
 * and a sequential loop over j: nine rows per window. */
#define NZ 9
#define NJ 11
#define NI 37
static void seven_point(void) {
  double (*u)[NJ][NI] = e2e_alloc(sizeof(double[NZ][NJ][NI])), (*v)[NJ][NI] = e2e_alloc(sizeof(double[NZ][NJ][NI]));
  for (int k = 0; k < NZ; k++)
    for (int j = 0; j < NJ; j++)
      for (int i = 0; i < NI; i++) { u[k][j][i] = init((k * NJ + j) * NI + i); v[k][j][i] = 0; }
#pragma acc parallel loop gang vector_length(32) copyin(u[0:NZ][0:NJ][0:NI]) copy(v[0:NZ][0:NJ][0:NI])
  for (int k = 1; k < NZ - 1; k++) {
#pragma acc loop seq
    for (int j = 1; j < NJ - 1; j++) {
#pragma acc loop vector
      for (int i = 1; i < NI - 1; i++) {
#pragma acc cache(u[k-1:3][j-1:3][i-1:3])
        v[k][j][i] = u[k][j][i] * 6 - u[k - 1][j][i] - u[k + 1][j][i] - u[k][j - 1][i] - u[k][j + 1][i] - u[k][j][i - 1] - u[k][j][i + 1];
      }
    }
  }
  for (int k = 0; k < NZ; k++)
    for (int j = 0; j < NJ; j++)
      for (int i = 0; i < NI; i++) {
        double want = 0;
        if (k > 0 && k < NZ - 1 && j > 0 && j < NJ - 1 && i > 0 && i < NI - 1)
          want = u[k][j][i] * 6 - u[k - 1][j][i] - u[k + 1][j][i] - u[k][j - 1][i] - u[k][j + 1][i] - u[k][j][i - 1] - u[k][j][i + 1];
        CHECK(v[k][j][i] == want, "seven_point: v[%d][%d][%d] = %g, want %g", k, j, i, v[k][j][i], want);
      }
  free(u), free(v);
}

/* A struct's array member (s->v[i-1:3]: the member's offset) and a single element (a[i]). */
struct grid { int n; double v[203]; };
static void members_and_elements(void) {
  struct grid *g = e2e_alloc(sizeof *g);
  double *a = e2e_alloc(203 * sizeof(double)), *b = e2e_alloc(203 * sizeof(double));
  g->n = 203;
  for (int i = 0; i < 203; i++) { g->v[i] = init(i * 5); a[i] = init(i + 100); b[i] = 0; }
#pragma acc parallel loop vector_length(64) copyin(g[0:1], a[0:203]) copy(b[0:203])
  for (int i = 1; i < 202; i++) {
#pragma acc cache(g->v[i-1:3], a[i])
    b[i] = g->v[i - 1] - g->v[i + 1] + a[i];
  }
  for (int i = 0; i < 203; i++) {
    double want = (i == 0 || i == 202) ? 0 : g->v[i - 1] - g->v[i + 1] + a[i];
    CHECK(b[i] == want, "members_and_elements: b[%d] = %g, want %g", i, b[i], want);
  }
  free(g), free(a), free(b);
}

int main(void) {
  three_point(1001);
  three_point(37);
  three_point(3);
  radius_four(777);
  radius_four(12);
  five_point(3);
  written_in_loop(131);
  combinations(7, 301);
  combinations(3, 5);
  per_worker(29, 83);
  per_worker(4, 7);
  seven_point();
  members_and_elements();
  return e2e_finish();
}
