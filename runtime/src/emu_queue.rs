//! Async queues on the emulator: operations enqueued on an async queue (copies to and from
//! the device, device-to-device copies, zeroing, kernels) are held, in call order, until
//! something needs the queue done, so that a program that reads what an async copy-out
//! writes, or writes what an async kernel still reads, before waiting for the queue goes
//! wrong on the emulator too, as it may on the GPU, instead of passing by luck.
//!
//! Held operations run: for their queue, at a wait for it (`wait`, `acc_wait*`, a `wait`
//! clause or `wait(q) async(r)`) and at a test of it (`acc_async_test*`, which then says
//! done); for every queue, before any synchronous operation on device memory (a copy, a
//! zeroing, a kernel launch, a free or a block's return to the pool), as the GPU's legacy
//! default stream waits for every queue's stream. Running held work early is always
//! allowed (a queue may finish whenever it likes): a drain is never wrong, it only lets
//! fewer missing waits show. A drain of one queue runs it in call order; a drain of every
//! queue runs them one after another, each whole, in the schedule's order
//! (`ACCC_EMU_SCHEDULE`: forward in the order of their first operations, reverse the
//! opposite, random a fresh order each time, [`by_queue`]), so two queues racing for memory
//! without a wait get different answers under different schedules (their operations are
//! never interleaved, though).
//!
//! A kernel is held with a copy of its argument values (launch.rs, emu/args.rs: the stub's
//! slots are gone when it runs); its scratch and private area were allocated at the
//! launch and are released through [`when_idle`].
//!
//! A block that an exit releases while operations are held goes back to the pool only once
//! nothing is held ([`when_idle`]).
//!
//! An upload reads its host bytes at the call (kept here until it runs), as the GPU path's
//! copies of at most 4 KiB and CUDA's pageable copies do, after every held download that
//! writes them has run ([`before_reading`]); a download writes the host when it runs.
//!
//! Work still held when the program ends does not run (the GPU path waits for every queue
//! at exit): `exit` destroys the thread's thread-locals before it runs the exit handlers
//! (the memory pool's release frees blocks, which drains), and a kernel needs the
//! emulator's. A drain on a thread whose thread-locals are gone ([`Gone`]) does nothing.
//! A program that never waits loses nothing it could have seen.
//!
//! Expects: the emulator target (mem.rs and launch.rs call [`hold`] only there). Not here:
//! kernels that set a `declare link` slot (they run at their launch, as the GPU waits for
//! them), the GPU's queues (queue.rs), the host path (every operation runs at once).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::emu::schedule::Schedule;
use std::sync::{Mutex, MutexGuard};

/// One held operation: raw memory writes between host and emulator memory, or a kernel
/// with its own copy of its arguments; no locks of this module.
pub type Op = Box<dyn FnOnce() + Send>;

/// One held operation with its queue's number and the host bytes it writes (a download).
struct Held {
    key: i32,
    writes: Option<(usize, usize)>,
    op: Op,
}

/// What is held, and what waits for nothing to be.
struct Queues {
    /// Every queue's held operations, in call order.
    held: Vec<Held>,
    /// Whether a drain is running operations it has taken out of `held`.
    running: bool,
    /// Operations that wait until nothing is held or running: the release of blocks that
    /// held operations may still use (an exit's free, mem.rs).
    when_idle: Vec<Op>,
}

static QUEUES: Mutex<Queues> = Mutex::new(Queues { held: Vec::new(), running: false, when_idle: Vec::new() });

/// Taken by a drain for as long as it runs its operations: two threads' drains never run
/// one queue's operations out of order, and a thread that must see a drain's writes
/// ([`before_reading`], another drain) waits for it.
static RUNNING: Mutex<()> = Mutex::new(());

/// Whether anything is held or running (the common case, nothing, costs no lock).
static ANY: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Set while this thread runs held operations: a kernel's own calls into the runtime
    /// (its scratch, its notifications) must not drain again (the operations after it are
    /// the drain's to run, in order).
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    /// Set when this thread's thread-locals are being destroyed (no destructor of its own:
    /// readable to the end).
    static GONE: Cell<bool> = const { Cell::new(false) };
    /// Sets `GONE` when destroyed; touched by every hold and every emulator launch
    /// ([`watch_thread`]), so that its destructor is registered on each thread whose
    /// emulator thread-locals exist.
    static SENTINEL: Gone = const { Gone };
}

/// Registers the calling thread's sentinel (once per thread; cheap after): emu.rs calls it
/// before its thread-locals are first used, so a thread whose thread-locals are destroyed
/// never runs a held kernel.
pub fn watch_thread() {
    SENTINEL.with(|_| ());
}

/// A thread-local whose destructor marks the thread's thread-locals as gone.
struct Gone;

impl Drop for Gone {
    fn drop(&mut self) {
        GONE.set(true);
    }
}

/// Whether this thread may not run held work: its thread-locals are being destroyed (the
/// program is exiting), or it is running held work already.
fn may_not_drain() -> bool {
    GONE.get() || DRAINING.get()
}

fn queues() -> MutexGuard<'static, Queues> {
    QUEUES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `op` now if nothing is held, else once every queue has been drained (a block an
/// async exit releases goes back to the pool only when no held copy or kernel can reach it,
/// as the GPU frees it only after the busy streams' events).
pub fn when_idle(op: Op) {
    if ANY.load(Ordering::Acquire) {
        let mut q = queues();
        // Under the lock that a drain ending clears `held` and `running` under: an
        // operation pushed here is run by that drain or a later one.
        if !q.held.is_empty() || q.running {
            q.when_idle.push(op);
            return;
        }
    }
    op()
}

/// Holds `op` on queue `key` until the queue is drained; `writes`: the host bytes
/// `[start, start + len)` it writes, if any (a download).
pub fn hold(key: i32, writes: Option<(usize, usize)>, op: Op) {
    watch_thread();
    let mut q = queues();
    q.held.push(Held { key, writes, op });
    ANY.store(true, Ordering::Release);
}

/// Runs every held operation if one of them writes host bytes in `[start, start + len)`:
/// an upload reads its bytes at the call, after the downloads enqueued before it, as the
/// GPU's copies do (bounce.rs, CUDA's pageable copies).
pub fn before_reading(start: usize, len: usize) {
    if !ANY.load(Ordering::Acquire) || may_not_drain() {
        return;
    }
    // After a drain running on another thread, whose downloads may write these bytes.
    let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    let end = start.saturating_add(len);
    let overlaps = queues().held.iter().any(|h| h.writes.is_some_and(|(s, n)| s < end && start < s.saturating_add(n)));
    if overlaps {
        run_locked(None, running);
    }
}

/// Runs queue `key`'s held operations, in call order.
pub fn drain(key: i32) {
    run(Some(key))
}

/// Runs every queue's held operations, in call order.
pub fn drain_all() {
    run(None)
}

fn run(only: Option<i32>) {
    if !ANY.load(Ordering::Acquire) || may_not_drain() {
        return;
    }
    run_locked(only, RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
}

/// Runs the held operations of queue `only` (or all), holding `RUNNING`, then, if nothing
/// is held any more, what waited for that.
fn run_locked(only: Option<i32>, running: MutexGuard<'static, ()>) {
    let now = {
        let mut q = queues();
        let (now, keep) = split(std::mem::take(&mut q.held), |h| h.key, only);
        q.held = keep;
        q.running = true;
        now
    };
    let now = match only {
        Some(_) => now,
        None => by_queue(now, |h| h.key, crate::emu::schedule(), DRAINS.fetch_add(1, Ordering::Relaxed)),
    };
    // Outside the queues' lock: a kernel takes locks of its own (its profile entry) and may
    // hold or release (its scratch), and another thread may hold meanwhile.
    DRAINING.set(true);
    for h in now {
        (h.op)();
    }
    DRAINING.set(false);
    let idle = {
        let mut q = queues();
        q.running = false;
        let idle = q.held.is_empty();
        if idle {
            ANY.store(false, Ordering::Release);
        }
        idle.then(|| std::mem::take(&mut q.when_idle))
    };
    drop(running);
    // Outside both locks: a release may drain again (mem.rs's recycle), finding nothing.
    for op in idle.into_iter().flatten() {
        op();
    }
}

/// Drains of every queue so far (a random schedule draws each one's queue order afresh).
static DRAINS: AtomicU64 = AtomicU64::new(0);

/// `ops` (several queues' held operations, in call order) grouped by queue, each queue's in
/// call order, the queues in the order `schedule` gives for drain number `drain`: forward,
/// the order of their first operations; reverse, the opposite; random, a permutation drawn
/// from the seed and `drain`. Any such order is one the GPU could run: what is held on two
/// queues at once never depends across them (a wait for a queue drains it first), so a
/// program whose queues race for memory without a wait sees another answer under another
/// schedule.
fn by_queue<T>(ops: Vec<T>, key: impl Fn(&T) -> i32, schedule: Schedule, drain: u64) -> Vec<T> {
    let mut keys: Vec<i32> = Vec::new();
    for op in &ops {
        if !keys.contains(&key(op)) {
            keys.push(key(op));
        }
    }
    if keys.len() < 2 {
        return ops;
    }
    // Salted apart from the thread orders of gang `drain`'s rounds.
    let order = schedule.order(keys.len(), drain ^ 0x5155_4555_4553, 0);
    let mut groups: Vec<Vec<T>> = keys.iter().map(|_| Vec::new()).collect();
    for op in ops {
        let k = keys.iter().position(|&q| q == key(&op)).expect("every key was collected");
        groups[k].push(op);
    }
    order.into_iter().flat_map(|k| std::mem::take(&mut groups[k])).collect()
}

/// `held` split into the operations to run now (queue `only`'s, or all) and the rest, each
/// in call order; `key` gives an operation's queue.
fn split<T>(held: Vec<T>, key: impl Fn(&T) -> i32, only: Option<i32>) -> (Vec<T>, Vec<T>) {
    held.into_iter().partition(|h| only.is_none_or(|o| o == key(h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drain_takes_its_queue_in_call_order_and_leaves_the_others() {
        let held = vec![(1, 'a'), (2, 'b'), (1, 'c'), (3, 'd'), (2, 'e')];
        let (now, rest) = split(held.clone(), |h| h.0, Some(2));
        assert_eq!(now, vec![(2, 'b'), (2, 'e')]);
        assert_eq!(rest, vec![(1, 'a'), (1, 'c'), (3, 'd')]);
        let (now, rest) = split(held.clone(), |h| h.0, None);
        assert_eq!(now, held);
        assert!(rest.is_empty());
    }

    #[test]
    fn a_drain_of_every_queue_runs_them_whole_in_the_schedules_order() {
        let held = vec![(2, 'a'), (5, 'b'), (2, 'c'), (9, 'd'), (5, 'e')];
        let run = |s| by_queue(held.clone(), |h: &(i32, char)| h.0, s, 3).into_iter().map(|h| h.1).collect::<String>();
        assert_eq!(run(Schedule::Forward), "acbed");
        assert_eq!(run(Schedule::Reverse), "dbeac");
        // Random: every queue whole and in its own order, the queues in some order, and over
        // drains every order comes up.
        let mut seen = std::collections::BTreeSet::new();
        for drain in 0..64 {
            let got: String = by_queue(held.clone(), |h: &(i32, char)| h.0, Schedule::Random(7), drain).into_iter().map(|h| h.1).collect();
            assert!(got.find('a') < got.find('c') && got.find('b') < got.find('e'), "{got}");
            assert!(["ac", "be", "d"].iter().all(|q| got.contains(q)), "{got}");
            seen.insert(got);
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
        // One queue: call order whatever the schedule.
        let one = vec![(4, 'x'), (4, 'y')];
        assert_eq!(by_queue(one, |h: &(i32, char)| h.0, Schedule::Reverse, 0), vec![(4, 'x'), (4, 'y')]);
    }

    #[test]
    fn held_operations_run_at_their_drain() {
        use std::sync::atomic::AtomicUsize;
        static RAN: AtomicUsize = AtomicUsize::new(0);
        // Queue numbers of this test only (the held list is process-wide).
        hold(-1001, None, Box::new(|| _ = RAN.fetch_add(1, Ordering::SeqCst)));
        hold(-1002, None, Box::new(|| _ = RAN.fetch_add(10, Ordering::SeqCst)));
        assert_eq!(RAN.load(Ordering::SeqCst), 0);
        drain(-1002);
        assert_eq!(RAN.load(Ordering::SeqCst), 10);
        drain(-1001);
        assert_eq!(RAN.load(Ordering::SeqCst), 11);
    }
}
