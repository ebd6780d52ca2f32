; A triple nest with explicit gang / worker / vector loops: each level reads its own
; index register and strides by its own thread count.
; RUN: %opt -load-pass-plugin=%plugin -passes='acc-offload<save-temps=%t>' %s -S -o - | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=DEV < %t.device.ll
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

;; void f(int n, int m, int p, float *a) {
;; #pragma acc parallel copy(a[0:n*m*p]) num_workers(4) vector_length(32)
;; #pragma acc loop gang
;;   for (int i = 0; i < n; i++)
;; #pragma acc loop worker
;;     for (int j = 0; j < m; j++)
;; #pragma acc loop vector
;;       for (int k = 0; k < p; k++) a[(i*m+j)*p+k] += 1.0f;
;; }

@par = private constant [9 x i8] c"parallel\00"
@loop = private constant [5 x i8] c"loop\00"
@file = private constant [4 x i8] c"f.c\00"
@copy = private constant [5 x i8] c"copy\00"
@nw = private constant [12 x i8] c"num_workers\00"
@vl = private constant [14 x i8] c"vector_length\00"
@gang = private constant [5 x i8] c"gang\00"
@worker = private constant [7 x i8] c"worker\00"
@vector = private constant [7 x i8] c"vector\00"
@atext = private constant [12 x i8] c"a[0:n*m*p]\00\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

; HOST-LABEL: define void @f(
; HOST: call void @__accrt_launch(ptr @__acc_kernel.f_l2, i64 %{{.*}}, i64 4, i64 32, ptr %acc.args)
; HOST-LABEL: define internal void @f_l2(

; DEV-LABEL: define {{.*}}ptx_kernel void @f_l2(
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; DEV-NOT: __acc_

; PTX-LABEL: .visible .entry f_l2(
; PTX-DAG: %ctaid.x
; PTX-DAG: %nctaid.x
; PTX-DAG: %tid.y
; PTX-DAG: %ntid.y
; PTX-DAG: %tid.x
; PTX-DAG: %ntid.x

define void @f(i32 %n, i32 %m, i32 %p, ptr %a) {
entry:
  %nm = mul i32 %n, %m
  %nmp = mul i32 %nm, %p
  %len = sext i32 %nmp to i64
  call void @__acc_begin(i32 1, ptr @par, ptr @file, i32 2, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %a, i64 0, i64 %len, i64 4, ptr @atext)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @nw, i64 4)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @vl, i64 32)
  call void @__acc_begin(i32 2, ptr @loop, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @gang)
  br label %i.cond

i.cond:
  %i = phi i32 [ 0, %entry ], [ %i.next, %i.inc ]
  %ci = icmp slt i32 %i, %n
  br i1 %ci, label %i.body, label %i.end

i.body:
  call void @__acc_begin(i32 3, ptr @loop, ptr @file, i32 5, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 3, ptr @worker)
  br label %j.cond

j.cond:
  %j = phi i32 [ 0, %i.body ], [ %j.next, %j.inc ]
  %cj = icmp slt i32 %j, %m
  br i1 %cj, label %j.body, label %j.end

j.body:
  call void @__acc_begin(i32 4, ptr @loop, ptr @file, i32 7, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 4, ptr @vector)
  br label %k.cond

k.cond:
  %k = phi i32 [ 0, %j.body ], [ %k.next, %k.body ]
  %ck = icmp slt i32 %k, %p
  br i1 %ck, label %k.body, label %k.end

k.body:
  %im = mul i32 %i, %m
  %imj = add i32 %im, %j
  %imjp = mul i32 %imj, %p
  %idx = add i32 %imjp, %k
  %idx64 = sext i32 %idx to i64
  %pa = getelementptr inbounds float, ptr %a, i64 %idx64
  %va = load float, ptr %pa
  %vn = fadd float %va, 1.0
  store float %vn, ptr %pa
  %k.next = add nsw i32 %k, 1
  br label %k.cond

k.end:
  call void @__acc_end(i32 4)
  br label %j.inc

j.inc:
  %j.next = add nsw i32 %j, 1
  br label %j.cond

j.end:
  call void @__acc_end(i32 3)
  br label %i.inc

i.inc:
  %i.next = add nsw i32 %i, 1
  br label %i.cond

i.end:
  call void @__acc_end(i32 2)
  call void @__acc_end(i32 1)
  ret void
}
