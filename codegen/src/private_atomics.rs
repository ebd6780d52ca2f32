//! Atomics on thread-private memory become plain code.
//!
//! An `atomic` construct on a variable that only its thread can see (a `private` scalar, a
//! local of a loop body that stays in local memory) is still an `atomicrmw` or `cmpxchg` in
//! the IR. On an address in the local state space PTX has no atomic instruction: ptxas
//! rejects `atom.cas` / `atom.add` there ("State space incorrect for instruction 'atom'").
//! No other thread can reach local memory, so the operation is the same as a load, the
//! computation and a store, which is what this pass writes for an atomic whose address is
//! based on an `alloca` (through GEPs and casts).

use crate::ir::{Builder, IntPred, Module, Opcode, Value};
use llvm_sys::LLVMAtomicRMWBinOp as Rmw;

/// Rewrites every atomic on thread-private memory of `dev` as plain loads and stores;
/// returns whether it changed anything.
pub fn lower<'ctx>(dev: Module<'ctx>) -> bool {
    let mut todo = Vec::new();
    for f in dev.functions() {
        for blk in f.blocks() {
            for i in blk.instructions() {
                match i.opcode() {
                    Some(Opcode::LLVMAtomicCmpXchg | Opcode::LLVMAtomicRMW) if crate::guard::is_private(i.operand(0)) => todo.push(i),
                    _ => {}
                }
            }
        }
    }
    let mut changed = false;
    for i in todo {
        let b = i.context().builder();
        b.position_before(i);
        b.set_debug_loc_of(i);
        let p = i.operand(0);
        let new = match i.opcode() {
            Some(Opcode::LLVMAtomicCmpXchg) => Some(cmpxchg(&b, i, p)),
            _ => rmw(&b, i, p),
        };
        if let Some(v) = new {
            i.replace_all_uses_with(v);
            i.erase();
            changed = true;
        }
    }
    changed
}

/// `cmpxchg p, cmp, new` -> `{old, ok}` with `old = load p`, `ok = old == cmp`, and `new`
/// stored when `ok` (cmpxchg operands are integers or pointers).
fn cmpxchg<'ctx>(b: &Builder<'ctx>, i: Value<'ctx>, p: Value<'ctx>) -> Value<'ctx> {
    let (cmp, new) = (i.operand(1), i.operand(2));
    let old = b.load(cmp.ty(), p, "");
    let ok = b.icmp(IntPred::LLVMIntEQ, old, cmp);
    let stored = b.select(ok, new, old);
    b.store(stored, p);
    let agg = b.insert_value(i.ty().undef(), old, 0);
    b.insert_value(agg, ok, 1)
}

/// `atomicrmw op p, v` -> `old = load p; store (old op v), p; old`; None for an operation
/// without a plain counterpart here (left as it is).
fn rmw<'ctx>(b: &Builder<'ctx>, i: Value<'ctx>, p: Value<'ctx>) -> Option<Value<'ctx>> {
    let v = i.operand(1);
    let op = i.atomic_rmw_op();
    let bin = |o: Opcode, old: Value<'ctx>| b.binop(o, old, v);
    let pick = |pred: IntPred, old: Value<'ctx>| {
        let c = b.icmp(pred, old, v);
        b.select(c, old, v)
    };
    let supported = matches!(
        op,
        Rmw::LLVMAtomicRMWBinOpXchg
            | Rmw::LLVMAtomicRMWBinOpAdd
            | Rmw::LLVMAtomicRMWBinOpSub
            | Rmw::LLVMAtomicRMWBinOpAnd
            | Rmw::LLVMAtomicRMWBinOpOr
            | Rmw::LLVMAtomicRMWBinOpXor
            | Rmw::LLVMAtomicRMWBinOpMax
            | Rmw::LLVMAtomicRMWBinOpMin
            | Rmw::LLVMAtomicRMWBinOpUMax
            | Rmw::LLVMAtomicRMWBinOpUMin
            | Rmw::LLVMAtomicRMWBinOpFAdd
            | Rmw::LLVMAtomicRMWBinOpFSub
    );
    if !supported {
        return None;
    }
    let old = b.load(v.ty(), p, "");
    let new = match op {
        Rmw::LLVMAtomicRMWBinOpXchg => v,
        Rmw::LLVMAtomicRMWBinOpAdd => bin(Opcode::LLVMAdd, old),
        Rmw::LLVMAtomicRMWBinOpSub => bin(Opcode::LLVMSub, old),
        Rmw::LLVMAtomicRMWBinOpAnd => bin(Opcode::LLVMAnd, old),
        Rmw::LLVMAtomicRMWBinOpOr => bin(Opcode::LLVMOr, old),
        Rmw::LLVMAtomicRMWBinOpXor => bin(Opcode::LLVMXor, old),
        Rmw::LLVMAtomicRMWBinOpMax => pick(IntPred::LLVMIntSGT, old),
        Rmw::LLVMAtomicRMWBinOpMin => pick(IntPred::LLVMIntSLT, old),
        Rmw::LLVMAtomicRMWBinOpUMax => pick(IntPred::LLVMIntUGT, old),
        Rmw::LLVMAtomicRMWBinOpUMin => pick(IntPred::LLVMIntULT, old),
        Rmw::LLVMAtomicRMWBinOpFAdd => bin(Opcode::LLVMFAdd, old),
        _ => bin(Opcode::LLVMFSub, old),
    };
    b.store(new, p);
    Some(old)
}
