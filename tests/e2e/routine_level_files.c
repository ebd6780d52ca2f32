/* `vector` and `worker` routines defined in another file (OpenACC 3.3 §2.15), called from a
 * gang loop (vector-single and worker-single code) and from a worker loop: the defining
 * file exports a device version whose loops run sequentially, called by one thread where
 * the caller runs single (accc warns). Was: "calling 'scale_row', a 'vector' routine
 * defined in another file ... is not supported yet". Every element checked, odd sizes. */
/* e2e-also: routine_level_files/lib.c */
#define E2E_NAME "routine_level_files"
#include "e2e.h"
#include "routine_level_files/routines.h"

enum { N = 37, M = 45, G = 13, R = 5 };

int main(void) {
  static double a[N * M];
  static long b[G * R * M];
  for (int i = 0; i < N * M; i++) a[i] = i % 11;
#pragma acc parallel loop gang copy(a)
  for (int i = 0; i < N; i++) scale_row(&a[i * M], M, i + 1.0);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      double want = ((i * M + j) % 11) * (i + 1.0) + j;
      CHECK(a[i * M + j] == want, "a[%d][%d] = %g, want %g", i, j, a[i * M + j], want);
    }

#pragma acc parallel loop gang num_workers(4) copyout(b)
  for (int g = 0; g < G; g++) fill_block(&b[g * R * M], R, M, g * 100000L);
  for (int g = 0; g < G; g++)
    for (int r = 0; r < R; r++)
      for (int j = 0; j < M; j++) {
        long want = g * 100000L + r * 1000 + j;
        CHECK(b[(g * R + r) * M + j] == want, "b[%d][%d][%d] = %ld, want %ld", g, r, j, b[(g * R + r) * M + j], want);
      }

  /* From a worker loop: one call per row, by one lane of that row's worker. */
  for (int i = 0; i < N * M; i++) a[i] = 1.0;
#pragma acc parallel loop gang copy(a)
  for (int i = 0; i < N; i += 4) {
#pragma acc loop worker
    for (int k = 0; k < 4; k++)
      if (i + k < N) scale_row(&a[(i + k) * M], M, 2.0);
  }
  for (int i = 0; i < N * M; i++) CHECK(a[i] == 2.0 + i % M, "worker: a[%d] = %g", i, a[i]);
  return e2e_finish();
}
