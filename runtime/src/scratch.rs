//! Scratch memory of gang-level reductions (docs/runtime-abi.md, "Reduction scratch").
//!
//! A kernel with `reduce_vars > 0` gets, for its launch, a device buffer of at least
//! [`scratch_bytes`] bytes: first [`counter_bytes`] bytes of counters, zero when the kernel
//! starts (the kernel leaves them zero when it ends), then `reduce_vars * 16` bytes per gang
//! of partial results. One buffer per device and queue (the synchronous queue has one too),
//! grown and never shrunk: kernels of one queue run one after another on its stream, so
//! each finds the counters its predecessor left zero and its partials are not overwritten
//! before it ends, while kernels of different queues use different buffers and may run at
//! once. So a launch neither waits for its kernel nor for another queue's. The buffer's lock
//! is held while the launch is enqueued, so that host threads launching on one queue keep
//! the buffer's bookkeeping in the stream's order.
//!
//! The runtime zeroes only what it does not know to be zero: a new buffer, and counter
//! bytes that an earlier kernel (with fewer counters) used for its partial results. It
//! remembers the length of the zero prefix (`clean`): after a launch, the counters of that
//! kernel. The zeroing goes on the queue's stream (behind the earlier kernels that still use
//! those bytes); a grown buffer's old block is released as data clauses' blocks are, once
//! no queue can still use it (mem.rs).
//!
//! Not here: which queue a launch uses (launch.rs), streams (queue.rs).

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use crate::device;
use crate::mem::{self, DevPtr};
use crate::queue::Queue;

/// Counter bytes: 8 per reduction variable, rounded up to 256 (the partials stay aligned).
pub fn counter_bytes(reduce_vars: u64) -> Option<usize> {
    let b = usize::try_from(reduce_vars).ok()?.checked_mul(8)?;
    b.checked_next_multiple_of(256)
}

/// Bytes of scratch a launch of `gangs` gangs with `reduce_vars` gang-level reduction
/// variables needs: `round_up(reduce_vars * 8, 256) + reduce_vars * 16 * gangs`. `None` when
/// it does not fit in the address space.
pub fn scratch_bytes(reduce_vars: u64, gangs: u64) -> Option<usize> {
    let partials = usize::try_from(reduce_vars).ok()?.checked_mul(16)?.checked_mul(usize::try_from(gangs).ok()?)?;
    counter_bytes(reduce_vars)?.checked_add(partials)
}

/// One queue's scratch buffer.
#[derive(Default)]
struct Buffer {
    ptr: DevPtr,
    len: usize,
    /// Leading bytes known to be zero.
    clean: usize,
}

/// One scratch buffer per device and queue.
static SCRATCH: device::PerDevice<Mutex<HashMap<Queue, Buffer>>> = device::PerDevice::new(|| Mutex::new(HashMap::new()));

/// What a launch needs done to its queue's buffer before the kernel may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prepare {
    /// The buffer is smaller than the launch needs: a new one of this many bytes (the old
    /// one, if any, released).
    pub grow_to: Option<usize>,
    /// Zero the counter bytes from this offset to `counters` (they are not known to be zero).
    pub zero_from: Option<usize>,
}

/// What a launch needing `bytes` bytes with `counters` counter bytes must do to a buffer of
/// `len` bytes whose first `clean` bytes are zero (pure; the bookkeeping of [`with_scratch`]).
pub fn prepare(len: usize, clean: usize, bytes: usize, counters: usize) -> Prepare {
    if len < bytes {
        return Prepare { grow_to: Some(bytes), zero_from: Some(0) };
    }
    Prepare { grow_to: None, zero_from: (clean < counters).then_some(clean) }
}

/// Runs `launch` (a launch of `gangs` gangs, final sizes, on queue `q`) with the scratch a
/// kernel with `reduce_vars` gang-level reduction variables needs, its device address
/// written to `*(void **)args[scratch_arg]`; with `reduce_vars == 0`, just runs `launch`.
/// `launch` must enqueue the kernel on `q` (and may return before it ends). `what` names the
/// kernel in errors.
///
/// # Safety
/// With `reduce_vars > 0`, `args[scratch_arg]` must point to a writable pointer-sized slot.
pub unsafe fn with_scratch<R>(
    reduce_vars: u64,
    scratch_arg: u64,
    gangs: u64,
    args: *mut *mut c_void,
    q: Queue,
    what: &str,
    launch: impl FnOnce() -> R,
) -> R {
    if reduce_vars == 0 {
        return launch();
    }
    let (Some(counters), Some(bytes)) = (counter_bytes(reduce_vars), scratch_bytes(reduce_vars, gangs)) else {
        panic!("reduction scratch of {reduce_vars} variable(s) x {gangs} gang(s) is too large{what}");
    };
    assert!(!args.is_null(), "kernel with reductions launched without arguments{what}");
    let mut all = SCRATCH.get().lock().unwrap_or_else(|e| e.into_inner());
    let buf = all.entry(q).or_default();
    let step = prepare(buf.len, buf.clean, bytes, counters);
    if let Some(len) = step.grow_to {
        if buf.len > 0 {
            // Earlier kernels of this queue may still use it.
            mem::release(buf.ptr, what);
        }
        *buf = Buffer { ptr: mem::alloc_block(len, what), len, clean: 0 };
    }
    if let Some(from) = step.zero_from {
        // SAFETY: `from < counters <= bytes <= len`: inside the buffer, which stays allocated
        // (released only once no queue can use it).
        unsafe { mem::zero_on(q, buf.ptr + from as DevPtr, counters - from, what) };
    }
    // SAFETY: the caller guarantees that `args[scratch_arg]` points to a pointer slot.
    unsafe { *(*args.add(scratch_arg as usize) as *mut *mut c_void) = buf.ptr as *mut c_void };
    let r = launch();
    // The kernel leaves its counters zero (for the queue's next kernel) and writes partial
    // results after them.
    buf.clean = counters;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(counter_bytes(0), Some(0));
        assert_eq!(counter_bytes(1), Some(256));
        assert_eq!(counter_bytes(32), Some(256));
        assert_eq!(counter_bytes(33), Some(512));
        assert_eq!(scratch_bytes(0, 1000), Some(0));
        assert_eq!(scratch_bytes(1, 1), Some(256 + 16));
        assert_eq!(scratch_bytes(3, 132), Some(256 + 3 * 16 * 132));
        assert_eq!(scratch_bytes(40, 10), Some(512 + 40 * 16 * 10));
        assert_eq!(scratch_bytes(u64::MAX, 2), None);
        assert_eq!(scratch_bytes(u64::MAX / 16, 2), None);
    }

    #[test]
    fn a_queue_buffer_is_zeroed_only_where_it_may_not_be() {
        // First launch on a queue: a new buffer, its counters zeroed.
        assert_eq!(prepare(0, 0, 272, 256), Prepare { grow_to: Some(272), zero_from: Some(0) });
        // The next kernel of the queue finds the counters its predecessor left zero.
        assert_eq!(prepare(272, 256, 272, 256), Prepare { grow_to: None, zero_from: None });
        // More counters than the last kernel had: the extra ones held its partials.
        assert_eq!(prepare(4096, 256, 1024, 512), Prepare { grow_to: None, zero_from: Some(256) });
        // More gangs than the buffer holds: a bigger one, zeroed.
        assert_eq!(prepare(272, 256, 256 + 16 * 132, 256), Prepare { grow_to: Some(256 + 16 * 132), zero_from: Some(0) });
    }
}
