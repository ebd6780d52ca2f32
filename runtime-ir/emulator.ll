; Device runtime of accc, emulator implementation (the GPU's is nvptx.ll; the interface both
; implement is described in docs/device-runtime.md). Linked into the host copy of every
; device module by codegen/src/emulator.rs; each function forwards to the host runtime's
; emulator (runtime/src/emu/), which runs every thread of a block as a fiber and switches
; fibers at the synchronisation calls.

; The linearised gang and the grid's gang count (nvptx.ll says how).
define i64 @__acc_gang_id() #0 {
  %v = call i64 @__accemu_gang_id()
  ret i64 %v
}

define i64 @__acc_num_gangs() #0 {
  %v = call i64 @__accemu_num_gangs()
  ret i64 %v
}

define i64 @__acc_gang_id_1() #0 {
  %v = call i64 @__accemu_gang_id_dim(i32 1)
  ret i64 %v
}

define i64 @__acc_num_gangs_1() #0 {
  %v = call i64 @__accemu_num_gangs_dim(i32 1)
  ret i64 %v
}

define i64 @__acc_gang_id_2() #0 {
  %v = call i64 @__accemu_gang_id_dim(i32 2)
  ret i64 %v
}

define i64 @__acc_num_gangs_2() #0 {
  %v = call i64 @__accemu_num_gangs_dim(i32 2)
  ret i64 %v
}

define i64 @__acc_gang_id_3() #0 {
  %v = call i64 @__accemu_gang_id_dim(i32 3)
  ret i64 %v
}

define i64 @__acc_num_gangs_3() #0 {
  %v = call i64 @__accemu_num_gangs_dim(i32 3)
  ret i64 %v
}

define i64 @__acc_worker_id() #0 {
  %v = call i64 @__accemu_worker_id()
  ret i64 %v
}

define i64 @__acc_num_workers() #0 {
  %v = call i64 @__accemu_num_workers()
  ret i64 %v
}

define i64 @__acc_vector_id() #0 {
  %v = call i64 @__accemu_vector_id()
  ret i64 %v
}

define i64 @__acc_vector_length() #0 {
  %v = call i64 @__accemu_vector_length()
  ret i64 %v
}

define void @__acc_sync_gang() #3 {
  call void @__accemu_sync_gang()
  ret void
}

define void @__acc_sync_worker() #3 {
  call void @__accemu_sync_worker()
  ret void
}

; Warp shuffles: the runtime exchanges the values of the 32 threads of the caller's warp
; (linear thread order, vector fastest), suspending the fiber until its warp has arrived.
define i32 @__acc_shfl_down(i32 %v, i32 %delta) #3 {
  %r = call i32 @__accemu_shfl_down(i32 %v, i32 %delta)
  ret i32 %r
}

define i32 @__acc_shfl_idx(i32 %v, i32 %src) #3 {
  %r = call i32 @__accemu_shfl_idx(i32 %v, i32 %src)
  ret i32 %r
}

; Emulator only (codegen/src/emulator.rs calls it after every shared-memory store): lets the
; other threads of the block run before this one goes on.
define void @__acc_emu_yield() #0 {
  call void @__accemu_yield()
  ret void
}

; Emulator only (codegen/src/emulator.rs calls it before every store to device memory): under
; the random schedule, sometimes lets the other threads of the block run first.
define void @__acc_emu_yield_global() #0 {
  call void @__accemu_yield_global()
  ret void
}

define i32 @__acc_warp_redux(i32 %v, i32 %op) #3 {
  %r = call i32 @__accemu_warp_redux(i32 %v, i32 %op)
  ret i32 %r
}

; The emulator has every warp operation the interface offers.
define i32 @__acc_warp_redux_available() #0 {
  ret i32 1
}

declare i32 @__accemu_warp_redux(i32, i32) #2
declare i64 @__accemu_gang_id() #1
declare i64 @__accemu_num_gangs() #1
declare i64 @__accemu_gang_id_dim(i32) #1
declare i64 @__accemu_num_gangs_dim(i32) #1
declare i64 @__accemu_worker_id() #1
declare i64 @__accemu_num_workers() #1
declare i64 @__accemu_vector_id() #1
declare i64 @__accemu_vector_length() #1
declare void @__accemu_sync_gang() #2
declare void @__accemu_sync_worker() #2
declare void @__accemu_yield() #2
declare void @__accemu_yield_global() #2
declare i32 @__accemu_shfl_down(i32, i32) #2
declare i32 @__accemu_shfl_idx(i32, i32) #2

attributes #0 = { alwaysinline nounwind }
; Each emulated thread (fiber) sees constant ids for its whole life, so the id functions are
; memory(none) for the optimiser even though the runtime reads them from a thread-local that
; the scheduler sets before resuming a fiber.
attributes #1 = { nounwind willreturn memory(none) }
attributes #2 = { nounwind }
; Barriers and warp operations: reached by the threads they involve together, so the
; optimiser must not move them across control flow (CUDA's are convergent too).
attributes #3 = { alwaysinline convergent nounwind }
