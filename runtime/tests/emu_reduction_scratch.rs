//! Launches on the emulator of kernels with gang-level reductions: the gang cap
//! (`ACCRT_KERNEL_CAP_GANGS`) and the scratch contract (pointer in `args[scratch_arg]`,
//! counters zero at kernel start, also when an earlier kernel wrote partials there), and
//! one scratch buffer per queue (kernels of different queues may run at once on the GPU).

use std::ffi::c_void;

use accrt::emu::{__accemu_gang_id, __accemu_num_gangs};
use accrt::*;

/// What the kernel saw.
#[derive(Default)]
struct Probe {
    reduce_vars: usize,
    gangs: i64,
    scratch: usize,
    counters_zero: bool,
}

/// args[0]: *mut Probe; args[1]: the scratch slot. Every gang checks the counters and fills
/// its partials with 0xff (as a reduction leaves them); counters are left zero.
unsafe extern "C" fn kernel(args: *mut *mut c_void) {
    // SAFETY: the test's argument array (below).
    unsafe {
        let probe = &mut **(*args as *mut *mut Probe);
        let scratch = *(*args.add(1) as *mut *mut u8);
        let counters = scratch::counter_bytes(probe.reduce_vars as u64).unwrap();
        let gang = __accemu_gang_id() as usize;
        let zero = (0..counters).all(|i| *scratch.add(i) == 0);
        if gang == 0 {
            probe.counters_zero = zero;
            probe.gangs = __accemu_num_gangs();
            probe.scratch = scratch as usize;
        } else {
            probe.counters_zero &= zero;
        }
        let part = 16 * probe.reduce_vars;
        std::ptr::write_bytes(scratch.add(counters + gang * part), 0xff, part);
    }
}

/// The descriptor of `kernel` (two slots: the probe, the scratch pointer); `arg_sizes` null
/// or two sizes.
fn descriptor(reduce_vars: usize, flags: u64, arg_sizes: *const u32) -> AccrtKernel {
    AccrtKernel {
        image: std::ptr::null(),
        image_size: 0,
        name: c"k".as_ptr(),
        function: c"main".as_ptr(),
        loc: c"t.c:1:1".as_ptr(),
        cache: std::ptr::null_mut(),
        emulator_entry: Some(kernel),
        flags,
        reduce_vars: reduce_vars as u64,
        scratch_arg: 1,
        private_arg: 0,
        num_args: 2,
        arg_sizes,
    }
}

fn launch(reduce_vars: usize, flags: u64, gangs: i64) -> Probe {
    launch_on(reduce_vars, flags, gangs, None)
}

/// A launch on async queue `queue` (None: synchronous), by a descriptor that does not give
/// its slots' sizes (so the emulator runs it at the launch).
fn launch_on(reduce_vars: usize, flags: u64, gangs: i64, queue: Option<i64>) -> Probe {
    let mut probe = Probe { reduce_vars, ..Probe::default() };
    let mut p: *mut Probe = &mut probe;
    let mut slot: *mut c_void = std::ptr::null_mut();
    let mut args = [(&mut p) as *mut *mut Probe as *mut c_void, (&mut slot) as *mut *mut c_void as *mut c_void];
    let mut k = descriptor(reduce_vars, flags, std::ptr::null());
    // SAFETY: a complete descriptor and the kernel's argument array.
    unsafe {
        match queue {
            None => __accrt_launch(&mut k, gangs, 1, 1, args.as_mut_ptr()),
            Some(q) => __accrt_launch_async(&mut k, gangs, 1, 1, args.as_mut_ptr(), q),
        }
    };
    assert_eq!(slot as usize, probe.scratch);
    probe
}

#[test]
fn scratch_and_gang_cap_on_the_emulator() {
    // Set before the first call: the decision is cached for the process.
    std::env::set_var("ACC_DEVICE_TYPE", "emulator");
    assert_eq!(__accrt_use_device(), 1);
    let a = launch(8, ACCRT_KERNEL_CAP_GANGS, 1000);
    assert_eq!(a.gangs, 64);
    assert!(a.counters_zero);
    // No cap without the flag; 40 variables have 512 counter bytes, 256 of which were the
    // last kernel's partials (0xff): zeroed again, in the same buffer (it is large enough).
    let b = launch(40, 0, 10);
    assert_eq!(b.gangs, 10);
    assert!(b.counters_zero);
    assert_eq!(a.scratch, b.scratch);
    // A larger need grows the buffer, zeroed.
    let c = launch(2, 0, 1000);
    assert_eq!(c.gangs, 1000);
    assert!(c.counters_zero);

    // Each queue has a buffer of its own, reused by the queue's later kernels (whose
    // counters its earlier ones left zero); the synchronous queue keeps its own.
    let q1 = launch_on(40, 0, 10, Some(1));
    let q2 = launch_on(40, 0, 10, Some(2));
    assert!(q1.counters_zero && q2.counters_zero);
    assert_ne!(q1.scratch, q2.scratch, "two queues share a scratch buffer");
    assert_ne!(q1.scratch, c.scratch, "a queue uses the synchronous queue's buffer");
    let q1_again = launch_on(1, 0, 5, Some(1));
    assert_eq!(q1_again.scratch, q1.scratch);
    assert!(q1_again.counters_zero);
    let sync_again = launch(2, 0, 3);
    assert_eq!(sync_again.scratch, c.scratch);
    // More gangs than queue 2's buffer holds: a new one, zeroed; queue 1's is untouched.
    let q2_big = launch_on(40, 0, 5000, Some(2));
    assert!(q2_big.counters_zero);
    assert_eq!(launch_on(3, 0, 7, Some(1)).scratch, q1.scratch);

    held_until_its_queue_is_waited_for();
}

/// With its slots' sizes, an async launch is held with a copy of its arguments (the
/// runtime's scratch slot filled in the copy) until its queue is waited for.
fn held_until_its_queue_is_waited_for() {
    static SIZES: [u32; 2] = [8, 8];
    let mut probe = Probe { reduce_vars: 4, ..Probe::default() };
    let mut p: *mut Probe = &mut probe;
    let mut slot: *mut c_void = std::ptr::null_mut();
    let mut args = [(&mut p) as *mut *mut Probe as *mut c_void, (&mut slot) as *mut *mut c_void as *mut c_void];
    let mut k = descriptor(4, 0, SIZES.as_ptr());
    // SAFETY: a complete descriptor (two slots of 8 bytes) and the kernel's argument array.
    unsafe { __accrt_launch_async(&mut k, 9, 1, 1, args.as_mut_ptr(), 7) };
    // The stub's slots may change once the launch has returned: the kernel has its copy.
    let before = (probe.gangs, slot);
    p = std::ptr::null_mut();
    let _ = p;
    assert_eq!(before, (0, std::ptr::null_mut()), "the kernel ran at its launch, or wrote the caller's scratch slot");
    accrt::api::sync::acc_wait(7);
    assert_eq!(probe.gangs, 9);
    assert!(probe.counters_zero);
    assert_ne!(probe.scratch, 0);
}
