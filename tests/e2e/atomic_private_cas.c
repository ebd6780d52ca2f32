/* Atomics on thread-private variables: a `private` scalar and locals of a vector loop body
 * or of a gang body (one thread's local memory). Operations without a native atomic (double
 * max and product, long min, int product in a capture) were compare-and-swap loops on a
 * local address, which ptxas rejects ("State space incorrect for instruction 'atom'"); now
 * plain code (codegen private_atomics.rs). Found by the fuzzer's private atomics. Odd sizes,
 * every element checked. */
#define E2E_NAME "atomic_private_cas"
#include "e2e.h"

enum { N = 77, M = 33 };

int main(void) {
  double *d = e2e_alloc(N * M * sizeof *d), *g = e2e_alloc(N * sizeof *g);
  long *l = e2e_alloc(N * M * sizeof *l);
  int *c = e2e_alloc(N * M * sizeof *c), *k = e2e_alloc(N * M * sizeof *k);
  double t;
#pragma acc parallel loop gang vector_length(32) private(t) copyout(d[0:N*M], l[0:N*M], c[0:N*M], k[0:N*M], g[0:N])
  for (int i = 0; i < N; i++) {
    double gm = i;
#pragma acc atomic update
    gm = gm < 40.0 ? 40.0 : gm;
#pragma acc loop vector private(t)
    for (int j = 0; j < M; j++) {
      int q = i * M + j;
      t = j;
      double x = i * 0.5, old;
      long y = q;
      int z = j + 1, cap;
#pragma acc atomic update
      x = x < 7.0 ? 7.0 : x;
#pragma acc atomic update
      t = t * 2.0;
#pragma acc atomic capture
      {
        old = x;
        x = x * 3.0;
      }
#pragma acc atomic update
      y = y > 500 ? 500 : y;
#pragma acc atomic capture
      {
        z = z * 3;
        cap = z;
      }
#pragma acc atomic update
      z -= 2;
      d[q] = x + old + t;
      l[q] = y;
      c[q] = cap;
      k[q] = z;
    }
#pragma acc atomic update
    gm += 1.0;
    g[i] = gm;
  }
  for (int i = 0; i < N; i++) {
    CHECK(g[i] == (i < 40 ? 40.0 : i) + 1.0, "g[%d] = %g", i, g[i]);
    for (int j = 0; j < M; j++) {
      int q = i * M + j;
      double x = i * 0.5 < 7.0 ? 7.0 : i * 0.5;
      CHECK(d[q] == 4.0 * x + 2.0 * j, "d[%d] = %g", q, d[q]);
      CHECK(l[q] == (q > 500 ? 500 : q), "l[%d] = %ld", q, l[q]);
      CHECK(c[q] == 3 * (j + 1), "c[%d] = %d", q, c[q]);
      CHECK(k[q] == 3 * (j + 1) - 2, "k[%d] = %d", q, k[q]);
    }
  }
  free(d), free(g), free(l), free(c), free(k);
  return e2e_finish();
}
