// collapse(force: n): the modifier is dropped, the contract is collapse(n); code between the
// loops runs once per iteration of the collapsed space (tests/e2e/collapse_force.c).
// RUN: %accc -O0 -emit-llvm -S %s -o - | FileCheck %s

// CHECK-DAG: [[COLLAPSE:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"collapse\00"
// CHECK-LABEL: define dso_local void @f(
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COLLAPSE]], i64 noundef 2)
void f(int *a, int n, int m) {
#pragma acc parallel loop collapse(force: 2) copy(a[0:n * m])
  for (int i = 0; i < n; i++) {
    int t = i * 2;
    for (int j = 0; j < m; j++) a[i * m + j] = t + j;
  }
}
