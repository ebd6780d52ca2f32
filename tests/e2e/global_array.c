/* Global (file-scope) arrays and a global scalar used inside compute regions. */
#define E2E_NAME "global_array"
#include "e2e.h"

#define N 4099
float g_in[N];
static double g_out[N];
int g_scale = 3;

int main(void) {
  for (int i = 0; i < N; i++) g_in[i] = (float)i;

#pragma acc parallel loop copyin(g_in[0:N], g_scale) copyout(g_out[0:N])
  for (int i = 0; i < N; i++)
    g_out[i] = g_in[i] * g_scale;

  /* whole-array form, no section */
#pragma acc parallel loop copy(g_in)
  for (int i = 0; i < N; i++)
    g_in[i] += 1.0f;

  for (int i = 0; i < N; i++)
    if (g_out[i] != 3.0 * i || g_in[i] != (float)i + 1.0f) {
      CHECK(0, "i=%d: g_out=%g (want %g) g_in=%g (want %g)", i, g_out[i], 3.0 * i, g_in[i],
            (float)i + 1.0f);
      break;
    }
  return e2e_finish();
}
