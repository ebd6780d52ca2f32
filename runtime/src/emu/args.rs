//! A kernel launch's argument values, copied out of the host stub's slots, so that the
//! emulator can run an async launch later (emu_queue.rs) from an array of its own: the
//! stub's slots are its stack, gone once the launch returns.
//!
//! Expects: the descriptor's `arg_sizes` (the compiler's: the bytes of each slot). Each copy
//! is 16-byte aligned, as no argument type of a kernel needs more.

use std::ffi::c_void;

/// The alignment (and unit) of the copies.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Unit([u8; 16]);

/// The copied values and an argument array pointing at them.
pub struct ArgCopy {
    /// The values (heap memory: moving an `ArgCopy` moves no value, so `slots` stay valid).
    _values: Vec<Unit>,
    slots: Vec<*mut c_void>,
}

// SAFETY: an ArgCopy owns its values; the slots point into them and nothing else holds
// them, so the copy may run its kernel on another thread.
unsafe impl Send for ArgCopy {}

/// Each slot's offset in the copy and the copy's bytes, each slot rounded up to 16 bytes.
pub fn layout(sizes: &[u32]) -> (Vec<usize>, usize) {
    let mut at = 0usize;
    let offsets = sizes
        .iter()
        .map(|&n| {
            let here = at;
            at += (n as usize).div_ceil(16) * 16;
            here
        })
        .collect();
    (offsets, at)
}

impl ArgCopy {
    /// Copies the `sizes.len()` values `args` points to.
    ///
    /// # Safety
    /// `args` holds `sizes.len()` pointers, each to `sizes[i]` readable bytes.
    pub unsafe fn take(sizes: &[u32], args: *const *mut c_void) -> ArgCopy {
        let (offsets, bytes) = layout(sizes);
        let mut values = vec![Unit([0; 16]); bytes.div_ceil(16).max(1)];
        let base = values.as_mut_ptr() as *mut u8;
        let slots = offsets
            .iter()
            .zip(sizes)
            .enumerate()
            .map(|(i, (&off, &n))| {
                // SAFETY: `args[i]` points to `n` readable bytes (caller's guarantee) and
                // `off + n` lies within `values` (layout), which does not overlap them.
                unsafe {
                    let dst = base.add(off);
                    std::ptr::copy_nonoverlapping(*args.add(i) as *const u8, dst, n as usize);
                    dst as *mut c_void
                }
            })
            .collect();
        ArgCopy { _values: values, slots }
    }

    /// The argument array, for the kernel and for the runtime's slots (scratch, private
    /// area) written before it runs.
    pub fn args(&mut self) -> *mut *mut c_void {
        self.slots.as_mut_ptr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_rounded_to_16_bytes() {
        assert_eq!(layout(&[]), (vec![], 0));
        assert_eq!(layout(&[4, 8, 16, 17, 1]), (vec![0, 16, 32, 48, 80], 96));
    }

    #[test]
    fn the_copy_keeps_the_values_when_the_slots_change() {
        let (mut n, mut x, mut p) = (7i32, 2.5f64, [1u64, 2, 3]);
        let mut args = [&mut n as *mut i32 as *mut c_void, &mut x as *mut f64 as *mut c_void, p.as_mut_ptr() as *mut c_void];
        // SAFETY: three slots of 4, 8 and 24 bytes.
        let mut copy = unsafe { ArgCopy::take(&[4, 8, 24], args.as_mut_ptr()) };
        (n, x, p) = (0, 0.0, [0; 3]);
        args = [std::ptr::null_mut(); 3];
        let a = copy.args();
        // SAFETY: the copy's slots hold the values taken above.
        unsafe {
            assert_eq!(*(*a as *const i32), 7);
            assert_eq!(*(*a.add(1) as *const f64), 2.5);
            assert_eq!(*(*a.add(2) as *const [u64; 3]), [1, 2, 3]);
            assert_eq!(*a.add(1) as usize % 16, 0);
        }
        let _ = (n, x, p, args);
    }
}
