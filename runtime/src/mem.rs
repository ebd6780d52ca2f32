//! Device memory on the selected target: the GPU's (through `cuda`) or the emulator's
//! (separate host allocations, so that data clauses move real bytes and a missing copy is
//! as visible on the emulator as on the GPU). Failures end the program with a message that
//! names `what` (the clause item or routine).
//!
//! The emulator knows its blocks, so it also checks device addresses that programs pass to
//! the memory routines ([`check_range`], [`is_block`]); on the GPU the CUDA driver reports
//! bad addresses itself.
//!
//! Data clauses' blocks come from a pool ([`alloc`], pool.rs): released blocks are kept for
//! the next allocation of their size class, on the GPU and the emulator alike, so a loop of
//! data regions allocates once; `acc_malloc` and the reduction scratch get blocks of their
//! own ([`alloc_block`]). The pool's free blocks are freed at the program's end.
//!
//! Operations of an async queue (`*_on`, [`release`]) go on the queue's CUDA stream on the
//! GPU (queue.rs); on the emulator they are held until the queue is drained (emu_queue.rs:
//! at a wait or test of the queue, a kernel on it, or any synchronous operation here). A
//! released block reaches the pool (or `cuMemFree`, [`recycle`]) only once no queue can
//! still use it. A GPU
//! allocation that fails for lack of memory is retried after the blocks whose release waits
//! for a queue have been freed, then after the pool's free blocks have been freed, then (a
//! pool block) with the exact size. Not here: host memory of the host target
//! (api/memory.rs).

use std::alloc::Layout;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use crate::device::{self, Target};
use crate::pool::{self, Pool};
use crate::queue::{self, Queue};
use crate::{bounce, cuda, emu_queue, queue_copy, staging};

pub use crate::cuda::DevPtr;

/// Alignment of emulator allocations (cuMemAlloc's is at least 256).
const EMU_ALIGN: usize = 256;

/// Emulator allocations and their layouts, by address.
static EMU_BLOCKS: Mutex<BTreeMap<DevPtr, Layout>> = Mutex::new(BTreeMap::new());

fn emu_blocks() -> MutexGuard<'static, BTreeMap<DevPtr, Layout>> {
    EMU_BLOCKS.lock().unwrap_or_else(|e| e.into_inner())
}

fn target() -> &'static Target {
    device::target().expect("device memory used while regions run on the host")
}

/// One pool per device: a block is only ever reused on the device that allocated it.
static POOL: device::PerDevice<Mutex<Option<Pool>>> = device::PerDevice::new(|| Mutex::new(None));

/// The calling thread's device's pool of data-clause blocks (pool.rs), made at first use
/// with its limit: a quarter of the GPU's memory, [`EMU_POOL_LIMIT`] on the emulator.
fn pool() -> MutexGuard<'static, Option<Pool>> {
    POOL.get().lock().unwrap_or_else(|e| e.into_inner())
}

/// Bytes of free blocks the emulator's pool keeps at most.
pub const EMU_POOL_LIMIT: usize = 256 << 20;

fn pool_limit() -> usize {
    match target() {
        Target::Gpu(g) => cuda::device_total_mem(g.device).map_or(EMU_POOL_LIMIT, |total| total / 4),
        Target::Emulator => EMU_POOL_LIMIT,
    }
}

/// Runs `f` on the pool (made at first use; the first also registers its release at exit).
fn with_pool<R>(f: impl FnOnce(&mut Pool) -> R) -> R {
    let mut p = pool();
    let p = p.get_or_insert_with(|| {
        // SAFETY: registers a plain function with no preconditions.
        unsafe { atexit(release_pool_at_exit) };
        Pool::new(pool_limit())
    });
    f(p)
}

/// `len` (> 0) bytes of device memory for a data clause: a block of the pool (pool.rs),
/// reused or new. Give it back with [`release`].
pub fn alloc(len: usize, what: &str) -> DevPtr {
    let Some(class) = pool::class_of(len) else { return alloc_block(len, what) };
    if let Some(p) = with_pool(|pool| pool.take(class)) {
        return p;
    }
    let p = match try_alloc(class) {
        Ok(p) => p,
        // Out of memory: retry without the pool's free blocks, then with the exact size
        // (not pooled: a block of its own).
        Err(e) if e.is_out_of_memory() => {
            trim_pool();
            match try_alloc(class) {
                Ok(p) => p,
                Err(e) if e.is_out_of_memory() && class > len => return alloc_block(len, what),
                Err(e) => e.fail(what),
            }
        }
        Err(e) => e.fail(what),
    };
    with_pool(|pool| pool.allocated(p, class));
    p
}

/// `len` (> 0) bytes of device memory, a block of its own (`acc_malloc`, the reduction
/// scratch): freed with [`free`] or [`release`].
pub fn alloc_block(len: usize, what: &str) -> DevPtr {
    try_alloc(len)
        .or_else(|e| {
            if e.is_out_of_memory() && trim_pool() {
                try_alloc(len)
            } else {
                Err(e)
            }
        })
        .unwrap_or_else(|e| e.fail(what))
}

/// One device allocation of `len` bytes; on the GPU, after a failure for lack of memory, a
/// second try once the blocks whose release waits for a queue are free.
fn try_alloc(len: usize) -> Result<DevPtr, cuda::CuError> {
    match target() {
        Target::Gpu(_) => cuda::mem_alloc(len).or_else(|e| if e.is_out_of_memory() && queue::drain_deferred() { cuda::mem_alloc(len) } else { Err(e) }),
        Target::Emulator => {
            let layout = Layout::from_size_align(len.max(1), EMU_ALIGN).expect("allocation size fits");
            // SAFETY: the layout has a non-zero size.
            let mut p = unsafe { std::alloc::alloc(layout) };
            if p.is_null() && trim_pool() {
                // SAFETY: as above.
                p = unsafe { std::alloc::alloc(layout) };
            }
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            let d = p as DevPtr;
            emu_blocks().insert(d, layout);
            Ok(d)
        }
    }
}

/// Frees the pool's free blocks; whether there were any.
fn trim_pool() -> bool {
    let blocks = pool().as_mut().map(Pool::trim).unwrap_or_default();
    for &p in &blocks {
        free(p, " while trimming the device memory pool");
    }
    !blocks.is_empty()
}

/// Bytes of device memory the pool keeps free for reuse (free memory for the program).
pub fn pooled_bytes() -> usize {
    pool().as_ref().map_or(0, Pool::cached)
}

/// Bytes of emulator device memory the program holds: its blocks, less the pool's free ones.
pub fn emulator_held_bytes() -> usize {
    let all: usize = emu_blocks().values().map(Layout::size).sum();
    all.saturating_sub(pooled_bytes())
}

extern "C" {
    fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
}

/// At the end of the program: frees the pool's free blocks (errors are left unreported:
/// the process is ending, and a failed kernel is reported by queue.rs).
extern "C" fn release_pool_at_exit() {
    if crate::diag::exiting_on_error() {
        return;
    }
    device::for_each_opened(|_| release_pool_of_current_device());
}

/// [`release_pool_at_exit`] for the calling thread's device.
fn release_pool_of_current_device() {
    let Ok(mut p) = POOL.get().try_lock() else { return };
    let blocks = p.as_mut().map(Pool::trim).unwrap_or_default();
    drop(p);
    for b in blocks {
        match target() {
            Target::Gpu(_) => {
                let _ = cuda::mem_free(b);
            }
            Target::Emulator => free(b, ""),
        }
    }
}

pub fn free(p: DevPtr, what: &str) {
    match target() {
        Target::Gpu(_) => cuda::mem_free(p).unwrap_or_else(|e| e.fail(what)),
        Target::Emulator => {
            emu_queue::drain_all();
            let layout = emu_blocks().remove(&p).expect("freeing an emulator block that was never allocated");
            // SAFETY: `p` was returned by `alloc` with this layout and is freed once (removed
            // from the map above).
            unsafe { std::alloc::dealloc(p as *mut u8, layout) }
        }
    }
}

/// Frees device block `p` (from [`alloc`] or [`alloc_block`]) once no async queue can still
/// use it: on the GPU at once when every queue is idle, else after the work enqueued so far
/// (queue.rs); on the emulator once no queue holds operations (emu_queue.rs). "Frees" a
/// block of the pool: keeps it for reuse.
pub fn release(p: DevPtr, what: &str) {
    match target() {
        Target::Gpu(_) => queue::release(p, what),
        Target::Emulator => {
            let what = what.to_string();
            emu_queue::when_idle(Box::new(move || recycle(p, &what)))
        }
    }
}

/// Block `p`, which no queue uses any more, goes back to the pool (a block of the pool) or is
/// freed (a block of its own); blocks the pool evicts are freed.
pub fn recycle(p: DevPtr, what: &str) {
    // A block the pool hands out again must not receive a queue's held writes.
    emu_queue::drain_all();
    let back = pool().as_mut().map_or(Err(pool::NotPooled), |pool| pool.give_back(p));
    match back {
        Ok(evicted) => evicted.iter().for_each(|&b| free(b, what)),
        Err(pool::NotPooled) => free(p, what),
    }
}

/// [`copy_to_device`] on queue `q`: enqueued on its stream on the GPU. A copy of at most
/// 4 KiB goes through a page-locked slot and reads `src` at the call (bounce.rs); a larger
/// one is the driver's pageable copy (which waits for the queue's earlier work) or, when
/// [`queue_copy::available`], staged by host functions on the queue's stream, which read
/// `src` when the queue reaches them, so `src` must keep its bytes until the queue is done.
///
/// # Safety
/// As for [`copy_to_device`], until the queue has done it.
pub unsafe fn copy_to_device_on(q: Queue, dst: DevPtr, src: *const c_void, len: usize, what: &str) {
    let stream = queue::stream(q);
    // A download of the queue still to land in `src` goes first.
    if let Some(s) = stream.filter(|_| bounce::awaits_delivery(src as usize, len)) {
        cuda::stream_synchronize(s).unwrap_or_else(|e| e.fail(what));
    }
    match (stream, held_on(q)) {
        // SAFETY: forwarded caller guarantees.
        (Some(s), _) if bounce::bounced(len) => unsafe { bounce::upload(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees.
        (Some(s), _) if unsafe { staged_on_queue(queue_copy::Way::ToDevice { src: src as usize }, dst, len, s, what) } => {}
        // SAFETY: forwarded caller guarantees.
        (Some(s), _) => unsafe { cuda::memcpy_htod_async(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        (None, Some(key)) => {
            emu_queue::before_reading(src as usize, len);
            // SAFETY: `src` is readable for `len` bytes (caller's guarantee); read now.
            let bytes = unsafe { std::slice::from_raw_parts(src as *const u8, len) }.to_vec();
            // SAFETY (of the held write): `dst..dst+len` stays allocated until the queue has
            // done it (caller's guarantee; frees drain every queue first).
            emu_queue::hold(key, None, Box::new(move || unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, len) }));
        }
        // SAFETY: forwarded caller guarantees.
        (None, None) => unsafe { copy_to_device(dst, src, len, what) },
    }
}

/// [`copy_from_device`] on queue `q`: enqueued on its stream on the GPU, reaching `dst` in
/// the queue's order: through a page-locked slot up to 4 KiB (a reduction result;
/// bounce.rs), without the host waiting; beyond, the driver's copy to pageable memory
/// (which returns only once the queue has done it) or, when [`queue_copy::available`],
/// staged by host functions on the queue's stream (the host does not wait).
///
/// # Safety
/// As for [`copy_from_device`]; `dst` stays writable until the queue has done it.
pub unsafe fn copy_from_device_on(q: Queue, dst: *mut c_void, src: DevPtr, len: usize, what: &str) {
    match (queue::stream(q), held_on(q)) {
        // SAFETY: forwarded caller guarantees.
        (Some(s), _) if bounce::bounced(len) => unsafe { bounce::download(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY: forwarded caller guarantees.
        (Some(s), _) if unsafe { staged_on_queue(queue_copy::Way::FromDevice { dst: dst as usize }, src, len, s, what) } => {}
        // SAFETY: forwarded caller guarantees.
        (Some(s), _) => unsafe { cuda::memcpy_dtoh_async(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        (None, Some(key)) => {
            let dst = dst as usize;
            // SAFETY: both ranges stay valid until the queue has done it (caller's guarantee;
            // frees drain every queue first); emulator and host memory never overlap.
            emu_queue::hold(key, Some((dst, len)), Box::new(move || unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len) }));
        }
        // SAFETY: forwarded caller guarantees.
        (None, None) => unsafe { copy_from_device(dst, src, len, what) },
    }
}

/// Queue `q`'s number when its memory operations are held until it is drained: an async
/// queue on the emulator (emu_queue.rs).
fn held_on(q: Queue) -> Option<i32> {
    match (q, target()) {
        (Queue::Async(key), Target::Emulator) => Some(key),
        _ => None,
    }
}

/// Stages a copy on `stream` through the stream's buffer (queue_copy.rs) when that path is
/// on; false: the caller makes the driver's own pageable copy.
///
/// # Safety
/// As for [`queue_copy::enqueue`].
unsafe fn staged_on_queue(way: queue_copy::Way, dev: DevPtr, len: usize, stream: cuda::Handle, what: &str) -> bool {
    if !queue_copy::available() {
        return false;
    }
    // SAFETY: forwarded caller guarantees.
    unsafe { queue_copy::enqueue(way, dev, len, stream) }.unwrap_or_else(|e| e.fail(what));
    true
}

/// [`copy_device`] on queue `q`.
///
/// # Safety
/// As for [`copy_device`], until the queue has done it.
pub unsafe fn copy_device_on(q: Queue, dst: DevPtr, src: DevPtr, len: usize, what: &str) {
    match (queue::stream(q), held_on(q)) {
        // SAFETY: forwarded caller guarantees.
        (Some(s), _) => unsafe { cuda::memcpy_dtod_async(dst, src, len, s) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY (of the held copy): both ranges stay allocated until the queue has done it
        // (caller's guarantee; frees drain every queue first).
        (None, Some(key)) => emu_queue::hold(key, None, Box::new(move || unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) })),
        // SAFETY: forwarded caller guarantees.
        (None, None) => unsafe { copy_device(dst, src, len, what) },
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
        Target::Emulator => {
            emu_queue::drain_all();
            // SAFETY: forwarded caller guarantees; host and emulator memory never overlap.
            unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len) }
        }
    }
}

/// [`zero`] on queue `q`: enqueued on its stream on the GPU (after the queue's earlier
/// work, without waiting for other queues), at once elsewhere.
///
/// # Safety
/// As for [`zero`], until the queue has done it.
pub unsafe fn zero_on(q: Queue, dst: DevPtr, len: usize, what: &str) {
    match (queue::stream(q), held_on(q)) {
        // SAFETY: forwarded caller guarantee.
        (Some(s), _) => unsafe { cuda::memset_zero_async(dst, len, s) }.unwrap_or_else(|e| e.fail(what)),
        // SAFETY (of the held zeroing): the range stays allocated until the queue has done it
        // (caller's guarantee; frees drain every queue first).
        (None, Some(key)) => emu_queue::hold(key, None, Box::new(move || unsafe { std::ptr::write_bytes(dst as *mut u8, 0, len) })),
        // SAFETY: forwarded caller guarantee.
        (None, None) => unsafe { zero(dst, len, what) },
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
        Target::Emulator => {
            emu_queue::drain_all();
            // SAFETY: forwarded caller guarantee (an emulator allocation is host memory).
            unsafe { std::ptr::write_bytes(dst as *mut u8, 0, len) }
        }
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
        Target::Emulator => {
            emu_queue::drain_all();
            // SAFETY: forwarded caller guarantees; host and emulator memory never overlap.
            unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len) }
        }
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
        Target::Emulator => {
            emu_queue::drain_all();
            // SAFETY: forwarded caller guarantees (emulator allocations are host memory).
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) }
        }
    }
}

/// Whether `[p, p+len)` lies inside one emulator allocation. Always true on the GPU (the
/// driver checks addresses itself).
pub fn check_range(p: DevPtr, len: usize) -> bool {
    match target() {
        Target::Gpu(_) => true,
        // Blocks never overlap: only the last one starting at or before `p` can hold it.
        Target::Emulator => emu_blocks()
            .range(..=p)
            .next_back()
            .is_some_and(|(&start, layout)| p.saturating_add(len as u64) <= start + layout.size() as u64),
    }
}

/// Whether `p` is the start of a live block of its own ([`alloc_block`]: one `acc_free`
/// accepts); a block of the pool never is. Otherwise always true on the GPU (cuMemFree
/// reports a bad address itself).
pub fn is_block(p: DevPtr) -> bool {
    if pool().as_ref().is_some_and(|pool| pool.holds(p)) {
        return false;
    }
    match target() {
        Target::Gpu(_) => true,
        Target::Emulator => emu_blocks().contains_key(&p),
    }
}
