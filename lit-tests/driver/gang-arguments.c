// gang(num: n), gang(static: s|*), gang(dim: d): `gang` then one contract clause per argument
// (`gang(n)` is `num: n`, `static: *` is -1); tests/e2e/gang_static.c, gang_static_runtime.c
// and gang_dims.c run them. Negative: gang loops nested by a dimension that does not
// decrease, a kernels loop's size computed inside its kernel (a warning), gang(num:) inside a nest.
// RUN: %accc -O0 -emit-llvm -S %s -o - | FileCheck %s
// RUN: not %accc -O1 -c -DBAD1 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD1
// RUN: %accc -O1 -c -DBAD2 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD2
// RUN: not %accc -O1 -c -DBAD3 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD3
// RUN: not %accc -O1 -c -DBAD4 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BAD4

// CHECK-DAG: [[GANG:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"gang\00"
// CHECK-DAG: [[NUM:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"gang.num\00"
// CHECK-DAG: [[STATIC:@.str[.0-9]*]] = private unnamed_addr constant [12 x i8] c"gang.static\00"
// CHECK-DAG: [[DIM:@.str[.0-9]*]] = private unnamed_addr constant [9 x i8] c"gang.dim\00"

// CHECK-LABEL: define dso_local void @f(
void f(int *a, int n) {
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[GANG]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[NUM]], i64 noundef %{{.*}})
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[STATIC]], i64 noundef 4)
#pragma acc kernels loop gang(num: n / 2, static: 4) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i]++;
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[GANG]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[NUM]], i64 noundef 3)
#pragma acc kernels loop gang(3) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i]++;
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 3, ptr noundef [[GANG]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 3, ptr noundef [[STATIC]], i64 noundef -1)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 3, ptr noundef [[DIM]], i64 noundef 1)
#pragma acc parallel loop gang(static: *, dim: 1) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i]++;
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[GANG]])
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[DIM]], i64 noundef 2)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[STATIC]], i64 noundef %{{.*}})
#pragma acc parallel loop gang(dim: 2, static: n) copy(a[0:n])
  for (int i = 0; i < n; i++) a[i]++;
}

#ifdef BAD1
void g1(int *a, int n) {
#pragma acc parallel loop gang(dim: 2) copy(a[0:n * n])
  for (int j = 0; j < n; j++) {
// BAD1: gang-arguments.c:[[@LINE+1]]:9: error: this loop is 'gang(dim: 2)' but it is nested in a 'gang(dim: 2)' loop: a gang loop may contain only gang loops of a lower dimension
#pragma acc loop gang(dim: 2)
    for (int i = 0; i < n; i++) a[j * n + i]++;
  }
}
#endif
#ifdef BAD2
void g2(int *a, int n) {
#pragma acc kernels loop gang worker(4) copy(a[0:n * n])
  for (int j = 0; j < n; j++) {
    int m = j % 3 + 32;
// BAD2: gang-arguments.c:[[@LINE+1]]:9: warning: vector(length:) of this loop is computed inside the kernels construct (or beside another loop's value), too late to size the kernel its loop nest becomes: the kernel's launch does not use it (compute it before the construct, or give it on the loop that tops the nest)
#pragma acc loop vector(m)
    for (int i = 0; i < n; i++) a[j * n + i]++;
  }
}
#endif
#ifdef BAD3
void g3(int *a, int n) {
#pragma acc kernels copy(a[0:n])
  for (int j = 0; j < 2; j++) {
// BAD3: gang-arguments.c:[[@LINE+1]]:9: error: gang(num:) sizes a kernel: it is only allowed on a loop of a 'kernels' construct that is the top of a loop nest
#pragma acc loop gang(num: 2)
    for (int i = 0; i < n; i++) a[i]++;
  }
}
#endif
#ifdef BAD4
#pragma acc routine gang
void g4(int *a, int n) {
// BAD4: gang-arguments.c:[[@LINE+1]]:9: error: this loop is 'gang(dim: 2)' but routine 'g4' is 'gang(dim: 1)': a gang routine's loops use gang dimensions up to its own
#pragma acc loop gang(dim: 2)
  for (int i = 0; i < n; i++) a[i]++;
}
#endif
