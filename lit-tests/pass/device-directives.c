// init, shutdown and set become one __accrt_device_directive call per device type named
// (data.rs): directive 0/1/2, the acc_device_t value (-1 without device_type), device_num,
// default_async, which of the two are given (bit 1, bit 2), and the directive's position;
// under if(...) the call is guarded.
// RUN: %accc -O1 -S -emit-llvm %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s

// CHECK-LABEL: define {{.*}} @f(
void f(int n, int q, int c) {
  // CHECK: call void @__accrt_device_directive(i32 0, i32 -1, i64 0, i64 0, i32 0, ptr
#pragma acc init
  // CHECK: call void @__accrt_device_directive(i32 1, i32 4, i64 {{%.*}}, i64 0, i32 1, ptr
#pragma acc shutdown device_type(nvidia) device_num(n)
  // CHECK: br i1 {{%.*}}, label %acc.data.if, label %acc.data.cont
  // CHECK: acc.data.if:
  // CHECK-NEXT: call void @__accrt_device_directive(i32 2, i32 1, i64 {{%.*}}, i64 {{%.*}}, i32 3, ptr
#pragma acc set device_type(*) device_num(n + 1) default_async(q) if(c)
}
// CHECK-NOT: __acc_begin
