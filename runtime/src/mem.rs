//! Device memory on the selected target: the GPU's (through `cuda`) or the emulator's
//! (separate host allocations, so that data clauses move real bytes and a missing copy is
//! as visible on the emulator as on the GPU). Failures end the program with a message that
//! names `what` (the clause item or routine).
//!
//! The emulator knows its blocks, so it also checks device addresses that programs pass to
//! the memory routines ([`check_range`], [`is_block`]); on the GPU the CUDA driver reports
//! bad addresses itself.
//!
//! Operations of an async queue (`*_on`, [`release`]) go on the queue's CUDA stream on the
//! GPU (queue.rs); on the emulator they are the synchronous ones. A GPU allocation that
//! fails for lack of memory is retried once after the blocks whose release waits for a queue
//! have been freed. Not here: host memory of the host target (api/memory.rs).

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use crate::device::{self, Target};
use crate::queue::{self, Queue};
use crate::{cuda, staging};

pub use crate::cuda::DevPtr;

/// Alignment of emulator allocations (cuMemAlloc's is at least 256).
const EMU_ALIGN: usize = 256;

/// Emulator allocations and their layouts, by address.
static EMU_BLOCKS: Mutex<Option<HashMap<DevPtr, Layout>>> = Mutex::new(None);

fn emu_blocks() -> std::sync::MutexGuard<'static, Option<HashMap<DevPtr, Layout>>> {
    EMU_BLOCKS.lock().unwrap_or_else(|e| e.into_inner())
}

fn target() -> &'static Target {
    device::target().expect("device memory used while regions run on the host")
}

/// `len` (> 0) bytes of device memory.
pub fn alloc(len: usize, what: &str) -> DevPtr {
    match target() {
        Target::Gpu(_) => cuda::mem_alloc(len)
            .or_else(|e| if e.is_out_of_memory() && queue::drain_deferred() { cuda::mem_alloc(len) } else { Err(e) })
            .unwrap_or_else(|e| e.fail(what)),
        Target::Emulator => {
            let layout = Layout::from_size_align(len.max(1), EMU_ALIGN).expect("allocation size fits");
            // SAFETY: the layout has a non-zero size.
            let p = unsafe { std::alloc::alloc(layout) };
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            let d = p as DevPtr;
            emu_blocks().get_or_insert_with(HashMap::new).insert(d, layout);
            d
        }
    }
}

pub fn free(p: DevPtr, what: &str) {
    match target() {
        Target::Gpu(_) => cuda::mem_free(p).unwrap_or_else(|e| e.fail(what)),
        Target::Emulator => {
            let layout = emu_blocks().as_mut().and_then(|m| m.remove(&p)).expect("freeing an emulator block that was never allocated");
            // SAFETY: `p` was returned by `alloc` with this layout and is freed once (removed
            // from the map above).
            unsafe { std::alloc::dealloc(p as *mut u8, layout) }
        }
    }
}

/// Frees device block `p` (from [`alloc`]) once no async queue can still use it: on the GPU
/// at once when every queue is idle, else after the work enqueued so far (queue.rs); on the
/// emulator at once.
pub fn release(p: DevPtr, what: &str) {
    match target() {
        Target::Gpu(_) => queue::release(p, what),
        Target::Emulator => free(p, what),
    }
}

/// [`copy_to_device`] on queue `q`: enqueued on its stream on the GPU (the bytes are
/// staged before it returns, so `src` may change afterwards).
///
/// # Safety
/// As for [`copy_to_device`]; `dst..dst+len` stays allocated until the queue has done it.
pub unsafe fn copy_to_device_on(q: Queue, dst: DevPtr, src: *const c_void, len: usize, what: &str) {
    match queue::stream(q) {
        // SAFETY: forwarded caller guarantees.
        Some(s) => unsafe { cuda::memcpy_htod_async(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees.
        None => unsafe { copy_to_device(dst, src, len, what) },
    }
}

/// [`copy_from_device`] on queue `q`: enqueued on its stream on the GPU (to pageable
/// memory CUDA returns once the queue has done it).
///
/// # Safety
/// As for [`copy_from_device`]; `dst` stays writable until the queue has done it.
pub unsafe fn copy_from_device_on(q: Queue, dst: *mut c_void, src: DevPtr, len: usize, what: &str) {
    match queue::stream(q) {
        // SAFETY: forwarded caller guarantees.
        Some(s) => unsafe { cuda::memcpy_dtoh_async(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees.
        None => unsafe { copy_from_device(dst, src, len, what) },
    }
}

/// [`copy_device`] on queue `q`.
///
/// # Safety
/// As for [`copy_device`], until the queue has done it.
pub unsafe fn copy_device_on(q: Queue, dst: DevPtr, src: DevPtr, len: usize, what: &str) {
    match queue::stream(q) {
        // SAFETY: forwarded caller guarantees.
        Some(s) => unsafe { cuda::memcpy_dtod_async(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees.
        None => unsafe { copy_device(dst, src, len, what) },
    }
}

/// Copies `len` bytes from host `src` to device `dst`.
///
/// # Safety
/// `src` must be readable for `len` bytes and `dst..dst+len` inside one device allocation.
pub unsafe fn copy_to_device(dst: DevPtr, src: *const c_void, len: usize, what: &str) {
    match target() {
        // SAFETY: forwarded caller guarantees.
        Target::Gpu(_) if staging::staged(len) => unsafe { staging::copy_to_device(dst, src, len) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees.
        Target::Gpu(_) => unsafe { cuda::memcpy_htod(dst, src, len) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees; host and emulator memory never overlap.
        Target::Emulator => unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len) },
    }
}

/// Sets `len` bytes at device `dst` to zero.
///
/// # Safety
/// `dst..dst+len` must lie inside one device allocation.
pub unsafe fn zero(dst: DevPtr, len: usize, what: &str) {
    match target() {
        // SAFETY: forwarded caller guarantee.
        Target::Gpu(_) => unsafe { cuda::memset_zero(dst, len) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantee (an emulator allocation is host memory).
        Target::Emulator => unsafe { std::ptr::write_bytes(dst as *mut u8, 0, len) },
    }
}

/// Copies `len` bytes from device `src` to host `dst`.
///
/// # Safety
/// `dst` must be writable for `len` bytes and `src..src+len` inside one device allocation.
pub unsafe fn copy_from_device(dst: *mut c_void, src: DevPtr, len: usize, what: &str) {
    match target() {
        // SAFETY: forwarded caller guarantees.
        Target::Gpu(_) if staging::staged(len) => unsafe { staging::copy_from_device(dst, src, len) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees.
        Target::Gpu(_) => unsafe { cuda::memcpy_dtoh(dst, src, len) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees; host and emulator memory never overlap.
        Target::Emulator => unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len) },
    }
}

/// Copies `len` bytes from device `src` to device `dst` (the ranges may overlap on the
/// emulator).
///
/// # Safety
/// `src..src+len` and `dst..dst+len` must each lie inside one device allocation.
pub unsafe fn copy_device(dst: DevPtr, src: DevPtr, len: usize, what: &str) {
    match target() {
        // SAFETY: forwarded caller guarantees.
        Target::Gpu(_) => unsafe { cuda::memcpy_dtod(dst, src, len) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees (emulator allocations are host memory).
        Target::Emulator => unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) },
    }
}

/// Whether `[p, p+len)` lies inside one emulator allocation. Always true on the GPU (the
/// driver checks addresses itself).
pub fn check_range(p: DevPtr, len: usize) -> bool {
    match target() {
        Target::Gpu(_) => true,
        Target::Emulator => emu_blocks().as_ref().is_some_and(|m| {
            m.iter().any(|(&start, layout)| p >= start && p.saturating_add(len as u64) <= start + layout.size() as u64)
        }),
    }
}

/// Whether `p` is the start of a live allocation (one [`free`] accepts). Always true on the
/// GPU (cuMemFree reports a bad address itself).
pub fn is_block(p: DevPtr) -> bool {
    match target() {
        Target::Gpu(_) => true,
        Target::Emulator => emu_blocks().as_ref().is_some_and(|m| m.contains_key(&p)),
    }
}
