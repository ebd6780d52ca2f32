; Countable loops in the shapes C gives them, as the kernel sees them (SSA, after sroa):
; a run-time step subtracted (`i -= s`), short/char induction variables (compared after a
; cast to int, stepped in int and truncated back), and a collapsed nest whose inner bound
; is computed inside the outer loop but does not depend on it. The host stub re-emits each
; gang loop's trip count for the grid, which shows what the analysis found.
; RUN: split-file %s %t
; RUN: %opt -load-pass-plugin=%plugin -passes='acc-offload<save-temps=%t/ok>' %t/ok.ll -S -o - | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=DEV < %t/ok.device.ll
; RUN: %ptxas -arch=sm_90 %t/ok.ptx -o %t/ok.cubin
; RUN: not %opt -load-pass-plugin=%plugin -passes=acc-offload %t/triangle.ll -disable-output 2>&1 | FileCheck %s --check-prefix=TRI

; i -= s: the step is -s, computed once before the loop; trip = ceil((hi - lo) / s).
; HOST-LABEL: define void @down(
; HOST-LABEL: acc.launch:
; HOST: %[[NEG:[0-9]+]] = sub i32 0, %s
; HOST: %[[STEP:[0-9]+]] = sext i32 %[[NEG]] to i64
; HOST: call void @__accrt_launch(ptr @__acc_kernel.down_l2,
; DEV-LABEL: define {{.*}}ptx_kernel void @down_l2(

; for (short i = init; i < n; i += 3): the condition sees (int)i, so the trip count
; starts from (int)init; the step 3 is found through trunc(add(sext(i), 3)).
; HOST-LABEL: define void @shorts(
; HOST-LABEL: acc.launch:
; HOST: %[[I:[0-9]+]] = sext i16 %init to i32
; HOST: sext i32 %[[I]] to i64
; HOST: call void @__accrt_launch(ptr @__acc_kernel.shorts_l9,
; DEV-LABEL: define {{.*}}ptx_kernel void @shorts_l9(

; for (unsigned char c = init; c < n; c++): zero-extended (init 200 is 200, not -56).
; HOST-LABEL: define void @uchars(
; HOST-LABEL: acc.launch:
; HOST: %[[C:[0-9]+]] = zext i8 %init to i32
; HOST: sext i32 %[[C]] to i64
; HOST: call void @__accrt_launch(ptr @__acc_kernel.uchars_l16,
; DEV-LABEL: define {{.*}}ptx_kernel void @uchars_l16(

; collapse(2) with j < m - 1 computed in the inner header: rectangular. The inner trip
; count is computed before the nest, from a copy of m - 1.
; HOST-LABEL: define void @rect(
; HOST-LABEL: acc.launch:
; HOST: add i32 %m, -1
; HOST: mul i64
; HOST: call void @__accrt_launch(ptr @__acc_kernel.rect_l23,
; DEV-LABEL: define {{.*}}ptx_kernel void @rect_l23(

; An inner bound that depends on the outer induction variable is not rectangular.
; TRI: t.c:3:9: error: collapse needs a rectangular loop nest: an inner loop's bounds depend on an outer loop

;--- ok.ll
@pl = private constant [14 x i8] c"parallel loop\00"
@file = private constant [4 x i8] c"t.c\00"
@copy = private constant [5 x i8] c"copy\00"
@collapse = private constant [9 x i8] c"collapse\00"
@atext = private constant [2 x i8] c"a\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

;; void down(int hi, int lo, int s, int *a) {
;; #pragma acc parallel loop copy(a[0:hi+1])
;;   for (int i = hi; i > lo; i -= s) a[i] += 1;
;; }
define void @down(i32 %hi, i32 %lo, i32 %s, ptr %a) {
entry:
  %len = add i32 %hi, 1
  %len64 = sext i32 %len to i64
  call void @__acc_begin(i32 1, ptr @pl, ptr @file, i32 2, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %a, i64 0, i64 %len64, i64 4, ptr @atext)
  br label %for.cond

for.cond:
  %i = phi i32 [ %hi, %entry ], [ %next, %for.body ]
  %cmp = icmp sgt i32 %i, %lo
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  %x = load i32, ptr %p
  %y = add nsw i32 %x, 1
  store i32 %y, ptr %p
  %next = sub nsw i32 %i, %s
  br label %for.cond

for.end:
  call void @__acc_end(i32 1)
  ret void
}

;; void shorts(int n, short init, int *a) {
;; #pragma acc parallel loop copy(a[0:n])
;;   for (short i = init; i < n; i += 3) a[i] += 1;
;; }
define void @shorts(i32 %n, i16 %init, ptr %a) {
entry:
  %n64 = sext i32 %n to i64
  call void @__acc_begin(i32 2, ptr @pl, ptr @file, i32 9, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @copy, ptr %a, i64 0, i64 %n64, i64 4, ptr @atext)
  br label %for.cond

for.cond:
  %i = phi i16 [ %init, %entry ], [ %next, %for.body ]
  %wide = sext i16 %i to i32
  %cmp = icmp slt i32 %wide, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idx = sext i16 %i to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  %x = load i32, ptr %p
  %y = add nsw i32 %x, 1
  store i32 %y, ptr %p
  %ext = sext i16 %i to i32
  %add = add nsw i32 %ext, 3
  %next = trunc i32 %add to i16
  br label %for.cond

for.end:
  call void @__acc_end(i32 2)
  ret void
}

;; void uchars(int n, unsigned char init, int *a) {
;; #pragma acc parallel loop copy(a[0:n])
;;   for (unsigned char c = init; c < n; c++) a[c] += 1;
;; }
define void @uchars(i32 %n, i8 %init, ptr %a) {
entry:
  %n64 = sext i32 %n to i64
  call void @__acc_begin(i32 3, ptr @pl, ptr @file, i32 16, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 3, ptr @copy, ptr %a, i64 0, i64 %n64, i64 4, ptr @atext)
  br label %for.cond

for.cond:
  %c = phi i8 [ %init, %entry ], [ %next, %for.body ]
  %wide = zext i8 %c to i32
  %cmp = icmp slt i32 %wide, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idx = zext i8 %c to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  %x = load i32, ptr %p
  %y = add nsw i32 %x, 1
  store i32 %y, ptr %p
  %next = add i8 %c, 1
  br label %for.cond

for.end:
  call void @__acc_end(i32 3)
  ret void
}

;; void rect(int n, int m, float *a) {
;; #pragma acc parallel loop collapse(2) copy(a[0:n*m])
;;   for (int i = 1; i < n - 1; i++)
;;     for (int j = 0; j < m - 1; j++) a[i*m+j] += 1.0f;
;; }
define void @rect(i32 %n, i32 %m, ptr %a) {
entry:
  %nm = mul i32 %n, %m
  %nm64 = sext i32 %nm to i64
  call void @__acc_begin(i32 4, ptr @pl, ptr @file, i32 23, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 4, ptr @copy, ptr %a, i64 0, i64 %nm64, i64 4, ptr @atext)
  call void (i32, ptr, ...) @__acc_clause(i32 4, ptr @collapse, i64 2)
  br label %outer.cond

outer.cond:
  %i = phi i32 [ 1, %entry ], [ %i.next, %outer.latch ]
  %nb = sub nsw i32 %n, 1
  %oc = icmp slt i32 %i, %nb
  br i1 %oc, label %inner.pre, label %outer.end

inner.pre:
  br label %inner.cond

inner.cond:
  %j = phi i32 [ 0, %inner.pre ], [ %j.next, %inner.body ]
  %mb = add nsw i32 %m, -1
  %ic = icmp slt i32 %j, %mb
  br i1 %ic, label %inner.body, label %outer.latch

inner.body:
  %row = mul nsw i32 %i, %m
  %k = add nsw i32 %row, %j
  %k64 = sext i32 %k to i64
  %p = getelementptr inbounds float, ptr %a, i64 %k64
  %x = load float, ptr %p
  %y = fadd float %x, 1.0
  store float %y, ptr %p
  %j.next = add nsw i32 %j, 1
  br label %inner.cond

outer.latch:
  %i.next = add nsw i32 %i, 1
  br label %outer.cond

outer.end:
  call void @__acc_end(i32 4)
  ret void
}

;--- triangle.ll
@pl = private constant [14 x i8] c"parallel loop\00"
@file = private constant [4 x i8] c"t.c\00"
@collapse = private constant [9 x i8] c"collapse\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

;; #pragma acc parallel loop collapse(2)
;;   for (int i = 0; i < n; i++)
;;     for (int j = 0; j < i + 1; j++) a[i*n+j] = 1.0f;
define void @triangle(i32 %n, ptr %a) {
entry:
  call void @__acc_begin(i32 1, ptr @pl, ptr @file, i32 3, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @collapse, i64 2)
  br label %outer.cond

outer.cond:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %oc = icmp slt i32 %i, %n
  br i1 %oc, label %inner.pre, label %outer.end

inner.pre:
  br label %inner.cond

inner.cond:
  %j = phi i32 [ 0, %inner.pre ], [ %j.next, %inner.body ]
  %ib = add nsw i32 %i, 1
  %ic = icmp slt i32 %j, %ib
  br i1 %ic, label %inner.body, label %outer.latch

inner.body:
  %row = mul nsw i32 %i, %n
  %k = add nsw i32 %row, %j
  %k64 = sext i32 %k to i64
  %p = getelementptr inbounds float, ptr %a, i64 %k64
  store float 1.0, ptr %p
  %j.next = add nsw i32 %j, 1
  br label %inner.cond

outer.latch:
  %i.next = add nsw i32 %i, 1
  br label %outer.cond

outer.end:
  call void @__acc_end(i32 1)
  ret void
}
