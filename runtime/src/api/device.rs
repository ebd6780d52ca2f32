//! Device management (OpenACC 3.3 §3.2.1-3.2.8) and `acc_on_device` (§3.2.18).
//!
//! Two device types exist: `acc_device_host` (device 0: the host itself) and
//! `acc_device_nvidia` (also `acc_device_not_host`): the GPUs, or under
//! `ACC_DEVICE_TYPE=emulator` the emulated devices (`ACCC_EMU_DEVICES`, default 1). The
//! program may choose the type (`acc_set_device_type`, `acc_init`) until the runtime decides
//! it (device.rs), and the number at any time: `acc_set_device_num` sets the calling host
//! thread's device (before the type is decided, every thread's default).
//! `acc_shutdown` waits for the device's queues and keeps everything else (memory, context)
//! until the program exits. Properties: the CUDA driver's for a GPU (free memory once that
//! GPU is in use, else 0), the host's memory (`/proc/meminfo`) and processor
//! (`/proc/cpuinfo`) for the host and the emulator.
//!
//! Not here: `acc_on_device` inside compute regions (the routine here answers for host
//! code).

use std::ffi::{c_char, CStr, CString};
use std::sync::Mutex;

use super::{fail, DevType};
use crate::device::{self, Request};
use crate::diag::{self, guard};
use crate::{cuda, mem, queue};

/// The device type in use (selecting the device if that has not happened yet): the emulator
/// is the NVIDIA device.
fn current_type() -> DevType {
    match device::target() {
        None => DevType::Host,
        Some(_) => DevType::Nvidia,
    }
}

/// `acc_device_current` as the type in use; every other type as is.
fn concrete(t: DevType) -> DevType {
    if t == DevType::Current {
        current_type()
    } else {
        t
    }
}

/// The device selection `t` asks for (`None` for `acc_device_none`).
fn request_of(t: DevType) -> Option<Request> {
    concrete(t).request(device::env_request())
}

/// How many devices of type `t` there are.
pub fn num_devices(t: DevType) -> i32 {
    match request_of(t) {
        None => 0,
        Some(Request::Host) => 1,
        Some(Request::Emulator) => device::emulated_devices(),
        Some(Request::Nvidia) => device::gpu_count(),
        // The default is the GPUs when there are any, else the host.
        Some(Request::Default) => device::gpu_count().max(1),
    }
}

fn set_device_type(t: DevType, routine: &str) {
    // `acc_device_default` once the type is decided: the type in use is the default from
    // then on (asking for the environment's again would be an error after `set
    // device_type(host)`).
    if t == DevType::Current || (t == DevType::Default && device::kind().is_some()) {
        return;
    }
    let Some(r) = request_of(t) else { fail(routine, "acc_device_none is not a device type to use") };
    device::choose(Some(r), None).unwrap_or_else(|why| fail(routine, &why))
}

/// Checks that `n` numbers a device of type `t`.
fn check_num(n: i32, t: DevType, routine: &str) {
    let count = num_devices(t);
    if !(0..count).contains(&n) {
        fail(routine, &format!("{n} is not a valid device number (there are {count} device(s) of this type)"))
    }
}

fn set_device_num(n: i32, t: DevType, routine: &str) {
    let t = concrete(t);
    if t == DevType::None {
        fail(routine, "acc_device_none has no devices");
    }
    if n < 0 {
        // "Revert to the default": the environment's number, unless a device is in use.
        return;
    }
    check_num(n, t, routine);
    if request_of(t) != Some(Request::Host) {
        device::choose(None, Some(n)).unwrap_or_else(|why| fail(routine, &why))
    }
}

fn device_num(t: DevType) -> i32 {
    match request_of(t) {
        None | Some(Request::Host) => 0,
        Some(_) => device::device_num(),
    }
}

fn init(n: Option<i32>, t: DevType, routine: &str) {
    if let Some(n) = n {
        set_device_num(n, t, routine);
    }
    set_device_type(t, routine);
    device::target();
}

/// `acc_shutdown`: nothing is released before the program exits; the device's queues are
/// waited for.
fn shutdown(n: Option<i32>, t: DevType, routine: &str) {
    let t = concrete(t);
    if t == DevType::None {
        fail(routine, "acc_device_none has no devices");
    }
    match n {
        Some(n) => {
            check_num(n, t, routine);
            device::with_device(n, || queue::wait_all(queue::Queue::Sync, routine))
        }
        None => queue::wait_all(queue::Queue::Sync, routine),
    }
}

/// The `init` (0), `shutdown` (1) and `set` (2) directives at `loc`, for device type `t`
/// (an `acc_device_t` value; `acc_device_current` without a `device_type` clause), with
/// the `device_num` and `default_async` clauses given: what the routines of the same names
/// do, with errors reported at the directive.
pub fn directive(which: i32, t: i32, num: Option<i64>, default_async: Option<i64>, loc: &str) {
    diag::at_directive(loc, || {
        let name = match which {
            0 => "init",
            1 => "shutdown",
            _ => "set",
        };
        let t = super::dev_type(t, &format!("{name} device_type"));
        let num = num.map(|n| {
            i32::try_from(n).unwrap_or_else(|_| fail(&format!("{name} device_num"), &format!("{n} is not a valid device number")))
        });
        match which {
            0 => init(num, t, "init"),
            1 => shutdown(num, t, "shutdown"),
            _ => {
                set_device_type(t, "set device_type");
                if let Some(n) = num {
                    set_device_num(n, t, "set device_num");
                }
                if let Some(q) = default_async {
                    let q = i32::try_from(q).unwrap_or(i32::MIN);
                    queue::set_default_queue(q, "set default_async");
                }
            }
        }
    })
}

/// `acc_on_device` in host code: true for the host, and for the default or current device
/// type when that is the host.
fn on_device(t: Option<DevType>) -> bool {
    match t {
        Some(DevType::Host) => true,
        Some(DevType::Current | DevType::Default) => device::target().is_none(),
        _ => false,
    }
}

/// `acc_device_property_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prop {
    Memory,
    FreeMemory,
    SharedMemorySupport,
    Name,
    Vendor,
    Driver,
}

impl Prop {
    pub fn from_c(v: i32) -> Option<Prop> {
        Some(match v {
            0 => Prop::Memory,
            1 => Prop::FreeMemory,
            2 => Prop::SharedMemorySupport,
            3 => Prop::Name,
            4 => Prop::Vendor,
            5 => Prop::Driver,
            _ => return None,
        })
    }
}

/// The properties of one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Props {
    pub memory: u64,
    pub free_memory: u64,
    pub shared_memory: bool,
    pub name: String,
    pub vendor: String,
    pub driver: String,
}

impl Props {
    pub fn number(&self, p: Prop) -> usize {
        match p {
            Prop::Memory => self.memory as usize,
            Prop::FreeMemory => self.free_memory as usize,
            Prop::SharedMemorySupport => usize::from(self.shared_memory),
            _ => 0,
        }
    }

    pub fn string(&self, p: Prop) -> Option<&str> {
        match p {
            Prop::Name => Some(&self.name),
            Prop::Vendor => Some(&self.vendor),
            Prop::Driver => Some(&self.driver),
            _ => None,
        }
    }
}

/// (MemTotal, MemAvailable) in bytes from `/proc/meminfo`'s text (0 when missing).
pub fn parse_meminfo(text: &str) -> (u64, u64) {
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("MemTotal"), field("MemAvailable"))
}

/// The first value of `key` in `/proc/cpuinfo`'s text.
pub fn parse_cpuinfo<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })
}

/// "CUDA 12.9" for the driver version 12090.
pub fn cuda_version(v: i32) -> String {
    format!("CUDA {}.{}", v / 1000, (v % 1000) / 10)
}

fn accc_version() -> String {
    format!("accc {}", env!("CARGO_PKG_VERSION"))
}

fn host_memory() -> (u64, u64) {
    parse_meminfo(&std::fs::read_to_string("/proc/meminfo").unwrap_or_default())
}

/// Free memory of the host and the emulator, which use the host's: what the host had
/// available when the program first asked, less what the program holds through the runtime
/// since. Reading the host's figure each time would move with every other process, and a
/// program could not see its own `acc_malloc` in it.
fn free_host_memory(held: usize) -> u64 {
    static AVAILABLE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    AVAILABLE.get_or_init(|| host_memory().1).saturating_sub(held as u64)
}

fn host_props() -> Props {
    let memory = host_memory().0;
    let free_memory = free_host_memory(super::memory::host_held_bytes());
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    Props {
        memory,
        free_memory,
        shared_memory: true,
        name: parse_cpuinfo(&cpu, "model name").unwrap_or("host").to_string(),
        vendor: parse_cpuinfo(&cpu, "vendor_id").unwrap_or("unknown").to_string(),
        driver: accc_version(),
    }
}

fn emulator_props() -> Props {
    let memory = host_memory().0;
    let free_memory = free_host_memory(if device::target().is_some() { mem::emulator_held_bytes() } else { 0 });
    Props {
        memory,
        free_memory,
        shared_memory: false,
        name: "accc device emulator".into(),
        vendor: "accc".into(),
        driver: format!("{} (emulated NVIDIA GPU)", accc_version()),
    }
}

fn gpu_props(n: i32) -> Option<Props> {
    let dev = cuda::device_get(n).ok()?;
    // Free memory needs the device's context: only while the program runs on GPUs. The
    // blocks the runtime keeps for reuse (mem.rs's pool) count as free: it lets go of them
    // when an allocation needs the room.
    let free_memory = if matches!(device::kind(), Some(Some(device::Kind::Gpu { .. }))) {
        device::with_device(n, || {
            device::gpu().and_then(|_| cuda::mem_get_info().ok()).map_or(0, |(free, _)| (free + mem::pooled_bytes()) as u64)
        })
    } else {
        0
    };
    Some(Props {
        memory: cuda::device_total_mem(dev).ok()? as u64,
        free_memory,
        shared_memory: false,
        name: cuda::device_name(dev).ok()?,
        vendor: "NVIDIA".into(),
        driver: cuda::driver_version().map_or_else(|_| "CUDA".into(), cuda_version),
    })
}

/// The properties of device `n` of type `t`; `None` when there is no such device.
fn props(n: i32, t: DevType) -> Option<Props> {
    let request = request_of(t)?;
    if !(0..num_devices(t)).contains(&n) {
        return None;
    }
    match request {
        Request::Host => Some(host_props()),
        Request::Emulator => Some(emulator_props()),
        Request::Default if device::gpu_count() == 0 => Some(host_props()),
        Request::Nvidia | Request::Default => gpu_props(n),
    }
}

/// A string that lives as long as the program (the property strings handed to C), made
/// once per distinct value.
fn intern(s: &str) -> *const c_char {
    static STRINGS: Mutex<Vec<&'static CStr>> = Mutex::new(Vec::new());
    let mut all = STRINGS.lock().unwrap_or_else(|e| e.into_inner());
    let s = s.replace('\0', " ");
    if let Some(c) = all.iter().find(|c| c.to_bytes() == s.as_bytes()) {
        return c.as_ptr();
    }
    let c: &'static CStr = Box::leak(CString::new(s).expect("NULs replaced").into_boxed_c_str());
    all.push(c);
    c.as_ptr()
}

#[no_mangle]
pub extern "C" fn acc_get_num_devices(dev_type: i32) -> i32 {
    guard(|| num_devices(super::dev_type(dev_type, "acc_get_num_devices")))
}

#[no_mangle]
pub extern "C" fn acc_set_device_type(dev_type: i32) {
    guard(|| set_device_type(super::dev_type(dev_type, "acc_set_device_type"), "acc_set_device_type"))
}

#[no_mangle]
pub extern "C" fn acc_get_device_type() -> i32 {
    guard(|| current_type().to_c())
}

#[no_mangle]
pub extern "C" fn acc_set_device_num(dev_num: i32, dev_type: i32) {
    guard(|| set_device_num(dev_num, super::dev_type(dev_type, "acc_set_device_num"), "acc_set_device_num"))
}

#[no_mangle]
pub extern "C" fn acc_get_device_num(dev_type: i32) -> i32 {
    guard(|| device_num(super::dev_type(dev_type, "acc_get_device_num")))
}

#[no_mangle]
pub extern "C" fn acc_get_property(dev_num: i32, dev_type: i32, property: i32) -> usize {
    guard(|| {
        let t = super::dev_type(dev_type, "acc_get_property");
        let p = Prop::from_c(property).unwrap_or_else(|| fail("acc_get_property", &format!("{property} is not an acc_device_property_t value")));
        props(dev_num, t).map_or(0, |x| x.number(p))
    })
}

#[no_mangle]
pub extern "C" fn acc_get_property_string(dev_num: i32, dev_type: i32, property: i32) -> *const c_char {
    guard(|| {
        let t = super::dev_type(dev_type, "acc_get_property_string");
        let Some(p) = Prop::from_c(property) else {
            fail("acc_get_property_string", &format!("{property} is not an acc_device_property_t value"))
        };
        props(dev_num, t).and_then(|x| x.string(p).map(intern)).unwrap_or(std::ptr::null())
    })
}

#[no_mangle]
pub extern "C" fn acc_init(dev_type: i32) {
    guard(|| init(None, super::dev_type(dev_type, "acc_init"), "acc_init"))
}

#[no_mangle]
pub extern "C" fn acc_init_device(dev_num: i32, dev_type: i32) {
    guard(|| init(Some(dev_num), super::dev_type(dev_type, "acc_init_device"), "acc_init_device"))
}

#[no_mangle]
pub extern "C" fn acc_shutdown(dev_type: i32) {
    guard(|| shutdown(None, super::dev_type(dev_type, "acc_shutdown"), "acc_shutdown"))
}

#[no_mangle]
pub extern "C" fn acc_shutdown_device(dev_num: i32, dev_type: i32) {
    guard(|| shutdown(Some(dev_num), super::dev_type(dev_type, "acc_shutdown_device"), "acc_shutdown_device"))
}

#[no_mangle]
pub extern "C" fn acc_on_device(dev_type: i32) -> i32 {
    guard(|| i32::from(on_device(DevType::from_c(dev_type))))
}

/// How many devices of the type in use there are (for `wait(devnum:)`'s check).
pub fn current_count() -> i32 {
    num_devices(current_type())
}

/// The device number `dev_num` of a `_device` routine, checked against the device type in
/// use.
pub fn check_device_num(dev_num: i32, routine: &str) {
    check_num(dev_num, current_type(), routine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo() {
        let text = "MemTotal:       16303428 kB\nMemFree:          712340 kB\nMemAvailable:    9876543 kB\n";
        assert_eq!(parse_meminfo(text), (16303428 * 1024, 9876543 * 1024));
        assert_eq!(parse_meminfo("garbage"), (0, 0));
    }

    #[test]
    fn cpuinfo() {
        let text = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\nprocessor\t: 1\nvendor_id\t: X\n";
        assert_eq!(parse_cpuinfo(text, "vendor_id"), Some("GenuineIntel"));
        assert_eq!(parse_cpuinfo(text, "model name"), Some("Intel(R) Xeon(R) CPU @ 2.20GHz"));
        assert_eq!(parse_cpuinfo(text, "flags"), None);
    }

    #[test]
    fn driver_versions() {
        assert_eq!(cuda_version(12090), "CUDA 12.9");
        assert_eq!(cuda_version(13000), "CUDA 13.0");
        assert_eq!(cuda_version(11080), "CUDA 11.8");
    }

    #[test]
    fn properties() {
        let p = Props { memory: 10, free_memory: 4, shared_memory: true, name: "n".into(), vendor: "v".into(), driver: "d".into() };
        assert_eq!(p.number(Prop::Memory), 10);
        assert_eq!(p.number(Prop::FreeMemory), 4);
        assert_eq!(p.number(Prop::SharedMemorySupport), 1);
        assert_eq!(p.number(Prop::Name), 0);
        assert_eq!(p.string(Prop::Vendor), Some("v"));
        assert_eq!(p.string(Prop::Memory), None);
        assert_eq!(Prop::from_c(5), Some(Prop::Driver));
        assert_eq!(Prop::from_c(6), None);
    }

    #[test]
    fn interned_strings_are_shared() {
        let a = intern("accc");
        assert_eq!(a, intern("accc"));
        // SAFETY: intern returns a NUL-terminated string that lives for the program.
        assert_eq!(unsafe { CStr::from_ptr(a) }.to_str(), Ok("accc"));
        assert_ne!(a, intern("other"));
    }
}
