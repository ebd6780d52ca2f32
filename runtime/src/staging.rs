//! Large host↔device copies through page-locked staging buffers, pipelined.
//!
//! A copy from or to pageable memory (what `malloc` returns) makes the driver stage it
//! through its own small pinned buffer one piece at a time: 7.5 GB/s on the H100, where
//! page-locked memory moves at 54 GB/s. Here a copy of at least [`MIN_STAGED`] bytes goes
//! through two page-locked buffers of [`CHUNK`] bytes: while the DMA engine moves one
//! chunk, host threads fill (or empty) the other, so the transfer runs at the slower of the
//! DMA and the host's memcpy, and the host's memcpy is split over several threads
//! ([`copy_threads`]) because one core copies at well under 45 GB/s.
//!
//! Expects: the GPU target, its context current on the calling thread (the staging buffers
//! and events are created in it on first use). The copies go on the legacy default stream,
//! ordered against async queues' streams as a plain synchronous copy is (queue.rs). Produces: the bytes copied before it
//! returns, as `cuMemcpyHtoD`/`DtoH` would. One staged copy at a time (a lock), since the
//! buffers are shared. Does not: pin the user's memory in place (`cuMemHostRegister` costs
//! more than the copy it speeds up, and the user may free the memory behind our back), or
//! overlap a copy with the caller's next work (async queues do that).

use std::ffi::c_void;
use std::sync::{Barrier, Mutex};

use crate::cuda::{self, CuError, DevPtr, Handle};
use crate::device;

/// Copies smaller than this go to the driver directly (staging gains nothing there).
pub const MIN_STAGED: usize = 8 << 20;
/// Bytes per staging buffer (two of them).
pub const CHUNK: usize = 32 << 20;

/// The staging buffers, the stream their copies go on and per-buffer events, made on the
/// first staged copy.
struct Stage {
    buf: [*mut u8; 2],
    stream: Handle,
    done: [Handle; 2],
}

// SAFETY: the buffers are page-locked host memory owned by the process for its lifetime,
// and the handles are process-wide driver handles; the mutex below serialises their use.
unsafe impl Send for Stage {}

/// One set of staging buffers per device (its events belong to the device's context).
static STAGE: device::PerDevice<Mutex<Option<Stage>>> = device::PerDevice::new(|| Mutex::new(None));

fn stage(slot: &mut Option<Stage>) -> Result<&Stage, CuError> {
    if slot.is_none() {
        let buf = [cuda::mem_alloc_host(CHUNK)? as *mut u8, cuda::mem_alloc_host(CHUNK)? as *mut u8];
        // The legacy default stream: a staged copy is ordered against the queues' streams
        // exactly as the plain `cuMemcpyHtoD`/`DtoH` it replaces.
        let stream = Handle(std::ptr::null_mut());
        *slot = Some(Stage { buf, stream, done: [cuda::event_create()?, cuda::event_create()?] });
    }
    Ok(slot.as_ref().expect("made above"))
}

/// Whether a copy of `len` bytes is staged.
pub fn staged(len: usize) -> bool {
    len >= MIN_STAGED
}

/// Host threads that share each chunk's memcpy: as many as the machine has, up to 16. The
/// host copy is the pipeline's slow stage (a core copies about 6 GB/s into or out of pinned
/// memory). Measured on the H100's host (16 cores), 1 GiB in / out, GB/s, by chunk size
/// and threads: 16 MiB: 4: 26 / 23, 8: 39 / 33, 12: 43 / 37, 16: 41 / 36; 32 MiB: 4: 24 / 20,
/// 8: 36 / 28, 12: 46 / 35, 16: 45 / 41; 64 MiB (a longer pipeline fill): 16: 37 / 36.
pub fn copy_threads(available: usize) -> usize {
    available.clamp(1, 16)
}

/// The `[start, end)` bytes of `chunk` (0-based) of a `len`-byte copy.
pub fn chunk_range(len: usize, chunk: usize) -> (usize, usize) {
    let start = chunk * CHUNK;
    (start, (start + CHUNK).min(len))
}

/// The `[start, end)` bytes of stripe `t` of `threads` within `n` bytes (stripes differ by at
/// most one 64-byte line).
pub fn stripe(n: usize, t: usize, threads: usize) -> (usize, usize) {
    let lines = n.div_ceil(64);
    let at = |k: usize| (lines * k / threads * 64).min(n);
    (at(t), at(t + 1))
}

/// `len` bytes from one side to the other, split over the threads; `(dst, src)` are host
/// addresses (one of them a staging buffer).
fn parallel_copy(dst: usize, src: usize, len: usize, threads: usize, t: usize) {
    let (a, b) = stripe(len, t, threads);
    if a < b {
        // SAFETY: the caller's copy covers [0, len) of both; stripes are disjoint, and host
        // and staging memory never overlap.
        unsafe { std::ptr::copy_nonoverlapping((src + a) as *const u8, (dst + a) as *mut u8, b - a) }
    }
}

/// Copies `len` bytes from host `src` to device `dst` through the staging buffers.
///
/// # Safety
/// `src` must be readable for `len` bytes, `dst..dst+len` inside one device allocation.
pub unsafe fn copy_to_device(dst: DevPtr, src: *const c_void, len: usize) -> Result<(), CuError> {
    let mut slot = STAGE.get().lock().unwrap_or_else(|e| e.into_inner());
    let st = stage(&mut slot)?;
    let threads = copy_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
    let chunks = len.div_ceil(CHUNK);
    let barrier = Barrier::new(threads);
    let (src, buf) = (src as usize, [st.buf[0] as usize, st.buf[1] as usize]);
    std::thread::scope(|s| -> Result<(), CuError> {
        for t in 1..threads {
            let barrier = &barrier;
            s.spawn(move || {
                for k in 0..chunks {
                    let (a, b) = chunk_range(len, k);
                    barrier.wait();
                    parallel_copy(buf[k % 2], src + a, b - a, threads, t);
                    barrier.wait();
                }
            });
        }
        let mut failed = None;
        for k in 0..chunks {
            let (a, b) = chunk_range(len, k);
            // The buffer's previous chunk (k - 2) must have left for the device.
            if k >= 2 && failed.is_none() {
                failed = cuda::event_synchronize(st.done[k % 2]).err();
            }
            barrier.wait();
            parallel_copy(buf[k % 2], src + a, b - a, threads, 0);
            barrier.wait();
            if failed.is_none() {
                // SAFETY: the buffer is page-locked and holds the chunk; it is not written
                // again before `done` of this buffer is reached. `dst` as the caller says.
                failed = unsafe { cuda::memcpy_htod_async(dst + a as u64, buf[k % 2] as *const c_void, b - a, st.stream) }
                    .and_then(|()| cuda::event_record(st.done[k % 2], st.stream))
                    .err();
            }
        }
        // The helpers always run every round (the barrier needs them), even after an error.
        match failed {
            Some(e) => Err(e),
            None => cuda::stream_synchronize(st.stream),
        }
    })
}

/// Copies `len` bytes from device `src` to host `dst` through the staging buffers.
///
/// # Safety
/// `dst` must be writable for `len` bytes, `src..src+len` inside one device allocation.
pub unsafe fn copy_from_device(dst: *mut c_void, src: DevPtr, len: usize) -> Result<(), CuError> {
    let mut slot = STAGE.get().lock().unwrap_or_else(|e| e.into_inner());
    let st = stage(&mut slot)?;
    let threads = copy_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
    let chunks = len.div_ceil(CHUNK);
    let barrier = Barrier::new(threads);
    let (dst, buf) = (dst as usize, [st.buf[0] as usize, st.buf[1] as usize]);
    // Chunk k's DMA into buffer k % 2; the host empties a buffer before the DMA after next
    // refills it (the barrier at the end of each round).
    let fetch = |k: usize| -> Result<(), CuError> {
        let (a, b) = chunk_range(len, k);
        // SAFETY: the buffer is page-locked and its previous chunk was copied out (the
        // round's closing barrier); `src` as the caller says.
        unsafe { cuda::memcpy_dtoh_async(buf[k % 2] as *mut c_void, src + a as u64, b - a, st.stream) }?;
        cuda::event_record(st.done[k % 2], st.stream)
    };
    std::thread::scope(|s| -> Result<(), CuError> {
        for t in 1..threads {
            let barrier = &barrier;
            s.spawn(move || {
                for k in 0..chunks {
                    let (a, b) = chunk_range(len, k);
                    barrier.wait();
                    parallel_copy(dst + a, buf[k % 2], b - a, threads, t);
                    barrier.wait();
                }
            });
        }
        let mut failed = fetch(0).err();
        for k in 0..chunks {
            let (a, b) = chunk_range(len, k);
            if k + 1 < chunks && failed.is_none() {
                failed = fetch(k + 1).err();
            }
            if failed.is_none() {
                failed = cuda::event_synchronize(st.done[k % 2]).err();
            }
            barrier.wait();
            if failed.is_none() {
                parallel_copy(dst + a, buf[k % 2], b - a, threads, 0);
            }
            barrier.wait();
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_copy_once() {
        let len = 3 * CHUNK + 5;
        let ranges: Vec<_> = (0..len.div_ceil(CHUNK)).map(|k| chunk_range(len, k)).collect();
        assert_eq!(ranges.len(), 4);
        assert_eq!(ranges[0], (0, CHUNK));
        assert_eq!(ranges[3], (3 * CHUNK, len));
        assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0));
    }

    #[test]
    fn stripes_cover_a_chunk_once_on_line_boundaries() {
        for (n, threads) in [(CHUNK, 8), (1000, 3), (5, 4), (64 * 7 + 1, 8)] {
            let parts: Vec<_> = (0..threads).map(|t| stripe(n, t, threads)).collect();
            assert_eq!(parts[0].0, 0);
            assert_eq!(parts[threads - 1].1, n);
            assert!(parts.windows(2).all(|w| w[0].1 == w[1].0), "{n} {threads}: {parts:?}");
            assert!(parts.iter().all(|p| p.0 % 64 == 0 && p.0 <= p.1));
        }
    }

    #[test]
    fn small_copies_go_direct() {
        assert!(!staged(MIN_STAGED - 1));
        assert!(staged(MIN_STAGED));
        assert_eq!(copy_threads(1), 1);
        assert_eq!(copy_threads(16), 16);
        assert_eq!(copy_threads(64), 16);
    }
}
