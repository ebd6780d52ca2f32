/* malloc, free and printf in device code (found by the OpenACC V&V suite's routine_gang,
 * whose seq routine mallocs; was "function 'malloc' is called in a compute region but has no
 * device version"). One kernel mallocs a block per iteration, of a size that differs per
 * iteration, and keeps its address in device memory; a second kernel reads every block
 * (iterations other than the one that wrote it) and frees it. printf in a kernel and in a
 * seq routine: stdout goes to a file for the kernel's duration and every line is checked
 * (on the GPU the driver prints a kernel's output when it finishes). */
#define E2E_NAME "device_libc"
#include <string.h>
#include <unistd.h>
#include "e2e.h"

#pragma acc routine seq
static long fill(long *p, int k, int i) {
  long s = 0;
  for (int j = 0; j < k; j++) {
    p[j] = (long)i * 1000 + j;
    s += p[j];
  }
  return s;
}

#pragma acc routine seq
static void say(int i, double x) {
  printf("routine %d %.2f\n", i, x);
}

int main(void) {
  enum { N = 301 };
  long *blocks[N];
  long sums[N], back[N];
#pragma acc data create(blocks) copyout(sums, back)
  {
#pragma acc parallel loop
    for (int i = 0; i < N; i++) {
      int k = 1 + i % 7;
      long *p = (long *)malloc(sizeof(long) * k);
      blocks[i] = p;
      sums[i] = p ? fill(p, k, i) : -1;
    }
#pragma acc parallel loop
    for (int i = 0; i < N; i++) {
      int j = N - 1 - i; /* another iteration's block */
      long *p = blocks[j];
      long s = 0;
      for (int t = 0; t < 1 + j % 7; t++) s += p[t];
      back[j] = s;
      free(p);
    }
  }
  for (int i = 0; i < N; i++) {
    long want = 0;
    for (int j = 0; j < 1 + i % 7; j++) want += (long)i * 1000 + j;
    CHECK(sums[i] == want, "sums[%d] = %ld, want %ld", i, sums[i], want);
    CHECK(back[i] == want, "back[%d] = %ld, want %ld", i, back[i], want);
  }

  /* printf: stdout to a file while the kernel runs. */
  char path[] = "/tmp/accc-device-libc-XXXXXX";
  int fd = mkstemp(path), saved = dup(1);
  CHECK(fd >= 0 && saved >= 0, "mkstemp/dup failed");
  fflush(stdout);
  dup2(fd, 1);
  int m = 5;
#pragma acc parallel loop copyin(m)
  for (int i = 0; i < 3 * m; i++) {
    if (i % m == 0) printf("kernel %d of %d: %ld %s\n", i, 3 * m, (long)i * i, "ok");
    if (i == 7) say(i, i / 4.0);
  }
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  FILE *f = fopen(path, "r");
  char line[128];
  int seen[4] = {0};
  while (f && fgets(line, sizeof line, f)) {
    if (!strcmp(line, "kernel 0 of 15: 0 ok\n")) seen[0]++;
    else if (!strcmp(line, "kernel 5 of 15: 25 ok\n")) seen[1]++;
    else if (!strcmp(line, "kernel 10 of 15: 100 ok\n")) seen[2]++;
    else if (!strcmp(line, "routine 7 1.75\n")) seen[3]++;
    else CHECK(0, "unexpected output line '%s'", line);
  }
  if (f) fclose(f);
  unlink(path);
  for (int i = 0; i < 4; i++) CHECK(seen[i] == 1, "output line %d printed %d times", i, seen[i]);
  return e2e_finish();
}
