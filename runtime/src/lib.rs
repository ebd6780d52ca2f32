//! `accrt`: the host runtime of accc, linked into every compiled program (`libaccrt.so` by
//! default, `libaccrt.a` with `accc -static-libaccrt`).
//!
//! This file holds the C ABI of `docs/runtime-abi.md` (also `include/accrt.h`); each entry
//! point only converts its arguments and runs inside [`diag::guard`]. The work is done by:
//! - [`device`]: whether regions run on the GPU, device and context selection;
//! - [`present`]: the present table (pure bookkeeping: structured and dynamic counts);
//! - [`data`]: data-clause semantics, `update` and `deviceptr`, and the data routines'
//!   table operations;
//! - [`declare`]: the globals of file-scope `declare` directives, mapped at first use;
//! - [`api`]: the OpenACC runtime routines of `include/openacc.h` (`acc_copyin`, ...);
//! - [`queue`]: async queues (a CUDA stream per queue on the GPU; waits, tests, releases);
//! - [`launch`]: kernel loading and launch-size decisions;
//! - [`mem`]: device memory of the selected target;
//! - [`private_area`]: the memory of private copies whose size is known at run time;
//! - [`scratch`]: the scratch memory of gang-level reductions;
//! - [`emu`]: the device emulator (`ACC_DEVICE_TYPE=emulator`);
//! - [`cuda`]: the dlopen'ed CUDA driver — the only module that calls it;
//! - [`pool`]: reuse of the device blocks of data clauses;
//! - [`profile`]: the `ACC_TIME` summary at exit;
//! - [`notify`]: `ACC_NOTIFY` output; [`diag`]: error reporting and exit.

use std::ffi::{c_char, c_void};

pub mod api;
pub mod bounce;
pub mod cuda;
pub mod data;
pub mod declare;
pub mod device;
pub mod diag;
pub mod emu;
pub mod emu_queue;
pub mod image;
pub mod launch;
pub mod mem;
pub mod notify;
pub mod pool;
pub mod present;
pub mod profile;
pub mod queue;
pub mod queue_copy;
pub mod rows;
pub mod private_area;
pub mod scratch;
pub mod staging;

use data::{Item, Kind, Site};
use diag::{cstr, guard};
use queue::Queue;

/// A file's routine library as embedded by the pass (`accrt_routines` in C): the image
/// that holds it (codegen/src/image_job.rs, `register_library`).
#[repr(C)]
#[derive(Debug)]
pub struct AccrtRoutines {
    pub image: *const c_void,
    pub image_size: u64,
}

/// Registers the routine library of one file (a constructor the pass emits calls it at
/// program start): kernels of other files that call its routines are linked with it on the
/// GPU (image.rs).
///
/// # Safety
/// `r` must point to a registration emitted by the compiler.
#[no_mangle]
pub unsafe extern "C" fn __accrt_register_routines(r: *const AccrtRoutines) {
    // SAFETY: the caller's guarantee; the image is a constant of the program.
    guard(|| unsafe {
        if let Some(r) = r.as_ref() {
            image::register_library(r.image, r.image_size as usize)
        }
    })
}

/// Called in place of a `routine nohost` function that has no host version in the program,
/// when host code calls it (the host fallback of a compute region): stops the program.
///
/// # Safety
/// `name` and `loc` must be NUL-terminated strings (or null).
#[no_mangle]
pub unsafe extern "C" fn __accrt_no_host_version(name: *const c_char, loc: *const c_char) {
    // SAFETY: the caller's guarantee.
    let (name, loc) = unsafe { (cstr(name, "?"), cstr(loc, "?")) };
    diag::user_error(
        &loc,
        &format!("function '{name}' was called on the host, but its 'routine' directive says 'nohost': it has no host version (the compute region ran on the host)"),
    )
}

/// One kernel as embedded in the host object by the pass (`accrt_kernel` in C).
#[repr(C)]
#[derive(Debug)]
pub struct AccrtKernel {
    pub image: *const c_void,
    pub image_size: u64,
    pub name: *const c_char,
    pub function: *const c_char,
    pub loc: *const c_char,
    /// Runtime-owned, starts null: the loaded kernel (`launch::Loaded`: its `CUfunction` and
    /// thread limit).
    pub cache: *mut c_void,
    /// The kernel's host copy for the emulator (`void entry(void **args)`).
    pub emulator_entry: Option<emu::Entry>,
    /// `ACCRT_KERNEL_*` bits.
    pub flags: u64,
    /// Number of gang-level reduction variables (0: none, no scratch).
    pub reduce_vars: u64,
    /// Index in `args` of the slot the runtime fills with the scratch pointer (when
    /// `reduce_vars > 0`).
    pub scratch_arg: u64,
    /// One more than the index in `args` of the slot the runtime fills with the private
    /// area's address (0: the kernel has no private copies of run-time size); the next three
    /// slots hold the kernel's `i64` bytes per gang, per worker and per thread
    /// (private_area.rs).
    pub private_arg: u64,
    /// Number of argument slots, and the bytes of each (`num_args` `u32`s; null in a
    /// descriptor that does not give them): what the emulator copies to hold an async
    /// launch until its queue runs it (emu_queue.rs).
    pub num_args: u64,
    pub arg_sizes: *const u32,
}

/// `accrt_kernel.flags`: the kernel synchronises the vector lanes of a worker.
pub const ACCRT_KERNEL_WORKER_SYNC: u64 = 1;
/// `accrt_kernel.flags`: the kernel has gang-level reductions and no `num_gangs` clause: the
/// runtime caps its gangs to one wave (GPU) or 64 (emulator).
pub const ACCRT_KERNEL_CAP_GANGS: u64 = 2;
/// `accrt_kernel.flags`: the kernel sets the device slot of a `declare link` global (the
/// address of the copy its data clauses mapped), which every kernel reaching the global
/// shares: such launches take turns, and one on an async queue returns when its kernel is done.
pub const ACCRT_KERNEL_LINK_SLOT: u64 = 4;
/// `accrt_kernel.flags`: the kernel allocates arrays from the device heap (docs/runtime-abi.md).
pub const ACCRT_KERNEL_DEVICE_HEAP: u64 = 8;

pub const ACCRT_COPY: i32 = 0;
pub const ACCRT_COPYIN: i32 = 1;
pub const ACCRT_COPYOUT: i32 = 2;
pub const ACCRT_CREATE: i32 = 3;
pub const ACCRT_PRESENT: i32 = 4;
pub const ACCRT_NO_CREATE: i32 = 5;
pub const ACCRT_DELETE: i32 = 6;
pub const ACCRT_DEVICEPTR: i32 = 7;
/// `kind` flag bits (docs/runtime-abi.md): `enter data`/`exit data` (dynamic reference
/// counter; without it, the structured one), `exit data ... finalize`.
pub const ACCRT_DYNAMIC: i32 = data::FLAG_DYNAMIC;
pub const ACCRT_FINALIZE: i32 = data::FLAG_FINALIZE;
/// `flags` bit of `__accrt_update_device/self`: `update ... if_present`.
pub const ACCRT_IF_PRESENT: i32 = data::FLAG_IF_PRESENT;
/// `kind` flag bit: `create(zero:)`/`copyout(zero:)`, a new device copy is zero-filled.
pub const ACCRT_ZERO: i32 = data::FLAG_ZERO;

/// The `init`, `shutdown` and `set` directives (docs/runtime-abi.md): `directive` 0, 1 or
/// 2, `device_type` an `acc_device_t` value (-1: no clause), `given` bit 1: `device_num`,
/// bit 2: `default_async`.
///
/// # Safety
/// `loc` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __accrt_device_directive(directive: i32, device_type: i32, device_num: i64, default_async: i64, given: i32, loc: *const c_char) {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let loc = unsafe { cstr(loc, "?") };
        let num = (given & 1 != 0).then_some(device_num);
        let queue = (given & 2 != 0).then_some(default_async);
        api::device::directive(directive, device_type, num, queue, &loc)
    })
}

/// 1 when compute regions run on a device (the GPU or the emulator), else 0. Decided
/// once, on first call.
#[no_mangle]
pub extern "C" fn __accrt_use_device() -> i32 {
    guard(|| i32::from(device::target().is_some()))
}

/// Run `f` on the clause item given by the C arguments.
///
/// # Safety
/// `loc` and `text` must be null or NUL-terminated strings.
unsafe fn with_item<T>(
    host: *mut c_void,
    bytes: i64,
    loc: *const c_char,
    text: *const c_char,
    f: impl FnOnce(&Item) -> T,
) -> T {
    // SAFETY: guaranteed by the caller.
    let (loc, text) = unsafe { (cstr(loc, "?"), cstr(text, "?")) };
    f(&Item {
        host,
        bytes,
        site: Site::Clause { loc: &loc, text: &text },
    })
}

/// Counts one clause item of a directive for `ACC_TIME` (profile/).
fn count_item(it: &Item, op: profile::Op) {
    if let Site::Clause { loc, text } = it.site {
        profile::directive(loc, text, op);
    }
}

/// The queue a directive's async argument `queue` names (`None`: the synchronous forms);
/// an invalid argument is an error at the item's directive, also on the host path.
fn item_queue(it: &Item, queue: Option<i64>) -> Queue {
    match (queue, it.site) {
        (None, _) => Queue::Sync,
        (Some(q), Site::Clause { loc, .. }) => queue::of_clause(q, "async", loc),
        (Some(_), Site::Routine(r)) => unreachable!("a queue argument of routine {r} through the clause ABI"),
    }
}

/// Entry of one data clause item on `queue` (`None`: synchronous).
///
/// # Safety
/// As for [`__accrt_data_enter`].
unsafe fn data_enter(host: *mut c_void, bytes: i64, kind: i32, loc: *const c_char, text: *const c_char, queue: Option<i64>) -> *mut c_void {
    // SAFETY: forwarded caller guarantee on `loc` and `text`.
    guard(|| unsafe {
        with_item(host, bytes, loc, text, |it| {
            let q = item_queue(it, queue);
            let c = Kind::from_abi(kind);
            count_item(it, profile::Op::Enter);
            data::enter(it, c.kind, c.counter, c.zero, q)
        })
    })
}

/// Exit of one data clause item on `queue` (`None`: synchronous).
///
/// # Safety
/// As for [`__accrt_data_enter`].
unsafe fn data_exit(host: *mut c_void, bytes: i64, kind: i32, loc: *const c_char, text: *const c_char, queue: Option<i64>) {
    // SAFETY: forwarded caller guarantee on `loc` and `text`.
    guard(|| unsafe {
        with_item(host, bytes, loc, text, |it| {
            let q = item_queue(it, queue);
            let c = Kind::from_abi(kind);
            count_item(it, profile::Op::Exit);
            data::exit(it, c.kind, c.counter, c.finalize, q)
        })
    })
}

/// Entry of one data clause item; returns the device address of `host` (null for a
/// zero-length item, an absent `no_create` one, `deviceptr`, or on the host).
///
/// # Safety
/// `host` must be readable and writable for `bytes` bytes; `loc` and `text` null or
/// NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_data_enter(
    host: *mut c_void,
    bytes: i64,
    kind: i32,
    loc: *const c_char,
    text: *const c_char,
) -> *mut c_void {
    // SAFETY: forwarded caller guarantees.
    unsafe { data_enter(host, bytes, kind, loc, text, None) }
}

/// Entry of one data clause item whose copy goes on async queue `queue` (a directive's
/// async argument as written).
///
/// # Safety
/// As for [`__accrt_data_enter`]; `host` stays readable until the queue has done the copy.
#[no_mangle]
pub unsafe extern "C" fn __accrt_data_enter_async(
    host: *mut c_void,
    bytes: i64,
    kind: i32,
    loc: *const c_char,
    text: *const c_char,
    queue: i64,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { data_enter(host, bytes, kind, loc, text, Some(queue)) };
}

/// Exit of one data clause item.
///
/// # Safety
/// As for [`__accrt_data_enter`].
#[no_mangle]
pub unsafe extern "C" fn __accrt_data_exit(
    host: *mut c_void,
    bytes: i64,
    kind: i32,
    loc: *const c_char,
    text: *const c_char,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { data_exit(host, bytes, kind, loc, text, None) }
}

/// Exit of one data clause item whose copy-out goes on async queue `queue`; the device copy
/// is freed only after the queues' work that may use it.
///
/// # Safety
/// As for [`__accrt_data_enter`]; `host` stays writable until the queue has done the copy.
#[no_mangle]
pub unsafe extern "C" fn __accrt_data_exit_async(
    host: *mut c_void,
    bytes: i64,
    kind: i32,
    loc: *const c_char,
    text: *const c_char,
    queue: i64,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { data_exit(host, bytes, kind, loc, text, Some(queue)) }
}

/// A global (or a section of one) of a file-scope `declare create/copyin/device_resident`
/// (`kind` ACCRT_CREATE or ACCRT_COPYIN), registered by the translation unit's constructor:
/// present on the device for the whole program from the first data or compute operation on
/// (declare.rs). `init`: for ACCRT_COPYIN, the bytes to upload (the initial value's image,
/// or the global itself for one defined elsewhere); null: all zero bytes.
///
/// # Safety
/// `host` must stay readable and writable for `bytes` bytes for the whole program, `init`
/// (when not null) readable for `bytes` bytes; `loc` and `text` null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn __accrt_declare(
    host: *mut c_void,
    bytes: i64,
    init: *const c_void,
    kind: i32,
    loc: *const c_char,
    text: *const c_char,
) {
    // SAFETY: forwarded caller guarantee on `loc` and `text`.
    unsafe { register_declared(host, bytes, init, kind, Vec::new(), loc, text) }
}

/// `__accrt_declare` of a section through pointer rows (`declare copyin(rows_g[0:4][0:8])` of
/// `double *rows_g[4]`): `levels` as for [`__accrt_data_enter_rows`]. It is mapped at the
/// program's first data or compute operation from the row pointers the global holds then
/// (copyin uploads the rows' current contents; `init` null: `create(zero:)`).
///
/// # Safety
/// `loc` and `text` must be NUL-terminated strings (or null); `levels` readable for
/// `3 * nlevels` values.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __accrt_declare_rows(
    host: *mut c_void,
    bytes: i64,
    init: *const c_void,
    kind: i32,
    levels: *const i64,
    nlevels: i32,
    loc: *const c_char,
    text: *const c_char,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { register_declared(host, bytes, init, kind, row_levels(levels, nlevels), loc, text) }
}

/// Records one file-scope declare item (declare.rs): `init` null for zeros (`create(zero:)`
/// too), else where copyin takes its bytes (for rows: the global itself, read at the first
/// use).
///
/// # Safety
/// `loc` and `text` must be NUL-terminated strings (or null).
unsafe fn register_declared(host: *mut c_void, bytes: i64, init: *const c_void, kind: i32, rows: Vec<rows::Level>, loc: *const c_char, text: *const c_char) {
    guard(|| {
        // SAFETY: forwarded caller guarantee.
        let (loc, text) = unsafe { (cstr(loc, "?"), cstr(text, "?")) };
        let fill = match kind {
            ACCRT_CREATE => declare::Fill::Nothing,
            ACCRT_COPYIN if init.is_null() => declare::Fill::Zeros,
            ACCRT_COPYIN => declare::Fill::From(init as usize),
            _ => panic!("__accrt_declare of kind {kind}"),
        };
        let bytes = usize::try_from(bytes).unwrap_or_else(|_| diag::user_error(&loc, &format!("negative length ({bytes} bytes) of declared {text}")));
        declare::register(declare::Declared { host: host as usize, bytes, fill, loc: loc.into_owned(), text: text.into_owned(), rows });
    })
}

/// The pointer-row levels of a section through pointer rows (`lower, length, elem_size` per
/// level, `n` levels).
///
/// # Safety
/// `levels` must be readable for `3 * n` values (null when `n` is 0).
unsafe fn row_levels(levels: *const i64, n: i32) -> Vec<rows::Level> {
    let n = usize::try_from(n).expect("a negative number of pointer-row levels");
    if n == 0 {
        return Vec::new();
    }
    // SAFETY: guaranteed by the caller.
    let raw = unsafe { std::slice::from_raw_parts(levels, 3 * n) };
    raw.chunks(3).map(|l| rows::Level { lower: l[0], length: l[1], elem_size: l[2] }).collect()
}

/// What a `_rows` entry point does with its item, its levels and its queue.
enum RowsOp {
    Enter,
    Exit,
    Update { to_device: bool },
}

/// One item of a section through pointer rows (`p[0:n][0:m]` of `double **p`): its first
/// level `host`/`bytes`, its `nlevels` pointer-row levels, `kind` (data clauses) or `flags`
/// (update), on `queue` (the async argument as written; `acc_async_sync` synchronous).
///
/// # Safety
/// As for [`__accrt_data_enter_rows`].
#[allow(clippy::too_many_arguments)]
unsafe fn rows_item(op: RowsOp, host: *mut c_void, bytes: i64, levels: *const i64, nlevels: i32, kind: i32, loc: *const c_char, text: *const c_char, queue: i64) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe {
        let levels = row_levels(levels, nlevels);
        with_item(host, bytes, loc, text, |it| {
            let q = item_queue(it, Some(queue));
            match op {
                RowsOp::Enter => {
                    let c = Kind::from_abi(kind);
                    count_item(it, profile::Op::Enter);
                    rows::enter(it, &levels, c.kind, c.counter, c.zero, q)
                }
                RowsOp::Exit => {
                    let c = Kind::from_abi(kind);
                    count_item(it, profile::Op::Exit);
                    rows::exit(it, &levels, c.kind, c.counter, c.finalize, q)
                }
                RowsOp::Update { to_device } => {
                    count_item(it, profile::Op::Update);
                    rows::update(it, &levels, to_device, update_if_present(kind), q)
                }
            }
        })
    })
}

/// Entry of a section through pointer rows (`copyin(p[0:n][0:m])` with `double **p`): the
/// row pointers `host`/`bytes` (the first level), then each row of the `nlevels` levels in
/// `levels` (`lower, length, elem_size` each), its pointer attached (rows.rs). `kind` as for
/// [`__accrt_data_enter`]; `queue` the directive's async argument (`acc_async_sync`: none).
///
/// # Safety
/// `host` and every row the section reaches through it must be readable and writable for
/// the item's bytes (until the queue is done with them); `levels` readable for `3 * nlevels`
/// values; `loc` and `text` null or NUL-terminated.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __accrt_data_enter_rows(host: *mut c_void, bytes: i64, levels: *const i64, nlevels: i32, kind: i32, loc: *const c_char, text: *const c_char, queue: i64) {
    // SAFETY: forwarded caller guarantees.
    unsafe { rows_item(RowsOp::Enter, host, bytes, levels, nlevels, kind, loc, text, queue) }
}

/// Exit of a section through pointer rows: each row's pointer detached and the row exited
/// (the deepest rows first), then the row pointers (rows.rs).
///
/// # Safety
/// As for [`__accrt_data_enter_rows`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __accrt_data_exit_rows(host: *mut c_void, bytes: i64, levels: *const i64, nlevels: i32, kind: i32, loc: *const c_char, text: *const c_char, queue: i64) {
    // SAFETY: forwarded caller guarantees.
    unsafe { rows_item(RowsOp::Exit, host, bytes, levels, nlevels, kind, loc, text, queue) }
}

/// `update device` of a section through pointer rows: its data rows (rows.rs). `flags` as
/// for [`__accrt_update_device`].
///
/// # Safety
/// As for [`__accrt_data_enter_rows`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __accrt_update_device_rows(host: *mut c_void, bytes: i64, levels: *const i64, nlevels: i32, flags: i32, loc: *const c_char, text: *const c_char, queue: i64) {
    // SAFETY: forwarded caller guarantees.
    unsafe { rows_item(RowsOp::Update { to_device: true }, host, bytes, levels, nlevels, flags, loc, text, queue) }
}

/// `update self` of a section through pointer rows: its data rows (rows.rs).
///
/// # Safety
/// As for [`__accrt_data_enter_rows`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __accrt_update_self_rows(host: *mut c_void, bytes: i64, levels: *const i64, nlevels: i32, flags: i32, loc: *const c_char, text: *const c_char, queue: i64) {
    // SAFETY: forwarded caller guarantees.
    unsafe { rows_item(RowsOp::Update { to_device: false }, host, bytes, levels, nlevels, flags, loc, text, queue) }
}

/// Decodes the `flags` of `__accrt_update_device/self` and `__accrt_use_device_addr`: only
/// `ACCRT_IF_PRESENT` exists (any other bit is a compiler bug).
fn update_if_present(flags: i32) -> bool {
    assert!(flags & !ACCRT_IF_PRESENT == 0, "unknown update flags {flags:#x}");
    flags & ACCRT_IF_PRESENT != 0
}

/// `update device/self` of one item on `queue` (`None`: synchronous).
///
/// # Safety
/// As for [`__accrt_data_enter`].
unsafe fn update(host: *mut c_void, bytes: i64, flags: i32, loc: *const c_char, text: *const c_char, to_device: bool, queue: Option<i64>) {
    // SAFETY: forwarded caller guarantee on `loc` and `text`.
    guard(|| unsafe {
        with_item(host, bytes, loc, text, |it| {
            let q = item_queue(it, queue);
            count_item(it, profile::Op::Update);
            data::update(it, to_device, update_if_present(flags), q)
        })
    })
}

/// `update device(...)`: copy a present range to the device (`flags`: `ACCRT_IF_PRESENT`
/// skips absent data).
///
/// # Safety
/// As for [`__accrt_data_enter`].
#[no_mangle]
pub unsafe extern "C" fn __accrt_update_device(
    host: *mut c_void,
    bytes: i64,
    flags: i32,
    loc: *const c_char,
    text: *const c_char,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { update(host, bytes, flags, loc, text, true, None) }
}

/// `update device(...) async(queue)`.
///
/// # Safety
/// As for [`__accrt_data_enter_async`].
#[no_mangle]
pub unsafe extern "C" fn __accrt_update_device_async(
    host: *mut c_void,
    bytes: i64,
    flags: i32,
    loc: *const c_char,
    text: *const c_char,
    queue: i64,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { update(host, bytes, flags, loc, text, true, Some(queue)) }
}

/// `update self(...)`: copy a present range back to the host (`flags` as for
/// [`__accrt_update_device`]).
///
/// # Safety
/// As for [`__accrt_data_enter`].
#[no_mangle]
pub unsafe extern "C" fn __accrt_update_self(
    host: *mut c_void,
    bytes: i64,
    flags: i32,
    loc: *const c_char,
    text: *const c_char,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { update(host, bytes, flags, loc, text, false, None) }
}

/// `update self(...) async(queue)`.
///
/// # Safety
/// As for [`__accrt_data_exit_async`].
#[no_mangle]
pub unsafe extern "C" fn __accrt_update_self_async(
    host: *mut c_void,
    bytes: i64,
    flags: i32,
    loc: *const c_char,
    text: *const c_char,
    queue: i64,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { update(host, bytes, flags, loc, text, false, Some(queue)) }
}

/// Device address of a host address inside (or one past the end of) a present range.
///
/// # Safety
/// `loc` and `text` must be null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_deviceptr(
    host: *mut c_void,
    loc: *const c_char,
    text: *const c_char,
) -> *mut c_void {
    guard(|| {
        // SAFETY: forwarded caller guarantee on `loc` and `text`.
        let (loc, text) = unsafe { (cstr(loc, "?"), cstr(text, "?")) };
        data::deviceptr(host, &loc, &text)
    })
}

/// `host_data use_device`: the device address of host address `host` (a listed pointer's
/// value or array's address) inside a present range; not present: an error naming `text` and
/// `loc`, or with `ACCRT_IF_PRESENT` in `flags` the host address. The host address itself when
/// regions run on the host.
///
/// # Safety
/// `loc` and `text` must be null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_use_device_addr(
    host: *mut c_void,
    flags: i32,
    loc: *const c_char,
    text: *const c_char,
) -> *mut c_void {
    guard(|| {
        // SAFETY: forwarded caller guarantee on `loc` and `text`.
        let (loc, text) = unsafe { (cstr(loc, "?"), cstr(text, "?")) };
        data::use_device_addr(host, update_if_present(flags), &loc, &text)
    })
}

/// Device address of a pointer used in a compute region: its current value translated
/// through the present table, else its distance from `fallback` (the start of the data
/// clause item it was named in; null when none) applied to that item's device copy.
///
/// # Safety
/// `loc` and `text` must be null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_translate(
    host: *mut c_void,
    fallback: *mut c_void,
    loc: *const c_char,
    text: *const c_char,
) -> *mut c_void {
    guard(|| {
        // SAFETY: forwarded caller guarantee on `loc` and `text`.
        let (loc, text) = unsafe { (cstr(loc, "?"), cstr(text, "?")) };
        data::translate(host, fallback, false, &loc, &text)
    })
}

/// [`__accrt_translate`] of a pointer named in a `no_create` clause: when neither it nor
/// `fallback` is present, its host address (OpenACC 3.3 §2.7.10), not an error.
///
/// # Safety
/// `loc` and `text` must be null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_translate_no_create(
    host: *mut c_void,
    fallback: *mut c_void,
    loc: *const c_char,
    text: *const c_char,
) -> *mut c_void {
    guard(|| {
        // SAFETY: forwarded caller guarantee on `loc` and `text`.
        let (loc, text) = unsafe { (cstr(loc, "?"), cstr(text, "?")) };
        data::translate(host, fallback, true, &loc, &text)
    })
}

/// Decodes the `flags` of `__accrt_attach/detach`: only ACCRT_FINALIZE is defined.
fn attach_finalize(flags: i32) -> bool {
    assert!(flags & !ACCRT_FINALIZE == 0, "unknown attach/detach flags {flags:#x}");
    flags & ACCRT_FINALIZE != 0
}

/// The attach action of an `attach` clause item, or of a data clause item whose section is
/// based on a struct member or an element (OpenACC 3.3 §2.7.2): `ptr` is the address of the
/// pointer. No action unless the pointer and its target are present.
///
/// # Safety
/// `ptr` must be readable for one pointer; `loc` and `text` null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_attach(ptr: *mut *mut c_void, flags: i32, loc: *const c_char, text: *const c_char) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe {
        attach_finalize(flags);
        let (loc, text) = (cstr(loc, "?"), cstr(text, "?"));
        data::attach(ptr, Site::Clause { loc: &loc, text: &text })
    })
}

/// The detach action (`detach` clauses, `exit data` items, the exits of attached items);
/// ACCRT_FINALIZE in `flags`: the attachment counter drops to zero.
///
/// # Safety
/// As for [`__accrt_attach`].
#[no_mangle]
pub unsafe extern "C" fn __accrt_detach(ptr: *mut *mut c_void, flags: i32, loc: *const c_char, text: *const c_char) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe {
        let finalize = attach_finalize(flags);
        let (loc, text) = (cstr(loc, "?"), cstr(text, "?"));
        data::detach(ptr, finalize, Site::Clause { loc: &loc, text: &text })
    })
}

/// A trailing dimension of a multi-dimensional section whose bounds the compile could not
/// check (`a[i:n][0:m]` with a variable `m`): it must be whole (`lower` 0, `length` equal to
/// `extent`), else the section is not contiguous, an error at `loc` naming `text`. Checked
/// on every path, before the directive's other calls.
///
/// # Safety
/// `loc` and `text` must be null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_check_dim(lower: i64, length: i64, extent: i64, number: i32, loc: *const c_char, text: *const c_char) {
    guard(|| {
        // SAFETY: forwarded caller guarantee on `loc` and `text`.
        let (loc, text) = unsafe { (cstr(loc, "?"), cstr(text, "?")) };
        if let Some(msg) = data::dim_error(&text, number, lower, length, extent) {
            diag::user_error(&loc, &msg);
        }
    })
}

/// A launch-size clause's value (`num_gangs`, `num_workers`, `vector_length`), checked
/// before the region runs on either path: it must be positive (OpenACC 3.3 §2.5.10-12).
///
/// # Safety
/// `clause` and `loc` must be null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __accrt_check_launch_size(value: i64, clause: *const c_char, loc: *const c_char) {
    guard(|| {
        // SAFETY: forwarded caller guarantee on `clause` and `loc`.
        let (clause, loc) = unsafe { (cstr(clause, "?"), cstr(loc, "?")) };
        if let Some(msg) = launch::size_clause_error(&clause, value) {
            diag::user_error(&loc, &msg);
        }
    })
}

/// Launch kernel `k` with the requested sizes (<= 0: default) and wait for it.
///
/// # Safety
/// `k` must point to a live descriptor emitted by the compiler, `args` to the kernel's
/// parameter array.
#[no_mangle]
pub unsafe extern "C" fn __accrt_launch(
    k: *mut AccrtKernel,
    num_gangs: i64,
    num_workers: i64,
    vector_length: i64,
    args: *mut *mut c_void,
) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe { launch::launch(k, [num_gangs, 1, 1], num_workers, vector_length, args, Queue::Sync) })
}

/// `__accrt_launch` with a grid of up to three gang dimensions (`num_gangs(x, y, z)`,
/// `gang(dim: 2|3)` loops): `gangs_x` as `num_gangs` there, `gangs_y`/`gangs_z` <= 0 the
/// runtime's default for those dimensions.
///
/// # Safety
/// As for [`__accrt_launch`].
#[no_mangle]
pub unsafe extern "C" fn __accrt_launch_grid(
    k: *mut AccrtKernel,
    gangs_x: i64,
    gangs_y: i64,
    gangs_z: i64,
    num_workers: i64,
    vector_length: i64,
    args: *mut *mut c_void,
) {
    // SAFETY: forwarded caller guarantees.
    guard(|| unsafe { launch::launch(k, [gangs_x, gangs_y, gangs_z], num_workers, vector_length, args, Queue::Sync) })
}

/// `__accrt_launch_grid` on async queue `queue` (as `__accrt_launch_async`).
///
/// # Safety
/// As for [`__accrt_launch_async`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __accrt_launch_grid_async(
    k: *mut AccrtKernel,
    gangs_x: i64,
    gangs_y: i64,
    gangs_z: i64,
    num_workers: i64,
    vector_length: i64,
    args: *mut *mut c_void,
    queue: i64,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { launch_on_queue(k, [gangs_x, gangs_y, gangs_z], num_workers, vector_length, args, queue) }
}

/// Launch kernel `k` on async queue `queue` (its compute construct's async argument as
/// written) without waiting for it.
///
/// # Safety
/// As for [`__accrt_launch`]; the device data the kernel uses stays allocated until the
/// queue has run it (the data exits release it in queue order).
#[no_mangle]
pub unsafe extern "C" fn __accrt_launch_async(
    k: *mut AccrtKernel,
    num_gangs: i64,
    num_workers: i64,
    vector_length: i64,
    args: *mut *mut c_void,
    queue: i64,
) {
    // SAFETY: forwarded caller guarantees.
    unsafe { launch_on_queue(k, [num_gangs, 1, 1], num_workers, vector_length, args, queue) }
}

/// The async launches: `queue` resolved at the kernel's construct.
///
/// # Safety
/// As for [`__accrt_launch_async`].
unsafe fn launch_on_queue(k: *mut AccrtKernel, gangs: [i64; 3], num_workers: i64, vector_length: i64, args: *mut *mut c_void, queue: i64) {
    guard(|| {
        assert!(!k.is_null(), "null kernel descriptor");
        // SAFETY: `k` is a live descriptor (caller's guarantee) whose `loc` is a
        // NUL-terminated constant.
        let loc = unsafe { cstr((*k).loc, "?") };
        let q = queue::of_clause(queue, "async", &loc);
        // SAFETY: forwarded caller guarantees.
        unsafe { launch::launch(k, gangs, num_workers, vector_length, args, q) }
    })
}

/// `wait(queue) async(on)` (the `wait` directive, or a `wait` clause of a directive on
/// queue `on`): queue `on` waits for the work enqueued on `queue` so far; `on` being
/// `acc_async_sync`, the host does. Both are async arguments as written; an invalid one is
/// an error at `loc`.
///
/// # Safety
/// `loc` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __accrt_wait(queue: i64, on: i64, loc: *const c_char) {
    guard(|| {
        // SAFETY: forwarded caller guarantee.
        let loc = unsafe { cstr(loc, "?") };
        let q = queue::of_clause(queue, "wait", &loc);
        let on = queue::of_clause(on, "async", &loc);
        queue::queue_wait(q, on, &format!("the wait at {loc}"))
    })
}

/// `wait(devnum: dev: queue) async(on)`: queue `on` of the calling thread's device (the host
/// for `acc_async_sync`) waits for the work enqueued so far on queue `queue` of device `dev`
/// (of the device type in use). An invalid argument is an error at `loc`.
///
/// # Safety
/// `loc` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __accrt_wait_device(dev: i64, queue: i64, on: i64, loc: *const c_char) {
    guard(|| {
        // SAFETY: forwarded caller guarantee.
        let loc = unsafe { cstr(loc, "?") };
        let count = api::device::current_count();
        if !(0..i64::from(count)).contains(&dev) {
            diag::user_error(&loc, &format!("wait(devnum: {dev}): not a valid device number (there are {count} device(s) of this type)"));
        }
        let q = queue::of_clause(queue, "wait", &loc);
        let on = queue::of_clause(on, "async", &loc);
        queue::queue_wait_device(dev as i32, q, on, &format!("the wait at {loc}"))
    })
}

/// The host waits for the work enqueued on async queue `queue` so far: the host fallback of a
/// compute construct with `async(queue)` (an `if` that is false) runs in the queue's order.
/// An invalid `queue` is an error at `loc`.
///
/// # Safety
/// `loc` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __accrt_host_wait(queue: i64, loc: *const c_char) {
    guard(|| {
        // SAFETY: forwarded caller guarantee.
        let loc = unsafe { cstr(loc, "?") };
        let q = queue::of_clause(queue, "async", &loc);
        queue::host_wait(q, &format!("the host code of the construct at {loc}"))
    })
}

/// `wait async(on)` without a queue list: queue `on` (the host for `acc_async_sync`) waits
/// for the work of every queue so far.
///
/// # Safety
/// `loc` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __accrt_wait_all(on: i64, loc: *const c_char) {
    guard(|| {
        // SAFETY: forwarded caller guarantee.
        let loc = unsafe { cstr(loc, "?") };
        let on = queue::of_clause(on, "async", &loc);
        queue::wait_all(on, &format!("the wait at {loc}"))
    })
}
