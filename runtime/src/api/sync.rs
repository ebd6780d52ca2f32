//! The async routines (OpenACC 3.3 §3.2.9-3.2.17) over queue.rs: tests query a queue's CUDA
//! stream (`acc_async_test` = `cuStreamQuery`), waits synchronise it or, for the `_async`
//! forms, make another queue wait for it through an event without blocking the host. On the
//! emulator and the host path every queue is always finished. Async arguments are checked
//! (an invalid one is an error) and the default queue is remembered; the `_device` forms
//! check their device number and act on that device's queues.

use super::device::check_device_num;
use super::fail;
use crate::device;
use crate::diag::guard;
use crate::queue::{self, Queue};

/// The `count` async arguments at `args`.
///
/// # Safety
/// `args` must be readable for `count` ints when `count > 0`.
unsafe fn wait_args<'a>(count: i32, args: *const i32, routine: &str) -> &'a [i32] {
    if count <= 0 {
        return &[];
    }
    if args.is_null() {
        fail(routine, &format!("null wait_arg array with count {count}"));
    }
    // SAFETY: non-null and readable for `count` ints (caller's guarantee).
    unsafe { std::slice::from_raw_parts(args, count as usize) }
}

fn test(wait_arg: i32, routine: &str) -> i32 {
    i32::from(queue::test(queue::of_routine(wait_arg, routine), routine))
}

fn wait(wait_arg: i32, routine: &str) {
    queue::host_wait(queue::of_routine(wait_arg, routine), routine)
}

fn wait_async(wait_arg: i32, async_arg: i32, routine: &str) {
    let q = queue::of_routine(wait_arg, routine);
    let on = queue::of_routine(async_arg, routine);
    queue::queue_wait(q, on, routine)
}

fn wait_all_on(async_arg: i32, routine: &str) {
    queue::wait_all(queue::of_routine(async_arg, routine), routine)
}

#[no_mangle]
pub extern "C" fn acc_async_test(wait_arg: i32) -> i32 {
    guard(|| test(wait_arg, "acc_async_test"))
}

#[no_mangle]
pub extern "C" fn acc_async_test_device(wait_arg: i32, dev_num: i32) -> i32 {
    guard(|| {
        check_device_num(dev_num, "acc_async_test_device");
        device::with_device(dev_num, || test(wait_arg, "acc_async_test_device"))
    })
}

#[no_mangle]
pub extern "C" fn acc_async_test_all() -> i32 {
    guard(|| i32::from(queue::test_all("acc_async_test_all")))
}

#[no_mangle]
pub extern "C" fn acc_async_test_all_device(dev_num: i32) -> i32 {
    guard(|| {
        check_device_num(dev_num, "acc_async_test_all_device");
        device::with_device(dev_num, || i32::from(queue::test_all("acc_async_test_all_device")))
    })
}

#[no_mangle]
pub extern "C" fn acc_wait(wait_arg: i32) {
    guard(|| wait(wait_arg, "acc_wait"))
}

#[no_mangle]
pub extern "C" fn acc_wait_device(wait_arg: i32, dev_num: i32) {
    guard(|| {
        check_device_num(dev_num, "acc_wait_device");
        device::with_device(dev_num, || wait(wait_arg, "acc_wait_device"))
    })
}

#[no_mangle]
pub extern "C" fn acc_wait_async(wait_arg: i32, async_arg: i32) {
    guard(|| wait_async(wait_arg, async_arg, "acc_wait_async"))
}

#[no_mangle]
pub extern "C" fn acc_wait_device_async(wait_arg: i32, async_arg: i32, dev_num: i32) {
    guard(|| {
        check_device_num(dev_num, "acc_wait_device_async");
        device::with_device(dev_num, || wait_async(wait_arg, async_arg, "acc_wait_device_async"))
    })
}

#[no_mangle]
pub extern "C" fn acc_wait_all() {
    guard(|| queue::wait_all(Queue::Sync, "acc_wait_all"))
}

#[no_mangle]
pub extern "C" fn acc_wait_all_device(dev_num: i32) {
    guard(|| {
        check_device_num(dev_num, "acc_wait_all_device");
        device::with_device(dev_num, || queue::wait_all(Queue::Sync, "acc_wait_all_device"))
    })
}

#[no_mangle]
pub extern "C" fn acc_wait_all_async(async_arg: i32) {
    guard(|| wait_all_on(async_arg, "acc_wait_all_async"))
}

#[no_mangle]
pub extern "C" fn acc_wait_all_device_async(async_arg: i32, dev_num: i32) {
    guard(|| {
        check_device_num(dev_num, "acc_wait_all_device_async");
        device::with_device(dev_num, || wait_all_on(async_arg, "acc_wait_all_device_async"))
    })
}

/// # Safety
/// `wait_arg` readable for `count` ints.
#[no_mangle]
pub unsafe extern "C" fn acc_wait_any(count: i32, wait_arg: *const i32) -> i32 {
    // SAFETY: forwarded caller guarantee.
    guard(|| queue::wait_any(unsafe { wait_args(count, wait_arg, "acc_wait_any") }, "acc_wait_any"))
}

/// # Safety
/// As for [`acc_wait_any`].
#[no_mangle]
pub unsafe extern "C" fn acc_wait_any_device(count: i32, wait_arg: *const i32, dev_num: i32) -> i32 {
    guard(|| {
        check_device_num(dev_num, "acc_wait_any_device");
        // SAFETY: forwarded caller guarantee.
        let args = unsafe { wait_args(count, wait_arg, "acc_wait_any_device") };
        device::with_device(dev_num, || queue::wait_any(args, "acc_wait_any_device"))
    })
}

#[no_mangle]
pub extern "C" fn acc_get_default_async() -> i32 {
    guard(queue::default_queue)
}

#[no_mangle]
pub extern "C" fn acc_set_default_async(async_arg: i32) {
    guard(|| queue::set_default_queue(async_arg, "acc_set_default_async"))
}
