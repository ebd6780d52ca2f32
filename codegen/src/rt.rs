//! Declarations of the host runtime ABI (docs/runtime-abi.md) in a host module.

use crate::ir::{Module, Value};

pub struct Runtime<'ctx> {
    pub use_device: Value<'ctx>,
    pub data_enter: Value<'ctx>,
    pub data_exit: Value<'ctx>,
    pub deviceptr: Value<'ctx>,
    pub translate: Value<'ctx>,
    pub launch: Value<'ctx>,
    pub check_launch_size: Value<'ctx>,
    pub update_device: Value<'ctx>,
    pub update_self: Value<'ctx>,
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
            launch: f("__accrt_launch", v, &[p, i64t, i64t, i64t, p]),
            check_launch_size: f("__accrt_check_launch_size", v, &[i64t, p, p]),
            update_device: f("__accrt_update_device", v, &[p, i64t, p, p]),
            update_self: f("__accrt_update_self", v, &[p, i64t, p, p]),
        }
    }
}
