//! The OpenACC 3.3 runtime library routines of chapter 3 (`openacc.h`), for C programs.
//!
//! Each routine is a thin `#[no_mangle] extern "C"` wrapper that converts its C arguments
//! and runs inside [`diag::guard`]; the work is done by safe Rust in the modules it calls:
//! [`device`] (device management, `acc_on_device`, properties), [`memory`] (the data and
//! memory routines, over `data`, `mem` and the present table) and [`sync`] (the async
//! routines, over `queue`, which has no real queues yet: everything completes at once).
//!
//! Errors in a routine print `accc runtime: error: <routine>: ...` and exit with status 1
//! (there is no source position to name). With regions running on the host (no device, or
//! `ACC_DEVICE_TYPE=host`) the memory routines behave as for a device that shares the
//! host's memory: device addresses are host addresses, everything is present, copies are
//! `memmove`, `acc_malloc` is `malloc`.
//!
//! Not here: the routines' device-side versions (`acc_on_device` in a compute region is the
//! host function), multiple devices, the profiling interface (chapter 5).

pub mod device;
pub mod memory;
pub mod sync;

use crate::device::Request;
use crate::diag;

/// `acc_device_t` (openacc.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevType {
    Current,
    None,
    Default,
    Host,
    NotHost,
    Nvidia,
}

impl DevType {
    /// The enumerator of a C value; `None` for a value openacc.h does not define.
    pub fn from_c(v: i32) -> Option<DevType> {
        Some(match v {
            -1 => DevType::Current,
            0 => DevType::None,
            1 => DevType::Default,
            2 => DevType::Host,
            3 => DevType::NotHost,
            4 => DevType::Nvidia,
            _ => return None,
        })
    }

    pub fn to_c(self) -> i32 {
        match self {
            DevType::Current => -1,
            DevType::None => 0,
            DevType::Default => 1,
            DevType::Host => 2,
            DevType::NotHost => 3,
            DevType::Nvidia => 4,
        }
    }

    /// What selecting this type asks the device selection for, given the environment's
    /// request `env`: an NVIDIA or non-host device is the emulator when the environment
    /// asks for it (it stands in for the GPU), and `acc_device_default` is the
    /// environment's choice. `None` for `acc_device_current` (keep) and `acc_device_none`.
    pub fn request(self, env: Request) -> Option<Request> {
        match self {
            DevType::Host => Some(Request::Host),
            DevType::Nvidia | DevType::NotHost if env == Request::Emulator => Some(Request::Emulator),
            DevType::Nvidia | DevType::NotHost => Some(Request::Nvidia),
            DevType::Default => Some(env),
            DevType::Current | DevType::None => None,
        }
    }
}

/// Decodes a routine's `acc_device_t` argument; an undefined value is an error.
fn dev_type(v: i32, routine: &str) -> DevType {
    DevType::from_c(v).unwrap_or_else(|| diag::runtime_error(&format!("{routine}: {v} is not an acc_device_t value")))
}

/// Reports an error of `routine` and exits.
fn fail(routine: &str, msg: &str) -> ! {
    diag::runtime_error(&format!("{routine}: {msg}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_types() {
        for v in -1..=4 {
            assert_eq!(DevType::from_c(v).map(DevType::to_c), Some(v));
        }
        assert_eq!(DevType::from_c(5), None);
        assert_eq!(DevType::from_c(-2), None);
    }

    #[test]
    fn requests_follow_the_environment() {
        use Request::*;
        assert_eq!(DevType::Host.request(Emulator), Some(Host));
        assert_eq!(DevType::Nvidia.request(Emulator), Some(Emulator));
        assert_eq!(DevType::NotHost.request(Emulator), Some(Emulator));
        assert_eq!(DevType::Nvidia.request(Host), Some(Nvidia));
        assert_eq!(DevType::NotHost.request(Default), Some(Nvidia));
        assert_eq!(DevType::Default.request(Host), Some(Host));
        assert_eq!(DevType::Default.request(Default), Some(Default));
        assert_eq!(DevType::Current.request(Default), None);
        assert_eq!(DevType::None.request(Default), None);
    }
}
