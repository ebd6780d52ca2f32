//! Large host↔device copies through page-locked staging buffers, pipelined.
//!
//! A copy from or to pageable memory (what `malloc` returns) makes the driver stage it
//! through its own small pinned buffer one piece at a time: 7.5 GB/s on the H100, where
//! page-locked memory moves at 54 GB/s. Here a copy of at least [`MIN_STAGED`] bytes is cut
//! into pieces ([`schedule`]: mostly [`PIECE`] bytes, smaller at both ends) that one lane per
//! host thread ([`copy_threads`], since one core copies at well under 45 GB/s) claims one
//! at a time. Each lane moves its pieces through its own ring of [`DEPTH`] pinned buffers
//! and its own stream: while the DMA engine moves one piece, the thread fills (or empties)
//! the next buffer. The lanes never wait for each other, a lane on a busy core claims fewer
//! pieces, and the buffers are small enough to stay in the host's last-level cache, so the
//! host's memory sees the user's bytes once (the DMA engine reads and writes the buffers
//! in the cache): the pipeline's slow stage is the host's memory bandwidth, which on the
//! GPU machines is shared with other tenants. Pinning the user's memory instead
//! (`cuMemHostRegister`) runs at 18 GB/s on the H100's host, slower than the copy it speeds up,
//! and the user may free the memory behind our back.
//!
//! Expects: the GPU target, its context current on the calling thread (the buffers, streams
//! and events are created in it on first use). Produces: the bytes copied before it
//! returns, ordered as the legacy default stream's `cuMemcpyHtoD`/`DtoH` would be (the
//! lanes' streams wait for an event recorded there, which follows every earlier operation
//! of the legacy stream and of the async queues' blocking streams, queue.rs). One staged
//! copy at a time (a lock), since the buffers are shared. Does not overlap a copy with the
//! caller's next work (async queues do that).

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::cuda::{self, CuError, DevPtr, Handle};
use crate::device;

/// Copies smaller than this go to the driver directly (staging gains nothing there).
pub const MIN_STAGED: usize = 8 << 20;
/// Bytes per staging buffer, unless `ACCC_STAGING_PIECE_KB` says otherwise.
pub const PIECE: usize = 2 << 20;
/// Buffers per thread (pieces in flight), unless `ACCC_STAGING_DEPTH` says otherwise.
pub const DEPTH: usize = 3;

/// The staged copy's settings: the defaults, or the `ACCC_STAGING_*` variables read once
/// (for measurements on a new machine; README "Environment").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// Bytes per staging buffer.
    pub piece: usize,
    /// Buffers per thread.
    pub depth: usize,
    /// Most host threads sharing the copy.
    pub max_threads: usize,
    /// Streaming stores when filling a staging buffer (host to device).
    pub stream_in: bool,
    /// Streaming stores when emptying one into the user's memory (device to host).
    pub stream_out: bool,
}

impl Tuning {
    /// Measured on the H200 machine's host (16 threads, 1 GiB, GB/s in / out, three runs
    /// each, 2026-11-27, a fixed slice per lane): pieces x depth 2 MiB x 2: 46.8 / 43.0;
    /// 2 MiB x 3: 46.5 / 49.5; 3 MiB x 2: 46.9 / 49.0; 3 MiB x 3: 40.8 / 50.4; 4 MiB x 2:
    /// 44.7 / 49.1; 4 MiB x 3: 37.0 / 48.7; 8 MiB x 2: 36.2 / 40.3; 1 MiB x 2: 39.9 / 32.7;
    /// 256 KiB x 2: 19.9 / 25.5 (each DMA's fixed cost). With pieces claimed (2026-11-28,
    /// two runs each; pinned memory 54.5 / 55.2 there): 2 MiB x 3: 46.1 46.9 / 50.2 50.3;
    /// 3 MiB x 2: 47.1 46.5 / 49.5 49.5; 1 MiB x 4: 45.4 45.3 / 47.6 48.1; 4 MiB x 2: 46.2
    /// 44.1 / 50.9 51.0; 12 threads: 47.8 47.0 / 50.1 50.3; streaming stores both ways:
    /// 40.4 39.2 / 50.6 50.2. To the device wants a lane's buffers to stay in the cache
    /// (at most about 6 MiB a lane), from it enough in flight.
    pub const DEFAULT: Tuning = Tuning { piece: PIECE, depth: DEPTH, max_threads: 16, stream_in: false, stream_out: true };

    /// The defaults overridden by `var(name)`'s values: `ACCC_STAGING_PIECE_KB` (64..=1048576,
    /// rounded down to a multiple of 64 KiB), `ACCC_STAGING_DEPTH` (2..=8), `ACCC_STAGING_THREADS`
    /// (1..=256), `ACCC_STAGING_STREAM` (`in`, `out`, `both`, `none`). A value that does not
    /// parse leaves the default.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Tuning {
        let mut t = Tuning::DEFAULT;
        let num = |name: &str, lo: usize, hi: usize| var(name).and_then(|v| v.trim().parse::<usize>().ok()).filter(|n| (lo..=hi).contains(n));
        if let Some(kb) = num("ACCC_STAGING_PIECE_KB", 64, 1 << 20) {
            t.piece = (kb / 64 * 64) << 10;
        }
        if let Some(n) = num("ACCC_STAGING_DEPTH", 2, 8) {
            t.depth = n;
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

/// One thread's share of the staging: its ring of pinned buffers, the stream their copies
/// go on and an event per buffer (reached when the buffer's last copy is done).
struct Lane {
    buf: Vec<usize>,
    done: Vec<Handle>,
    stream: Handle,
}

/// The lanes, made on the first staged copy, and the event that orders a copy after the
/// legacy default stream's earlier work.
struct Stage {
    lanes: Vec<Lane>,
    start: Handle,
}

// SAFETY: the buffers are page-locked host memory owned by the process for its lifetime,
// and the handles are process-wide driver handles; the mutex below serialises their use.
unsafe impl Send for Stage {}
// SAFETY: as for Send: a lane is used by one thread of one copy at a time.
unsafe impl Sync for Lane {}

/// One set of staging lanes per device (streams and events belong to the device's context).
static STAGE: device::PerDevice<Mutex<Option<Stage>>> = device::PerDevice::new(|| Mutex::new(None));

fn stage(slot: &mut Option<Stage>, lanes: usize, t: Tuning) -> Result<&Stage, CuError> {
    if slot.is_none() {
        let lane = || -> Result<Lane, CuError> {
            let buf = (0..t.depth).map(|_| cuda::mem_alloc_host(t.piece).map(|p| p as usize)).collect::<Result<_, _>>()?;
            let done = (0..t.depth).map(|_| cuda::event_create()).collect::<Result<_, _>>()?;
            Ok(Lane { buf, done, stream: cuda::stream_create()? })
        };
        let lanes = (0..lanes).map(|_| lane()).collect::<Result<_, _>>()?;
        *slot = Some(Stage { lanes, start: cuda::event_create()? });
    }
    Ok(slot.as_ref().expect("made above"))
}

/// Whether a copy of `len` bytes is staged.
pub fn staged(len: usize) -> bool {
    len >= MIN_STAGED
}

/// Host threads that share the copy: as many as the machine has, up to `max` (16). The
/// host copy is the pipeline's slow stage (a core copies about 6 GB/s into or out of pinned
/// memory).
pub fn copy_threads(available: usize, max: usize) -> usize {
    available.clamp(1, max.max(1))
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

/// Which way a staged copy goes.
#[derive(Clone, Copy)]
enum Way {
    /// From host `user` to device `dev`.
    ToDevice,
    /// From device `dev` to host `user`.
    FromDevice,
}

/// Copies `len` bytes from host `src` to device `dst` through the staging buffers.
///
/// # Safety
/// `src` must be readable for `len` bytes, `dst..dst+len` inside one device allocation.
pub unsafe fn copy_to_device(dst: DevPtr, src: *const c_void, len: usize) -> Result<(), CuError> {
    // SAFETY: as the caller promises.
    unsafe { staged_copy(Way::ToDevice, src as usize, dst, len) }
}

/// Copies `len` bytes from device `src` to host `dst` through the staging buffers.
///
/// # Safety
/// `dst` must be writable for `len` bytes, `src..src+len` inside one device allocation.
pub unsafe fn copy_from_device(dst: *mut c_void, src: DevPtr, len: usize) -> Result<(), CuError> {
    // SAFETY: as the caller promises.
    unsafe { staged_copy(Way::FromDevice, dst as usize, src, len) }
}

/// The copy: the lanes claim pieces of [`schedule`] in turn, each lane on its own thread
/// (lane 0 on the caller's).
///
/// # Safety
/// `user..user+len` readable (to the device) or writable (from it), `dev..dev+len` inside
/// one device allocation.
unsafe fn staged_copy(way: Way, user: usize, dev: DevPtr, len: usize) -> Result<(), CuError> {
    let Some(device::Target::Gpu(gpu)) = device::target() else {
        unreachable!("staged copies are made for the GPU target only (mem.rs)")
    };
    let ctx = gpu.context;
    let tune = tuning();
    let threads = copy_threads(std::thread::available_parallelism().map_or(1, |n| n.get()), tune.max_threads);
    let mut slot = STAGE.get().lock().unwrap_or_else(|e| e.into_inner());
    let st = stage(&mut slot, threads, tune)?;
    // Every lane's stream starts after the legacy default stream's earlier work, as the
    // synchronous copy this replaces would.
    cuda::event_record(st.start, Handle(std::ptr::null_mut()))?;
    let copy = Copy { way, user, dev, pieces: schedule(len, tune.piece, threads), next: AtomicUsize::new(0), start: st.start, tune };
    let results: Vec<Result<(), CuError>> = std::thread::scope(|s| {
        let copy = &copy;
        let handles: Vec<_> = st.lanes[1..]
            .iter()
            .map(|lane| {
                s.spawn(move || {
                    cuda::ctx_set_current(ctx)?;
                    // SAFETY: the caller's ranges; each piece is claimed by one lane.
                    unsafe { copy.run(lane) }
                })
            })
            .collect();
        // SAFETY: as for the spawned lanes.
        let mine = unsafe { copy.run(&st.lanes[0]) };
        std::iter::once(mine).chain(handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))).collect()
    });
    results.into_iter().collect()
}

/// One staged copy, shared by its lanes: the pieces and the index of the next unclaimed one.
struct Copy {
    way: Way,
    user: usize,
    dev: DevPtr,
    pieces: Vec<(usize, usize)>,
    next: AtomicUsize,
    start: Handle,
    tune: Tuning,
}

impl Copy {
    /// The next unclaimed piece's `(offset, bytes)`, if any is left.
    fn claim(&self) -> Option<(usize, usize)> {
        self.pieces.get(self.next.fetch_add(1, Ordering::Relaxed)).copied()
    }

    /// One lane's share: pieces claimed one at a time until none is left, each through the
    /// lane's ring of buffers; returns when the lane's last piece has arrived. A lane that
    /// starts late or runs on a busy core just claims fewer pieces (a fixed slice per lane
    /// made the copy wait for the slowest).
    ///
    /// # Safety
    /// As for [`staged_copy`]; no other thread uses `lane` meanwhile.
    unsafe fn run(&self, lane: &Lane) -> Result<(), CuError> {
        cuda::stream_wait_event(lane.stream, self.start)?;
        let depth = lane.buf.len();
        match self.way {
            Way::ToDevice => {
                let mut taken = 0;
                while let Some((at, n)) = self.claim() {
                    let (buf, done) = (lane.buf[taken % depth], lane.done[taken % depth]);
                    // The buffer's previous piece must have left for the device.
                    if taken >= depth {
                        cuda::event_synchronize(done)?;
                    }
                    // SAFETY: the buffer holds `tune.piece` bytes (no piece is larger) and is
                    // not in flight; the user's bytes as the caller promises.
                    unsafe { copy_streaming(buf as *mut u8, (self.user + at) as *const u8, n, self.tune.stream_in) };
                    // SAFETY: the buffer is page-locked and is not written again before `done`.
                    unsafe { cuda::memcpy_htod_async(self.dev + at as u64, buf as *const c_void, n, lane.stream) }?;
                    cuda::event_record(done, lane.stream)?;
                    taken += 1;
                }
                cuda::stream_synchronize(lane.stream)
            }
            Way::FromDevice => {
                let fetch = |(at, n): (usize, usize), slot: usize| -> Result<(), CuError> {
                    // SAFETY: the buffer is page-locked, holds `tune.piece` bytes, and its
                    // previous piece was copied out.
                    unsafe { cuda::memcpy_dtoh_async(lane.buf[slot] as *mut c_void, self.dev + at as u64, n, lane.stream) }?;
                    cuda::event_record(lane.done[slot], lane.stream)
                };
                // Up to `depth` pieces in flight, oldest first.
                let mut flight = std::collections::VecDeque::with_capacity(depth);
                for slot in 0..depth {
                    let Some(p) = self.claim() else { break };
                    fetch(p, slot)?;
                    flight.push_back((p, slot));
                }
                while let Some(((at, n), slot)) = flight.pop_front() {
                    cuda::event_synchronize(lane.done[slot])?;
                    // SAFETY: the buffer holds the piece (its event was reached); the user's
                    // bytes as the caller promises.
                    unsafe { copy_streaming((self.user + at) as *mut u8, lane.buf[slot] as *const u8, n, self.tune.stream_out) };
                    if let Some(p) = self.claim() {
                        fetch(p, slot)?;
                        flight.push_back((p, slot));
                    }
                }
                Ok(())
            }
        }
    }
}

/// How much smaller than a full piece the first and last pieces of a copy are.
pub const RAMP: usize = 8;

/// The `(offset, bytes)` pieces of a `len`-byte copy shared by `lanes` lanes, in the order
/// they are claimed: `lanes` small pieces (`piece / RAMP`, at least 64 KiB) first, full
/// pieces of `piece` bytes, and `lanes` small ones last. The DMA engine waits for the first
/// piece to be filled (to the device) and the copy ends with the last piece's emptying
/// (from it): small pieces at both ends shorten that fill and drain, which full ones made
/// half a millisecond of a 1 GiB copy's 20.
pub fn schedule(len: usize, piece: usize, lanes: usize) -> Vec<(usize, usize)> {
    let small = (piece / RAMP).max(64 << 10).min(piece);
    let tail = lanes * small;
    let mut out = Vec::with_capacity(len / piece + 2 * lanes + 2);
    let mut at = 0;
    let mut take = |at: &mut usize, most: usize| {
        let n = most.min(len - *at);
        out.push((*at, n));
        *at += n;
    };
    while at < len && at < tail {
        take(&mut at, small);
    }
    while len.saturating_sub(at) > tail {
        let most = piece.min(len - at - tail);
        take(&mut at, most);
    }
    while at < len {
        take(&mut at, small);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_covers_the_copy_once_with_small_ends() {
        let covers = |pieces: &[(usize, usize)], len: usize| {
            pieces.first().map_or(0, |p| p.0) == 0
                && pieces.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0)
                && pieces.last().map_or(0, |p| p.0 + p.1) == len
                && pieces.iter().all(|p| p.1 > 0)
        };
        let small = PIECE / RAMP;
        // 1 GiB over 16 lanes: 16 small, full pieces, 16 small.
        let len = 1 << 30;
        let s = schedule(len, PIECE, 16);
        assert!(covers(&s, len));
        assert!(s[..16].iter().chain(&s[s.len() - 16..]).all(|p| p.1 == small), "{:?}", &s[..17]);
        assert!(s[16..s.len() - 16].iter().all(|p| p.1 == PIECE));
        assert_eq!(s.len(), 32 + (len - 32 * small) / PIECE);
        // Odd lengths, short copies (all small), one lane, pieces below the 64 KiB floor.
        for (len, piece, lanes) in [(len + 4097, PIECE, 16), (MIN_STAGED, PIECE, 16), (3 * PIECE + 5, PIECE, 1), (5 << 20, 64 << 10, 3), (1000, 4096, 2)] {
            let s = schedule(len, piece, lanes);
            assert!(covers(&s, len), "{len} {piece} {lanes}: {s:?}");
            assert!(s.iter().all(|p| p.1 <= piece), "{len} {piece} {lanes}: a piece larger than its buffer");
        }
        assert!(schedule(MIN_STAGED, PIECE, 16).iter().all(|p| p.1 == small));
        assert!(schedule(0, PIECE, 4).is_empty());
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
        let t = Tuning::from_env(env(&[("ACCC_STAGING_PIECE_KB", "300"), ("ACCC_STAGING_DEPTH", "3"), ("ACCC_STAGING_THREADS", "24"), ("ACCC_STAGING_STREAM", "both")]));
        assert_eq!(t, Tuning { piece: 256 << 10, depth: 3, max_threads: 24, stream_in: true, stream_out: true });
        let bad = Tuning::from_env(env(&[("ACCC_STAGING_PIECE_KB", "0"), ("ACCC_STAGING_DEPTH", "1"), ("ACCC_STAGING_THREADS", "x"), ("ACCC_STAGING_STREAM", "sideways")]));
        assert_eq!(bad, Tuning::DEFAULT);
    }
}
