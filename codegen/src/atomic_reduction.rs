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
    /// The loads widened to `int` (C's promotion of `char` and `short`), erased when unused.
    widenings: Vec<Value<'ctx>>,
    /// The element's type when the operation was on the promoted value: the atomic works on
    /// the element's type, with the contribution truncated to it.
    narrow: Option<crate::ir::Type<'ctx>>,
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
    // What makes the item one for atomics, as its errors name it.
    let kind = if r.var.dims.is_empty() { "without constant bounds" } else { "over a part of each row" };
    let what = |why: &str| AccError::unsupported(loc, format!("the array reduction '{}' {kind} {why}", r.var.text));
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
    let kx = Kernel { cfg: &cfg, writes: std::cell::OnceCell::new() };
    let mut updates = Vec::new();
    for (s, _) in found.iter().filter(|(_, a)| *a == Access::Store) {
        let u = update_at(&kx, *s, r.op).ok_or_else(|| {
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

/// Rewrites the planned updates of a kernel's items into atomics, each update once (a
/// loop's item and the same variable's item on a loop around it find the same updates).
pub fn apply<'ctx>(m: Module<'ctx>, plans: &[Planned<'ctx>]) {
    let mut done = std::collections::HashSet::new();
    for p in plans {
        for u in p.updates.iter().filter(|u| done.insert(u.store)) {
            emit(m, u, p.op, p.ty);
        }
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

/// The kernel a plan reads: its CFG, and (made at the first comparison that needs them)
/// its instructions that may write memory.
struct Kernel<'a, 'ctx> {
    cfg: &'a FunctionCfg<'ctx>,
    writes: std::cell::OnceCell<Vec<Value<'ctx>>>,
}

impl<'ctx> Kernel<'_, 'ctx> {
    fn writes(&self) -> &[Value<'ctx>] {
        self.writes.get_or_init(|| self.cfg.blocks.iter().flat_map(|blk| blk.instructions()).filter(|i| may_write(*i)).collect())
    }
}

/// The update a store ends, when it is one: it stores `op` applied to the element it
/// overwrites (read by loads of the same address) and a contribution, as
/// - one operation: `h[e] += x`, `h[e] = h[e] * x`, `h[e] = fmax(h[e], x)`, a `select`;
/// - a conditional store (`if (x > h[e]) h[e] = x;`) or a `?:` whose two sides are blocks
///   of their own (`h[e] = h[e] > x ? h[e] : x`), for `max` and `min`;
/// - either of the first two on a `char` or `short` element that C promotes to `int`
///   (`trunc(sext(h[e]) + x)`): the same operation on the narrow type.
fn update_at<'ctx>(kx: &Kernel<'_, 'ctx>, store: Value<'ctx>, op: ReductionOp) -> Option<Update<'ctx>> {
    let v = store.operand(0);
    match_update(kx, store, v, op, false).or_else(|| {
        let promoted = v.opcode() == Some(Opcode::LLVMTrunc) && v.users()[..] == [store];
        promoted.then(|| match_update(kx, store, v.operand(0), op, true)).flatten()
    })
}

/// `update_at` for stored value `v` (`narrow`: `v` is the promoted value the store
/// truncates, and the element is read widened).
fn match_update<'ctx>(kx: &Kernel<'_, 'ctx>, store: Value<'ctx>, v: Value<'ctx>, op: ReductionOp, narrow: bool) -> Option<Update<'ctx>> {
    let p = store.operand(1);
    let elem_ty = store.operand(0).ty();
    let is_load = |l: Value<'ctx>| l.opcode() == Some(Opcode::LLVMLoad) && !l.is_atomic_access() && equal(kx, l.operand(0), p, 0);
    // What reads the element in the computation: its load, or (promoted) the load widened.
    let load_of = |e: Value<'ctx>| -> Option<Value<'ctx>> {
        if is_load(e) {
            return (!narrow || e.ty() == elem_ty).then_some(e);
        }
        let widened = matches!(e.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) && is_load(e.operand(0)) && e.operand(0).ty() == elem_ty;
        widened.then(|| e.operand(0))
    };
    let is_elem = |e: Value<'ctx>| load_of(e).is_some();
    let eq = |a: Value<'ctx>, b: Value<'ctx>| equal(kx, a, b, 0);
    let single_use = |i: Value<'ctx>, by: Value<'ctx>| i.users()[..] == [by];
    // The elements' reads (each used only within `within`, a widening only by the read it
    // widens) as loads, with the widenings to erase.
    let reads = |elems: &[Value<'ctx>], within: &[Value<'ctx>]| -> Option<(Vec<Value<'ctx>>, Vec<Value<'ctx>>)> {
        let mut loads = Vec::new();
        let mut widenings = Vec::new();
        for &e in elems {
            let l = load_of(e)?;
            if !e.users().iter().all(|u| within.contains(u)) || (l != e && l.users()[..] != [e]) {
                return None;
            }
            if l != e {
                widenings.push(e);
            }
            loads.push(l);
        }
        Some((loads, widenings))
    };
    let trunc: Vec<Value> = if narrow { vec![store.operand(0)] } else { vec![] };
    let update = |x: Value<'ctx>, negate: bool, loads: Vec<Value<'ctx>>, dead: Vec<Value<'ctx>>, widenings: Vec<Value<'ctx>>| Update {
        store,
        x,
        negate,
        loads,
        dead: trunc.iter().copied().chain(dead).collect(),
        widenings,
        narrow: narrow.then_some(elem_ty),
    };
    // One operation.
    if narrow || single_use(v, store) {
        if narrow && !single_use(v, store.operand(0)) {
            return None;
        }
        if let Some((x, negate)) = operation(v, op, &is_elem) {
            let elems: Vec<Value> = v.operands().into_iter().filter(|o| is_elem(*o)).collect();
            if let Some((loads, widenings)) = reads(&elems, &[v]) {
                return Some(update(x, negate, loads, vec![v], widenings));
            }
        }
        if v.opcode() == Some(Opcode::LLVMSelect) {
            let cmp = v.operand(0);
            let (x, elems) = extreme(cmp, v.operand(1), v.operand(2), op, &is_elem, &eq)?;
            let (loads, widenings) = reads(&elems, &[cmp, v])?;
            return (single_use(cmp, v)).then(|| update(x, false, loads, vec![v, cmp], widenings));
        }
    }
    if !matches!(op, ReductionOp::Max | ReductionOp::Min) {
        return None;
    }
    // A `?:` as a diamond: the stored value a phi of the two sides. (A phi that is not one,
    // such as a `?:` inside a conditionally stored contribution, may still be the next form.)
    let diamond = || -> Option<Update<'ctx>> {
        let incoming = v.incoming();
        let [(a, from_a), (b, from_b)] = incoming[..] else { return None };
        let (cond, on_true) = branch_between(kx.cfg, from_a, from_b, v.parent_block())?;
        let (t, f) = if on_true == from_a { (a, b) } else { (b, a) };
        let (x, elems) = extreme(cond, t, f, op, &is_elem, &eq)?;
        let (loads, widenings) = reads(&elems, &[cond, v])?;
        Some(update(x, false, loads, vec![v], widenings))
    };
    if let Some(u) = (v.is_phi() && v.users().len() == 1).then(diamond).flatten() {
        return Some(u);
    }
    if narrow {
        return None;
    }
    // A conditional store of the contribution: `select(cond, x, h[e])` on the taken side,
    // x compared as it is or widened (`if (c > h[e]) h[e] = c;` with `short h[]`).
    let (cond, taken_on_true) = guarding_branch(kx.cfg, store.parent_block(), &is_elem)?;
    let elem = cond.operands().into_iter().find(|o| is_elem(*o))?;
    let x = cond.operands().into_iter().find(|o| *o != elem)?;
    let (t, f) = if taken_on_true { (x, elem) } else { (elem, x) };
    let (x, elems) = extreme(cond, t, f, op, &is_elem, &eq)?;
    let widened_v = matches!(x.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) && eq(x.operand(0), v);
    if !(eq(x, v) || widened_v) {
        return None;
    }
    let (loads, _) = reads(&elems, &[cond])?;
    // The comparison keeps its reads (made atomic); the store's own value is x.
    Some(Update { store, x: v, negate: false, loads, dead: vec![], widenings: vec![], narrow: None })
}

/// Whether `a` and `b` are the same value: one instruction, or the same pure computation
/// (GEPs, casts, integer arithmetic) of the same values, where two loads of a local
/// variable's slot are the same when no store to it can come between them (clang computes
/// `h[j] = h[j] > x ? h[j] : x` with three loads of `j` before SROA).
fn equal<'ctx>(kx: &Kernel<'_, 'ctx>, a: Value<'ctx>, b: Value<'ctx>, depth: u32) -> bool {
    let cfg = kx.cfg;
    if a == b || element_address::same(cfg.function(), a, b) {
        return true;
    }
    let (Some(op), Some(op_b)) = (a.opcode(), b.opcode()) else { return false };
    if depth > 48 || op != op_b || a.num_operands() != b.num_operands() || a.ty() != b.ty() {
        return false;
    }
    let operands = || a.operands().into_iter().zip(b.operands()).all(|(x, y)| equal(kx, x, y, depth + 1));
    use Opcode::*;
    match op {
        LLVMGetElementPtr => a.gep_source_type() == b.gep_source_type() && operands(),
        LLVMSExt | LLVMZExt | LLVMTrunc | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => operands(),
        // Division traps only where the first computation would have trapped already.
        LLVMSDiv | LLVMSRem | LLVMUDiv | LLVMURem => operands(),
        LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFNeg | LLVMSIToFP | LLVMUIToFP | LLVMFPToSI | LLVMFPToUI | LLVMFPExt | LLVMFPTrunc | LLVMSelect => operands(),
        LLVMICmp => a.icmp_predicate() == b.icmp_predicate() && operands(),
        // Two `?:` computed alike: the same condition chooses the same values.
        LLVMPHI => {
            let sides = |p: Value<'ctx>| -> Option<(Value<'ctx>, Value<'ctx>, Value<'ctx>)> {
                let [(x, bx), (y, by)] = p.incoming()[..] else { return None };
                let (cond, on_true) = branch_between(cfg, bx, by, p.parent_block())?;
                Some(if on_true == bx { (cond, x, y) } else { (cond, y, x) })
            };
            match (sides(a), sides(b)) {
                (Some((ca, ta, fa)), Some((cb, tb, fb))) => equal(kx, ca, cb, depth + 1) && equal(kx, ta, tb, depth + 1) && equal(kx, fa, fb, depth + 1),
                _ => false,
            }
        }
        LLVMFCmp => a.fcmp_predicate() == b.fcmp_predicate() && operands(),
        LLVMLoad if a.is_atomic_access() || b.is_atomic_access() || !equal(kx, a.operand(0), b.operand(0), depth + 1) => false,
        LLVMLoad => {
            let slot = crate::outline::strip(a.operand(0));
            if slot == crate::outline::strip(b.operand(0)) && plain_slot(slot) {
                let stores: Vec<Value> = slot.users().into_iter().filter(|u| u.opcode() == Some(Opcode::LLVMStore)).collect();
                no_store_between(cfg, &stores, a, b)
            } else {
                // Any other memory: nothing that may write memory between the two reads.
                no_store_between(cfg, kx.writes(), a, b)
            }
        }
        _ => false,
    }
}

/// A local variable's slot only loaded, stored and given lifetimes (its address taken by
/// nothing else).
fn plain_slot(slot: Value<'_>) -> bool {
    slot.is_alloca()
        && slot.users().into_iter().all(|u| match u.opcode() {
            Some(Opcode::LLVMLoad) => true,
            Some(Opcode::LLVMStore) => u.operand(1) == slot && u.operand(0) != slot,
            Some(Opcode::LLVMCall) => u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime")),
            _ => false,
        })
}

/// Whether instruction `i` may write memory: a store, an atomic, a call other than to an
/// intrinsic that does not (lifetimes, debug records, math).
fn may_write(i: Value<'_>) -> bool {
    match i.opcode() {
        Some(Opcode::LLVMStore | Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => true,
        Some(Opcode::LLVMCall) => {
            let name = i.called_name().unwrap_or_default();
            let pure = ["llvm.lifetime", "llvm.dbg", "llvm.smax", "llvm.smin", "llvm.umax", "llvm.umin", "llvm.maxnum", "llvm.minnum", "llvm.fabs", "llvm.sqrt"];
            !pure.iter().any(|p| name.starts_with(p))
        }
        _ => false,
    }
}

/// Whether two loads of one address read the same value: when one dominates the other, none
/// of `writes` lies on a path from the first to the second that does not pass the first
/// again; otherwise (the two sides of a `?:`) none lies on a path to either from the end of
/// the nearest block that dominates both.
fn no_store_between<'ctx>(cfg: &FunctionCfg<'ctx>, writes: &[Value<'ctx>], a: Value<'ctx>, b: Value<'ctx>) -> bool {
    if cfg.dominates_inst(a, b) {
        return clear_path(cfg, writes, a.parent_block(), Some(a), b);
    }
    if cfg.dominates_inst(b, a) {
        return clear_path(cfg, writes, b.parent_block(), Some(b), a);
    }
    let Some(d) = common_dominator(cfg, a.parent_block(), b.parent_block()) else { return false };
    clear_path(cfg, writes, d, None, a) && clear_path(cfg, writes, d, None, b)
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

/// The comparison of the element (`is_elem`) whose branch decides whether block `blk`
/// runs, and whether it runs on the true side: the nearest block above `blk` in the
/// dominator tree that ends in a branch on such a comparison, one of whose successors is
/// entered only from it and dominates `blk` (`if (x > h[e]) h[e] = x;`, also when computing
/// x again takes blocks of its own, as a `?:` in x does).
fn guarding_branch<'ctx>(cfg: &FunctionCfg<'ctx>, blk: Block<'ctx>, is_elem: &dyn Fn(Value<'ctx>) -> bool) -> Option<(Value<'ctx>, bool)> {
    let mut at = blk;
    for _ in 0..16 {
        let d = cfg.blocks[cfg.idom[cfg.index[&at]]?];
        if d == at {
            return None;
        }
        if let Some(term) = d.terminator().filter(|t| t.is_conditional_branch()) {
            let cond = term.branch_condition();
            let compares = matches!(cond.opcode(), Some(Opcode::LLVMICmp | Opcode::LLVMFCmp)) && cond.operands().into_iter().any(is_elem);
            let succs = term.successors();
            let side = succs.iter().position(|s| cfg.predecessors(*s)[..] == [d] && cfg.dominates(*s, blk));
            if let (true, Some(i), [a, b]) = (compares, side, &succs[..]) {
                return (a != b).then_some((cond, i == 0));
            }
        }
        at = d;
    }
    None
}

/// The condition of the branch that decides whether a join's value comes from incoming
/// block `a` or `b`, and the one of them that stands for its true side: the branch ends
/// the nearest block dominating both, and each side's successor dominates its incoming
/// block (or is the join itself, entered from the branching block).
fn branch_between<'ctx>(cfg: &FunctionCfg<'ctx>, a: Block<'ctx>, b: Block<'ctx>, join: Block<'ctx>) -> Option<(Value<'ctx>, Block<'ctx>)> {
    let d = common_dominator(cfg, a, b)?;
    let term = d.terminator()?;
    if !term.is_conditional_branch() {
        return None;
    }
    let [on_true, on_false] = term.successors()[..] else { return None };
    if on_true == on_false {
        return None;
    }
    let side = |s: Block<'ctx>, x: Block<'ctx>| if s == join { x == d } else { cfg.dominates(s, x) };
    if side(on_true, a) && side(on_false, b) {
        Some((term.branch_condition(), a))
    } else if side(on_true, b) && side(on_false, a) {
        Some((term.branch_condition(), b))
    } else {
        None
    }
}

/// The nearest block that dominates both `a` and `b`.
fn common_dominator<'ctx>(cfg: &FunctionCfg<'ctx>, a: Block<'ctx>, b: Block<'ctx>) -> Option<Block<'ctx>> {
    let mut d = a;
    while !cfg.dominates(d, b) {
        match cfg.idom[cfg.index[&d]] {
            Some(i) if cfg.blocks[i] != d => d = cfg.blocks[i],
            _ => return None,
        }
    }
    Some(d)
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
        // `h + a * b` contracted (clang's default -ffp-contract=on): the contribution is the
        // product, which fmuladd may round on its own anyway.
        (ReductionOp::Add, LLVMCall) if o.called_name().is_some_and(|n| n.starts_with("llvm.fmuladd.")) => {
            let (a, b, c) = (o.call_arg(0), o.call_arg(1), o.call_arg(2));
            if !is_load(c) || is_load(a) || is_load(b) {
                return None;
            }
            let builder = o.context().builder();
            builder.position_before(o);
            Some((builder.binop(LLVMFMul, a, b), false))
        }
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
    // On a promoted element the contribution narrows to the element's type (exact for the
    // ring operations; max and min compared the widened values, the same order).
    let x = match u.narrow {
        Some(t) if matches!(u.x.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) && u.x.operand(0).ty() == t => u.x.operand(0),
        Some(t) => b.cast(Opcode::LLVMTrunc, u.x, t),
        None => u.x,
    };
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
        None => multiply_by_cas(m, &b, u, p, x),
    }
    u.store.erase();
    for d in &u.dead {
        d.erase();
    }
    for w in &u.widenings {
        if w.users().is_empty() {
            w.erase();
        }
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
fn multiply_by_cas<'ctx>(m: Module<'ctx>, b: &crate::ir::Builder<'ctx>, u: &Update<'ctx>, p: Value<'ctx>, x: Value<'ctx>) {
    let ctx = m.context();
    let ty = x.ty();
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
    let multiply = u.dead.iter().filter_map(|d| d.opcode()).find(|o| matches!(o, Opcode::LLVMMul | Opcode::LLVMFMul)).expect("a * update multiplies");
    let product = b.binop(multiply, value, x);
    let new = if ty == bits { product } else { b.cast(Opcode::LLVMBitCast, product, bits) };
    let pair = b.cmpxchg(p, old, new);
    let seen = b.extract_value(pair, 0);
    old.add_incoming(seen, lp);
    b.cond_br(b.extract_value(pair, 1), done, lp);
    b.position_before(u.store);
}
