//! Single execution of side effects outside partitioned loops.
//!
//! Expects: a kernel after `partition`, with the header block and levels of every
//! partitioned loop. In OpenACC, code of a gang that is not inside a worker loop runs in
//! worker-single mode, and code not inside a vector loop in vector-single mode: one worker
//! lane and one vector lane execute it. The kernel runs every thread of a gang through that
//! code (redundantly computing the same values, which is harmless), so here each store,
//! atomic or side-effecting call in such a position is predicated on `tid.x == 0` (vector-
//! single) and/or `tid.y == 0` (worker-single). Where control is uniform across the whole
//! block (outside every worker and vector loop) a block barrier follows the guarded code so
//! the other lanes see its effect. Produces: the guarded kernel. Does not guard stores to
//! the thread's own private memory (allocas), nor calls whose result is used later (they
//! still run on every lane), and adds no barrier inside worker loops (a vector-single store
//! there is not yet made visible to the worker's other vector lanes before they read it).

use crate::cfg::FunctionCfg;
use crate::ir::{Block, IntPred, Module, Opcode, Value};
use crate::mapping::Levels;
use crate::outline::strip;

/// Guards the kernel `k`; `loops` are (header, levels) of its partitioned loops.
pub fn guard_kernel(m: Module, k: Value, loops: &[(Block, Levels)]) {
    let cfg = FunctionCfg::new(k);
    let natural = cfg.loops();
    let covered = |b: Block| -> Levels {
        let bi = cfg.index[&b];
        let mut acc = Levels::NONE;
        for (h, lv) in loops {
            if let Some(l) = natural.iter().find(|l| cfg.blocks[l.header] == *h) {
                if l.body.contains(&bi) {
                    acc = Levels { gang: acc.gang || lv.gang, worker: acc.worker || lv.worker, vector: acc.vector || lv.vector };
                }
            }
        }
        acc
    };
    // Collect first, then rewrite (rewriting splits blocks).
    let mut todo: Vec<(Value, Levels)> = Vec::new();
    for b in k.blocks() {
        let cov = covered(b);
        if cov.worker && cov.vector {
            continue;
        }
        for i in b.instructions() {
            if has_shared_side_effect(i) {
                todo.push((i, cov));
            }
        }
    }
    for (i, cov) in todo {
        guard_one(m, i, cov);
    }
}

fn has_shared_side_effect(i: Value) -> bool {
    match i.opcode() {
        Some(Opcode::LLVMStore) => !strip_to_object(i.operand(1)).is_alloca(),
        Some(Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => true,
        Some(Opcode::LLVMCall) => {
            let name = i.called_name().unwrap_or_default();
            let pure = name.starts_with("llvm.") || name.starts_with("__acc_") || name.starts_with("__nv_");
            !pure && i.users().is_empty()
        }
        _ => false,
    }
}

/// The object a pointer is based on (through GEPs and casts).
fn strip_to_object(mut p: Value) -> Value {
    loop {
        let s = strip(p);
        match s.opcode() {
            Some(Opcode::LLVMGetElementPtr) => p = s.operand(0),
            _ => return s,
        }
    }
}

fn guard_one(m: Module, i: Value, cov: Levels) {
    let ctx = m.context();
    let b = ctx.builder();
    let block = i.parent_block();
    let next = i.next_instruction().expect("a side effect is never a terminator");
    let after = block.split_before(ctx, next, "acc.single.end");
    let body = block.split_before(ctx, i, "acc.single");
    // block: ... br body   body: i; br after
    block.terminator().expect("split adds a branch").erase();
    b.position_at_end(block);
    let fty = ctx.fn_type(ctx.i64(), &[], false);
    let zero = ctx.i64().const_int(0);
    let mut cond = ctx.i1().const_int(1);
    if !cov.vector {
        let id = b.call(m.get_or_add_function("__acc_vector_id", fty), &[], "");
        cond = b.and(cond, b.icmp(IntPred::LLVMIntEQ, id, zero));
    }
    if !cov.worker {
        let id = b.call(m.get_or_add_function("__acc_worker_id", fty), &[], "");
        cond = b.and(cond, b.icmp(IntPred::LLVMIntEQ, id, zero));
    }
    b.cond_br(cond, body, after);
    if !cov.worker && !cov.vector {
        // Uniform control flow across the block: make the effect visible to every lane.
        let bar = m.get_or_add_function("llvm.nvvm.barrier.cta.sync.aligned.all", ctx.fn_type(ctx.void(), &[ctx.i32()], false));
        b.position_before(after.first_instruction().expect("split block has a terminator"));
        b.call(bar, &[ctx.i32().const_int(0)], "");
    }
}
