/* saxpy: y = a*x + y on the GPU with one OpenACC directive.
 *
 *   accc -O2 examples/saxpy.c -o saxpy && ./saxpy
 *   ACC_NOTIFY=1 ./saxpy          # show each kernel launch
 *   ACC_DEVICE_TYPE=host ./saxpy  # force the host fallback
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void saxpy(int n, float a, const float *restrict x, float *restrict y) {
#pragma acc parallel loop copyin(x[0:n]) copy(y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

int main(void) {
  const int n = 1 << 20;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  if (!x || !y) return 1;
  for (int i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }

  saxpy(n, 2.0f, x, y);

  int errors = 0;
  for (int i = 0; i < n; i++) {
    float want = 2.0f * (float)i + 1.0f;
    if (fabsf(y[i] - want) > 1e-6f * fabsf(want)) {
      if (errors++ < 5) fprintf(stderr, "y[%d] = %g, want %g\n", i, y[i], want);
    }
  }
  free(x);
  free(y);
  if (errors) {
    printf("FAIL saxpy: %d of %d elements wrong\n", errors, n);
    return 1;
  }
  printf("PASS saxpy (n=%d)\n", n);
  return 0;
}
