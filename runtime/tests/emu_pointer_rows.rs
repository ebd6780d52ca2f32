//! Sections through pointer rows on the emulator (whose device memory the test can read):
//! `__accrt_data_enter_rows` maps the row pointers and every row and attaches each pointer
//! (the device copy of p[i] is the device address of row i), counts references per row and
//! per attachment, and `__accrt_data_exit_rows` detaches (the device copy gets the host
//! value back) and copies the rows back only at the last exit.

use std::ffi::{c_void, CStr};

use accrt::api::memory::{acc_deviceptr, acc_is_present};
use accrt::*;

const COPY: i32 = 0;
const COPYIN: i32 = 1;
const COPYOUT: i32 = 2;
const DYNAMIC: i32 = 0x100;
const SYNC: i64 = -2;
const LOC: &CStr = c"t.c:1:9";
const TEXT: &CStr = c"p[0:n][0:m]";

/// The pointer the device copy of host pointer slot `slot` holds (emulator memory is host
/// memory).
fn device_value(slot: *mut *mut f64) -> *mut f64 {
    let dev = acc_deviceptr(slot.cast()) as *const *mut f64;
    assert!(!dev.is_null(), "the row pointers are not present");
    // SAFETY: a present 8-byte slot of an emulator allocation.
    unsafe { dev.read() }
}

fn present(p: *mut c_void, bytes: usize) -> bool {
    // SAFETY: only looks the range up.
    unsafe { acc_is_present(p, bytes) != 0 }
}

/// Enter (or exit) `p[0:n][0:m]` with `kind` on the synchronous queue.
fn rows(enter: bool, p: &mut [*mut f64], m: i64, kind: i32) {
    let levels = [0i64, m, 8];
    let (host, bytes) = (p.as_mut_ptr().cast::<c_void>(), 8 * p.len() as i64);
    // SAFETY: the row pointers and their rows are live host memory; `levels` has one level.
    unsafe {
        if enter {
            __accrt_data_enter_rows(host, bytes, levels.as_ptr(), 1, kind, LOC.as_ptr(), TEXT.as_ptr(), SYNC)
        } else {
            __accrt_data_exit_rows(host, bytes, levels.as_ptr(), 1, kind, LOC.as_ptr(), TEXT.as_ptr(), SYNC)
        }
    }
}

#[test]
fn rows_are_mapped_attached_counted_and_detached() {
    // Set before the first call: the decision is cached for the process.
    std::env::set_var("ACC_DEVICE_TYPE", "emulator");
    assert_eq!(__accrt_use_device(), 1);
    let (n, m) = (5usize, 3usize);
    let mut data: Vec<Vec<f64>> = (0..n).map(|i| (0..m).map(|j| (i * m + j) as f64).collect()).collect();
    let mut p: Vec<*mut f64> = data.iter_mut().map(|r| r.as_mut_ptr()).collect();
    p[2] = std::ptr::null_mut(); // a null row: skipped
    let row_bytes = 8 * m;

    rows(true, &mut p, m as i64, COPYIN | DYNAMIC);
    rows(true, &mut p, m as i64, COPYIN | DYNAMIC);
    assert!(present(p.as_mut_ptr().cast(), 8 * n));
    for i in [0, 1, 3, 4] {
        assert!(present(p[i].cast(), row_bytes), "row {i}");
        // Attached: the device copy of p[i] is the row's device copy.
        assert_eq!(device_value(&mut p[i]), acc_deviceptr(p[i].cast()) as *mut f64, "row {i}");
    }
    assert!(device_value(&mut p[2]).is_null(), "the null row's device pointer");
    // The device rows change; the host's do not until the last copyout.
    for i in [0, 1, 3, 4] {
        let dev = acc_deviceptr(p[i].cast()) as *mut f64;
        // SAFETY: the row's emulator copy, m elements.
        unsafe { (0..m).for_each(|j| *dev.add(j) = -1.0) };
    }
    rows(false, &mut p, m as i64, COPYOUT | DYNAMIC);
    assert!(present(p[4].cast(), row_bytes), "one reference of two dropped");
    assert_eq!(data[4][0], 12.0, "nothing copied back before the last exit");
    assert_eq!(device_value(&mut p[4]), acc_deviceptr(p[4].cast()) as *mut f64, "still attached once");
    rows(false, &mut p, m as i64, COPYOUT | DYNAMIC);
    assert!(!present(p.as_mut_ptr().cast(), 8 * n) && !present(p[0].cast(), row_bytes));
    for i in [0, 1, 3, 4] {
        assert!(data[i].iter().all(|&v| v == -1.0), "row {i} copied back: {:?}", data[i]);
        assert_eq!(p[i], data[i].as_mut_ptr(), "host pointer {i} kept");
    }

    // A structured copy inside a dynamic copyin: the region's exit detaches once (the
    // pointer stays attached) and copies nothing back.
    rows(true, &mut p, m as i64, COPYIN | DYNAMIC);
    rows(true, &mut p, m as i64, COPY);
    rows(false, &mut p, m as i64, COPY);
    assert!(present(p[1].cast(), row_bytes));
    assert_eq!(device_value(&mut p[1]), acc_deviceptr(p[1].cast()) as *mut f64, "detached too early");
    rows(false, &mut p, m as i64, COPYOUT | DYNAMIC | 0x200);
    assert!(!present(p[1].cast(), row_bytes), "finalize");
}
