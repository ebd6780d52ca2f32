// declare: at file scope the rewriter puts the directive in a constructor of its own
// (__acc_declare_file_<id>), where the pass registers each create/copyin/device_resident item
// with __accrt_declare(host, bytes, init, kind, loc, text) (init: an image of a copyin
// global's initialiser at the item's offset, null for all zeros, the global itself when it
// is defined elsewhere); link registers nothing. Device code reaching a declared global in a
// called function loads its device address from a slot <g>.acc.dev that each kernel stores
// its parameter to first (the emulator's copy of the kernels shows it in the host module).
// In a function, the items are entered at the directive (structured counter) and exited,
// in reverse order, before every return the directive dominates; lifetime ends and stack
// restores of the declared locals are dropped.
// RUN: %accc -O0 -emit-llvm -S %s -o %t.ll
// RUN: FileCheck %s --check-prefix=CONTRACT < %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s
// RUN: %accc -O2 -c %s -o %t.o
// RUN: not %accc -O0 -c -DCASE_LOOP %s -o %t.o 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not %accc -O0 -c -DCASE_IF %s -o %t.o 2>&1 | FileCheck %s --check-prefix=IF
// RUN: not %accc -O0 -c -DCASE_POINTER_SECTION %s -o %t.o 2>&1 | FileCheck %s --check-prefix=POINTER-SECTION
// RUN: not %accc -O0 -c -DCASE_DEVICEPTR %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DEVICEPTR
// RUN: %accc -O0 -c -DCASE_TABLE %s -o %t.o
// RUN: not %accc -O0 -c -DCASE_DECLARED_TABLE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DECLARED-TABLE
// RUN: not %accc -O0 -c -DCASE_IN_COMPUTE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=IN-COMPUTE

int g = 42;
float zeros[8];
int tab[5] = {1, 2, 3, 4, 5};
extern int ext[4];
double res[16];
int scratch[10];
int lnk[3];
// CONTRACT: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @__acc_declare_file_1, ptr null }]
// CONTRACT-LABEL: define internal void @__acc_declare_file_1()
// CONTRACT: call void @__acc_begin(i32 noundef 1, ptr noundef @{{.*}}, ptr noundef @{{.*}}, i32 noundef [[#@LINE+3]], i32 noundef 9)
// CONTRACT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef @{{.*}}, ptr noundef @g, i64 noundef 0, i64 noundef 1, i64 noundef 4,
// CONTRACT: call void @__acc_end(i32 noundef 1)
#pragma acc declare copyin(g, zeros, tab[1:3], ext) create(res) device_resident(scratch) link(lnk)

// CHECK-DAG: @g.acc.dev = internal global ptr null
// A kernel that sets the slot of a link global is flagged ACCRT_KERNEL_LINK_SLOT (4, the
// descriptor's flags): its launches take turns with the other such kernels; one that sets
// only other declared globals' slots (a single device copy each) is not.
// CHECK-DAG: @__acc_kernel.callee_l{{[0-9]+}} = internal global {{.*}}, ptr @__accemu.entry.callee_l{{[0-9]+}}, i64 4, i64 0, i64 0, i64 0, i64 {{[0-9]+}}, ptr @__acc_kernel.callee_l{{[0-9]+}}.arg_sizes }
// CHECK-DAG: @__acc_kernel.unlinked_l{{[0-9]+}} = internal global {{.*}}, ptr @__accemu.entry.unlinked_l{{[0-9]+}}, i64 0, i64 0, i64 0, i64 0, i64 {{[0-9]+}}, ptr @__acc_kernel.unlinked_l{{[0-9]+}}.arg_sizes }
// CHECK-DAG: @tab.acc.dev = internal global ptr null
// CHECK-DAG: @g.acc.init = private unnamed_addr constant i32 42
// CHECK-DAG: @tab.acc.init = private unnamed_addr constant [5 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5]
// CHECK-LABEL: define internal void @__acc_declare_file_1()
// copyin = 1, create = 3
// CHECK-NEXT: entry:
// CHECK-NEXT: call void @__accrt_declare(ptr @g, i64 4, ptr @g.acc.init, i32 1,
// CHECK-NEXT: call void @__accrt_declare(ptr @zeros, i64 32, ptr null, i32 1,
// CHECK-NEXT: call void @__accrt_declare(ptr getelementptr (i8, ptr @tab, i64 4), i64 12, ptr getelementptr (i8, ptr @tab.acc.init, i64 4), i32 1,
// CHECK-NEXT: call void @__accrt_declare(ptr @ext, i64 16, ptr @ext, i32 1,
// CHECK-NEXT: call void @__accrt_declare(ptr @res, i64 128, ptr null, i32 3,
// CHECK-NEXT: call void @__accrt_declare(ptr @scratch, i64 40, ptr null, i32 3,
// CHECK-NEXT: ret void

static int scaled(int i) { return i * g + tab[i % 5] + lnk[i % 3]; }

// The kernel captures the declared globals its callee uses; the stub finds them present.
// CHECK-LABEL: define dso_local void @callee(
// CHECK: acc.launch:
// CHECK-DAG: call ptr @__accrt_translate(ptr @g, ptr @g,
// CHECK-DAG: call ptr @__accrt_translate(ptr @tab, ptr getelementptr (i8, ptr @tab, i64 4),
// CHECK-DAG: call ptr @__accrt_translate(ptr @lnk, ptr @lnk,
// CHECK: call void @__accrt_launch(
void callee(int *out, int n) {
#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) out[i] = scaled(i);
}

// A function-scope declare: entered at the directive, exited before the return (reverse
// order: the second directive's items first); the locals' lifetime end and the VLA's stack
// restore are gone.
// CHECK-LABEL: define dso_local i32 @fn(
// CHECK: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 40, i32 0,
// CHECK: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 2,
// CHECK: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 3,
// CHECK-NOT: llvm.lifetime.end.p0(ptr %loc)
// CHECK-NOT: llvm.stackrestore
// CHECK: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 3,
// CHECK: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 2,
// CHECK: call void @__accrt_data_exit(ptr %{{.*}}, i64 40, i32 0,
// CHECK-NEXT: ret i32
int fn(int *a, int n, int early) {
  int loc[10];
  int vla[n];
#pragma acc declare copy(loc) copyout(a[0:n])
#pragma acc declare create(vla)
  if (early) return 1;
#pragma acc parallel loop
  for (int i = 0; i < n; i++) a[i] = vla[i % n] + loc[i % 10];
  return 0;
}

static int twice_g(int i) { return 2 * g + i; }
void unlinked(int *out, int n) {
#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) out[i] = twice_g(i);
}

// The emulator's copies: the kernel stores the addresses, the callee loads them.
// CHECK-LABEL: define internal void @__accemu.kernel.callee_l{{[0-9]+}}(
// CHECK-NEXT: acc.entry:
// CHECK-DAG: store ptr %g, ptr @g.acc.dev
// CHECK-DAG: store ptr %tab, ptr @tab.acc.dev
// CHECK-DAG: store ptr %lnk, ptr @lnk.acc.dev
// CHECK-LABEL: define internal i32 @scaled.{{[0-9]+}}(
// CHECK: %g.device = load ptr, ptr @g.acc.dev
// CHECK: %tab.device = load ptr, ptr @tab.acc.dev
// CHECK: %lnk.device = load ptr, ptr @lnk.acc.dev

#ifdef CASE_LOOP
void in_loop(int n) {
  for (int k = 0; k < n; k++) {
    int t[4];
// LOOP: declare.c:[[@LINE+1]]:9: error: OpenACC 'declare' inside a loop: its data region lasts to the function's return, so it would be entered on every iteration; move it out of the loop
#pragma acc declare create(t)
    t[0] = k;
  }
}
#endif

#ifdef CASE_IF
void in_if(int n) {
  if (n) {
    int t[4];
// IF: declare.c:[[@LINE+1]]:9: error: OpenACC 'declare' in a block that the function can return without finishing (inside an 'if'?): its data region lasts to every return; move it to the function's outermost block
#pragma acc declare create(t)
    t[0] = n;
  }
}
#endif

#ifdef CASE_POINTER_SECTION
float *gp;
// POINTER-SECTION: declare.c:[[@LINE+1]]:9: error: 'gp[0:10]' in a file-scope 'declare' must be a global variable or a section of a global array with constant bounds (its address must be known before the program runs)
#pragma acc declare create(gp[0:10])
#endif

#ifdef CASE_DEVICEPTR
float *dp;
// DEVICEPTR: declare.c:[[@LINE+1]]:9: error: 'deviceptr(dp)' in a file-scope 'declare': only create, copyin, device_resident and link are allowed there
#pragma acc declare deviceptr(dp)
#endif

#ifdef CASE_TABLE
// A table of declared globals' addresses: its device copy is filled with their device
// addresses at each kernel's start (globals.rs patch_tables; tests/e2e/declare_table.c).
int *const ptab[2] = {&g, &g};
static int through_table(int i) { return *ptab[i % 2]; }
void table(int *out, int n) {
#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) out[i] = through_table(i);
}
#endif

#ifdef CASE_DECLARED_TABLE
// A declared table's device copy holds the host's bytes: the host's addresses.
int *dtab[2] = {&g, &g};
#pragma acc declare copyin(dtab)
static int through_declared(int i) { return *dtab[i % 2]; }
void declared_table(int *out, int n) {
// DECLARED-TABLE: declare.c:[[@LINE+1]]:9: error: the address of the declared global 'g' sits in the initialiser of 'dtab', which a 'declare' also names: its device copy starts as the host's bytes
#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) out[i] = through_declared(i);
}
#endif

#ifdef CASE_IN_COMPUTE
void in_compute(int *out, int n) {
#pragma acc parallel loop copyout(out[0:n])
  for (int i = 0; i < n; i++) {
    int t = i;
// IN-COMPUTE: declare.c:[[@LINE+1]]:9: error: OpenACC 'declare' is not allowed inside a compute region
#pragma acc declare copy(t)
    out[i] = t;
  }
}
#endif
