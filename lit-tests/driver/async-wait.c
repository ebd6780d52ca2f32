// async and wait clauses and the wait directive: the contract carries each async argument as
// written (a bare `async` is acc_async_noval, -1) and each wait list (the wait directive's
// own list as a `wait` clause; none: every queue); the pass passes the queue to the `_async`
// entry points, makes the construct's queue (the host, -2, without async) wait first, and
// has the host fallback of an async compute construct wait for its queue.
// RUN: %accc -O0 -emit-llvm -S %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s --check-prefix=LOWERED
// A constant async argument that OpenACC does not allow is a compile-time error.
// RUN: not %accc -c -DCONSTANT %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CONSTANT

// CHECK-DAG: [[ASYNC:@.str[.0-9]*]] = private unnamed_addr constant [6 x i8] c"async\00"
// CHECK-DAG: [[WAIT:@.str[.0-9]*]] = private unnamed_addr constant [5 x i8] c"wait\00"

// CHECK-LABEL: define dso_local void @compute(
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[ASYNC]], i64 noundef %{{.*}})
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 1, ptr noundef [[WAIT]], i64 noundef 1, i64 noundef %{{.*}})
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[ASYNC]])
// CHECK: call void (i32, ptr, ...) @__acc_clause(i32 noundef 2, ptr noundef [[WAIT]])
// LOWERED-LABEL: define dso_local void @compute(
// The queue of the first construct is q + 1 (Q); it waits for queues 1 and n.
// LOWERED: call void @__accrt_wait(i64 1, i64 [[Q:%.*]], ptr [[LOC:@.acc.loc[.0-9]*]])
// LOWERED: call void @__accrt_wait(i64 %{{.*}}, i64 [[Q]], ptr [[LOC]])
// LOWERED: call i32 @__accrt_use_device()
// LOWERED: acc.launch:
// LOWERED: call void @__accrt_data_enter_async(ptr %{{.*}}, i64 %{{.*}}, i32 0, ptr [[LOC]], ptr @{{.*}}, i64 [[Q]])
// LOWERED: call void @__accrt_launch_async(ptr @__acc_kernel.compute_l{{[0-9]+}}, i64 %{{.*}}, i64 1, i64 {{[0-9]+}}, ptr %acc.args, i64 [[Q]])
// LOWERED: call void @__accrt_data_exit_async(ptr %{{.*}}, i64 %{{.*}}, i32 0, ptr [[LOC]], ptr @{{.*}}, i64 [[Q]])
// LOWERED: acc.host:
// LOWERED: call void @__accrt_host_wait(i64 [[Q]], ptr [[LOC]])
// The second: `async` alone is acc_async_noval (-1), `wait` alone every queue.
// LOWERED: call void @__accrt_wait_all(i64 -1, ptr [[LOC2:@.acc.loc[.0-9]*]])
// LOWERED: call void @__accrt_launch_async(ptr @__acc_kernel.compute_l{{[0-9]+}}, i64 1, i64 1, i64 {{[0-9]+}}, ptr %{{.*}}, i64 -1)
// LOWERED: call void @__accrt_host_wait(i64 -1, ptr [[LOC2]])
void compute(float *y, int n, int q) {
#pragma acc parallel loop copy(y[0:n]) async(q + 1) wait(1, n)
  for (int i = 0; i < n; i++) y[i] += 1;
#pragma acc serial present(y[0:n]) async wait
  y[0] = 0;
}

// CHECK-LABEL: define dso_local void @data(
// The wait directive (named "wait", as the clause): its list is a wait clause, and without
// one nothing.
// CHECK: call void @__acc_begin(i32 noundef 8, ptr noundef [[WAIT]],
// CHECK-NEXT: call void @__acc_end(i32 noundef 8)
// CHECK: call void @__acc_begin(i32 noundef 9, ptr noundef [[WAIT]],
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 9, ptr noundef [[WAIT]], i64 noundef 2, i64 noundef 3)
// CHECK-NEXT: call void (i32, ptr, ...) @__acc_clause(i32 noundef 9, ptr noundef [[ASYNC]], i64 noundef 4)
// CHECK-NEXT: call void @__acc_end(i32 noundef 9)
// LOWERED-LABEL: define dso_local void @data(
// A data construct on queue 2 after waiting for queue 1: entries and exits on queue 2.
// LOWERED: call void @__accrt_wait(i64 1, i64 2, ptr
// LOWERED: call void @__accrt_data_enter_async(ptr %{{.*}}, i64 %{{.*}}, i32 3, ptr {{.*}}, i64 2)
// LOWERED: call void @__accrt_data_exit_async(ptr %{{.*}}, i64 %{{.*}}, i32 3, ptr {{.*}}, i64 2)
// enter data create | DYNAMIC on the default queue, update self on queue 3 after every queue.
// LOWERED: call void @__accrt_data_enter_async(ptr %{{.*}}, i64 %{{.*}}, i32 259, ptr {{.*}}, i64 -1)
// LOWERED: call void @__accrt_wait_all(i64 3, ptr
// LOWERED: call void @__accrt_update_self_async(ptr %{{.*}}, i64 %{{.*}}, i32 0, ptr {{.*}}, i64 3)
// exit data copyout | DYNAMIC on queue 5 (acc_async_sync without async: the host waits).
// LOWERED: call void @__accrt_wait(i64 4, i64 -2, ptr
// LOWERED: call void @__accrt_data_exit(ptr %{{.*}}, i64 4, i32 258,
// LOWERED: call void @__accrt_data_exit_async(ptr %{{.*}}, i64 %{{.*}}, i32 258, ptr {{.*}}, i64 5)
// `#pragma acc wait`: the host waits for every queue; `wait(2, 3) async(4)`: queue 4 for 2 and 3.
// LOWERED: call void @__accrt_wait_all(i64 -2, ptr
// LOWERED: call void @__accrt_wait(i64 2, i64 4, ptr
// LOWERED: call void @__accrt_wait(i64 3, i64 4, ptr
// LOWERED: call void @__accrt_wait(i64 5, i64 -2, ptr
void data(float *y, int n) {
#pragma acc data create(y[0:n]) async(2) wait(1)
  y[0] = 1;
#pragma acc enter data create(y[0:n]) async
#pragma acc update self(y[0:n]) async(3) wait
#pragma acc exit data copyout(y[0:1]) wait(4)
#pragma acc exit data copyout(y[0:n]) async(5)
#pragma acc wait
#pragma acc wait(2, 3) async(4)
#pragma acc wait(queues: 5) if(n > 0)
}

#ifdef CONSTANT
void constant(float *y, int n) {
// CONSTANT: async-wait.c:[[#@LINE+1]]:9: error: async(-4): not a valid async argument (a queue number >= 0, acc_async_noval, acc_async_sync or acc_async_default)
#pragma acc update self(y[0:n]) async(-4)
}
#endif
