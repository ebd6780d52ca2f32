/* 3-D nest with gang / worker / vector on the three levels and odd extents (7 x 13 x 129),
 * once with explicit num_gangs/num_workers/vector_length and once with runtime defaults. */
#define E2E_NAME "nest3d"
#include "e2e.h"

enum { NI = 7, NJ = 13, NK = 129 };

static long idx(int i, int j, int k) { return ((long)i * NJ + j) * NK + k; }

int main(void) {
  int ni = NI, nj = NJ, nk = NK;
  long n = (long)NI * NJ * NK;
  double *u = e2e_alloc(sizeof(double) * n), *v = e2e_alloc(sizeof(double) * n);
  double *w = e2e_alloc(sizeof(double) * n);
  for (long p = 0; p < n; p++) {
    u[p] = (double)(p % 97) * 0.5;
    v[p] = w[p] = -1.0;
  }

#pragma acc parallel num_gangs(5) num_workers(4) vector_length(32) copyin(u[0:n]) copyout(v[0:n])
  {
#pragma acc loop gang
    for (int i = 0; i < ni; i++) {
#pragma acc loop worker
      for (int j = 0; j < nj; j++) {
#pragma acc loop vector
        for (int k = 0; k < nk; k++) {
          long p = ((long)i * nj + j) * nk + k;
          v[p] = 2.0 * u[p] + i + 100.0 * j + 10000.0 * k;
        }
      }
    }
  }

#pragma acc parallel copyin(u[0:n]) copyout(w[0:n])
  {
#pragma acc loop gang
    for (int i = 0; i < ni; i++) {
#pragma acc loop worker
      for (int j = 0; j < nj; j++) {
#pragma acc loop vector
        for (int k = 0; k < nk; k++) {
          long p = ((long)i * nj + j) * nk + k;
          w[p] = u[p] - i - j - k;
        }
      }
    }
  }

  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++) {
        long p = idx(i, j, k);
        double wv = 2.0 * u[p] + i + 100.0 * j + 10000.0 * k;
        double ww = u[p] - i - j - k;
        if (v[p] != wv) {
          CHECK(0, "sized: v[%d][%d][%d]=%g want %g", i, j, k, v[p], wv);
          goto out;
        }
        if (w[p] != ww) {
          CHECK(0, "default: w[%d][%d][%d]=%g want %g", i, j, k, w[p], ww);
          goto out;
        }
      }
out:
  free(u), free(v), free(w);
  return e2e_finish();
}
