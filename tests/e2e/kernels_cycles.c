/* Loop nests of a `kernels` construct inside a loop that no directive names: a `while`
 * whose iterations pass data between two proved-independent loops (each sweep reads what
 * the other loop wrote at other indices), and a `goto` back to a label before a loop. Was:
 * both loops gang-partitioned in one kernel (gangs never wait for each other between the
 * while's iterations: wrong sums under the emulator's schedules and on the GPU), and the
 * goto made the pass crash (the construct was split into parts as if straight-line). Now
 * such loops get worker/vector only (one gang); every element is checked. */
#define E2E_NAME "kernels_cycles"
#include "e2e.h"

enum { N = 1001, SWEEPS = 5 };

int main(void) {
  static double a[N], b[N], wa[N], wb[N];
  for (int i = 0; i < N; i++) a[i] = b[i] = wa[i] = wb[i] = i % 13;

#pragma acc kernels copy(a, b)
  {
    int k = 0;
    while (k < SWEEPS) {
#pragma acc loop
      for (int i = 0; i < N - 1; i++) a[i] = b[i + 1] + 1;
#pragma acc loop
      for (int i = 0; i < N - 1; i++) b[i] = a[N - 2 - i] * 0.5;
      k++;
    }
  }
  for (int k = 0; k < SWEEPS; k++) {
    for (int i = 0; i < N - 1; i++) wa[i] = wb[i + 1] + 1;
    for (int i = 0; i < N - 1; i++) wb[i] = wa[N - 2 - i] * 0.5;
  }
  for (int i = 0; i < N; i++) {
    CHECK(a[i] == wa[i], "while: a[%d] = %g, want %g", i, a[i], wa[i]);
    CHECK(b[i] == wb[i], "while: b[%d] = %g, want %g", i, b[i], wb[i]);
  }

  static int c[N];
#pragma acc kernels copyout(c)
  {
    int k = 0;
  again:
#pragma acc loop
    for (int i = 0; i < N; i++) c[i] = i * 3 + k;
    k++;
    if (k < 3) goto again;
  }
  for (int i = 0; i < N; i++) CHECK(c[i] == i * 3 + 2, "goto: c[%d] = %d, want %d", i, c[i], i * 3 + 2);
  return e2e_finish();
}
