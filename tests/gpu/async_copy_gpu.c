/* GPU only (the emulator runs every queue synchronously): async copies of more than 4 KiB
 * between malloc'ed memory and the device (runtime queue_copy.rs, opt-in through
 * ACCC_ASYNC_STAGED_COPIES=1, which main sets) return at once, without waiting for the
 * queue's earlier work, and still happen in the queue's order.
 *  - update device async(1) behind a long kernel on queue 1 returns while the kernel runs;
 *    the bytes land after the queue's earlier kernels (which wrote other values there) and
 *    before its later ones (which read them);
 *  - update self async(1) behind the kernel returns while it runs; after wait(1) the host
 *    holds what the queue computed;
 *  - a copy on queue 2 is not held up by queue 1's copy waiting for queue 1's kernel;
 *  - acc_malloc/acc_free while queue 1 waits for a copy do not deadlock.
 * Each at a size of several pieces (24 MiB and 40 bytes: six whole 4 MiB pieces and a tail)
 * and of one (80 KB). CUDA's own copies of pageable memory
 * wait for the queue at the call: every "returned while the kernel ran" check fails there. */
#include <openacc.h>
#include <string.h>
#include <time.h>
#define E2E_NAME "async_copy_gpu"
#include "../e2e/e2e.h"

typedef unsigned long long u64;

enum { WORK = 1 << 20, STEPS = 200000, TABLE = 1000 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* `k` dependent steps (integers: the same bits on the GPU and the host). */
#pragma acc routine seq
static u64 slow(u64 x, int k) {
  for (int j = 0; j < k; j++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

static u64 val(long i, int salt) { return (u64)i * 2654435761ULL + (u64)salt; }

static u64 table[TABLE];

/* Queue 1 busy for a while: w[j] = slow(w[j], STEPS), w[j] starting at j % TABLE. */
static void long_kernel(u64 *w) {
#pragma acc parallel loop present(w[0:WORK]) async(1)
  for (int j = 0; j < WORK; j++) w[j] = slow((u64)(j % TABLE), STEPS);
}

static void check_work(u64 *w, const char *when) {
#pragma acc update self(w[0:WORK])
  long bad = 0;
  for (int j = 0; j < WORK; j++) bad += w[j] != table[j % TABLE];
  CHECK(bad == 0, "%s: %ld elements of the long kernel's work are wrong", when, bad);
}

/* Upload behind the long kernel, then a kernel that reads it, then a download. */
static void in_order(u64 *w, u64 *a, long n) {
  for (long i = 0; i < n; i++) a[i] = val(i, 5);
  long_kernel(w);
#pragma acc parallel loop present(a[0:n]) async(1)
  for (long i = 0; i < n; i++) a[i] = 7 + (u64)i; /* overwritten by the upload below */
  double t0 = now_ms();
#pragma acc update device(a[0:n]) async(1)
  double t1 = now_ms();
  int early = acc_async_test(1);
#pragma acc parallel loop present(a[0:n]) async(1)
  for (long i = 0; i < n; i++) a[i] = a[i] * 3 + 1;
#pragma acc update self(a[0:n]) async(1)
  int early2 = acc_async_test(1);
  /* Device memory allocated and freed while the queue still has copies to make (a free may
   * wait for the device's work, which must get on without the host). */
  void *fresh = acc_malloc((size_t)n * 8 + 4099);
  CHECK(fresh != NULL, "n=%ld: acc_malloc failed", n);
  acc_free(fresh);
#pragma acc wait(1)
  double t2 = now_ms();
  CHECK(!early, "n=%ld: queue 1 was done when 'update device async(1)' returned (%.2f ms of %.2f): the copy waited for the queue", n, t1 - t0, t2 - t0);
  CHECK(!early2, "n=%ld: queue 1 was done when 'update self async(1)' returned: the copy waited for the queue", n);
  long bad = 0, first = -1;
  for (long i = 0; i < n; i++)
    if (a[i] != val(i, 5) * 3 + 1) bad++, first = first < 0 ? i : first;
  CHECK(bad == 0, "n=%ld: %ld elements wrong after the queue, first a[%ld] = %llu, want %llu", n, bad, first,
        first < 0 ? 0ULL : a[first], first < 0 ? 0ULL : val(first, 5) * 3 + 1);
  check_work(w, "in_order");
  printf("n=%ld: update device async returned after %.3f ms; the queue took %.3f ms\n", n, t1 - t0, t2 - t0);
}

/* A download on queue 1 waits for queue 1's kernel; a copy-in and a download on queue 2
 * meanwhile finish while that kernel still runs. */
static void queues_apart(u64 *w, u64 *a, u64 *b, long n) {
  for (long i = 0; i < n; i++) a[i] = 0, b[i] = val(i, 9);
#pragma acc parallel loop present(a[0:n]) async(1)
  for (long i = 0; i < n; i++) a[i] = val(i, 11);
  long_kernel(w);
#pragma acc update self(a[0:n]) async(1)
  double t0 = now_ms();
#pragma acc update device(b[0:n]) async(2)
#pragma acc parallel loop present(b[0:n]) async(2)
  for (long i = 0; i < n; i++) b[i] = b[i] ^ 0x5555ULL;
#pragma acc update self(b[0:n]) async(2)
#pragma acc wait(2)
  double t1 = now_ms();
  int busy = !acc_async_test(1);
#pragma acc wait(1)
  double t2 = now_ms();
  CHECK(busy, "n=%ld: queue 2 finished only after queue 1 (%.2f ms, queue 1 %.2f ms): queue 1's copy held it up", n, t1 - t0, t2 - t0);
  long bad_a = 0, bad_b = 0;
  for (long i = 0; i < n; i++) bad_a += a[i] != val(i, 11), bad_b += b[i] != (val(i, 9) ^ 0x5555ULL);
  CHECK(bad_a == 0 && bad_b == 0, "n=%ld: %ld elements of queue 1's download and %ld of queue 2's are wrong", n, bad_a, bad_b);
  check_work(w, "queues_apart");
  printf("n=%ld: queue 2 done after %.3f ms while queue 1 took %.3f ms\n", n, t1 - t0, t2 - t0);
}

int main(void) {
  setenv("ACCC_ASYNC_STAGED_COPIES", "1", 1); /* read at the first async copy */
  if (acc_get_device_type() == acc_device_host || getenv("ACC_DEVICE_TYPE")) {
    printf("FAIL %s: needs the GPU (acc_device_nvidia, ACC_DEVICE_TYPE unset)\n", E2E_NAME);
    return 1;
  }
  for (int j = 0; j < TABLE; j++) table[j] = slow((u64)j, STEPS);
  const long big = (3L << 20) + 5, mid = 10007;
  u64 *w = e2e_alloc(sizeof(u64) * WORK), *a = e2e_alloc(sizeof(u64) * big), *b = e2e_alloc(sizeof(u64) * big);
  memset(w, 0, sizeof(u64) * WORK);
#pragma acc enter data create(w[0:WORK], a[0:big], b[0:big])
  in_order(w, a, big);
  in_order(w, a, mid);
  queues_apart(w, a, b, big);
  queues_apart(w, a, b, mid);
#pragma acc exit data delete(w[0:WORK], a[0:big], b[0:big])
  free(w), free(a), free(b);
  return e2e_finish();
}
