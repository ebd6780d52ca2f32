// The plugin used directly, as `clang-22 -fpass-plugin` on accc's rewritten source, without
// the -fno-discard-value-names accc adds: clang then drops the names of new values, and the
// pass finds the blocks and private slots it creates by name. Before it kept them, this was
// "internal compiler error ...: kernel without acc.ret". The program, with a gang-private
// array the lanes of a gang share, runs on the emulator.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %accc -O2 -c -save-temps %s -o %t.dir/accc.o
// RUN: env ACC_OFFLOAD_OPTIONS="gpu-arch=sm_90" %clang -O2 -x cpp-output -w -c -fpass-plugin=%plugin %t.dir/clang-plugin.acc.i -o %t.dir/plugin.o
// RUN: %clang %t.dir/plugin.o -o %t.dir/prog -L$(dirname %plugin) -laccrt -Wl,-rpath,$(dirname %plugin) -lm
// RUN: env ACC_DEVICE_TYPE=emulator %t.dir/prog | FileCheck %s
// CHECK: PASS

#include <stdio.h>

#define G 7
#define N 45

int main(void) {
  static double out[G][N];
  double t[N];
#pragma acc parallel num_gangs(G) vector_length(32) copyout(out)
  {
#pragma acc loop gang private(t)
    for (int g = 0; g < G; g++) {
#pragma acc loop vector
      for (int i = 0; i < N; i++)
        t[i] = g * 100 + i;
#pragma acc loop vector
      for (int i = 0; i < N; i++)
        out[g][i] = t[N - 1 - i] + 0.5;
    }
  }
  int bad = 0;
  for (int g = 0; g < G; g++)
    for (int i = 0; i < N; i++)
      if (out[g][i] != g * 100 + (N - 1 - i) + 0.5)
        bad++;
  if (bad) {
    printf("FAIL: %d wrong\n", bad);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
