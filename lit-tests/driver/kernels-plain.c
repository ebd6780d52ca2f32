// The rewriter's implicit loops (driver/src/implicit.rs): each plain `for` of a `kernels`
// construct that it can read gets a `loop` directive of its own with the `implicit` mark
// (a fresh id, the position of its `for`), nested loops too; the loops it leaves unmarked
// are `implicit.seq` clauses of the construct (line, column, reason), `while` and `do` loops
// too; loops inside those, inside a `loop seq`, or a `kernels loop`'s collapsed loops get
// nothing.
// RUN: %accc -O0 -emit-llvm -S %s -o - | FileCheck %s

// CHECK-DAG: [[KERNELS:@.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"kernels\00"
// CHECK-DAG: [[KLOOP:@.str[.0-9]*]] = private unnamed_addr constant [13 x i8] c"kernels loop\00"
// CHECK-DAG: [[LOOP:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"loop\00"
// CHECK-DAG: [[IMPLICIT:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"implicit\00"
// CHECK-DAG: [[NOTE:@.str[.0-9]*]] = private unnamed_addr constant [13 x i8] c"implicit.seq\00"
// CHECK-DAG: [[OUTSIDE:@.str[.0-9]*]] = private unnamed_addr constant {{.*}} c"not a countable loop of its own: its variable 'k' is declared before it (declare it in the 'for' to let the compiler privatise it)\00"
// CHECK-DAG: [[BREAK:@.str[.0-9]*]] = private unnamed_addr constant {{.*}} c"a 'break' leaves it early\00"
// CHECK-DAG: [[HEADER:@.str[.0-9]*]] = private unnamed_addr constant {{.*}} c"not a countable loop (its header is not 'for (int i = lo; i < hi; i += step)')\00"
// CHECK-DAG: [[WHILE:@.str[.0-9]*]] = private unnamed_addr constant {{.*}} c"not a countable loop (a 'while' loop: only 'for' loops are analysed)\00"

// A Jacobi-like nest: both loops marked, the inner one closing first.
// CHECK-LABEL: define dso_local void @nest(
// CHECK: call void @__acc_begin(i32 noundef 1, ptr noundef [[KERNELS]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+9]], i32 noundef 9)
// CHECK: call void @__acc_begin(i32 noundef 2, ptr noundef [[LOOP]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+9]], i32 noundef 3)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[IMPLICIT]])
// CHECK: call void @__acc_begin(i32 noundef 3, ptr noundef [[LOOP]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+8]], i32 noundef 5)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 3, ptr noundef [[IMPLICIT]])
// CHECK: call void @__acc_end(i32 noundef 3)
// CHECK: call void @__acc_end(i32 noundef 2)
// CHECK-NEXT: call void @__acc_end(i32 noundef 1)
void nest(int n, int m, const double *restrict a, double *restrict b) {
#pragma acc kernels copyin(a[0:n*m]) copyout(b[0:n*m])
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      b[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1]);
}

// Unmarked loops: notes on the construct, in source order, then the marked loops; nothing
// for the loop inside the while loop (which has a note) or inside the loop left by a break.
// CHECK-LABEL: define dso_local void @block(
// CHECK: call void @__acc_begin(i32 noundef 4, ptr noundef [[KERNELS]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+16]], i32 noundef 9)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[NOTE]], i64 noundef [[#@LINE+17]], i64 noundef 5, ptr noundef [[OUTSIDE]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[NOTE]], i64 noundef [[#@LINE+17]], i64 noundef 5, ptr noundef [[WHILE]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[NOTE]], i64 noundef [[#@LINE+20]], i64 noundef 5, ptr noundef [[BREAK]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[NOTE]], i64 noundef [[#@LINE+25]], i64 noundef 7, ptr noundef [[HEADER]])
// CHECK: call void @__acc_begin(i32 noundef 5, ptr noundef [[LOOP]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+22]], i32 noundef 5)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 5, ptr noundef [[IMPLICIT]])
// CHECK: call void @__acc_begin(i32 noundef 6, ptr noundef [[LOOP]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+23]], i32 noundef 14)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 6, ptr noundef [[IMPLICIT]])
// CHECK: call void @__acc_end(i32 noundef 6)
// CHECK: call void @__acc_end(i32 noundef 5)
// CHECK: call void @__acc_end(i32 noundef 4)
// CHECK-NOT: __acc_begin
// CHECK-LABEL: define dso_local void @kloop(
void block(int n, double *restrict x, int *restrict out) {
  int k, t = 0;
#pragma acc kernels copy(x[0:n], out[0:1])
  {
    for (k = 0; k < n; k++) x[k] = 1;
    while (t < 3) {
      for (int i = 0; i < n; i++) x[i] += 1;
      t++;
    }
    for (int i = 0; i < n; i++) {
      if (x[i] > 9) break;
      for (int j = 0; j < 4; j++) x[i] += j;
    }
    for (int i = 0; i < n; i++) {
      int c = 0;
      for (; c < 3;) c++;
      if (c) for (int j = 0; j < 2; j++) x[i] += j;
    }
  }
}

// kernels loop: the collapsed loops are the directive's; the loop inside them is marked;
// a loop seq's loops are left alone.
// CHECK: call void @__acc_begin(i32 noundef 7, ptr noundef [[KLOOP]],
// CHECK: call void @__acc_begin(i32 noundef 8, ptr noundef [[LOOP]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+9]], i32 noundef 7)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 8, ptr noundef [[IMPLICIT]])
// CHECK: call void @__acc_begin(i32 noundef 9, ptr noundef [[LOOP]],
// CHECK-NOT: [[IMPLICIT]]
// CHECK: call void @__acc_end(i32 noundef 7)
void kloop(int n, double *restrict x) {
#pragma acc kernels loop collapse(2) copy(x[0:n*n*4])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      for (int q = 0; q < 4; q++) x[(i * n + j) * 4 + q] = q;
#pragma acc loop seq
      for (int q = 1; q < 4; q++)
        for (int r = 0; r < 2; r++) x[(i * n + j) * 4 + q] += x[(i * n + j) * 4 + q - 1];
    }
}
