; Device runtime of accc, NVPTX implementation (the emulator's is emulator.ll; the interface
; both implement is described in docs/device-runtime.md). Linked into every NVPTX device
; module by codegen/src/device.rs.
;
; Kernels reach the launch geometry and synchronisation only through these functions, so the
; transformations read as OpenACC levels (gang, worker, vector) instead of PTX registers:
; gang = blockIdx.x (ctaid.x; gang dimensions 2 and 3: .y, .z), worker = threadIdx.y,
; vector = threadIdx.x.
; They are alwaysinline and internalised after linking, so no call remains in the PTX.
; Values are i64 so that trip-count arithmetic never overflows in i32.

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; The gang in the whole grid, linearised (ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)),
; and the grid's gang count: what reductions across gangs index and count by.
define i64 @__acc_gang_id() #0 {
  %x = call i64 @__acc_gang_id_1()
  %y = call i64 @__acc_gang_id_2()
  %z = call i64 @__acc_gang_id_3()
  %nx = call i64 @__acc_num_gangs_1()
  %ny = call i64 @__acc_num_gangs_2()
  %zy = mul i64 %z, %ny
  %yz = add i64 %y, %zy
  %r = mul i64 %yz, %nx
  %v = add i64 %r, %x
  ret i64 %v
}

define i64 @__acc_num_gangs() #0 {
  %nx = call i64 @__acc_num_gangs_1()
  %ny = call i64 @__acc_num_gangs_2()
  %nz = call i64 @__acc_num_gangs_3()
  %xy = mul i64 %nx, %ny
  %v = mul i64 %xy, %nz
  ret i64 %v
}

; Gang dimensions 1, 2, 3 (`gang(dim: d)` loops) are the grid's x, y and z.
define i64 @__acc_gang_id_1() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_num_gangs_1() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_gang_id_2() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_num_gangs_2() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_gang_id_3() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  %w = zext i32 %v to i64
  ret i64 %w
}

define i64 @__acc_num_gangs_3() #0 {
  %v = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
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

; Every thread of the gang (block barrier `bar.sync 0`). Called only where control flow is
; uniform across the block.
define void @__acc_sync_gang() #3 {
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; The vector lanes of the calling worker, which is exactly one warp: the runtime launches
; kernels that use it with a vector length of 32 and at most 15 workers (docs/device-runtime.md),
; so a warp barrier (`bar.warp.sync`, which also orders memory among the lanes) is the
; worker's barrier. A named barrier per worker (`bar.sync 1+tid.y, ntid.x`) would also allow
; longer vectors, but a barrier id in a register makes ptxas reserve all 16 of the block's
; barriers, and that limits how many blocks a multiprocessor holds: a worker-vector
; reduction (matmul with an inner vector reduction) ran 3.8x slower on the H100.
define void @__acc_sync_worker() #3 {
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  ret void
}

; Warp shuffles. A warp is 32 consecutive threads of the block in linear order
; t = tid.y * ntid.x + tid.x (vector fastest); the last warp is partial when the block size
; is not a multiple of 32. Every existing thread of the warp calls them together (uniform
; control flow); the mask is that of the warp's existing lanes, as __shfl_*_sync requires.
define internal i32 @__acc_warp_mask() #0 {
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ny = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %n = mul i32 %nx, %ny
  %yx = mul i32 %y, %nx
  %t = add i32 %yx, %x
  %base = and i32 %t, -32
  %left = sub i32 %n, %base
  %full = icmp uge i32 %left, 32
  %bit = shl i32 1, %left
  %part = sub i32 %bit, 1
  %mask = select i1 %full, i32 -1, i32 %part
  ret i32 %mask
}

; %v of lane lane+%delta of the caller's warp; the caller's own %v when lane+%delta >= 32
; (unspecified when that lane does not exist in a partial warp).
define i32 @__acc_shfl_down(i32 %v, i32 %delta) #3 {
  %mask = call i32 @__acc_warp_mask()
  %r = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 %mask, i32 %v, i32 %delta, i32 31)
  ret i32 %r
}

; %v of lane %src (0..31) of the caller's warp (unspecified when that lane does not exist).
define i32 @__acc_shfl_idx(i32 %v, i32 %src) #3 {
  %mask = call i32 @__acc_warp_mask()
  %r = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 %mask, i32 %v, i32 %src, i32 31)
  ret i32 %r
}

; Warp reductions (`redux.sync`, sm_80 and later): operation %op (0 add, 1 min, 2 max,
; 3 umin, 4 umax, 5 and, 6 or, 7 xor; a constant after inlining) over %v of every existing
; lane of the caller's warp, returned to all of them. Callers ask
; __acc_warp_redux_available() first: NVVMReflect folds it for the architecture the module
; is optimised for (the oldest asked for), and the branch not taken goes before isel.
@__acc_cuda_arch = private unnamed_addr constant [12 x i8] c"__CUDA_ARCH\00"

define i32 @__acc_warp_redux_available() #0 {
  %arch = call i32 @__nvvm_reflect(ptr @__acc_cuda_arch)
  %ok = icmp sge i32 %arch, 800
  %r = zext i1 %ok to i32
  ret i32 %r
}

define i32 @__acc_warp_redux(i32 %v, i32 %op) #3 {
entry:
  %mask = call i32 @__acc_warp_mask()
  switch i32 %op, label %xor [
    i32 0, label %add
    i32 1, label %min
    i32 2, label %max
    i32 3, label %umin
    i32 4, label %umax
    i32 5, label %and
    i32 6, label %or
  ]
add:
  %r0 = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 %mask)
  ret i32 %r0
min:
  %r1 = call i32 @llvm.nvvm.redux.sync.min(i32 %v, i32 %mask)
  ret i32 %r1
max:
  %r2 = call i32 @llvm.nvvm.redux.sync.max(i32 %v, i32 %mask)
  ret i32 %r2
umin:
  %r3 = call i32 @llvm.nvvm.redux.sync.umin(i32 %v, i32 %mask)
  ret i32 %r3
umax:
  %r4 = call i32 @llvm.nvvm.redux.sync.umax(i32 %v, i32 %mask)
  ret i32 %r4
and:
  %r5 = call i32 @llvm.nvvm.redux.sync.and(i32 %v, i32 %mask)
  ret i32 %r5
or:
  %r6 = call i32 @llvm.nvvm.redux.sync.or(i32 %v, i32 %mask)
  ret i32 %r6
xor:
  %r7 = call i32 @llvm.nvvm.redux.sync.xor(i32 %v, i32 %mask)
  ret i32 %r7
}

declare i32 @__nvvm_reflect(ptr)
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.min(i32, i32)
declare i32 @llvm.nvvm.redux.sync.max(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umin(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umax(i32, i32)
declare i32 @llvm.nvvm.redux.sync.and(i32, i32)
declare i32 @llvm.nvvm.redux.sync.or(i32, i32)
declare i32 @llvm.nvvm.redux.sync.xor(i32, i32)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.bar.warp.sync(i32)
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()

attributes #0 = { alwaysinline nounwind }
; Barriers and warp operations: reached by the threads they involve together, so the
; optimiser must not move them across control flow (CUDA's are convergent too).
attributes #3 = { alwaysinline convergent nounwind }
