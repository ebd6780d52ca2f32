/* Execution model, item 4: in a `kernels` construct, statements outside loops run once; a
 * loop without `independent` that carries a dependence (a prefix sum) stays right; two loop
 * nests are ordered (the second reads the first's writes at other indices); a scalar set
 * between the nests reaches the second. Odd sizes. */
#define E2E_NAME "kernels_order"
#include "e2e.h"

#define N 1001

int main(void) {
  int *a = e2e_alloc(sizeof(int) * N), *b = e2e_alloc(sizeof(int) * N), *p = e2e_alloc(sizeof(int) * N);
  int count[1] = {0};
  int scale = 0;
  for (int i = 0; i < N; i++) { a[i] = -1; b[i] = -1; p[i] = i % 7; }
#pragma acc kernels copy(a[0:N], b[0:N], p[0:N], count[0:1])
  {
    count[0] += 1; /* once, not once per gang or per thread */
#pragma acc loop independent
    for (int i = 0; i < N; i++) a[i] = 3 * i;
    scale = a[N - 1] / 3; /* between the nests: sees the whole first nest */
    count[0] += 10;
#pragma acc loop independent
    for (int i = 0; i < N; i++) b[i] = a[N - 1 - i] + scale;
    for (int i = 1; i < N; i++) p[i] += p[i - 1]; /* carries a dependence */
  }
  CHECK(count[0] == 11, "count = %d (statements outside loops must run once)", count[0]);
  CHECK(scale == N - 1, "scale = %d", scale);
  int run = 0;
  for (int i = 0; i < N; i++) {
    CHECK(a[i] == 3 * i, "a[%d] = %d", i, a[i]);
    CHECK(b[i] == 3 * (N - 1 - i) + (N - 1), "b[%d] = %d", i, b[i]);
    run += i % 7;
    CHECK(p[i] == run, "p[%d] = %d want %d", i, p[i], run);
  }
  free(a); free(b); free(p);
  return e2e_finish();
}
