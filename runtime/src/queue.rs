//! Asynchronous queues (OpenACC 3.3 §2.16, the `acc_async_*`/`acc_wait*` routines of
//! §3.2.9-3.2.17): which queue an async argument names, and on the GPU one CUDA stream per
//! queue.
//!
//! Expects: async arguments as the program wrote them (`async(n)`, `wait(n)`, a routine's
//! `async_arg`). [`resolve`] decides what they name (pure, unit-tested): a number >= 0 is
//! that queue; `acc_async_sync` the synchronous queue (the host waits for the operation);
//! `acc_async_noval` (a bare `async`) and `acc_async_default` the default async queue, i.e.
//! what `acc_set_default_async` chose: initially the runtime's own queue, [`OWN_DEFAULT`],
//! which is no numbered queue; anything else (and a number beyond `int`) is an error at the
//! directive or routine.
//!
//! Produces, on the GPU: a stream per async queue, created at the queue's first operation
//! with `CU_STREAM_DEFAULT` (so every synchronous call, which uses the legacy default
//! stream, still comes after the queues' earlier work and before their later work); waits
//! between queues as events (`wait(1) async(2)`: queue 2's later work waits for an event
//! recorded on queue 1; the host does not block); host waits as `cuStreamSynchronize`,
//! tests as `cuStreamQuery`. Device memory freed by an exit is released only when no queue
//! can still use it ([`release`]): at once when every stream is idle, else after events
//! recorded on the busy streams have completed (checked at every queue operation, wait and
//! test, and before an allocation fails for lack of memory). Kernels launched on a queue are
//! remembered until the queue is seen empty, so that a failure the driver reports later
//! (at a wait, a test, any later call, or the end of the program, [`at_exit`]) names them.
//!
//! On the emulator and the host path every operation completes before it returns, so the
//! queues are always empty; the bookkeeping is the same (the same async arguments are valid,
//! waits and tests are answered in the same order), only no stream exists.
//!
//! Not here: what an operation does (data.rs, launch.rs); pinned staging buffers (a copy
//! from pageable memory makes the host wait for the stream, as CUDA does).

use std::collections::BTreeMap;
use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

use crate::cuda::{self, CuError, DevPtr, Handle};
use crate::{device, diag};

/// `acc_async_noval` (openacc.h): the default queue.
pub const NOVAL: i32 = -1;
/// `acc_async_sync`: synchronous.
pub const SYNC: i32 = -2;
/// `acc_async_default`: `acc_set_default_async` goes back to the initial default.
pub const DEFAULT: i32 = -3;
/// The key of the runtime's own default queue (what `acc_async_noval` names until
/// `acc_set_default_async` picks another): no numbered queue.
pub const OWN_DEFAULT: i32 = NOVAL;

/// Where an operation goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Queue {
    /// `acc_async_sync`: the host waits for the operation.
    Sync,
    /// An async queue: a number >= 0, or [`OWN_DEFAULT`].
    Async(i32),
}

/// Whether `q` is an async argument OpenACC allows.
pub fn valid(q: i64) -> bool {
    resolve(q, NOVAL).is_some()
}

/// The queue async argument `arg` names while the default async queue is `default` (what
/// `acc_get_default_async` returns: `acc_async_noval` for the runtime's own, a number, or
/// `acc_async_sync`); `None` for an invalid argument.
pub fn resolve(arg: i64, default: i32) -> Option<Queue> {
    match arg {
        n if n >= 0 => i32::try_from(n).ok().map(Queue::Async),
        n if n == i64::from(SYNC) => Some(Queue::Sync),
        n if n == i64::from(NOVAL) || n == i64::from(DEFAULT) => Some(match default {
            SYNC => Queue::Sync,
            d if d >= 0 => Queue::Async(d),
            _ => Queue::Async(OWN_DEFAULT),
        }),
        _ => None,
    }
}

/// What an async argument may be.
const VALID: &str = "a queue number >= 0, acc_async_noval, acc_async_sync or acc_async_default";

/// Why `arg` is not an async argument.
pub fn invalid(arg: i64) -> String {
    format!("{arg} is not a valid async argument ({VALID})")
}

/// "async queue 3", "the default async queue".
pub fn describe(q: Queue) -> String {
    match q {
        Queue::Sync => "the synchronous queue".into(),
        Queue::Async(OWN_DEFAULT) => "the default async queue".into(),
        Queue::Async(n) => format!("async queue {n}"),
    }
}

/// The queue a routine's async argument names; an invalid one is an error of `routine`.
pub fn of_routine(arg: i32, routine: &str) -> Queue {
    resolve(i64::from(arg), default_queue()).unwrap_or_else(|| diag::runtime_error(&format!("{routine}: {}", invalid(i64::from(arg)))))
}

/// The queue a directive's async argument names (`clause` is `async` or `wait`); an invalid
/// one is an error at the directive `loc`: `t.c:3:9: error: async(-7): ...`.
pub fn of_clause(arg: i64, clause: &str, loc: &str) -> Queue {
    resolve(arg, default_queue()).unwrap_or_else(|| diag::user_error(loc, &format!("{clause}({arg}): not a valid async argument ({VALID})")))
}

/// Checks a routine's async argument (`acc_set_default_async`).
pub fn check(q: i32, routine: &str) {
    of_routine(q, routine);
}

static DEFAULT_QUEUE: AtomicI32 = AtomicI32::new(NOVAL);

/// `acc_get_default_async`.
pub fn default_queue() -> i32 {
    DEFAULT_QUEUE.load(Ordering::Relaxed)
}

/// `acc_set_default_async(q)`: `acc_async_default` restores the initial `acc_async_noval`.
pub fn set_default_queue(q: i32, routine: &str) {
    check(q, routine);
    DEFAULT_QUEUE.store(if q == DEFAULT { NOVAL } else { q }, Ordering::Relaxed);
}

/// Kernels remembered per queue for messages: the oldest this many by name.
const NAMED: usize = 3;

/// The kernels launched on a queue since it was last seen empty.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// The oldest [`NAMED`] of them, each as "'name' (file:line:col)".
    pub names: Vec<String>,
    pub count: usize,
}

impl Unfinished {
    /// Counts a kernel; `kernel` names it, called only while fewer than [`NAMED`] are
    /// named (a launch formats nothing once the list is full).
    fn push(&mut self, kernel: impl FnOnce() -> String) {
        if self.names.len() < NAMED {
            self.names.push(kernel());
        }
        self.count += 1;
    }

    fn extend(&mut self, other: &Unfinished) {
        for n in &other.names {
            self.push(|| n.clone());
        }
        self.count += other.count - other.names.len();
    }

    /// " for kernel 'k' (t.c:3:9)", " for one of 4 kernels not waited for yet: 'a' (..), ..., ...".
    pub fn describe(&self) -> String {
        match self.count {
            0 => String::new(),
            1 => format!(" for kernel {}", self.names[0]),
            n => {
                let more = if n > self.names.len() { format!(", and {} more", n - self.names.len()) } else { String::new() };
                format!(" for one of {n} kernels not waited for yet: {}{more}", self.names.join(", "))
            }
        }
    }
}

/// The message context of a failure seen on queue `q` by `by`:
/// " for kernel 'k' (t.c:3:9) on async queue 1 (seen by acc_wait)".
pub fn failure_context(q: Queue, unfinished: &Unfinished, by: &str) -> String {
    format!("{} on {} (seen by {by})", unfinished.describe(), describe(q))
}

/// One async queue that has had work.
#[derive(Debug, Default)]
struct Entry {
    /// Its stream (GPU only).
    stream: Option<Handle>,
    unfinished: Unfinished,
}

/// Device memory that waits for streams before it is freed.
struct Deferred {
    ptr: DevPtr,
    events: Vec<Handle>,
}

#[derive(Default)]
struct State {
    queues: BTreeMap<i32, Entry>,
    deferred: Vec<Deferred>,
}

/// The queues of each device (a queue number names one stream per device).
static STATE: device::PerDevice<Mutex<State>> = device::PerDevice::new(|| Mutex::new(State::default()));

/// The calling thread's device's queues.
fn state() -> MutexGuard<'static, State> {
    STATE.get().lock().unwrap_or_else(|e| e.into_inner())
}

/// Reports a failure of `err` seen on queue `key` and exits.
fn queue_failure(err: CuError, key: i32, unfinished: &Unfinished, by: &str) -> ! {
    diag::runtime_error(&format!(
        "{} failed{}: {}",
        err.call,
        failure_context(Queue::Async(key), unfinished, by),
        err.describe()
    ))
}

impl State {
    /// Queue `key`'s entry, made (with a stream on the GPU) at its first operation.
    fn entry(&mut self, key: i32) -> &mut Entry {
        self.queues.entry(key).or_insert_with(|| {
            let stream = device::gpu().map(|_| {
                register_at_exit();
                cuda::stream_create().unwrap_or_else(|e| e.fail(&format!(" for {}", describe(Queue::Async(key)))))
            });
            Entry { stream, unfinished: Unfinished::default() }
        })
    }

    /// The stream of queue `key` if it has one already.
    fn stream_of(&self, key: i32) -> Option<Handle> {
        self.queues.get(&key).and_then(|e| e.stream)
    }

    /// Blocks until queue `key`'s work so far is done (`by` waits).
    fn synchronize(&mut self, key: i32, by: &str) {
        crate::emu_queue::drain(key);
        let Some(e) = self.queues.get_mut(&key) else { return };
        if let Some(s) = e.stream {
            if let Err(err) = cuda::stream_synchronize(s) {
                queue_failure(err, key, &e.unfinished, by)
            }
        }
        e.unfinished = Unfinished::default();
    }

    /// Whether queue `key` is empty.
    fn query(&mut self, key: i32, by: &str) -> bool {
        // The emulator's held operations run now: a test finds its queue done there.
        crate::emu_queue::drain(key);
        let Some(e) = self.queues.get_mut(&key) else { return true };
        let Some(s) = e.stream else { return true };
        match cuda::stream_query(s) {
            Ok(true) => {
                e.unfinished = Unfinished::default();
                true
            }
            Ok(false) => false,
            Err(err) => queue_failure(err, key, &e.unfinished, by),
        }
    }

    /// Frees the deferred blocks whose streams have passed their events (`wait`: blocks
    /// until they all have).
    fn reap(&mut self, wait: bool) {
        let done = |ev: &Handle| {
            let r = if wait { cuda::event_synchronize(*ev).map(|()| true) } else { cuda::event_query(*ev) };
            r.unwrap_or_else(|e| e.fail(" while freeing device memory an exit released"))
        };
        self.deferred.retain(|d| {
            if !d.events.iter().all(done) {
                return true;
            }
            for ev in &d.events {
                cuda::event_destroy(*ev).unwrap_or_else(|e| e.fail(""));
            }
            crate::mem::recycle(d.ptr, " while freeing device memory an exit released");
            false
        });
    }
}

/// The stream of queue `q` on the GPU (made at its first use); `None` for the synchronous
/// queue, and on the emulator and the host, where operations complete at once. Either way
/// the queue's bookkeeping records the use.
pub fn stream(q: Queue) -> Option<Handle> {
    let Queue::Async(key) = q else { return None };
    let mut st = state();
    st.reap(false);
    st.entry(key).stream
}

/// Records kernel `kernel` ("'name' (file:line:col)") as launched on `q` (GPU: until the
/// queue is seen empty, for messages).
pub fn launched(q: Queue, kernel: impl FnOnce() -> String) {
    let Queue::Async(key) = q else { return };
    let mut st = state();
    let e = st.entry(key);
    if e.stream.is_some() {
        e.unfinished.push(kernel);
    }
}

/// The host waits until queue `q`'s work so far is done (`by`: who waits, for messages).
pub fn host_wait(q: Queue, by: &str) {
    let Queue::Async(key) = q else { return };
    let mut st = state();
    st.synchronize(key, by);
    st.reap(false);
    drop(st);
    crate::profile::queue_done();
}

/// Queue `on` waits for queue `q`'s work so far (OpenACC `wait(q) async(on)`,
/// `acc_wait_async`): on the GPU through an event, without blocking the host; `on`
/// synchronous: the host waits.
pub fn queue_wait(q: Queue, on: Queue, by: &str) {
    let (Queue::Async(key), Queue::Async(on_key)) = (q, on) else {
        // `on` synchronous: the host waits for `q`. `q` synchronous: nothing is ever pending
        // on it (host_wait does nothing).
        return host_wait(q, by);
    };
    // The emulator runs `q`'s held operations now, before anything `on` gets later.
    crate::emu_queue::drain(key);
    let mut st = state();
    // A queue without a stream never had work on the GPU (or runs nothing asynchronously).
    if key != on_key {
        if let Some(src) = st.stream_of(key) {
            let dst = st.entry(on_key).stream.expect("queues have streams on the GPU");
            let ev = cuda::event_create().unwrap_or_else(|e| e.fail(""));
            cuda::event_record(ev, src)
                .and_then(|()| cuda::stream_wait_event(dst, ev))
                .and_then(|()| cuda::event_destroy(ev))
                .unwrap_or_else(|e| e.fail(&format!(" for {} waiting for {} (at {by})", describe(on), describe(q))));
            // A failure `on` reports may come from `q`'s kernels.
            let from = st.queues[&key].unfinished.clone();
            st.entry(on_key).unfinished.extend(&from);
        }
    }
    st.reap(false);
}

/// Queue `on` of the calling thread's device waits for queue `q` of device `dev`
/// (`wait(devnum: dev: q) async(on)`): an event recorded on `q`'s stream in `dev`'s context,
/// which `on`'s stream waits for (a stream may wait for another device's event); `on`
/// synchronous: the host waits for `q` on `dev`.
pub fn queue_wait_device(dev: i32, q: Queue, on: Queue, by: &str) {
    if dev as usize == device::slot() {
        return queue_wait(q, on, by);
    }
    let Queue::Async(key) = q else { return };
    let Queue::Async(on_key) = on else {
        return device::with_device(dev, || {
            device::target();
            host_wait(q, by)
        });
    };
    // The emulator's held operations of queue `key` (of any device) run now.
    crate::emu_queue::drain(key);
    let recorded = device::with_device(dev, || {
        device::target();
        let st = state();
        let src = st.stream_of(key)?;
        let ev = cuda::event_create().unwrap_or_else(|e| e.fail(""));
        cuda::event_record(ev, src).unwrap_or_else(|e| e.fail(&format!(" for {} on device {dev} (at {by})", describe(q))));
        Some((ev, st.queues[&key].unfinished.clone()))
    });
    // A queue without a stream never had work on the GPU (or runs nothing asynchronously).
    let Some((ev, from)) = recorded else { return };
    device::target();
    let mut st = state();
    let dst = st.entry(on_key).stream.expect("queues have streams on the GPU");
    cuda::stream_wait_event(dst, ev).unwrap_or_else(|e| e.fail(&format!(" for {} waiting for {} of device {dev} (at {by})", describe(on), describe(q))));
    st.entry(on_key).unfinished.extend(&from);
    st.reap(false);
    drop(st);
    // The event belongs to `dev`'s context; the wait already enqueued keeps what it needs.
    device::with_device(dev, || {
        device::target();
        cuda::event_destroy(ev).unwrap_or_else(|e| e.fail(""))
    });
}

/// Every queue's work so far is waited for by `on` (the host when synchronous).
pub fn wait_all(on: Queue, by: &str) {
    // The emulator's held work of every queue, in the schedule's queue order (emu_queue.rs).
    crate::emu_queue::drain_all();
    let keys: Vec<i32> = state().queues.keys().copied().collect();
    for key in keys {
        queue_wait(Queue::Async(key), on, by);
    }
}

/// `acc_async_test(q)`: whether queue `q` has finished its work (`cuStreamQuery`).
pub fn test(q: Queue, by: &str) -> bool {
    let Queue::Async(key) = q else { return true };
    let mut st = state();
    let done = st.query(key, by);
    st.reap(false);
    done
}

/// `acc_async_test_all`: whether every queue has finished.
pub fn test_all(by: &str) -> bool {
    // As in wait_all.
    crate::emu_queue::drain_all();
    let mut st = state();
    let keys: Vec<i32> = st.queues.keys().copied().collect();
    // Every queue is queried (each may report a failure).
    let mut done = true;
    for k in keys {
        done &= st.query(k, by);
    }
    st.reap(false);
    done
}

/// `acc_wait_any`: waits until one of `queues` has finished and returns its index (the
/// first in the list that has); -1 when all are `acc_async_sync`.
pub fn wait_any(queues: &[i32], routine: &str) -> i32 {
    let qs: Vec<Queue> = queues.iter().map(|&q| of_routine(q, routine)).collect();
    let candidates: Vec<usize> = (0..queues.len()).filter(|&i| queues[i] != SYNC).collect();
    if candidates.is_empty() {
        return -1;
    }
    loop {
        if let Some(&i) = candidates.iter().find(|&&i| test(qs[i], routine)) {
            return i as i32;
        }
        std::thread::sleep(std::time::Duration::from_micros(20));
    }
}

/// Frees GPU block `p` when no queue can still use it: at once when every stream is idle
/// (`what` names the item for messages), else once the streams busy now have passed an
/// event recorded on each.
pub fn release(p: DevPtr, what: &str) {
    let mut st = state();
    let keys: Vec<i32> = st.queues.keys().copied().collect();
    let mut events = Vec::new();
    for key in keys {
        if st.query(key, &format!("the exit{what}")) {
            continue;
        }
        let s = st.stream_of(key).expect("a busy queue has a stream");
        let ev = cuda::event_create().unwrap_or_else(|e| e.fail(what));
        cuda::event_record(ev, s).unwrap_or_else(|e| e.fail(what));
        events.push(ev);
    }
    if events.is_empty() {
        drop(st);
        crate::mem::recycle(p, what);
    } else {
        st.deferred.push(Deferred { ptr: p, events });
    }
}

/// Waits for and frees every deferred block (before an allocation is retried for lack of
/// memory); whether there was any.
pub fn drain_deferred() -> bool {
    let mut st = state();
    let any = !st.deferred.is_empty();
    st.reap(true);
    any
}

/// " (kernels launched asynchronously and not waited for yet: ...)" for a failure message
/// whose call may have seen one of them fail; empty when there are none (or the queue table
/// is busy, e.g. the failure happened while it was held).
pub fn unfinished_note() -> String {
    let Ok(st) = STATE.get().try_lock() else { return String::new() };
    let parts: Vec<String> = st
        .queues
        .iter()
        .filter(|(_, e)| e.unfinished.count > 0)
        .map(|(&k, e)| format!("{}{}", describe(Queue::Async(k)), e.unfinished.describe()))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" (possibly an earlier asynchronous kernel's failure: {})", parts.join("; "))
    }
}

extern "C" {
    fn atexit(f: extern "C" fn()) -> c_int;
    fn fflush(stream: *mut std::ffi::c_void) -> c_int;
    fn _exit(status: c_int) -> !;
}

fn register_at_exit() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a plain function with no preconditions; it runs before the
        // CUDA driver's own exit handlers, which cuInit registered earlier.
        unsafe { atexit(at_exit) };
    });
}

/// At the end of the program: waits for every queue, so that a kernel nobody waited for
/// cannot fail unseen. A failure prints its message and ends the program with status 1
/// (through `_exit`: `exit` must not be called again from an exit handler).
extern "C" fn at_exit() {
    if diag::exiting_on_error() {
        return;
    }
    device::for_each_opened(|t| {
        if matches!(t, device::Target::Gpu(_)) {
            synchronize_at_exit();
        }
    });
}

/// [`at_exit`] for the calling thread's device.
fn synchronize_at_exit() {
    let Ok(st) = STATE.get().try_lock() else { return };
    for (&key, e) in &st.queues {
        let Some(s) = e.stream else { continue };
        if let Err(err) = cuda::stream_synchronize(s) {
            eprintln!(
                "accc runtime: error: {} failed{}: {}",
                err.call,
                failure_context(Queue::Async(key), &e.unfinished, "the end of the program"),
                err.describe()
            );
            // SAFETY: flushes every C stream (the program's buffered stdout), then ends the
            // process without running the exit handlers again.
            unsafe {
                fflush(std::ptr::null_mut());
                _exit(1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn async_arguments() {
        for q in [0, 1, 7, i64::from(i32::MAX), -1, -2, -3] {
            assert!(valid(q), "{q}");
        }
        for q in [-4, -100, i64::from(i32::MIN), i64::from(i32::MAX) + 1, 1 << 40, i64::MIN] {
            assert!(!valid(q), "{q}");
        }
    }

    #[test]
    fn what_arguments_name() {
        // Numbers are themselves, acc_async_sync is synchronous.
        assert_eq!(resolve(3, NOVAL), Some(Queue::Async(3)));
        assert_eq!(resolve(0, 5), Some(Queue::Async(0)));
        assert_eq!(resolve(-2, 5), Some(Queue::Sync));
        // acc_async_noval (a bare `async`) and acc_async_default: the default async queue,
        // initially the runtime's own (not queue 0).
        assert_eq!(resolve(-1, NOVAL), Some(Queue::Async(OWN_DEFAULT)));
        assert_eq!(resolve(-3, NOVAL), Some(Queue::Async(OWN_DEFAULT)));
        assert_ne!(resolve(-1, NOVAL), resolve(0, NOVAL));
        // ... or what acc_set_default_async chose.
        assert_eq!(resolve(-1, 4), Some(Queue::Async(4)));
        assert_eq!(resolve(-1, SYNC), Some(Queue::Sync));
        assert_eq!(resolve(-7, NOVAL), None);
    }

    #[test]
    fn messages() {
        assert_eq!(describe(Queue::Async(3)), "async queue 3");
        assert_eq!(describe(Queue::Async(OWN_DEFAULT)), "the default async queue");
        assert!(invalid(-7).starts_with("-7 is not a valid async argument"));
        let mut u = Unfinished::default();
        assert_eq!(failure_context(Queue::Async(1), &u, "acc_wait"), " on async queue 1 (seen by acc_wait)");
        u.push(|| "'k1' (t.c:3:9)".into());
        assert_eq!(u.describe(), " for kernel 'k1' (t.c:3:9)");
        for k in ["'k2' (t.c:4:9)", "'k3' (t.c:5:9)", "'k4' (t.c:6:9)", "'k5' (t.c:7:9)"] {
            u.push(|| k.into());
        }
        let mut formatted = 0;
        u.push(|| {
            formatted += 1;
            "'k6'".into()
        });
        assert_eq!(formatted, 0, "a sixth kernel is counted, not named");
        assert_eq!(
            u.describe(),
             " for one of 6 kernels not waited for yet: 'k1' (t.c:3:9), 'k2' (t.c:4:9), 'k3' (t.c:5:9), and 3 more"
        );
        let mut w = Unfinished::default();
        w.push(|| "'w' (t.c:1:1)".into());
        w.extend(&u);
        assert_eq!(w.count, 7);
        assert_eq!(w.names.len(), NAMED);
    }

    #[test]
    fn default_queue_is_remembered() {
        assert_eq!(default_queue(), NOVAL);
        set_default_queue(5, "t");
        assert_eq!(default_queue(), 5);
        set_default_queue(DEFAULT, "t");
        assert_eq!(default_queue(), NOVAL);
    }
}
