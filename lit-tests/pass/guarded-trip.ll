; The grid size comes from the gang loop's trip count, re-evaluated by the host stub at
; every launch. Here the kernel divides by k only under `if (k)`, but the stub evaluates
; the trip count whenever it launches: its divisions must be total (a zero divisor gives
; 0, MIN / -1 divides by 1), or the program dies of SIGFPE when k == 0.
; RUN: %opt -load-pass-plugin=%plugin -passes='acc-offload<save-temps=%t>' %s -S -o - | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=DEV < %t.device.ll
; RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

;; void f(int n, int k, float *a) {
;; #pragma acc parallel copy(a[0:n])
;;   if (k) {
;; #pragma acc loop gang
;;     for (int i = 0; i < n / k; i++) a[i] += 1.0f;
;;   }
;; }

@par = private constant [9 x i8] c"parallel\00"
@loop = private constant [5 x i8] c"loop\00"
@file = private constant [4 x i8] c"f.c\00"
@copy = private constant [5 x i8] c"copy\00"
@gang = private constant [5 x i8] c"gang\00"
@atext = private constant [7 x i8] c"a[0:n]\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

; HOST-LABEL: define void @f(
; HOST-LABEL: acc.launch:
; HOST-NOT: sdiv
; HOST: %[[Z:[0-9]+]] = icmp eq i32 %k, 0
; HOST: %[[MIN:[0-9]+]] = icmp eq i32 %n, -2147483648
; HOST: %[[M1:[0-9]+]] = icmp eq i32 %k, -1
; HOST: %[[OV:[0-9]+]] = and i1 %[[MIN]], %[[M1]]
; HOST: %[[BAD:[0-9]+]] = or i1 %[[Z]], %[[OV]]
; HOST: %[[SAFE:[0-9]+]] = select i1 %[[BAD]], i32 1, i32 %k
; HOST: %[[Q:[0-9]+]] = sdiv i32 %n, %[[SAFE]]
; HOST: select i1 %[[Z]], i32 0, i32 %[[Q]]
; A lone gang loop is spread over vector lanes (mapping.rs), so the default launch has them.
; HOST: call void @__accrt_launch(ptr @__acc_kernel.f_l2, i64 %{{[0-9]+}}, i64 1, i64 256, ptr %acc.args)
; HOST-LABEL: acc.host:

; The kernel divides only where the program does, under the test of k.
; DEV-LABEL: define {{.*}}ptx_kernel void @f_l2(
; DEV: icmp eq i32 %k, 0
; DEV: sdiv i32 %n, %k

define void @f(i32 %n, i32 %k, ptr %a) {
entry:
  %n64 = sext i32 %n to i64
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 2, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %a, i64 0, i64 %n64, i64 4, ptr @atext)
  %c = icmp ne i32 %k, 0
  br i1 %c, label %then, label %done

then:
  call void @__acc_begin(i32 2, ptr @loop, ptr @file, i32 4, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @gang)
  %div = sdiv i32 %n, %k
  br label %for.cond

for.cond:
  %i = phi i32 [ 0, %then ], [ %inc, %for.body ]
  %cmp = icmp slt i32 %i, %div
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %idx
  %x = load float, ptr %p
  %y = fadd float %x, 1.0
  store float %y, ptr %p
  %inc = add nsw i32 %i, 1
  br label %for.cond

for.end:
  call void @__acc_end(i32 2)
  br label %done

done:
  call void @__acc_end(i32 1)
  ret void
}
