// Loop clauses (gang/worker/vector/collapse/seq/private/independent/auto) and compute
// construct clauses (num_gangs/num_workers/vector_length/default/firstprivate).
// RUN: %accc -O0 -emit-llvm -S %s -o - | FileCheck %s

// CHECK-DAG: [[LOOP:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"loop\00"
// CHECK-DAG: [[PAR:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"parallel\00"
// CHECK-DAG: [[SERIAL:@.str[.0-9]*]] = private unnamed_addr constant [12 x i8] c"serial loop\00"
// CHECK-DAG: [[GANG:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"gang\00"
// CHECK-DAG: [[WORKER:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"worker\00"
// CHECK-DAG: [[VECTOR:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"vector\00"
// CHECK-DAG: [[COLLAPSE:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"collapse\00"
// CHECK-DAG: [[SEQ:@.str[.0-9]*]] = private unnamed_addr constant [4 x i8] c"seq\00"
// CHECK-DAG: [[PRIVATE:@.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"private\00"
// CHECK-DAG: [[FPRIV:@.str[.0-9]*]] = private unnamed_addr constant [13 x i8] c"firstprivate\00"
// CHECK-DAG: [[INDEP:@.str[.0-9]*]] = private unnamed_addr constant [12 x i8] c"independent\00"
// CHECK-DAG: [[AUTO:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"auto\00"
// CHECK-DAG: [[NG:@.str[.0-9]*]] = private unnamed_addr constant [10 x i8] c"num_gangs\00"
// CHECK-DAG: [[NW:@.str[.0-9]*]] = private unnamed_addr constant [12 x i8] c"num_workers\00"
// CHECK-DAG: [[VL:@.str[.0-9]*]] = private unnamed_addr constant [14 x i8] c"vector_length\00"
// CHECK-DAG: [[DEFAULT:@.str[.0-9]*]] = private unnamed_addr constant [8 x i8] c"default\00"
// CHECK-DAG: [[NONE:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"none\00"

// CHECK-LABEL: define dso_local void @loops(
// CHECK: call void @__acc_begin(i32 noundef 1, ptr noundef [[PAR]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[NG]], i64 noundef 64, i64 noundef %{{.*}})
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[NW]], i64 noundef 4)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[VL]], i64 noundef 128)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[DEFAULT]], ptr noundef [[NONE]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[FPRIV]], ptr noundef %s.addr, i64 noundef 0, i64 noundef 1, i64 noundef 4,
// CHECK: call void @__acc_begin(i32 noundef 2, ptr noundef [[LOOP]], ptr noundef {{@.str[.0-9]*}}, i32 noundef [[#@LINE+24]], i32 noundef 9)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[GANG]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[WORKER]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[VECTOR]], i64 noundef 32)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[COLLAPSE]], i64 noundef 2)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[PRIVATE]], ptr noundef %t, i64 noundef 0, i64 noundef 1, i64 noundef 4,
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[INDEP]])
// CHECK: call void @__acc_end(i32 noundef 2)
// CHECK: call void @__acc_begin(i32 noundef 3, ptr noundef [[LOOP]],
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 3, ptr noundef [[SEQ]])
// CHECK: call void @__acc_begin(i32 noundef 4, ptr noundef [[LOOP]],
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[WORKER]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[VECTOR]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[AUTO]])
// CHECK: call void @__acc_end(i32 noundef 4)
// CHECK: call void @__acc_end(i32 noundef 3)
// CHECK: call void @__acc_end(i32 noundef 1)
// CHECK: call void @__acc_begin(i32 noundef 5, ptr noundef [[SERIAL]],
// CHECK: call void @__acc_end(i32 noundef 5)
void loops(float m[16][16], float *v, int n, int s) {
  int t;
#pragma acc parallel num_gangs(64, n) num_workers(4) vector_length(128) default(none) \
    firstprivate(s) copy(m[0:16][:]) copy(v[0:n])
  {
#pragma acc loop gang worker vector(32) collapse(2) private(t) independent
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 16; j++) {
        t = i * j + s;
        m[i][j] = t;
      }
#pragma acc loop seq
    for (int i = 1; i < n; i++)
#pragma acc loop worker vector auto
      for (int j = 0; j < 16; j++)
        v[i] += m[j][i % 16];
  }
#pragma acc serial loop
  for (int i = 0; i < n; i++) v[i] = 0;
}
