// declare errors at run time, with separate device memory (the emulator): a link global
// used by a compute region while no data clause maps it, and a function-scope
// declare present of data that is not present, each named with the directive's position.
// On the host path everything is present and the program runs to its end.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=host %t link | FileCheck %s --check-prefix=HOST
// RUN: env ACC_DEVICE_TYPE=host %t present | FileCheck %s --check-prefix=HOST
// RUN: env ACC_DEVICE_TYPE=emulator %t none | FileCheck %s --check-prefix=HOST
// HOST: done
// RUN: not env ACC_DEVICE_TYPE=emulator %t link 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: not env ACC_DEVICE_TYPE=emulator %t present 2>&1 | FileCheck %s --check-prefix=PRESENT

#include <stdio.h>
#include <string.h>

#define N 17
int lnk[N];
#pragma acc declare link(lnk)

static int twice(int i) { return 2 * lnk[i]; }

static void uses_present(int *a, int n) {
// PRESENT-NOT: done
// PRESENT: declare-errors.c:[[#@LINE+1]]:9: error: data in PRESENT clause was not found on the device: a[0:n] (host 0x{{[0-9a-f]+}}..0x{{[0-9a-f]+}}, 68 bytes)
#pragma acc declare present(a[0:n])
#pragma acc parallel loop
  for (int i = 0; i < n; i++) a[i] = i;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "none";
  int out[N];
  if (!strcmp(what, "link")) {
// LINK-NOT: done
// LINK: declare-errors.c:[[#@LINE+1]]:9: error: 'lnk' (host address 0x{{[0-9a-f]+}}) is used in a compute region but is not present on the device
#pragma acc parallel loop copyout(out)
    for (int i = 0; i < N; i++) out[i] = twice(i);
  }
  if (!strcmp(what, "present")) {
    int a[N];
    uses_present(a, N);
  }
  printf("done\n");
  return 0;
}
