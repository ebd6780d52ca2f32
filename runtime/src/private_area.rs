//! The private area of a launch: `private` and `firstprivate` copies whose size is known
//! only at run time (sections of pointers, `private(p[0:n])`, and firstprivate variables too
//! large for a kernel parameter). docs/runtime-abi.md, "Private area".
//!
//! The kernel passes, after the area's slot, the bytes of one gang's (G), one worker's (W)
//! and one thread's (T) copies; each gang's part of the area is `[G][W × workers][T ×
//! workers × vector]`, which the device runtime's `__acc_private_copy` (runtime-ir/private.c)
//! indexes. The area is a block of the device pool, allocated for one launch with its final
//! sizes and released (mem.rs) once no queue can still use it: launches on different queues
//! never share one.
//!
//! Also here: the host path's versions of the two device helpers (one gang, one worker, one
//! lane), which the host copy of an outlined region calls.
//!
//! Not here: where the copies come from in the kernel (codegen/src/private_copies.rs).

use std::ffi::c_void;

use crate::launch::Size;
use crate::mem::{self, DevPtr};

/// Bytes of one gang's part: `g + workers * w + workers * vector * t`; `None` on overflow or
/// a negative size.
pub fn gang_bytes(g: i64, w: i64, t: i64, workers: u32, vector: u32) -> Option<u64> {
    let (g, w, t) = (u64::try_from(g).ok()?, u64::try_from(w).ok()?, u64::try_from(t).ok()?);
    let workers = u64::from(workers);
    let threads = workers.checked_mul(u64::from(vector))?;
    g.checked_add(workers.checked_mul(w)?)?.checked_add(threads.checked_mul(t)?)
}

/// Bytes of the whole area of a launch of `size`.
pub fn area_bytes(g: i64, w: i64, t: i64, size: Size) -> Option<usize> {
    let bytes = gang_bytes(g, w, t, size.workers, size.vector)?.checked_mul(size.total_gangs())?;
    usize::try_from(bytes).ok()
}

/// The most gangs whose parts of `per_gang` bytes fit in `budget` bytes: at least one
/// (`u32::MAX` when a gang needs none).
pub fn gangs_within(per_gang: u64, budget: u64) -> u32 {
    match per_gang {
        0 => u32::MAX,
        b => u32::try_from(budget / b).unwrap_or(u32::MAX).max(1),
    }
}

/// The kernel's G, W, T (`private_arg > 0`).
///
/// # Safety
/// As for [`with_private_area`].
unsafe fn copy_sizes(private_arg: u64, args: *mut *mut c_void) -> [i64; 3] {
    let a = (private_arg - 1) as usize;
    // SAFETY: the caller guarantees the three size slots after the area's.
    [1, 2, 3].map(|k| unsafe { *(*args.add(a + k) as *const i64) })
}

/// The most gangs of a launch of `size`'s workers and lanes whose private area fits in
/// `budget()` bytes (`u32::MAX` without private copies): the runtime lowers a gang count it
/// chose (`ACCRT_KERNEL_CAP_GANGS`) to it, so that per-thread copies of a large section
/// (gangs x threads x bytes) need not fail for lack of memory. Partitioned loops stride by
/// the real launch size, so fewer gangs compute the same.
///
/// # Safety
/// As for [`with_private_area`].
pub unsafe fn gangs_that_fit(private_arg: u64, args: *mut *mut c_void, size: Size, budget: impl FnOnce() -> u64) -> u32 {
    if private_arg == 0 || args.is_null() {
        return u32::MAX;
    }
    // SAFETY: the caller's guarantee.
    let [g, w, t] = unsafe { copy_sizes(private_arg, args) };
    // (The budget is a driver call: only for a launch whose copies take bytes; a reduction's
    // room the kernel did not use takes none.)
    match gang_bytes(g, w, t, size.workers, size.vector) {
        Some(0) => u32::MAX,
        Some(b) => gangs_within(b, budget()),
        None => 1,
    }
}

/// Runs `launch` (final sizes `size`) with the private area its kernel asks for written to
/// its slot; with `private_arg == 0`, just runs `launch`. The area is released after
/// `launch` has enqueued the kernel: the pool hands it out again only once no queue can
/// still use it.
///
/// # Safety
/// With `private_arg > 0`, `args[private_arg - 1]` must point to a writable pointer-sized
/// slot and the next three entries to `i64` values.
pub unsafe fn with_private_area<R>(private_arg: u64, size: Size, args: *mut *mut c_void, what: &str, launch: impl FnOnce() -> R) -> R {
    if private_arg == 0 {
        return launch();
    }
    assert!(!args.is_null(), "kernel with private copies launched without arguments{what}");
    let a = (private_arg - 1) as usize;
    // SAFETY: the caller's guarantee.
    let [g, w, t] = unsafe { copy_sizes(private_arg, args) };
    let Some(bytes) = area_bytes(g, w, t, size) else {
        crate::diag::runtime_error(&format!(
            "private copies of {g} bytes per gang, {w} per worker and {t} per thread take more memory than the address space holds{what}"
        ));
    };
    // Copies the kernel turned out not to need (a reduction's, codegen/src/private_copies.rs
    // `ReductionView`) take no bytes: no block, the slot stays null.
    if bytes == 0 {
        return launch();
    }
    let block = mem::alloc_block(bytes, what);
    // SAFETY: the caller guarantees that `args[a]` points to a pointer slot.
    unsafe { *(*args.add(a) as *mut *mut c_void) = block as *mut c_void };
    let r = launch();
    mem::release(block as DevPtr, what);
    r
}

/// The host path's `__acc_private_copy`: one gang of one worker of one lane, so the area is
/// `[G][W][T]`.
///
/// # Safety
/// `area` must be the host block the host stub allocated for the region (G + W + T bytes).
#[no_mangle]
pub unsafe extern "C" fn __acc_private_copy(area: *mut c_void, g: i64, w: i64, _t: i64, level: i64, offset: i64) -> *mut c_void {
    let base = match level {
        0 => 0,
        1 => g,
        _ => g + w,
    };
    // SAFETY: the offset is inside the area the caller allocated (its layout's guarantee).
    unsafe { area.cast::<u8>().offset((base + offset) as isize).cast() }
}

/// The host path's `__acc_private_init`: a plain copy.
///
/// # Safety
/// `dst` and `src` must hold `bytes` bytes and not overlap.
#[no_mangle]
pub unsafe extern "C" fn __acc_private_init(dst: *mut c_void, src: *const c_void, bytes: i64, _level: i64) {
    if bytes > 0 {
        // SAFETY: the caller's guarantee.
        unsafe { std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), bytes as usize) };
    }
}

/// The host path's `__acc_private_rows` (runtime-ir/private.c): the tables of a copy of a
/// section through `levels` levels of pointer rows, and with `source` its rows filled from
/// the rows it points to (the host's, on the host path). `dims[2l]` is level l's entry count
/// per sub-table, `dims[2l + 1]` the rebase of what its entries point to.
///
/// # Safety
/// `dims` must hold `2 * levels` values; `copy` the tables (each rounded up to 16 bytes)
/// then the rows of `row_bytes` they describe; `source`, when not null, the tables of the
/// section's data, with rows readable from their rebased starts for `row_bytes`.
#[no_mangle]
pub unsafe extern "C" fn __acc_private_rows(copy: *mut c_void, levels: i64, dims: *const i64, row_bytes: i64, source: *const *const u8, _level: i64) {
    let levels = levels.max(0) as usize;
    // SAFETY: the caller's guarantee on `dims`.
    let dims = unsafe { std::slice::from_raw_parts(dims, 2 * levels) };
    let layout = rows_layout(levels, dims);
    let row_bytes = row_bytes.max(0) as usize;
    let base = copy.cast::<u8>();
    // SAFETY: the layout the caller guarantees: the tables, then the rows.
    unsafe {
        for l in 0..levels {
            let (at, n) = layout[l];
            let (next, _) = layout[l + 1];
            let step = if l + 1 < levels { dims[2 * (l + 1)].max(0) as usize * 8 } else { row_bytes };
            let table = base.add(at).cast::<*mut u8>();
            for e in 0..n {
                *table.add(e) = base.add(next + e * step).wrapping_offset(-(dims[2 * l + 1] as isize));
            }
        }
        if source.is_null() || row_bytes == 0 {
            return;
        }
        let (data, rows) = layout[levels];
        for r in 0..rows {
            let (mut stride, mut rest, mut at) = (rows, r, source);
            let mut row = std::ptr::null();
            for l in 0..levels {
                stride /= dims[2 * l].max(1) as usize;
                let p = (*at.add(rest / stride)).offset(dims[2 * l + 1] as isize);
                rest %= stride;
                if l + 1 < levels {
                    at = p.cast();
                } else {
                    row = p;
                }
            }
            std::ptr::copy_nonoverlapping(row, base.add(data + r * row_bytes), row_bytes);
        }
    }
}

/// Per level of a copy through pointer rows (and, last, the rows): the byte offset of its
/// table in the copy and its entry count (runtime-ir/private.c `rows_level`).
fn rows_layout(levels: usize, dims: &[i64]) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(levels + 1);
    let (mut at, mut n) = (0usize, 1usize);
    for l in 0..=levels {
        if l > 0 {
            at += (n * 8 + 15) & !15;
        }
        if l < levels {
            n *= dims[2 * l].max(0) as usize;
        }
        out.push((at, n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_of_pointer_rows_precede_the_rows() {
        // One level of 3 rows: 24 bytes of pointers (32 with padding), then the rows.
        assert_eq!(rows_layout(1, &[3, 0]), vec![(0, 3), (32, 3)]);
        // Two levels, 2 x 5: 2 pointers (16), 10 pointers (80), then 10 rows.
        assert_eq!(rows_layout(2, &[2, 0, 5, 8]), vec![(0, 2), (16, 10), (96, 10)]);
    }

    #[test]
    fn a_gang_holds_its_copies_and_its_workers_and_threads_copies() {
        assert_eq!(gang_bytes(64, 0, 0, 4, 32), Some(64));
        assert_eq!(gang_bytes(0, 16, 0, 4, 32), Some(64));
        assert_eq!(gang_bytes(0, 0, 16, 4, 32), Some(16 * 128));
        assert_eq!(gang_bytes(32, 16, 48, 2, 8), Some(32 + 2 * 16 + 16 * 48));
        assert_eq!(gang_bytes(-1, 0, 0, 1, 1), None);
        assert_eq!(gang_bytes(0, 0, i64::MAX, 1024, 1024), None);
    }

    #[test]
    fn the_area_has_a_part_per_gang() {
        let s = Size { gangs: 10, gangs_y: 2, gangs_z: 1, workers: 4, vector: 32 };
        assert_eq!(area_bytes(8000, 0, 0, s), Some(8000 * 20));
        assert_eq!(area_bytes(0, 0, 16, s), Some(16 * 128 * 20));
    }

    #[test]
    fn gangs_are_lowered_until_their_copies_fit() {
        assert_eq!(gangs_within(0, 100), u32::MAX);
        assert_eq!(gangs_within(10, 100), 10);
        assert_eq!(gangs_within(1 << 30, 1 << 20), 1);
        assert_eq!(gangs_within(1, u64::MAX), u32::MAX);
    }

    #[test]
    fn host_copies_are_laid_out_gang_worker_thread() {
        let mut area = [0u8; 64];
        let p = area.as_mut_ptr() as *mut c_void;
        // SAFETY: every offset is inside `area`.
        unsafe {
            assert_eq!(__acc_private_copy(p, 16, 32, 16, 0, 0) as usize, p as usize);
            assert_eq!(__acc_private_copy(p, 16, 32, 16, 1, 16) as usize, p as usize + 32);
            assert_eq!(__acc_private_copy(p, 16, 32, 16, 2, 0) as usize, p as usize + 48);
        }
    }
}
