//! Declarations of the host runtime ABI (docs/runtime-abi.md) in a host module, and the
//! flag bits its `kind`/`flags` arguments carry.

use crate::ir::{Module, Value};

pub struct Runtime<'ctx> {
    pub use_device: Value<'ctx>,
    pub data_enter: Value<'ctx>,
    pub data_exit: Value<'ctx>,
    pub deviceptr: Value<'ctx>,
    pub translate: Value<'ctx>,
    pub translate_no_create: Value<'ctx>,
    pub launch: Value<'ctx>,
    pub check_launch_size: Value<'ctx>,
    pub update_device: Value<'ctx>,
    pub update_self: Value<'ctx>,
    pub use_device_addr: Value<'ctx>,
    pub declare: Value<'ctx>,
    /// `__accrt_declare_rows(ptr host, i64 bytes, ptr init, i32 kind, ptr levels, i32 nlevels,
    /// ptr loc, ptr text)`: a file-scope declare of a section through pointer rows.
    pub declare_rows: Value<'ctx>,
    /// `__accrt_attach(ptr pointer, i32 flags, ptr loc, ptr text)`, `__accrt_detach(...)`.
    pub attach: Value<'ctx>,
    pub detach: Value<'ctx>,
    /// `__accrt_check_dim(i64 lower, i64 length, i64 extent, i32 number, ptr loc, ptr text)`.
    pub check_dim: Value<'ctx>,
    /// Sections through pointer rows (`p[0:n][0:m]` of `double **p`):
    /// `__accrt_data_enter_rows(ptr host, i64 bytes, ptr levels, i32 nlevels, i32 kind,
    /// ptr loc, ptr text, i64 queue)`, the same for `_exit_rows`, `__accrt_update_device_rows`
    /// and `__accrt_update_self_rows` (`flags` for `kind`); `levels` holds `lower, length,
    /// elem_size` per level, `queue` the async argument (`acc_async_sync` without `async`).
    pub data_enter_rows: Value<'ctx>,
    pub data_exit_rows: Value<'ctx>,
    pub update_device_rows: Value<'ctx>,
    pub update_self_rows: Value<'ctx>,
    // The same on an async queue: one more `i64 queue` argument, the async argument as
    // written.
    pub data_enter_async: Value<'ctx>,
    pub data_exit_async: Value<'ctx>,
    pub update_device_async: Value<'ctx>,
    pub update_self_async: Value<'ctx>,
    pub launch_async: Value<'ctx>,
    /// `__accrt_launch` with a grid of two or three gang dimensions, and its async form.
    pub launch_grid: Value<'ctx>,
    pub launch_grid_async: Value<'ctx>,
    /// `__accrt_wait(i64 queue, i64 on, ptr loc)`, `__accrt_wait_all(i64 on, ptr loc)`.
    pub wait: Value<'ctx>,
    pub wait_all: Value<'ctx>,
    /// `__accrt_wait_device(i64 devnum, i64 queue, i64 on, ptr loc)`: `wait(devnum: ...)`.
    pub wait_device: Value<'ctx>,
    /// `__accrt_host_wait(i64 queue, ptr loc)`.
    pub host_wait: Value<'ctx>,
    /// `__accrt_device_directive(i32 directive, i32 device_type, i64 device_num,
    /// i64 default_async, i32 given, ptr loc)`: `init`, `shutdown`, `set`.
    pub device_directive: Value<'ctx>,
}

impl<'ctx> Runtime<'ctx> {
    pub fn declare(m: Module<'ctx>) -> Runtime<'ctx> {
        let ctx = m.context();
        let (v, i32t, i64t, p) = (ctx.void(), ctx.i32(), ctx.i64(), ctx.ptr());
        let f = |name: &str, ret, params: &[crate::ir::Type<'ctx>]| m.get_or_add_function(name, ctx.fn_type(ret, params, false));
        // Every entry point is declared; one without a call makes no symbol in the object.
        Runtime {
            use_device: f("__accrt_use_device", i32t, &[]),
            // (Returns the item's device address: host_stub.rs uses it for a pointer that is
            // the item's start.)
            data_enter: f("__accrt_data_enter", p, &[p, i64t, i32t, p, p]),
            data_exit: f("__accrt_data_exit", v, &[p, i64t, i32t, p, p]),
            deviceptr: f("__accrt_deviceptr", p, &[p, p, p]),
            translate: f("__accrt_translate", p, &[p, p, p, p]),
            translate_no_create: f("__accrt_translate_no_create", p, &[p, p, p, p]),
            launch: f("__accrt_launch", v, &[p, i64t, i64t, i64t, p]),
            check_launch_size: f("__accrt_check_launch_size", v, &[i64t, p, p]),
            update_device: f("__accrt_update_device", v, &[p, i64t, i32t, p, p]),
            update_self: f("__accrt_update_self", v, &[p, i64t, i32t, p, p]),
            use_device_addr: f("__accrt_use_device_addr", p, &[p, i32t, p, p]),
            declare: f("__accrt_declare", v, &[p, i64t, p, i32t, p, p]),
            declare_rows: f("__accrt_declare_rows", v, &[p, i64t, p, i32t, p, i32t, p, p]),
            attach: f("__accrt_attach", v, &[p, i32t, p, p]),
            detach: f("__accrt_detach", v, &[p, i32t, p, p]),
            check_dim: f("__accrt_check_dim", v, &[i64t, i64t, i64t, i32t, p, p]),
            data_enter_rows: f("__accrt_data_enter_rows", v, &[p, i64t, p, i32t, i32t, p, p, i64t]),
            data_exit_rows: f("__accrt_data_exit_rows", v, &[p, i64t, p, i32t, i32t, p, p, i64t]),
            update_device_rows: f("__accrt_update_device_rows", v, &[p, i64t, p, i32t, i32t, p, p, i64t]),
            update_self_rows: f("__accrt_update_self_rows", v, &[p, i64t, p, i32t, i32t, p, p, i64t]),
            data_enter_async: f("__accrt_data_enter_async", v, &[p, i64t, i32t, p, p, i64t]),
            data_exit_async: f("__accrt_data_exit_async", v, &[p, i64t, i32t, p, p, i64t]),
            update_device_async: f("__accrt_update_device_async", v, &[p, i64t, i32t, p, p, i64t]),
            update_self_async: f("__accrt_update_self_async", v, &[p, i64t, i32t, p, p, i64t]),
            launch_async: f("__accrt_launch_async", v, &[p, i64t, i64t, i64t, p, i64t]),
            launch_grid: f("__accrt_launch_grid", v, &[p, i64t, i64t, i64t, i64t, i64t, p]),
            launch_grid_async: f("__accrt_launch_grid_async", v, &[p, i64t, i64t, i64t, i64t, i64t, p, i64t]),
            wait: f("__accrt_wait", v, &[i64t, i64t, p]),
            wait_all: f("__accrt_wait_all", v, &[i64t, p]),
            wait_device: f("__accrt_wait_device", v, &[i64t, i64t, i64t, p]),
            host_wait: f("__accrt_host_wait", v, &[i64t, p]),
            device_directive: f("__accrt_device_directive", v, &[i32t, i32t, i64t, i64t, i32t, p]),
        }
    }
}

/// `kind` flag of `__accrt_data_enter/exit`: the item comes from `enter data`/`exit data`
/// and counts on the dynamic reference counter (without it: the structured one, for data
/// constructs and compute constructs).
pub const DYNAMIC: u64 = 0x100;
/// `kind` flag of `__accrt_data_exit`: `exit data ... finalize`.
pub const FINALIZE: u64 = 0x200;
/// `flags` of `__accrt_update_device/self` and `__accrt_use_device_addr`: `if_present`.
pub const IF_PRESENT: u64 = 0x400;
/// `kind` flag of `__accrt_data_enter` (in `DataKind::CreateZero`/`CopyOutZero`): the device
/// copy is zero-filled when allocated (`create(zero: ...)`, `copyout(zero: ...)`).
pub const ZERO: u64 = 0x800;

/// `directive` argument of `__accrt_device_directive`.
pub const DEVICE_INIT: u64 = 0;
pub const DEVICE_SHUTDOWN: u64 = 1;
pub const DEVICE_SET: u64 = 2;
/// `given` bits of `__accrt_device_directive`: which of `device_num` and `default_async`
/// the directive has.
pub const GIVEN_DEVICE_NUM: u64 = 1;
pub const GIVEN_DEFAULT_ASYNC: u64 = 2;
/// `device_type` of `__accrt_device_directive` without a `device_type` clause
/// (`acc_device_current`).
pub const DEVICE_TYPE_CURRENT: i64 = -1;

/// What a directive's runtime calls take for its queue: the synchronous forms (`None`), or
/// the `_async` forms with this argument.
#[derive(Clone, Copy)]
pub struct OnQueue<'ctx>(pub Option<Value<'ctx>>);

impl<'ctx> OnQueue<'ctx> {
    /// `f` (synchronous) or `f_async` with the queue appended to `args`.
    pub fn call(self, b: &crate::ir::Builder<'ctx>, f: Value<'ctx>, f_async: Value<'ctx>, args: &[Value<'ctx>]) {
        match self.0 {
            None => b.call(f, args, ""),
            Some(q) => {
                let mut all = args.to_vec();
                all.push(q);
                b.call(f_async, &all, "")
            }
        };
    }
}
