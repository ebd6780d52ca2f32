; A global used directly in a region through constant expressions (a constant index, a phi
; or select of element addresses) is a capture like any other use: the kernel gets the
; mapped address as a parameter. Before, the builder folded the rebuilt GEP straight back
; into a constant (and phis were skipped), so the kernel read the device module's own
; zero-initialised copy of @garr.
; RUN: %opt -load-pass-plugin=%plugin -passes='acc-offload<save-temps=%t>' %s -S -o - | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=DEV < %t.device.ll
; RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

;; float garr[100];
;; void f(int n, int c, float *a) {
;; #pragma acc parallel loop copy(a[0:n])
;;   for (int i = 0; i < n; i++) {
;;     float *p;
;;     if (c) p = &garr[1]; else p = &garr[2];
;;     a[i] = garr[3] + *p + *(c ? &garr[4] : &garr[5]);
;;   }
;; }

@garr = global [100 x float] zeroinitializer
@pl = private constant [14 x i8] c"parallel loop\00"
@file = private constant [4 x i8] c"g.c\00"
@copy = private constant [5 x i8] c"copy\00"
@atext = private constant [7 x i8] c"a[0:n]\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

; HOST-LABEL: define void @f(
; HOST-LABEL: acc.launch:
; HOST: call {{.*}}@__accrt_data_enter(ptr @garr, i64 400, i32 0,
; HOST: call void @__accrt_launch(ptr @__acc_kernel.f_l3,
; HOST: call void @__accrt_data_exit(ptr @garr, i64 400, i32 0,
; HOST-LABEL: define internal void @f_l3(i32 %n, i32 %c, ptr %garr, ptr %a)
; HOST-NOT: @garr
; HOST: ret void

; DEV-LABEL: define {{.*}}ptx_kernel void @f_l3(i32 {{.*}}%n, i32 {{.*}}%c, ptr {{.*}}%garr, ptr {{.*}}%a)
; DEV-NOT: @garr
; DEV: ret void

define void @f(i32 %n, i32 %c, ptr %a) {
entry:
  %n64 = sext i32 %n to i64
  call void @__acc_begin(i32 1, ptr @pl, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %a, i64 0, i64 %n64, i64 4, ptr @atext)
  br label %for.cond

for.cond:
  %i = phi i32 [ 0, %entry ], [ %inc, %join ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %tc = icmp ne i32 %c, 0
  br i1 %tc, label %then, label %else

then:
  br label %join

else:
  br label %join

join:
  %p = phi ptr [ getelementptr inbounds ([100 x float], ptr @garr, i64 0, i64 1), %then ], [ getelementptr inbounds ([100 x float], ptr @garr, i64 0, i64 2), %else ]
  %g3 = load float, ptr getelementptr inbounds ([100 x float], ptr @garr, i64 0, i64 3)
  %vp = load float, ptr %p
  %q = select i1 %tc, ptr getelementptr inbounds ([100 x float], ptr @garr, i64 0, i64 4), ptr getelementptr inbounds ([100 x float], ptr @garr, i64 0, i64 5)
  %vq = load float, ptr %q
  %s1 = fadd float %g3, %vp
  %s2 = fadd float %s1, %vq
  %idx = sext i32 %i to i64
  %pa = getelementptr inbounds float, ptr %a, i64 %idx
  store float %s2, ptr %pa
  %inc = add nsw i32 %i, 1
  br label %for.cond

for.end:
  call void @__acc_end(i32 1)
  ret void
}
