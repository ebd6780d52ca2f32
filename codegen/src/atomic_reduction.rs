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
//! `&`, `|`, `^`, `max`, `min`; a compare-and-swap loop for `*`, for `&&`/`||` (clang's
//! short circuit: the old value's truth combined with the contribution's, as 0 or 1), for
//! `_Bool` elements (C's promoted operation, then whether it is non-zero) and for complex
//! products (both parts in one 64- or 128-bit swap, computed by clang's `__mulsc3` /
//! `__muldc3`; complex `+` is an atomic add per part). Every update keeps its place in the
//! program; only the load, the operation and the store become one atomic.
//!
//! An array private to the region (declared in a gang or worker loop's body) that a
//! partitioned loop reduces is shared by that loop's threads, so privatize.rs places it in
//! shared memory or on the device heap, where the same atomics work; one that a loop run by
//! a single thread reduces keeps its plain updates.
//!
//! What it deliberately does not do: regions that use the array other than by updating an
//! element with the clause's operator (`h[e] = h[e] + x`, `h[e] += x`, `h[e] = max(h[e],
//! x)`...): a read of an element would see other iterations' partial results, not the
//! private copy the spec promises, and a plain store would race with them. `plan` says why;
//! device.rs then gives the item private copies of run-time size instead (reduction.rs
//! `View`: one range, a part of each row, or one level of pointer rows), and the rest stay
//! located "not supported yet" errors. An element no iteration updates keeps its value (under `&&`/`||`
//! an original 5 stays 5, not 1), as on the host path.

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
    /// How the new value is made from the old one.
    how: How<'ctx>,
    /// The loads of the element the update reads.
    loads: Vec<Value<'ctx>>,
    /// What computes the stored value from them (erased with the store), in use order.
    dead: Vec<Value<'ctx>>,
    /// The loads widened to `int` (C's promotion of `char`, `short` and `_Bool`), erased
    /// when unused.
    widenings: Vec<Value<'ctx>>,
}

/// How an update makes an element's new value from its old one.
#[derive(Clone, Copy)]
enum How<'ctx> {
    /// The clause's operator with contribution `x` (`negate`: subtracted, `h[e] -= x` in a
    /// `+` reduction): one atomic read-modify-write, or a compare-and-swap loop for `*`.
    /// `narrow`: the element's type when the operation was on C's promoted value (the atomic
    /// works on the element's type, with x truncated to it).
    Operator { x: Value<'ctx>, negate: bool, narrow: Option<crate::ir::Type<'ctx>> },
    /// A `_Bool` element's `b op= x` (C computes `(int)b op x` and stores whether it is
    /// non-zero): a compare-and-swap loop computing exactly that from each old value.
    Bool { x: Value<'ctx>, negate: bool },
    /// `h[e] = h[e] && c` or `||` (either operand first): a compare-and-swap loop storing the
    /// old value's truth combined with the contribution's, as 0 or 1. `edges`: the
    /// contribution (an `i1`) on each edge into the short circuit's join, in the order of
    /// `join`'s incoming values (its blocks are read when the rewrite happens: an earlier
    /// rewrite may have split one); on the edge that skipped it, the value that leaves the
    /// result the old value's truth.
    Logic { edges: [Value<'ctx>; 2], join: Value<'ctx> },
    /// One component's store of a complex `h[e] *= x`: both components change in one
    /// compare-and-swap of the element (64 or 128 bits), computed by clang's `__mulsc3` /
    /// `__muldc3` (`call`) from the old value and x, the element its first operand pair
    /// when `element_first`; `real`: the store of the real part (the swap's address).
    ComplexMul { call: Value<'ctx>, element_first: bool, real: Value<'ctx> },
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
/// made atomic. `partitioned`: the loop's iterations are spread over several threads (a
/// construct's item: always). Plan every item of a kernel before applying any: a rewrite
/// adds loops.
pub fn plan<'ctx>(k: Value<'ctx>, storage: Value<'ctx>, r: &Reduction<'ctx>, inside: &dyn Fn(Value<'ctx>) -> bool, partitioned: bool, loc: &Loc) -> Result<Planned<'ctx>> {
    // What makes the item one for atomics, as its errors name it.
    let kind = if !r.var.rows.is_empty() {
        "through rows that are pointers"
    } else if r.var.dims.is_empty() {
        "without constant bounds"
    } else {
        "over a part of each row"
    };
    let what = |why: &str| AccError::unsupported(loc, format!("the array reduction '{}' {kind} {why}", r.var.text));
    if storage.is_alloca() && !partitioned {
        // An array private to the region, updated by a loop that one thread runs (or each
        // thread of a redundant team on its own copy): its updates are already the result.
        return Ok(Planned { updates: Vec::new(), op: r.op, ty: r.ty });
    }
    // (An array private to the region that a partitioned loop updates is one that loop's
    // threads share: privatize.rs places it in shared memory or on the device heap, where
    // the atomics work.)
    let found: Vec<(Value, Access)> = accesses(storage, k, r.var.rows.len()).into_iter().filter(|(i, _)| inside(*i)).collect();
    if found.iter().any(|(_, a)| *a == Access::Other) {
        return Err(what("passes it to a function or stores its address (accc updates such an array's elements atomically and must see every access)"));
    }
    let cfg = FunctionCfg::new(k);
    let kx = Kernel { cfg: &cfg, writes: std::cell::OnceCell::new() };
    let mut updates = Vec::new();
    for (s, _) in found.iter().filter(|(_, a)| *a == Access::Store) {
        let u = update_at(&kx, *s, r.op, r.ty).ok_or_else(|| {
            what(&format!("stores an element other than by updating it with '{}' (accc updates such an array's elements atomically: a plain store would race with other iterations' updates)", r.op.symbol()))
        })?;
        updates.push(u);
    }
    for (l, _) in found.iter().filter(|(_, a)| *a == Access::Load) {
        if !updates.iter().any(|u| u.loads.contains(l)) {
            return Err(what(&format!("reads an element other than to update it with '{}' (accc updates such an array's elements atomically, so a read would see other iterations' partial results)", r.op.symbol())));
        }
    }
    // A complex product changes both parts in one swap: both stores must be updates.
    for u in &updates {
        if let How::ComplexMul { call, .. } = u.how {
            if updates.iter().filter(|v| matches!(v.how, How::ComplexMul { call: c, .. } if c == call)).count() != 2 {
                return Err(what("stores one part of a complex element without the other (accc updates such an array's elements atomically, both parts in one compare-and-swap)"));
            }
        }
    }
    Ok(Planned { updates, op: r.op, ty: r.ty })
}

/// Rewrites the planned updates of a kernel's items into atomics, each update once (a
/// loop's item and the same variable's item on a loop around it find the same updates;
/// the two parts of a complex product are one swap). The last update in the kernel's block
/// order goes first: a compare-and-swap loop splits its block, which replaces the phis of
/// the blocks after it (`Block::split_before`), and an update still to come must not hold
/// one of those.
pub fn apply<'ctx>(m: Module<'ctx>, plans: &[Planned<'ctx>]) {
    let mut all: Vec<(&Planned<'ctx>, &Update<'ctx>)> = plans.iter().flat_map(|p| p.updates.iter().map(move |u| (p, u))).collect();
    let mut position = std::collections::HashMap::new();
    for (_, u) in &all {
        if let std::collections::hash_map::Entry::Vacant(e) = position.entry(u.store.parent_function()) {
            let order: std::collections::HashMap<Value, usize> =
                e.key().blocks().into_iter().flat_map(|b| b.instructions()).enumerate().map(|(i, v)| (v, i)).collect();
            e.insert(order);
        }
    }
    all.sort_by_key(|(_, u)| std::cmp::Reverse(position[&u.store.parent_function()][&u.store]));
    let mut done = std::collections::HashSet::new();
    for (p, u) in all {
        if !done.insert(u.store) {
            continue;
        }
        let first_part = match u.how {
            How::ComplexMul { call, .. } => done.insert(call),
            _ => true,
        };
        emit(m, u, p.op, p.ty, first_part);
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
/// casts), and how. `row_levels`: how many levels of row pointers lie between `storage`
/// and the elements (`p[0:n][0:m]` of `double **p`: 1); a load of a row pointer is followed
/// to the row's accesses, not counted as one.
fn accesses<'ctx>(storage: Value<'ctx>, k: Value<'ctx>, row_levels: usize) -> Vec<(Value<'ctx>, Access)> {
    let mut out = Vec::new();
    let mut work = vec![(storage, 0)];
    let mut seen = std::collections::HashSet::new();
    while let Some((p, depth)) = work.pop() {
        for u in p.users() {
            if !u.is_instruction() || u.parent_function() != k || !seen.insert(u) {
                continue;
            }
            match u.opcode() {
                Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) if u.operand(0) == p => work.push((u, depth)),
                Some(Opcode::LLVMLoad) if depth < row_levels && u.ty().is_ptr() && !u.is_atomic_access() => work.push((u, depth + 1)),
                Some(Opcode::LLVMLoad) if !u.is_atomic_access() && depth == row_levels => out.push((u, Access::Load)),
                Some(Opcode::LLVMStore) if u.operand(1) == p && u.operand(0) != p && !u.is_atomic_access() && depth == row_levels => out.push((u, Access::Store)),
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
    /// Whether `l` is a plain load of the element at address `p` (the same address computed
    /// again counts: `equal`).
    fn reads(&self, l: Value<'ctx>, p: Value<'ctx>) -> bool {
        l.opcode() == Some(Opcode::LLVMLoad) && !l.is_atomic_access() && equal(self, l.operand(0), p, 0)
    }
    fn writes(&self) -> &[Value<'ctx>] {
        self.writes.get_or_init(|| self.cfg.blocks.iter().flat_map(|blk| blk.instructions()).filter(|i| may_write(*i)).collect())
    }
}

/// The update a store ends, when it is one: it stores `op` applied to the element it
/// overwrites (read by loads of the same address) and a contribution, as
/// - one operation: `h[e] += x`, `h[e] = h[e] * x`, `h[e] = fmax(h[e], x)`, a `select`;
/// - a conditional store (`if (x > h[e]) h[e] = x;`) or a `?:` whose two sides are blocks
///   of their own (`h[e] = h[e] > x ? h[e] : x`), for `max` and `min`;
/// - either of the first two on a `char`, `short` or `_Bool` element that C promotes to
///   `int` (`trunc(sext(h[e]) + x)`, `(int)b | x != 0`);
/// - `h[e] = h[e] && c`, `h[e] = c || h[e]`...: a short circuit (`logic_update`);
/// - a complex element's part of `h[e] *= x` (`complex_product`).
fn update_at<'ctx>(kx: &Kernel<'_, 'ctx>, store: Value<'ctx>, op: ReductionOp, ty: ReductionType) -> Option<Update<'ctx>> {
    if matches!(op, ReductionOp::And | ReductionOp::Or) {
        return logic_update(kx, store, op);
    }
    if ty.is_complex() && op == ReductionOp::Mul {
        return complex_product(kx, store);
    }
    let v = store.operand(0);
    if ty == ReductionType::Bool {
        // `zext (icmp ne r, 0) to i8`: r the operation on the promoted element.
        let test = (v.opcode() == Some(Opcode::LLVMZExt) && v.users()[..] == [store]).then(|| v.operand(0))?;
        let tests_nonzero = test.opcode() == Some(Opcode::LLVMICmp) && test.icmp_predicate() == IntPred::LLVMIntNE && test.operand(1).const_int_value() == Some(0);
        return (tests_nonzero && test.users()[..] == [v]).then(|| match_update(kx, store, test.operand(0), op, Form::Bool)).flatten();
    }
    match_update(kx, store, v, op, Form::Plain).or_else(|| {
        let promoted = v.opcode() == Some(Opcode::LLVMTrunc) && v.users()[..] == [store];
        promoted.then(|| match_update(kx, store, v.operand(0), op, Form::Promoted)).flatten()
    })
}

/// How the value an update computes becomes the stored one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Stored as computed, on the element's type.
    Plain,
    /// Computed on C's promoted `int` and truncated to the element's type.
    Promoted,
    /// Computed on `int` from a `_Bool` element read as 0 or 1, stored as whether it is
    /// non-zero.
    Bool,
}

/// `update_at` for the computed value `v` (`form`: how it reaches the store).
fn match_update<'ctx>(kx: &Kernel<'_, 'ctx>, store: Value<'ctx>, v: Value<'ctx>, op: ReductionOp, form: Form) -> Option<Update<'ctx>> {
    let p = store.operand(1);
    let elem_ty = store.operand(0).ty();
    let narrow = form != Form::Plain;
    let is_load = |l: Value<'ctx>| kx.reads(l, p);
    // What reads the element in the computation: its load, or (promoted) the load widened,
    // with the widening's steps (a `_Bool` is read as an `i1` first).
    let read_of = |e: Value<'ctx>| -> Option<(Value<'ctx>, Vec<Value<'ctx>>)> {
        if is_load(e) {
            return (form != Form::Promoted || e.ty() == elem_ty).then_some((e, vec![]));
        }
        if !matches!(e.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) {
            return None;
        }
        let inner = e.operand(0);
        if form == Form::Bool {
            let as_bit = inner.opcode() == Some(Opcode::LLVMTrunc) && inner.users()[..] == [e] && is_load(inner.operand(0));
            return as_bit.then(|| (inner.operand(0), vec![e, inner]));
        }
        (is_load(inner) && inner.ty() == elem_ty).then(|| (inner, vec![e]))
    };
    let load_of = |e: Value<'ctx>| read_of(e).map(|(l, _)| l);
    let is_elem = |e: Value<'ctx>| load_of(e).is_some();
    let eq = |a: Value<'ctx>, b: Value<'ctx>| equal(kx, a, b, 0);
    let single_use = |i: Value<'ctx>, by: Value<'ctx>| i.users()[..] == [by];
    // The elements' reads (each used only within `within`, a widening only by the read it
    // widens) as loads, with the widenings to erase.
    let reads = |elems: &[Value<'ctx>], within: &[Value<'ctx>]| -> Option<(Vec<Value<'ctx>>, Vec<Value<'ctx>>)> {
        let mut loads = Vec::new();
        let mut widenings = Vec::new();
        for &e in elems {
            let (l, steps) = read_of(e)?;
            if !e.users().iter().all(|u| within.contains(u)) || steps.last().is_some_and(|s| l.users()[..] != [*s]) {
                return None;
            }
            widenings.extend(steps);
            loads.push(l);
        }
        Some((loads, widenings))
    };
    // What turns v into the stored value (erased with the store): a truncation, or a
    // `_Bool`'s test and extension.
    let conversion: Vec<Value> = match form {
        Form::Plain => vec![],
        Form::Promoted => vec![store.operand(0)],
        Form::Bool => vec![store.operand(0), store.operand(0).operand(0)],
    };
    let how = |x: Value<'ctx>, negate: bool| match form {
        Form::Bool => How::Bool { x, negate },
        Form::Promoted => How::Operator { x, negate, narrow: Some(elem_ty) },
        Form::Plain => How::Operator { x, negate, narrow: None },
    };
    let update = |x: Value<'ctx>, negate: bool, loads: Vec<Value<'ctx>>, dead: Vec<Value<'ctx>>, widenings: Vec<Value<'ctx>>| Update {
        store,
        how: how(x, negate),
        loads,
        dead: conversion.iter().copied().chain(dead).collect(),
        widenings,
    };
    // One operation.
    let consumer = conversion.last().copied().unwrap_or(store);
    if single_use(v, consumer) {
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
    } else if narrow {
        return None;
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
    Some(Update { store, how: How::Operator { x: v, negate: false, narrow: None }, loads, dead: vec![], widenings: vec![] })
}

/// The element's load whose truth `t` tests (`h[e] != 0`, a `_Bool` read as an `i1`,
/// `d != 0.0`), when it is one (`is_load`).
fn truth_of<'ctx>(t: Value<'ctx>, is_load: &dyn Fn(Value<'ctx>) -> bool) -> Option<Value<'ctx>> {
    let zero = |v: Value<'ctx>| v.const_int_value() == Some(0) || (v.ty().is_float() && v.is_zero_constant());
    let strip = |v: Value<'ctx>| if matches!(v.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) { v.operand(0) } else { v };
    let loaded = match t.opcode()? {
        Opcode::LLVMICmp if t.icmp_predicate() == IntPred::LLVMIntNE && zero(t.operand(1)) => strip(t.operand(0)),
        Opcode::LLVMFCmp if t.fcmp_predicate() == llvm_sys::LLVMRealPredicate::LLVMRealUNE && zero(t.operand(1)) => t.operand(0),
        Opcode::LLVMTrunc if t.ty().int_width() == 1 => t.operand(0),
        _ => return None,
    };
    is_load(loaded).then_some(loaded)
}

/// `h[e] = h[e] && c`, `h[e] = c && h[e]` (and `||`): clang's short circuit, a phi of `i1`
/// at the join whose constant side comes from the branch that skipped the second operand,
/// converted to the element's type (`zext`, then `sitofp` for a float, `trunc` for a
/// `char`). Either the branch tests the element and the other side is the contribution c,
/// or the branch tests c and the other side tests the element.
fn logic_update<'ctx>(kx: &Kernel<'_, 'ctx>, store: Value<'ctx>, op: ReductionOp) -> Option<Update<'ctx>> {
    let p = store.operand(1);
    let is_load = |l: Value<'ctx>| kx.reads(l, p);
    let mut conversion = Vec::new();
    let mut v = store.operand(0);
    let is_bit = |v: Value<'ctx>| v.ty().is_int() && v.ty().int_width() == 1;
    while matches!(v.opcode(), Some(Opcode::LLVMZExt | Opcode::LLVMSExt | Opcode::LLVMTrunc | Opcode::LLVMSIToFP | Opcode::LLVMUIToFP)) && !is_bit(v) {
        if v.users().len() != 1 {
            return None;
        }
        conversion.push(v);
        v = v.operand(0);
    }
    if !v.is_phi() || !is_bit(v) || v.users().len() != 1 {
        return None;
    }
    let incoming = v.incoming();
    let [a, b] = incoming[..] else { return None };
    // K: the short circuit's constant, on the edge from the branch that skipped the rest.
    let ((k, from_k), (other, from_other)) = match (a.0.const_int_value(), b.0.const_int_value()) {
        (Some(_), None) => (a, b),
        (None, Some(_)) => (b, a),
        _ => return None,
    };
    let k_true = k.const_int_value() != Some(0);
    let (cond, on_true) = branch_between(kx.cfg, from_k, from_other, v.parent_block())?;
    // `&&` skips when its first operand is false and gives false; `||` when true, true.
    let or = op == ReductionOp::Or;
    if k_true != or || (on_true == from_k) != or {
        return None;
    }
    let i1 = v.ty();
    let no = i1.const_int(0);
    let mut dead = conversion;
    dead.push(v);
    // The contribution on each edge: on the skipping edge, nothing that changes the old
    // value's truth (false for both operators: `t && false` is false, `t || false` is t).
    // (In the order of the join's incoming values.)
    let in_order = |on_k: Value<'ctx>, on_other: Value<'ctx>| if a.1 == from_k { [on_k, on_other] } else { [on_other, on_k] };
    let (edges, load) = if let Some(l) = truth_of(cond, &is_load) {
        (in_order(no, other), l)
    } else {
        let l = truth_of(other, &is_load)?;
        if other.users().len() != 1 {
            return None;
        }
        dead.push(other);
        let widened = other.operand(0);
        if widened != l && widened.is_instruction() && widened.users().len() == 1 {
            dead.push(widened);
        }
        // The branch tested c: on the skipping edge c was K (false for `&&`, true for
        // `||`), on the other edge its opposite.
        (in_order(k, i1.const_int(!k_true as u64)), l)
    };
    Some(Update { store, how: How::Logic { edges, join: v }, loads: vec![load], dead, widenings: vec![] })
}

/// The call of clang's complex multiply (`__muldc3`, `__mulsc3`) whose result part `x` is,
/// with the part's index: an `extractvalue` of its `{T, T}`, or (a `<2 x float>` returned
/// in a register) a load of the part from the temporary clang stores the result to.
fn product_part(x: Value<'_>) -> Option<(Value<'_>, u32)> {
    let multiply = |c: Value| c.is_call() && c.called_name().is_some_and(|n| n == "__muldc3" || n == "__mulsc3");
    match x.opcode()? {
        Opcode::LLVMExtractValue if multiply(x.operand(0)) => Some((x.operand(0), x.aggregate_index()?)),
        Opcode::LLVMExtractElement if multiply(x.operand(0)) => Some((x.operand(0), x.operand(1).const_int_value()? as u32)),
        Opcode::LLVMLoad => {
            let (temp, index) = part_of(x.operand(0))?;
            if !temp.is_alloca() {
                return None;
            }
            let stored = temp.users().into_iter().filter(|u| u.opcode() == Some(Opcode::LLVMStore) && u.operand(1) == temp).map(|s| s.operand(0)).collect::<Vec<_>>();
            match stored[..] {
                [c] if multiply(c) => Some((c, index as u32)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The complex value and the part (0 real, 1 imaginary) that address `a` names, when it is
/// clang's `gep {T, T}, c, 0, part`.
fn part_of(a: Value<'_>) -> Option<(Value<'_>, i64)> {
    let gep = a.opcode() == Some(Opcode::LLVMGetElementPtr) && a.num_operands() == 3 && a.operand(1).const_int_value() == Some(0);
    gep.then(|| a.operand(2).const_int_value().map(|i| (a.operand(0), i))).flatten()
}

/// A part of a complex `h[e] *= x` (or `h[e] = x * h[e]`): clang multiplies inline and
/// calls `__muldc3`/`__mulsc3` when that gives NaN, so the stored part is a phi one of whose
/// incoming values is the call's part (or that part itself).
fn complex_product<'ctx>(kx: &Kernel<'_, 'ctx>, store: Value<'ctx>) -> Option<Update<'ctx>> {
    let v = store.operand(0);
    let (call, index) = if v.is_phi() { v.incoming().into_iter().find_map(|(x, _)| product_part(x))? } else { product_part(v)? };
    let index = index as usize;
    if index > 1 || call.call_arg_count() != 4 {
        return None;
    }
    let args: Vec<Value> = (0..4).map(|i| call.call_arg(i)).collect();
    let p = store.operand(1);
    let reads_p = |a: Value<'ctx>| kx.reads(a, p);
    let element_first = if reads_p(args[index]) {
        true
    } else if reads_p(args[2 + index]) {
        false
    } else {
        return None;
    };
    let pair = if element_first { [args[0], args[1]] } else { [args[2], args[3]] };
    // The two loads read the two parts of one element (`gep {T, T}, E, 0, part`).
    let part_address = |l: Value<'ctx>| (l.opcode() == Some(Opcode::LLVMLoad)).then(|| part_of(l.operand(0))).flatten();
    let (Some((re_base, 0)), Some((im_base, 1))) = (part_address(pair[0]), part_address(pair[1])) else { return None };
    if !equal(kx, re_base, im_base, 0) {
        return None;
    }
    let x = if element_first { [args[2], args[3]] } else { [args[0], args[1]] };
    if x.iter().any(|x| x.is_instruction() && !kx.cfg.dominates_inst(*x, store)) {
        return None;
    }
    let dead = if v.is_phi() && v.users()[..] == [store] { vec![v] } else { vec![] };
    Some(Update { store, how: How::ComplexMul { call, element_first, real: pair[0].operand(0) }, loads: pair.to_vec(), dead, widenings: vec![] })
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

/// Replaces `u` with one atomic update of its address (`first_part`: of a complex
/// product, the part that makes the swap; the other's store just goes).
fn emit<'ctx>(m: Module<'ctx>, u: &Update<'ctx>, op: ReductionOp, ty: ReductionType, first_part: bool) {
    let ctx = m.context();
    let b = ctx.builder();
    b.set_debug_loc_of(u.store);
    // A short circuit's contribution: a phi at its join, made before the store's block is
    // split (the join may be that block).
    if let How::Logic { edges, join } = u.how {
        b.position_before(join);
        let c = b.phi(join.ty(), "acc.red.logic");
        for (v, (_, from)) in edges.into_iter().zip(join.incoming()) {
            c.add_incoming(v, from);
        }
        b.position_before(u.store);
        let elem_ty = u.store.operand(0).ty();
        cas_update(m, &b, u.store, u.store.operand(1), elem_ty, |b, old| {
            let truth = truth(b, old);
            let bits = b.binop(if op == ReductionOp::Or { Opcode::LLVMOr } else { Opcode::LLVMAnd }, truth, c);
            if elem_ty.is_float() {
                b.cast(Opcode::LLVMUIToFP, bits, elem_ty)
            } else {
                b.zext_or_trunc(bits, elem_ty)
            }
        });
    } else {
        b.position_before(u.store);
        emit_at_store(m, &b, u, op, ty, first_part);
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
    // `?:`, the first operand of a short circuit, clang's inline complex product) reads a
    // value other threads update: atomically, so that it reads one of the values the
    // element had (under max they only grow, under min shrink: skipping the update when x
    // loses to it is right; a short circuit's skip keeps what the old value's truth gives).
    for l in &u.loads {
        if l.users().is_empty() {
            l.erase();
        } else {
            l.set_monotonic();
        }
    }
}

/// The atomic for an update other than a short circuit, before its store.
fn emit_at_store<'ctx>(m: Module<'ctx>, b: &crate::ir::Builder<'ctx>, u: &Update<'ctx>, op: ReductionOp, ty: ReductionType, first_part: bool) {
    let p = u.store.operand(1);
    match u.how {
        How::Operator { x, negate, narrow } => {
            // On a promoted element the contribution narrows to the element's type (exact
            // for the ring operations; max and min compared the widened values, the same
            // order).
            let x = match narrow {
                Some(t) if matches!(x.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) && x.operand(0).ty() == t => x.operand(0),
                Some(t) => b.cast(Opcode::LLVMTrunc, x, t),
                None => x,
            };
            let float = x.ty().is_float();
            let signed = matches!(ty, ReductionType::I8 | ReductionType::I16 | ReductionType::I32 | ReductionType::I64);
            let rmw = match op {
                ReductionOp::Add if float => (Rmw::LLVMAtomicRMWBinOpFAdd, if negate { b.fneg(x) } else { x }),
                ReductionOp::Add => (if negate { Rmw::LLVMAtomicRMWBinOpSub } else { Rmw::LLVMAtomicRMWBinOpAdd }, x),
                ReductionOp::BitAnd => (Rmw::LLVMAtomicRMWBinOpAnd, x),
                ReductionOp::BitOr => (Rmw::LLVMAtomicRMWBinOpOr, x),
                ReductionOp::BitXor => (Rmw::LLVMAtomicRMWBinOpXor, x),
                ReductionOp::Max if float => (Rmw::LLVMAtomicRMWBinOpFMax, x),
                ReductionOp::Min if float => (Rmw::LLVMAtomicRMWBinOpFMin, x),
                ReductionOp::Max => (if signed { Rmw::LLVMAtomicRMWBinOpMax } else { Rmw::LLVMAtomicRMWBinOpUMax }, x),
                ReductionOp::Min => (if signed { Rmw::LLVMAtomicRMWBinOpMin } else { Rmw::LLVMAtomicRMWBinOpUMin }, x),
                ReductionOp::Mul => {
                    let multiply = if float { Opcode::LLVMFMul } else { Opcode::LLVMMul };
                    return cas_update(m, b, u.store, p, x.ty(), |b, old| b.binop(multiply, old, x));
                }
                ReductionOp::And | ReductionOp::Or => unreachable!("a short circuit's update is How::Logic"),
            };
            b.atomic_rmw(rmw.0, p, rmw.1);
        }
        How::Bool { x, negate } => {
            // C's own computation on the element read as 0 or 1, then whether it is non-zero.
            let elem_ty = u.store.operand(0).ty();
            cas_update(m, b, u.store, p, elem_ty, |b, old| {
                let bit = b.icmp(IntPred::LLVMIntNE, old, elem_ty.const_int(0));
                let wide = b.zext_or_trunc(bit, x.ty());
                let r = match op {
                    ReductionOp::Add if negate => b.binop(Opcode::LLVMSub, wide, x),
                    ReductionOp::Add => b.binop(Opcode::LLVMAdd, wide, x),
                    ReductionOp::Mul => b.binop(Opcode::LLVMMul, wide, x),
                    ReductionOp::BitAnd => b.binop(Opcode::LLVMAnd, wide, x),
                    ReductionOp::BitOr => b.binop(Opcode::LLVMOr, wide, x),
                    ReductionOp::BitXor => b.binop(Opcode::LLVMXor, wide, x),
                    ReductionOp::Max => b.select(b.icmp(IntPred::LLVMIntSGT, wide, x), wide, x),
                    ReductionOp::Min => b.select(b.icmp(IntPred::LLVMIntSLT, wide, x), wide, x),
                    ReductionOp::And | ReductionOp::Or => unreachable!("a short circuit's update is How::Logic"),
                };
                let nonzero = b.icmp(IntPred::LLVMIntNE, r, x.ty().const_int(0));
                b.zext_or_trunc(nonzero, elem_ty)
            });
        }
        How::ComplexMul { call, element_first, real } if first_part => {
            // Both parts as one integer (the real part at the lower address: its low half).
            let part = u.store.operand(0).ty();
            let half = (part.store_size(m) * 8) as u32;
            let ctx = m.context();
            let (whole, half_int) = (ctx.int(2 * half), ctx.int(half));
            let callee = call.called_function().expect("__muldc3 is called directly");
            cas_update(m, b, u.store, real, whole, |b, old| {
                let re = b.cast(Opcode::LLVMBitCast, b.zext_or_trunc(old, half_int), part);
                let shifted = b.binop(Opcode::LLVMLShr, old, whole.const_int(half as u64));
                let im = b.cast(Opcode::LLVMBitCast, b.zext_or_trunc(shifted, half_int), part);
                let x = [call.call_arg(if element_first { 2 } else { 0 }), call.call_arg(if element_first { 3 } else { 1 })];
                let args = if element_first { [re, im, x[0], x[1]] } else { [x[0], x[1], re, im] };
                let product = b.call(callee, &args, "");
                let get = |i: u32| if product.ty().kind() == llvm_sys::LLVMTypeKind::LLVMStructTypeKind { b.extract_value(product, i) } else { b.extract_element(product, i as u64) };
                let bits = |v: Value<'ctx>| b.zext_or_trunc(b.cast(Opcode::LLVMBitCast, v, half_int), whole);
                let high = b.binop(Opcode::LLVMShl, bits(get(1)), whole.const_int(half as u64));
                b.binop(Opcode::LLVMOr, bits(get(0)), high)
            });
        }
        How::ComplexMul { .. } => {}
        How::Logic { .. } => unreachable!("emit makes a short circuit's update"),
    }
}

/// The truth of an element's old value, as C tests it (`!= 0`; NaN is true).
fn truth<'ctx>(b: &crate::ir::Builder<'ctx>, v: Value<'ctx>) -> Value<'ctx> {
    if v.ty().is_float() {
        b.fcmp(inkwell::FloatPredicate::UNE, v, v.ty().const_null())
    } else {
        b.icmp(IntPred::LLVMIntNE, v, v.ty().const_int(0))
    }
}

/// `*p = new(*p)` as a compare-and-swap loop of `ty`'s size, placed where the builder is
/// (before the update's `store`): the integer image of the old value is what the swap
/// compares, so that a float's -0.0 and NaN work too. `new` computes from the old value as
/// `ty`; the builder is left before the store.
fn cas_update<'ctx>(m: Module<'ctx>, b: &crate::ir::Builder<'ctx>, store: Value<'ctx>, p: Value<'ctx>, ty: crate::ir::Type<'ctx>, new: impl FnOnce(&crate::ir::Builder<'ctx>, Value<'ctx>) -> Value<'ctx>) {
    let ctx = m.context();
    let bits = ctx.int((ty.store_size(m) * 8) as u32);
    let start = b.insert_block();
    let done = start.split_before(ctx, store, "acc.red.cas.done");
    let lp: Block = ctx.append_block(start.parent(), "acc.red.cas");
    // split_before left `start` ending in a branch to `done`: go to the loop instead.
    let to_done = start.terminator().expect("a split block ends with a branch");
    b.position_before(to_done);
    // (A plain read for a 128-bit element, which has no atomic load: the swap checks it.)
    let first = if bits.int_width() > 64 { b.load(bits, p, "") } else { b.atomic_load(bits, p) };
    b.br(lp);
    to_done.erase();
    b.position_at_end(lp);
    let old = b.phi(bits, "");
    old.add_incoming(first, start);
    let value = if ty == bits { old } else { b.cast(Opcode::LLVMBitCast, old, ty) };
    let computed = new(b, value);
    let image = if ty == bits { computed } else { b.cast(Opcode::LLVMBitCast, computed, bits) };
    let pair = b.cmpxchg(p, old, image);
    let seen = b.extract_value(pair, 0);
    old.add_incoming(seen, lp);
    b.cond_br(b.extract_value(pair, 1), done, lp);
    b.position_before(store);
}
