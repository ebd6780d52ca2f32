//! Async queues on the emulator: memory operations enqueued on an async queue (copies to and
//! from the device, device-to-device copies, zeroing) are held, in call order, until
//! something needs the queue done, so that a program that reads what an async copy-out
//! writes before waiting for the queue reads stale bytes on the emulator too, as it may on
//! the GPU, instead of passing by luck.
//!
//! Held operations run: for their queue, at a wait for it (`wait`, `acc_wait*`, a `wait`
//! clause or `wait(q) async(r)`), a test of it (`acc_async_test*`, which then says done),
//! and before a kernel on it; for every queue, before any synchronous operation on device
//! memory (a copy, a zeroing, a kernel launch, a free or a block's return to the pool), as
//! the GPU's legacy default stream waits for every queue's stream. Running held work early
//! is always allowed (a queue may finish whenever it likes): a drain is never wrong, it only
//! lets fewer missing waits show.
//!
//! A block that an exit releases while operations are held goes back to the pool only once
//! nothing is held ([`when_idle`]).
//!
//! An upload reads its host bytes at the call (kept here until it runs), as the GPU path's
//! copies of at most 4 KiB and CUDA's pageable copies do, after every held download that
//! writes them has run ([`before_reading`]); a download writes the host when it runs.
//!
//! Expects: the emulator target (mem.rs and launch.rs call [`hold`] only there). Not here:
//! kernels (they run at their launch, after their queue's held work: their parameter array
//! is the stub's stack, whose sizes the runtime does not know), the GPU's queues (queue.rs),
//! the host path (every operation runs at once).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// One held operation: raw memory writes between host and emulator memory, no locks.
type Op = Box<dyn FnOnce() + Send>;

/// One held operation with its queue's number and the host bytes it writes (a download).
struct Held {
    key: i32,
    writes: Option<(usize, usize)>,
    op: Op,
}

/// Every queue's held operations, in call order.
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// Whether anything is held (the common case, nothing, costs no lock).
static ANY: AtomicBool = AtomicBool::new(false);

/// Operations that wait until nothing is held: the release of blocks that held operations
/// may still use (an exit's free, mem.rs).
static WHEN_IDLE: Mutex<Vec<Op>> = Mutex::new(Vec::new());

/// Runs `op` now if nothing is held, else once every queue has been drained (a block an
/// async exit releases goes back to the pool only when no held copy can reach it, as the
/// GPU frees it only after the busy streams' events).
pub fn when_idle(op: Op) {
    if ANY.load(Ordering::Acquire) {
        WHEN_IDLE.lock().unwrap_or_else(|e| e.into_inner()).push(op);
    } else {
        op()
    }
}

/// Holds `op` on queue `key` until the queue is drained; `writes`: the host bytes
/// `[start, start + len)` it writes, if any (a download).
pub fn hold(key: i32, writes: Option<(usize, usize)>, op: Op) {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.push(Held { key, writes, op });
    ANY.store(true, Ordering::Release);
}

/// Runs every held operation if one of them writes host bytes in `[start, start + len)`:
/// an upload reads its bytes at the call, after the downloads enqueued before it, as the
/// GPU's copies do (bounce.rs, CUDA's pageable copies).
pub fn before_reading(start: usize, len: usize) {
    if !ANY.load(Ordering::Acquire) {
        return;
    }
    let end = start.saturating_add(len);
    let overlaps = HELD
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .any(|h| h.writes.is_some_and(|(s, n)| s < end && start < s.saturating_add(n)));
    if overlaps {
        drain_all();
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
    if !ANY.load(Ordering::Acquire) {
        return;
    }
    // Under the lock, so that two threads' drains never run one queue's operations out of
    // order (an operation is a plain memory copy and takes no lock).
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    let (now, keep) = split(std::mem::take(&mut *held), |h| h.key, only);
    *held = keep;
    let idle = held.is_empty();
    ANY.store(!idle, Ordering::Release);
    for h in now {
        (h.op)();
    }
    drop(held);
    if idle {
        // Outside the lock: a release may drain again (mem.rs's recycle), finding nothing.
        let waiting = std::mem::take(&mut *WHEN_IDLE.lock().unwrap_or_else(|e| e.into_inner()));
        for op in waiting {
            op();
        }
    }
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
