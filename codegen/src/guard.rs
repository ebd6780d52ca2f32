//! Single-lane execution, broadcast and synchronisation: OpenACC's execution modes on threads
//! that all run the kernel.
//!
//! Expects: a kernel after `partition`, with the header block and (effective) levels of every
//! partitioned loop; every vector loop is inside a worker-partitioned loop (mapping.rs,
//! `effective_levels`), so a block is either run by every lane on its own iterations
//! (inside a worker and a vector loop), in vector-single mode (inside a worker loop only:
//! one lane per worker) or in worker-single mode (outside both: one lane per gang).
//!
//! Produces:
//! - **Guarded groups.** In each single-mode block, the instructions from the first to the
//!   last one that touches shared state (a load or store of non-private memory, an atomic, a
//!   call with effects) form a group that only the mode's lane 0 executes
//!   (`if (lane0) { group } sync; ...`). Values the group defines and later code uses reach
//!   the other lanes through shared-memory slots (address space 3; one slot per worker in
//!   vector-single mode), read after the sync: the other lanes never load memory that lane 0
//!   may be writing (the broadcast of the OpenMP GPU design, shared/seeds/). A group that can
//!   run after lanes touched memory (after a partitioned loop, or again in a loop) also syncs
//!   before it. Pure code (address arithmetic, loop control) stays redundant on every lane.
//! - **Syncs after partitioned loops.** A worker or vector loop whose exit can reach, before
//!   any sync, an access to memory or another partitioned loop within the same enclosing
//!   partitioned iteration gets a sync at its exit; one followed only by the end of that
//!   iteration (e.g. a gang loop's latch) does not, so a nest without communication has none.
//!   A gang loop nested in a gang loop of a higher dimension (`gang(dim: 1)` in
//!   `gang(dim: 2)`) is such a loop too: its gang's lanes share the outer iteration.
//!   When lanes share private arrays (privatize.rs), the next iteration counts too: it may
//!   overwrite what slower lanes still read.
//!
//! Syncs are `__acc_sync_gang` (every thread of the block) or `__acc_sync_worker` (the vector
//! lanes of one worker), from the device runtime interface (devrt.rs). They are only placed
//! where control flow is uniform over their scope: single-mode code branches on broadcast
//! values, and partitioned loops give every thread of a scope the same trip count of the
//! enclosing loops. Does not guard accesses to the thread's own private memory (allocas),
//! and does not merge groups across blocks (a sequential loop in single mode syncs per
//! block it touches memory in: correct, not yet fast).

use crate::cfg::{FunctionCfg, NaturalLoop};
use crate::devrt::{self, Scope};
use crate::ir::{Block, Builder, IntPred, Module, Opcode, Value};
use crate::mapping::Levels;
use crate::outline::strip;
use std::collections::{BTreeSet, HashSet};

/// Number of broadcast slots per value in vector-single mode: the runtime launches kernels
/// that sync workers with at most 15 workers.
const WORKER_SLOTS: u64 = 16;

/// Who executes a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every lane, each on its own iterations.
    Partitioned,
    /// One lane per worker.
    VectorSingle,
    /// One lane per gang.
    WorkerSingle,
}

/// The mode of code covered by partitioned loops at `cov`.
pub fn mode_of(cov: Levels) -> Mode {
    match (cov.worker, cov.vector) {
        (_, true) => Mode::Partitioned,
        (true, false) => Mode::VectorSingle,
        (false, false) => Mode::WorkerSingle,
    }
}

impl Mode {
    fn scope(self) -> Option<Scope> {
        match self {
            Mode::Partitioned => None,
            Mode::VectorSingle => Some(Scope::Worker),
            Mode::WorkerSingle => Some(Scope::Gang),
        }
    }
}

/// What a walk meets first in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Sync,
    Access,
    Nothing,
}

/// Whether a walk from `start` (the exit of a partitioned loop) reaches an `Access` before
/// a `Sync` on some path, not entering nodes for which `stop` holds.
pub fn exit_needs_sync(succ: &[Vec<usize>], start: usize, stop: &dyn Fn(usize) -> bool, event: &dyn Fn(usize) -> Event) -> bool {
    let mut seen = HashSet::from([start]);
    let mut work = vec![start];
    while let Some(n) = work.pop() {
        if stop(n) {
            continue;
        }
        match event(n) {
            Event::Access => return true,
            Event::Sync => continue,
            Event::Nothing => work.extend(succ[n].iter().copied().filter(|s| seen.insert(*s))),
        }
    }
    false
}

/// One partitioned loop, located in a CFG.
struct PLoop {
    header: usize,
    levels: Levels,
    body: BTreeSet<usize>,
}

fn partitioned_loops<'ctx>(cfg: &FunctionCfg<'ctx>, loops: &[(Block<'ctx>, Levels)]) -> Vec<PLoop> {
    let natural = cfg.loops();
    loops
        .iter()
        .filter_map(|(h, lv)| {
            let hi = *cfg.index.get(h)?;
            let l: &NaturalLoop = natural.iter().find(|l| l.header == hi)?;
            Some(PLoop { header: hi, levels: *lv, body: l.body.clone() })
        })
        .collect()
}

/// Guards the kernel `k`; `loops` are (header, effective levels) of its partitioned loops;
/// `shared_arrays`: some private arrays live in shared memory (privatize.rs), so the lanes
/// of one gang reuse them from one iteration of an enclosing loop to the next.
/// Returns whether it placed a worker-scope sync.
pub fn guard_kernel<'ctx>(m: Module<'ctx>, k: Value<'ctx>, loops: &[(Block<'ctx>, Levels)], shared_arrays: bool) -> bool {
    let by_vector = values_computed_from(k, &[devrt::VECTOR_ID]);
    let by_lane = values_computed_from(k, &[devrt::VECTOR_ID, devrt::WORKER_ID]);
    let cfg = FunctionCfg::new(k);
    let plo = partitioned_loops(&cfg, loops);
    let cov = |n: usize| plo.iter().filter(|l| l.body.contains(&n)).fold(Levels::NONE, |a, l| a.union(l.levels));
    let in_any_loop: HashSet<usize> = cfg.loops().iter().flat_map(|l| l.body.iter().copied()).collect();
    let after_partitioned = reachable_from(&cfg.graph.succ, plo.iter().map(|l| l.header));

    // Plan on the unchanged CFG, then rewrite (rewriting splits blocks).
    let mut groups = Vec::new();
    for (n, b) in cfg.blocks.iter().enumerate() {
        let Some(scope) = mode_of(cov(n)).scope() else { continue };
        let pre_sync = in_any_loop.contains(&n) || after_partitioned.contains(&n);
        // Values that differ between the threads that share the group's result.
        let differing = if scope == Scope::Worker { &by_vector } else { &by_lane };
        for (first, last) in groups_in_block(*b, differing) {
            groups.push((first, last, scope, pre_sync));
        }
    }
    let mut worker_sync = false;
    for (first, last, scope, pre_sync) in groups {
        worker_sync |= scope == Scope::Worker;
        rewrite_group(m, first, last, scope, pre_sync);
    }
    worker_sync | sync_loop_exits(m, k, loops, shared_arrays)
}

/// Adds a sync at the exit of every worker or vector loop whose exit needs one. The walk
/// from an exit ends at the enclosing partitioned loop's next iteration, which works on other
/// data, unless lanes share arrays across its iterations (`shared_arrays`).
fn sync_loop_exits<'ctx>(m: Module<'ctx>, k: Value<'ctx>, loops: &[(Block<'ctx>, Levels)], shared_arrays: bool) -> bool {
    let cfg = FunctionCfg::new(k);
    let plo = partitioned_loops(&cfg, loops);
    let headers: HashSet<usize> = plo.iter().map(|l| l.header).collect();
    let event = |n: usize| -> Event {
        if headers.contains(&n) {
            return Event::Access;
        }
        for i in cfg.blocks[n].instructions() {
            if devrt::sync_scope(i).is_some() {
                return Event::Sync;
            }
            if touches_shared_state(i) {
                return Event::Access;
            }
        }
        Event::Nothing
    };
    let mut todo = Vec::new();
    // Worker and vector loops, and gang loops inside another gang loop (a `gang(dim: 1)` loop
    // in a `gang(dim: 2)` one, whose iteration the gang's lanes share): an outermost gang
    // loop's exit is where the gangs part.
    let nested = |l: &PLoop| plo.iter().any(|e| e.header != l.header && e.body.contains(&l.header));
    for l in plo.iter().filter(|l| !l.levels.gang || nested(l)) {
        let around: Vec<&PLoop> = plo.iter().filter(|e| e.header != l.header && e.body.contains(&l.header)).collect();
        let enclosing = around.iter().min_by_key(|e| e.body.len());
        let outer = around.iter().fold(Levels::NONE, |a, e| a.union(e.levels));
        let scope = if outer.worker { Scope::Worker } else { Scope::Gang };
        let stop = |n: usize| match enclosing {
            Some(e) => (n == e.header && !shared_arrays) || !e.body.contains(&n),
            None => false,
        };
        let exits: BTreeSet<usize> = l.body.iter().flat_map(|&b| cfg.graph.succ[b].iter().copied()).filter(|s| !l.body.contains(s)).collect();
        for x in exits {
            if exit_needs_sync(&cfg.graph.succ, x, &stop, &event) {
                todo.push((cfg.blocks[x], scope));
            }
        }
    }
    let b = m.context().builder();
    let mut worker_sync = false;
    for (x, scope) in todo {
        b.position_before(x.first_non_phi().expect("a block has a terminator"));
        devrt::sync(m, &b, scope);
        worker_sync |= scope == Scope::Worker;
    }
    worker_sync
}

fn reachable_from(succ: &[Vec<usize>], starts: impl Iterator<Item = usize>) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut work: Vec<usize> = starts.collect();
    while let Some(n) = work.pop() {
        for &s in &succ[n] {
            if seen.insert(s) {
                work.push(s);
            }
        }
    }
    seen
}

/// Values computed from the results of calls to `ids` (device runtime id functions): they
/// differ between the threads those ids tell apart, so they are never broadcast from lane 0.
fn values_computed_from<'ctx>(k: Value<'ctx>, ids: &[&str]) -> HashSet<Value<'ctx>> {
    let mut seen = HashSet::new();
    let mut work: Vec<Value> = Vec::new();
    for b in k.blocks() {
        for i in b.instructions() {
            if i.called_name().is_some_and(|n| ids.contains(&n.as_str())) {
                work.push(i);
            }
        }
    }
    while let Some(v) = work.pop() {
        if seen.insert(v) {
            work.extend(v.users().into_iter().filter(|u| u.is_instruction()));
        }
    }
    seen
}

/// Ranges [first, last] of a single-mode block that lane 0 runs alone. A range never holds
/// phis, allocas, device runtime calls or values that differ between the scope's threads.
fn groups_in_block<'ctx>(b: Block<'ctx>, differing: &HashSet<Value<'ctx>>) -> Vec<(Value<'ctx>, Value<'ctx>)> {
    let mut out = Vec::new();
    let mut cur: Option<(Value, Value)> = None;
    let term = b.terminator();
    for i in b.instructions() {
        if Some(i) == term {
            break;
        }
        let immovable = i.is_phi() || i.is_alloca() || differing.contains(&i) || (i.called_name().is_some_and(|n| n.starts_with("__acc_")) && !is_shared_combine(i));
        if immovable {
            out.extend(cur.take());
            continue;
        }
        if touches_shared_state(i) {
            cur = Some((cur.map_or(i, |(f, _)| f), i));
        }
    }
    out.extend(cur);
    out
}

/// A load, store or atomic of memory other lanes can see, or a call with effects.
pub fn touches_shared_state<'ctx>(i: Value<'ctx>) -> bool {
    match i.opcode() {
        Some(Opcode::LLVMLoad) => !is_private(i.operand(0)),
        Some(Opcode::LLVMStore) => !is_private(i.operand(1)),
        // An atomic on the thread's own variable is like a load and a store of it: every
        // lane does it on its own copy (lane 0 alone left the other lanes' copies stale).
        Some(Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => !is_private(i.operand(0)),
        Some(Opcode::LLVMCall) => {
            let name = i.called_name().unwrap_or_default();
            if let Some(intrinsic) = name.strip_prefix("llvm.") {
                ["memcpy", "memmove", "memset"].iter().any(|p| intrinsic.starts_with(p))
            } else {
                !name.starts_with("__acc_") || is_shared_combine(i)
            }
        }
        _ => false,
    }
}

/// A reduction's combine into its variable (reduction.rs) when the variable is not the
/// thread's own: a read-modify-write of memory the other lanes see, which lane 0 does alone
/// like any store (a variable private to each thread is combined by every thread).
fn is_shared_combine<'ctx>(i: Value<'ctx>) -> bool {
    i.called_name().is_some_and(|n| n.starts_with(crate::reduction::COMBINE_PREFIX)) && !is_private(i.call_arg(0))
}

/// The pointer is into the thread's own private memory (an alloca, a reduction's copy in
/// the private area: reduction.rs `View`, or a thread's own array of run-time size, on its
/// stack or from the heap by its size: privatize.rs `thread_stack_or_heap`), through GEPs
/// and casts.
pub(crate) fn is_private<'ctx>(p: Value<'ctx>) -> bool {
    let o = strip_to_object(p);
    let own = |o: Value<'ctx>| o.is_alloca() || o.called_name().as_deref() == Some(crate::privatize::THREAD_MALLOC);
    own(o)
        || (o.called_name().as_deref() == Some(crate::private_copies::COPY_FN) && o.name().ends_with(crate::private_copies::VIEW_SUFFIX))
        || (o.opcode() == Some(Opcode::LLVMPHI) && o.name().starts_with(crate::privatize::THREAD_ARRAY) && o.operands().into_iter().all(|i| own(strip_to_object(i))))
}

/// The object a pointer is based on (through GEPs and casts).
fn strip_to_object<'ctx>(mut p: Value<'ctx>) -> Value<'ctx> {
    loop {
        let s = strip(p);
        match s.opcode() {
            Some(Opcode::LLVMGetElementPtr) => p = s.operand(0),
            _ => return s,
        }
    }
}

/// `lane0` of a scope: vector lane 0 (and worker 0 for the gang).
fn is_lane0<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, scope: Scope) -> Value<'ctx> {
    let ctx = m.context();
    let zero = ctx.i64().const_int(0);
    let v = b.icmp(IntPred::LLVMIntEQ, devrt::id(m, b, devrt::VECTOR_ID), zero);
    match scope {
        Scope::Worker => v,
        Scope::Gang => b.and(v, b.icmp(IntPred::LLVMIntEQ, devrt::id(m, b, devrt::WORKER_ID), zero)),
    }
}

/// `[pre-sync] if (lane0) { first..last; store live-outs } sync; load live-outs; ...`
fn rewrite_group<'ctx>(m: Module<'ctx>, first: Value<'ctx>, last: Value<'ctx>, scope: Scope, pre_sync: bool) {
    let ctx = m.context();
    let head = first.parent_block();
    let next = last.next_instruction().expect("a group never holds the terminator");
    let group = head.split_before(ctx, first, "acc.single");
    let join = group.split_before(ctx, next, "acc.single.join");
    let b = ctx.builder();
    head.terminator().expect("split adds a branch").erase();
    b.position_at_end(head);
    if pre_sync {
        devrt::sync(m, &b, scope);
    }
    let lane0 = is_lane0(m, &b, scope);
    b.cond_br(lane0, group, join);

    let in_group = |v: Value<'ctx>| v.is_instruction() && v.parent_block() == group;
    let replays = private_stores(group);
    let mut live_out: Vec<Value> = group
        .instructions()
        .into_iter()
        .filter(|i| !i.ty().is_void() && i.users().iter().any(|u| u.is_instruction() && u.parent_block() != group))
        .collect();
    for &(v, p) in &replays {
        for needed in std::iter::once(v).chain(address_leaves(p, &in_group)) {
            if in_group(needed) && !live_out.contains(&needed) {
                live_out.push(needed);
            }
        }
    }
    let join_first = join.first_instruction().expect("join has a terminator");
    b.position_before(join_first);
    devrt::sync(m, &b, scope);
    let group_end = group.terminator().expect("split adds a branch");
    let mut bcast = Vec::new();
    for v in live_out {
        let slot_ty = match scope {
            Scope::Gang => v.ty(),
            Scope::Worker => ctx.array_type(v.ty(), WORKER_SLOTS),
        };
        let slot = m.add_global_in(slot_ty, "acc.bcast", 3);
        slot.set_initializer(slot_ty.undef());
        slot.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let at = |bld: &Builder<'ctx>| match scope {
            Scope::Gang => slot,
            Scope::Worker => {
                let w = devrt::id(m, bld, devrt::WORKER_ID);
                bld.gep(slot_ty, slot, &[ctx.i64().const_int(0), w], true)
            }
        };
        let wb = ctx.builder();
        wb.position_before(group_end);
        wb.store(v, at(&wb));
        let loaded = b.load(v.ty(), at(&b), "acc.bcast");
        v.replace_uses_where(loaded, |u| u.is_instruction() && u.parent_block() != group);
        bcast.push((v, loaded));
    }
    replay_private_stores(ctx, &b, join_first, &replays, &bcast, &in_group);
}

/// The stores of `group` into the thread's own memory, in order: lane 0 makes them alone,
/// so the other lanes' copies (e.g. a gang-redundant reduction copy that a guarded statement
/// updates between two global accesses) would keep their old values.
fn private_stores<'ctx>(group: Block<'ctx>) -> Vec<(Value<'ctx>, Value<'ctx>)> {
    group
        .instructions()
        .into_iter()
        .filter(|i| i.opcode() == Some(Opcode::LLVMStore) && is_private(i.operand(1)))
        .map(|i| (i.operand(0), i.operand(1)))
        .collect()
}

/// The values an address is computed from through GEPs and casts defined in the group: the
/// other lanes rebuild the address on their own memory from these, broadcast.
fn address_leaves<'ctx>(p: Value<'ctx>, in_group: &dyn Fn(Value<'ctx>) -> bool) -> Vec<Value<'ctx>> {
    if !in_group(p) {
        return vec![];
    }
    if !is_address_step(p) {
        return vec![p];
    }
    p.operands().into_iter().flat_map(|o| address_leaves(o, in_group)).collect()
}

fn is_address_step(v: Value<'_>) -> bool {
    matches!(v.opcode(), Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast))
}

/// Every lane repeats the group's private stores after the broadcast, in the group's order,
/// with the broadcast values (lane 0 stores what it already has). Addresses computed in the
/// group are rebuilt on each lane's own memory.
fn replay_private_stores<'ctx>(
    ctx: crate::ir::Context<'ctx>,
    b: &Builder<'ctx>,
    at: Value<'ctx>,
    replays: &[(Value<'ctx>, Value<'ctx>)],
    bcast: &[(Value<'ctx>, Value<'ctx>)],
    in_group: &dyn Fn(Value<'ctx>) -> bool,
) {
    fn remap<'ctx>(v: Value<'ctx>, ctx: crate::ir::Context<'ctx>, at: Value<'ctx>, bcast: &[(Value<'ctx>, Value<'ctx>)], in_group: &dyn Fn(Value<'ctx>) -> bool) -> Value<'ctx> {
        if !in_group(v) {
            return v;
        }
        if let Some((_, loaded)) = bcast.iter().find(|(g, _)| *g == v) {
            if !is_address_step(v) {
                return *loaded;
            }
        }
        // An address step: clone it over remapped operands, before the builder's position.
        let c = crate::ir::clone_instruction(v);
        for (i, o) in v.operands().into_iter().enumerate() {
            c.set_operand(i as u32, remap(o, ctx, at, bcast, in_group));
        }
        crate::ir::insert_before(c, at, ctx);
        c
    }
    for &(v, p) in replays {
        let value = remap(v, ctx, at, bcast, in_group);
        let addr = remap(p, ctx, at, bcast, in_group);
        b.position_before(at);
        b.store(value, addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        let l = |worker, vector| Levels { gang: true, worker, vector };
        assert_eq!(mode_of(l(true, true)), Mode::Partitioned);
        assert_eq!(mode_of(l(true, false)), Mode::VectorSingle);
        assert_eq!(mode_of(l(false, false)), Mode::WorkerSingle);
        assert_eq!(mode_of(Levels::NONE), Mode::WorkerSingle);
    }

    // 0: loop exit -> 1 -> 2 (back to an enclosing header 3) ; 1 -> 4 -> 5
    fn graph() -> Vec<Vec<usize>> {
        vec![vec![1], vec![2, 4], vec![3], vec![], vec![5], vec![]]
    }

    #[test]
    fn exit_sync_only_when_an_access_follows_before_a_sync() {
        let g = graph();
        let none = |_: usize| false;
        let quiet = |_: usize| Event::Nothing;
        assert!(!exit_needs_sync(&g, 0, &none, &quiet), "nothing follows: no sync");
        let access_at_5 = |n: usize| if n == 5 { Event::Access } else { Event::Nothing };
        assert!(exit_needs_sync(&g, 0, &none, &access_at_5));
        // A sync on the way covers it.
        let sync_at_4 = |n: usize| match n {
            4 => Event::Sync,
            5 => Event::Access,
            _ => Event::Nothing,
        };
        assert!(!exit_needs_sync(&g, 0, &none, &sync_at_4));
        // Accesses past the enclosing loop's header (its next iteration) do not count.
        let access_at_3 = |n: usize| if n == 3 { Event::Access } else { Event::Nothing };
        assert!(!exit_needs_sync(&g, 0, &|n| n == 3, &access_at_3));
        assert!(exit_needs_sync(&g, 0, &none, &access_at_3));
    }
}
