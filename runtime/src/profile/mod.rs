//! `ACC_TIME=1` (or NVHPC's name for it, `NV_ACC_TIME=1`): a summary printed to stderr at
//! program exit of what each compute region and data directive did, by source position:
//! visits, kernel launches with their grid, block and time, and the bytes and time of the
//! copies to and from the device (table.rs holds the numbers and the text; README shows it).
//!
//! Expects: the hooks below, called by launch.rs around each launch, by data.rs around each
//! copy, by lib.rs for each clause item of a directive, and by queue.rs when the host has
//! waited for a queue. Each hook first checks [`enabled`] (one `OnceLock` read), so with
//! neither variable set the launch and copy paths do nothing more.
//!
//! Measures: on the GPU, a kernel's time with CUDA events recorded around its launch on the
//! launch's stream (the legacy default stream for a synchronous launch), so that an async
//! launch still returns at once; likewise a copy on an async queue. The events are read,
//! without blocking, when the host has waited for a queue and every [`POLL_EVERY`] timed
//! operations, and at exit, waiting for the rest. A synchronous copy (which returns when it
//! is done), and everything on the emulator, is timed by the host's clock around the call.
//! On the host path (`ACC_DEVICE_TYPE=host`) compute regions run as the program's own host
//! code and nothing is copied: the summary only counts the data directives reached.
//!
//! Does not: report to the OpenACC profiling interface (chapter 5), or break times down by
//! host thread (all threads add to one table).

mod table;

use std::ffi::c_int;
use std::sync::{Mutex, MutexGuard, Once, OnceLock};
use std::time::Instant;

pub use table::{Dir, Op, Profile};

use crate::cuda::{self, Handle};
use crate::data::Site;
use crate::launch::Size;
use crate::queue::{self, Queue};
use crate::{device, diag, notify};

/// Whether `ACC_TIME` or `NV_ACC_TIME` asks for the summary (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| parse(std::env::var("ACC_TIME").ok().as_deref()) || parse(std::env::var("NV_ACC_TIME").ok().as_deref()))
}

/// Whether a variable's value turns the summary on: a non-zero integer, as NVHPC reads it.
pub fn parse(value: Option<&str>) -> bool {
    value.and_then(|v| v.trim().parse::<u64>().ok()).is_some_and(|v| v != 0)
}

/// Timed operations between two non-blocking reads of the pending events.
pub const POLL_EVERY: usize = 64;

/// How an operation started being timed.
enum Clock {
    /// The host's clock (synchronous operations, the emulator).
    Wall(Instant),
    /// A timed event recorded on `stream` before the operation.
    Events { start: Handle, stream: Handle },
    /// No timing could be set up (an event could not be made): counted, not timed.
    Untimed,
}

/// An operation being timed (from [`start_host`], [`start_gpu`] or [`start_on`]).
pub struct Timer(Clock);

/// What a time belongs to.
enum Slot {
    Kernel { loc: String, kernel: String },
    Transfer { loc: String, dir: Dir },
}

/// An operation whose events have not been read yet.
struct Pending {
    slot: Slot,
    start: Handle,
    stop: Handle,
    /// The device whose context made the events ([`device::slot`]).
    device: usize,
}

struct State {
    profile: Profile,
    pending: Vec<Pending>,
    /// Timed events to record again, per device (an event belongs to its device's context).
    spare: [Vec<Handle>; device::MAX_DEVICES],
    /// Timed operations since the last read of `pending`.
    since_poll: usize,
}

// SAFETY: event handles are process-wide driver handles (cuda::Handle is Send); the state
// is only used under its mutex.
unsafe impl Send for State {}

static STATE: Mutex<State> = Mutex::new(State {
    profile: Profile::new(),
    pending: Vec::new(),
    spare: [const { Vec::new() }; device::MAX_DEVICES],
    since_poll: 0,
});

fn state() -> MutexGuard<'static, State> {
    static AT_EXIT: Once = Once::new();
    AT_EXIT.call_once(|| {
        // The device first: cuInit registers the CUDA driver's own exit handlers, which must
        // run after ours (exit handlers run last-registered first), or the events read at
        // exit fail with CUDA_ERROR_DEINITIALIZED. The first hook can come before any device
        // operation (a data directive's clause count), so it selects the device itself.
        crate::device::target();
        // SAFETY: registers a plain function with no preconditions.
        unsafe { atexit(at_exit) };
    });
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts timing a synchronous operation by the host's clock; `None` when disabled.
pub fn start_host() -> Option<Timer> {
    enabled().then(|| Timer(Clock::Wall(Instant::now())))
}

/// Starts timing a GPU operation about to be enqueued on `stream` (`None`: the legacy default
/// stream) with events; `None` when disabled.
pub fn start_gpu(stream: Option<Handle>) -> Option<Timer> {
    if !enabled() {
        return None;
    }
    let stream = stream.unwrap_or(Handle(std::ptr::null_mut()));
    let start = state().spare[device::slot()].pop().map_or_else(cuda::event_create_timed, Ok);
    Some(Timer(match start.and_then(|e| cuda::event_record(e, stream).map(|()| e)) {
        Ok(start) => Clock::Events { start, stream },
        Err(_) => Clock::Untimed,
    }))
}

/// Starts timing a copy on queue `q`: events on an async queue's stream on the GPU, else the
/// host's clock (the copy is done when the call returns); `None` when disabled.
pub fn start_on(q: Queue) -> Option<Timer> {
    if !enabled() {
        return None;
    }
    match queue::stream(q) {
        Some(s) => start_gpu(Some(s)),
        None => start_host(),
    }
}

/// A launch of `kernel` at `loc` (host function `function`) with `size` was enqueued (or,
/// by the host's clock, has run) since `t` started.
pub fn launched(t: Option<Timer>, loc: &str, function: &str, kernel: &str, size: Size) {
    let Some(t) = t else { return };
    let mut st = state();
    st.profile.launch(loc, function, kernel, size);
    st.finish(t, Slot::Kernel { loc: loc.to_string(), kernel: kernel.to_string() });
}

/// A copy of `bytes` for the item at `site` was enqueued (or has been done) since `t` started.
pub fn transferred(t: Option<Timer>, site: &Site, dir: Dir, bytes: usize) {
    let Some(t) = t else { return };
    let loc = match *site {
        Site::Clause { loc, .. } => loc,
        Site::Routine(r) => r,
    };
    let mut st = state();
    st.profile.transfer(loc, dir, bytes as u64);
    st.finish(t, Slot::Transfer { loc: loc.to_string(), dir });
}

/// Clause item `text` of the directive at `loc` did `op` (data directives, and the data
/// clauses of compute constructs).
pub fn directive(loc: &str, text: &str, op: Op) {
    if enabled() {
        state().profile.directive(loc, text, op);
    }
}

/// The host has waited for a queue: the events of its operations can be read.
pub fn queue_done() {
    if enabled() {
        state().poll(false);
    }
}

impl State {
    fn add_time(&mut self, slot: &Slot, ns: u64) {
        match slot {
            Slot::Kernel { loc, kernel } => self.profile.kernel_time(loc, kernel, ns),
            Slot::Transfer { loc, dir } => self.profile.transfer_time(loc, *dir, ns),
        }
    }

    fn finish(&mut self, t: Timer, slot: Slot) {
        match t.0 {
            Clock::Wall(at) => self.add_time(&slot, u64::try_from(at.elapsed().as_nanos()).unwrap_or(u64::MAX)),
            Clock::Untimed => {}
            Clock::Events { start, stream } => {
                let device = device::slot();
                let stop = self.spare[device].pop().map_or_else(cuda::event_create_timed, Ok);
                match stop.and_then(|e| cuda::event_record(e, stream).map(|()| e)) {
                    Ok(stop) => self.pending.push(Pending { slot, start, stop, device }),
                    Err(_) => self.spare[device].push(start),
                }
                self.since_poll += 1;
                if self.since_poll >= POLL_EVERY {
                    self.poll(false);
                }
            }
        }
    }

    /// Reads the events of the operations that are done (`wait`: waits for all of them).
    /// An event that fails (a kernel fault) leaves its operation untimed; the queue or the
    /// next CUDA call reports the fault.
    fn poll(&mut self, wait: bool) {
        self.since_poll = 0;
        for p in std::mem::take(&mut self.pending) {
            let done = if wait { cuda::event_synchronize(p.stop).map(|()| true) } else { cuda::event_query(p.stop) };
            match done {
                Ok(false) => self.pending.push(p),
                Ok(true) => {
                    if let Ok(ms) = cuda::event_elapsed_ms(p.start, p.stop) {
                        self.add_time(&p.slot, (f64::from(ms) * 1e6) as u64);
                    }
                    self.spare[p.device].extend([p.start, p.stop]);
                }
                Err(_) => {}
            }
        }
    }
}

/// The summary's second line when regions ran on the host.
pub const HOST_NOTE: &str = "ACC_TIME: compute regions ran on the host (no device selected): only data directives are counted";

extern "C" {
    fn atexit(f: extern "C" fn()) -> c_int;
}

/// At the end of the program: reads the remaining events and prints the summary (nothing
/// when the program is ending on an error, or when nothing was recorded).
extern "C" fn at_exit() {
    if diag::exiting_on_error() {
        return;
    }
    let Ok(mut st) = STATE.try_lock() else { return };
    if !st.pending.is_empty() && device::gpu().is_some() {
        st.poll(true);
    }
    if st.profile.is_empty() {
        return;
    }
    let mut lines = st.profile.render();
    if matches!(device::selected(), Some(None)) {
        lines.insert(1, HOST_NOTE.to_string());
    }
    for line in lines {
        notify::line(&line);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn parse() {
        assert!(!super::parse(None));
        assert!(!super::parse(Some("")));
        assert!(!super::parse(Some("0")));
        assert!(!super::parse(Some("yes")));
        assert!(super::parse(Some("1")));
        assert!(super::parse(Some(" 2 ")));
    }
}
