; Scalars declared before a compute region, in memory form (as Clang emits them before
; sroa). The loop variable of a loop construct is predetermined private (OpenACC 3.3
; §2.6.1): in `kernels` it used to become an implicit `copy` cell shared by every thread,
; so the loop was not even countable. A scalar the `kernels` region writes before reading
; and nobody reads afterwards is private too; one whose value the host reads after the
; region stays `copy`.
; RUN: %opt -load-pass-plugin=%plugin -passes='acc-offload<save-temps=%t>' %s -S -o - | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=DEV < %t.device.ll
; RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

@kl = private constant [13 x i8] c"kernels loop\00"
@file = private constant [4 x i8] c"t.c\00"
@copy = private constant [5 x i8] c"copy\00"
@indep = private constant [12 x i8] c"independent\00"
@atext = private constant [2 x i8] c"a\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

; idx and index are private (no parameter, nothing mapped); only a and n are passed.
; HOST-LABEL: define void @nw(
; HOST-LABEL: acc.launch:
; HOST-NOT: __accrt_data_enter(ptr %idx
; HOST-NOT: __accrt_data_enter(ptr %index
; HOST: call void @__accrt_launch(ptr @__acc_kernel.nw_l4,
; HOST-LABEL: acc.host:
; HOST: call void @nw_l4(i32 %n, ptr %a)
; DEV-LABEL: define {{.*}}ptx_kernel void @nw_l4(i32 {{.*}}%n, ptr {{.*}}%a)

;; void nw(int n, int *a) {
;;   int idx, index;
;; #pragma acc kernels loop independent copy(a[0:n])
;;   for (idx = 0; idx < n; idx++) { index = n - 1 - idx; a[index] += idx; }
;; }
define void @nw(i32 %n, ptr %a) {
entry:
  %idx = alloca i32
  %index = alloca i32
  %n64 = sext i32 %n to i64
  call void @__acc_begin(i32 1, ptr @kl, ptr @file, i32 4, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %a, i64 0, i64 %n64, i64 4, ptr @atext)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @indep)
  store i32 0, ptr %idx
  br label %for.cond

for.cond:
  %i = load i32, ptr %idx
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %i1 = load i32, ptr %idx
  %t = sub nsw i32 %n, 1
  %t2 = sub nsw i32 %t, %i1
  store i32 %t2, ptr %index
  %k = load i32, ptr %index
  %k64 = sext i32 %k to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %k64
  %x = load i32, ptr %p
  %i2 = load i32, ptr %idx
  %y = add nsw i32 %x, %i2
  store i32 %y, ptr %p
  %i3 = load i32, ptr %idx
  %inc = add nsw i32 %i3, 1
  store i32 %inc, ptr %idx
  br label %for.cond

for.end:
  call void @__acc_end(i32 1)
  ret void
}

; last is written in the region and read by the host after it: implicit copy (mapped
; around the launch). The loop variable i is still private.
; HOST-LABEL: define i32 @live(
; HOST-LABEL: acc.launch:
; HOST: call {{.*}}@__accrt_data_enter(ptr %last, i64 4, i32 0,
; HOST: call void @__accrt_launch(ptr @__acc_kernel.live_l20,
; HOST: call void @__accrt_data_exit(ptr %last, i64 4, i32 0,
; HOST-LABEL: define internal void @nw_l4(i32 %n, ptr %a)
; HOST: %idx.private = alloca i32
; HOST: %index.private = alloca i32
; HOST-LABEL: define internal void @live_l20(i32 %n, ptr %last, ptr %a)
; HOST: %i.private = alloca i32

;; int live(int n, int *a) {
;;   int i, last = -1;
;; #pragma acc kernels loop independent copy(a[0:n])
;;   for (i = 0; i < n; i++) { last = i; a[i] = last; }
;;   return last;
;; }
define i32 @live(i32 %n, ptr %a) {
entry:
  %i = alloca i32
  %last = alloca i32
  store i32 -1, ptr %last
  %n64 = sext i32 %n to i64
  call void @__acc_begin(i32 2, ptr @kl, ptr @file, i32 20, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @copy, ptr %a, i64 0, i64 %n64, i64 4, ptr @atext)
  call void (i32, ptr, ...) @__acc_clause(i32 2, ptr @indep)
  store i32 0, ptr %i
  br label %for.cond

for.cond:
  %v = load i32, ptr %i
  %cmp = icmp slt i32 %v, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %v1 = load i32, ptr %i
  store i32 %v1, ptr %last
  %l = load i32, ptr %last
  %v64 = sext i32 %v1 to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %v64
  store i32 %l, ptr %p
  %inc = add nsw i32 %v1, 1
  store i32 %inc, ptr %i
  br label %for.cond

for.end:
  call void @__acc_end(i32 2)
  %r = load i32, ptr %last
  ret i32 %r
}
