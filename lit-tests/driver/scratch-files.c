// accc and the pass keep their scratch files in fresh $TMPDIR/accc-XXXXXX directories and
// remove them on every way out: success, errors in the source, and failures around ptxas
// (here a "ptxas" that exits 0 but writes no cubin). Only a failing ptxas leaves its
// directory, with the PTX, so that the printed "reproduce with" command works.
// RUN: rm -rf %t.tmp && mkdir %t.tmp
// RUN: env TMPDIR=%t.tmp %accc -O2 %s -o %t.exe
// RUN: ls -A %t.tmp | count 0
// RUN: not env TMPDIR=%t.tmp %accc -c -DBAD_SOURCE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=SOURCE
// SOURCE: error: 'tile' needs a rectangular loop nest
// RUN: ls -A %t.tmp | count 0
// RUN: not env TMPDIR=%t.tmp ACCC_PTXAS=/bin/true %accc -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOCUBIN
// NOCUBIN: error: internal compiler error in acc-offload {{.*}}: cannot read {{.*}}kernels.cubin
// RUN: ls -A %t.tmp | count 0
// RUN: not env TMPDIR=%t.tmp ACCC_PTXAS=/bin/false %accc -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: reproduce with: /bin/false -arch=sm_90 --split-compile=0 [[TMP:.*]].tmp/accc-{{[^/]+}}/kernels.ptx -o
// RUN: ls %t.tmp/accc-*/kernels.ptx

int main(void) {
  int a[4] = {0, 0, 0, 0};
#ifdef BAD_SOURCE
#pragma acc parallel loop copy(a) tile(2, 2)
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < i; j++) a[i] = j;
#else
#pragma acc parallel loop copy(a)
  for (int i = 0; i < 4; i++) a[i] = i;
#endif
  return a[3] != 3;
}
