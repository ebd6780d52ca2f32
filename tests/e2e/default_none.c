/* default(none) (OpenACC 3.3 §2.5.16) on constructs whose loops declare their own variables:
 * every variable of the program is named in a clause, and Clang's own temporaries (the
 * cleanup slot of a `for` that declares its variable, which a `break` or the loop's end
 * stores to) need none. Was: "variable 'cleanup.dest.slot' is used in the region but has no
 * data clause". Lanes read their neighbours' inputs; every element is checked. */
#define E2E_NAME "default_none"
#include "e2e.h"

enum { N = 53, M = 37 };

int main(void) {
  static double a[N][M], b[N][M];
  int n = N, m = M;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) a[i][j] = i * 0.5 + j * 3.0;

#pragma acc parallel loop default(none) copyin(a) copyout(b) firstprivate(n, m)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (j == m - 1) {
        b[i][j] = -1.0;
        continue;
      }
      b[i][j] = a[i][j + 1] + a[(i + 1) % n][j];
    }

  /* A sequential inner loop that leaves early (its own cleanup slot), per row. */
  static int lead[N];
  double limit = 60.0;
#pragma acc parallel loop gang vector default(none) copyin(a) copyout(lead) firstprivate(n, m, limit)
  for (int i = 0; i < n; i++) {
    int k = 0;
#pragma acc loop seq
    for (int j = 0; j < m; j++) {
      if (a[i][j] > limit) break;
      k++;
    }
    lead[i] = k;
  }

  for (int i = 0; i < N; i++) {
    int want = 0;
    while (want < M && a[i][want] <= 60.0) want++;
    CHECK(lead[i] == want, "lead[%d] = %d, want %d", i, lead[i], want);
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      double want = j == M - 1 ? -1.0 : a[i][j + 1] + a[(i + 1) % N][j];
      CHECK(b[i][j] == want, "b[%d][%d] = %g, want %g", i, j, b[i][j], want);
    }
  return e2e_finish();
}
