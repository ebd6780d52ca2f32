// self(c) and self on compute constructs: a "self" clause with one i64 condition (self
// alone: 1); the host stub runs the host fallback when it is non-zero (tests/e2e/self_clause.c).
// RUN: %accc -O0 -emit-llvm -S %s -o - | FileCheck %s
// RUN: %accc -O1 -S -emit-llvm %s -o %t.ll && %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s --check-prefix=STUB

// CHECK-DAG: [[SELF:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"self\00"

// CHECK-LABEL: define dso_local void @f(
// CHECK: call void @__acc_begin(i32 noundef 1,
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[SELF]], i64 noundef %{{.*}})
// CHECK: call void @__acc_begin(i32 noundef 2,
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[SELF]], i64 noundef 1)
// STUB-LABEL: define dso_local void @f(
// STUB: %acc.use_device = call i32 @__accrt_use_device()
// STUB: icmp eq i64
// STUB: br i1 %{{.*}}, label %acc.launch{{.*}}, label %acc.host
void f(int *a, int n, int c) {
#pragma acc parallel loop self(c > 1) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i]++;
#pragma acc serial self
  a[0] = 1;
}
