// Run-time errors of sections through pointer rows name the row: present of a row that is
// not on the device (only the row pointers and the first rows were mapped), and a negative
// row length.
// RUN: %accc -O1 %s -o %t
// RUN: not env ACC_DEVICE_TYPE=emulator %t present 2>&1 | FileCheck %s --check-prefix=PRESENT
// RUN: not env ACC_DEVICE_TYPE=emulator %t negative 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// The host path maps nothing, so neither is an error there.
// RUN: env ACC_DEVICE_TYPE=host %t present | FileCheck %s --check-prefix=HOST
// HOST: done

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int n = 4, m = argc > 1 && strcmp(argv[1], "negative") == 0 ? -2 : 3;
  double **p = malloc(sizeof(double *) * n);
  for (int i = 0; i < n; i++) p[i] = calloc(3, sizeof(double));
#pragma acc enter data copyin(p[0:n]) copyin(p[0][0:3], p[1][0:3])
// PRESENT-NOT: done
// PRESENT: pointer-rows-errors.c:[[#@LINE+3]]:9: error: data in PRESENT clause was not found on the device: p[0:n][0:m], row [2] (host 0x{{[0-9a-f]+}}..0x{{[0-9a-f]+}}, 24 bytes)
// NEGATIVE-NOT: done
// NEGATIVE: pointer-rows-errors.c:[[#@LINE+1]]:9: error: p[0:n][0:m]: dimension 2 has a negative length (-2)
#pragma acc parallel loop present(p[0:n][0:m])
  for (int i = 0; i < n; i++) p[i][0] = i;
  printf("done\n");
  return 0;
}
