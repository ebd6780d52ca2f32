#include "scale.h"

void scale(float *v, int n) {
#pragma acc parallel loop copy(v[0:n])
  for (int i = 0; i < n; i++) v[i] *= FACTOR;
}
