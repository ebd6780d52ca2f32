/* A program may end with async work it never waited for (OpenACC asks no wait before the
 * end): the runtime must end it quietly, with its own status. Here a kernel and a copy-out
 * on queue 1 are never waited for, and the memory pool holds a free block at the end (the
 * data region's), whose release at exit frees device memory. On the emulator, whose queues
 * hold their work until something waits, that release once ran the held kernel from the exit
 * handler, after the thread's thread-locals were gone, and the program aborted (status 134)
 * after printing PASS. The async work is enqueued by a second thread, the main thread having
 * run only synchronous kernels: the main thread ends the program and runs the handlers. */
#define E2E_NAME "async_exit_unwaited"
#include "e2e.h"
#include <pthread.h>

enum { N = 1001, M = 100003 };

static double *b;

static void *enqueue_unwaited(void *unused) {
  (void)unused;
#pragma acc enter data copyin(b[0:M])
#pragma acc parallel loop present(b[0:M]) async(1)
  for (int i = 0; i < M; i++) b[i] = 2 * i;
#pragma acc exit data copyout(b[0:M]) async(1)
  return NULL;
}

int main(void) {
  double *a = malloc(sizeof(double) * N);
  b = malloc(sizeof(double) * M);
  for (int i = 0; i < N; i++) a[i] = i;
  for (int i = 0; i < M; i++) b[i] = -1;
#pragma acc data copy(a[0:N])
  {
#pragma acc parallel loop
    for (int i = 0; i < N; i++) a[i] += 1;
  }
  long bad = 0;
  for (int i = 0; i < N; i++) bad += a[i] != i + 1;
  CHECK(bad == 0, "%ld of %d elements of a wrong", bad, (int)N);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, enqueue_unwaited, NULL) == 0, "pthread_create failed");
  pthread_join(t, NULL);
  /* No wait: the program ends with queue 1's work pending. */
  return e2e_finish();
}
