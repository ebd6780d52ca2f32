// attach/detach clauses, the attach action of data clause items based on a struct member or
// an element, create(zero:)/copyout(zero:), and two-dimensional sections.
// RUN: %accc -O0 -emit-llvm -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s --check-prefix=LOWERED
// Errors: a section that is not contiguous, one whose rows are pointers in a clause that maps
// no data (checked by the pass, at the directive).
// RUN: not %accc -DAPART -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=APART
// RUN: not %accc -DAPART_ELEMENT -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=APART_ELEMENT
// RUN: %accc -O0 -DROWS -emit-llvm -S %s -o %t.prows.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.prows.ll -S -o - | FileCheck %s --check-prefix=ROWS
// RUN: %accc -O0 -DROWS_GLOBAL -emit-llvm -S %s -o %t.rows.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.rows.ll -S -o - | FileCheck %s --check-prefix=ROWS-GLOBAL

// CHECK-DAG: [[ATTACH:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"attach\00"
// CHECK-DAG: [[DETACH:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"detach\00"
// CHECK-DAG: [[COPYIN:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"copyin\00"
// CHECK-DAG: [[CREATEZ:@.str[.0-9]*]] = private unnamed_addr constant [12 x i8] c"create.zero\00"
// CHECK-DAG: [[COPYOUTZ:@.str[.0-9]*]] = private unnamed_addr constant [13 x i8] c"copyout.zero\00"
// CHECK-DAG: [[COPY:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"copy\00"
// CHECK-DAG: [[SP:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"s->p\00"
// CHECK-DAG: [[SARR:@.str[.0-9]*]] = private unnamed_addr constant [7 x i8] c"s->arr\00"

struct S { double *p; double arr[4]; };

// CHECK-LABEL: define dso_local void @enter_exit(
// An explicit attach is the pointer's address, 8 bytes.
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[ATTACH]], ptr noundef %p, i64 noundef 0, i64 noundef 1, i64 noundef 8, ptr noundef [[SP]])
// A member section is followed by its attach action: the member's address (the next
// clause call; only the operands' computations lie between).
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[COPYIN]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 8, ptr noundef
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[ATTACH]], ptr noundef %p{{[0-9]+}}, i64 noundef 0, i64 noundef 1, i64 noundef 8, ptr noundef [[SP]])
// An array member has no pointer to attach: null, which the pass drops.
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[CREATEZ]], ptr noundef %arraydecay, i64 noundef 0, i64 noundef 4, i64 noundef 8, ptr noundef
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[ATTACH]], ptr noundef null, i64 noundef 0, i64 noundef 1, i64 noundef 8, ptr noundef [[SARR]])
// On exit data the action is a detach.
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[COPYOUTZ]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[DETACH]], ptr noundef %p{{[0-9]+}}, i64 noundef 0, i64 noundef 1, i64 noundef 8, ptr noundef [[SP]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[DETACH]], ptr noundef %p{{[0-9]+}}, i64 noundef 0, i64 noundef 1, i64 noundef 8, ptr noundef [[SP]])
//
// Attached after every entry; create(zero:) is CREATE | DYNAMIC | ZERO (0x903).
// LOWERED-LABEL: define dso_local void @enter_exit(
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 40, i32 257,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 257,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 32, i32 2307,
// LOWERED: call void @__accrt_attach(ptr %{{.*}}, i32 0,
// LOWERED: call void @__accrt_attach(ptr %{{.*}}, i32 0,
// LOWERED-NOT: __accrt_attach
// Detached (finalize: 0x200) before every exit; copyout(zero:) is COPYOUT | DYNAMIC | FINALIZE | ZERO.
// LOWERED: call void @__accrt_detach(ptr %{{.*}}, i32 512,
// LOWERED: call void @__accrt_detach(ptr %{{.*}}, i32 512,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 2818,
void enter_exit(struct S *s, int n) {
#pragma acc enter data copyin(s[0:1]) attach(s->p) copyin(s->p[0:n]) create(zero: s->arr[0:4])
#pragma acc exit data copyout(zero: s->p[0:n]) detach(s->p) finalize
}

// CHECK-LABEL: define dso_local void @compute(
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 3, ptr noundef [[COPY]],
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 3, ptr noundef [[ATTACH]], ptr noundef %b{{[0-9]*}}, i64 noundef 0, i64 noundef 1, i64 noundef 8,
// The struct value is mapped implicitly (implicit items enter first, so a clause item that is
// part of one finds it present): attached after both, detached before either exits.
// LOWERED-LABEL: define dso_local void @compute(
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 16, i32 0,
// LOWERED: call {{.*}}@__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 0,
// LOWERED: call void @__accrt_attach(
// LOWERED: call void @__accrt_launch(
// LOWERED: call void @__accrt_detach(
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 0,
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 16, i32 0,
struct V { double *a; double *b; };
void compute(int n) {
  struct V v;
#pragma acc parallel loop copy(v.b[0:n])
  for (int i = 0; i < n; i++) v.b[i] = i;
}

// Two-dimensional sections: a `lower, length, extent` triple per trailing dimension after
// the text; a plain pointer section (`q[0:n]`) has no attach action.
// CHECK-LABEL: define dso_local void @matrix(
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[COPYIN]], ptr noundef %{{.*}}, i64 noundef 1, i64 noundef %{{.*}}, i64 noundef 56, ptr noundef {{@.str[.0-9]*}}, i64 noundef 0, i64 noundef 7, i64 noundef 7)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[COPYIN]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 56, ptr noundef {{@.str[.0-9]*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 7)
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 4, ptr noundef [[COPYIN]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 8, ptr noundef {{@.str[.0-9]*}})
// CHECK: call void @__acc_end(i32 noundef 4)
// Constant whole dimensions need no check; one only known at run time is checked there.
// LOWERED-LABEL: define dso_local void @matrix(
// LOWERED: call void @__accrt_check_dim(i64 0, i64 %{{.*}}, i64 7, i32 2,
// LOWERED-NOT: __accrt_check_dim
// LOWERED: call {{.*}}@__accrt_data_enter(
void matrix(double a[][7], double *q, int m, int n) {
#pragma acc enter data copyin(a[1:n][0:7]) copyin(a[0:n][0:m]) copyin(q[0:n])
#ifdef APART
// APART: attach.c:[[@LINE+1]]:9: error: 'a[0:n][2:5]' in a 'copy' clause is not contiguous: dimension 2 takes [2:5] of rows of 7 elements, so the parts of the rows lie apart in memory; accc maps contiguous sections only: every dimension after the first must be whole ([0:7] or [:])
#pragma acc data copy(a[0:n][2:5])
  a[0][0] = 1;
#endif
#ifdef APART_ELEMENT
// A subscript after a section is a section of one element there: not contiguous either.
// APART_ELEMENT: attach.c:[[@LINE+1]]:9: error: 'a[1:2][3]' in a 'copyin' clause is not contiguous: dimension 2 takes [3:1] of rows of 7 elements
#pragma acc enter data copyin(a[1:2][3])
#endif
}

// Sections through pointer rows: the extent of a dimension whose rows are pointers is minus
// the size of their elements (-8 for double, -4 for int); data clauses and update map them
// row by row through the `_rows` entry points, the levels in an array, the queue last
// (acc_async_sync, -2, without async).
// CHECK-LABEL: define dso_local void @rows(
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 5, ptr noundef [[COPY]], ptr noundef %{{.*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef 8, ptr noundef {{@.str[.0-9]*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef -8)
// CHECK: @__acc_clause(i32 noundef 6, ptr noundef {{@.str[.0-9]*}}, ptr noundef %{{.*}}, i64 noundef 1, i64 noundef %{{.*}}, i64 noundef 8, ptr noundef {{@.str[.0-9]*}}, i64 noundef 0, i64 noundef %{{.*}}, i64 noundef -8, i64 noundef 2, i64 noundef 3, i64 noundef -4)
// LOWERED-LABEL: define dso_local void @rows(
// LOWERED: %acc.rows{{[0-9]*}} = alloca [6 x i64]
// LOWERED: %acc.rows{{[0-9]*}} = alloca [3 x i64]
// LOWERED: call void @__accrt_data_enter_rows(ptr %{{.*}}, i64 %{{.*}}, ptr %acc.rows{{[0-9]*}}, i32 1, i32 0, ptr {{.*}}, ptr {{.*}}, i64 -2)
// LOWERED: call void @__accrt_update_self_rows(ptr %{{.*}}, i64 %{{.*}}, ptr %acc.rows{{[0-9]*}}, i32 2, i32 0, ptr {{.*}}, ptr {{.*}}, i64 2)
// LOWERED: call void @__accrt_data_exit_rows(ptr %{{.*}}, i64 %{{.*}}, ptr %acc.rows{{[0-9]*}}, i32 1, i32 0, ptr {{.*}}, ptr {{.*}}, i64 -2)
// LOWERED-NOT: call void @__accrt_data_exit(
void rows(double **p, int n, int m, int ***q) {
#pragma acc data copy(p[0:n][0:m])
  {
#pragma acc update self(q[1:n][0:m][2:3]) async(2)
  }
}

#ifdef ROWS
// Private copies through two levels of pointer rows (tests/e2e/private_rows.c): the kernel
// passes each level's count and rebase to __acc_private_rows in an array of its own.
// ROWS-LABEL: define internal void @private_rows_l{{[0-9]+}}(
// ROWS: %acc.private.rows = alloca [4 x i64]
// ROWS: call void @__acc_private_rows(ptr %q.copy, i64 2, ptr %acc.private.rows, i64 %{{[0-9]+}}, ptr null, i64 0)
void private_rows(int ***q, int n, int m) {
#pragma acc parallel loop private(q[0:n][0:m][0:2])
  for (int i = 0; i < n; i++) q[0][0][0] = 1;
}
#endif


#ifdef ROWS_GLOBAL
// A file-scope one registers the section with its levels (mapped at the first use from the
// row pointers the global holds then).
// ROWS-GLOBAL: @[[LEVELS:\.acc\.rows[.0-9]*]] = private constant [3 x i64] [i64 0, i64 8, i64 8]
// ROWS-GLOBAL: call void @__accrt_declare_rows(ptr @rows_g, i64 32, ptr @rows_g, i32 1, ptr @[[LEVELS]], i32 1,
double *rows_g[4];
#pragma acc declare copyin(rows_g[0:4][0:8])
#endif
