/* GPU smoke test of libaccrt.a: needs a CUDA GPU and driver. The kernel is saxpy.ll
 * compiled to PTX by llc-22 (cuModuleLoadData accepts PTX as well as cubin).
 *   ./gpu_smoke            data clauses, refcounts, update, deviceptr, launches
 *   ./gpu_smoke present|partial|notpresent|badkernel|fault   one expected error, exit 1 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "accrt.h"
#include "saxpy_ptx.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "gpu_smoke: FAILED line %d: %s\n", __LINE__, #c); return 1; } } while (0)
enum { N = 100000 };
static float x[N], y[N];

static accrt_kernel k = { ptx, sizeof ptx, "saxpy", "main", "gpu_smoke.c:20:3", 0 };

static void saxpy(int64_t g, int64_t w, int64_t v, int n, float a) {
  void *dx = __accrt_deviceptr(x, "gpu_smoke.c:22:1", "x");
  void *dy = __accrt_deviceptr(y, "gpu_smoke.c:22:1", "y");
  void *args[] = { &n, &a, &dx, &dy };
  __accrt_launch(&k, g, w, v, args);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
  CHECK(__accrt_use_device() == 1);
  const long B = sizeof x;
  if (!strcmp(mode, "present")) {
    __accrt_data_enter(y, B, ACCRT_PRESENT, "t.c:5:9", "y[0:n]");
    return 0;
  }
  if (!strcmp(mode, "partial")) {
    __accrt_data_enter(x, B / 2, ACCRT_COPYIN, "t.c:6:9", "x[0:n/2]");
    __accrt_data_enter(x + N / 4, B / 2, ACCRT_COPYIN, "t.c:7:9", "x[n/4:n/2]");
    return 0;
  }
  if (!strcmp(mode, "notpresent")) {
    __accrt_deviceptr(x, "t.c:8:9", "x");
    return 0;
  }
  if (!strcmp(mode, "fault")) {
    int n = 10; float a = 1; void *p = (void *)8;
    void *args[] = { &n, &a, &p, &p };
    __accrt_launch(&k, 0, 0, 0, args);
    return 0;
  }
  if (!strcmp(mode, "badkernel")) {
    k.name = "nosuchkernel";
    int n = 0; float a = 0; void *p = 0;
    void *args[] = { &n, &a, &p, &p };
    __accrt_launch(&k, 0, 0, 0, args);
    return 0;
  }

  __accrt_data_enter(x, B, ACCRT_COPYIN, "t.c:10:9", "x[0:n]");
  __accrt_data_enter(y, B, ACCRT_COPY, "t.c:10:9", "y[0:n]");
  __accrt_data_enter(y, B, ACCRT_COPY, "t.c:11:9", "y[0:n]");       /* nested: refcount 2 */
  __accrt_data_enter(y + 10, 40, ACCRT_PRESENT, "t.c:12:9", "y[10:10]"); /* sub-range */
  __accrt_data_exit(y + 10, 40, ACCRT_PRESENT, "t.c:12:9", "y[10:10]");
  char *dx = __accrt_deviceptr(x, "t.c:13:1", "x");
  CHECK(dx != (char *)x && dx != NULL);
  char *dy = __accrt_deviceptr(y, "t.c:13:1", "y");
  /* One past the end (x + N may be y's start: then y's range wins, so test y's end). */
  CHECK(__accrt_deviceptr(y + N, "t.c:13:1", "y") == dy + B);
  CHECK(__accrt_deviceptr(x + 7, "t.c:13:1", "x") == dx + 28);
  float *z = malloc(64); /* not adjacent to x or y */
  __accrt_data_enter(z, 0, ACCRT_COPYIN, "t.c:14:9", "z[0:0]");
  CHECK(__accrt_deviceptr(z, "t.c:14:1", "z") == NULL);             /* zero length */
  __accrt_data_exit(z, 0, ACCRT_COPYIN, "t.c:14:9", "z[0:0]");

  saxpy(0, 0, 0, N, 2.0f);             /* defaults */
  saxpy(3, 16, 2048, N, 1.0f);         /* clamped block */
  __accrt_data_exit(y, B, ACCRT_COPY, "t.c:11:9", "y[0:n]");        /* refcount 1: no copy */
  CHECK(y[5] == 1.0f);
  __accrt_update_self(y + 5, 4, 0, "t.c:15:9", "y[5:1]");
  CHECK(y[5] == 16.0f);
  CHECK(y[6] == 1.0f);
  y[6] = 100.0f;
  __accrt_update_device(y + 6, 4, 0, "t.c:16:9", "y[6:1]");
  __accrt_data_exit(y, B, ACCRT_COPY, "t.c:10:9", "y[0:n]");        /* last: copy back */
  __accrt_data_exit(x, B, ACCRT_COPYIN, "t.c:10:9", "x[0:n]");
  for (int i = 0; i < N; i++) {
    float want = i == 6 ? 100.0f : 1.0f + 3.0f * (float)i;
    if (y[i] != want) { fprintf(stderr, "y[%d] = %g, want %g\n", i, y[i], want); return 1; }
  }
  /* Everything was freed: x is no longer present. Re-entering works. */
  __accrt_data_enter(x, B, ACCRT_CREATE, "t.c:17:9", "x[0:n]");
  __accrt_data_exit(x, B, ACCRT_DELETE, "t.c:17:9", "x[0:n]");
  printf("gpu_smoke: ok\n");
  return 0;
}
