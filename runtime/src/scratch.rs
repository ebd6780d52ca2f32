//! Scratch memory of gang-level reductions (docs/runtime-abi.md, "Reduction scratch").
//!
//! A kernel with `reduce_vars > 0` gets, for its whole launch, a device buffer of at least
//! [`scratch_bytes`] bytes: first [`counter_bytes`] bytes of counters, zero when the kernel
//! starts (the kernel leaves them zero when it ends), then `reduce_vars * 16` bytes per gang
//! of partial results. One buffer per process (the target is chosen once), grown and never
//! shrunk, behind a lock held for the whole launch: two host threads launching such kernels
//! take turns. The launch must have finished the kernel when it returns, also on an async
//! queue (launch.rs waits for such a kernel's stream): so the next kernel finds the counters
//! zero, and a grown buffer's old block is no longer in use when it is freed.
//!
//! The runtime zeroes only what it does not know to be zero: a new buffer, and counter
//! bytes that an earlier kernel (with fewer counters) used for its partial results. It
//! remembers the length of the zero prefix (`clean`): after a launch, the counters of that
//! kernel.

use std::ffi::c_void;
use std::sync::Mutex;

use crate::device;
use crate::mem::{self, DevPtr};

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

/// The process's scratch buffer.
struct Buffer {
    ptr: DevPtr,
    len: usize,
    /// Leading bytes known to be zero.
    clean: usize,
}

/// One scratch buffer per device.
static SCRATCH: device::PerDevice<Mutex<Buffer>> = device::PerDevice::new(|| Mutex::new(Buffer { ptr: 0, len: 0, clean: 0 }));

/// Runs `launch` (a launch of `gangs` gangs, final sizes) with the scratch a kernel with
/// `reduce_vars` gang-level reduction variables needs, its device address written to
/// `*(void **)args[scratch_arg]`; with `reduce_vars == 0`, just runs `launch`. `launch` must
/// wait for the kernel to finish. `what` names the kernel in errors.
///
/// # Safety
/// With `reduce_vars > 0`, `args[scratch_arg]` must point to a writable pointer-sized slot.
pub unsafe fn with_scratch<R>(
    reduce_vars: u64,
    scratch_arg: u64,
    gangs: u64,
    args: *mut *mut c_void,
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
    let mut buf = SCRATCH.get().lock().unwrap_or_else(|e| e.into_inner());
    if buf.len < bytes {
        if buf.len > 0 {
            mem::free(buf.ptr, what);
        }
        *buf = Buffer { ptr: mem::alloc_block(bytes, what), len: bytes, clean: 0 };
    }
    if buf.clean < counters {
        // SAFETY: `clean < counters <= bytes <= len`: inside the buffer.
        unsafe { mem::zero(buf.ptr + buf.clean as DevPtr, counters - buf.clean, what) };
    }
    // SAFETY: the caller guarantees that `args[scratch_arg]` points to a pointer slot.
    unsafe { *(*args.add(scratch_arg as usize) as *mut *mut c_void) = buf.ptr as *mut c_void };
    let r = launch();
    // The kernel left its counters zero and wrote partial results after them.
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
}
