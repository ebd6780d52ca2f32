// -emit-llvm gives the contract exactly as the pass receives it inside a compile: Clang's IR
// before any LLVM pass, with the -O level's attributes (no optnone at -O2, TBAA), the same
// as -save-temps' .acc.ll, so that opt -passes=acc-offload on it reproduces the compile.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
//
// RUN: %accc -O2 -emit-llvm -S %s -o o2.ll
// RUN: FileCheck %s < o2.ll
// CHECK-LABEL: define{{.*}} void @twice(
// CHECK: %n.addr = alloca i32
// CHECK: call void @__acc_begin(
// CHECK: !tbaa
// CHECK-NOT: optnone
//
// RUN: %accc -O0 -emit-llvm -c %s -o o0.bc && llvm-dis o0.bc -o - | FileCheck %s --check-prefix=O0
// O0-LABEL: define{{.*}} void @twice(
// O0: call void @__acc_begin(
// O0: attributes #0 = { {{.*}}optnone
//
// The .acc.ll of -save-temps is the same module.
// RUN: %accc -O2 -save-temps -c %s -o emit-llvm-contract.o
// RUN: grep -v -e '^; ModuleID' -e '^source_filename' o2.ll > a.ll
// RUN: grep -v -e '^; ModuleID' -e '^source_filename' emit-llvm-contract.acc.ll > b.ll
// RUN: diff a.ll b.ll
//
// The pass runs on the dump (the "reproduce with" hint of an internal error).
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload o2.ll -S -o host.ll
// RUN: FileCheck %s --check-prefix=HOST < host.ll
// HOST-NOT: call void @__acc_begin
// HOST: call {{.*}}@__accrt_launch(
// HOST-NOT: call void @__acc_begin
//
// The hint itself names this plugin and the options in effect, in a form opt takes: an
// internal error is forced with a ptxas that fails, and the command printed is run.
// RUN: not env ACCC_PTXAS=/bin/false %accc -O2 -gpu=cc80,cc90 -c %s -o bad.o 2> ice.txt
// RUN: FileCheck %s --check-prefix=ICE < ice.txt
// ICE: error: internal compiler error in acc-offload (this is a bug in accc, please report it): ptxas failed
// ICE: note: reproduce with: accc <the same flags> -emit-llvm -S <file.c> -o t.ll && opt-22 -load-pass-plugin={{.*}}libacc_pass.so -passes='acc-offload<gpu-arch=sm_80+sm_90>' t.ll -S -o /dev/null
// RUN: sed -n "s/.*&& \(opt-22 .*\)/\1/p" ice.txt | sed "s/t\.ll/o2.ll/" > reproduce.sh
// RUN: not env ACCC_PTXAS=/bin/false sh reproduce.sh 2>&1 | FileCheck %s --check-prefix=AGAIN
// AGAIN: ptxas failed on the generated PTX

void twice(float *v, int n) {
#pragma acc parallel loop copy(v[0:n])
  for (int i = 0; i < n; i++) v[i] *= 2;
}
