//! Small copies between device memory and host memory on an async queue's stream, through
//! page-locked slots, so that they neither block the host nor wait for the queue.
//!
//! CUDA copies to pageable host memory (a stack variable, `malloc`'ed memory) only when the
//! stream has reached the copy, and `cuMemcpyDtoHAsync` then returns only once it is done:
//! the copy-back of a reduction result after an async kernel (`parallel loop reduction(+:s)
//! async(1)`) would make the host wait for the kernel. A copy of at most [`MAX`] bytes on
//! an async queue goes through a page-locked slot instead:
//! - to the device: the host bytes are copied into the slot at the call (what a pageable
//!   copy promises too: the program may change them afterwards), the slot to the device on
//!   the stream;
//! - to the host: the device bytes go into the slot on the stream, then a host function
//!   enqueued behind it (`cuLaunchHostFunc`) copies the slot into the program's memory, in
//!   the queue's order: after the kernels before it, before the queue's later work, and
//!   before a wait or test of the queue says it is done.
//!
//! A download's host function puts its slot back; an upload's slot comes back once an event
//! recorded behind its copy has completed (checked when a slot is next needed), so an upload
//! adds no host function to the stream (whose later work would wait for it to run). Slots
//! come from chunks of page-locked memory per device, allocated when none is free and kept
//! for the process.
//!
//! An undelivered download's host range is recorded until its host function has run: a later
//! copy to the device of overlapping host bytes waits for its queue first (mem.rs), so an
//! async `copyout` then `copyin` of one array on one queue uploads what was downloaded.
//!
//! The cost: a download's host function holds the queue's later work until a driver thread
//! has run it (microseconds), where the plain copy held the host until the queue got there.
//!
//! Expects: the GPU target, the queue's stream, its context current. Not here: larger copies
//! (queue_copy.rs when it is on, else the driver's own pageable copy, mem.rs; staging.rs
//! for synchronous ones of 8 MiB or more).

use std::ffi::c_void;
use std::sync::Mutex;

use crate::cuda::{self, CuError, DevPtr, Handle};
use crate::device;

/// Copies of at most this many bytes go through a slot.
pub const MAX: usize = 4096;
/// Slots per page-locked chunk.
const SLOTS_PER_CHUNK: usize = 16;

/// One device's slots (host addresses of `MAX` page-locked bytes each): free ones, and those
/// of uploads still in flight with the event recorded behind each copy.
#[derive(Default)]
struct SlotPool {
    free: Vec<usize>,
    in_flight: InFlight,
}

/// Slots of uploads in flight, each with the event recorded behind its copy.
type InFlight = Vec<(usize, Handle)>;

type Slots = Mutex<SlotPool>;

static SLOTS: device::PerDevice<Slots> = device::PerDevice::new(|| Mutex::new(SlotPool { free: Vec::new(), in_flight: Vec::new() }));

/// The slots of `in_flight` whose uploads have completed (their events destroyed), and the
/// rest, still in flight.
fn reap(in_flight: InFlight) -> Result<(Vec<usize>, InFlight), CuError> {
    let (mut done, mut busy) = (Vec::new(), Vec::new());
    for (slot, ev) in in_flight {
        if cuda::event_query(ev)? {
            cuda::event_destroy(ev)?;
            done.push(slot);
        } else {
            busy.push((slot, ev));
        }
    }
    Ok((done, busy))
}

/// Whether a copy of `len` bytes on an async queue goes through a slot.
pub fn bounced(len: usize) -> bool {
    len > 0 && len <= MAX
}

/// A free slot of the calling thread's device, and the pool it goes back to.
fn take() -> Result<(usize, &'static Slots), CuError> {
    let slots: &'static Slots = SLOTS.get();
    let lock = || slots.lock().unwrap_or_else(|e| e.into_inner());
    let in_flight = {
        let mut pool = lock();
        if let Some(slot) = pool.free.pop() {
            return Ok((slot, slots));
        }
        std::mem::take(&mut pool.in_flight)
    };
    // The events are asked without the lock: a download's host function takes it, and a
    // driver call may wait (behind another thread's free) for that host function to run.
    let (done, busy) = reap(in_flight)?;
    {
        let mut pool = lock();
        pool.in_flight.extend(busy);
        pool.free.extend(done);
        if let Some(slot) = pool.free.pop() {
            return Ok((slot, slots));
        }
    }
    // Allocated without the lock: the host functions that give slots back take it, and the
    // driver may wait for streams while it pins memory.
    let chunk = cuda::mem_alloc_host(MAX * SLOTS_PER_CHUNK)? as usize;
    lock().free.extend((1..SLOTS_PER_CHUNK).map(|k| chunk + k * MAX));
    Ok((chunk, slots))
}

/// Host ranges `[start, end)` that downloads still have to deliver (their host function has
/// not run yet), one entry per download.
static UNDELIVERED: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

fn undelivered() -> std::sync::MutexGuard<'static, Vec<(usize, usize)>> {
    UNDELIVERED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether host bytes `[start, start + len)` overlap a download not delivered yet: a copy
/// that reads them at the call (an upload here, or the driver's staging of a pageable one)
/// must first let the queue deliver it (the queue's order: an async `copyout` then a
/// `copyin` of the same array on one queue must upload what was downloaded).
pub fn awaits_delivery(start: usize, len: usize) -> bool {
    overlaps(&undelivered(), start, len)
}

/// Records host bytes `[start, start + len)` as awaiting a download's delivery (here, or
/// queue_copy.rs's host functions), until [`delivered`] is called with the same range.
pub fn expect_delivery(start: usize, len: usize) {
    undelivered().push((start, start + len));
}

/// The download recorded by [`expect_delivery`] for `[start, start + len)` has delivered.
pub fn delivered(start: usize, len: usize) {
    let mut u = undelivered();
    if let Some(k) = u.iter().position(|&r| r == (start, start + len)) {
        u.swap_remove(k);
    }
}

fn overlaps(ranges: &[(usize, usize)], start: usize, len: usize) -> bool {
    let end = start.saturating_add(len);
    ranges.iter().any(|&(s, e)| s < end && start < e)
}

/// What the host function does once the stream reaches it.
struct Pending {
    slot: usize,
    slots: &'static Slots,
    /// Where the slot's bytes go, and how many.
    deliver: (usize, usize),
}

/// The host function behind a download: delivers the bytes, gives the slot back.
unsafe extern "C" fn finish(data: *mut c_void) {
    // SAFETY: `data` is the `Pending` boxed by `enqueue_finish`, passed once.
    let p = unsafe { Box::from_raw(data.cast::<Pending>()) };
    let (dst, len) = p.deliver;
    // SAFETY: the slot holds `len` bytes the stream copied in before this call; `dst` is
    // writable until the queue is done (the caller's guarantee in `download`).
    unsafe { std::ptr::copy_nonoverlapping(p.slot as *const u8, dst as *mut u8, len) }
    delivered(dst, len);
    p.slots.lock().unwrap_or_else(|e| e.into_inner()).free.push(p.slot);
}

fn enqueue_finish(stream: Handle, p: Pending) -> Result<(), CuError> {
    let data = Box::into_raw(Box::new(p));
    // SAFETY: `finish` takes back the box exactly once, on the driver's thread (it makes no
    // CUDA call and only locks the free list, which no holder keeps while waiting).
    unsafe { cuda::launch_host_func(stream, finish, data.cast()) }
}

/// Enqueues copying `len` (<= [`MAX`]) bytes from host `src` to device `dst` on `stream`;
/// `src` is read before this returns.
///
/// # Safety
/// `src` must be readable for `len` bytes; `dst..dst+len` inside one device allocation
/// until the stream has done the copy.
pub unsafe fn upload(dst: DevPtr, src: *const c_void, len: usize, stream: Handle) -> Result<(), CuError> {
    let (slot, slots) = take()?;
    // SAFETY: the slot has MAX >= len bytes; `src` is readable (caller's guarantee).
    unsafe { std::ptr::copy_nonoverlapping(src as *const u8, slot as *mut u8, len) };
    // SAFETY: page-locked slot of `len` bytes, kept in flight until the event behind the
    // copy has completed.
    unsafe { cuda::memcpy_htod_async(dst, slot as *const c_void, len, stream) }?;
    let ev = cuda::event_create()?;
    cuda::event_record(ev, stream)?;
    slots.lock().unwrap_or_else(|e| e.into_inner()).in_flight.push((slot, ev));
    Ok(())
}

/// Enqueues copying `len` (<= [`MAX`]) bytes from device `src` to host `dst` on `stream`:
/// they reach `dst` in the stream's order, before a wait for the stream returns.
///
/// # Safety
/// `dst` must be writable for `len` bytes until the stream has done the copy;
/// `src..src+len` inside one device allocation until then.
pub unsafe fn download(dst: *mut c_void, src: DevPtr, len: usize, stream: Handle) -> Result<(), CuError> {
    let (slot, slots) = take()?;
    // SAFETY: page-locked slot of `len` bytes, read by `finish` after the copy.
    unsafe { cuda::memcpy_dtoh_async(slot as *mut c_void, src, len, stream) }?;
    expect_delivery(dst as usize, len);
    enqueue_finish(stream, Pending { slot, slots, deliver: (dst as usize, len) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_small_copies_are_bounced() {
        assert!(!bounced(0), "nothing to copy");
        assert!(bounced(8));
        assert!(bounced(MAX));
        assert!(!bounced(MAX + 1));
    }

    #[test]
    fn overlapping_ranges() {
        let r = [(100, 108), (200, 300)];
        assert!(overlaps(&r, 104, 2));
        assert!(overlaps(&r, 96, 8), "ends inside");
        assert!(!overlaps(&r, 92, 8), "ends where the range starts");
        assert!(!overlaps(&r, 108, 92), "starts where the range ends");
        assert!(overlaps(&r, 0, 1000), "covers both");
    }

    #[test]
    fn the_host_function_delivers_and_frees_the_slot() {
        // A plain heap "slot" stands for page-locked memory: `finish` only copies and frees.
        static FREE: Slots = Mutex::new(SlotPool { free: Vec::new(), in_flight: Vec::new() });
        let slot = vec![7u8, 8, 9, 10];
        let mut dst = [0u8; 4];
        let p = Pending { slot: slot.as_ptr() as usize, slots: &FREE, deliver: (dst.as_mut_ptr() as usize, 3) };
        // SAFETY: a boxed Pending, passed once, with valid slot and destination.
        unsafe { finish(Box::into_raw(Box::new(p)).cast()) };
        assert_eq!(dst, [7, 8, 9, 0]);
        assert_eq!(FREE.lock().unwrap().free, vec![slot.as_ptr() as usize]);
    }
}
