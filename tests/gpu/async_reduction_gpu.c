/* GPU only: gang reductions on async queues do not make the host wait, and kernels of two
 * queues run at once (each queue has its own reduction scratch; the result comes back
 * through a page-locked slot in the queue's order), which the emulator cannot show.
 *  - The launch of a long reduction kernel on queue 1 returns before the kernel ends, the
 *    copy-back of its result too: acc_async_test(1) is 0 afterwards, and the result is
 *    right after wait(1).
 *  - Two such kernels on queues 1 and 2 take well under the time of the same two on one
 *    queue (they overlap), and both results are right.
 * Each kernel runs few gangs (half the multiprocessors at most) of a long dependent chain,
 * so two fit on the GPU at once; the chain's length is calibrated to about 200 ms. Under
 * compute-sanitizer (which serialises kernels and slows them) the timing checks are left
 * out. */
#include <openacc.h>
#include <string.h>
#include <time.h>
#define E2E_NAME "async_reduction_gpu"
#include "../e2e/e2e.h"

typedef unsigned long long u64;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* `k` dependent steps of a 64-bit LCG: affine in x, so the host gets the sum of n of them
 * from two chains (`expected`). */
static u64 slow(u64 x, long k) {
  for (long j = 0; j < k; j++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

/* The sum of slow(i + off, k) for i < n, mod 2^64. */
static u64 expected(int n, u64 off, long k) {
  u64 c = slow(0, k), a = slow(1, k) - c, s = 0;
  for (int i = 0; i < n; i++) s += c + a * ((u64)i + off);
  return s;
}

static int gangs, n;

/* One reduction kernel of `k` steps per iteration on queue q (acc_async_sync: synchronous). */
static void reduce_on(u64 *s, u64 off, long k, int q) {
#pragma acc parallel loop num_gangs(gangs) vector_length(128) reduction(+:s[0:1]) async(q)
  for (int i = 0; i < n; i++) s[0] += slow((u64)i + off, k);
}

int main(void) {
  if (acc_get_device_type() == acc_device_host || getenv("ACC_DEVICE_TYPE")) {
    printf("FAIL %s: needs the GPU (acc_device_nvidia, ACC_DEVICE_TYPE unset)\n", E2E_NAME);
    return 1;
  }
  const char *pre = getenv("LD_PRELOAD");
  int tool = getenv("CUDA_INJECTION64_PATH") || (pre && strstr(pre, "sanitizer"));
  /* 32 gangs: two kernels fit on any GPU of 64 multiprocessors or more (the H100 has 132). */
  gangs = 32, n = gangs * 128;
  /* Calibrate: the chain length that takes about 200 ms (synchronously). */
  long k = tool ? 2000 : 20000;
  u64 s = 0;
  reduce_on(&s, 0, k, acc_async_sync); /* loads the module */
  double t0, t;
  for (;;) {
    t0 = now_ms();
    s = 0;
    reduce_on(&s, 0, k, acc_async_sync);
    t = now_ms() - t0;
    /* Long enough that the launch overhead does not dominate the measurement. */
    if (tool || t >= 20 || k >= 1000000000L) break;
    k *= 10;
  }
  CHECK(s == expected(n, 0, k), "synchronous: sum %llu want %llu", s, expected(n, 0, k));
  if (!tool && t > 0) k = (long)(k * 200.0 / t);
  printf("%s: %d gangs x 128, chain of %ld steps (calibration: %.2f ms)\n", E2E_NAME, gangs, k, t);

  /* One queue: the launch and the result's copy-back return at once. */
  u64 s1 = 0, s2 = 0;
  t0 = now_ms();
  reduce_on(&s1, 1, k, 1);
  double launched = now_ms() - t0;
  int early = acc_async_test(1);
  u64 host_work = expected(n, 1, k); /* the host's own work meanwhile */
#pragma acc wait(1)
  double done = now_ms() - t0;
  CHECK(!early, "queue 1 was done when the reduction's launch returned (%.2f ms of %.2f): the launch or its copy-back waited", launched, done);
  CHECK(s1 == host_work, "queue 1: sum %llu want %llu", s1, host_work);
  printf("%s: reduction launch returned after %.3f ms; the kernel took %.3f ms\n", E2E_NAME, launched, done);

  /* Both on queue 1 (one after the other), then one on each of queues 1 and 2 (at once). */
  s1 = s2 = 0;
  t0 = now_ms();
  reduce_on(&s1, 2, k, 1);
  reduce_on(&s2, 3, k, 1);
#pragma acc wait(1)
  double serial = now_ms() - t0;
  CHECK(s1 == expected(n, 2, k) && s2 == expected(n, 3, k), "one queue: sums %llu %llu", s1, s2);
  s1 = s2 = 0;
  t0 = now_ms();
  reduce_on(&s1, 2, k, 1);
  reduce_on(&s2, 3, k, 2);
  double both_launched = now_ms() - t0;
  int busy = !acc_async_test(1) && !acc_async_test(2);
#pragma acc wait
  double parallel = now_ms() - t0;
  CHECK(s1 == expected(n, 2, k), "queue 1 beside queue 2: sum %llu want %llu", s1, expected(n, 2, k));
  CHECK(s2 == expected(n, 3, k), "queue 2 beside queue 1: sum %llu want %llu", s2, expected(n, 3, k));
  CHECK(busy, "a queue was done when both launches had returned (%.2f ms): a launch waited", both_launched);
  printf("%s: two kernels on one queue %.2f ms, on two queues %.2f ms\n", E2E_NAME, serial, parallel);
  if (!tool)
    CHECK(parallel < 0.75 * serial, "two queues took %.2f ms, one queue %.2f ms: the reduction kernels did not overlap", parallel, serial);
  return e2e_finish();
}
