// The contract IR for combined constructs: data sections, macros in clauses, _Pragma in a
// macro, a line continuation, and a pragma'd function in an #include'd header.
// RUN: %accc -O0 -emit-llvm -S %s -o - | FileCheck %s

#include "Inputs/acc-header.h"

#define N 100
#define ACC(x) _Pragma(#x)
#define FOR_ALL(i, n) ACC(acc kernels loop copyout(y[0:N])) for (int i = 0; i < n; i++)

// CHECK-DAG: [[PL:@.str[.0-9]*]] = private unnamed_addr constant [14 x i8] c"parallel loop\00"
// CHECK-DAG: [[KL:@.str[.0-9]*]] = private unnamed_addr constant [13 x i8] c"kernels loop\00"
// CHECK-DAG: [[FILE:@.str[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"{{.*}}parallel-loop.c\00"
// CHECK-DAG: [[HDR:@.str[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"{{.*}}Inputs/acc-header.h\00"
// CHECK-DAG: [[COPY:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"copy\00"
// CHECK-DAG: [[COPYIN:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"copyin\00"
// CHECK-DAG: [[COPYOUT:@.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"copyout\00"
// CHECK-DAG: [[YN:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"y[0:n]\00"
// CHECK-DAG: [[XN:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"x[0:n]\00"
// CHECK-DAG: [[Y2N:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"y[2:N-2]\00"
// CHECK-DAG: [[YBIGN:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"y[0:100]\00"
// CHECK-DAG: [[VN:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"v[0:n]\00"
// CHECK-DAG: [[XS:@.str[.0-9]*]] = private unnamed_addr constant [6 x i8] c"x[:N]\00"

// CHECK-LABEL: define dso_local void @saxpy(
// CHECK: call void @__acc_begin(i32 noundef [[#ID:]], ptr noundef [[PL]], ptr noundef [[FILE]], i32 noundef [[#@LINE+7]], i32 noundef 11)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef [[#ID]], ptr noundef [[COPY]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 4, ptr noundef [[YN]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef [[#ID]], ptr noundef [[COPYIN]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 4, ptr noundef [[XN]])
// CHECK: for.body:
// CHECK: call void @__acc_end(i32 noundef [[#ID]])
// CHECK-NEXT: ret void
void saxpy(int n, float a, float *x, float *y) {
  #pragma acc parallel loop copy(y[0:n]) copyin(x[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

// Macros in clauses are expanded (the text operand keeps what the user wrote); a line
// continuation joins the pragma; the position is that of 'acc' on the first line.
// CHECK-LABEL: define dso_local void @macros(
// CHECK: call void @__acc_begin(i32 noundef [[#ID:]], ptr noundef [[PL]], ptr noundef [[FILE]], i32 noundef [[#@LINE+5]], i32 noundef 9)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef [[#ID]], ptr noundef [[COPY]], ptr noundef %{{.*}}, i64 noundef 2, i64 noundef 98, i64 noundef 4, ptr noundef [[Y2N]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef [[#ID]], ptr noundef [[COPYIN]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef 100, i64 noundef 4, ptr noundef [[XS]])
// CHECK: call void @__acc_end(i32 noundef [[#ID]])
void macros(float *x, float *y) {
#pragma acc parallel loop copy(y[2:N-2]) \
                          copyin(x[:N])
  for (int i = 2; i < N; i++)
    y[i] += x[i];
}

// _Pragma inside a nested macro: reported at the macro use (its first column); the clause
// text is the expanded one, as the macro body is not on this line.
// CHECK-LABEL: define dso_local void @pragma_operator(
// CHECK: call void @__acc_begin(i32 noundef [[#ID:]], ptr noundef [[KL]], ptr noundef [[FILE]], i32 noundef [[#@LINE+4]], i32 noundef 3)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef [[#ID]], ptr noundef [[COPYOUT]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef 100, i64 noundef 4, ptr noundef [[YBIGN]])
// CHECK: call void @__acc_end(i32 noundef [[#ID]])
void pragma_operator(float *y) {
  FOR_ALL(i, N) y[i] = i;
}

void use_header(float *v) { scale(v, 8, 2.0f); }

// The header's function (emitted last): file and line are the header's own.
// CHECK-LABEL: define internal void @scale(
// CHECK: call void @__acc_begin(i32 noundef 1, ptr noundef [[PL]], ptr noundef [[HDR]], i32 noundef 3, i32 noundef 9)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COPY]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 4, ptr noundef [[VN]])
// CHECK: call void @__acc_end(i32 noundef 1)
