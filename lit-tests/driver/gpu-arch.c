// Every architecture --gpu-arch / -gpu= advertise builds, with the PTX ISA version it needs
// (sm_100 needs PTX 8.6 and sm_120 8.7: the back end aborted on PTX 8.0; sm_90a was "unknown
// GPU architecture" from the pass), and several at once give one cubin each plus the PTX of
// the oldest (without an `a` suffix: that PTX is what newer GPUs compile at load time).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %accc --gpu-arch=sm_100 -save-temps -O2 -c %s -o %t/a.o
// RUN: FileCheck %s --check-prefix=SM100 < %t/gpu-arch.ptx
// SM100: .version 8.6
// SM100: .target sm_100
// RUN: %accc -gpu=cc120 -save-temps -O2 -c %s -o %t/b.o
// RUN: FileCheck %s --check-prefix=SM120 < %t/gpu-arch.ptx
// SM120: .version 8.7
// SM120: .target sm_120
// RUN: %accc -gpu=cc90a -save-temps -O2 -c %s -o %t/c.o
// RUN: FileCheck %s --check-prefix=SM90A < %t/gpu-arch.ptx
// SM90A: .target sm_90a
// RUN: %accc --gpu-arch=sm_100a -O2 -c %s -o %t/d.o
// RUN: %accc -gpu=cc80,cc90 -save-temps -O2 -c %s -o %t/e.o
// RUN: test -f %t/gpu-arch.sm_80.cubin && test -f %t/gpu-arch.sm_90.cubin
// RUN: FileCheck %s --check-prefix=MULTI < %t/gpu-arch.ptx
// MULTI: .target sm_80
// RUN: %accc --gpu-arch=sm_90a,sm_121a -save-temps -O2 -c %s -o %t/f.o
// RUN: FileCheck %s --check-prefix=PORTABLE < %t/gpu-arch.ptx
// PORTABLE: .target sm_90{{$}}
// RUN: not %accc -gpu=cc80,cc77 -c %s -o %t/g.o 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: accc: error: unknown GPU architecture 'sm_77' (expected one of: {{.*}}sm_90a, sm_100,
// RUN: not %opt -load-pass-plugin=%plugin -passes='acc-offload<gpu-arch=sm_13>' %S/../pass/saxpy.ll -disable-output 2>&1 | FileCheck %s --check-prefix=PASSBAD
// PASSBAD: error: acc-offload: unknown GPU architecture 'sm_13'

void saxpy(int n, float a, float *x, float *y) {
#pragma acc parallel loop copyin(x[0:n]) copy(y[0:n])
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
