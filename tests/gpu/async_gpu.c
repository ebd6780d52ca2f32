/* GPU only (scripts/gpu-test builds tests/gpu/ beside tests/e2e/): what the emulator, which
 * runs every queue synchronously, cannot show about async queues.
 *  - An async launch returns before its kernel is done (acc_async_test says "not yet"),
 *    and a wait then sees it done.
 *  - Two queues run side by side: wait(1) async(2) orders them without the host waiting.
 *  - exit data delete async on another queue while a kernel still reads the data: the
 *    device copy is freed only after the kernel (compute-sanitizer's memcheck sees a use
 *    after free otherwise).
 *  - A kernel that faults on a queue is reported, naming it and its queue, at the wait
 *    that sees it, and at the end of the program when nothing waits (child processes; not
 *    under compute-sanitizer, which would count the deliberate fault). */
#include <openacc.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define E2E_NAME "async_gpu"
#include "../e2e/e2e.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

typedef unsigned long long u64;

/* What the long kernel computes from x: `k` dependent steps (integers: the same bits on the
 * GPU and the host). */
static u64 slow(u64 x, int k) {
  for (int j = 0; j < k; j++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

static void overlap(u64 *a, u64 *b, int n, int k) {
  double t0 = now_ms();
#pragma acc parallel loop present(a[0:n], b[0:n]) async(1)
  for (int i = 0; i < n; i++) b[i] = slow(a[i], k);
  double t1 = now_ms();
  int early = acc_async_test(1);
#pragma acc wait(1)
  double t2 = now_ms();
  CHECK(!early, "queue 1 was done when the async launch returned (%.2f ms of %.2f): the launch waited", t1 - t0, t2 - t0);
  CHECK(acc_async_test(1) != 0, "queue 1 not done after wait(1)");
  printf("async launch returned after %.3f ms; the kernel took %.3f ms\n", t1 - t0, t2 - t0);
}

static void ordered_queues(u64 *a, u64 *b, int n, int k) {
  /* Queue 2 waits for queue 1 through an event: b = slow(a), then a = b + 1. */
#pragma acc parallel loop present(a[0:n], b[0:n]) async(1)
  for (int i = 0; i < n; i++) b[i] = slow(a[i], k);
#pragma acc parallel loop present(a[0:n], b[0:n]) async(2) wait(1)
  for (int i = 0; i < n; i++) a[i] = b[n - 1 - i] + 1;
  /* Freed on queue 3 while queue 2 may still read b: the release waits for queue 2. */
#pragma acc exit data copyout(a[0:n]) async(2)
#pragma acc exit data delete(b[0:n]) async(3)
#pragma acc wait
  int bad = 0;
  for (int i = 0; i < n && !bad; i++) {
    u64 want = slow((u64)((n - 1 - i) % 1000), k) + 1;
    if (a[i] != want) {
      CHECK(0, "a[%d] is %llu, want %llu: queue 2 ran before queue 1 was done", i, a[i], want);
      bad = 1;
    }
  }
}

/* The child: a kernel writing through a pointer that is no device memory, on queue 1. */
static int fault(const char *how) {
  int *p = (int *)(uintptr_t)16;
  int n = 1000;
#pragma acc parallel loop deviceptr(p) async(1)
  for (int i = 0; i < n; i++) p[i] = i;
  if (!strcmp(how, "wait")) {
#pragma acc wait(1)
  }
  return 0;
}

/* Runs this program with `how`; its exit status and stderr (at most `cap` bytes). */
static int child(const char *self, const char *how, char *err, size_t cap) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 2);
    close(fd[0]);
    execl("/proc/self/exe", self, "fault", how, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t len = 0;
  ssize_t r;
  while (len + 1 < cap && (r = read(fd[0], err + len, cap - 1 - len)) > 0) len += (size_t)r;
  err[len] = 0;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void faults_are_reported(const char *self) {
  static char err[4096];
  int rc = child(self, "wait", err, sizeof err);
  CHECK(rc == 1 && strstr(err, "cuStreamSynchronize failed for kernel 'fault_l") && strstr(err, "on async queue 1 (seen by the wait at"),
        "fault seen by wait(1): exit %d, stderr: %s", rc, err);
  rc = child(self, "exit", err, sizeof err);
  CHECK(rc == 1 && strstr(err, "failed for kernel 'fault_l") && strstr(err, "(seen by the end of the program)"),
        "fault nobody waited for: exit %d, stderr: %s", rc, err);
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "fault")) return fault(argv[2]);
  if (acc_get_device_type() == acc_device_host || getenv("ACC_DEVICE_TYPE")) {
    printf("FAIL %s: needs the GPU (acc_device_nvidia, ACC_DEVICE_TYPE unset)\n", E2E_NAME);
    return 1;
  }
  int n = 1 << 20, k = 20000;
  u64 *a = e2e_alloc(sizeof(u64) * n), *b = e2e_alloc(sizeof(u64) * n);
  for (int i = 0; i < n; i++) a[i] = i % 1000, b[i] = 0;
#pragma acc enter data copyin(a[0:n]) create(b[0:n])
  overlap(a, b, n, k);
  ordered_queues(a, b, n, k);
  const char *pre = getenv("LD_PRELOAD");
  if (getenv("CUDA_INJECTION64_PATH") || (pre && strstr(pre, "sanitizer")))
    printf("async_gpu: under a CUDA tool: the fault checks are left out\n");
  else
    faults_are_reported(argv[0]);
  free(a), free(b);
  return e2e_finish();
}
