/* OpenACC 2.7 array reductions: a 64-bin histogram `reduction(+:hist[0:64])` on a gang loop
 * and on a gang vector loop (bins start nonzero: the original values are combined exactly
 * once), `reduction(max:m[0:8])` over negative data, a sub-array that does not start at 0
 * (`reduction(+:h[8:16])`: the elements outside it are untouched), and a whole fixed-size
 * array `reduction(+:w)`, with trip counts 0, 1, 33 and 10007; compared with plain C. */
#define E2E_NAME "reduction_arrays"
#include "e2e.h"

enum { N = 10007, B = 64, M = 8 };

static int key(int i) { return (int)((i * 2654435761u) >> 26); } /* [0, 64) */

static void run(const int *k, const int *v, int n) {
  long hist[B], hw[B];
  for (int b = 0; b < B; b++) hist[b] = hw[b] = b;
  for (int i = 0; i < n; i++) hw[k[i]] += 1;
#pragma acc parallel loop gang reduction(+:hist[0:B]) copyin(k[0:n])
  for (int i = 0; i < n; i++)
    hist[k[i]] += 1;
  for (int b = 0; b < B; b++) CHECK(hist[b] == hw[b], "gang hist n=%d bin %d: got %ld, want %ld", n, b, hist[b], hw[b]);

  int hv[B], hvw[B];
  for (int b = 0; b < B; b++) hv[b] = hvw[b] = -b;
  for (int i = 0; i < n; i++) hvw[k[i]] += v[i];
#pragma acc parallel loop gang vector reduction(+:hv[0:B]) copyin(k[0:n], v[0:n])
  for (int i = 0; i < n; i++)
    hv[k[i]] += v[i];
  for (int b = 0; b < B; b++) CHECK(hv[b] == hvw[b], "gang vector hist n=%d bin %d: got %d, want %d", n, b, hv[b], hvw[b]);

  int m[M], mw[M];
  for (int j = 0; j < M; j++) m[j] = mw[j] = (j == 3) ? 5 : -1000; /* m[3] above all the data */
  for (int i = 0; i < n; i++) mw[i % M] = -v[i] - 1 > mw[i % M] ? -v[i] - 1 : mw[i % M];
#pragma acc parallel loop reduction(max:m[0:M]) copyin(v[0:n])
  for (int i = 0; i < n; i++)
    m[i % M] = -v[i] - 1 > m[i % M] ? -v[i] - 1 : m[i % M];
  for (int j = 0; j < M; j++) CHECK(m[j] == mw[j], "max m[0:8] n=%d [%d]: got %d, want %d", n, j, m[j], mw[j]);

  long h[32], hs[32];
  for (int b = 0; b < 32; b++) h[b] = hs[b] = 1000 + b;
  for (int i = 0; i < n; i++) hs[8 + k[i] % 16] += 2;
#pragma acc parallel loop gang vector reduction(+:h[8:16]) copyin(k[0:n])
  for (int i = 0; i < n; i++)
    h[8 + k[i] % 16] += 2;
  for (int b = 0; b < 32; b++) CHECK(h[b] == hs[b], "h[8:16] n=%d [%d]: got %ld, want %ld", n, b, h[b], hs[b]);

  int w[5], ww[5];
  for (int j = 0; j < 5; j++) w[j] = ww[j] = 7 * j;
  for (int i = 0; i < n; i++) ww[i % 5] += v[i], ww[(i + 2) % 5] -= 1;
#pragma acc parallel loop reduction(+:w) copyin(v[0:n])
  for (int i = 0; i < n; i++) {
    w[i % 5] += v[i];
    w[(i + 2) % 5] -= 1;
  }
  for (int j = 0; j < 5; j++) CHECK(w[j] == ww[j], "whole array w n=%d [%d]: got %d, want %d", n, j, w[j], ww[j]);

  /* Nested: the clause on the gang loop, the array updated in an inner vector loop (each
   * level keeps its own copy of the array: lanes must not share one), and a pointer
   * section that no data clause maps (the reduction implies copy). */
  double dm[5], dmw[5];
  long *p = e2e_alloc(sizeof(long) * 12), pw[12];
  for (int j = 0; j < 5; j++) dm[j] = dmw[j] = -1;
  for (int j = 0; j < 12; j++) p[j] = pw[j] = j;
  int rows = n / 7;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < 7; j++) {
      int x = k[i * 7 + j];
      if (x > dmw[(i + j) % 5]) dmw[(i + j) % 5] = x;
      pw[x % 12] += 1;
    }
#pragma acc parallel loop gang num_gangs(5) reduction(max:dm) reduction(+:p[0:12]) copyin(k[0:n])
  for (int i = 0; i < rows; i++) {
#pragma acc loop vector
    for (int j = 0; j < 7; j++) {
      int x = k[i * 7 + j];
      if (x > dm[(i + j) % 5]) dm[(i + j) % 5] = x;
      p[x % 12] += 1;
    }
  }
  for (int j = 0; j < 5; j++) CHECK(dm[j] == dmw[j], "nested max dm n=%d [%d]: got %g, want %g", n, j, dm[j], dmw[j]);
  for (int j = 0; j < 12; j++) CHECK(p[j] == pw[j], "nested pointer section n=%d [%d]: got %ld, want %ld", n, j, p[j], pw[j]);
  free(p);
}

int main(void) {
  int *k = e2e_alloc(sizeof(int) * N), *v = e2e_alloc(sizeof(int) * N);
  for (int i = 0; i < N; i++) {
    k[i] = key(i);
    v[i] = (int)((i * 37L + 11) % 100); /* [0, 99] */
  }
  static const int trips[] = {0, 1, 33, N};
  for (unsigned t = 0; t < sizeof trips / sizeof *trips; t++) run(k, v, trips[t]);
  free(k), free(v);
  return e2e_finish();
}
