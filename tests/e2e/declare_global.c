/* declare at file scope (OpenACC 3.3 §2.13): globals present on the device for the whole
 * program, used by compute regions without a data clause, directly and in called functions.
 * copyin copies the initial value (a host write before the first OpenACC operation does not
 * reach the device), create and device_resident allocate only, link globals are on the
 * device only while a data clause maps them, and update moves declared data both ways. On
 * the host path (shared memory) the host values are the device's, and the checks say so. */
#define E2E_NAME "declare_global"
#include "e2e.h"
#include <openacc.h>

#define N 1001 /* odd */
int g_scale = 42;
int g_tab[5] = {1, 2, 3, 4, 5};
float g_out[N];
int g_zero[7];
double g_resident[13];
int g_link[N];
#pragma acc declare copyin(g_scale, g_tab) create(g_out)
#pragma acc declare copyin(g_zero) device_resident(g_resident)
#pragma acc declare link(g_link)

/* Called from compute regions: reads declared globals (their device copies). */
static int scaled(int i) { return i * g_scale + g_tab[i % 5]; }
__attribute__((noinline)) static void put(int i, float v) { g_out[i] = v; }
static int linked(int i) { return g_link[i] * 2; }

/* default(none): a declared global needs no clause. */
static void bump_even(void) {
#pragma acc parallel loop default(none)
  for (int i = 0; i < N; i += 2) g_out[i] += 1.0f;
}

int main(void) {
  /* Before any OpenACC operation: the device keeps the initial 42 (separate memory). */
  g_scale = 7;
  g_zero[3] = 9;
  int host = acc_get_device_type() == acc_device_host;
  int sep = !host;
  CHECK(acc_is_present(&g_scale, sizeof g_scale) && acc_is_present(g_out, sizeof g_out), "declared globals not present");
  CHECK(!sep || !acc_is_present(g_link, sizeof g_link), "a link global is present before a data clause maps it");

  int *out = e2e_alloc(sizeof(int) * N);
#pragma acc parallel loop copyout(out[0:N])
  for (int i = 0; i < N; i++) out[i] = scaled(i) + g_zero[3];
  for (int i = 0; i < N; i++) {
    int want = i * (sep ? 42 : 7) + (i % 5) + 1 + (sep ? 0 : 9);
    if (out[i] != want) {
      CHECK(0, "callee with copyin globals: out[%d]=%d want %d", i, out[i], want);
      break;
    }
  }

  /* create: written on the device, by a callee and directly; the host copy changes only
   * through update self. */
  for (int i = 0; i < N; i++) g_out[i] = -1.0f;
#pragma acc parallel loop
  for (int i = 0; i < N; i++) put(i, 0.5f * (float)i);
  if (sep) CHECK(g_out[3] == -1.0f, "create: host g_out[3]=%g changed without update", g_out[3]);
  bump_even();
#pragma acc update self(g_out)
  for (int i = 0; i < N; i++) {
    float want = 0.5f * (float)i + (i % 2 == 0 ? 1.0f : 0.0f);
    if (g_out[i] != want) {
      CHECK(0, "create + update self: g_out[%d]=%g want %g", i, g_out[i], want);
      break;
    }
  }

  /* update device of a declared scalar; a serial region reads it directly. */
  g_scale = 3;
#pragma acc update device(g_scale)
  int seen = 0;
#pragma acc serial copyout(seen)
  seen = g_scale * 10 + g_tab[4];
  CHECK(seen == 35, "update device(g_scale): seen %d want 35", seen);

  /* device_resident: device-only scratch, through a reduction-free pair of regions. */
#pragma acc parallel loop
  for (int i = 0; i < 13; i++) g_resident[i] = 1.5 * i;
  double total = 0;
#pragma acc parallel loop reduction(+:total)
  for (int i = 0; i < 13; i++) total += g_resident[i];
  CHECK(total == 1.5 * 78, "device_resident: total %g want %g", total, 1.5 * 78);

  /* link: mapped by a data construct, used by a callee and directly inside it. */
  for (int i = 0; i < N; i++) g_link[i] = i;
#pragma acc data copy(g_link)
  {
#pragma acc parallel loop copyout(out[0:N])
    for (int i = 0; i < N; i++) out[i] = linked(i);
#pragma acc parallel loop
    for (int i = 0; i < N; i++) g_link[i] += 1;
    if (sep) CHECK(g_link[5] == 5, "link: g_link[5]=%d changed before the copy-out", g_link[5]);
  }
  for (int i = 0; i < N; i++) {
    if (out[i] != 2 * i || g_link[i] != i + 1) {
      CHECK(0, "link: out[%d]=%d g_link[%d]=%d want %d, %d", i, out[i], i, g_link[i], 2 * i, i + 1);
      break;
    }
  }
  CHECK(!sep || !acc_is_present(g_link, sizeof g_link), "a link global stays present after its data construct");

  /* Data clauses on declared globals count on top of the declaration: still present after. */
#pragma acc data copy(g_out)
  {
  }
#pragma acc exit data delete(g_out) finalize
  CHECK(acc_is_present(g_out, sizeof g_out), "a declared global was freed by an exit");
  free(out);
  return e2e_finish();
}
