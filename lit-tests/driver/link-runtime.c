// Linking the runtime: libaccrt.so by default (-L<libdir> -laccrt, rpaths <libdir> and a
// literal $ORIGIN), libaccrt-static.a with -static-libaccrt. Every program runs (host path here).
// RUN: rm -rf %t.dir && mkdir -p %t.dir/lib %t.dir/bundle
//
// RUN: %accc -v -O2 %s -o %t.dir/shared 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: clang{{[-0-9]*}} {{.*}}.o -o {{.*}}shared -L{{[^ ]+}} -laccrt -Wl,-rpath,{{[^ ]+}} '-Wl,-rpath,$ORIGIN' -lm{{$}}
// RUN: llvm-readelf -d %t.dir/shared | FileCheck %s --check-prefix=DYN
// DYN: (NEEDED) Shared library: [libaccrt.so]
// DYN: (RUNPATH) Library runpath: [{{[^:]+}}:$ORIGIN]
// RUN: %t.dir/shared | FileCheck %s --check-prefix=OUT
// RUN: test $(wc -c < %t.dir/shared) -lt 102400
//
// $ORIGIN: a program linked against a copy of the libdir still runs once that libdir is
// gone and libaccrt.so lies beside it.
// RUN: cp %plugin $(dirname %plugin)/libaccrt.so %t.dir/lib/
// RUN: env ACCC_LIBDIR=%t.dir/lib %accc -O2 %s -o %t.dir/bundle/prog
// RUN: mv %t.dir/lib/libaccrt.so %t.dir/bundle/
// RUN: %t.dir/bundle/prog | FileCheck %s --check-prefix=OUT
// RUN: rm %t.dir/bundle/libaccrt.so
// RUN: %t.dir/bundle/prog > %t.nolib 2>&1 || test $? = 127
// RUN: FileCheck %s --check-prefix=NOLIB < %t.nolib
// NOLIB: libaccrt.so: cannot open shared object file
//
// -static-libaccrt: libaccrt-static.a (scripts/build-static-runtime), under 1.5 MB linked in (1.06 MB with
// the whole openacc.h API, async queues and pinned staging);
// the emulator runs from it too. Only the C ABI stays global: std's symbols are local, so a
// program's own definition of one (here `__rust_alloc`) does not clash.
// RUN: %accc -v -O2 -static-libaccrt %s -o %t.dir/static 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: clang{{[-0-9]*}} {{.*}}.o -o {{.*}}static {{[^ ]+}}/libaccrt-static.a -lpthread -ldl -lm -lrt{{$}}
// RUN: llvm-readelf -d %t.dir/static | FileCheck %s --check-prefix=NODYN
// NODYN-NOT: libaccrt
// RUN: %t.dir/static | FileCheck %s --check-prefix=OUT
// RUN: env ACC_DEVICE_TYPE=emulator %t.dir/static | FileCheck %s --check-prefix=OUT
// RUN: test $(wc -c < %t.dir/static) -lt 1572864
// RUN: %accc -O2 -static-libaccrt -DOWN_RUST_ALLOC %s -o %t.dir/static2
// RUN: %t.dir/static2 | FileCheck %s --check-prefix=OUT
// RUN: not env ACCC_LIBDIR=%t.dir/lib %accc -static-libaccrt %s -o %t.dir/x 2>&1 | FileCheck %s --check-prefix=NOSTATIC
// NOSTATIC: accc: error: the static OpenACC runtime libaccrt-static.a (scripts/build-static-runtime makes it) not found at '{{.*}}lib/libaccrt-static.a'
//
// An archive older than the libaccrt.a it is made from is refused.
// RUN: cp $(dirname %plugin)/libaccrt-static.a %t.dir/lib/ && touch -d "+1 hour" %t.dir/lib/libaccrt.a
// RUN: not env ACCC_LIBDIR=%t.dir/lib %accc -static-libaccrt %s -o %t.dir/x 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: accc: error: {{.*}}lib/libaccrt-static.a is older than the libaccrt.a it is made from: run scripts/build-static-runtime (or scripts/setup)
//
// OUT: PASS

#include <stdio.h>

#ifdef OWN_RUST_ALLOC
int __rust_alloc = 7;
#endif

int main(void) {
  double a[100];
#pragma acc parallel loop copyout(a[0:100])
  for (int i = 0; i < 100; i++)
    a[i] = 2.0 * i;
  for (int i = 0; i < 100; i++)
    if (a[i] != 2.0 * i) {
      printf("FAIL\n");
      return 1;
    }
  printf("PASS\n");
  return 0;
}
