// deviceptr(p) of a pointer variable: the kernel gets p's value (a device address), never
// the host address of the variable p (which a GPU cannot read). Also for the slot a
// host_data construct gives p (a compute construct nested in it).
// RUN: %accc -O0 -emit-llvm -S %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes=acc-offload %t.ll -S -o - | FileCheck %s

// CHECK-LABEL: define dso_local void @scale(
// CHECK: %[[DP:dp[0-9]*]] = load ptr, ptr %dp.addr
// CHECK: acc.launch:
// CHECK: store ptr %[[DP]], ptr %[[SLOT:acc.arg[0-9]*]]
// CHECK-NEXT: getelementptr inbounds ptr, ptr %acc.args, i64 1
// CHECK-NEXT: store ptr %[[SLOT]],
// CHECK: call void @__accrt_launch(
// CHECK: acc.host:
// CHECK-NEXT: call void @scale_l{{[0-9]+}}(i32 %{{.*}}, ptr %[[DP]])
void scale(float *dp, int n) {
#pragma acc parallel loop deviceptr(dp)
  for (int i = 0; i < n; i++) dp[i] = 2.0f * dp[i];
}

// CHECK-LABEL: define dso_local void @nested(
// CHECK: store ptr %{{[0-9]+}}, ptr %q.use_device
// CHECK: acc.host_data:
// CHECK: %[[Q:q.use_device[0-9]+]] = load ptr, ptr %q.use_device
// CHECK: acc.launch:
// CHECK: store ptr %[[Q]], ptr %acc.arg
// CHECK: call void @__accrt_launch(
// CHECK: acc.host:
// CHECK-NEXT: call void @nested_l{{[0-9]+}}(i32 %{{.*}}, ptr %[[Q]])
void nested(float *q, int n) {
#pragma acc host_data use_device(q)
  {
#pragma acc parallel loop deviceptr(q)
    for (int i = 0; i < n; i++) q[i] -= 0.5f;
  }
}
