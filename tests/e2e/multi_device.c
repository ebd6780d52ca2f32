/* Several devices in one process (OpenACC 3.3 §2.3, §3.2.4): each device has its own present
 * table, queues and kernels; acc_set_device_num picks the calling host thread's device;
 * acc_memcpy_d2d copies between two devices; threads that each set their own device work
 * side by side. On the emulator the program asks for two devices (ACCC_EMU_DEVICES=2); on a
 * machine with one GPU (or the host path) "device 1" is device 0 again, and the checks that
 * need two devices are skipped. */
#include <openacc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#define E2E_NAME "multi_device"
#include "e2e.h"

enum { N = 1001, THREAD_N = 777 };

static double a[N], b[N];

struct job {
  int dev;
  int seen_dev;
  int ok;
};

/* A host thread that uses device `dev` for a whole data region and two kernels whose lanes
 * read their neighbours. */
static void *worker(void *arg) {
  struct job *j = arg;
  acc_set_device_num(j->dev, acc_get_device_type());
  j->seen_dev = acc_get_device_num(acc_get_device_type());
  int *v = malloc(THREAD_N * sizeof *v);
  int *w = malloc(THREAD_N * sizeof *w);
  for (int i = 0; i < THREAD_N; i++) v[i] = i * (j->dev + 2);
#pragma acc data copyin(v[0:THREAD_N]) copyout(w[0:THREAD_N])
  {
#pragma acc parallel loop
    for (int i = 0; i < THREAD_N; i++) w[i] = v[(i + 1) % THREAD_N] - v[i];
  }
  j->ok = 1;
  for (int i = 0; i < THREAD_N; i++) {
    int want = ((i + 1) % THREAD_N) * (j->dev + 2) - i * (j->dev + 2);
    if (w[i] != want) j->ok = 0;
  }
  free(v);
  free(w);
  return NULL;
}

int main(void) {
  setenv("ACCC_EMU_DEVICES", "2", 0);
  acc_device_t type = acc_get_device_type();
  int ndev = acc_get_num_devices(type);
  CHECK(ndev >= 1, "acc_get_num_devices: %d", ndev);
  int d0 = 0, d1 = ndev > 1 ? 1 : 0;
  int two = d1 != d0;
  int host = acc_on_device(acc_device_host);
  size_t bytes = sizeof a;

  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 3 * i + 1;
  }
  acc_set_device_num(d0, type);
  CHECK(acc_get_device_num(type) == d0, "device %d after acc_set_device_num(%d)", acc_get_device_num(type), d0);
#pragma acc enter data copyin(a[0:N])
#pragma acc set device_num(d1)
  CHECK(acc_get_device_num(type) == d1, "device %d after acc_set_device_num(%d)", acc_get_device_num(type), d1);
  if (two && !host) CHECK(!acc_is_present(a, bytes), "a (mapped on device 0) is present on device 1");
#pragma acc enter data copyin(b[0:N])
  if (two && !host) {
    acc_set_device_num(d0, type);
    CHECK(!acc_is_present(b, bytes), "b (mapped on device 1) is present on device 0");
    acc_set_device_num(d1, type);
  }

  /* A kernel on each device, each on the data of its own table. */
#pragma acc parallel loop present(b[0:N])
  for (int i = 0; i < N; i++) b[i] = 2 * b[i] + (i % 7);
  acc_set_device_num(d0, type);
#pragma acc parallel loop present(a[0:N])
  for (int i = 0; i < N; i++) a[i] = a[i] + b[N - 1 - i] * 0; /* b's host copy: unchanged */

  /* Device 1's b into device 0's a (a device-to-device copy between devices). */
  if (two) {
    acc_memcpy_d2d(a, b, bytes, d0, d1);
#pragma acc update self(a[0:N])
    for (int i = 0; i < N; i++) {
      double want = 2 * (3.0 * i + 1) + (i % 7);
      CHECK(a[i] == want, "a[%d] after acc_memcpy_d2d: %g, want %g", i, a[i], want);
    }
  } else {
#pragma acc update self(a[0:N])
    for (int i = 0; i < N; i++) CHECK(a[i] == i, "a[%d]: %g", i, a[i]);
  }
#pragma acc exit data delete(a[0:N])
  acc_set_device_num(d1, type);
#pragma acc exit data copyout(b[0:N])
  for (int i = 0; i < N; i++) {
    double want = 2 * (3.0 * i + 1) + (i % 7);
    CHECK(b[i] == want, "b[%d]: %g, want %g", i, b[i], want);
  }
  if (!host) CHECK(!acc_is_present(b, bytes), "b still present after its exit");

  /* One host thread per device, concurrently. */
  pthread_t t[2];
  struct job jobs[2] = {{d0, -1, 0}, {d1, -1, 0}};
  for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, worker, &jobs[k]);
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  for (int k = 0; k < 2; k++) {
    CHECK(jobs[k].seen_dev == jobs[k].dev, "thread %d sees device %d", k, jobs[k].seen_dev);
    CHECK(jobs[k].ok, "thread %d (device %d): wrong results", k, jobs[k].dev);
  }
  /* This thread's device is still d1: a thread's choice is its own. */
  CHECK(acc_get_device_num(type) == d1, "main thread's device changed to %d", acc_get_device_num(type));
  return e2e_finish();
}
