; Device-side runtime of accc, linked into every device module (codegen/src/device.rs).
;
; Kernels reach the launch geometry only through these functions, so the loop mapping in
; codegen/src/partition.rs reads as OpenACC levels (gang, worker, vector) instead of PTX
; registers: gang = blockIdx.x (ctaid.x), worker = threadIdx.y, vector = threadIdx.x.
; They are alwaysinline and internalised after linking, so no call remains in the PTX.
; Values are i64 so that trip-count arithmetic never overflows in i32.

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define i64 @__acc_gang_id() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_num_gangs() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_worker_id() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_num_workers() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_vector_id() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_vector_length() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %w = zext i32 %v to i64
  ret i64 %w
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()

attributes #0 = { alwaysinline nounwind }
