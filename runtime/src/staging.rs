//! Large host↔device copies through page-locked staging buffers, pipelined.
//!
//! A copy from or to pageable memory (what `malloc` returns) makes the driver stage it
//! through its own small pinned buffer one piece at a time: 7.5 GB/s on the H100, where
//! page-locked memory moves at 54 GB/s. Here a copy of at least [`MIN_STAGED`] bytes goes
//! through two page-locked buffers of [`CHUNK`] bytes: while the DMA engine moves one
//! chunk, host threads fill (or empty) the other, so the transfer runs at the slower of the
//! DMA and the host's memcpy, and the host's memcpy is split over several threads
//! ([`copy_threads`]) because one core copies at well under 45 GB/s. The threads write
//! with streaming stores ([`copy_streaming`]), sparing memory the read-for-ownership pass.
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
/// Bytes per staging buffer (two of them), unless `ACCC_STAGING_CHUNK_MB` says otherwise.
pub const CHUNK: usize = 32 << 20;

/// The staged copy's settings: the defaults, or the `ACCC_STAGING_*` variables read once
/// (for measurements on a new machine; README "Environment").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// Bytes per staging buffer.
    pub chunk: usize,
    /// Most host threads sharing a chunk's memcpy.
    pub max_threads: usize,
    /// Streaming stores when filling the staging buffer (host to device).
    pub stream_in: bool,
    /// Streaming stores when emptying it into the user's memory (device to host).
    pub stream_out: bool,
}

impl Tuning {
    /// Measured on the H100 machines (1 GiB, GB/s, plain / streaming stores): into the
    /// staging buffer streaming loses (47.4 / 43.6, 45.7 / 43.1: the DMA engine then reads
    /// the buffer from memory, not from the cache the plain stores left it in); out of it
    /// into the user's memory streaming wins (42.6 / 45.4, 41.7 / 45.9).
    pub const DEFAULT: Tuning = Tuning { chunk: CHUNK, max_threads: 16, stream_in: false, stream_out: true };

    /// The defaults overridden by `var(name)`'s values: `ACCC_STAGING_CHUNK_MB` (1..=1024),
    /// `ACCC_STAGING_THREADS` (1..=256), `ACCC_STAGING_STREAM` (`in`, `out`, `both`, `none`).
    /// A value that does not parse leaves the default.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Tuning {
        let mut t = Tuning::DEFAULT;
        let num = |name: &str, lo: usize, hi: usize| var(name).and_then(|v| v.trim().parse::<usize>().ok()).filter(|n| (lo..=hi).contains(n));
        if let Some(mb) = num("ACCC_STAGING_CHUNK_MB", 1, 1024) {
            t.chunk = mb << 20;
        }
        if let Some(n) = num("ACCC_STAGING_THREADS", 1, 256) {
            t.max_threads = n;
        }
        match var("ACCC_STAGING_STREAM").as_deref().map(str::trim) {
            Some("in") => (t.stream_in, t.stream_out) = (true, false),
            Some("out") => (t.stream_in, t.stream_out) = (false, true),
            Some("both") => (t.stream_in, t.stream_out) = (true, true),
            Some("none") => (t.stream_in, t.stream_out) = (false, false),
            _ => {}
        }
        t
    }
}

/// This process's settings.
fn tuning() -> Tuning {
    static T: std::sync::OnceLock<Tuning> = std::sync::OnceLock::new();
    *T.get_or_init(|| Tuning::from_env(|name| std::env::var(name).ok()))
}

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
        let chunk = tuning().chunk;
        let buf = [cuda::mem_alloc_host(chunk)? as *mut u8, cuda::mem_alloc_host(chunk)? as *mut u8];
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
pub fn copy_threads(available: usize, max: usize) -> usize {
    available.clamp(1, max.max(1))
}

/// The `[start, end)` bytes of chunk `k` (0-based) of a `len`-byte copy in chunks of `size`.
pub fn chunk_range(len: usize, k: usize, size: usize) -> (usize, usize) {
    let start = k * size;
    (start, (start + size).min(len))
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
fn parallel_copy(dst: usize, src: usize, len: usize, threads: usize, t: usize, stream: bool) {
    let (a, b) = stripe(len, t, threads);
    if a < b {
        // SAFETY: the caller's copy covers [0, len) of both; stripes are disjoint, and host
        // and staging memory never overlap.
        unsafe { copy_streaming((dst + a) as *mut u8, (src + a) as *const u8, b - a, stream) }
    }
}

/// Copies `len` bytes; with `stream`, writing the destination with non-temporal (streaming)
/// stores where it is 16-byte aligned. A plain store first reads the destination's line into the cache
/// (a read for ownership) and writes it back later: three passes over memory per byte where
/// streaming stores take two. The staged copy is host-memory bound (the DMA engine is
/// faster than one stripe's copy per core), and a stripe is far below the size at which
/// glibc's memcpy streams by itself, so it is done here. The head before the first aligned
/// byte and the tail after the last whole 64-byte group are copied plainly.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the two do not overlap.
unsafe fn copy_streaming(dst: *mut u8, src: *const u8, len: usize, stream: bool) {
    #[cfg(target_arch = "x86_64")]
    if stream {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        let head = dst.align_offset(16).min(len);
        // SAFETY (whole block): within [0, len) of both, as the caller promises.
        unsafe {
            std::ptr::copy_nonoverlapping(src, dst, head);
            let body = (len - head) / 64 * 64;
            let (mut d, mut s) = (dst.add(head) as *mut __m128i, src.add(head) as *const __m128i);
            for _ in 0..body / 64 {
                // Four loads, then four stores: one 64-byte line per iteration. SSE2 is part
                // of x86-64, so no feature check is needed.
                let v = [_mm_loadu_si128(s), _mm_loadu_si128(s.add(1)), _mm_loadu_si128(s.add(2)), _mm_loadu_si128(s.add(3))];
                for (k, v) in v.into_iter().enumerate() {
                    _mm_stream_si128(d.add(k), v);
                }
                d = d.add(4);
                s = s.add(4);
            }
            // Streaming stores are weakly ordered: fence them before the DMA (or the
            // caller) reads the bytes.
            _mm_sfence();
            let done = head + body;
            std::ptr::copy_nonoverlapping(src.add(done), dst.add(done), len - done);
        }
        return;
    }
    // SAFETY: as the caller promises.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) }
}

/// Copies `len` bytes from host `src` to device `dst` through the staging buffers.
///
/// # Safety
/// `src` must be readable for `len` bytes, `dst..dst+len` inside one device allocation.
pub unsafe fn copy_to_device(dst: DevPtr, src: *const c_void, len: usize) -> Result<(), CuError> {
    let mut slot = STAGE.get().lock().unwrap_or_else(|e| e.into_inner());
    let st = stage(&mut slot)?;
    let tune = tuning();
    let threads = copy_threads(std::thread::available_parallelism().map_or(1, |n| n.get()), tune.max_threads);
    let (size, chunks) = (tune.chunk, len.div_ceil(tune.chunk));
    let barrier = Barrier::new(threads);
    let (src, buf) = (src as usize, [st.buf[0] as usize, st.buf[1] as usize]);
    std::thread::scope(|s| -> Result<(), CuError> {
        for t in 1..threads {
            let barrier = &barrier;
            s.spawn(move || {
                for k in 0..chunks {
                    let (a, b) = chunk_range(len, k, size);
                    barrier.wait();
                    parallel_copy(buf[k % 2], src + a, b - a, threads, t, tune.stream_in);
                    barrier.wait();
                }
            });
        }
        let mut failed = None;
        for k in 0..chunks {
            let (a, b) = chunk_range(len, k, size);
            // The buffer's previous chunk (k - 2) must have left for the device.
            if k >= 2 && failed.is_none() {
                failed = cuda::event_synchronize(st.done[k % 2]).err();
            }
            barrier.wait();
            parallel_copy(buf[k % 2], src + a, b - a, threads, 0, tune.stream_in);
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
    let tune = tuning();
    let threads = copy_threads(std::thread::available_parallelism().map_or(1, |n| n.get()), tune.max_threads);
    let (size, chunks) = (tune.chunk, len.div_ceil(tune.chunk));
    let barrier = Barrier::new(threads);
    let (dst, buf) = (dst as usize, [st.buf[0] as usize, st.buf[1] as usize]);
    // Chunk k's DMA into buffer k % 2; the host empties a buffer before the DMA after next
    // refills it (the barrier at the end of each round).
    let fetch = |k: usize| -> Result<(), CuError> {
        let (a, b) = chunk_range(len, k, size);
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
                    let (a, b) = chunk_range(len, k, size);
                    barrier.wait();
                    parallel_copy(dst + a, buf[k % 2], b - a, threads, t, tune.stream_out);
                    barrier.wait();
                }
            });
        }
        let mut failed = fetch(0).err();
        for k in 0..chunks {
            let (a, b) = chunk_range(len, k, size);
            if k + 1 < chunks && failed.is_none() {
                failed = fetch(k + 1).err();
            }
            if failed.is_none() {
                failed = cuda::event_synchronize(st.done[k % 2]).err();
            }
            barrier.wait();
            if failed.is_none() {
                parallel_copy(dst + a, buf[k % 2], b - a, threads, 0, tune.stream_out);
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
        let ranges: Vec<_> = (0..len.div_ceil(CHUNK)).map(|k| chunk_range(len, k, CHUNK)).collect();
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
    fn streaming_copy_is_a_copy_at_every_alignment_and_length() {
        let src: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        for (off, len) in [(0, 0), (0, 1), (3, 15), (1, 64), (5, 200), (16, 640), (7, 993)] {
            for stream in [false, true] {
                let mut dst = vec![0u8; 1000];
                // SAFETY: both buffers hold off + len bytes and are distinct.
                unsafe { copy_streaming(dst.as_mut_ptr().add(off), src.as_ptr().add(3), len, stream) };
                assert_eq!(&dst[off..off + len], &src[3..3 + len], "offset {off}, length {len}");
                assert!(dst[..off].iter().chain(&dst[off + len..]).all(|&b| b == 0), "wrote outside: {off} {len}");
            }
        }
    }

    #[test]
    fn small_copies_go_direct() {
        assert!(!staged(MIN_STAGED - 1));
        assert!(staged(MIN_STAGED));
        assert_eq!(copy_threads(1, 16), 1);
        assert_eq!(copy_threads(16, 16), 16);
        assert_eq!(copy_threads(64, 16), 16);
        assert_eq!(copy_threads(64, 0), 1);
    }

    #[test]
    fn tuning_reads_only_sane_values() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|p| p.0 == name).map(|p| p.1.to_string())
        };
        assert_eq!(Tuning::from_env(env(&[])), Tuning::DEFAULT);
        let t = Tuning::from_env(env(&[("ACCC_STAGING_CHUNK_MB", "8"), ("ACCC_STAGING_THREADS", "24"), ("ACCC_STAGING_STREAM", "both")]));
        assert_eq!(t, Tuning { chunk: 8 << 20, max_threads: 24, stream_in: true, stream_out: true });
        let bad = Tuning::from_env(env(&[("ACCC_STAGING_CHUNK_MB", "0"), ("ACCC_STAGING_THREADS", "x"), ("ACCC_STAGING_STREAM", "sideways")]));
        assert_eq!(bad, Tuning::DEFAULT);
    }
}
