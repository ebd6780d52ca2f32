//! The device emulator (`ACC_DEVICE_TYPE=emulator`): runs kernels on the host with the GPU's
//! execution model.
//!
//! The compiler links a host copy of every kernel into the program (codegen/src/emulator.rs)
//! whose target-specific operations call the functions below (the emulator side of the device
//! runtime interface, runtime-ir/emulator.ll). A launch runs the gangs one after another;
//! each thread of a gang (`num_workers x vector_length`, worker = thread / vector_length,
//! vector lane = thread % vector_length) is a fiber on one OS thread. A fiber runs until it
//! reaches a synchronisation point, stores to shared memory (the compiler adds a yield after
//! every such store, so threads that race on shared memory interleave), is about to store to
//! device memory under the random schedule (one store in four: a read-modify-write of one
//! element by several threads without an atomic then loses updates, as on the GPU) or ends; the order in which ready fibers run
//! (`ACCC_EMU_SCHEDULE=forward|reverse|random:SEED`) is chosen per round, so a missing sync
//! changes the answer instead of hiding. A sync under divergent control flow is reported as a
//! deadlock. Shared memory is ordinary memory with one instance, right because gangs never
//! overlap. Device memory is separate host memory (mem.rs). Warp shuffles go through a table
//! with one value per thread of the running gang (`LANES`): each thread writes its value,
//! waits for its warp (32 consecutive threads in linear order, `Wait::Warp`), reads its
//! source lane, and waits for its warp again so that nobody overwrites the table before
//! every lane has read. Votes are not emulated.

pub mod args;
pub mod schedule;

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::sync::OnceLock;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use crate::diag;
use crate::launch::Size;
use schedule::{release, Schedule, State, Wait, WARP};

/// A kernel's emulator entry: `void entry(void **args)`.
pub type Entry = unsafe extern "C" fn(*mut *mut c_void);

/// Ids of the running fiber (set by the scheduler before every resume).
#[derive(Clone, Copy, Default)]
struct Ids {
    /// The gang in the whole grid, linearised (x fastest), and the grid's gang count.
    gang: u64,
    num_gangs: u64,
    /// The gang's index and the gang count per grid dimension (x, y, z).
    gang_dim: [u64; 3],
    num_gangs_dim: [u64; 3],
    worker: u64,
    num_workers: u64,
    vector: u64,
    vector_length: u64,
}

type Fiber = Coroutine<(), Wait, (), DefaultStack>;

thread_local! {
    static CURRENT: Cell<Ids> = Cell::new(Ids::default());
    /// The running fiber's yielder; null outside a fiber.
    static YIELDER: Cell<*const Yielder<(), Wait>> = const { Cell::new(std::ptr::null()) };
    /// Warp shuffles' exchange table: one value per thread of the running gang, by linear
    /// thread index (resized by `run_gang`).
    static LANES: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// The generator of `__accemu_yield_global`'s draws (one per OS thread: the emulator runs
    /// a launch's fibers on one, in an order the schedule fixes, so runs repeat).
    static DRAW: Cell<u64> = const { Cell::new(0x5EED) };
}

/// The schedule, read once from `ACCC_EMU_SCHEDULE`.
pub fn schedule() -> Schedule {
    static S: OnceLock<Schedule> = OnceLock::new();
    *S.get_or_init(|| {
        Schedule::parse(std::env::var("ACCC_EMU_SCHEDULE").ok().as_deref()).unwrap_or_else(|e| diag::runtime_error(&e))
    })
}

/// Bytes of each fiber's stack (`ACCC_EMU_STACK_KB`, default 256 KiB).
fn stack_bytes() -> usize {
    static S: OnceLock<usize> = OnceLock::new();
    *S.get_or_init(|| std::env::var("ACCC_EMU_STACK_KB").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(256) * 1024)
}

/// Runs `entry` on a grid of `size`; `Err` describes a deadlock.
///
/// # Safety
/// `entry` must be a kernel's emulator entry and `args` its argument array.
pub unsafe fn launch(entry: Entry, size: Size, args: *mut *mut c_void) -> Result<(), String> {
    // Before this thread's thread-locals below are first used (emu_queue.rs: a thread whose
    // thread-locals are gone must not run held kernels at exit).
    crate::emu_queue::watch_thread();
    let mut stacks: Vec<DefaultStack> = Vec::new();
    for gang in 0..size.total_gangs() {
        // SAFETY: forwarded caller guarantees.
        unsafe { run_gang(entry, size, gang, args, &mut stacks) }.map_err(|e| format!("gang {gang}: {e}"))?;
    }
    Ok(())
}

/// Runs the threads of one gang to completion.
///
/// # Safety
/// As for [`launch`].
unsafe fn run_gang(entry: Entry, size: Size, gang: u64, args: *mut *mut c_void, stacks: &mut Vec<DefaultStack>) -> Result<(), String> {
    let vector = size.vector.max(1) as usize;
    let n = vector * size.workers.max(1) as usize;
    let args = args as usize;
    let mut fibers: Vec<Option<Fiber>> = (0..n)
        .map(|_| {
            let stack = stacks.pop().unwrap_or_else(|| {
                DefaultStack::new(stack_bytes()).unwrap_or_else(|e| diag::runtime_error(&format!("emulator: cannot allocate a fiber stack: {e}")))
            });
            Some(Coroutine::with_stack(stack, move |y: &Yielder<(), Wait>, ()| {
                YIELDER.with(|c| c.set(y));
                // SAFETY: the caller of `launch` guarantees that `entry` is a kernel's entry
                // and `args` its argument array, alive for the whole launch.
                unsafe { entry(args as *mut *mut c_void) }
            }))
        })
        .collect();
    LANES.with(|l| {
        let mut l = l.borrow_mut();
        l.clear();
        l.resize(n, 0);
    });
    let mut states = vec![State::Ready; n];
    let sched = schedule();
    let mut round = 0u64;
    let grid = size.grid().map(u64::from);
    let gang_dim = [gang % grid[0], gang / grid[0] % grid[1], gang / (grid[0] * grid[1])];
    loop {
        for t in sched.order(n, gang, round) {
            if states[t] != State::Ready {
                continue;
            }
            CURRENT.with(|c| {
                c.set(Ids {
                    gang,
                    num_gangs: size.total_gangs(),
                    gang_dim,
                    num_gangs_dim: grid,
                    worker: (t / vector) as u64,
                    num_workers: u64::from(size.workers.max(1)),
                    vector: (t % vector) as u64,
                    vector_length: vector as u64,
                })
            });
            let fiber = fibers[t].as_mut().expect("a ready thread has a fiber");
            match fiber.resume(()) {
                CoroutineResult::Yield(Wait::Yield) => states[t] = State::Ready,
                CoroutineResult::Yield(w) => states[t] = State::Waiting(w),
                CoroutineResult::Return(()) => {
                    states[t] = State::Done;
                    stacks.push(fibers[t].take().expect("just ran").into_stack());
                }
            }
        }
        YIELDER.with(|c| c.set(std::ptr::null()));
        if states.iter().all(|s| *s == State::Done) {
            return Ok(());
        }
        if let Err(e) = release(&mut states, vector) {
            // The waiting fibers cannot be unwound through C frames: leave them to the exit.
            fibers.into_iter().for_each(std::mem::forget);
            return Err(e);
        }
        round += 1;
    }
}

fn suspend(w: Wait) {
    let y = YIELDER.with(Cell::get);
    if y.is_null() {
        diag::runtime_error("emulator: a synchronisation point was reached outside an emulated kernel");
    }
    // SAFETY: `y` is the running fiber's yielder (set when the fiber started and restored
    // after every resumption below); the fiber is alive while it runs this code.
    unsafe { (*y).suspend(w) };
    YIELDER.with(|c| c.set(y));
}

fn ids() -> Ids {
    CURRENT.with(Cell::get)
}

/// One warp shuffle by the running thread: exchanges `v` with its warp and returns the value
/// of the lane `source(lane)` names, or `v` itself when that is `None` or a lane the (partial)
/// warp does not have. Every thread of the warp calls it together.
fn shuffle(v: u32, source: impl FnOnce(usize) -> Option<usize>) -> u32 {
    warp_values(v, |vals, lane| source(lane).and_then(|s| vals.get(s)).copied().unwrap_or(v))
}

/// The lanes of the running thread's warp that exist, after every one of them has written
/// its value: `f` sees their values in lane order and the caller's lane. Every thread of the
/// warp calls it together.
fn warp_values<R>(v: u32, f: impl FnOnce(&[u32], usize) -> R) -> R {
    let id = ids();
    let t = (id.worker * id.vector_length + id.vector) as usize;
    let n = (id.num_workers * id.vector_length) as usize;
    if LANES.with(|l| l.borrow_mut().get_mut(t).map(|slot| *slot = v)).is_none() {
        diag::runtime_error("emulator: a warp operation was called outside an emulated kernel");
    }
    suspend(Wait::Warp);
    let base = t / WARP * WARP;
    let r = LANES.with(|l| f(&l.borrow()[base..n.min(base + WARP)], t - base));
    // Nobody of this warp writes the table again before every lane has read it.
    suspend(Wait::Warp);
    r
}

/// `op` over `values` (`__acc_warp_redux`'s operation codes, docs/device-runtime.md).
pub fn redux(op: i32, values: &[u32]) -> u32 {
    let s = || values.iter().map(|v| *v as i32);
    let u = || values.iter().copied();
    match op {
        0 => u().fold(0u32, u32::wrapping_add),
        1 => s().min().unwrap_or(i32::MAX) as u32,
        2 => s().max().unwrap_or(i32::MIN) as u32,
        3 => u().min().unwrap_or(u32::MAX),
        4 => u().max().unwrap_or(0),
        5 => u().fold(u32::MAX, |a, b| a & b),
        6 => u().fold(0, |a, b| a | b),
        7 => u().fold(0, |a, b| a ^ b),
        _ => diag::runtime_error(&format!("emulator: unknown warp reduction {op}")),
    }
}

#[no_mangle]
pub extern "C" fn __accemu_gang_id() -> i64 {
    ids().gang as i64
}
#[no_mangle]
pub extern "C" fn __accemu_num_gangs() -> i64 {
    ids().num_gangs as i64
}
/// Gang dimension `dim` (1 to 3: the grid's x, y, z).
#[no_mangle]
pub extern "C" fn __accemu_gang_id_dim(dim: i32) -> i64 {
    ids().gang_dim[dim_index(dim)] as i64
}
#[no_mangle]
pub extern "C" fn __accemu_num_gangs_dim(dim: i32) -> i64 {
    ids().num_gangs_dim[dim_index(dim)] as i64
}
fn dim_index(dim: i32) -> usize {
    match dim {
        1..=3 => (dim - 1) as usize,
        _ => diag::runtime_error(&format!("emulator: no gang dimension {dim}")),
    }
}
#[no_mangle]
pub extern "C" fn __accemu_worker_id() -> i64 {
    ids().worker as i64
}
#[no_mangle]
pub extern "C" fn __accemu_num_workers() -> i64 {
    ids().num_workers as i64
}
#[no_mangle]
pub extern "C" fn __accemu_vector_id() -> i64 {
    ids().vector as i64
}
#[no_mangle]
pub extern "C" fn __accemu_vector_length() -> i64 {
    ids().vector_length as i64
}
#[no_mangle]
pub extern "C" fn __accemu_sync_gang() {
    suspend(Wait::Gang)
}
#[no_mangle]
pub extern "C" fn __accemu_sync_worker() {
    suspend(Wait::Worker)
}
#[no_mangle]
pub extern "C" fn __accemu_yield() {
    suspend(Wait::Yield)
}
/// Before a store to device memory (codegen/src/emulator.rs): under the random schedule,
/// sometimes lets the other threads of the block run first (`Schedule::yields_before_global_store`).
#[no_mangle]
pub extern "C" fn __accemu_yield_global() {
    let yields = DRAW.with(|d| {
        let mut v = d.get();
        let y = schedule().yields_before_global_store(&mut v);
        d.set(v);
        y
    });
    if yields {
        suspend(Wait::Yield)
    }
}
/// `__acc_shfl_down`: `v` of lane `lane + delta` of the caller's warp, its own `v` when
/// `lane + delta >= 32` (or that lane does not exist).
#[no_mangle]
pub extern "C" fn __accemu_shfl_down(v: i32, delta: i32) -> i32 {
    shuffle(v as u32, |lane| {
        let s = lane as u64 + u64::from(delta as u32);
        (s < WARP as u64).then_some(s as usize)
    }) as i32
}
/// `__acc_warp_redux`: operation `op` over `v` of every existing lane of the caller's warp,
/// returned to all of them (the GPU's `redux.sync`).
#[no_mangle]
pub extern "C" fn __accemu_warp_redux(v: i32, op: i32) -> i32 {
    warp_values(v as u32, |vals, _| redux(op, vals)) as i32
}
/// `__acc_shfl_idx`: `v` of lane `src` (taken modulo 32, as the GPU does) of the caller's
/// warp, its own `v` when that lane does not exist.
#[no_mangle]
pub extern "C" fn __accemu_shfl_idx(v: i32, src: i32) -> i32 {
    shuffle(v as u32, |_| Some(src as u32 as usize % WARP)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel that records, per linear thread, `shfl_down(t, 1)`, `shfl_idx(t*10, 3)` and
    /// `shfl_down(t, 31)`.
    unsafe extern "C" fn shuffles(args: *mut *mut c_void) {
        // SAFETY: the test passes one pointer to a [u32; 3 * n] buffer.
        let out = unsafe { *(*args as *const *mut i32) };
        let t = (__accemu_worker_id() * __accemu_vector_length() + __accemu_vector_id()) as i32;
        let a = __accemu_shfl_down(t, 1);
        let b = __accemu_shfl_idx(t * 10, 3);
        let c = __accemu_shfl_down(t, 31);
        // SAFETY: t < n.
        unsafe {
            *out.add(3 * t as usize) = a;
            *out.add(3 * t as usize + 1) = b;
            *out.add(3 * t as usize + 2) = c;
        }
    }

    #[test]
    fn warp_reductions() {
        let v = [3u32, 0xFFFF_FFFE, 5];
        assert_eq!(redux(0, &v), 6); // wrapping add
        assert_eq!(redux(1, &v), (-2i32) as u32);
        assert_eq!(redux(2, &v), 5);
        assert_eq!(redux(3, &v), 3);
        assert_eq!(redux(4, &v), 0xFFFF_FFFE);
        assert_eq!((redux(5, &v), redux(6, &v), redux(7, &v)), (3 & 0xFFFF_FFFE & 5, 3 | 0xFFFF_FFFE | 5, 3 ^ 0xFFFF_FFFE ^ 5));
    }

    /// Every thread stores the sum over its warp of `t`.
    unsafe extern "C" fn sums(args: *mut *mut c_void) {
        // SAFETY: the test passes one pointer to a [i32; n] buffer.
        let out = unsafe { *(*args as *const *mut i32) };
        let t = (__accemu_worker_id() * __accemu_vector_length() + __accemu_vector_id()) as i32;
        let s = __accemu_warp_redux(t, 0);
        // SAFETY: t < n.
        unsafe { *out.add(t as usize) = s };
    }

    #[test]
    fn warp_redux_over_a_partial_warp() {
        let size = Size::new(1, 3, 15);
        let mut out = vec![-1i32; 45];
        let mut p = out.as_mut_ptr();
        let mut args = [(&mut p) as *mut *mut i32 as *mut c_void];
        // SAFETY: `sums` reads one pointer to a buffer of 45 values.
        unsafe { launch(sums, size, args.as_mut_ptr()) }.unwrap();
        let (first, second) = ((0..32).sum::<i32>(), (32..45).sum::<i32>());
        assert!(out[..32].iter().all(|v| *v == first) && out[32..].iter().all(|v| *v == second), "{out:?}");
    }

    #[test]
    fn warp_shuffles() {
        // 3 workers x 20 lanes: warp 0 is threads 0..32, warp 1 (partial) 32..60.
        let size = Size::new(2, 3, 20);
        let n = 60;
        let mut out = vec![-1i32; 3 * n];
        let mut p = out.as_mut_ptr();
        let mut args = [(&mut p) as *mut *mut i32 as *mut c_void];
        // SAFETY: `shuffles` reads one pointer to a buffer of 3 * n values.
        unsafe { launch(shuffles, size, args.as_mut_ptr()) }.unwrap();
        for t in 0..n {
            let (base, lane) = (t / 32 * 32, t % 32);
            let down = if lane + 1 < 32 && t + 1 < n { t + 1 } else { t };
            assert_eq!(out[3 * t], down as i32, "shfl_down(t, 1) at {t}");
            assert_eq!(out[3 * t + 1], ((base + 3) * 10) as i32, "shfl_idx at {t}");
            let far = if lane == 0 && base + 31 < n { base + 31 } else { t };
            assert_eq!(out[3 * t + 2], far as i32, "shfl_down(t, 31) at {t}");
        }
    }
}
