//! Copies of more than `bounce::MAX` bytes between pageable host memory and the device on an
//! async queue, made by a copy thread, so that the call returns at once and the host never
//! waits for the queue.
//!
//! CUDA copies pageable memory on a stream synchronously with the host: to the device the
//! call first waits for the stream's earlier work, to the host it returns only once the copy
//! is done, and both move at pageable speed (7.5 GB/s on the H100's host). So an
//! `update device(a[0:n]) async(1)` behind a long kernel held the host for the kernel.
//!
//! Here the call enqueues on the queue's stream an event (reached when the queue's earlier
//! work is done) and a wait for the stream's ticket word (page-locked host memory the GPU
//! reads) to reach the copy's ticket (`cuStreamWaitValue32`), and hands the copy to the
//! queue's copy thread. The thread waits for the event, copies through staging.rs's lanes
//! (all of them for 8 MiB or more, one below that) and stores the ticket: the queue's
//! later work, and a wait for or a test of the queue, come after the copy. A download's
//! host range is recorded as undelivered (bounce.rs) until then.
//!
//! Each queue's stream has a thread of its own (up to [`MAX_THREADS`], then streams share
//! them), so a copy waiting for one queue's kernel holds up no other queue's copies.
//! Tickets are taken and copies handed over under one lock, so each thread makes its
//! copies in call order. That keeps the threads from deadlock: a copy's event depends only
//! on work enqueued before it, copies included, and by induction on call order every such
//! copy finishes (the earliest unfinished copy waits for nothing unfinished). For the same
//! reason no thread uses the legacy default stream (which waits for every queue's stream,
//! and a queue's stream may be waiting for a thread) or allocates page-locked memory (which
//! may wait for the device's streams: the lanes and words are made by the program's thread
//! before its stream waits), and a failed copy ends the process with its message (a ticket
//! never stored would hang the queue).
//!
//! The host bytes are read (to the device) or written (to the host) when the queue reaches
//! the copy, not at the call: the program leaves them alone until it waits for the queue,
//! as OpenACC asks of async data.
//!
//! Expects: the GPU target, the queue's stream, its context current, a driver with stream
//! memory operations and `ACCC_ASYNC_COPY_THREADS=1` ([`available`]; otherwise mem.rs keeps
//! the driver's pageable copy, which makes the host wait for the queue).
//!
//! Status: opt-in and not yet run on a GPU in its current form (see [`available`]);
//! tests/gpu/async_copy_gpu.c turns it on and is the check to run before it becomes the
//! default.
//!
//! Not here: synchronous copies (staging.rs, mem.rs), copies of at most 4 KiB (bounce.rs).

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;

use crate::cuda::{self, CuError, DevPtr, Handle};
use crate::{bounce, device, diag, staging};

/// Which way a copy goes, with its host address.
#[derive(Clone, Copy, Debug)]
pub enum Way {
    ToDevice { src: usize },
    FromDevice { dst: usize },
}

/// One copy handed to the thread.
struct Job {
    way: Way,
    dev: DevPtr,
    len: usize,
    /// Reached when the queue's work before the copy is done.
    ready: Handle,
    /// Stored into `word` once the copy is done.
    ticket: u32,
    word: &'static AtomicU32,
    device: usize,
    context: Handle,
    /// The failure context, e.g. " for 'copyin(a[0:n])' (x.c:12:9)".
    what: String,
}

/// A queue stream's ticket word: where its copy thread stores tickets, the address the
/// GPU reads, and the last ticket handed out. One per stream: two threads storing into one
/// word would let a queue pass a copy another thread has not finished. Made by the
/// program's thread, not the copy thread: an allocation of page-locked memory may wait for
/// the device's streams, one of which may be waiting for the copy thread.
struct Word {
    host: &'static AtomicU32,
    dev: DevPtr,
    last: u32,
}

impl Word {
    /// A new word, in the calling thread's current context (the stream's).
    fn new() -> Result<Word, CuError> {
        let host = cuda::mem_alloc_host(64)?;
        // SAFETY: 64 page-locked bytes, page-aligned, never freed: a valid AtomicU32 for
        // the process's lifetime, shared with the GPU (which only reads it).
        let host: &'static AtomicU32 = unsafe { &*(host as *const AtomicU32) };
        host.store(0, Ordering::Release);
        // SAFETY: `host` came from mem_alloc_host just above and is never freed.
        let dev = unsafe { cuda::host_device_pointer(host as *const AtomicU32 as *mut c_void) }?;
        Ok(Word { host, dev, last: 0 })
    }
}

/// Copy threads beyond which queues' streams share them.
pub const MAX_THREADS: usize = 32;

/// Each queue stream's word and copy thread, and the threads' job queues (with the process
/// they were started in: a forked child starts its own), under one lock.
struct State {
    pid: u32,
    /// (stream, its word, index of its thread).
    streams: Vec<(usize, Word, usize)>,
    threads: Vec<Sender<Job>>,
}

static STATE: Mutex<State> = Mutex::new(State { pid: 0, streams: Vec::new(), threads: Vec::new() });

/// Cleared when the device refuses stream waits (CUDA_ERROR_NOT_SUPPORTED).
static SUPPORTED: AtomicBool = AtomicBool::new(true);

/// Whether async copies go through the copy threads: only with `ACCC_ASYNC_COPY_THREADS=1`
/// until this path has been run on a GPU (written 2026-12-07 without one; the first try
/// deadlocked when a copy thread allocated its page-locked lanes while its queue's stream
/// waited for it, fixed by making them on the program's thread at a stream's first copy, not yet run).
pub fn available() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let enabled = *ENABLED.get_or_init(|| std::env::var("ACCC_ASYNC_COPY_THREADS").is_ok_and(|v| v.trim() == "1"));
    enabled && SUPPORTED.load(Ordering::Relaxed) && cuda::has_stream_waits()
}

impl State {
    /// `stream`'s entry (a stream of GPU `device`): its word and its thread's index, made on
    /// first use (a thread of its own while there are fewer than [`MAX_THREADS`]).
    fn stream(&mut self, stream: Handle, device: usize) -> Result<&mut (usize, Word, usize), CuError> {
        let pid = std::process::id();
        if self.pid != pid {
            self.pid = pid;
            self.streams.clear();
            self.threads.clear();
        }
        let key = stream.0 as usize;
        let at = match self.streams.iter().position(|e| e.0 == key) {
            Some(k) => k,
            None => {
                // The device's copy lanes, made here once per stream rather than at every
                // copy: a copy thread mid-copy holds them, and the program must not wait.
                staging::prepare_queue_lanes(device)?;
                let word = Word::new()?;
                let thread = match shared_thread(self.threads.len(), self.streams.len()) {
                    Some(t) => t,
                    None => self.start_thread(),
                };
                self.streams.push((key, word, thread));
                self.streams.len() - 1
            }
        };
        Ok(&mut self.streams[at])
    }

    /// Starts a copy thread and returns its index.
    fn start_thread(&mut self) -> usize {
        let (tx, rx) = mpsc::channel();
        if let Err(e) = std::thread::Builder::new().name("accrt-queue-copy".into()).spawn(move || serve(rx)) {
            diag::runtime_error(&format!("cannot start a runtime thread for async copies: {e}"));
        }
        self.threads.push(tx);
        self.threads.len() - 1
    }
}

/// The thread a new stream shares, given how many threads run and how many streams have
/// one; `None`: start a thread of its own (fewer than [`MAX_THREADS`] run).
fn shared_thread(threads: usize, streams: usize) -> Option<usize> {
    (threads >= MAX_THREADS).then_some(streams % MAX_THREADS)
}

/// Enqueues a copy of `len` bytes between `way`'s host address and device `dev` on
/// `stream`, a queue's stream of the calling thread's GPU, by the stream's copy thread;
/// `Ok(false)` when the device refuses stream waits (nothing was enqueued; the caller
/// copies another way).
///
/// # Safety
/// The host range is readable (to the device) or writable (to the host) for `len` bytes,
/// and `dev..dev+len` lies in one device allocation, until the queue has done the copy.
pub unsafe fn enqueue(way: Way, dev: DevPtr, len: usize, stream: Handle, what: &str) -> Result<bool, CuError> {
    let Some(gpu) = device::gpu() else { unreachable!("queue copies are made for the GPU target only (mem.rs)") };
    let mut st = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let (_, word, thread) = st.stream(stream, gpu.num as usize)?;
    let ticket = word.last.wrapping_add(1);
    let ready = cuda::event_create()?;
    cuda::event_record(ready, stream)?;
    match cuda::stream_wait_value_geq(stream, word.dev, ticket) {
        Err(e) if e.is_not_supported() => {
            SUPPORTED.store(false, Ordering::Relaxed);
            cuda::event_destroy(ready)?;
            return Ok(false);
        }
        r => r?,
    }
    word.last = ticket;
    let (word, thread) = (word.host, *thread);
    if let Way::FromDevice { dst } = way {
        bounce::expect_delivery(dst, len);
    }
    let job = Job { way, dev, len, ready, ticket, word, device: gpu.num as usize, context: gpu.context, what: what.to_string() };
    // A thread ends only with the process, so its receiver outlives every send.
    st.threads[thread].send(job).unwrap_or_else(|_| diag::runtime_error("a runtime thread for async copies has stopped"));
    Ok(true)
}

/// A copy thread: its jobs in call order.
fn serve(jobs: Receiver<Job>) {
    for job in jobs {
        // SAFETY: `enqueue`'s caller keeps both ranges valid until the queue has done the
        // copy, which is not before the ticket is stored below.
        if let Err(e) = unsafe { run(&job) } {
            e.fail(&job.what)
        }
        if let Way::FromDevice { dst } = job.way {
            bounce::delivered(dst, job.len);
        }
        // After every byte of the copy (the lanes have joined, streaming stores fenced):
        // the queue's later work may start.
        job.word.store(job.ticket, Ordering::Release);
    }
}

/// One copy, once the queue's earlier work is done, through staging.rs's lanes for the
/// copy threads (one lane below 8 MiB): never a driver copy of pageable memory, which may
/// set up page-locked buffers of the driver's own. Allocates nothing (see [`Word`]).
///
/// # Safety
/// As for [`enqueue`].
unsafe fn run(job: &Job) -> Result<(), CuError> {
    cuda::ctx_set_current(job.context)?;
    cuda::event_synchronize(job.ready)?;
    cuda::event_destroy(job.ready)?;
    let by = staging::Caller::QueueCopy { num: job.device, context: job.context };
    // SAFETY: as the caller of `enqueue` promises.
    unsafe {
        match job.way {
            Way::ToDevice { src } => staging::copy_to_device(by, job.dev, src as *const c_void, job.len),
            Way::FromDevice { dst } => staging::copy_from_device(by, dst as *mut c_void, job.dev, job.len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_get_threads_of_their_own_then_share_them_round_robin() {
        assert_eq!(shared_thread(0, 0), None);
        assert_eq!(shared_thread(MAX_THREADS - 1, MAX_THREADS - 1), None);
        let shared: Vec<_> = (MAX_THREADS..MAX_THREADS * 2 + 1).map(|n| shared_thread(MAX_THREADS, n)).collect();
        assert_eq!(shared[0], Some(0));
        assert_eq!(shared[MAX_THREADS - 1], Some(MAX_THREADS - 1));
        assert_eq!(shared[MAX_THREADS], Some(0));
    }
}
