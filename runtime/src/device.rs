//! Device selection: whether compute regions run on the GPU, on the emulator or on the host
//! (`__accrt_use_device`), and which device of that type each host thread uses.
//!
//! The device *type* is decided once per process, at the first operation that needs it, and
//! cached: the program's own choice (`acc_set_device_type`, `acc_init`: [`choose`]) when it
//! made one before that, else the environment. `ACC_DEVICE_TYPE` (case-insensitive) `host`
//! or `acc_device_host` → host; `nvidia`/`acc_device_nvidia` → the GPU is required (error
//! and exit 1 if none is usable); `emulator` → the device emulator (emu/): kernels run on
//! the host with the GPU's execution model, device memory is separate host memory
//! (`ACCC_EMU_DEVICES=n` emulates n devices, default 1); `default`/`acc_device_default`/
//! empty/unset → the GPU when libcuda loads, cuInit succeeds and a device exists, else the
//! host.
//!
//! The device *number* is per host thread (OpenACC 3.3 §2.3: acc-current-device-num-var):
//! a thread uses the number it last gave `acc_set_device_num`, else the process default
//! (`ACC_DEVICE_NUM`, default 0, or a number the program set before the type was decided).
//! Each device is opened at its first use ([`target`]); everything that belongs to a device
//! (present table, queues, modules, scratch, staging buffers) is kept per device
//! ([`PerDevice`], indexed by [`slot`]). Owns the primary contexts and makes the current
//! device's context current on each host thread that uses it.
//!
//! Not here: no device is ever released; a thread cannot use two device types.

use std::cell::Cell;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::cuda::{self, Handle};
use crate::diag;

/// Device numbers a process can use (per-device state is a fixed array of this many slots).
pub const MAX_DEVICES: usize = 64;

/// The selected GPU.
#[derive(Debug)]
pub struct Gpu {
    /// The device number (`ACC_DEVICE_NUM`, `acc_set_device_num`).
    pub num: i32,
    pub device: cuda::Device,
    pub context: Handle,
    /// Grid limits in x, y and z (gang dimensions 1, 2, 3).
    pub max_grid: [u32; 3],
    /// Multiprocessors, and threads each can hold at once (one wave of gangs, launch.rs).
    pub multiprocessors: u32,
    pub max_threads_per_multiprocessor: u32,
    /// Compute capability as an SM number (90 for 9.0): which of an image's cubins can run.
    pub sm: u32,
}

/// Where compute regions and device data go.
#[derive(Debug)]
pub enum Target {
    Gpu(Gpu),
    Emulator,
}

/// The device type in use, with how many devices of it there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gpu { count: i32 },
    Emulator { count: i32 },
}

impl Kind {
    pub fn count(self) -> i32 {
        match self {
            Kind::Gpu { count } | Kind::Emulator { count } => count,
        }
    }
}

/// The process's device type (`None`: the host), decided once.
static KIND: OnceLock<Option<Kind>> = OnceLock::new();
/// The devices opened so far, by number.
static DEVICES: [OnceLock<Target>; MAX_DEVICES] = [const { OnceLock::new() }; MAX_DEVICES];
/// The device number of threads that never chose one (fixed when the type is decided).
static DEFAULT_NUM: AtomicI32 = AtomicI32::new(0);

thread_local! {
    /// The number this thread gave `acc_set_device_num` (-1: none, the default).
    static THREAD_NUM: Cell<i32> = const { Cell::new(-1) };
    /// The device whose context is current on this thread (-1: none yet).
    static CURRENT_CONTEXT: Cell<i32> = const { Cell::new(-1) };
}
/// What `ACC_DEVICE_TYPE` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Host,
    /// Use the GPU if there is one.
    Default,
    /// The GPU must be used.
    Nvidia,
    /// The device emulator.
    Emulator,
}

/// Parse `ACC_DEVICE_TYPE`; `None` for an unknown value.
pub fn parse_device_type(value: Option<&str>) -> Option<Request> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "default" | "acc_device_default") => Some(Request::Default),
        Some("host" | "acc_device_host") => Some(Request::Host),
        Some("nvidia" | "acc_device_nvidia") => Some(Request::Nvidia),
        Some("emulator") => Some(Request::Emulator),
        Some(_) => None,
    }
}

/// The calling thread's device (for a GPU, with its context made current on this thread),
/// opened at its first use; `None` when regions run on the host.
pub fn target() -> Option<&'static Target> {
    let kind = KIND.get_or_init(select).as_ref()?;
    let num = thread_num();
    let t = DEVICES[num as usize].get_or_init(|| open(*kind, num));
    if let Target::Gpu(g) = t {
        make_current(g);
    }
    Some(t)
}

/// The device type if it has been decided already (decides nothing).
pub fn kind() -> Option<Option<Kind>> {
    KIND.get().copied()
}

/// The calling thread's device if the type has been decided and the device opened
/// (selects and opens nothing).
pub fn selected() -> Option<Option<&'static Target>> {
    let kind = KIND.get()?;
    Some(kind.and_then(|_| DEVICES[thread_num() as usize].get()))
}

/// The calling thread's device number (its last `acc_set_device_num`, else the default).
fn thread_num() -> i32 {
    match THREAD_NUM.with(Cell::get) {
        -1 => DEFAULT_NUM.load(Ordering::Relaxed),
        n => n,
    }
}

/// The index of the calling thread's device in [`PerDevice`] state (0 before the device
/// type is decided, and on the host).
pub fn slot() -> usize {
    match KIND.get() {
        Some(Some(_)) => thread_num() as usize,
        _ => 0,
    }
}

/// Runs `f` with device `num` (a valid number of the type in use) as the calling thread's
/// device, then restores the thread's own (for the `_device` routines: `acc_wait_device`).
pub fn with_device<R>(num: i32, f: impl FnOnce() -> R) -> R {
    let saved = THREAD_NUM.with(|c| c.replace(num));
    let r = f();
    THREAD_NUM.with(|c| c.set(saved));
    if let Some(Target::Gpu(g)) = selected().flatten() {
        make_current(g);
    }
    r
}

/// Runs `f` once for each device opened so far, as the calling thread's device.
pub fn for_each_opened(mut f: impl FnMut(&'static Target)) {
    for (n, d) in DEVICES.iter().enumerate() {
        if let Some(t) = d.get() {
            with_device(n as i32, || {
                if let Target::Gpu(g) = t {
                    make_current(g);
                }
                f(t)
            });
        }
    }
}

/// State kept once per device (a present table, queues, ...): [`PerDevice::get`] gives the
/// calling thread's device's, made by `init` at its first use.
pub struct PerDevice<T> {
    slots: [OnceLock<T>; MAX_DEVICES],
    init: fn() -> T,
}

impl<T> PerDevice<T> {
    pub const fn new(init: fn() -> T) -> PerDevice<T> {
        PerDevice { slots: [const { OnceLock::new() }; MAX_DEVICES], init }
    }

    /// The calling thread's device's state.
    pub fn get(&self) -> &T {
        self.slots[slot()].get_or_init(self.init)
    }
}

/// The GPU in use, with its context current on this thread; `None` on the host or the
/// emulator.
pub fn gpu() -> Option<&'static Gpu> {
    match target()? {
        Target::Gpu(g) => Some(g),
        Target::Emulator => None,
    }
}

/// GPU `num` (a valid device number), opened if it was not yet; `None` on the host or the
/// emulator.
pub fn gpu_of(num: i32) -> Option<&'static Gpu> {
    with_device(num, gpu)
}

fn make_current(gpu: &Gpu) {
    if CURRENT_CONTEXT.with(Cell::get) != gpu.num {
        cuda::ctx_set_current(gpu.context).unwrap_or_else(|e| e.fail(""));
        CURRENT_CONTEXT.with(|c| c.set(gpu.num));
    }
}

/// What the program chose before the device was selected; `None`: the environment's.
#[derive(Debug, Clone, Copy, Default)]
struct Choice {
    request: Option<Request>,
    num: Option<i32>,
}

static CHOICE: Mutex<Choice> = Mutex::new(Choice { request: None, num: None });

fn choice() -> Choice {
    *CHOICE.lock().unwrap_or_else(|e| e.into_inner())
}

/// What `ACC_DEVICE_TYPE` asks for; an unknown value is an error.
pub fn env_request() -> Request {
    let raw = std::env::var("ACC_DEVICE_TYPE").ok();
    parse_device_type(raw.as_deref()).unwrap_or_else(|| {
        diag::runtime_error(&format!(
            "unknown ACC_DEVICE_TYPE '{}' (expected 'host', 'nvidia' or 'emulator')",
            raw.as_deref().unwrap_or("")
        ))
    })
}

/// Whether device type `kind` (`None`: the host) is what `request` asks for (`Default`
/// accepts any).
pub fn satisfies(kind: Option<Kind>, request: Request) -> bool {
    matches!(
        (request, kind),
        (Request::Default, _)
            | (Request::Host, None)
            | (Request::Emulator, Some(Kind::Emulator { .. }))
            | (Request::Nvidia, Some(Kind::Gpu { .. }))
    )
}

/// The program's choice of device type and/or number (`None`: keep). Before the type is
/// decided it replaces the environment's (the number becomes every thread's default);
/// afterwards a type that the one in use does not satisfy is an `Err` saying why, and a
/// number (checked by the caller) becomes the calling thread's device.
pub fn choose(request: Option<Request>, num: Option<i32>) -> Result<(), String> {
    let mut c = CHOICE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(kind) = KIND.get() else {
        c.request = request.or(c.request);
        c.num = num.or(c.num);
        return Ok(());
    };
    if let Some(r) = request.filter(|r| !satisfies(*kind, *r)) {
        return Err(format!(
            "the device type cannot change to {} once the runtime runs regions on {} \
             (choose it before the first data or compute operation)",
            match r {
                Request::Host => "the host",
                Request::Emulator => "the device emulator",
                _ => "an NVIDIA GPU",
            },
            describe(*kind)
        ));
    }
    match (num, kind) {
        (Some(n), Some(k)) if !(0..k.count()).contains(&n) => {
            Err(format!("{n} is not a valid device number (there are {} device(s) of this type)", k.count()))
        }
        (Some(n), Some(_)) => {
            THREAD_NUM.with(|t| t.set(n));
            Ok(())
        }
        _ => Ok(()),
    }
}

fn describe(kind: Option<Kind>) -> &'static str {
    match kind {
        None => "the host",
        Some(Kind::Emulator { .. }) => "the device emulator",
        Some(Kind::Gpu { .. }) => "the GPU",
    }
}

/// The request in force: the program's choice, else the environment's.
pub fn request() -> Request {
    choice().request.unwrap_or_else(env_request)
}

/// The calling thread's device number (0 for the host); before the type is decided, the
/// number the program chose, else 0.
pub fn device_num() -> i32 {
    match KIND.get() {
        Some(Some(_)) => thread_num(),
        Some(None) => 0,
        None => choice().num.unwrap_or(0),
    }
}

/// How many devices of the type in use there are, if it has been decided (the host: 1).
pub fn count_in_use() -> Option<i32> {
    KIND.get().map(|k| k.map_or(1, Kind::count))
}

/// How many CUDA devices this machine has (0 when the driver cannot be used); does not
/// select one.
pub fn gpu_count() -> i32 {
    if cuda::load().is_err() || cuda::init().is_err() {
        return 0;
    }
    cuda::device_count().unwrap_or(0).max(0)
}

/// Decides the device type (and the default device number) for the whole process.
fn select() -> Option<Kind> {
    let chosen = choice();
    let from_program = chosen.request.is_some();
    let request = chosen.request.unwrap_or_else(env_request);
    let required = match request {
        Request::Host => return None,
        Request::Default => false,
        Request::Nvidia => true,
        Request::Emulator => {
            let count = emulated_devices();
            DEFAULT_NUM.store(default_num(chosen.num, count), Ordering::Relaxed);
            return Some(Kind::Emulator { count });
        }
    };
    let unusable = |why: String| -> Option<Kind> {
        if required {
            let by = if from_program { "acc_device_nvidia was requested" } else { "ACC_DEVICE_TYPE=nvidia requested" };
            diag::runtime_error(&format!("{by} but no GPU is usable: {why}"))
        }
        None
    };
    if let Err(why) = cuda::load() {
        return unusable(why);
    }
    if let Err(e) = cuda::init() {
        return unusable(format!("cuInit failed: {}", e.describe()));
    }
    let count = match cuda::device_count() {
        Ok(n) => n.min(MAX_DEVICES as i32),
        Err(e) => return unusable(format!("cuDeviceGetCount failed: {}", e.describe())),
    };
    if count <= 0 {
        return unusable("no CUDA device found".into());
    }
    DEFAULT_NUM.store(default_num(chosen.num, count), Ordering::Relaxed);
    Some(Kind::Gpu { count })
}

/// The default device number: the program's choice, else `ACC_DEVICE_NUM`, checked against
/// the `count` devices there are.
fn default_num(chosen: Option<i32>, count: i32) -> i32 {
    match chosen {
        Some(n) if (0..count).contains(&n) => n,
        Some(n) => diag::runtime_error(&format!(
            "acc_set_device_num({n}): not a valid device number (this machine has {count} device(s): 0..{})",
            count - 1
        )),
        None => env_device_num(count),
    }
}

/// `ACCC_EMU_DEVICES`: how many devices the emulator has (default 1).
pub fn emulated_devices() -> i32 {
    match std::env::var("ACCC_EMU_DEVICES") {
        Err(_) => 1,
        Ok(v) => match v.trim().parse::<i32>() {
            Ok(n) if (1..=MAX_DEVICES as i32).contains(&n) => n,
            _ => diag::runtime_error(&format!("ACCC_EMU_DEVICES={v}: expected a number of devices from 1 to {MAX_DEVICES}")),
        },
    }
}

/// Opens device `num` of type `kind`: the GPU's primary context and limits.
fn open(kind: Kind, num: i32) -> Target {
    if let Kind::Emulator { .. } = kind {
        return Target::Emulator;
    }
    let device = cuda::device_get(num).unwrap_or_else(|e| e.fail(""));
    let context = cuda::primary_ctx_retain(device).unwrap_or_else(|e| e.fail(""));
    let max_grid = cuda::max_grid_dims(device).unwrap_or_else(|e| e.fail(""));
    let multiprocessors = cuda::multiprocessor_count(device).unwrap_or_else(|e| e.fail(""));
    let max_threads_per_multiprocessor = cuda::max_threads_per_multiprocessor(device).unwrap_or_else(|e| e.fail(""));
    let sm = cuda::sm_number(device).unwrap_or_else(|e| e.fail(""));
    if let Some(bytes) = heap_bytes() {
        cuda::ctx_set_current(context).unwrap_or_else(|e| e.fail(""));
        CURRENT_CONTEXT.with(|c| c.set(num));
        cuda::ctx_set_malloc_heap_size(bytes).unwrap_or_else(|e| e.fail(" (ACCC_DEVICE_HEAP_BYTES)"));
    }
    Target::Gpu(Gpu {
        num,
        device,
        context,
        max_grid: max_grid.map(|g| g.max(1) as u32),
        multiprocessors: multiprocessors.max(1) as u32,
        max_threads_per_multiprocessor: max_threads_per_multiprocessor.max(1) as u32,
        sm,
    })
}

/// `ACCC_DEVICE_HEAP_BYTES`: the size of the heap `malloc` in device code allocates from
/// (the driver's default, 8 MiB, when unset); not a number of bytes is an error.
fn heap_bytes() -> Option<usize> {
    let raw = std::env::var("ACCC_DEVICE_HEAP_BYTES").ok()?;
    Some(raw.trim().parse().unwrap_or_else(|_| diag::runtime_error(&format!("ACCC_DEVICE_HEAP_BYTES '{raw}' is not a number of bytes"))))
}

/// The device heap a kernel flagged `ACCRT_KERNEL_DEVICE_HEAP` gets unless
/// `ACCC_DEVICE_HEAP_BYTES` says otherwise: private arrays that a gang's or a worker's lanes
/// share and shared memory cannot hold (sized in the region, or over its budget) are
/// allocated there, one per gang (or worker) in flight, where the driver's default of 8 MiB
/// would run out with a few KiB per gang.
pub const HEAP_FOR_ARRAYS: usize = 1 << 30;

/// Before the first launch on the calling thread's GPU of a kernel that allocates arrays
/// from the device heap: the heap raised to [`HEAP_FOR_ARRAYS`] (when no
/// `ACCC_DEVICE_HEAP_BYTES` set it and it is smaller). The driver refuses a new size once a
/// kernel that calls `malloc` has run (the program's own device code may have): the heap
/// then stays as it is. Returns the heap's size, for messages.
pub fn heap_for_arrays() -> usize {
    static DONE: PerDevice<usize> = PerDevice::new(|| {
        let now = cuda::ctx_malloc_heap_size().unwrap_or(0);
        if heap_bytes().is_some() || now >= HEAP_FOR_ARRAYS {
            return now;
        }
        match cuda::ctx_set_malloc_heap_size(HEAP_FOR_ARRAYS) {
            Ok(()) => HEAP_FOR_ARRAYS,
            Err(_) => now,
        }
    });
    *DONE.get()
}

/// `ACC_DEVICE_NUM` (default 0) checked against the `count` devices there are.
fn env_device_num(count: i32) -> i32 {
    match std::env::var("ACC_DEVICE_NUM") {
        Err(_) => 0,
        Ok(v) => match v.trim().parse::<i32>() {
            Ok(n) if (0..count).contains(&n) => n,
            _ => diag::runtime_error(&format!(
                "ACC_DEVICE_NUM={v} is not a valid device number (this machine has {count} device(s): 0..{})",
                count - 1
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_type() {
        assert_eq!(parse_device_type(None), Some(Request::Default));
        assert_eq!(parse_device_type(Some("")), Some(Request::Default));
        assert_eq!(parse_device_type(Some("DEFAULT")), Some(Request::Default));
        assert_eq!(parse_device_type(Some("Host")), Some(Request::Host));
        assert_eq!(
            parse_device_type(Some("acc_device_host")),
            Some(Request::Host)
        );
        assert_eq!(parse_device_type(Some("NVIDIA")), Some(Request::Nvidia));
        assert_eq!(
            parse_device_type(Some("acc_device_nvidia")),
            Some(Request::Nvidia)
        );
        assert_eq!(parse_device_type(Some("Emulator")), Some(Request::Emulator));
        assert_eq!(parse_device_type(Some("radeon")), None);
    }

    #[test]
    fn requests_and_targets() {
        let emu = Some(Kind::Emulator { count: 1 });
        let gpu = Some(Kind::Gpu { count: 2 });
        assert!(satisfies(gpu, Request::Nvidia));
        assert!(!satisfies(gpu, Request::Emulator));
        assert!(satisfies(None, Request::Host));
        assert!(satisfies(None, Request::Default));
        assert!(!satisfies(None, Request::Nvidia));
        assert!(!satisfies(None, Request::Emulator));
        assert!(satisfies(emu, Request::Emulator));
        assert!(satisfies(emu, Request::Default));
        assert!(!satisfies(emu, Request::Host));
        assert!(!satisfies(emu, Request::Nvidia));
    }
}
