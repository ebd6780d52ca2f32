//! Asynchronous queues (OpenACC 3.3 §2.16, the `acc_async_*`/`acc_wait*` routines) — NOT
//! implemented yet: there are no CUDA streams. Every data transfer and kernel launch
//! completes before the call that started it returns, so every queue is always empty: tests
//! answer "complete" and waits return at once. What this module does keep is the part of
//! the contract that does not depend on streams: async arguments are checked (a queue
//! number >= 0, `acc_async_noval`, `acc_async_sync` or `acc_async_default`; anything else
//! is an error), and the default queue (`acc_set_default_async`) is remembered.
//!
//! Real queues replace the bodies here (one stream per queue number and device); the
//! routines in api/sync.rs and the `_async` data routines already go through this module.

use std::sync::atomic::{AtomicI32, Ordering};

use crate::diag;

/// `acc_async_noval` (openacc.h): the default queue.
pub const NOVAL: i32 = -1;
/// `acc_async_sync`: synchronous.
pub const SYNC: i32 = -2;
/// `acc_async_default`: `acc_set_default_async` goes back to the initial default.
pub const DEFAULT: i32 = -3;

/// Whether `q` is an async argument OpenACC allows.
pub fn valid(q: i32) -> bool {
    q >= 0 || q == NOVAL || q == SYNC || q == DEFAULT
}

/// Checks an async argument of `routine`; an invalid one is an error.
pub fn check(q: i32, routine: &str) {
    if !valid(q) {
        diag::runtime_error(&format!(
            "{routine}: {q} is not a valid async argument (a queue number >= 0, acc_async_noval, acc_async_sync or acc_async_default)"
        ))
    }
}

/// `acc_async_test(q)`: whether queue `q` has finished (always: nothing is ever pending).
pub fn test(q: i32, routine: &str) -> bool {
    check(q, routine);
    true
}

/// `acc_async_test_all`: whether every queue has finished (always).
pub fn test_all() -> bool {
    true
}

/// `acc_wait(q)`: waits for queue `q` (returns at once: it is empty).
pub fn wait(q: i32, routine: &str) {
    check(q, routine);
}

/// `acc_wait_async(q, on)`: makes queue `on` wait for queue `q` (both empty: nothing to do).
pub fn wait_async(q: i32, on: i32, routine: &str) {
    check(q, routine);
    check(on, routine);
}

/// `acc_wait_all`: waits for every queue.
pub fn wait_all() {}

/// `acc_wait_any`: the index of a queue of `queues` that has finished: the first that is
/// not `acc_async_sync` (all are finished), -1 when there is none.
pub fn wait_any(queues: &[i32], routine: &str) -> i32 {
    for &q in queues {
        check(q, routine);
    }
    queues.iter().position(|&q| q != SYNC).map_or(-1, |i| i as i32)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn async_arguments() {
        for q in [0, 1, 7, i32::MAX, NOVAL, SYNC, DEFAULT] {
            assert!(valid(q), "{q}");
        }
        for q in [-4, -100, i32::MIN] {
            assert!(!valid(q), "{q}");
        }
    }

    #[test]
    fn every_queue_is_finished() {
        assert!(test(3, "t") && test(NOVAL, "t") && test_all());
        assert_eq!(wait_any(&[SYNC, 4, 2], "t"), 1);
        assert_eq!(wait_any(&[SYNC, SYNC], "t"), -1);
        assert_eq!(wait_any(&[], "t"), -1);
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
