/* GPU only: two kernels on two async queues, each with its own device copy of one `link`
 * global that functions they call use. Device code reaches such a global through one slot
 * per global (<g>.acc.dev), which each kernel sets to its copy's address when it starts; had
 * the two kernels run at once, each would have used the other's copy at times (queue 1's
 * kernel reading queue 2's values, queue 2's kernel writing into queue 1's copy). A kernel
 * that sets a link global's slot is therefore waited for at its launch (the runtime's
 * ACCRT_KERNEL_LINK_SLOT), and both answers are right. The emulator runs queues one after
 * the other, so only the GPU can show it. */
#include <openacc.h>
#define E2E_NAME "link_slot_async"
#include "../e2e/e2e.h"

typedef unsigned long long u64;
#define M 4096
int g_link[M];
#pragma acc declare link(g_link)

__attribute__((noinline)) static int lk(int i) { return g_link[i]; }
__attribute__((noinline)) static void lset(int i, int v) { g_link[i] = v; }

/* k dependent steps, each reading the link global through lk. */
static u64 mix(int i, int k) {
  u64 x = (u64)i;
  for (int j = 0; j < k; j++) x = x * 6364136223846793005ULL + (u64)lk((i + j) % M);
  return x;
}

int main(void) {
  if (acc_get_device_type() == acc_device_host || getenv("ACC_DEVICE_TYPE")) {
    printf("FAIL %s: needs the GPU (acc_device_nvidia, ACC_DEVICE_TYPE unset)\n", E2E_NAME);
    return 1;
  }
  const int n = 1024, k = 100000, kb = 20000;
  u64 *a = e2e_alloc(sizeof(u64) * n), *want_a = e2e_alloc(sizeof(u64) * n);
  long long *b = e2e_alloc(sizeof(long long) * n);
  for (int i = 0; i < M; i++) g_link[i] = i + 1;
  for (int i = 0; i < n; i++) want_a[i] = mix(i, k);

  /* Queue 1: a long kernel on few gangs (the rest of the GPU stays free for queue 2), reading
   * the host's values of g_link from its copy. */
#pragma acc parallel loop async(1) copyin(g_link) copyout(a[0:n]) num_gangs(8) vector_length(128)
  for (int i = 0; i < n; i++) a[i] = mix(i, k);
  /* Queue 2: a copy of its own (create), written and read by the kernel. */
#pragma acc parallel loop async(2) create(g_link) copyout(b[0:n]) num_gangs(8) vector_length(128)
  for (int i = 0; i < n; i++) {
    lset(i, -1 - i);
    long long s = 0;
    for (int j = 0; j < kb; j++) s += lk(i);
    b[i] = s;
  }
#pragma acc wait

  int bad_a = 0, bad_b = 0;
  for (int i = 0; i < n; i++) {
    if (!bad_a && a[i] != want_a[i]) {
      CHECK(0, "queue 1: a[%d] is %llu, want %llu: it read another copy of g_link", i, a[i], want_a[i]);
      bad_a = 1;
    }
    long long want = (long long)kb * (-1 - i);
    if (!bad_b && b[i] != want) {
      CHECK(0, "queue 2: b[%d] is %lld, want %lld: it used another copy of g_link", i, b[i], want);
      bad_b = 1;
    }
  }
  free(a), free(want_a), free(b);
  return e2e_finish();
}
