/* gang(static: s) with a chunk size known only at run time: on a combined construct (the
 * value is computed before the region and passed to the kernel), on a loop directive inside
 * a region (computed there, also from what the region computes), in kernels, with gang
 * dimensions, collapse, and a downward loop. Every iteration must run exactly once, for
 * chunk sizes of 1, shorter and longer than a gang's lanes, and longer than the loop. */
#define E2E_NAME "gang_static_runtime"
#include "e2e.h"

enum { N = 1013, M = 37 };

static void check(const int *a, int n, int times, const char *what) {
  for (int i = 0; i < n; i++)
    if (a[i] != times * (i + 1)) {
      CHECK(0, "%s: a[%d]=%d want %d", what, i, a[i], times * (i + 1));
      return;
    }
}

int main(int argc, char **argv) {
  (void)argv;
  int *a = e2e_alloc(sizeof(int) * N), *b = e2e_alloc(sizeof(int) * N * M);
  for (int i = 0; i < N; i++) a[i] = 0;
  for (int i = 0; i < N * M; i++) b[i] = 0;
  /* Values the compiler cannot fold: argc is 1. */
  int one = argc, three = 3 * argc, big = 5000 * argc;
  int chunks[] = {one, three, 7 * argc, 45 * argc, big};
  int rounds = 0;
#pragma acc data copy(a[0:N], b[0:N * M])
  {
    for (int c = 0; c < 5; c++, rounds++) {
      int s = chunks[c];
#pragma acc parallel loop gang(static: s) num_gangs(5) vector_length(32)
      for (int i = 0; i < N; i++) a[i] += i + 1;
    }
#pragma acc parallel loop gang(static: three + 8) worker vector num_gangs(4) num_workers(2) vector_length(32)
    for (int i = 0; i < N; i++) a[i] += i + 1;
    rounds++;
#pragma acc parallel num_gangs(6) vector_length(32)
    {
      int s = three * 4 + one; /* 13, computed in the region */
#pragma acc loop gang(static: s) collapse(2)
      for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) b[i * M + j] += i * M + j + 1;
#pragma acc loop gang(static: one + one) vector
      for (int i = N - 1; i >= 0; i -= 1) a[i] += i + 1;
    }
    rounds++;
#pragma acc kernels
    {
#pragma acc loop independent gang(num: three, static: three + one)
      for (int i = 0; i < N; i++) a[i] += i + 1;
    }
    rounds++;
    /* A dimension-2 gang loop with a run-time chunk over a dimension-1 loop. */
#pragma acc parallel loop gang(dim: 2, static: three - one) num_gangs(3, 4) vector_length(32)
    for (int i = 0; i < M; i++) {
#pragma acc loop gang(dim: 1, static: three) vector
      for (int j = 0; j < N; j++) b[i * N + j] += i * N + j + 1;
    }
  }
  check(a, N, rounds, "1-D loops");
  check(b, N * M, 2, "collapse and dimensions");
  free(a);
  free(b);
  return e2e_finish();
}
