//! Element reductions name one address: `reduction(+: s[q])` and `reduction(max: c[1])`.
//!
//! Expects: a kernel before SSA construction (variables in memory), the clause's address of
//! the element (a `getelementptr` the region computed before its loop, from the array's
//! storage or a loaded pointer and indices).
//!
//! Produces: every other `getelementptr` in the given part of the kernel that computes the
//! same address by the same expression (same base, indices that are the same constants or
//! loads of the same variable that the kernel sets only in its entry block) is replaced by
//! the clause's, so that reduction.rs, which redirects the uses of that one value to the
//! private copy, sees the body's `s[q] += ...` as uses of the variable. Without this the
//! body updated the element in device memory directly: right on the host and the emulator
//! (one thread at a time), a data race on the GPU.
//!
//! Does not: prove equality of differently written addresses (`*(s + q)` beside `s[q]`,
//! `s[q + 0]`); those accesses keep going to memory.

use crate::ir::{Opcode, Value};

/// Replaces the GEPs for which `within` holds that compute `addr` again with `addr`.
pub fn unify<'ctx>(k: Value<'ctx>, addr: Value<'ctx>, within: impl Fn(Value<'ctx>) -> bool) {
    if addr.opcode() != Some(Opcode::LLVMGetElementPtr) {
        return;
    }
    for blk in k.blocks() {
        for i in blk.instructions() {
            if i != addr && i.opcode() == Some(Opcode::LLVMGetElementPtr) && within(i) && same(k, i, addr) {
                i.replace_all_uses_with(addr);
                i.erase();
            }
        }
    }
}

/// Whether `a` and `b` compute the same value (an address) by the same expression in kernel `k`.
pub fn same<'ctx>(k: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>) -> bool {
    if a == b {
        return true;
    }
    let (Some(op), Some(op_b)) = (a.opcode(), b.opcode()) else {
        // Constants are uniqued by LLVM: equal ones are the same value.
        return false;
    };
    if op != op_b || a.num_operands() != b.num_operands() || a.ty() != b.ty() {
        return false;
    }
    match op {
        Opcode::LLVMGetElementPtr => a.gep_source_type() == b.gep_source_type() && operands_same(k, a, b),
        Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc | Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul | Opcode::LLVMShl => {
            operands_same(k, a, b)
        }
        Opcode::LLVMLoad => !a.is_atomic_access() && !b.is_atomic_access() && same(k, a.operand(0), b.operand(0)) && set_only_at_entry(k, a.operand(0)),
        _ => false,
    }
}

fn operands_same<'ctx>(k: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>) -> bool {
    a.operands().into_iter().zip(b.operands()).all(|(x, y)| same(k, x, y))
}

/// Whether variable `slot` (an alloca of `k`) is stored only in the entry block: a captured
/// value or pointer the region never reassigns, so two loads of it are the same value.
fn set_only_at_entry<'ctx>(k: Value<'ctx>, slot: Value<'ctx>) -> bool {
    let slot = crate::outline::strip(slot);
    if !slot.is_alloca() || slot.parent_function() != k {
        return false;
    }
    let entry = k.entry_block();
    slot.users().into_iter().all(|u| match u.opcode() {
        Some(Opcode::LLVMLoad) => true,
        Some(Opcode::LLVMStore) => u.operand(1) == slot && u.parent_block() == entry,
        Some(Opcode::LLVMCall) => u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime")),
        _ => false,
    })
}

/// Rebuilds before `before` (in the kernel) the host computation `host` of an element's
/// address that the region's clause named (`&s[q]`: a GEP from a captured array and a load of
/// a captured index), mapping each captured host value through `captured`. None when the
/// expression uses anything else (then the item has no address in the kernel).
pub fn materialize<'ctx>(host: Value<'ctx>, captured: &dyn Fn(Value<'ctx>) -> Option<Value<'ctx>>, before: Value<'ctx>) -> Option<Value<'ctx>> {
    if let Some(v) = captured(host) {
        return Some(v);
    }
    let Some(op) = host.opcode() else {
        return host.const_int_value().map(|_| host);
    };
    if !host.is_instruction()
        || !matches!(
            op,
            Opcode::LLVMGetElementPtr | Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc | Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul | Opcode::LLVMShl | Opcode::LLVMLoad
        )
        || (op == Opcode::LLVMLoad && host.is_atomic_access())
    {
        return None;
    }
    let ops: Vec<Value<'ctx>> = host.operands().into_iter().map(|o| materialize(o, captured, before)).collect::<Option<_>>()?;
    // Rebuilt rather than cloned: a clone would keep the host function's debug location.
    let b = before.context().builder();
    b.position_before(before);
    b.set_debug_loc_of(before);
    Some(match op {
        Opcode::LLVMGetElementPtr => b.gep(host.gep_source_type(), ops[0], &ops[1..], host.is_in_bounds()),
        Opcode::LLVMLoad => b.load(host.ty(), ops[0], ""),
        Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc => b.cast(op, ops[0], host.ty()),
        _ => b.binop(op, ops[0], ops[1]),
    })
}
