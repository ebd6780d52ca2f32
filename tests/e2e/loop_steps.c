/* Countable loops the C front end writes in less common shapes: a decreasing loop with a
 * run-time step (`i -= s`, and `i += s` with s < 0), induction variables of type short,
 * char and unsigned char (C computes `i += 3` on them in int and truncates back), with
 * starts above 127 for unsigned char. */
#define E2E_NAME "loop_steps"
#include "e2e.h"

static void down(int hi, int lo, int s, int *a) {
#pragma acc parallel loop copy(a[0:hi+1])
  for (int i = hi; i > lo; i -= s)
    a[i] += 1;
}

static void down_incl(int hi, int lo, int s, int *a) {
#pragma acc parallel loop copy(a[0:hi+1])
  for (int i = hi; i >= lo; i += s) /* s < 0 */
    a[i] += 10;
}

static void shorts(short n, int s, int *a) {
#pragma acc parallel loop copy(a[0:n])
  for (short i = 1; i < n; i += 3)
    a[i] += 100;
#pragma acc parallel loop copy(a[0:n])
  for (short i = n - 1; i >= 0; i -= s)
    a[i] += 1000;
}

static void chars(int n, int *a) {
#pragma acc parallel loop copy(a[0:n])
  for (signed char c = 3; c < n; c++)
    a[c] += 10000;
}

static void uchars(int n, int lo, int s, int *a) {
#pragma acc parallel loop copy(a[0:n])
  for (unsigned char c = 200; c < n; c++)
    a[c] += 100000;
#pragma acc parallel loop copy(a[0:n])
  for (unsigned char c = 250; c > lo; c -= s)
    a[c] += 1000000;
}

int main(void) {
  int n = 253; /* odd, below 256 for the unsigned char loops, above 127 */
  int *a = e2e_alloc(sizeof(int) * (n + 1)), *want = e2e_alloc(sizeof(int) * (n + 1));
  for (int i = 0; i <= n; i++) a[i] = want[i] = 0;

  int steps[] = {1, 3, 7, 250};
  for (int k = 0; k < 4; k++) {
    int s = steps[k];
    down(n, 4, s, a);
    for (int i = n; i > 4; i -= s) want[i] += 1;
    down_incl(n - 1, 2, -s, a);
    for (int i = n - 1; i >= 2; i -= s) want[i] += 10;
  }
  shorts((short)n, 5, a);
  for (int i = 1; i < n; i += 3) want[i] += 100;
  for (int i = n - 1; i >= 0; i -= 5) want[i] += 1000;
  chars(117, a);
  for (int i = 3; i < 117; i++) want[i] += 10000;
  uchars(n, 21, 4, a);
  for (int i = 200; i < n; i++) want[i] += 100000;
  for (int i = 250; i > 21; i -= 4) want[i] += 1000000;
  /* empty: start at or beyond the bound */
  down(3, 4, 2, a);
  uchars(200, 250, 1, a);

  for (int i = 0; i <= n; i++) {
    if (a[i] != want[i]) {
      CHECK(0, "a[%d]=%d want %d", i, a[i], want[i]);
      break;
    }
  }
  free(a), free(want);
  return e2e_finish();
}
