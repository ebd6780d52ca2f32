/* Loop counters declared before the region, as Rodinia's Needleman-Wunsch writes them
 * (`int idx, index; ... for (idx = 0; idx <= i; idx++) { index = ...; }`): the loop
 * variable of a loop construct is private (OpenACC 3.3 §2.6.1), and in `kernels` a scalar
 * the region writes before reading, and nobody reads after it, is private too instead of
 * one `copy` cell shared by every thread. Also the counter's value after an inner loop,
 * used on the device. */
#define E2E_NAME "outer_iv"
#include "e2e.h"

static int max3(int a, int b, int c) {
  int k = a > b ? a : b;
  return k > c ? k : c;
}

/* The anti-diagonal sweep of NW's top-left half, on a small odd matrix. */
static void nw_ref(int *m, const int *ref, int cols, int penalty) {
  for (int i = 0; i < cols - 2; i++)
    for (int idx = 0; idx <= i; idx++) {
      int index = (idx + 1) * cols + (i + 1 - idx);
      m[index] = max3(m[index - 1 - cols] + ref[index], m[index - 1] - penalty, m[index - cols] - penalty);
    }
}

static void nw_parallel(int *m, const int *ref, int cols, int penalty) {
  int i, idx, index;
#pragma acc data copyin(ref[0:cols*cols]) copy(m[0:cols*cols])
  for (i = 0; i < cols - 2; i++) {
#pragma acc parallel loop
    for (idx = 0; idx <= i; idx++) {
      index = (idx + 1) * cols + (i + 1 - idx);
      m[index] = max3(m[index - 1 - cols] + ref[index], m[index - 1] - penalty, m[index - cols] - penalty);
    }
  }
}

static void nw_kernels(int *m, const int *ref, int cols, int penalty) {
  int i, idx, index;
#pragma acc data copyin(ref[0:cols*cols]) copy(m[0:cols*cols])
  for (i = 0; i < cols - 2; i++) {
#pragma acc kernels loop independent
    for (idx = 0; idx <= i; idx++) {
      index = (idx + 1) * cols + (i + 1 - idx);
      m[index] = max3(m[index - 1 - cols] + ref[index], m[index - 1] - penalty, m[index - cols] - penalty);
    }
  }
}

/* An inner sequential loop whose counter is declared outside the region, inside a
 * partitioned kernels loop; the counter's value after the inner loop is used. */
static void triangle(int n, int *t, int *last) {
  int j, s;
#pragma acc kernels loop independent copy(t[0:n*n], last[0:n])
  for (int i = 0; i < n; i++) {
    s = 0;
    for (j = 0; j <= i; j++) {
      s += j;
      t[i * n + j] = s;
    }
    last[i] = j * 1000 + s;
  }
}

int main(void) {
  int cols = 37, penalty = 10;
  int *m = e2e_alloc(sizeof(int) * cols * cols), *ref = e2e_alloc(sizeof(int) * cols * cols);
  int *want = e2e_alloc(sizeof(int) * cols * cols), *m2 = e2e_alloc(sizeof(int) * cols * cols);
  for (int k = 0; k < cols * cols; k++) ref[k] = (k * 7919) % 23 - 11;
  for (int k = 0; k < cols * cols; k++) m[k] = m2[k] = want[k] = 0;
  for (int i = 1; i < cols; i++) m[i * cols] = m2[i * cols] = want[i * cols] = -i * penalty;
  for (int j = 1; j < cols; j++) m[j] = m2[j] = want[j] = -j * penalty;
  nw_ref(want, ref, cols, penalty);
  nw_parallel(m, ref, cols, penalty);
  nw_kernels(m2, ref, cols, penalty);
  for (int k = 0; k < cols * cols; k++) {
    if (m[k] != want[k] || m2[k] != want[k]) {
      CHECK(0, "m[%d]=%d (parallel) %d (kernels) want %d", k, m[k], m2[k], want[k]);
      break;
    }
  }

  int n = 41;
  int *t = e2e_alloc(sizeof(int) * n * n), *last = e2e_alloc(sizeof(int) * n);
  for (int k = 0; k < n * n; k++) t[k] = -1;
  for (int i = 0; i < n; i++) last[i] = -1;
  triangle(n, t, last);
  for (int i = 0; i < n; i++) {
    int s = 0;
    for (int j = 0; j < n; j++) {
      s += j <= i ? j : 0;
      int w = j <= i ? s : -1;
      if (t[i * n + j] != w) {
        CHECK(0, "t[%d][%d]=%d want %d", i, j, t[i * n + j], w);
        goto done;
      }
    }
    if (last[i] != (i + 1) * 1000 + i * (i + 1) / 2) {
      CHECK(0, "last[%d]=%d want %d", i, last[i], (i + 1) * 1000 + i * (i + 1) / 2);
      break;
    }
  }
done:
  free(m), free(m2), free(ref), free(want), free(t), free(last);
  return e2e_finish();
}
