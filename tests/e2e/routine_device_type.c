/* device_type clause sets on `routine` (OpenACC 3.3 §2.15.1, §2.4): the set naming nvidia
 * decides the routine's level over a `*` set and the defaults (the parallelism is one
 * decision: an nvidia set's `vector` drops a `*` set's `seq`), sets of other types are
 * dropped. A vector routine's loop spreads over the caller's lanes; a seq one runs on the
 * calling thread. */
#define E2E_NAME "routine_device_type"
#include "e2e.h"

enum { N = 301, G = 7 };

#pragma acc routine device_type(nvidia) seq device_type(host) seq
static int square(int x) { return x * x; }

#pragma acc routine device_type(nvidia) vector device_type(*) seq
static void fill_row(int *row, int n, int k) {
#pragma acc loop vector
  for (int i = 0; i < n; i++) row[i] = k * n + i + square(i % 5);
}

#pragma acc routine dtype(radeon) worker dtype(*) vector
static void add_row(int *row, int n) {
#pragma acc loop vector
  for (int i = 0; i < n; i++) row[i] += 1;
}

int main(void) {
  int *a = e2e_alloc(sizeof(int) * G * N);
  for (int i = 0; i < G * N; i++) a[i] = -1;
#pragma acc parallel loop gang num_gangs(3) vector_length(32) copy(a[0:G * N])
  for (int k = 0; k < G; k++) {
    fill_row(a + k * N, N, k);
    add_row(a + k * N, N);
  }
  for (int k = 0; k < G; k++)
    for (int i = 0; i < N; i++) {
      int want = k * N + i + (i % 5) * (i % 5) + 1;
      CHECK(a[k * N + i] == want, "a[%d][%d]=%d want %d", k, i, a[k * N + i], want);
    }
  free(a);
  return e2e_finish();
}
