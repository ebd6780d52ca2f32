//! Device selection: whether compute regions run on the GPU, on the emulator or on the host
//! (`__accrt_use_device`).
//!
//! Decided once per process and cached: `ACC_DEVICE_TYPE` (case-insensitive) `host` or
//! `acc_device_host` → host; `nvidia`/`acc_device_nvidia` → the GPU is required (error and
//! exit 1 if none is usable); `emulator` → the device emulator (emu/): kernels run on the
//! host with the GPU's execution model, device memory is separate host memory;
//! `default`/`acc_device_default`/empty/unset → the GPU when libcuda loads, cuInit succeeds
//! and a device exists, else the host. `ACC_DEVICE_NUM`
//! (default 0) picks the device. Owns the primary context and makes it current on each
//! host thread that uses the device.

use std::cell::Cell;
use std::sync::OnceLock;

use crate::cuda::{self, Handle};
use crate::diag;

/// The selected GPU.
#[derive(Debug)]
pub struct Gpu {
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

fn select() -> Option<Target> {
    let raw = std::env::var("ACC_DEVICE_TYPE").ok();
    let request = parse_device_type(raw.as_deref()).unwrap_or_else(|| {
        diag::runtime_error(&format!(
            "unknown ACC_DEVICE_TYPE '{}' (expected 'host', 'nvidia' or 'emulator')",
            raw.as_deref().unwrap_or("")
        ))
    });
    let required = match request {
        Request::Host => return None,
        Request::Default => false,
        Request::Nvidia => true,
        Request::Emulator => return Some(Target::Emulator),
    };
    let unusable = |why: String| -> Option<Target> {
        if required {
            diag::runtime_error(&format!(
                "ACC_DEVICE_TYPE=nvidia requested but no GPU is usable: {why}"
            ))
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
    let num = match std::env::var("ACC_DEVICE_NUM") {
        Err(_) => 0,
        Ok(v) => match v.trim().parse::<i32>() {
            Ok(n) if (0..count).contains(&n) => n,
            _ => diag::runtime_error(&format!(
                "ACC_DEVICE_NUM={v} is not a valid device number (this machine has {count} device(s): 0..{})",
                count - 1
            )),
        },
    };
    let device = cuda::device_get(num).unwrap_or_else(|e| e.fail(""));
    let context = cuda::primary_ctx_retain(device).unwrap_or_else(|e| e.fail(""));
    let max_grid_x = cuda::max_grid_dim_x(device).unwrap_or_else(|e| e.fail(""));
    let multiprocessors = cuda::multiprocessor_count(device).unwrap_or_else(|e| e.fail(""));
    let max_threads_per_multiprocessor = cuda::max_threads_per_multiprocessor(device).unwrap_or_else(|e| e.fail(""));
    Some(Target::Gpu(Gpu {
        device,
        context,
        max_grid_x: max_grid_x.max(1) as u32,
        multiprocessors: multiprocessors.max(1) as u32,
        max_threads_per_multiprocessor: max_threads_per_multiprocessor.max(1) as u32,
    }))
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
}
