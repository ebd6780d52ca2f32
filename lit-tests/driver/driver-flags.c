// Command-line behaviour of accc that needs no pass plugin.
// RUN: %accc --version | FileCheck %s --check-prefix=VERSION
// VERSION: accc version {{[0-9.]+}}
// RUN: %accc --help | FileCheck %s --check-prefix=HELP
// HELP: USAGE: accc [options] file...
// HELP: --gpu-arch=sm_XX
// RUN: not %accc -c %t.missing.c 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: accc: error: no such file or directory: '{{.*}}missing.c'
// RUN: not %accc --gpu-arch=sm_13 -c %s 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: accc: error: unknown GPU architecture 'sm_13'
// RUN: not %accc --bogus-flag -c %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: accc: error: unknown argument: '--bogus-flag'
// RUN: not %accc 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: accc: error: no input files
//
// -### prints the commands and runs none: no output appears.
// RUN: rm -f %t.dry && %accc -### -O2 %s -o %t.dry 2>&1 | FileCheck %s --check-prefix=DRY
// RUN: not test -e %t.dry
// DRY: clang{{[-0-9]*}} -E {{.*}}driver-flags.c -o {{.*}}.i
// DRY-NEXT: clang{{[-0-9]*}} -fsyntax-only {{.*}}driver-flags.c
// DRY-NEXT: accc: {{.*}}driver-flags.c: OpenACC directives would be rewritten into {{.*}}.acc.i
// DRY-NEXT: clang{{[-0-9]*}} -x cpp-output -c -O2 {{.*}}-fpass-plugin={{.*}}.acc.i -o {{.*}}.o
// DRY-NEXT: clang{{[-0-9]*}} {{.*}}.o -o {{.*}}.dry
//
// -v prints every command; -D/-I/-std reach validation and preprocessing; -std also the
// compile; -acc and -gpu=cc80 are accepted. Both preprocessing steps define _OPENACC as
// accc's OpenACC version and search openacc.h's directory after the user's.
// RUN: %accc -v -acc -gpu=cc80 -DSCALE=3 -I%S/Inputs -std=c11 -Wall -O2 -emit-llvm -S %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=VERBOSE
// Preprocessing starts first and runs while validation does (both only read the source).
// VERBOSE: clang{{[-0-9]*}} -E -fopenacc -Wno-source-uses-openacc -Wno-openacc-cache-var-inside-loop -fms-extensions {{.*}}-U_OPENACC -D_OPENACC=202211 -D SCALE=3 -I {{.*}}Inputs -isystem {{[^ ]*}}runtime/include -std=c11 {{.*}}driver-flags.c -o {{.*}}.i
// VERBOSE-NEXT: clang{{[-0-9]*}} -fsyntax-only -fopenacc -Wno-source-uses-openacc {{.*}}-U_OPENACC -D_OPENACC=202211 -D SCALE=3 -I {{.*}}Inputs -isystem {{[^ ]*}}runtime/include -std=c11 -Wall {{.*}}driver-flags.c
// VERBOSE-NEXT: accc: {{.*}}driver-flags.c: 1 OpenACC directive(s) rewritten into {{.*}}.acc.i
// VERBOSE-NEXT: clang{{[-0-9]*}} -x cpp-output -S -emit-llvm -Xclang -disable-llvm-passes -O2 -Xclang -fsanitize-address-use-after-scope -std=c11 {{.*}}.acc.i -o {{.*}}.ll
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// IR: call void @__acc_begin(i32 noundef 1, ptr noundef @.str, ptr noundef @.str.1, i32 noundef [[#@LINE+13]], i32 noundef 11)
// IR: call void @__acc_end(i32 noundef 1)
//
// -save-temps keeps the preprocessed and the rewritten text beside the output.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %accc -save-temps -emit-llvm -S %s -o %t.dir/out.ll
// RUN: test -f %t.dir/driver-flags.i
// RUN: FileCheck %s --check-prefix=ACCI < %t.dir/driver-flags.acc.i
// ACCI: void __acc_begin(int, const char *, const char *, int, int); void __acc_clause(int, const char *, ...); void __acc_end(int);
// ACCI: { __acc_begin(1, "update", "{{.*}}driver-flags.c", [[#@LINE+6]], 11); __acc_clause(1, "device", (void*)(v), (long long)(0), (long long)(n), (long long)sizeof((v)[0]), "v[0:n]"); __acc_end(1); }

void scale(float *v, int n) {
#ifdef SCALE
  #pragma acc update device(v[0:n])
#else
  #pragma acc update device(v[0:n])
#endif
  for (int i = 0; i < n; i++) v[i] *= 2;
}
