//! Array reductions whose bounds are only known at run time (`reduction(+: h[0:m])`): the
//! private copies of reduction.rs have a constant size (they live in registers or the
//! thread's stack), so these items get none. Instead every update of the array in the
//! reduction's region becomes an atomic read-modify-write of its device copy. That copy
//! holds the variable's original value, so once the region is over each element is the
//! original combined with every iteration's contribution, in some order, which is what the
//! spec asks of a reduction (the trees of reduction.rs combine in an order of their own
//! too).
//!
//! Expects: the outlined kernel before `reduction::rewrite_kernel` (the item's pointer in
//! the kernel, its loop's begin/end markers). Produces: `atomicrmw` (monotonic) for `+`,
//! `&`, `|`, `^`, `max`, `min`; a compare-and-swap loop for `*`. Every update keeps its
//! place in the program; only the load, the operation and the store become one atomic.
//!
//! What it deliberately does not do (each a located "not supported yet" error): reduce an
//! array private to the region (its elements are not in device memory where every thread
//! sees them), complex or `&&`/`||` items, and regions that use the array other than by
//! updating an element with the clause's operator (`h[e] = h[e] + x`, `h[e] += x`,
//! `h[e] = max(h[e], x)`...): a read of an element would see other iterations' partial
//! results, not the private copy the spec promises, and a plain store would race with them.

use crate::cfg::FunctionCfg;
use crate::contract::Reduction;
use crate::element_address;
use crate::error::{AccError, Loc, Result};
use crate::ir::{Block, IntPred, Module, Opcode, Value};

use acc_directives::{ReductionOp, ReductionType};
use llvm_sys::LLVMAtomicRMWBinOp as Rmw;

/// One update found in the region: a store of `current op x` where `current` is read from
/// the stored-to address by the update's loads.
struct Update<'ctx> {
    store: Value<'ctx>,
    /// The contribution, and whether it is subtracted (`h[e] -= x` in a `+` reduction).
    x: Value<'ctx>,
    negate: bool,
    /// The loads of the element the update reads.
    loads: Vec<Value<'ctx>>,
    /// What computes the stored value from them (erased with the store), in use order.
    dead: Vec<Value<'ctx>>,
}

/// What the compile report says about an item done with atomics.
pub const STRATEGY: &str = "atomic updates of its elements in device memory";

/// The updates of one item, found and checked; `apply` rewrites them.
pub struct Planned<'ctx> {
    updates: Vec<Update<'ctx>>,
    op: ReductionOp,
    ty: ReductionType,
}

/// Finds the updates of item `r` (whose pointer in kernel `k` is `storage`) inside `inside`
/// (the loop's region, or the whole kernel for a construct's item), or why they cannot be
/// made atomic. Plan every item of a kernel before applying any: a rewrite adds loops.
pub fn plan<'ctx>(k: Value<'ctx>, storage: Value<'ctx>, r: &Reduction<'ctx>, inside: &dyn Fn(Value<'ctx>) -> bool, loc: &Loc) -> Result<Planned<'ctx>> {
    let what = |why: &str| AccError::unsupported(loc, format!("the array reduction '{}' without constant bounds {why}", r.var.text));
    if storage.is_alloca() {
        return Err(what("of an array private to the compute region (accc updates such an array's elements atomically in device memory)"));
    }
    if matches!(r.ty, ReductionType::C32 | ReductionType::C64 | ReductionType::Bool) || matches!(r.op, ReductionOp::And | ReductionOp::Or) {
        return Err(what(&format!("with '{}' on '{}' (accc updates such an array's elements atomically: integer and floating types with + * max min & | ^)", r.op.symbol(), r.ty.c_name())));
    }
    let found: Vec<(Value, Access)> = accesses(storage, k).into_iter().filter(|(i, _)| inside(*i)).collect();
    if found.iter().any(|(_, a)| *a == Access::Other) {
        return Err(what("passes it to a function or stores its address (accc updates such an array's elements atomically and must see every access)"));
    }
    let cfg = FunctionCfg::new(k);
    let mut updates = Vec::new();
    for (s, _) in found.iter().filter(|(_, a)| *a == Access::Store) {
        let u = update_at(&cfg, *s, r.op).ok_or_else(|| {
            what(&format!("stores an element other than by updating it with '{}' (accc updates such an array's elements atomically: a plain store would race with other iterations' updates)", r.op.symbol()))
        })?;
        updates.push(u);
    }
    for (l, _) in found.iter().filter(|(_, a)| *a == Access::Load) {
        if !updates.iter().any(|u| u.loads.contains(l)) {
            return Err(what(&format!("reads an element other than to update it with '{}' (accc updates such an array's elements atomically, so a read would see other iterations' partial results)", r.op.symbol())));
        }
    }
    Ok(Planned { updates, op: r.op, ty: r.ty })
}

/// Rewrites the planned updates into atomics.
pub fn apply<'ctx>(m: Module<'ctx>, planned: &Planned<'ctx>) {
    for u in &planned.updates {
        emit(m, u, planned.op, planned.ty);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Load,
    Store,
    /// Any other use of an address into the array (a call, a store of the address itself).
    Other,
}

/// The instructions of `k` that use an address computed from `storage` (through GEPs and
/// casts), and how.
fn accesses<'ctx>(storage: Value<'ctx>, k: Value<'ctx>) -> Vec<(Value<'ctx>, Access)> {
    let mut out = Vec::new();
    let mut work = vec![storage];
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = work.pop() {
        for u in p.users() {
            if !u.is_instruction() || u.parent_function() != k || !seen.insert(u) {
                continue;
            }
            match u.opcode() {
                Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) if u.operand(0) == p => work.push(u),
                Some(Opcode::LLVMLoad) if !u.is_atomic_access() => out.push((u, Access::Load)),
                Some(Opcode::LLVMStore) if u.operand(1) == p && u.operand(0) != p && !u.is_atomic_access() => out.push((u, Access::Store)),
                _ => out.push((u, Access::Other)),
            }
        }
    }
    out
}

/// The update a store ends, when it is one: it stores `op` applied to the element it
/// overwrites (read by loads of the same address) and a contribution, as
/// - one operation: `h[e] += x`, `h[e] = h[e] * x`, `h[e] = fmax(h[e], x)`, a `select`;
/// - a conditional store (`if (x > h[e]) h[e] = x;`) or a `?:` whose two sides are blocks
///   of their own (`h[e] = h[e] > x ? h[e] : x`), for `max` and `min`.
fn update_at<'ctx>(cfg: &FunctionCfg<'ctx>, store: Value<'ctx>, op: ReductionOp) -> Option<Update<'ctx>> {
    let p = store.operand(1);
    let v = store.operand(0);
    let is_load = |l: Value<'ctx>| l.opcode() == Some(Opcode::LLVMLoad) && !l.is_atomic_access() && equal(cfg, l.operand(0), p, 0);
    let eq = |a: Value<'ctx>, b: Value<'ctx>| equal(cfg, a, b, 0);
    // Loads whose every user is among `within`.
    let only_used_in = |l: Value<'ctx>, within: &[Value<'ctx>]| l.users().iter().all(|u| within.contains(u));
    let single_use = |i: Value<'ctx>, by: Value<'ctx>| i.users()[..] == [by];
    // One operation.
    if single_use(v, store) {
        if let Some((x, negate)) = operation(v, op, &is_load) {
            let loads: Vec<Value> = v.operands().into_iter().filter(|o| is_load(*o)).collect();
            if loads.iter().all(|l| single_use(*l, v)) {
                return Some(Update { store, x, negate, loads, dead: vec![v] });
            }
        }
        if v.opcode() == Some(Opcode::LLVMSelect) {
            let cmp = v.operand(0);
            let (x, loads) = extreme(cmp, v.operand(1), v.operand(2), op, &is_load, &eq)?;
            let within = [cmp, v];
            if single_use(cmp, v) && loads.iter().all(|l| only_used_in(*l, &within)) {
                return Some(Update { store, x, negate: false, loads, dead: vec![v, cmp] });
            }
            return None;
        }
    }
    if !matches!(op, ReductionOp::Max | ReductionOp::Min) {
        return None;
    }
    // A `?:` as a diamond: the stored value a phi of the two sides.
    if v.is_phi() && single_use(v, store) {
        let incoming = v.incoming();
        let [(a, from_a), (b, from_b)] = incoming[..] else { return None };
        let (cond, on_true) = branch_between(from_a, from_b, v.parent_block())?;
        let (t, f) = if on_true == from_a { (a, b) } else { (b, a) };
        let (x, loads) = extreme(cond, t, f, op, &is_load, &eq)?;
        let within = [cond, v];
        if loads.iter().all(|l| only_used_in(*l, &within)) {
            return Some(Update { store, x, negate: false, loads, dead: vec![v] });
        }
        return None;
    }
    // A conditional store of the contribution: `select(cond, x, h[e])` on the taken side.
    let blk = store.parent_block();
    let pred = single_predecessor(blk)?;
    let term = pred.terminator()?;
    if !term.is_conditional_branch() {
        return None;
    }
    let cond = term.branch_condition();
    let taken_on_true = term.successors()[0] == blk;
    let cmp_load = cond.operands().into_iter().find(|o| is_load(*o))?;
    let (t, f) = if taken_on_true { (v, cmp_load) } else { (cmp_load, v) };
    let (x, loads) = extreme(cond, t, f, op, &is_load, &eq)?;
    (x == v && loads.iter().all(|l| only_used_in(*l, &[cond]))).then(|| Update { store, x, negate: false, loads, dead: vec![] })
}

/// Whether `a` and `b` are the same value: one instruction, or the same pure computation
/// (GEPs, casts, integer arithmetic) of the same values, where two loads of a local
/// variable's slot are the same when no store to it can come between them (clang computes
/// `h[j] = h[j] > x ? h[j] : x` with three loads of `j` before SROA).
fn equal<'ctx>(cfg: &FunctionCfg<'ctx>, a: Value<'ctx>, b: Value<'ctx>, depth: u32) -> bool {
    if a == b || element_address::same(cfg.function(), a, b) {
        return true;
    }
    let (Some(op), Some(op_b)) = (a.opcode(), b.opcode()) else { return false };
    if depth > 8 || op != op_b || a.num_operands() != b.num_operands() || a.ty() != b.ty() {
        return false;
    }
    let operands = || a.operands().into_iter().zip(b.operands()).all(|(x, y)| equal(cfg, x, y, depth + 1));
    use Opcode::*;
    match op {
        LLVMGetElementPtr => a.gep_source_type() == b.gep_source_type() && operands(),
        LLVMSExt | LLVMZExt | LLVMTrunc | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMSDiv | LLVMSRem | LLVMUDiv | LLVMURem | LLVMAnd | LLVMOr | LLVMXor => operands(),
        LLVMLoad => {
            let slot = crate::outline::strip(a.operand(0));
            !a.is_atomic_access() && !b.is_atomic_access() && slot == crate::outline::strip(b.operand(0)) && no_store_between(cfg, slot, a, b)
        }
        _ => false,
    }
}

/// Whether two loads of local slot `slot` (an alloca only loaded, stored and given
/// lifetimes) read the same value: when one dominates the other, no store to the slot lies
/// on a path from the first to the second that does not pass the first again; otherwise
/// (the two sides of a `?:`) none lies on a path to either from the end of the nearest
/// block that dominates both.
fn no_store_between<'ctx>(cfg: &FunctionCfg<'ctx>, slot: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>) -> bool {
    let plain = slot.is_alloca()
        && slot.users().into_iter().all(|u| match u.opcode() {
            Some(Opcode::LLVMLoad) => true,
            Some(Opcode::LLVMStore) => u.operand(1) == slot && u.operand(0) != slot,
            Some(Opcode::LLVMCall) => u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime")),
            _ => false,
        });
    if !plain {
        return false;
    }
    let stores: Vec<Value> = slot.users().into_iter().filter(|u| u.opcode() == Some(Opcode::LLVMStore)).collect();
    if cfg.dominates_inst(a, b) {
        return clear_path(cfg, &stores, a.parent_block(), Some(a), b);
    }
    if cfg.dominates_inst(b, a) {
        return clear_path(cfg, &stores, b.parent_block(), Some(b), a);
    }
    let mut d = a.parent_block();
    while !cfg.dominates(d, b.parent_block()) {
        match cfg.idom[cfg.index[&d]] {
            Some(i) if cfg.blocks[i] != d => d = cfg.blocks[i],
            _ => return false,
        }
    }
    clear_path(cfg, &stores, d, None, a) && clear_path(cfg, &stores, d, None, b)
}

/// No store of `stores` lies on a path from `from` (after instruction `after` in it, or
/// its end) to `load`, other than one passing `from` again; and `load`'s block is not in a
/// loop of its own that avoids `from` (it would be reached twice).
fn clear_path<'ctx>(cfg: &FunctionCfg<'ctx>, stores: &[Value<'ctx>], from: Block<'ctx>, after: Option<Value<'ctx>>, load: Value<'ctx>) -> bool {
    let before = crate::cfg::FunctionCfg::same_block_before;
    let to = load.parent_block();
    if from == to {
        return after.is_some_and(|a| !stores.iter().any(|s| s.parent_block() == to && before(a, *s) && before(*s, load)));
    }
    let reach = |start: Block<'ctx>, next: &dyn Fn(Block<'ctx>) -> Vec<Block<'ctx>>| {
        let mut seen = std::collections::HashSet::new();
        let mut work = next(start);
        while let Some(x) = work.pop() {
            if x != from && x != to && seen.insert(x) {
                work.extend(next(x));
            }
        }
        seen
    };
    let succs = |x: Block<'ctx>| x.successors();
    let preds = |x: Block<'ctx>| cfg.predecessors(x);
    if succs(to).contains(&to) || reach(to, &succs).iter().any(|x| succs(*x).contains(&to)) {
        return false;
    }
    let between: Vec<Block> = reach(from, &succs).intersection(&reach(to, &preds)).copied().collect();
    !stores.iter().any(|s| {
        let at = s.parent_block();
        (at == from && after.is_some_and(|a| before(a, *s))) || (at == to && before(*s, load)) || between.contains(&at)
    })
}

/// The block all of whose paths into `b` pass, when it is its only predecessor.
fn single_predecessor<'ctx>(b: Block<'ctx>) -> Option<Block<'ctx>> {
    let preds: Vec<Block> = b.parent().blocks().into_iter().filter(|p| p.successors().contains(&b)).collect();
    match preds[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// The condition of the branch that decides whether a join's value comes from `a` or `b`
/// (each the branching block itself or a block it alone enters, which goes on to `join`),
/// and the incoming block that stands for its true side.
fn branch_between<'ctx>(a: Block<'ctx>, b: Block<'ctx>, join: Block<'ctx>) -> Option<(Value<'ctx>, Block<'ctx>)> {
    let decider = |x: Block<'ctx>| if x.terminator().is_some_and(|t| t.is_conditional_branch()) { Some(x) } else { single_predecessor(x) };
    let d = decider(a)?;
    if decider(b)? != d {
        return None;
    }
    let term = d.terminator()?;
    if !term.is_conditional_branch() {
        return None;
    }
    let [on_true, on_false] = term.successors()[..] else { return None };
    // Which incoming block the true edge leads to (directly into the join from `d`, or
    // through a block of its own).
    let side = |s: Block<'ctx>| if s == join { d } else { s };
    let (ta, fa) = (side(on_true), side(on_false));
    if ta == fa {
        return None;
    }
    if (ta == a && fa == b) || (ta == b && fa == a) {
        Some((term.branch_condition(), ta))
    } else {
        None
    }
}

/// The contribution of one operation `o` applying `op` to a load of the element (`is_load`)
/// and another value, and whether it is subtracted (`load - x` in a `+` reduction).
fn operation<'ctx>(o: Value<'ctx>, op: ReductionOp, is_load: &dyn Fn(Value<'ctx>) -> bool) -> Option<(Value<'ctx>, bool)> {
    use Opcode::*;
    let code = o.opcode()?;
    let two = |o: Value<'ctx>| -> Option<(Value<'ctx>, Value<'ctx>)> { (o.num_operands() >= 2).then(|| (o.operand(0), o.operand(1))) };
    let other = |(a, b): (Value<'ctx>, Value<'ctx>)| match (is_load(a), is_load(b)) {
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ => None,
    };
    match (op, code) {
        (ReductionOp::Add, LLVMAdd | LLVMFAdd) | (ReductionOp::Mul, LLVMMul | LLVMFMul) => other(two(o)?).map(|x| (x, false)),
        (ReductionOp::BitAnd, LLVMAnd) | (ReductionOp::BitOr, LLVMOr) | (ReductionOp::BitXor, LLVMXor) => other(two(o)?).map(|x| (x, false)),
        (ReductionOp::Add, LLVMSub | LLVMFSub) => (is_load(o.operand(0)) && !is_load(o.operand(1))).then(|| (o.operand(1), true)),
        (ReductionOp::Max | ReductionOp::Min, LLVMCall) => {
            let name = o.called_name()?;
            let family = if op == ReductionOp::Max { ["llvm.smax.", "llvm.umax.", "llvm.maxnum.", "llvm.maximumnum."] } else { ["llvm.smin.", "llvm.umin.", "llvm.minnum.", "llvm.minimumnum."] };
            if !family.iter().any(|f| name.starts_with(f)) {
                return None;
            }
            other((o.call_arg(0), o.call_arg(1))).map(|x| (x, false))
        }
        _ => None,
    }
}

/// `cond ? t : f` keeping the larger (`max`) or smaller (`min`) of the element (loads of
/// it, `is_load`) and another value x, in any of C's spellings (`h > x ? h : x`,
/// `x < h ? h : x`, ...): x and the loads.
#[allow(clippy::type_complexity)]
fn extreme<'ctx>(
    cond: Value<'ctx>,
    t: Value<'ctx>,
    f: Value<'ctx>,
    op: ReductionOp,
    is_load: &dyn Fn(Value<'ctx>) -> bool,
    eq: &dyn Fn(Value<'ctx>, Value<'ctx>) -> bool,
) -> Option<(Value<'ctx>, Vec<Value<'ctx>>)> {
    if !matches!(op, ReductionOp::Max | ReductionOp::Min) || !matches!(cond.opcode()?, Opcode::LLVMICmp | Opcode::LLVMFCmp) {
        return None;
    }
    let (a, b) = (cond.operand(0), cond.operand(1));
    // Which of the comparison's operands is the element; the other is x.
    let (x, a_is_element) = match (is_load(a), is_load(b)) {
        (true, false) => (b, true),
        (false, true) => (a, false),
        _ => return None,
    };
    // The sides: one the element (a load of it), the other x.
    let t_is_element = match (is_load(t), is_load(f)) {
        (true, false) if eq(f, x) => true,
        (false, true) if eq(t, x) => false,
        _ => return None,
    };
    // Whether the comparison holds when its first operand is the larger.
    let greater = match cond.opcode()? {
        Opcode::LLVMICmp => match cond.icmp_predicate() {
            IntPred::LLVMIntSGT | IntPred::LLVMIntSGE | IntPred::LLVMIntUGT | IntPred::LLVMIntUGE => true,
            IntPred::LLVMIntSLT | IntPred::LLVMIntSLE | IntPred::LLVMIntULT | IntPred::LLVMIntULE => false,
            _ => return None,
        },
        _ => {
            use llvm_sys::LLVMRealPredicate::*;
            match cond.fcmp_predicate() {
                LLVMRealOGT | LLVMRealOGE | LLVMRealUGT | LLVMRealUGE => true,
                LLVMRealOLT | LLVMRealOLE | LLVMRealULT | LLVMRealULE => false,
                _ => return None,
            }
        }
    };
    // The true side is the first operand's value exactly when the true side is the element
    // and the element is the first operand (or neither); it then keeps the larger when
    // the comparison is "greater".
    let keeps_first_when_true = t_is_element == a_is_element;
    let keeps_larger = greater == keeps_first_when_true;
    if keeps_larger != (op == ReductionOp::Max) {
        return None;
    }
    let loads = [a, b, t, f].into_iter().filter(|v| is_load(*v)).fold(Vec::new(), |mut acc, l| {
        if !acc.contains(&l) {
            acc.push(l);
        }
        acc
    });
    Some((x, loads))
}

/// Replaces `u` with one atomic update of its address.
fn emit<'ctx>(m: Module<'ctx>, u: &Update<'ctx>, op: ReductionOp, ty: ReductionType) {
    let ctx = m.context();
    let b = ctx.builder();
    b.set_debug_loc_of(u.store);
    b.position_before(u.store);
    let p = u.store.operand(1);
    let float = matches!(ty, ReductionType::F32 | ReductionType::F64);
    let signed = matches!(ty, ReductionType::I8 | ReductionType::I16 | ReductionType::I32 | ReductionType::I64);
    let x = u.x;
    let rmw = match op {
        ReductionOp::Add if float => Some((Rmw::LLVMAtomicRMWBinOpFAdd, if u.negate { b.fneg(x) } else { x })),
        ReductionOp::Add => Some((if u.negate { Rmw::LLVMAtomicRMWBinOpSub } else { Rmw::LLVMAtomicRMWBinOpAdd }, x)),
        ReductionOp::BitAnd => Some((Rmw::LLVMAtomicRMWBinOpAnd, x)),
        ReductionOp::BitOr => Some((Rmw::LLVMAtomicRMWBinOpOr, x)),
        ReductionOp::BitXor => Some((Rmw::LLVMAtomicRMWBinOpXor, x)),
        ReductionOp::Max if float => Some((Rmw::LLVMAtomicRMWBinOpFMax, x)),
        ReductionOp::Min if float => Some((Rmw::LLVMAtomicRMWBinOpFMin, x)),
        ReductionOp::Max => Some((if signed { Rmw::LLVMAtomicRMWBinOpMax } else { Rmw::LLVMAtomicRMWBinOpUMax }, x)),
        ReductionOp::Min => Some((if signed { Rmw::LLVMAtomicRMWBinOpMin } else { Rmw::LLVMAtomicRMWBinOpUMin }, x)),
        ReductionOp::Mul => None,
        ReductionOp::And | ReductionOp::Or => unreachable!("rejected by lower"),
    };
    match rmw {
        Some((kind, x)) => {
            b.atomic_rmw(kind, p, x);
        }
        None => multiply_by_cas(m, &b, u, p),
    }
    u.store.erase();
    for d in &u.dead {
        d.erase();
    }
    // A load that still decides something (the comparison of a conditional store or of a
    // `?:`) reads a value other threads update: atomically, so that it reads one of the
    // values the element had (they only grow under max, shrink under min: skipping the
    // update when x loses to it is right).
    for l in &u.loads {
        if l.users().is_empty() {
            l.erase();
        } else {
            l.set_monotonic();
        }
    }
}

/// `*p *= x` as a compare-and-swap loop (there is no atomic multiply): the integer image of
/// the old value is what the swap compares, so that a float's -0.0 and NaN work too.
fn multiply_by_cas<'ctx>(m: Module<'ctx>, b: &crate::ir::Builder<'ctx>, u: &Update<'ctx>, p: Value<'ctx>) {
    let ctx = m.context();
    let ty = u.x.ty();
    let bits = ctx.int((ty.store_size(m) * 8) as u32);
    let start = b.insert_block();
    let done = start.split_before(ctx, u.store, "acc.red.cas.done");
    let lp: Block = ctx.append_block(start.parent(), "acc.red.cas");
    // split_before left `start` ending in a branch to `done`: go to the loop instead.
    let to_done = start.terminator().expect("a split block ends with a branch");
    b.position_before(to_done);
    let first = b.atomic_load(bits, p);
    b.br(lp);
    to_done.erase();
    b.position_at_end(lp);
    let old = b.phi(bits, "");
    old.add_incoming(first, start);
    let value = if ty == bits { old } else { b.cast(Opcode::LLVMBitCast, old, ty) };
    let product = b.binop(u.dead[0].opcode().expect("the update's operation"), value, u.x);
    let new = if ty == bits { product } else { b.cast(Opcode::LLVMBitCast, product, bits) };
    let pair = b.cmpxchg(p, old, new);
    let seen = b.extract_value(pair, 0);
    old.add_incoming(seen, lp);
    b.cond_br(b.extract_value(pair, 1), done, lp);
    b.position_before(u.store);
}
