; The contract written by hand (no front end): one combined `parallel loop` in SSA form.
; RUN: %opt -load-pass-plugin=%plugin -passes='acc-offload<save-temps=%t>' %s -S -o - | FileCheck %s --check-prefix=HOST
; RUN: FileCheck %s --check-prefix=DEV < %t.device.ll
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

;; void saxpy(int n, float a, float *x, float *y) {
;; #pragma acc parallel loop copy(y[0:n]) copyin(x[0:n])
;;   for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
;; }

@dir = private constant [14 x i8] c"parallel loop\00"
@file = private constant [8 x i8] c"saxpy.c\00"
@copy = private constant [5 x i8] c"copy\00"
@copyin = private constant [7 x i8] c"copyin\00"
@ytext = private constant [7 x i8] c"y[0:n]\00"
@xtext = private constant [7 x i8] c"x[0:n]\00"

declare void @__acc_begin(i32, ptr, ptr, i32, i32)
declare void @__acc_clause(i32, ptr, ...)
declare void @__acc_end(i32)

; The descriptor ends with the bytes of each argument slot (n, x, y, a), which the emulator
; copies to hold an async launch.
; HOST: @__acc_kernel.saxpy_l2.arg_sizes = private constant [4 x i32] [i32 4, i32 8, i32 8, i32 4]
; HOST: @__acc_kernel.saxpy_l2 = internal global { ptr, i64, ptr, ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, ptr } { {{.*}}, ptr @__accemu.entry.saxpy_l2, i64 0, i64 0, i64 0, i64 0, i64 4, ptr @__acc_kernel.saxpy_l2.arg_sizes }
; HOST-LABEL: define void @saxpy(
; HOST-NOT: __acc_{{begin|clause|end}}
; HOST: %acc.use_device = call i32 @__accrt_use_device()
; HOST: br i1 %{{.*}}, label %acc.launch, label %acc.host
; HOST-LABEL: acc.launch:
; The entries give the items' device addresses; a captured pointer that is its item's start
; takes it without another present-table lookup (host_stub.rs `translate_at`), and only
; otherwise (a null entry, another address) calls __accrt_translate.
; HOST: %acc.entered = call ptr @__accrt_data_enter(ptr %{{.*}}, i64 %{{.*}}, i32 0,
; HOST: %acc.entered1 = call ptr @__accrt_data_enter(ptr %[[X_START:[0-9]+]], i64 %{{.*}}, i32 1,
; HOST: %[[SAME:[0-9]+]] = icmp eq ptr %x, %[[X_START]]
; HOST: %[[FOUND:[0-9]+]] = icmp ne ptr %acc.entered1, null
; HOST: and i1 %[[SAME]], %[[FOUND]]
; HOST: acc.translate:
; HOST: call ptr @__accrt_translate(ptr %x,
; HOST: acc.translated:
; HOST-NEXT: phi ptr [ %acc.entered1, %acc.launch ], [ %{{.*}}, %acc.translate ]
; HOST: call void @__accrt_launch(ptr @__acc_kernel.saxpy_l2, i64 %{{.*}}, i64 1, i64 256, ptr %acc.args)
; HOST: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 1,
; HOST: call void @__accrt_data_exit(ptr %{{.*}}, i64 %{{.*}}, i32 0,
; HOST-LABEL: acc.host:
; HOST: call void @saxpy_l2(i32 %n, ptr %x, ptr %y, float %a)
; HOST-LABEL: define internal void @saxpy_l2(i32 %n, ptr %x, ptr %y, float %a)
; HOST-NOT: __acc_{{begin|clause|end}}
; The emulator's copy: the entry unpacks the argument array and calls the kernel body, whose
; ids come from the emulator side of the device runtime interface.
; HOST-LABEL: define internal void @__accemu.entry.saxpy_l2(ptr %0)
; HOST: call void @__accemu.kernel.saxpy_l2(
; HOST-LABEL: define internal void @__accemu.kernel.saxpy_l2(i32 %n, ptr %x, ptr %y, float %a)
; HOST: call i64 @__acc_gang_id_1()
; HOST-LABEL: define internal i64 @__acc_gang_id_1()
; HOST: call i64 @__accemu_gang_id_dim(i32 1)

; DEV-LABEL: define {{.*}}ptx_kernel void @saxpy_l2(i32 {{.*}}%n, ptr {{.*}}%x, ptr {{.*}}%y, float {{.*}}%a)
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; DEV-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
; DEV: fmul
; DEV-NOT: __acc_

; PTX-LABEL: .visible .entry saxpy_l2(
; PTX: mov.u32 {{.*}}%ctaid.x;
; PTX: mov.u32 {{.*}}%tid.x;
; PTX: mov.u32 {{.*}}%ntid.x;
; PTX: mov.u32 {{.*}}%nctaid.x;
; The loop strides by the whole grid (nctaid.x * ntid.x): the sliding window.
; PTX: mul.wide.u32 {{.*}}
; PTX: st.global.b32

define void @saxpy(i32 %n, float %a, ptr %x, ptr %y) {
entry:
  %n64 = sext i32 %n to i64
  call void @__acc_begin(i32 1, ptr @dir, ptr @file, i32 2, i32 9)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copy, ptr %y, i64 0, i64 %n64, i64 4, ptr @ytext)
  call void (i32, ptr, ...) @__acc_clause(i32 1, ptr @copyin, ptr %x, i64 0, i64 %n64, i64 4, ptr @xtext)
  br label %for.cond

for.cond:
  %i = phi i32 [ 0, %entry ], [ %inc, %for.body ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %for.body, label %for.end

for.body:
  %idx = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %idx
  %vx = load float, ptr %px
  %py = getelementptr inbounds float, ptr %y, i64 %idx
  %vy = load float, ptr %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  store float %s, ptr %py
  %inc = add nsw i32 %i, 1
  br label %for.cond

for.end:
  call void @__acc_end(i32 1)
  ret void
}
