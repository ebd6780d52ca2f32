/* gang(static: s): a gang loop's iterations go to the gangs in chunks of s, round robin, the
 * gang's workers and lanes sharing each chunk; static:* keeps the default schedule. Every
 * iteration must run exactly once, whatever the chunk, the trip count (odd) and the gang
 * count (more and fewer gangs than chunks, chunks shorter and longer than a gang's lanes).
 * Also gang(num: n) and gang(dim: 1) in kernels. */
#define E2E_NAME "gang_static"
#include "e2e.h"

enum { N = 1013, M = 37 };

/* gang(dim: 1) on a routine: the gang routine of the one gang dimension. */
#pragma acc routine gang(dim: 1)
static void add_index(int *a, int n) {
#pragma acc loop gang(static: 9)
  for (int i = 0; i < n; i++) a[i] += i + 1;
}

static void check(int *a, int n, int times, const char *what) {
  for (int i = 0; i < n; i++)
    if (a[i] != times * (i + 1)) {
      CHECK(0, "%s: a[%d]=%d want %d", what, i, a[i], times * (i + 1));
      return;
    }
}

int main(void) {
  int *a = e2e_alloc(sizeof(int) * N), *b = e2e_alloc(sizeof(int) * N * M);
  for (int i = 0; i < N; i++) a[i] = 0;
  for (int i = 0; i < N * M; i++) b[i] = 0;
#pragma acc data copy(a[0:N], b[0:N * M])
  {
#pragma acc parallel loop gang(static: 1) num_gangs(7)
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc parallel loop gang(static: 3) num_gangs(5)
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc parallel loop gang(static: 7) vector vector_length(32)
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc parallel loop gang(static: 45) vector num_gangs(3) vector_length(32)
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc parallel loop gang(static: 11) worker vector num_gangs(4) num_workers(2) vector_length(32)
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc parallel loop gang(static: *) vector
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc parallel loop gang(static: 5000) num_gangs(9)
    for (int i = 0; i < N; i++) a[i] += i + 1;
    /* a separate loop directive inside a region, a collapsed nest, and a downward loop */
#pragma acc parallel num_gangs(6) vector_length(32)
    {
#pragma acc loop gang(static: 13) collapse(2)
      for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) b[i * M + j] += i * M + j + 1;
#pragma acc loop gang(static: 2) vector
      for (int i = N - 1; i >= 0; i -= 1) a[i] += i + 1;
    }
    /* kernels: gang(num:) sizes each loop's kernel; gang(dim: 1) is the gang loop itself */
#pragma acc kernels
    {
#pragma acc loop independent gang(num: 3, static: 4)
      for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc loop independent gang vector
      for (int i = 0; i < N; i++) a[i] += i + 1;
    }
#pragma acc parallel loop gang(dim: 1, static: 6) vector
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc kernels loop gang(5)
    for (int i = 0; i < N; i++) a[i] += i + 1;
#pragma acc parallel num_gangs(4)
    add_index(a, N);
  }
  check(a, N, 13, "1-D loops");
  check(b, N * M, 1, "collapse");
  int sum = 0;
#pragma acc parallel loop gang(static: 3) vector reduction(+: sum) copyin(a[0:N])
  for (int i = 0; i < N; i++) sum += 1;
  CHECK(sum == N, "reduction: %d want %d", sum, N);
  free(a);
  free(b);
  return e2e_finish();
}
