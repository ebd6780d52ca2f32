/* Atomics on a gang-body local in vector-single code (a gang loop body with an inner
 * `loop vector`): every lane keeps its own copy of the local, so every lane must do the
 * atomic on it, as it does a plain store. guard.rs made atomics single-lane like any shared
 * side effect: lane 0 updated its copy alone, the other lanes' copies went stale and the
 * compare-and-swap loops (max through ?:, a product in a capture) gave wrong values (fuzzer
 * seed 311, emulator). Also a local the inner loop reads (shared by the gang's lanes), which
 * must still be updated once. Odd sizes, every element checked. */
#define E2E_NAME "atomic_private_single"
#include "e2e.h"

enum { N = 37, K = 7, M = 33 };

int main(void) {
  long *s = e2e_alloc(N * sizeof *s), *w = e2e_alloc(N * M * sizeof *w);
  int *a = e2e_alloc(N * sizeof *a), *cnt = e2e_alloc(N * K * sizeof *cnt);
  for (int i = 0; i < N; i++) a[i] = i * 5 % 11;
#pragma acc parallel loop gang vector_length(32) copyin(a[0:N]) copyout(s[0:N], w[0:N*M], cnt[0:N*K])
  for (int i = 0; i < N; i++) {
    long p = a[i] * 3, v, q = i;
#pragma acc atomic update
    p = p < 7 ? 7 : p;
#pragma acc atomic capture
    {
      p = p * (long)(-1);
      v = p;
    }
#pragma acc atomic update
    q += 5;
#pragma acc loop vector
    for (int k = 0; k < K; k++) cnt[i * K + k] = k;
    s[i] = v + p;
#pragma acc loop vector
    for (int j = 0; j < M; j++) w[i * M + j] = q + j;
  }
  for (int i = 0; i < N; i++) {
    long p = a[i] * 3 < 7 ? 7 : a[i] * 3;
    CHECK(s[i] == -2 * p, "s[%d] = %ld, want %ld", i, s[i], -2 * p);
    for (int k = 0; k < K; k++) CHECK(cnt[i * K + k] == k, "cnt[%d][%d] = %d", i, k, cnt[i * K + k]);
    for (int j = 0; j < M; j++) CHECK(w[i * M + j] == i + 5 + j, "w[%d][%d] = %ld", i, j, w[i * M + j]);
  }
  free(s), free(w), free(a), free(cnt);
  return e2e_finish();
}
