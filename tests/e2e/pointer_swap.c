/* Pointers named in a data clause and swapped on the host between launches (OpenACC 3.3
 * §2.6: a pointer used in a compute region is translated by its value at the launch).
 * Each sweep reads `u` and writes `v`, then `t = u; u = v; v = t;`: every launch must reach
 * the device copy of the buffer the pointer points to at that moment. Also a pointer moved
 * inside a mapped buffer, and a second swapped pair whose launches use both buffers. */
#define E2E_NAME "pointer_swap"
#include "e2e.h"

#define M 1000003

static void sweep_ref(const int *u, int *v, int n) {
  v[0] = u[0];
  v[n - 1] = u[n - 1];
  for (int i = 1; i < n - 1; i++) v[i] = (u[i - 1] + 3 * u[i] + u[i + 1] + i) % M;
}

int main(void) {
  int n = 10007, sweeps = 7;
  /* Both buffers in one host block with a gap between them, so that the host distance
   * between them has nothing to do with the distance between their device copies. */
  int *block = e2e_alloc(sizeof(int) * 3 * n);
  int *a = block, *b = block + 2 * n;
  int *ra = e2e_alloc(sizeof(int) * n), *rb = e2e_alloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    a[i] = ra[i] = (i * 37) % 101;
    b[i] = rb[i] = -1;
  }

  int *u = a, *v = b, *t;
#pragma acc data copy(u[0:n], v[0:n])
  {
    for (int s = 0; s < sweeps; s++) {
#pragma acc parallel loop
      for (int i = 1; i < n - 1; i++)
        v[i] = (u[i - 1] + 3 * u[i] + u[i + 1] + i) % M;
#pragma acc parallel loop
      for (int i = 0; i < 2; i++)
        v[i * (n - 1)] = u[i * (n - 1)];
      t = u;
      u = v;
      v = t;
    }
    /* A pointer moved inside the buffer it points into (one element in). */
    int *w = u + 1;
#pragma acc parallel loop
    for (int i = 0; i < n - 2; i++)
      w[i] += 1;
  }

  int *ru = ra, *rv = rb;
  for (int s = 0; s < sweeps; s++) {
    sweep_ref(ru, rv, n);
    t = ru, ru = rv, rv = t;
  }
  for (int i = 1; i < n - 1; i++) ru[i] += 1;

  /* 7 swaps: u is b, v is a, on the host as in the reference. */
  CHECK(u == b && v == a, "pointers after the region: u=%p v=%p (a=%p b=%p)", (void *)u, (void *)v, (void *)a, (void *)b);
  for (int i = 0; i < n; i++) {
    if (a[i] != ra[i]) {
      CHECK(0, "a[%d]=%d want %d", i, a[i], ra[i]);
      break;
    }
  }
  for (int i = 0; i < n; i++) {
    if (b[i] != rb[i]) {
      CHECK(0, "b[%d]=%d want %d", i, b[i], rb[i]);
      break;
    }
  }

  /* Two buffers swapped while both are read and written in every launch. */
  int m = 4099;
  float *p = e2e_alloc(sizeof(float) * m), *q = e2e_alloc(sizeof(float) * m);
  float *rp = e2e_alloc(sizeof(float) * m), *rq = e2e_alloc(sizeof(float) * m);
  for (int i = 0; i < m; i++) p[i] = rp[i] = (float)i, q[i] = rq[i] = (float)(2 * i);
  float *x = p, *y = q, *z;
#pragma acc data copy(x[0:m], y[0:m])
  for (int s = 0; s < 5; s++) {
#pragma acc parallel loop
    for (int i = 0; i < m; i++) {
      float old = x[i];
      x[i] = y[i] + 1.0f;
      y[i] = old * 2.0f;
    }
    z = x, x = y, y = z;
  }
  float *rx = rp, *ry = rq;
  for (int s = 0; s < 5; s++) {
    for (int i = 0; i < m; i++) {
      float old = rx[i];
      rx[i] = ry[i] + 1.0f;
      ry[i] = old * 2.0f;
    }
    z = rx, rx = ry, ry = z;
  }
  for (int i = 0; i < m; i++) {
    if (p[i] != rp[i] || q[i] != rq[i]) {
      CHECK(0, "p[%d]=%g want %g, q[%d]=%g want %g", i, p[i], rp[i], i, q[i], rq[i]);
      break;
    }
  }
  free(block), free(ra), free(rb), free(p), free(q), free(rp), free(rq);
  return e2e_finish();
}
