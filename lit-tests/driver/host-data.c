// host_data use_device: the contract carries each item as a *var* (a whole variable's
// address, or a section's decayed base); the pass gives each item a slot set to
// __accrt_use_device_addr(host address, flags, loc, text) in the construct's header (under
// `if`, only when true: the slot keeps the host address), and the construct's uses of the
// variable see the slot: a pointer variable's storage becomes the slot, an array becomes the
// slot's value. if_present is ACCRT_IF_PRESENT (0x400) in flags. Uses outside the construct
// are untouched.
// RUN: %accc -O0 -emit-llvm -S %s -o %t.ll
// RUN: FileCheck %s --check-prefix=CONTRACT < %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s
// RUN: %accc -O2 -c %s -o %t.o
// RUN: not %accc -O0 -c -DCASE_SCALAR %s -o %t.o 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not %accc -O0 -c -DCASE_IN_COMPUTE %s -o %t.o 2>&1 | FileCheck %s --check-prefix=IN-COMPUTE

void take(void *);
float g[8];
float *gp;

// CONTRACT-LABEL: define dso_local void @pointer(
// CONTRACT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef @{{.*}}, ptr noundef %a.addr, i64 noundef 0, i64 noundef 1, i64 noundef 8, ptr noundef @{{.*}})
// CHECK-LABEL: define dso_local void @pointer(
// CHECK: %a.use_device = alloca ptr
// CHECK: %[[HOST:[0-9]+]] = load ptr, ptr %a.addr
// CHECK-NEXT: %[[DEV:[0-9]+]] = call ptr @__accrt_use_device_addr(ptr %[[HOST]], i32 0, ptr @.acc.loc{{[.0-9]*}}, ptr @.acc.text{{[.0-9]*}})
// CHECK-NEXT: store ptr %[[DEV]], ptr %a.use_device
// CHECK: acc.host_data:
// CHECK-NEXT: %[[P:[0-9]+]] = load ptr, ptr %a.use_device
// CHECK-NEXT: call void @take(ptr noundef %[[P]])
// CHECK: load ptr, ptr %a.use_device
// CHECK: acc.host_data.end:
// After the construct: the host pointer again.
// CHECK: load ptr, ptr %a.addr
// CHECK: ret void
void pointer(float *a, int n) {
#pragma acc host_data use_device(a)
  {
    take(a);
    take(&a[2]);
  }
  take(a);
}

// A section names its variable: `a[0:n]` redirects `a`.
// CONTRACT-LABEL: define dso_local void @section(
// CONTRACT: %[[A:[0-9]+]] = load ptr, ptr %a.addr
// CONTRACT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef @{{.*}}, ptr noundef %[[A]], i64 noundef 0,
// CHECK-LABEL: define dso_local void @section(
// CHECK: call ptr @__accrt_use_device_addr(
// CHECK: acc.host_data:
// CHECK-NEXT: load ptr, ptr %a.use_device
void section(float *a, int n) {
#pragma acc host_data use_device(a[0:n])
  take(a);
}

// Arrays (a local, a global, reached through constant expressions too) become the slot's
// value; a global pointer's storage becomes the slot. `if` guards the lookups.
// CHECK-LABEL: define dso_local void @arrays(
// CHECK-DAG: %loc.use_device = alloca ptr
// CHECK-DAG: %g.use_device = alloca ptr
// CHECK-DAG: %gp.use_device = alloca ptr
// CHECK: store ptr %loc, ptr %loc.use_device
// CHECK: store ptr @g, ptr %g.use_device
// CHECK: %[[GP:[0-9]+]] = load ptr, ptr @gp
// CHECK: store ptr %[[GP]], ptr %gp.use_device
// CHECK: br i1 %{{.*}}, label %acc.data.if, label %acc.data.cont
// CHECK: acc.data.if:
// CHECK: call ptr @__accrt_use_device_addr(ptr %loc, i32 1024,
// CHECK: call ptr @__accrt_use_device_addr(ptr @g, i32 1024,
// CHECK: call ptr @__accrt_use_device_addr(ptr %[[GP]], i32 1024,
// CHECK: acc.host_data:
// CHECK: %loc.device = load ptr, ptr %loc.use_device
// CHECK: %g.device = load ptr, ptr %g.use_device
// CHECK: getelementptr inbounds [10 x float], ptr %loc.device
// CHECK: getelementptr inbounds [8 x float], ptr %g.device, i64 0, i64 3
// CHECK: load ptr, ptr %gp.use_device
// CHECK: acc.host_data.end:
void arrays(int n) {
  float loc[10];
#pragma acc host_data use_device(loc, g, gp) if_present if(n)
  take(loc + 1), take(&g[3]), take(gp);
}

#ifdef CASE_SCALAR
void scalar(int n) {
// SCALAR: host-data.c:[[@LINE+1]]:9: error: use_device(n): accc needs a pointer or an array variable here (its uses inside host_data see the device address)
#pragma acc host_data use_device(n)
  take(&n);
}
#endif

#ifdef CASE_IN_COMPUTE
void in_compute(float *a, int n) {
#pragma acc parallel loop copy(a[0:n])
  for (int i = 0; i < n; i++) {
// IN-COMPUTE: host-data.c:[[@LINE+1]]:9: error: OpenACC 'host_data' is not allowed inside a compute region
#pragma acc host_data use_device(a)
    a[i] = 1;
  }
}
#endif
