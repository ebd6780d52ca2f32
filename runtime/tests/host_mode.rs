//! The C entry points on the host path: with `ACC_DEVICE_TYPE=host` regions run on the
//! host, every data call is a no-op and `deviceptr` is the identity; the OpenACC routines
//! act as for a device that shares the host's memory.

use std::ffi::c_void;

use accrt::api::memory::*;
use accrt::*;

#[test]
fn host_mode_is_a_no_op() {
    // Set before the first call: the decision is cached for the process.
    std::env::set_var("ACC_DEVICE_TYPE", "host");
    assert_eq!(__accrt_use_device(), 0);
    let mut x = [1.0f32; 16];
    let p = x.as_mut_ptr() as *mut c_void;
    let (loc, text) = (c"t.c:1:1".as_ptr(), c"x[0:16]".as_ptr());
    // SAFETY: `x` is a live 64-byte buffer and the strings are NUL-terminated.
    unsafe {
        for kind in [
            ACCRT_COPY,
            ACCRT_COPYIN,
            ACCRT_COPYOUT,
            ACCRT_CREATE,
            ACCRT_PRESENT,
            ACCRT_NO_CREATE,
            ACCRT_DEVICEPTR,
        ] {
            __accrt_data_enter(p, 64, kind, loc, text);
        }
        __accrt_update_device(p, 64, 0, loc, text);
        __accrt_update_self(p, 64, ACCRT_IF_PRESENT, loc, text);
        assert_eq!(__accrt_deviceptr(p, loc, text), p);
        assert_eq!(__accrt_translate(p, p, loc, text), p);
        assert_eq!(__accrt_translate(p, std::ptr::null_mut(), loc, text), p);
        assert_eq!(
            __accrt_deviceptr(std::ptr::null_mut(), loc, text),
            std::ptr::null_mut()
        );
        for kind in ACCRT_COPY..=ACCRT_DEVICEPTR {
            __accrt_data_exit(p, 64, kind, loc, text);
        }
        // Sections through pointer rows: nothing mapped, no pointer read or written (a row
        // pointer that points nowhere valid is never followed).
        let mut rows: [*mut f32; 2] = [p.cast(), 16 as *mut f32];
        let r = rows.as_mut_ptr() as *mut c_void;
        let levels = [0i64, 4, 4];
        __accrt_data_enter_rows(r, 16, levels.as_ptr(), 1, ACCRT_COPY, loc, text, -2);
        __accrt_update_self_rows(r, 16, levels.as_ptr(), 1, 0, loc, text, 1);
        __accrt_update_device_rows(r, 16, levels.as_ptr(), 1, 0, loc, text, -2);
        __accrt_data_exit_rows(r, 16, levels.as_ptr(), 1, ACCRT_COPY, loc, text, -2);
        assert_eq!(rows[1], 16 as *mut f32);
    }
    assert_eq!(x, [1.0f32; 16]);
    assert_eq!(__accrt_use_device(), 0);
}

#[test]
fn routines_see_shared_memory() {
    std::env::set_var("ACC_DEVICE_TYPE", "host");
    let mut x = [7u8; 33];
    let p = x.as_mut_ptr() as *mut c_void;
    // SAFETY: `x` is a live 33-byte buffer; acc_malloc's block is 33 bytes and freed once.
    unsafe {
        assert_eq!(acc_copyin(p, 33), p);
        assert_eq!(acc_deviceptr(p), p);
        assert_eq!(acc_hostptr(p), p);
        assert_eq!(acc_is_present(p, 33), 1);
        acc_copyout_finalize(p, 33);
        assert_eq!(acc_is_present(p, 1), 1, "host data is always present");
        let d = acc_malloc(33);
        assert!(!d.is_null());
        acc_memcpy_to_device(d, p, 33);
        x[0] = 0;
        acc_memcpy_from_device(p, d, 33);
        assert_eq!(x, [7u8; 33]);
        acc_free(d);
        acc_unmap_data(p);
    }
}

#[test]
fn async_forms_are_the_synchronous_ones_on_the_host() {
    use accrt::api::sync::*;
    std::env::set_var("ACC_DEVICE_TYPE", "host");
    let mut x = [3u8; 16];
    let p = x.as_mut_ptr() as *mut c_void;
    let (loc, text) = (c"t.c:1:1".as_ptr(), c"x[0:16]".as_ptr());
    // SAFETY: `x` is a live 16-byte buffer and the strings are NUL-terminated.
    unsafe {
        for q in [0, 7, -1, -2, -3] {
            __accrt_data_enter_async(p, 16, ACCRT_COPYIN, loc, text, q);
            __accrt_update_device_async(p, 16, 0, loc, text, q);
            __accrt_update_self_async(p, 16, ACCRT_IF_PRESENT, loc, text, q);
            __accrt_data_exit_async(p, 16, ACCRT_COPYOUT, loc, text, q);
            __accrt_wait(1, q, loc);
            __accrt_wait_all(q, loc);
            __accrt_host_wait(q, loc);
        }
    }
    assert_eq!(x, [3u8; 16]);
    // Nothing is ever pending: every queue is finished.
    assert_eq!(acc_async_test(0), 1);
    assert_eq!(acc_async_test(-1), 1);
    assert_eq!(acc_async_test_all(), 1);
    let queues = [-2, 4];
    // SAFETY: two readable ints.
    assert_eq!(unsafe { acc_wait_any(2, queues.as_ptr()) }, 1);
}
