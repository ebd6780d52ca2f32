target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()

; y[i] = a*x[i] + y[i], grid-stride over gangs*workers*vector
define ptx_kernel void @saxpy(i32 %n, float %a, ptr %x, ptr %y) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %ny = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nb = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %bs = mul i32 %nx, %ny
  %t0 = mul i32 %ty, %nx
  %t = add i32 %t0, %tx
  %i00 = mul i32 %b, %bs
  %i0 = add i32 %i00, %t
  %stride = mul i32 %nb, %bs
  br label %cond
cond:
  %i = phi i32 [ %i0, %entry ], [ %inext, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %done
body:
  %ie = sext i32 %i to i64
  %px = getelementptr float, ptr %x, i64 %ie
  %py = getelementptr float, ptr %y, i64 %ie
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  store float %s, ptr %py
  %inext = add i32 %i, %stride
  br label %cond
done:
  ret void
}
