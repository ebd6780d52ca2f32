//! The device runtime interface: the only target-specific operations device code uses.
//!
//! Transformations emit calls to these functions and never touch PTX registers or NVVM
//! intrinsics themselves; `runtime-ir/nvptx.ll` implements the interface with NVVM
//! intrinsics for the GPU and `runtime-ir/emulator.ll` with calls into the host runtime's
//! emulator, the way LLVM's OpenMP DeviceRTL keeps one runtime over several targets. The
//! contract of each function is in docs/device-runtime.md.

use crate::ir::{Builder, Module, Value};

/// The gang's index in the whole grid, linearised (`x + X * (y + Y * z)`), and the number of
/// gangs of the grid (`X * Y * Z`): what reductions across gangs count and index by.
pub const GANG_ID: &str = "__acc_gang_id";
pub const NUM_GANGS: &str = "__acc_num_gangs";
/// The gang's index and the gang count in one dimension of the grid (`gang(dim: d)` loops).
pub const GANG_ID_1: &str = "__acc_gang_id_1";
pub const GANG_ID_2: &str = "__acc_gang_id_2";
pub const GANG_ID_3: &str = "__acc_gang_id_3";
pub const NUM_GANGS_1: &str = "__acc_num_gangs_1";
pub const NUM_GANGS_2: &str = "__acc_num_gangs_2";
pub const NUM_GANGS_3: &str = "__acc_num_gangs_3";
pub const WORKER_ID: &str = "__acc_worker_id";
pub const NUM_WORKERS: &str = "__acc_num_workers";
pub const VECTOR_ID: &str = "__acc_vector_id";
pub const VECTOR_LENGTH: &str = "__acc_vector_length";
pub const SYNC_GANG: &str = "__acc_sync_gang";
pub const SYNC_WORKER: &str = "__acc_sync_worker";
/// Warp shuffles; only the reduction helpers (runtime-ir/reduce.c) call them.
pub const SHFL_DOWN: &str = "__acc_shfl_down";
pub const SHFL_IDX: &str = "__acc_shfl_idx";
/// Warp reductions (`redux.sync`) and whether the target has them; reduce.c only.
pub const WARP_REDUX: &str = "__acc_warp_redux";
pub const WARP_REDUX_AVAILABLE: &str = "__acc_warp_redux_available";

/// Every function of the interface.
pub const ALL: [&str; 18] = [
    GANG_ID, NUM_GANGS, GANG_ID_1, GANG_ID_2, GANG_ID_3, NUM_GANGS_1, NUM_GANGS_2, NUM_GANGS_3, WORKER_ID, NUM_WORKERS, VECTOR_ID, VECTOR_LENGTH, SYNC_GANG, SYNC_WORKER, SHFL_DOWN, SHFL_IDX, WARP_REDUX,
    WARP_REDUX_AVAILABLE,
];

/// The id and count functions of gang dimension `dim` (1 to 3; anything else is dimension 1,
/// which the contract reader never lets through).
pub fn gang_dimension(dim: u8) -> (&'static str, &'static str) {
    match dim {
        2 => (GANG_ID_2, NUM_GANGS_2),
        3 => (GANG_ID_3, NUM_GANGS_3),
        _ => (GANG_ID_1, NUM_GANGS_1),
    }
}

/// Which threads a synchronisation point waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every thread of the gang (the block).
    Gang,
    /// The vector lanes of the calling worker.
    Worker,
}

/// `i64 name()` for one of the id/count functions.
pub fn id<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, name: &str) -> Value<'ctx> {
    let ctx = m.context();
    b.call(m.get_or_add_function(name, ctx.fn_type(ctx.i64(), &[], false)), &[], "")
}

/// A synchronisation point of `scope`.
pub fn sync<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, scope: Scope) -> Value<'ctx> {
    let ctx = m.context();
    let name = match scope {
        Scope::Gang => SYNC_GANG,
        Scope::Worker => SYNC_WORKER,
    };
    let f = m.get_or_add_function(name, ctx.fn_type(ctx.void(), &[], false));
    // Every thread of the scope reaches the same sync: no pass may move it across control
    // flow (the runtime-ir definitions say so too).
    f.add_fn_enum_attr("convergent");
    b.call(f, &[], "")
}

/// The scope of a call to a sync function, if `i` is one.
pub fn sync_scope<'ctx>(i: Value<'ctx>) -> Option<Scope> {
    match i.called_name()?.as_str() {
        SYNC_GANG => Some(Scope::Gang),
        SYNC_WORKER => Some(Scope::Worker),
        _ => None,
    }
}
