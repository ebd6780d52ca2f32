// malloc, free and printf in device code (device_libc.rs): malloc/free stay calls of the
// PTX system calls, printf becomes vprintf with its arguments packed at their natural
// alignment (the int at 0, the double at 8, the pointer at 16), a call without arguments
// passes null. Other C library functions stay errors. Assembled by ptxas.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc -O2 -save-temps -c %s -o %t/device-libc.o
// RUN: FileCheck %s < %t/device-libc.ptx
// RUN: %ptxas -arch=sm_90 %t/device-libc.ptx -o %t/device-libc.cubin
// RUN: not %accc -DPUTS -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PUTS

// CHECK-DAG: .extern .func  (.param .b64 func_retval0) malloc
// CHECK-DAG: .extern .func free
// CHECK-DAG: .extern .func  (.param .b32 func_retval0) vprintf
// CHECK-LABEL: .entry f_l{{[0-9]+}}(
// CHECK: call.uni (retval0), malloc,
// CHECK: st.local.b32 [{{.*}}],
// CHECK: st.local.b64 [{{.*}}+8],
// CHECK: st.local.b64 [{{.*}}+16],
// CHECK: call.uni (retval0), vprintf,
// CHECK: call.uni (retval0), vprintf,
// CHECK: call.uni free,
// PUTS: device-libc.c:[[#@LINE+5]]:9: error: function 'puts' is called in a compute region but has no device version
#include <stdio.h>
#include <stdlib.h>
void f(int n, long **keep, double x) {
  const char *s = "hi";
#pragma acc parallel loop copyin(keep[0:n])
  for (int i = 0; i < n; i++) {
    long *p = (long *)malloc(sizeof(long) * (i + 1));
    p[i] = i;
    printf("%d %f %s\n", i, x, s);
    printf("plain\n");
#ifdef PUTS
    puts("no");
#endif
    if (keep[i]) free(keep[i]);
    keep[i] = p;
  }
}
