/* Async kernels keep their own argument values and run in their queues' order however late
 * they run: the emulator holds a queue's kernels until something waits for it (runtime
 * emu_queue.rs), long after the host stub's argument slots were reused by the loop's next
 * launch or died with the function that launched. Every element is checked; the queues
 * depend on each other through wait clauses, a wait directive with async and a test loop. */
#define E2E_NAME "async_kernel_hold"
#include "e2e.h"
#include <openacc.h>

enum { N = 1003, R = 6 };

/* Launches on queue q and returns: its argument slots (n, f) die with this frame. */
static void scale_async(int *a, int n, int f, int q) {
#pragma acc parallel loop present(a[0:n]) async(q)
  for (int i = 0; i < n; i++) a[i] = a[i] * f + i % 7;
}

int main(void) {
  static int a[N], b[N], c[N];
  for (int i = 0; i < N; i++) a[i] = i, b[i] = -1, c[i] = -1;
#pragma acc enter data copyin(a[0:N]) create(b[0:N], c[0:N])
  /* Each launch of this loop reuses the stub's slot for k. */
  for (int k = 1; k <= R; k++) {
#pragma acc parallel loop present(a) async(1)
    for (int i = 0; i < N; i++) a[i] += k * (i % 5);
  }
  scale_async(a, N, 3, 1);
#pragma acc parallel loop present(a, b) wait(1) async(2)
  for (int i = 0; i < N; i++) b[i] = a[i] - 1;
#pragma acc wait(2) async(3)
#pragma acc parallel loop present(b, c) async(3)
  for (int i = 0; i < N; i++) c[i] = b[i] * 2 + (i & 1);
  long spins = 0;
  while (!acc_async_test(3)) spins++;
  long s = 0;
#pragma acc parallel loop present(c) reduction(+ : s) async(4)
  for (int i = 0; i < N; i++) s += c[i] % 11;
#pragma acc update self(c[0:N]) async(3)
#pragma acc wait(3, 4)
  long want_s = 0, bad_c = 0;
  for (int i = 0; i < N; i++) {
    int ai = (i + (R * (R + 1) / 2) * (i % 5)) * 3 + i % 7;
    int ci = (ai - 1) * 2 + (i & 1);
    bad_c += c[i] != ci;
    want_s += ci % 11;
  }
  CHECK(bad_c == 0, "%ld of %d elements of c wrong, c[1] = %d", bad_c, (int)N, c[1]);
  CHECK(s == want_s, "reduction on queue 4: %ld, want %ld", s, want_s);
#pragma acc exit data copyout(a[0:N]) delete(b[0:N], c[0:N])
  long bad_a = 0;
  for (int i = 0; i < N; i++) bad_a += a[i] != (i + (R * (R + 1) / 2) * (i % 5)) * 3 + i % 7;
  CHECK(bad_a == 0, "%ld of %d elements of a wrong, a[1] = %d", bad_a, (int)N, a[1]);

  /* Per-gang firstprivate copies (the launch's private area) are filled from c's device copy
   * when the kernel runs: before the update behind it on the same queue. */
  enum { G = 3 };
  int n = N;
  double *pc = malloc(sizeof(double) * n), *d = malloc(sizeof(double) * G * n);
  for (int i = 0; i < n; i++) pc[i] = 0.5 * i - 3;
#pragma acc enter data copyin(pc[0:n]) create(d[0:G * n])
#pragma acc parallel firstprivate(pc[0:n]) present(d[0:G * n]) num_gangs(G) async(5)
  {
#pragma acc loop gang
    for (int j = 0; j < G; j++)
#pragma acc loop vector
      for (int i = 0; i < n; i++) d[j * n + i] = pc[i] + j;
  }
  for (int i = 0; i < n; i++) pc[i] = -7;
#pragma acc update device(pc[0:n]) async(5)
#pragma acc exit data copyout(d[0:G * n]) delete(pc[0:n]) async(5)
#pragma acc wait(5)
  long bad_d = 0;
  for (int j = 0; j < G; j++)
    for (int i = 0; i < n; i++) bad_d += d[j * n + i] != 0.5 * i - 3 + j;
  CHECK(bad_d == 0, "%ld of %d elements of d wrong, d[1] = %g", bad_d, G * n, d[1]);
  free(pc);
  free(d);
  (void)spins;
  return e2e_finish();
}
