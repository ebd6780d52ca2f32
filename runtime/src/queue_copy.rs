//! Copies of more than `bounce::MAX` bytes between pageable host memory and the device on an
//! async queue, staged on the queue's own stream through a page-locked buffer by host
//! functions, so that the call returns at once and the host never waits for the queue.
//!
//! CUDA copies pageable memory on a stream synchronously with the host: to the device the
//! call first waits for the stream's earlier work, to the host it returns only once the copy
//! is done. So an `update device(a[0:n]) async(1)` behind a long kernel held the host for
//! the kernel.
//!
//! Here the copy is cut into pieces of at most [`PIECE`] bytes, and each piece becomes two
//! operations on the queue's stream, through the stream's buffer: to the device, a host
//! function (`cuLaunchHostFunc`) copying the piece from the program's memory into the
//! buffer, then the driver's copy of the buffer to the device; to the host, the driver's
//! copy into the buffer, then a host function copying it into the program's memory. A
//! stream runs its operations one after another, each once the one before has finished, so
//! one buffer serves every piece of every copy of its stream: the queue's order is the only
//! synchronisation, and nothing (no thread of ours, no host-written value the stream waits
//! for) stands between the queue and its progress. A host function makes no CUDA call and
//! takes only locks that no thread holds across one (bounce.rs's), so a driver call that
//! waits for the device's work (a free) cannot deadlock with it.
//!
//! (The first design, a copy thread per queue that the stream waited for through
//! `cuStreamWaitValue32`, deadlocked on the H100, 2026-12-07; the hang was not traced, but
//! a queue waiting for a host thread that itself makes driver calls can hang behind any
//! driver call that waits for the device, as a free does: lupine PR 679 traced that one.)
//!
//! The host bytes are read (to the device) or written (to the host) when the queue reaches
//! the copy, not at the call: the program leaves them alone until it waits for the queue,
//! as OpenACC asks of async data. A download's host range is recorded as undelivered
//! (bounce.rs) until its last piece has landed.
//!
//! The cost: the pieces' host copies and transfers take turns (one stream), about as fast
//! as the pageable copy they replace; each stream that makes such a copy keeps a
//! page-locked buffer of [`PIECE`] bytes for the process.
//!
//! Expects: the GPU target, the queue's stream, its context current, and
//! `ACCC_ASYNC_STAGED_COPIES=1` ([`available`]; otherwise mem.rs keeps the driver's
//! pageable copy, which makes the host wait for the queue).
//!
//! Status: opt-in until it has run on a GPU; tests/gpu/async_copy_gpu.c turns it on and is
//! the check to run before it becomes the default.
//!
//! Not here: synchronous copies (staging.rs, mem.rs), copies of at most 4 KiB (bounce.rs).

use std::ffi::c_void;
use std::sync::Mutex;

use crate::cuda::{self, CuError, DevPtr, Handle};
use crate::bounce;

/// Bytes of a stream's buffer, and of the pieces a copy is cut into. Large enough that a
/// piece's host function (microseconds to start) is a small part of its copy's time.
pub const PIECE: usize = 4 << 20;

/// Which way a copy goes, with its host address.
#[derive(Clone, Copy, Debug)]
pub enum Way {
    ToDevice { src: usize },
    FromDevice { dst: usize },
}

/// Each stream's page-locked buffer (stream, buffer host address), with the process they
/// were made in (a forked child makes its own).
struct Buffers {
    pid: u32,
    of: Vec<(usize, usize)>,
}

static BUFFERS: Mutex<Buffers> = Mutex::new(Buffers { pid: 0, of: Vec::new() });

/// Whether async copies of pageable memory are staged here: only with
/// `ACCC_ASYNC_STAGED_COPIES=1` until this path has run on a GPU.
pub fn available() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("ACCC_ASYNC_STAGED_COPIES").is_ok_and(|v| v.trim() == "1"))
}

/// `stream`'s buffer, allocated (in the calling thread's current context, the stream's) on
/// its first copy.
fn buffer_of(stream: Handle) -> Result<usize, CuError> {
    let mut b = BUFFERS.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if b.pid != pid {
        b.pid = pid;
        b.of.clear();
    }
    let key = stream.0 as usize;
    if let Some(&(_, buf)) = b.of.iter().find(|e| e.0 == key) {
        return Ok(buf);
    }
    // Under the lock: no host function takes it, so an allocation that waits for the
    // device's work cannot wait for us.
    let buf = cuda::mem_alloc_host(PIECE)? as usize;
    b.of.push((key, buf));
    Ok(buf)
}

/// The pieces `(offset, len)` a copy of `len` bytes is cut into, in order.
pub fn pieces(len: usize, piece: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..len).step_by(piece.max(1)).map(move |off| (off, piece.min(len - off)))
}

/// One host copy a host function makes: `len` bytes from `from` to `to`; `delivers`: the
/// download's whole host range, delivered by its last piece.
struct HostCopy {
    from: usize,
    to: usize,
    len: usize,
    delivers: Option<(usize, usize)>,
}

/// The host function of a piece.
unsafe extern "C" fn host_copy(data: *mut c_void) {
    // SAFETY: `data` is the `HostCopy` boxed by `enqueue_host_copy`, passed once.
    let c = unsafe { Box::from_raw(data.cast::<HostCopy>()) };
    // SAFETY: the stream's buffer and the program's range hold `len` bytes each and do not
    // overlap; the program keeps its range valid until the queue is done (`enqueue`'s
    // caller); the stream has finished every operation before this one.
    unsafe { std::ptr::copy_nonoverlapping(c.from as *const u8, c.to as *mut u8, c.len) };
    if let Some((dst, len)) = c.delivers {
        bounce::delivered(dst, len);
    }
}

fn enqueue_host_copy(stream: Handle, c: HostCopy) -> Result<(), CuError> {
    let data = Box::into_raw(Box::new(c));
    // SAFETY: `host_copy` takes back the box exactly once, on the driver's thread; it makes
    // no CUDA call and takes only the undelivered ranges' lock, which no thread holds
    // across a driver call.
    unsafe { cuda::launch_host_func(stream, host_copy, data.cast()) }
}

/// Enqueues a copy of `len` bytes between `way`'s host address and device `dev` on
/// `stream`, a queue's stream of the calling thread's GPU, through the stream's buffer.
///
/// # Safety
/// The host range is readable (to the device) or writable (to the host) for `len` bytes,
/// and `dev..dev+len` lies in one device allocation, until the queue has done the copy.
pub unsafe fn enqueue(way: Way, dev: DevPtr, len: usize, stream: Handle) -> Result<(), CuError> {
    if len == 0 {
        return Ok(());
    }
    let buf = buffer_of(stream)?;
    if let Way::FromDevice { dst } = way {
        // Before the last piece's host function can run.
        bounce::expect_delivery(dst, len);
    }
    let last = (len - 1) / PIECE * PIECE;
    for (off, n) in pieces(len, PIECE) {
        let at = dev + off as DevPtr;
        match way {
            Way::ToDevice { src } => {
                enqueue_host_copy(stream, HostCopy { from: src + off, to: buf, len: n, delivers: None })?;
                // SAFETY: the buffer is page-locked, holds the piece when the stream gets
                // here, and is not written again before the stream has done this copy.
                unsafe { cuda::memcpy_htod_async(at, buf as *const c_void, n, stream) }?;
            }
            Way::FromDevice { dst } => {
                // SAFETY: as above; the host function behind reads the buffer only after.
                unsafe { cuda::memcpy_dtoh_async(buf as *mut c_void, at, n, stream) }?;
                let delivers = (off == last).then_some((dst, len));
                enqueue_host_copy(stream, HostCopy { from: buf, to: dst + off, len: n, delivers })?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_cut_into_whole_pieces_and_a_tail() {
        assert_eq!(pieces(0, 4).collect::<Vec<_>>(), vec![]);
        assert_eq!(pieces(3, 4).collect::<Vec<_>>(), vec![(0, 3)]);
        assert_eq!(pieces(8, 4).collect::<Vec<_>>(), vec![(0, 4), (4, 4)]);
        assert_eq!(pieces(9, 4).collect::<Vec<_>>(), vec![(0, 4), (4, 4), (8, 1)]);
    }

    #[test]
    fn a_download_is_delivered_by_its_last_piece_only() {
        let src = (0u8..10).collect::<Vec<_>>();
        let mut dst = [0u8; 10];
        let d = dst.as_mut_ptr() as usize;
        bounce::expect_delivery(d, 10);
        let first = HostCopy { from: src.as_ptr() as usize, to: d, len: 6, delivers: None };
        // SAFETY: a boxed HostCopy between two valid ranges, passed once.
        unsafe { host_copy(Box::into_raw(Box::new(first)).cast()) };
        assert!(bounce::awaits_delivery(d, 10));
        let last = HostCopy { from: src.as_ptr() as usize + 6, to: d + 6, len: 4, delivers: Some((d, 10)) };
        // SAFETY: as above.
        unsafe { host_copy(Box::into_raw(Box::new(last)).cast()) };
        assert!(!bounce::awaits_delivery(d, 10));
        assert_eq!(dst.to_vec(), src);
    }
}
