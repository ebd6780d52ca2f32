// Data clause items that name a whole variable. A pointer in `present` stands for the data
// it points to (from its first byte; the message names it so); any other variable is
// itself the item. A whole pointer in an entering clause also gets the attach action.
// RUN: %accc -O0 -emit-llvm -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s --check-prefix=LOWERED

// CHECK-DAG: [[COPY:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"copy\00"
// CHECK-DAG: [[ATTACH:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"attach\00"
// CHECK-DAG: [[PRESENT:@.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"present\00"
// CHECK-DAG: [[QTARGET:@.str[.0-9]*]] = private unnamed_addr constant [21 x i8] c"the data q points to\00"
// CHECK-DAG: [[ARR:@.str[.0-9]*]] = private unnamed_addr constant [4 x i8] c"arr\00"

// CHECK-LABEL: define dso_local void @whole(
// copy(p): the pointer variable, 8 bytes, then its attach action.
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COPY]], ptr noundef %p.addr, i64 noundef 0, i64 noundef 1, i64 noundef 8,
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[ATTACH]], ptr noundef %p.addr, i64 noundef 0, i64 noundef 1, i64 noundef 8,
// copy(k): an int has no attach action (null, which the pass drops).
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COPY]], ptr noundef %k.addr, i64 noundef 0, i64 noundef 1, i64 noundef 4,
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[ATTACH]], ptr noundef null,
// present(q): q's value, one byte, and no attach action.
// CHECK: [[Q:%[0-9]+]] = load ptr, ptr %q.addr
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[PRESENT]], ptr noundef [[Q]], i64 noundef 0, i64 noundef 1, i64 noundef 1, ptr noundef [[QTARGET]])
// present(arr): the array itself.
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[PRESENT]], ptr noundef %arr, i64 noundef 0, i64 noundef 1, i64 noundef 24, ptr noundef [[ARR]])
//
// One attach (p's) after the entries, its detach before the exits; the copies out last.
// LOWERED-LABEL: define dso_local void @whole(
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 8, i32 0,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 4, i32 0,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 1, i32 4,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 24, i32 4,
// LOWERED: call void @__accrt_attach(ptr %{{.*}}, i32 0,
// LOWERED-NOT: __accrt_attach
// LOWERED: call void @__accrt_detach(ptr %{{.*}}, i32 0,
// LOWERED-NOT: __accrt_detach
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 24, i32 4,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 1, i32 4,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 4, i32 0,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 8, i32 0,
void whole(double *p, double *q, int n, int k) {
  double arr[3];
#pragma acc parallel loop copy(p, k) present(q, arr)
  for (int i = 0; i < n; i++) {
    p[i] += q[i] + k + arr[i % 3];
  }
}
