// Async arguments known only at run time: one OpenACC does not allow (a negative number
// other than acc_async_noval, acc_async_sync and acc_async_default, or one beyond int) is an
// error at the directive, naming the clause and the value, and the program stops before
// the construct runs. The same arguments are errors on the host path (where no queue ever
// holds work) and on the emulator; valid ones run everywhere.
// RUN: %accc -O1 %s -o %t
// RUN: env ACC_DEVICE_TYPE=host %t none 3 | FileCheck %s --check-prefix=DONE
// RUN: env ACC_DEVICE_TYPE=emulator %t none -1 | FileCheck %s --check-prefix=DONE
// RUN: env ACC_DEVICE_TYPE=emulator %t all -2 | FileCheck %s --check-prefix=DONE
// RUN: env ACC_DEVICE_TYPE=host %t all -3 | FileCheck %s --check-prefix=DONE
// DONE: done
// RUN: not env ACC_DEVICE_TYPE=host %t compute -7 2>&1 | FileCheck %s --check-prefix=COMPUTE
// RUN: not env ACC_DEVICE_TYPE=emulator %t compute -7 2>&1 | FileCheck %s --check-prefix=COMPUTE
// COMPUTE-NOT: done
// COMPUTE: async-errors.c:[[#@LINE+27]]:9: error: async(-7): not a valid async argument (a queue number >= 0, acc_async_noval, acc_async_sync or acc_async_default)
// RUN: not env ACC_DEVICE_TYPE=host %t update -4 2>&1 | FileCheck %s --check-prefix=UPDATE
// RUN: not env ACC_DEVICE_TYPE=emulator %t update -4 2>&1 | FileCheck %s --check-prefix=UPDATE
// UPDATE: async-errors.c:[[#@LINE+28]]:9: error: async(-4): not a valid async argument
// RUN: not env ACC_DEVICE_TYPE=host %t wait 2147483648 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: not env ACC_DEVICE_TYPE=emulator %t wait 2147483648 2>&1 | FileCheck %s --check-prefix=WAIT
// WAIT: async-errors.c:[[#@LINE+28]]:9: error: wait(2147483648): not a valid async argument
// RUN: not env ACC_DEVICE_TYPE=emulator %t wait-async -5 2>&1 | FileCheck %s --check-prefix=WAIT-ASYNC
// WAIT-ASYNC: async-errors.c:[[#@LINE+29]]:9: error: async(-5): not a valid async argument
// RUN: not env ACC_DEVICE_TYPE=host %t all -9 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: async-errors.c:[[#@LINE+30]]:9: error: async(-9): not a valid async argument
// RUN: not env ACC_DEVICE_TYPE=emulator %t routine -8 2>&1 | FileCheck %s --check-prefix=ROUTINE
// ROUTINE: accc runtime: error: acc_wait_async: -8 is not a valid async argument

#include <openacc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int a[16];

int main(int argc, char **argv) {
  const char *what = argc > 2 ? argv[1] : "none";
  long long q = argc > 2 ? atoll(argv[2]) : 0;
  int n = 16;
#pragma acc enter data copyin(a[0:n])
  if (!strcmp(what, "compute")) {
#pragma acc parallel loop present(a[0:n]) async(q)
    for (int i = 0; i < n; i++) a[i] = i;
  }
  if (!strcmp(what, "update")) {
#pragma acc update self(a[0:n]) async(q)
  }
  if (!strcmp(what, "wait")) {
#pragma acc wait(1, q)
  }
  if (!strcmp(what, "wait-async")) {
#pragma acc wait(1) async(q)
  }
  if (!strcmp(what, "all")) {
#pragma acc wait async(q)
  }
  if (!strcmp(what, "routine")) acc_wait_async(1, (int)q);
  if (!strcmp(what, "none")) {
#pragma acc parallel loop present(a[0:n]) async(q)
    for (int i = 0; i < n; i++) a[i] = i;
#pragma acc update self(a[0:n]) async(q)
#pragma acc wait(q)
  }
  printf("done\n");
  return 0;
}
