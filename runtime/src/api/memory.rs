//! The data and memory routines (OpenACC 3.3 §3.2.19-3.2.37).
//!
//! `acc_copyin`/`acc_create`/`acc_copyout`/`acc_delete` (and their `_async`, `_finalize`
//! and `present_or` forms) are `enter data`/`exit data` on one item: they count on the
//! dynamic reference counter (data.rs). `acc_map_data` ranges belong to the program: no
//! exit frees them, only `acc_unmap_data` removes them, and unmapping anything else is an
//! error. `acc_deviceptr`/`acc_hostptr`/`acc_is_present` look the present table up (a size
//! of 0 counts as 1 byte for `acc_is_present`). `acc_malloc`/`acc_free` and the
//! `acc_memcpy_*` routines work on device memory directly (on the emulator, device
//! addresses that are not its memory are errors rather than crashes). `_async` forms put
//! their copies on the queue their argument names (queue.rs: on the GPU its stream; an
//! invalid argument is an error); `acc_attach_async`/`acc_detach_async` check it and write
//! the device pointer synchronously.
//!
//! On the host target (no device) memory is shared: device addresses are host addresses,
//! everything is present, copies are `memmove`, `acc_malloc`/`acc_free` are `malloc`/`free`,
//! and `acc_map_data`/`acc_unmap_data`/`acc_attach`/`acc_detach` do nothing.
//!
//! Not here: the present table's rules (data.rs, present.rs), device memory (mem.rs).

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::device::check_device_num;
use super::fail;
use crate::data::{self, Item, Kind, Site};
use crate::diag::guard;
use crate::present::Counter;
use crate::queue::{self, Queue};
use crate::{cuda, device, mem};

extern "C" {
    fn malloc_usable_size(p: *mut c_void) -> usize;
    fn malloc(size: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

/// The item of a routine's (address, size) arguments; `None` for a null address with no
/// bytes (no action). A null address with bytes, or a size over `i64::MAX`, is an error.
fn item(host: *mut c_void, bytes: usize, routine: &'static str) -> Option<Item<'static>> {
    if host.is_null() {
        if bytes == 0 {
            return None;
        }
        fail(routine, &format!("null host address with {bytes} bytes"));
    }
    let bytes = i64::try_from(bytes).unwrap_or_else(|_| fail(routine, &format!("{bytes} bytes is too large")));
    Some(Item { host, bytes, site: Site::Routine(routine) })
}

fn host_target() -> bool {
    device::target().is_none()
}

/// `acc_copyin`/`acc_create` (`kind`): enter data on queue `q`; the device address.
fn enter(host: *mut c_void, bytes: usize, kind: Kind, routine: &'static str, q: Queue) -> *mut c_void {
    item(host, bytes, routine).map_or(std::ptr::null_mut(), |it| data::enter(&it, kind, Counter::Dynamic, false, q))
}

/// `acc_copyout`/`acc_delete` (`kind`, `finalize`): exit data on queue `q`.
fn exit(host: *mut c_void, bytes: usize, kind: Kind, finalize: bool, routine: &'static str, q: Queue) {
    if let Some(it) = item(host, bytes, routine) {
        data::exit(&it, kind, Counter::Dynamic, finalize, q)
    }
}

fn update(host: *mut c_void, bytes: usize, to_device: bool, routine: &'static str, q: Queue) {
    if let Some(it) = item(host, bytes, routine) {
        data::update(&it, to_device, false, q)
    }
}

fn dev_addr(p: *mut c_void) -> mem::DevPtr {
    p as mem::DevPtr
}

/// Checks that `[p, p+bytes)` is device memory (emulator; the GPU's driver checks itself).
fn check_device_range(p: *mut c_void, bytes: usize, routine: &str) {
    if p.is_null() || !mem::check_range(dev_addr(p), bytes) {
        fail(routine, &format!("{:#x}..{:#x} is not device memory", p as usize, (p as usize).wrapping_add(bytes)))
    }
}

fn check_host(p: *mut c_void, routine: &str) {
    if p.is_null() {
        fail(routine, "null host address");
    }
}

/// Bytes `acc_malloc` holds on the host target (the host "device"'s used memory, which
/// `acc_get_property(acc_property_free_memory)` subtracts).
static HOST_HELD: AtomicUsize = AtomicUsize::new(0);

/// [`HOST_HELD`].
pub fn host_held_bytes() -> usize {
    HOST_HELD.load(Ordering::Relaxed)
}

fn acc_malloc_impl(bytes: usize) -> *mut c_void {
    if host_target() {
        // SAFETY: malloc has no precondition; malloc_usable_size takes what it returned.
        let (p, usable) = unsafe {
            let p = malloc(bytes);
            (p, if p.is_null() { 0 } else { malloc_usable_size(p) })
        };
        HOST_HELD.fetch_add(usable, Ordering::Relaxed);
        return p;
    }
    if bytes == 0 {
        return std::ptr::null_mut();
    }
    mem::alloc_block(bytes, " in acc_malloc") as *mut c_void
}

/// # Safety
/// On the host target `p` must be null or come from `malloc` (acc_malloc) and be live.
unsafe fn acc_free_impl(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    if host_target() {
        // SAFETY: on the host target acc_malloc is malloc; `p` is what it returned
        // (caller's guarantee).
        let usable = unsafe {
            let usable = malloc_usable_size(p);
            free(p);
            usable
        };
        // Saturating: a block acc_malloc did not return (the caller's mistake) must not wrap.
        let _ = HOST_HELD.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |h| Some(h.saturating_sub(usable)));
        return;
    }
    if data::holds_device_block(dev_addr(p)) {
        fail("acc_free", &format!("{:#x} is the device copy of present data (acc_delete or exit data frees it)", p as usize));
    }
    if !mem::is_block(dev_addr(p)) {
        fail("acc_free", &format!("{:#x} was not returned by acc_malloc", p as usize));
    }
    mem::release(dev_addr(p), " in acc_free")
}

/// # Safety
/// `src` readable for `bytes` bytes; `dst` device memory (checked on the emulator).
unsafe fn memcpy_to_device(dst: *mut c_void, src: *mut c_void, bytes: usize, routine: &str, q: Queue) {
    if bytes == 0 {
        return;
    }
    check_host(src, routine);
    if host_target() {
        // SAFETY: caller's guarantee; on the host target device memory is host memory.
        return unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
    }
    check_device_range(dst, bytes, routine);
    // SAFETY: `src` readable (caller); `dst..dst+bytes` is device memory (checked, or
    // checked by the driver).
    unsafe { mem::copy_to_device_on(q, dev_addr(dst), src, bytes, &format!(" in {routine}")) }
}

/// # Safety
/// `dst` writable for `bytes` bytes; `src` device memory (checked on the emulator).
unsafe fn memcpy_from_device(dst: *mut c_void, src: *mut c_void, bytes: usize, routine: &str, q: Queue) {
    if bytes == 0 {
        return;
    }
    check_host(dst, routine);
    if host_target() {
        // SAFETY: caller's guarantee; on the host target device memory is host memory.
        return unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
    }
    check_device_range(src, bytes, routine);
    // SAFETY: `dst` writable (caller); `src..src+bytes` is device memory (checked).
    unsafe { mem::copy_from_device_on(q, dst, dev_addr(src), bytes, &format!(" in {routine}")) }
}

/// # Safety
/// `dst` and `src` device memory (checked on the emulator).
unsafe fn memcpy_device(dst: *mut c_void, src: *mut c_void, bytes: usize, routine: &str, q: Queue) {
    if bytes == 0 {
        return;
    }
    if host_target() {
        // SAFETY: caller's guarantee; on the host target device memory is host memory.
        return unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
    }
    check_device_range(dst, bytes, routine);
    check_device_range(src, bytes, routine);
    // SAFETY: both ranges are device memory (checked).
    unsafe { mem::copy_device_on(q, dev_addr(dst), dev_addr(src), bytes, &format!(" in {routine}")) }
}

/// `acc_memcpy_d2d`: from the device copy of `src` on device `dev_src` to the device copy
/// of `dst` on device `dev_dst` (both present there), on queue `q` of the calling thread's
/// device.
///
/// # Safety
/// On the host target, `src` readable and `dst` writable for `bytes` bytes.
unsafe fn memcpy_d2d(dst: *mut c_void, src: *mut c_void, bytes: usize, dev_dst: i32, dev_src: i32, routine: &'static str, q: Queue) {
    check_device_num(dev_dst, routine);
    check_device_num(dev_src, routine);
    let (Some(d), Some(s)) = (item(dst, bytes, routine), item(src, bytes, routine)) else { return };
    if bytes == 0 {
        return;
    }
    if host_target() {
        // SAFETY: caller's guarantee (the device copies are the host data).
        return unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
    }
    let dd = device::with_device(dev_dst, || data::present_range(&d));
    let sd = device::with_device(dev_src, || data::present_range(&s));
    let what = format!(" in {routine}");
    let contexts = (device::gpu_of(dev_dst), device::gpu_of(dev_src));
    match contexts {
        (Some(gd), Some(gs)) if dev_dst != dev_src => {
            let stream = queue::stream(q).unwrap_or(cuda::Handle(std::ptr::null_mut()));
            // SAFETY: both ranges lie inside present entries of their devices
            // (present_range); a synchronous copy is waited for below.
            unsafe { cuda::memcpy_peer_async(dd, gd.context, sd, gs.context, bytes, stream) }.unwrap_or_else(|e| e.fail(&what));
            if q == Queue::Sync {
                cuda::ctx_synchronize().unwrap_or_else(|e| e.fail(&what));
            }
        }
        // SAFETY: both ranges lie inside present entries (present_range), i.e. device
        // allocations of at least `bytes` bytes from those addresses (on the emulator,
        // host memory whatever the device number).
        _ => unsafe { mem::copy_device_on(q, dd, sd, bytes, &what) },
    }
}

fn map_data(host: *mut c_void, dev: *mut c_void, bytes: usize) {
    let routine = "acc_map_data";
    let Some(it) = item(host, bytes, routine) else { return };
    if bytes == 0 || host_target() {
        return;
    }
    check_device_range(dev, bytes, routine);
    data::map(&it, dev_addr(dev))
}

fn is_present(host: *mut c_void, bytes: usize) -> bool {
    !host.is_null() && data::is_present(host, bytes.max(1))
}

// ---- The C routines. Pointer arguments must be what OpenACC requires of them (host data
// ---- readable/writable for `bytes` bytes, device addresses from this runtime).

#[no_mangle]
pub extern "C" fn acc_malloc(bytes: usize) -> *mut c_void {
    guard(|| acc_malloc_impl(bytes))
}

/// # Safety
/// `data_dev` null or returned by `acc_malloc` and not freed yet (on the host target it
/// goes to `free`; on a device the runtime checks it).
#[no_mangle]
pub unsafe extern "C" fn acc_free(data_dev: *mut c_void) {
    // SAFETY: forwarded caller guarantee.
    guard(|| unsafe { acc_free_impl(data_dev) })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_copyin(data_arg: *mut c_void, bytes: usize) -> *mut c_void {
    guard(|| enter(data_arg, bytes, Kind::Copyin, "acc_copyin", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_present_or_copyin(data_arg: *mut c_void, bytes: usize) -> *mut c_void {
    guard(|| enter(data_arg, bytes, Kind::Copyin, "acc_present_or_copyin", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_pcopyin(data_arg: *mut c_void, bytes: usize) -> *mut c_void {
    guard(|| enter(data_arg, bytes, Kind::Copyin, "acc_pcopyin", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_copyin_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_copyin_async");
        enter(data_arg, bytes, Kind::Copyin, "acc_copyin_async", q);
    })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_create(data_arg: *mut c_void, bytes: usize) -> *mut c_void {
    guard(|| enter(data_arg, bytes, Kind::Create, "acc_create", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_present_or_create(data_arg: *mut c_void, bytes: usize) -> *mut c_void {
    guard(|| enter(data_arg, bytes, Kind::Create, "acc_present_or_create", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_pcreate(data_arg: *mut c_void, bytes: usize) -> *mut c_void {
    guard(|| enter(data_arg, bytes, Kind::Create, "acc_pcreate", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_create_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_create_async");
        enter(data_arg, bytes, Kind::Create, "acc_create_async", q);
    })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_copyout(data_arg: *mut c_void, bytes: usize) {
    guard(|| exit(data_arg, bytes, Kind::Copyout, false, "acc_copyout", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_copyout_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_copyout_async");
        exit(data_arg, bytes, Kind::Copyout, false, "acc_copyout_async", q)
    })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_copyout_finalize(data_arg: *mut c_void, bytes: usize) {
    guard(|| exit(data_arg, bytes, Kind::Copyout, true, "acc_copyout_finalize", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_copyout_finalize_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_copyout_finalize_async");
        exit(data_arg, bytes, Kind::Copyout, true, "acc_copyout_finalize_async", q)
    })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_delete(data_arg: *mut c_void, bytes: usize) {
    guard(|| exit(data_arg, bytes, Kind::Delete, false, "acc_delete", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_delete_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_delete_async");
        exit(data_arg, bytes, Kind::Delete, false, "acc_delete_async", q)
    })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_delete_finalize(data_arg: *mut c_void, bytes: usize) {
    guard(|| exit(data_arg, bytes, Kind::Delete, true, "acc_delete_finalize", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_delete_finalize_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_delete_finalize_async");
        exit(data_arg, bytes, Kind::Delete, true, "acc_delete_finalize_async", q)
    })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_update_device(data_arg: *mut c_void, bytes: usize) {
    guard(|| update(data_arg, bytes, true, "acc_update_device", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_update_device_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_update_device_async");
        update(data_arg, bytes, true, "acc_update_device_async", q)
    })
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_update_self(data_arg: *mut c_void, bytes: usize) {
    guard(|| update(data_arg, bytes, false, "acc_update_self", Queue::Sync))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_update_self_async(data_arg: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_update_self_async");
        update(data_arg, bytes, false, "acc_update_self_async", q)
    })
}

/// # Safety
/// `data_dev` device memory of at least `bytes` bytes (checked on the emulator).
#[no_mangle]
pub unsafe extern "C" fn acc_map_data(data_arg: *mut c_void, data_dev: *mut c_void, bytes: usize) {
    guard(|| map_data(data_arg, data_dev, bytes))
}

#[no_mangle]
pub extern "C" fn acc_unmap_data(data_arg: *mut c_void) {
    guard(|| {
        if !data_arg.is_null() {
            data::unmap(data_arg, "acc_unmap_data")
        }
    })
}

#[no_mangle]
pub extern "C" fn acc_deviceptr(data_arg: *mut c_void) -> *mut c_void {
    guard(|| data::device_address(data_arg))
}

#[no_mangle]
pub extern "C" fn acc_hostptr(data_dev: *mut c_void) -> *mut c_void {
    guard(|| data::host_address(data_dev))
}

/// # Safety
/// `data_arg` null or readable and writable for `bytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn acc_is_present(data_arg: *mut c_void, bytes: usize) -> i32 {
    guard(|| i32::from(is_present(data_arg, bytes)))
}

/// # Safety
/// `data_host_src` readable for `bytes` bytes; `data_dev_dest` device memory.
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_to_device(data_dev_dest: *mut c_void, data_host_src: *mut c_void, bytes: usize) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe { memcpy_to_device(data_dev_dest, data_host_src, bytes, "acc_memcpy_to_device", Queue::Sync) })
}

/// # Safety
/// As for [`acc_memcpy_to_device`].
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_to_device_async(data_dev_dest: *mut c_void, data_host_src: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_memcpy_to_device_async");
        // SAFETY: forwarded caller guarantees.
        unsafe { memcpy_to_device(data_dev_dest, data_host_src, bytes, "acc_memcpy_to_device_async", q) }
    })
}

/// # Safety
/// `data_host_dest` writable for `bytes` bytes; `data_dev_src` device memory.
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_from_device(data_host_dest: *mut c_void, data_dev_src: *mut c_void, bytes: usize) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe { memcpy_from_device(data_host_dest, data_dev_src, bytes, "acc_memcpy_from_device", Queue::Sync) })
}

/// # Safety
/// As for [`acc_memcpy_from_device`].
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_from_device_async(data_host_dest: *mut c_void, data_dev_src: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_memcpy_from_device_async");
        // SAFETY: forwarded caller guarantees.
        unsafe { memcpy_from_device(data_host_dest, data_dev_src, bytes, "acc_memcpy_from_device_async", q) }
    })
}

/// # Safety
/// Both arguments device memory (host memory on the host target).
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_device(data_dev_dest: *mut c_void, data_dev_src: *mut c_void, bytes: usize) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe { memcpy_device(data_dev_dest, data_dev_src, bytes, "acc_memcpy_device", Queue::Sync) })
}

/// # Safety
/// As for [`acc_memcpy_device`].
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_device_async(data_dev_dest: *mut c_void, data_dev_src: *mut c_void, bytes: usize, async_arg: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg, "acc_memcpy_device_async");
        // SAFETY: forwarded caller guarantees.
        unsafe { memcpy_device(data_dev_dest, data_dev_src, bytes, "acc_memcpy_device_async", q) }
    })
}

/// # Safety
/// Both arguments host data of `bytes` bytes (present on the device).
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_d2d(data_arg_dest: *mut c_void, data_arg_src: *mut c_void, bytes: usize, dev_num_dest: i32, dev_num_src: i32) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe { memcpy_d2d(data_arg_dest, data_arg_src, bytes, dev_num_dest, dev_num_src, "acc_memcpy_d2d", Queue::Sync) })
}

/// # Safety
/// As for [`acc_memcpy_d2d`].
#[no_mangle]
pub unsafe extern "C" fn acc_memcpy_d2d_async(data_arg_dest: *mut c_void, data_arg_src: *mut c_void, bytes: usize, dev_num_dest: i32, dev_num_src: i32, async_arg_src: i32) {
    guard(|| {
        let q = queue::of_routine(async_arg_src, "acc_memcpy_d2d_async");
        // SAFETY: forwarded caller guarantees.
        unsafe { memcpy_d2d(data_arg_dest, data_arg_src, bytes, dev_num_dest, dev_num_src, "acc_memcpy_d2d_async", q) }
    })
}

/// # Safety
/// `ptr_addr` null or readable for one pointer.
#[no_mangle]
pub unsafe extern "C" fn acc_attach(ptr_addr: *mut *mut c_void) {
    // SAFETY: forwarded caller guarantee.
    guard(|| unsafe { data::attach(ptr_addr, data::Site::Routine("acc_attach")) })
}

/// # Safety
/// As for [`acc_attach`].
#[no_mangle]
pub unsafe extern "C" fn acc_attach_async(ptr_addr: *mut *mut c_void, async_arg: i32) {
    guard(|| {
        queue::check(async_arg, "acc_attach_async");
        // SAFETY: forwarded caller guarantee.
        unsafe { data::attach(ptr_addr, data::Site::Routine("acc_attach_async")) }
    })
}

/// # Safety
/// As for [`acc_attach`].
#[no_mangle]
pub unsafe extern "C" fn acc_detach(ptr_addr: *mut *mut c_void) {
    // SAFETY: forwarded caller guarantee.
    guard(|| unsafe { data::detach(ptr_addr, false, data::Site::Routine("acc_detach")) })
}

/// # Safety
/// As for [`acc_attach`].
#[no_mangle]
pub unsafe extern "C" fn acc_detach_async(ptr_addr: *mut *mut c_void, async_arg: i32) {
    guard(|| {
        queue::check(async_arg, "acc_detach_async");
        // SAFETY: forwarded caller guarantee.
        unsafe { data::detach(ptr_addr, false, data::Site::Routine("acc_detach_async")) }
    })
}

/// # Safety
/// As for [`acc_attach`].
#[no_mangle]
pub unsafe extern "C" fn acc_detach_finalize(ptr_addr: *mut *mut c_void) {
    // SAFETY: forwarded caller guarantee.
    guard(|| unsafe { data::detach(ptr_addr, true, data::Site::Routine("acc_detach_finalize")) })
}

/// # Safety
/// As for [`acc_attach`].
#[no_mangle]
pub unsafe extern "C" fn acc_detach_finalize_async(ptr_addr: *mut *mut c_void, async_arg: i32) {
    guard(|| {
        queue::check(async_arg, "acc_detach_finalize_async");
        // SAFETY: forwarded caller guarantee.
        unsafe { data::detach(ptr_addr, true, data::Site::Routine("acc_detach_finalize_async")) }
    })
}
