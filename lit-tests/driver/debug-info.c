// -g at every -O level: the outlined regions get debug subprograms of their own (the host
// fallback is debuggable, with the region's variables), kernels carry line directives and
// the cubin keeps them (ptxas -lineinfo). Locals declared inside the regions and loop
// variables are what used to break it: their records named the host function's values.
// RUN: rm -rf %t.dir %t.o0 && mkdir -p %t.dir %t.o0
// RUN: %accc -O0 -g -save-temps -c %s -o %t.o0/o0.o
// RUN: %accc -O1 -g -c %s -o %t.dir/o1.o
// RUN: %accc -O3 -g -c %s -o %t.dir/o3.o
// RUN: %accc -O2 -g -save-temps -c %s -o %t.dir/o2.o
// RUN: FileCheck %s --check-prefix=PTX < %t.dir/debug-info.ptx
// RUN: %ptxas -arch=sm_90 -lineinfo %t.dir/debug-info.ptx -o %t.dir/k.cubin
// RUN: llvm-readelf -S %t.dir/debug-info.cubin | FileCheck %s --check-prefix=CUBIN
// RUN: llvm-dwarfdump --debug-info %t.o0/o0.o | FileCheck %s --check-prefix=DWARF
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.o0/debug-info.acc.ll -S -o - | FileCheck %s --check-prefix=HOST
// Without -g, no line directives and no line table in the cubin.
// RUN: rm -rf %t.nog && mkdir -p %t.nog
// RUN: %accc -O2 -save-temps -c %s -o %t.nog/o2.o
// RUN: FileCheck %s --check-prefix=NOG < %t.nog/debug-info.ptx
// RUN: llvm-readelf -S %t.nog/debug-info.cubin | FileCheck %s --check-prefix=NOGCUBIN

// Line directives only (as clang does for CUDA at -O1 and above): no `debug` target, no
// DWARF sections, ptxas keeps optimising.
// PTX-NOT: .target sm_{{[0-9]+}}, debug
// PTX: .visible .entry scale_l[[#LOOP:@LINE+22]](
// PTX: .loc [[#FILE:]] [[#LOOP+4]]
// PTX: .visible .entry scale_l[[#KLOOP:@LINE+29]](
// PTX: .loc [[#FILE]] [[#KLOOP+3]]
// PTX: .file [[#FILE]] "{{.*}}debug-info.c"
// PTX-NOT: .section .debug_info
// CUBIN: .nv_debug_line_sass
// NOG-NOT: .loc
// NOG-NOT: .file
// NOGCUBIN-NOT: .debug_line

// The host fallback: a subprogram per region at the directive's line, with the variables
// the region uses (loop variable, captures, locals declared inside).
// DWARF: DW_AT_name ("scale_l[[#LOOP:@LINE+9]]")
// DWARF: DW_AT_decl_line ([[#LOOP]])
// DWARF-DAG: DW_AT_name ("i")
// DWARF-DAG: DW_AT_name ("n")
// DWARF-DAG: DW_AT_name ("t")
// DWARF-DAG: DW_AT_name ("k")
// DWARF: DW_AT_name ("scale_l[[#KLOOP:@LINE+12]]")

void scale(int n, float *restrict x) {
#pragma acc parallel loop copy(x[0:n])
  for (int i = 0; i < n; i++) {
    float t = x[i] * 2.0f;
    int k = i % 3;
    x[i] = t + (float)k;
  }
#pragma acc kernels copy(x[0:n])
  {
    float s = 1.0f;
#pragma acc loop independent
    for (int i = 0; i < n; i++) {
      float u = x[i] + s;
      x[i] = u;
    }
  }
}

// HOST-LABEL: define dso_local void @scale(
// HOST: call void @scale_l[[#LOOP:@LINE-18]](i32 %{{.*}}, ptr %{{.*}}), !dbg [[CALL:![0-9]+]]
// HOST: define internal void @scale_l[[#LOOP]](
// HOST-SAME: !dbg [[SP:![0-9]+]]
// HOST: #dbg_declare(ptr %i.private, [[I:![0-9]+]],
// HOST: #dbg_declare(ptr %t.private, [[T:![0-9]+]],
// HOST-DAG: [[CALL]] = !DILocation(line: [[#LOOP]],
// HOST-DAG: [[SP]] = distinct !DISubprogram(name: "scale_l[[#LOOP]]", {{.*}}line: [[#LOOP]],
// HOST-DAG: [[I]] = !DILocalVariable(name: "i", scope: [[IS:![0-9]+]],
// HOST-DAG: [[T]] = !DILocalVariable(name: "t", scope:
// HOST-DAG: [[IS]] = !DILexicalBlock(scope: [[IS2:![0-9]+]],
// HOST-DAG: [[IS2]] = !DILexicalBlock(scope: [[SP]],
