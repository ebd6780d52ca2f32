//! Kernel launch (`__accrt_launch`): module/function loading with caching (the function
//! and its thread limit, asked of the driver once per kernel: [`Loaded`]), the launch-size
//! decision (pure functions, unit-tested), and the launch itself (timed for `ACC_TIME`,
//! profile/).
//!
//! Sizes: the user's `num_gangs`/`num_workers`/`vector_length` values were checked to be
//! positive before the region started (`size_clause_error`, through
//! `__accrt_check_launch_size`); a requested value <= 0 here is the compiler's "no clause"
//! and takes the default (1024 gangs, 1 worker, vector 128; the
//! compiler always passes its own defaults for workers and vector). A kernel flagged
//! `ACCRT_KERNEL_WORKER_SYNC` first gets workers of one warp and at most 15 workers
//! (`adjust_for_kernel`). The block (vector x workers) is then clamped to the kernel's max threads per block,
//! reducing workers first, then vector (kept a multiple of 32 when it was >= 32), never
//! below 1; the grid is clamped to [1, device max grid x]. Kernels stride by the actual
//! launch size, so neither step changes results. The emulator runs the same sizes with a
//! limit of 1024 threads per block. Last, a kernel flagged `ACCRT_KERNEL_CAP_GANGS` (gang
//! reductions, no `num_gangs` clause) gets at most one wave of gangs: on the GPU the
//! multiprocessors times the blocks of the final size one can hold by its thread limit
//! (`one_wave`), on the emulator 64 (`cap_gangs`). A kernel with gang-level reductions then
//! runs with its scratch memory (scratch.rs), sized for the final gang count.
//!
//! Queues: a launch on the synchronous queue waits for the kernel (`cuCtxSynchronize`), as
//! before async queues existed; a launch on an async queue goes on its stream and returns
//! (queue.rs remembers the kernel, so that a failure a later wait sees names it). A kernel
//! with gang-level reductions uses its queue's own scratch buffer (scratch.rs), so it
//! returns at once too, and kernels on different queues run at the same time; its result
//! reaches the host in queue order, by the copy-out of its reduction variable (a small copy
//! through a page-locked slot, bounce.rs, which does not block the host either). A kernel
//! flagged `ACCRT_KERNEL_LINK_SLOT` is the exception: it sets the one device slot of a
//! `declare link` global, which holds
//! the address of the device copy its own data clauses mapped, and another such kernel
//! running beside it (on another queue, or launched by another host thread) could have
//! mapped another copy; so such launches take turns (a lock) and each returns only when its
//! kernel is done ([`waits_at_launch`]). On the emulator a launch on an async queue is held
//! with a copy of its argument values until the queue is drained (emu_queue.rs,
//! emu/args.rs: [`launch_on_emulator`]); every other launch, a `declare link` one included,
//! completes before it returns (the lock still orders host threads).

use std::collections::HashMap;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

use crate::cuda::{self, Handle};

/// The calling thread's GPU's SM number (0 when it is not a GPU: every cubin is tried).
fn gpu_sm() -> u32 {
    match device::target() {
        Some(Target::Gpu(g)) => g.sm,
        _ => 0,
    }
}
use crate::device::Target;
use crate::queue::{self, Queue};
use crate::{device, diag, emu, notify, private_area, profile, scratch, AccrtKernel, ACCRT_KERNEL_CAP_GANGS, ACCRT_KERNEL_DEVICE_HEAP, ACCRT_KERNEL_LINK_SLOT, ACCRT_KERNEL_WORKER_SYNC};

/// Held across the launch of an `ACCRT_KERNEL_LINK_SLOT` kernel until the kernel is done.
static LINK_SLOT: Mutex<()> = Mutex::new(());

/// Why a kernel launched on an async queue is waited for before the launch returns (the
/// end of the ACC_NOTIFY/error text "the launch of kernel 'k' (t.c:3:9), which ..."), or
/// None when the launch returns at once: only a kernel that sets a `declare link` global's
/// device slot waits (module doc); gang reductions have a scratch buffer per queue.
pub fn waits_at_launch(flags: u64) -> Option<&'static str> {
    (flags & ACCRT_KERNEL_LINK_SLOT != 0).then_some("sets the device slot of a 'declare link' global")
}

/// The turn of an `ACCRT_KERNEL_LINK_SLOT` kernel (None for other kernels).
fn link_slot_turn(flags: u64) -> Option<std::sync::MutexGuard<'static, ()>> {
    (flags & ACCRT_KERNEL_LINK_SLOT != 0).then(|| LINK_SLOT.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Threads per block the emulator runs at most (the GPU's limit).
const EMULATOR_MAX_THREADS: u32 = 1024;
/// Workers of a kernel that syncs workers: per-worker shared copies and broadcast slots
/// come 16 to a kernel (privatize.rs, guard.rs).
const MAX_SYNCING_WORKERS: u32 = 15;
/// Gangs of an `ACCRT_KERNEL_CAP_GANGS` kernel on the emulator.
pub const EMULATOR_GANG_CAP: u32 = 64;

pub const DEFAULT_GANGS: u32 = 1024;
pub const DEFAULT_WORKERS: u32 = 1;
pub const DEFAULT_VECTOR: u32 = 128;

/// A launch size: grid = gangs x gangs_y x gangs_z (gang dimensions 1, 2, 3), block =
/// vector x workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub gangs: u32,
    pub gangs_y: u32,
    pub gangs_z: u32,
    pub workers: u32,
    pub vector: u32,
}

impl Size {
    /// A one-dimensional grid.
    pub fn new(gangs: u32, workers: u32, vector: u32) -> Size {
        Size { gangs, gangs_y: 1, gangs_z: 1, workers, vector }
    }
    pub fn grid(&self) -> [u32; 3] {
        [self.gangs, self.gangs_y, self.gangs_z]
    }
    /// Gangs of the whole grid (what reductions across gangs combine).
    pub fn total_gangs(&self) -> u64 {
        self.grid().iter().map(|g| u64::from(*g)).product()
    }
    /// The grid as ACC_NOTIFY prints it: `4` for one dimension, `4x3` or `4x3x2` otherwise.
    pub fn describe_grid(&self) -> String {
        match self.grid() {
            [x, 1, 1] => x.to_string(),
            [x, y, 1] => format!("{x}x{y}"),
            [x, y, z] => format!("{x}x{y}x{z}"),
        }
    }
}

/// The message for a launch-size clause whose value is not positive (the spec requires a
/// positive value; 0 or a negative number is the program's mistake, never a default).
/// A clause argument (`gang.static`, the contract's name) reads as written: `gang(static: 0)`.
pub fn size_clause_error(clause: &str, value: i64) -> Option<String> {
    (value <= 0).then(|| match clause.split_once('.') {
        Some((name, arg)) => format!("{name}({arg}: {value}): the value must be positive"),
        None => format!("{clause}({value}): the value must be positive"),
    })
}

/// Gangs in dimensions 2 and 3 when the compiler could not size them (a `gang(dim: 2|3)`
/// loop whose trip count depends on what the kernel computes).
pub const DEFAULT_GANGS_YZ: u32 = 16;

/// The requested sizes with defaults for values <= 0 (huge values saturate). `gangs` is the
/// grid's dimensions 1 to 3.
pub fn requested(gangs: [i64; 3], workers: i64, vector: i64) -> Size {
    let pick = |v: i64, default: u32| {
        if v <= 0 {
            default
        } else {
            u32::try_from(v).unwrap_or(u32::MAX)
        }
    };
    Size {
        gangs: pick(gangs[0], DEFAULT_GANGS),
        gangs_y: pick(gangs[1], DEFAULT_GANGS_YZ),
        gangs_z: pick(gangs[2], DEFAULT_GANGS_YZ),
        workers: pick(workers, DEFAULT_WORKERS),
        vector: pick(vector, DEFAULT_VECTOR),
    }
}

/// What a kernel's code needs of its launch (`flags`): a kernel that synchronises the lanes
/// of a worker gets workers of exactly one warp (vector length 32: its worker barrier is a
/// warp barrier, runtime-ir/nvptx.ll) and at most 15 workers; the lanes a longer vector
/// asked for become more workers, so the block keeps its size where it can. Kernels stride
/// by the launch size, so the result does not change.
pub fn adjust_for_kernel(req: Size, flags: u64) -> Size {
    if flags & ACCRT_KERNEL_WORKER_SYNC == 0 {
        return req;
    }
    let warps_per_worker = req.vector.max(1).div_ceil(32);
    Size {
        workers: req.workers.max(1).saturating_mul(warps_per_worker).clamp(1, MAX_SYNCING_WORKERS),
        vector: 32,
        ..req
    }
}

/// Clamp `req` to a kernel limit of `max_threads` per block and grid limits `max_grid` (x, y, z).
pub fn clamp(req: Size, max_threads: u32, max_grid: [u32; 3]) -> Size {
    let max = max_threads.max(1);
    let mut vector = req.vector.max(1);
    let mut workers = req.workers.max(1);
    if u64::from(vector) * u64::from(workers) > u64::from(max) {
        workers = (max / vector).max(1);
        if vector > max {
            vector = if vector >= 32 && max >= 32 {
                max / 32 * 32
            } else {
                max
            };
        }
    }
    Size {
        gangs: req.gangs.clamp(1, max_grid[0].max(1)),
        gangs_y: req.gangs_y.clamp(1, max_grid[1].max(1)),
        gangs_z: req.gangs_z.clamp(1, max_grid[2].max(1)),
        workers,
        vector,
    }
}

/// Gangs in one full wave of blocks of `block_threads` threads: `multiprocessors` times the
/// blocks one multiprocessor holds by its thread limit (at least one).
/// Resident blocks per multiprocessor on sm_80 and later.
pub const MAX_BLOCKS_PER_MULTIPROCESSOR: u32 = 32;

pub fn one_wave(multiprocessors: u32, max_threads_per_multiprocessor: u32, block_threads: u32) -> u32 {
    // No more blocks than a multiprocessor holds at once (32 since sm_80; 16 before sm_75
    // would only make a wave longer, not wrong): blocks of a few threads would otherwise
    // ask for thousands of gangs whose partials the last gang reads alone.
    let per_sm = (max_threads_per_multiprocessor / block_threads.max(1)).clamp(1, MAX_BLOCKS_PER_MULTIPROCESSOR);
    multiprocessors.max(1).saturating_mul(per_sm)
}

/// `size` with at most `cap` (>= 1) gangs in all when `flags` has `ACCRT_KERNEL_CAP_GANGS`:
/// dimension 1 first gets at most `cap`, then dimension 2 what is left of it, then 3.
pub fn cap_gangs(size: Size, flags: u64, cap: u32) -> Size {
    if flags & ACCRT_KERNEL_CAP_GANGS == 0 {
        return size;
    }
    let cap = cap.max(1);
    let gangs = size.gangs.min(cap);
    let gangs_y = size.gangs_y.min((cap / gangs).max(1));
    let gangs_z = size.gangs_z.min((cap / (gangs * gangs_y)).max(1));
    Size { gangs, gangs_y, gangs_z, ..size }
}

/// Loaded modules by image address, per device.
static MODULES: device::PerDevice<Mutex<HashMap<usize, Handle>>> = device::PerDevice::new(|| Mutex::new(HashMap::new()));

/// A kernel as loaded on one GPU: what a launch needs from the driver besides the launch
/// itself, asked once per kernel (descriptor) and device. Nothing else a launch asks the
/// driver is per kernel: the device's limits are read once when it is opened (device.rs),
/// the context is made current once per host thread and device, a queue's stream once per
/// queue (queue.rs); what is left per launch is `cuLaunchKernel` itself (and, for a
/// synchronous launch, `cuCtxSynchronize`).
#[derive(Debug)]
pub struct Loaded {
    pub func: Handle,
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`: fixed once the module is loaded.
    pub max_threads: u32,
    /// How its messages name the kernel (" for kernel 'k' (t.c:3:9)", and the device heap
    /// it uses): made once, not per launch (the launch round trip is measured in
    /// microseconds, scripts/bench's `launch`).
    pub what: String,
}

/// One kernel's [`Loaded`] per device: what `accrt_kernel.cache` points to once the kernel
/// has been loaded on any device (never freed: descriptors live as long as the program).
type LoadedPerDevice = [AtomicPtr<c_void>; device::MAX_DEVICES];

/// Kernel `k`'s per-device cache, made at its first load.
fn device_cache(k: *mut AccrtKernel) -> &'static LoadedPerDevice {
    // SAFETY: `cache` is a pointer-sized, pointer-aligned field of a live descriptor that
    // only the runtime accesses, and it is only accessed atomically.
    let field = unsafe { AtomicPtr::from_ptr(std::ptr::addr_of_mut!((*k).cache)) };
    let mut p = field.load(Ordering::Acquire);
    if p.is_null() {
        let fresh: *mut LoadedPerDevice = Box::into_raw(Box::new([const { AtomicPtr::new(std::ptr::null_mut::<c_void>()) }; device::MAX_DEVICES]));
        p = match field.compare_exchange(std::ptr::null_mut(), fresh.cast(), Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => fresh.cast(),
            Err(theirs) => {
                // SAFETY: `fresh` came from Box::into_raw above and was never shared.
                drop(unsafe { Box::from_raw(fresh) });
                theirs
            }
        };
    }
    // SAFETY: a non-null `cache` always points to a leaked LoadedPerDevice (above).
    unsafe { &*(p as *const LoadedPerDevice) }
}

/// The kernel as loaded on the calling thread's device (module, function, attributes),
/// loaded on first use and kept through `k.cache`; `what` names it in messages.
fn load_function(k: *mut AccrtKernel, kd: &AccrtKernel, what: impl FnOnce() -> String) -> &'static Loaded {
    let cache = &device_cache(k)[device::slot()];
    let loaded = |p: *mut c_void| {
        // SAFETY: a non-null slot holds a leaked `Loaded` (stored below, never freed).
        unsafe { &*(p as *const Loaded) }
    };
    let f = cache.load(Ordering::Acquire);
    if !f.is_null() {
        return loaded(f);
    }
    let mut modules = MODULES.get().lock().unwrap_or_else(|e| e.into_inner());
    let f = cache.load(Ordering::Acquire);
    if !f.is_null() {
        return loaded(f);
    }
    let what = what();
    // A kernel that keeps shared private arrays on the device heap: the heap made large
    // enough before its first launch (once per device), and, as an exhausted heap shows
    // only as the kernel's failure, named in its messages.
    let what = match (kd.flags & ACCRT_KERNEL_DEVICE_HEAP != 0).then(device::heap_for_arrays) {
        Some(bytes) => format!("{what} (it keeps private arrays on the device heap, {bytes} bytes; ACCC_DEVICE_HEAP_BYTES sets its size)"),
        None => what,
    };
    assert!(
        !kd.image.is_null() && kd.image_size > 0,
        "kernel {what} has no image"
    );
    let module = *modules
        .entry(kd.image as usize)
        .or_insert_with(|| {
            // SAFETY: `image` is the complete image (cubins and PTX, image.rs) of
            // `image_size` bytes embedded by the compiler for this kernel.
            unsafe { crate::image::load(kd.image, kd.image_size as usize, gpu_sm()) }.unwrap_or_else(|e| e.fail(&what))
        });
    assert!(!kd.name.is_null(), "kernel descriptor without a name");
    // SAFETY: `name` is a NUL-terminated constant emitted by the compiler.
    let name = unsafe { CStr::from_ptr(kd.name) };
    let func = cuda::module_get_function(module, name).unwrap_or_else(|e| e.fail(&what));
    let max_threads = cuda::func_max_threads_per_block(func).unwrap_or_else(|e| e.fail(&what));
    let l: &'static Loaded = Box::leak(Box::new(Loaded { func, max_threads: max_threads.max(1) as u32, what }));
    cache.store(l as *const Loaded as *mut c_void, Ordering::Release);
    l
}

/// Launch kernel `k` on queue `q` (the synchronous queue: and wait for it).
///
/// # Safety
/// `k` must point to a live descriptor emitted by the compiler and `args` to the
/// kernel's parameter array.
pub unsafe fn launch(
    k: *mut AccrtKernel,
    gangs: [i64; 3],
    workers: i64,
    vector: i64,
    args: *mut *mut c_void,
    q: Queue,
) {
    assert!(!k.is_null(), "null kernel descriptor");
    // SAFETY: guaranteed by the caller; the fields read here are never written after
    // the descriptor was emitted (only `cache`, which is accessed atomically).
    let kd = unsafe { &*k };
    // SAFETY: the descriptor's strings are NUL-terminated constants emitted by the compiler.
    let (name, loc, host_fn) = unsafe {
        (
            diag::cstr(kd.name, "?"),
            diag::cstr(kd.loc, "?"),
            diag::cstr(kd.function, "?"),
        )
    };
    let Some(target) = device::target() else {
        panic!("__accrt_launch of kernel '{name}' ({loc}) while compute regions run on the host");
    };
    let what = || format!(" for kernel '{name}' ({loc})");
    let req = requested(gangs, workers, vector);
    let wanted = adjust_for_kernel(req, kd.flags);
    match target {
        Target::Gpu(gpu) => {
            let Loaded { func, max_threads, ref what } = *load_function(k, kd, what);
            let size = clamp(wanted, max_threads, gpu.max_grid);
            let wave = one_wave(gpu.multiprocessors, gpu.max_threads_per_multiprocessor, size.vector * size.workers);
            // Private copies of run-time size take at most half the free memory.
            let fit = match kd.private_arg {
                0 => u32::MAX,
                // SAFETY: `args` is the kernel's parameter array, with the slots
                // `private_arg` names (caller's guarantee).
                p => unsafe { private_area::gangs_that_fit(p, args, size, || cuda::mem_get_info().map_or(u64::MAX, |(free, _)| free as u64 / 2)) },
            };
            let size = cap_gangs(size, kd.flags, wave.min(fit));
            notify_launch(&name, &host_fn, &loc, size, req, || on_queue(q));
            let stream = queue::stream(q);
            let run = || {
                let _turn = link_slot_turn(kd.flags);
                let timer = profile::start_gpu(stream);
                // SAFETY: `args` is the kernel's parameter array (caller's guarantee); the
                // sizes are within the device and kernel limits. The driver copies the
                // argument values at the call, so the stub's slots may go away afterwards.
                unsafe { cuda::launch_kernel(func, size.grid(), (size.vector, size.workers), stream, args) }
                    .unwrap_or_else(|e| e.fail(what));
                profile::launched(timer, &loc, &host_fn, &name, size);
                if stream.is_none() {
                    return cuda::ctx_synchronize().unwrap_or_else(|e| e.fail(what));
                }
                queue::launched(q, || format!("'{name}' ({loc})"));
                if let Some(why) = waits_at_launch(kd.flags) {
                    // The slot is shared: the next launch may use it once this kernel is done.
                    queue::host_wait(q, &format!("the launch of kernel '{name}' ({loc}), which {why}"));
                }
            };
            // SAFETY: `args` is the kernel's parameter array (caller's guarantee), whose
            // `scratch_arg` slot the compiler made for the scratch pointer.
            // (and, for private copies of run-time size, its `private_arg` slots).
            unsafe {
                private_area::with_private_area(kd.private_arg, size, args, what, || {
                    scratch::with_scratch(kd.reduce_vars, kd.scratch_arg, size.total_gangs(), args, q, what, run)
                })
            }
        }
        Target::Emulator => {
            let Some(entry) = kd.emulator_entry else {
                diag::runtime_error(&format!("kernel '{name}' ({loc}) has no emulator copy"))
            };
            let size = clamp(wanted, EMULATOR_MAX_THREADS, [i32::MAX as u32, 65535, 65535]);
            let size = cap_gangs(size, kd.flags, EMULATOR_GANG_CAP);
            // The queue's bookkeeping.
            queue::stream(q);
            notify_launch(&name, &host_fn, &loc, size, req, || {
                format!("{} on the emulator (schedule {})", on_queue(q), emu::schedule().describe())
            });
            let kernel = EmuKernel { entry, size, flags: kd.flags, name: name.into_owned(), loc: loc.into_owned(), host_fn: host_fn.into_owned() };
            // SAFETY: the caller's guarantees (`args` is the kernel's parameter array, `kd`
            // the compiler's descriptor, whose `arg_sizes` give its slots' bytes).
            unsafe { launch_on_emulator(kernel, kd, args, q) }
        }
    }
}

/// A kernel launch on the emulator, everything it needs to run later.
struct EmuKernel {
    entry: emu::Entry,
    size: Size,
    flags: u64,
    name: String,
    loc: String,
    host_fn: String,
}

impl EmuKernel {
    /// Runs the kernel now, on `args`: after its queue's held operations, or (synchronous)
    /// every queue's, as on the GPU (emu_queue.rs).
    ///
    /// # Safety
    /// `args` is the kernel's argument array, its runtime slots filled.
    unsafe fn run(&self, args: *mut *mut c_void, q: Queue) {
        match q {
            Queue::Async(key) => crate::emu_queue::drain(key),
            _ => crate::emu_queue::drain_all(),
        }
        let _turn = link_slot_turn(self.flags);
        let timer = profile::start_host();
        // SAFETY: `entry` is the kernel's emulator copy and `args` its argument array
        // (caller's guarantee).
        unsafe { emu::launch(self.entry, self.size, args) }
            .unwrap_or_else(|e| diag::runtime_error(&format!("kernel '{}' ({}) on the emulator: {e}", self.name, self.loc)));
        profile::launched(timer, &self.loc, &self.host_fn, &self.name, self.size);
    }
}

/// Launches `kernel` on the emulator: on an async queue it is held with a copy of its
/// arguments until the queue is drained (emu_queue.rs), unless it sets a `declare link`
/// slot (the GPU waits for those too) or the descriptor does not give its slots' bytes;
/// otherwise it runs before the launch returns.
///
/// # Safety
/// As for [`launch`]; `kd.arg_sizes`, when not null, holds `kd.num_args` sizes, one per
/// slot of `args`.
unsafe fn launch_on_emulator(kernel: EmuKernel, kd: &AccrtKernel, args: *mut *mut c_void, q: Queue) {
    let what = format!(" for kernel '{}' ({})", kernel.name, kernel.loc);
    let size = kernel.size;
    let held = match q {
        Queue::Async(key) if waits_at_launch(kd.flags).is_none() && !kd.arg_sizes.is_null() => Some(key),
        _ => None,
    };
    // A held kernel runs on a copy of its arguments, the runtime's slots filled in the copy.
    let mut copy = held.map(|_| {
        // SAFETY: the descriptor's table holds a size for each of the `num_args` slots.
        let sizes = unsafe { std::slice::from_raw_parts(kd.arg_sizes, kd.num_args as usize) };
        // SAFETY: `args` holds a pointer to each slot, of the table's bytes (caller's
        // guarantee).
        unsafe { emu::args::ArgCopy::take(sizes, args) }
    });
    let run_args = copy.as_mut().map_or(args, |c| c.args());
    let launch = move || match (held, copy) {
        (Some(key), Some(mut copy)) => crate::emu_queue::hold(
            key,
            None,
            // SAFETY: the copy's slots hold the launch's argument values, the runtime's
            // filled (moving `copy` moves no value).
            Box::new(move || unsafe { kernel.run(copy.args(), q) }),
        ),
        // SAFETY: `args` is the kernel's parameter array (caller's guarantee).
        _ => unsafe { kernel.run(args, q) },
    };
    // SAFETY: `run_args` is the kernel's parameter array or its copy, whose `scratch_arg`
    // slot the compiler made for the scratch pointer (and, for private copies of run-time
    // size, its `private_arg` slots). A held kernel's scratch zeroing is held before it on
    // the queue, and both blocks are released once nothing is held (when_idle).
    unsafe {
        private_area::with_private_area(kd.private_arg, size, run_args, &what, || {
            scratch::with_scratch(kd.reduce_vars, kd.scratch_arg, size.total_gangs(), run_args, q, &what, launch)
        })
    }
}

/// " on async queue 3" for `ACC_NOTIFY`; nothing for the synchronous queue.
fn on_queue(q: Queue) -> String {
    match q {
        Queue::Sync => String::new(),
        q => format!(" on {}", queue::describe(q)),
    }
}

/// `ACC_NOTIFY`'s line for a launch; `on` (where it runs) is formatted only when printed,
/// so a launch without `ACC_NOTIFY` formats nothing.
fn notify_launch(name: &str, host_fn: &str, loc: &str, size: Size, req: Size, on: impl FnOnce() -> String) {
    if !notify::launches() {
        return;
    }
    let on = on();
    let grid = size.describe_grid();
    let mut msg = format!(
        "launch kernel {name} function={host_fn} at {loc} num_gangs={grid} num_workers={} vector_length={} grid={grid} block={}x{}{on}",
        size.workers, size.vector, size.vector, size.workers
    );
    msg += &notify::on_device();
    if size != req {
        msg += &format!(
            " (adjusted from num_gangs={} num_workers={} vector_length={})",
            req.describe_grid(), req.workers, req.vector
        );
    }
    notify::line(&msg);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_clauses_must_be_positive() {
        assert_eq!(size_clause_error("num_gangs", 0).as_deref(), Some("num_gangs(0): the value must be positive"));
        assert_eq!(size_clause_error("vector_length", -3).as_deref(), Some("vector_length(-3): the value must be positive"));
        assert_eq!(size_clause_error("num_workers", 1), None);
        assert_eq!(size_clause_error("num_gangs", i64::MAX), None);
        assert_eq!(size_clause_error("gang.static", -2).as_deref(), Some("gang(static: -2): the value must be positive"));
    }

    fn s(gangs: u32, workers: u32, vector: u32) -> Size {
        Size::new(gangs, workers, vector)
    }

    #[test]
    fn defaults() {
        assert_eq!(requested([0, 1, 1], 0, 0), s(1024, 1, 128));
        assert_eq!(requested([-1, 1, 1], -5, -7), s(1024, 1, 128));
        assert_eq!(requested([10, 1, 1], 4, 32), s(10, 4, 32));
        assert_eq!(requested([i64::MAX, 1, 1], 1, 1), s(u32::MAX, 1, 1));
        // Dimensions 2 and 3 the compiler could not size get a default of their own.
        let r = requested([3, 0, 5], 1, 1);
        assert_eq!((r.grid(), r.total_gangs()), ([3, DEFAULT_GANGS_YZ, 5], 3 * 5 * u64::from(DEFAULT_GANGS_YZ)));
    }

    #[test]
    fn no_clamp_within_limits() {
        assert_eq!(
            clamp(s(1024, 1, 128), 1024, [i32::MAX as u32, 65535, 65535]),
            s(1024, 1, 128)
        );
        assert_eq!(clamp(s(7, 8, 128), 1024, [100, 65535, 65535]), s(7, 8, 128));
    }

    #[test]
    fn async_launches_that_wait() {
        assert_eq!(waits_at_launch(0), None);
        // Gang reductions (CAP_GANGS is their flag) have a scratch buffer per queue.
        assert_eq!(waits_at_launch(ACCRT_KERNEL_WORKER_SYNC | ACCRT_KERNEL_CAP_GANGS), None);
        assert_eq!(waits_at_launch(ACCRT_KERNEL_LINK_SLOT), Some("sets the device slot of a 'declare link' global"));
    }

    #[test]
    fn workers_reduced_first() {
        assert_eq!(clamp(s(1, 16, 128), 1024, [1000, 65535, 65535]), s(1, 8, 128));
        assert_eq!(clamp(s(1, 16, 128), 256, [1000, 65535, 65535]), s(1, 2, 128));
        assert_eq!(clamp(s(1, 3, 100), 250, [1000, 65535, 65535]), s(1, 2, 100));
    }

    #[test]
    fn vector_reduced_to_multiple_of_32() {
        assert_eq!(clamp(s(1, 4, 2048), 1024, [1000, 65535, 65535]), s(1, 1, 1024));
        assert_eq!(clamp(s(1, 1, 1024), 200, [1000, 65535, 65535]), s(1, 1, 192));
        assert_eq!(clamp(s(1, 2, 64), 40, [1000, 65535, 65535]), s(1, 1, 32));
        // Below 32 threads available: take what there is.
        assert_eq!(clamp(s(1, 1, 64), 20, [1000, 65535, 65535]), s(1, 1, 20));
        // A small non-multiple-of-32 vector is just cut.
        assert_eq!(clamp(s(1, 1, 24), 20, [1000, 65535, 65535]), s(1, 1, 20));
    }

    #[test]
    fn worker_sync_kernels_get_one_warp_per_worker() {
        let f = ACCRT_KERNEL_WORKER_SYNC;
        assert_eq!(adjust_for_kernel(s(3, 4, 7), f), s(3, 4, 32));
        assert_eq!(adjust_for_kernel(s(3, 40, 33), f), s(3, 15, 32));
        // A longer vector becomes more workers of one warp each.
        assert_eq!(adjust_for_kernel(s(3, 1, 256), f), s(3, 8, 32));
        assert_eq!(adjust_for_kernel(s(3, 3, 40), f), s(3, 6, 32));
        assert_eq!(adjust_for_kernel(s(3, 40, 33), 0), s(3, 40, 33));
    }

    #[test]
    fn capped_gangs_fill_one_wave() {
        // H100: 132 SMs of 2048 threads.
        assert_eq!(one_wave(132, 2048, 128), 132 * 16);
        assert_eq!(one_wave(132, 2048, 1024), 132 * 2);
        assert_eq!(one_wave(132, 2048, 96), 132 * 21);
        // A block larger than a multiprocessor's limit still gets one per multiprocessor.
        assert_eq!(one_wave(132, 1536, 2048), 132);
        assert_eq!(one_wave(0, 0, 0), 1);
        // Blocks of one thread: at most 32 per multiprocessor are resident.
        assert_eq!(one_wave(132, 2048, 1), 132 * 32);
        let f = ACCRT_KERNEL_CAP_GANGS;
        assert_eq!(cap_gangs(s(1024, 1, 128), f, 264), s(264, 1, 128));
        assert_eq!(cap_gangs(s(100, 1, 128), f, 264), s(100, 1, 128));
        assert_eq!(cap_gangs(s(1024, 1, 128), f | ACCRT_KERNEL_WORKER_SYNC, EMULATOR_GANG_CAP), s(64, 1, 128));
        assert_eq!(cap_gangs(s(1024, 1, 128), ACCRT_KERNEL_WORKER_SYNC, 264), s(1024, 1, 128));
        assert_eq!(cap_gangs(s(1024, 1, 128), f, 0), s(1, 1, 128));
        // A grid of several dimensions is capped in all: dimension 1 first.
        let g = |x, y, z| Size { gangs_y: y, gangs_z: z, ..s(x, 1, 128) };
        assert_eq!(cap_gangs(g(10, 10, 10), f, 264), g(10, 10, 2));
        assert_eq!(cap_gangs(g(300, 7, 3), f, 264), g(264, 1, 1));
        assert_eq!(cap_gangs(g(5, 3, 1), f, 264), g(5, 3, 1));
        assert_eq!(g(5, 3, 2).describe_grid(), "5x3x2");
        assert_eq!(g(5, 3, 1).describe_grid(), "5x3");
        assert_eq!(g(5, 1, 1).describe_grid(), "5");
        // Each dimension is clamped to its own limit.
        assert_eq!(clamp(g(7, 70000, 9), 1024, [100, 65535, 8]), g(7, 65535, 8));
    }

    #[test]
    fn never_below_one() {
        assert_eq!(clamp(s(0, 0, 0), 0, [0, 65535, 65535]), s(1, 1, 1));
        assert_eq!(clamp(s(5, 1, 1), 1, [1, 65535, 65535]), s(1, 1, 1));
    }

    #[test]
    fn grid_clamped() {
        assert_eq!(
            clamp(s(u32::MAX, 1, 128), 1024, [i32::MAX as u32, 65535, 65535]),
            s(i32::MAX as u32, 1, 128)
        );
        assert_eq!(clamp(s(100_000, 1, 128), 1024, [65535, 65535, 65535]), s(65535, 1, 128));
    }
}
