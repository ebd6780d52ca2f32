/* ACC_TIME on the GPU: every kernel is timed with CUDA events, including when the program's
 * first OpenACC operation is a data directive (the summary's exit handler must run before
 * the CUDA driver's own: registered first, it found the driver shut down and left every
 * kernel "untimed"). The program runs itself with ACC_TIME=1 and checks the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define E2E_NAME "acc_time_gpu"
#include "../e2e/e2e.h"

enum { N = 1 << 20 };

static int child(void) {
  double *x = malloc(N * sizeof *x);
  for (int i = 0; i < N; i++) x[i] = i % 7;
  long bad = 0;
#pragma acc enter data copyin(x[0:N])
  for (int r = 0; r < 3; r++) {
#pragma acc parallel loop reduction(+:bad) present(x[0:N])
    for (int i = 0; i < N; i++) bad += x[i] != i % 7;
  }
#pragma acc exit data delete(x[0:N])
  free(x);
  return bad != 0;
}

int main(int argc, char **argv) {
  if (getenv("ACC_TIME_GPU_CHILD")) return child();
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "ACC_TIME=1 ACC_TIME_GPU_CHILD=1 '%s' 2>&1", argv[0]);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL, "popen failed");
  char line[512], kernels[512] = "";
  while (p && fgets(line, sizeof line, p)) {
    fputs(line, stderr); /* the child's ACC_NOTIFY launch lines count as this test's */
    if (strstr(line, "total: kernels:")) snprintf(kernels, sizeof kernels, "%s", line);
  }
  int status = p ? pclose(p) : -1;
  CHECK(status == 0, "the timed run failed (status %d)", status);
  CHECK(strstr(kernels, "3 launches") != NULL, "no kernel total for 3 launches: '%s'", kernels);
  CHECK(strstr(kernels, "timed)") == NULL, "kernels left untimed: '%s'", kernels);
  long us = -1;
  const char *c = strstr(kernels, "launches, ");
  if (c) us = strtol(c + strlen("launches, "), NULL, 10);
  CHECK(us > 0, "kernel time %ld us: '%s'", us, kernels);
  /* The same work in this process too: gpu-test's memcheck watches this process only, and
   * one that never calls CUDA gives compute-sanitizer nothing to report on. */
  CHECK(child() == 0, "the untimed run in this process went wrong");
  return e2e_finish();
}
