; Pointers named in an enclosing data clause and swapped on the host between launches:
; the stub translates each pointer by its value at the launch (__accrt_translate), with the
; data clause item's start only as the fallback for pointers outside every present range.
; Before, it added the host distance from the clause's (stale) section start to that
; section's device address: the wrong buffer after a swap.
; RUN: %opt -load-pass-plugin=%plugin -passes='acc-offload<save-temps=%t>' %s -S -o - | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=DEV < %t.device.ll
; RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

;; void sweeps(int n, int s, float *a, float *b) {
;;   float *u = a, *v = b, *t;
;; #pragma acc data copy(u[0:n], v[0:n])
;;   for (int k = 0; k < s; k++) {
;; #pragma acc parallel loop
;;     for (int i = 0; i < n; i++) v[i] = u[i] + 1.0f;
;;     t = u; u = v; v = t;
;;   }
;; }

@data = private constant [5 x i8] c"data\00"
@pl = private constant [14 x i8] c"parallel loop\00"
@file = private constant [7 x i8] c"swap.c\00"
@copy = private constant [5 x i8] c"copy\00"
@utext = private constant [7 x i8] c"u[0:n]\00"
@vtext = private constant [7 x i8] c"v[0:n]\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

; HOST-LABEL: define void @sweeps(
; HOST-NOT: __acc_
; HOST: call {{.*}}@__accrt_data_enter(ptr %{{[0-9]+}}, i64 %{{.*}}, i32 0,
; HOST: call {{.*}}@__accrt_data_enter(ptr %{{[0-9]+}}, i64 %{{.*}}, i32 0,
; The pointers' values at this launch.
; HOST-LABEL: launch:
; HOST: %[[U:[a-z0-9.]+]] = load ptr, ptr %u
; HOST: %[[V:[a-z0-9.]+]] = load ptr, ptr %v
; HOST-LABEL: acc.launch:
; HOST-NOT: ptrtoint
; HOST: %[[US:[0-9]+]] = getelementptr i8, ptr %u0, i64 0
; HOST: %[[UDEV:[0-9]+]] = call ptr @__accrt_translate(ptr %[[U]], ptr %[[US]], ptr @.acc.loc{{[.0-9]*}}, ptr @.acc.name
; HOST: %[[VS:[0-9]+]] = getelementptr i8, ptr %v0, i64 0
; HOST: %[[VDEV:[0-9]+]] = call ptr @__accrt_translate(ptr %[[V]], ptr %[[VS]], ptr @.acc.loc{{[.0-9]*}}, ptr @.acc.name
; HOST-NOT: ptrtoint
; HOST: store ptr %[[UDEV]], ptr %acc.arg
; HOST: store ptr %[[VDEV]], ptr %acc.arg
; HOST: call void @__accrt_launch(ptr @__acc_kernel.sweeps_l5,
; HOST-LABEL: acc.host:
; HOST: call void @sweeps_l5(i32 %n, ptr %[[U]], ptr %[[V]])
; HOST-LABEL: for.k.end:
; HOST: call void @__accrt_data_exit(
; HOST: call void @__accrt_data_exit(

; DEV-LABEL: define {{.*}}ptx_kernel void @sweeps_l5(i32 {{.*}}%n, ptr {{.*}}%u, ptr {{.*}}%v)

define void @sweeps(i32 %n, i32 %s, ptr %a, ptr %b) {
entry:
  %u = alloca ptr
  %v = alloca ptr
  store ptr %a, ptr %u
  store ptr %b, ptr %v
  %n64 = sext i32 %n to i64
  %u0 = load ptr, ptr %u
  %v0 = load ptr, ptr %v
  call void @__acc_begin(i32 1, ptr @data, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %u0, i64 0, i64 %n64, i64 4, ptr @utext)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %v0, i64 0, i64 %n64, i64 4, ptr @vtext)
  br label %for.k

for.k:
  %k = phi i32 [ 0, %entry ], [ %k.next, %swap ]
  %kc = icmp slt i32 %k, %s
  br i1 %kc, label %launch, label %for.k.end

launch:
  call void @__acc_begin(i32 2, ptr @pl, ptr @file, i32 5, i32 9)
  br label %for.cond

for.cond:
  %i = phi i32 [ 0, %launch ], [ %inc, %for.body ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idx = sext i32 %i to i64
  %up = load ptr, ptr %u
  %pu = getelementptr inbounds float, ptr %up, i64 %idx
  %x = load float, ptr %pu
  %y = fadd float %x, 1.0
  %vp = load ptr, ptr %v
  %pv = getelementptr inbounds float, ptr %vp, i64 %idx
  store float %y, ptr %pv
  %inc = add nsw i32 %i, 1
  br label %for.cond

for.end:
  call void @__acc_end(i32 2)
  br label %swap

swap:
  %t = load ptr, ptr %u
  %t2 = load ptr, ptr %v
  store ptr %t2, ptr %u
  store ptr %t, ptr %v
  %k.next = add nsw i32 %k, 1
  br label %for.k

for.k.end:
  call void @__acc_end(i32 1)
  ret void
}
