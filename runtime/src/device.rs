//! Device selection: whether compute regions run on the GPU, on the emulator or on the host
//! (`__accrt_use_device`).
//!
//! Decided once per process, at the first operation that needs it, and cached: the program's
//! own choice (`acc_set_device_type`, `acc_set_device_num`, `acc_init`: [`choose`]) when it
//! made one before that, else the environment. `ACC_DEVICE_TYPE` (case-insensitive) `host`
//! or `acc_device_host` → host; `nvidia`/`acc_device_nvidia` → the GPU is required (error
//! and exit 1 if none is usable); `emulator` → the device emulator (emu/): kernels run on
//! the host with the GPU's execution model, device memory is separate host memory;
//! `default`/`acc_device_default`/empty/unset → the GPU when libcuda loads, cuInit succeeds
//! and a device exists, else the host. `ACC_DEVICE_NUM` (default 0) picks the device.
//! Owns the primary context and makes it current on each host thread that uses the device.
//!
//! Not here: one device per process is all there is (a choice that would change the
//! selected device afterwards is refused, [`choose`]); no device is ever released.

use std::cell::Cell;
use std::sync::{Mutex, OnceLock};

use crate::cuda::{self, Handle};
use crate::diag;

/// The selected GPU.
#[derive(Debug)]
pub struct Gpu {
    /// The device number (`ACC_DEVICE_NUM`, `acc_set_device_num`).
    pub num: i32,
    pub device: cuda::Device,
    pub context: Handle,
    pub max_grid_x: u32,
    /// Multiprocessors, and threads each can hold at once (one wave of gangs, launch.rs).
    pub multiprocessors: u32,
    pub max_threads_per_multiprocessor: u32,
}

/// Where compute regions and device data go.
#[derive(Debug)]
pub enum Target {
    Gpu(Gpu),
    Emulator,
}

static TARGET: OnceLock<Option<Target>> = OnceLock::new();

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

/// The device in use (for a GPU, with its context current on this thread); `None` when
/// regions run on the host.
pub fn target() -> Option<&'static Target> {
    let t = TARGET.get_or_init(select).as_ref()?;
    if let Target::Gpu(g) = t {
        make_current(g);
    }
    Some(t)
}

/// The target if it has been selected already (selects nothing).
pub fn selected() -> Option<Option<&'static Target>> {
    TARGET.get().map(Option::as_ref)
}

/// The GPU in use, with its context current on this thread; `None` on the host or the
/// emulator.
pub fn gpu() -> Option<&'static Gpu> {
    match target()? {
        Target::Gpu(g) => Some(g),
        Target::Emulator => None,
    }
}

fn make_current(gpu: &Gpu) {
    thread_local!(static CURRENT: Cell<bool> = const { Cell::new(false) });
    if !CURRENT.with(Cell::get) {
        cuda::ctx_set_current(gpu.context).unwrap_or_else(|e| e.fail(""));
        CURRENT.with(|c| c.set(true));
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

/// Whether the selected target is what `request` asks for (`Default` accepts any).
pub fn satisfies(target: Option<&Target>, request: Request) -> bool {
    matches!(
        (request, target),
        (Request::Default, _) | (Request::Host, None) | (Request::Emulator, Some(Target::Emulator)) | (Request::Nvidia, Some(Target::Gpu(_)))
    )
}

/// The program's choice of device type and/or number (`None`: keep). Before the device is
/// selected it replaces the environment's; afterwards a choice that the selected device does
/// not satisfy is an `Err` saying why (one device per process).
pub fn choose(request: Option<Request>, num: Option<i32>) -> Result<(), String> {
    let mut c = CHOICE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(target) = TARGET.get() else {
        c.request = request.or(c.request);
        c.num = num.or(c.num);
        return Ok(());
    };
    let target = target.as_ref();
    if let Some(r) = request.filter(|r| !satisfies(target, *r)) {
        return Err(format!(
            "the device type cannot change to {} once the runtime runs regions on {} \
             (choose it before the first data or compute operation)",
            match r {
                Request::Host => "the host",
                Request::Emulator => "the device emulator",
                _ => "an NVIDIA GPU",
            },
            describe(target)
        ));
    }
    let current = match target {
        Some(Target::Gpu(g)) => g.num,
        _ => 0,
    };
    match num {
        Some(n) if n != current => Err(format!(
            "the device number cannot change to {n} once the runtime uses device {current} \
             (one device per process)"
        )),
        _ => Ok(()),
    }
}

fn describe(target: Option<&Target>) -> &'static str {
    match target {
        None => "the host",
        Some(Target::Emulator) => "the device emulator",
        Some(Target::Gpu(_)) => "the GPU",
    }
}

/// The request in force: the program's choice, else the environment's.
pub fn request() -> Request {
    choice().request.unwrap_or_else(env_request)
}

/// The device number the selection uses or used (0 for the host and the emulator).
pub fn device_num() -> i32 {
    match TARGET.get() {
        Some(Some(Target::Gpu(g))) => g.num,
        Some(_) => 0,
        None => choice().num.unwrap_or(0),
    }
}

/// How many CUDA devices this machine has (0 when the driver cannot be used); does not
/// select one.
pub fn gpu_count() -> i32 {
    if cuda::load().is_err() || cuda::init().is_err() {
        return 0;
    }
    cuda::device_count().unwrap_or(0).max(0)
}

fn select() -> Option<Target> {
    let chosen = choice();
    let from_program = chosen.request.is_some();
    let request = chosen.request.unwrap_or_else(env_request);
    let required = match request {
        Request::Host => return None,
        Request::Default => false,
        Request::Nvidia => true,
        Request::Emulator => return Some(Target::Emulator),
    };
    let unusable = |why: String| -> Option<Target> {
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
        Ok(n) => n,
        Err(e) => return unusable(format!("cuDeviceGetCount failed: {}", e.describe())),
    };
    if count <= 0 {
        return unusable("no CUDA device found".into());
    }
    let num = match chosen.num {
        Some(n) if (0..count).contains(&n) => n,
        Some(n) => diag::runtime_error(&format!(
            "acc_set_device_num({n}): not a valid device number (this machine has {count} device(s): 0..{})",
            count - 1
        )),
        None => env_device_num(count),
    };
    let device = cuda::device_get(num).unwrap_or_else(|e| e.fail(""));
    let context = cuda::primary_ctx_retain(device).unwrap_or_else(|e| e.fail(""));
    let max_grid_x = cuda::max_grid_dim_x(device).unwrap_or_else(|e| e.fail(""));
    let multiprocessors = cuda::multiprocessor_count(device).unwrap_or_else(|e| e.fail(""));
    let max_threads_per_multiprocessor = cuda::max_threads_per_multiprocessor(device).unwrap_or_else(|e| e.fail(""));
    Some(Target::Gpu(Gpu {
        num,
        device,
        context,
        max_grid_x: max_grid_x.max(1) as u32,
        multiprocessors: multiprocessors.max(1) as u32,
        max_threads_per_multiprocessor: max_threads_per_multiprocessor.max(1) as u32,
    }))
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
        let emu = Target::Emulator;
        assert!(satisfies(None, Request::Host));
        assert!(satisfies(None, Request::Default));
        assert!(!satisfies(None, Request::Nvidia));
        assert!(!satisfies(None, Request::Emulator));
        assert!(satisfies(Some(&emu), Request::Emulator));
        assert!(satisfies(Some(&emu), Request::Default));
        assert!(!satisfies(Some(&emu), Request::Host));
        assert!(!satisfies(Some(&emu), Request::Nvidia));
    }
}
