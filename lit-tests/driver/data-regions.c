// Structured data region with a nested compute construct, enter/exit data and update.
// RUN: %accc -O0 -emit-llvm -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// Lowered: data regions and compute constructs count on the structured reference counter
// (plain kinds), enter/exit data on the dynamic one (ACCRT_DYNAMIC = 0x100), finalize adds
// ACCRT_FINALIZE (0x200), update's if_present is ACCRT_IF_PRESENT (0x400) in its flags.
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: define dso_local void @region(
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 3,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 16, i32 0,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 128, i32 0,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 4,
// Exits in reverse order, the items that copy out (kind 0) after the others.
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 4,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 3,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 128, i32 0,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 16, i32 0,
// LOWERED-LABEL: define dso_local void @unstructured(
// create | DYNAMIC
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 259,
// LOWERED: call void @__accrt_update_device(ptr %{{.*}}, i64 %{{.*}}, i32 0,
// LOWERED: call void @__accrt_update_self(ptr %{{.*}}, i64 %{{.*}}, i32 1024,
// delete | DYNAMIC | FINALIZE
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 774,

// CHECK-DAG: [[DATA:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"data\00"
// CHECK-DAG: [[KERNELS:@.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"kernels\00"
// CHECK-DAG: [[ENTER:@.str[.0-9]*]] = private unnamed_addr constant [11 x i8] c"enter data\00"
// CHECK-DAG: [[EXIT:@.str[.0-9]*]] = private unnamed_addr constant [10 x i8] c"exit data\00"
// CHECK-DAG: [[UPDATE:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"update\00"
// CHECK-DAG: [[CREATE:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"create\00"
// CHECK-DAG: [[PRESENT:@.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"present\00"
// CHECK-DAG: [[DELETE:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"delete\00"
// CHECK-DAG: [[SELF:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"self\00"
// CHECK-DAG: [[DEVICE:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"device\00"
// CHECK-DAG: [[IF:@.str[.0-9]*]] = private unnamed_addr constant [3 x i8] c"if\00"
// CHECK-DAG: [[FINALIZE:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"finalize\00"
// CHECK-DAG: [[IFPRESENT:@.str[.0-9]*]] = private unnamed_addr constant [11 x i8] c"if_present\00"
// CHECK-DAG: [[COPY:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"copy\00"
// CHECK-DAG: [[TEXT_T:@.str[.0-9]*]] = private unnamed_addr constant [2 x i8] c"t\00"
// CHECK-DAG: [[TEXT_A:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"a[:]\00"

struct S { int k; double d; };

// CHECK-LABEL: define dso_local void @region(
// CHECK: call void @__acc_begin(i32 noundef 1, ptr noundef [[DATA]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+15]], i32 noundef 9)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[CREATE]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 8, ptr noundef
// Whole struct and whole array: &v, 0, 1, sizeof(v).
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COPY]], ptr noundef %t, i64 noundef 0, i64 noundef 1, i64 noundef 16, ptr noundef [[TEXT_T]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COPY]], ptr noundef %arraydecay, i64 noundef 0, i64 noundef 32, i64 noundef 4, ptr noundef [[TEXT_A]])
// CHECK: call void @__acc_begin(i32 noundef 2, ptr noundef [[KERNELS]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[PRESENT]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 8, ptr noundef
// CHECK: for.body:
// The plain loop is an implicit loop directive of its own (driver/src/implicit.rs).
// CHECK: call void @__acc_end(i32 noundef 3)
// CHECK: call void @__acc_end(i32 noundef 2)
// CHECK-NEXT: call void @__acc_end(i32 noundef 1)
void region(double *v, int n) {
  struct S t = {1, 2.0};
  int a[32];
#pragma acc data create(v[0:n]) copy(t, a[:])
#pragma acc kernels present(v[0:n])
  for (int i = 0; i < n; i++)
    v[i] = t.d * i + a[i % 32];
}

// CHECK-LABEL: define dso_local void @unstructured(
// CHECK: call void @__acc_begin(i32 noundef 4, ptr noundef [[ENTER]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[CREATE]], ptr noundef %{{.*}}, i64 noundef 1, i64 noundef %{{.*}}, i64 noundef 8,
// CHECK-NEXT: call void @__acc_end(i32 noundef 4)
// CHECK: call void @__acc_begin(i32 noundef 5, ptr noundef [[UPDATE]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 5, ptr noundef [[DEVICE]], ptr noundef %{{.*}}, i64 noundef 1, i64 noundef %{{.*}}, i64 noundef 8,
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 5, ptr noundef [[IF]], i64 noundef %{{.*}})
// CHECK-NEXT: call void @__acc_end(i32 noundef 5)
// CHECK: call void @__acc_begin(i32 noundef 6, ptr noundef [[UPDATE]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 6, ptr noundef [[SELF]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 6, ptr noundef [[IFPRESENT]])
// CHECK-NEXT: call void @__acc_end(i32 noundef 6)
// CHECK: call void @__acc_begin(i32 noundef 7, ptr noundef [[EXIT]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 7, ptr noundef [[DELETE]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 7, ptr noundef [[FINALIZE]])
// CHECK-NEXT: call void @__acc_end(i32 noundef 7)
void unstructured(double *v, int n) {
#pragma acc enter data create(v[1:n-1])
  if (n > 1) {
#pragma acc update device(v[1:n-1]) if(n > 4)
  }
#pragma acc update self(v[1:n-1]) if_present
#pragma acc exit data delete(v[1:n-1]) finalize
}
