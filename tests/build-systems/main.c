#include <stdio.h>

#include "scale.h"

int main(void) {
  float v[4] = {1, 2, 3, 4};
  scale(v, 4);
  printf("result %g\n", v[0] + v[1] + v[2] + v[3]);
  return 0;
}
