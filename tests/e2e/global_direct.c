/* Globals used directly in compute regions are mapped through the data environment
 * (implicitly copy, OpenACC 3.3 §2.6.2), also where Clang writes the access as a constant
 * expression: a constant index (`g_arr[3]`), the address of an element chosen by `?:`,
 * a write at a constant index in a serial region. Constant tables and string literals
 * are used in place. */
#define E2E_NAME "global_direct"
#include "e2e.h"

#define N 1001
float g_arr[N];
int g_flags[8];
const float k_table[5] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};

int main(void) {
  int n = N;
  float *out = e2e_alloc(sizeof(float) * n);
  for (int i = 0; i < N; i++) g_arr[i] = (float)(i % 97);
  for (int i = 0; i < 8; i++) g_flags[i] = i;

#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    const float *p = (i & 1) ? &g_arr[5] : &g_arr[7];
    out[i] = g_arr[3] + *p + k_table[i % 5] + (float)"abcde"[i % 5];
  }
  for (int i = 0; i < n; i++) {
    float want = 3.0f + ((i & 1) ? 5.0f : 7.0f) + k_table[i % 5] + (float)("abcde"[i % 5]);
    if (out[i] != want) {
      CHECK(0, "out[%d]=%g want %g", i, out[i], want);
      break;
    }
  }

#pragma acc serial
  {
    g_flags[2] = 40;
    g_flags[6] += 100;
    g_arr[N - 1] = -1.0f;
  }
  CHECK(g_flags[2] == 40 && g_flags[6] == 106, "g_flags[2]=%d g_flags[6]=%d want 40 106", g_flags[2], g_flags[6]);
  for (int i = 0; i < 8; i++)
    if (i != 2 && i != 6) CHECK(g_flags[i] == i, "g_flags[%d]=%d want %d", i, g_flags[i], i);
  CHECK(g_arr[N - 1] == -1.0f, "g_arr[N-1]=%g want -1", g_arr[N - 1]);
  CHECK(g_arr[N - 2] == (float)((N - 2) % 97), "g_arr[N-2]=%g changed", g_arr[N - 2]);
  free(out);
  return e2e_finish();
}
