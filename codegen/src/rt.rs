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
}

impl<'ctx> Runtime<'ctx> {
    pub fn declare(m: Module<'ctx>) -> Runtime<'ctx> {
        let ctx = m.context();
        let (v, i32t, i64t, p) = (ctx.void(), ctx.i32(), ctx.i64(), ctx.ptr());
        let f = |name: &str, ret, params: &[crate::ir::Type<'ctx>]| m.get_or_add_function(name, ctx.fn_type(ret, params, false));
        Runtime {
            use_device: f("__accrt_use_device", i32t, &[]),
            data_enter: f("__accrt_data_enter", v, &[p, i64t, i32t, p, p]),
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
