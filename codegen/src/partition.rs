//! Partitions the loops of a kernel across gangs, workers and vector lanes.
//!
//! Expects: a kernel in SSA form whose loop directives are still marked by their
//! `__acc_begin`/`__acc_end` calls, each with its assigned `Levels` (mapping.rs).
//! Produces: each partitioned loop rewritten to the OpenUH "sliding window" form
//! (shared/seeds/nested-loop-transformation-openuh-ccpe.txt, Figs. 3, 5, 6): a normalised
//! i64 iteration index `k` starts at the thread's id over the loop's levels (the gang level
//! being the grid dimension of the loop's `gang(dim:)`) and strides by
//! the number of threads at those levels (read from the launch, not assumed), so any trip
//! count runs correctly on any launch size. `collapse(n)` loops share one index over the
//! product of their trip counts (code between the loops, which `collapse(force: n)` allows,
//! then runs once per index), computed before the nest: an inner loop's init, bound and
//! step must not depend on what varies in the outer loops (computations clang placed inside
//! them are copied before the nest). Sequential loops are left alone. Code between loops runs
//! on every thread; making its side effects single-lane is `guard`'s job.

use crate::cfg::FunctionCfg;
use crate::error::{AccError, Loc, Result};
use crate::ir::{clone_instruction, insert_before, rewrite_phi_edges, Block, Builder, Context, IntPred, Module, Opcode, Value};
use std::collections::{HashMap, HashSet};
use crate::loops::{analyse, emit_trip_count, find_bound_loop, hoist_trip_inputs, trip_rule, CountedLoop, LoopShape, TripRule};
use crate::mapping::Levels;

/// One loop directive of a kernel with its decided schedule.
#[derive(Clone, Debug)]
pub struct LoopPlan<'ctx> {
    pub begin: Value<'ctx>,
    pub end: Value<'ctx>,
    pub loc: Loc,
    pub levels: Levels,
    pub collapse: u32,
    /// The loop accumulates a reduction: unroll it when `body_plan` says so (and it has no
    /// loop inside).
    pub unroll: bool,
    /// `gang(static: s)`: gang g runs the chunks of s iterations g, g + G, g + 2G, ... (G
    /// gangs), its workers and lanes sharing each chunk; None: the sliding window alone. The
    /// value is an i64 in the kernel (a constant, or a value known when the loop starts).
    pub gang_static: Option<Value<'ctx>>,
    /// `gang(dim: d)`: the gang dimension (1 to 3) the loop's gang level is (when it has it).
    pub gang_dim: u8,
}

/// How a partitioned loop's body is compiled, from how many distinct addresses outside
/// the thread's own variables one iteration loads or stores (`memory_streams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyPlan {
    /// Copies of the body the unroller is asked for (1: not unrolled).
    pub unroll: u32,
    /// 64-bit users of the induction variable get the wide value (`widen`).
    pub widen: bool,
}

/// A GPU thread issues in order, so a loop that loads an element and adds it waits for
/// each load before the next; unrolled it has several in flight. Measured on the H100
/// (unrolled 1x / 4x / 8x): red_sum 2632 / 2839 / 2889 GB/s, red_max 2646 / 2638 / 2785,
/// red_logic 1809 / 2219 / 2091, mcpi 685 / 787 / 801 Gsamples/s, and matmul_red's dot
/// product (2 streams) 1458 / 1424 / 1802 GFLOP/s (GCC: 1746); but red_wv, whose inner
/// loop runs 32 trips per lane, fell from 2965 at 4x to 1965 at 8x (the unrolled loop
/// barely runs; its trip count and remainder cost as much). So one stream: 4x, two: 8x.
/// Only accumulating loops (reductions) ask, and only with at most two streams: a stencil's body already has loads
/// in flight, and unrolling it multiplied its cache footprint (heat2d, 6 streams: 1.87 /
/// 1.44 / 1.32 TB/s; triad and jacobi lost 5-8% at 4x earlier).
/// Widening lets LSR turn each address into a pointer induction variable: an add per
/// access instead of a truncation, a 32-bit add and a `mul.wide` (matmul_red 1396 -> 1460
/// without unrolling), but each pointer holds a 64-bit register pair, which past two
/// streams costs occupancy (heat2d: 40 registers instead of 32, 2.0 -> 1.7 TB/s).
pub fn body_plan(streams: usize, accumulating: bool) -> BodyPlan {
    let unroll = match streams {
        _ if !accumulating => 1,
        0 | 1 => 4,
        2 => 8,
        _ => 1,
    };
    BodyPlan { unroll, widen: streams <= 2 }
}

/// The trip count of the kernel's outermost gang loop, when it only depends on the kernel's
/// parameters: the host stub evaluates it to size the grid.
pub type GangTrip<'ctx> = Option<Value<'ctx>>;

/// Partitions every planned loop.
pub fn partition_kernel<'ctx>(m: Module<'ctx>, kernel: Value<'ctx>, plans: &[LoopPlan<'ctx>]) -> Result<Partitioned<'ctx>> {
    let mut gang_trips = [None, None, None];
    let mut headers = Vec::new();
    let mut windows = Vec::new();
    for p in plans {
        if p.levels.is_seq() {
            continue;
        }
        let cfg = FunctionCfg::new(kernel);
        let shapes = recognise_nest(&cfg, p)?;
        let mut nest: Vec<CountedLoop> = shapes.into_iter().map(hoist_trip_inputs).collect();
        let (outer_blocks, outer_pre) = (nest[0].blocks.clone(), nest[0].preheader);
        let mut hoisted = HashMap::new();
        for l in &mut nest[1..] {
            for v in [&mut l.init, &mut l.bound, &mut l.step] {
                *v = hoist_invariant(*v, &outer_blocks, outer_pre, &mut hoisted, 0).ok_or_else(|| {
                    AccError::user(&p.loc, "collapse needs a rectangular loop nest: an inner loop's bounds depend on an outer loop")
                })?;
            }
        }
        headers.push((nest[0].header, p.levels));
        // Only a loop with no loop inside is unrolled (the unroller warns about others).
        let collapsed: HashSet<Block> = nest.iter().map(|l| l.header).collect();
        let innermost = !cfg.loops().iter().any(|l| {
            let h = cfg.blocks[l.header];
            !collapsed.contains(&h) && outer_blocks.contains(&h)
        });
        let (total, k) = rewrite_nest(m, &nest, p.levels, p.gang_dim, &p.loc, p.unroll && innermost && p.gang_static.is_none(), p.gang_static)?;
        let outer = &nest[0];
        windows.push(Window {
            header: outer.header,
            latch: outer.latch,
            preheader: outer.preheader,
            exit: outer.exit,
            k,
            total,
            levels: p.levels,
            collapse: p.collapse,
            chunked: p.gang_static.is_some() && p.levels.gang,
        });
        let slot = &mut gang_trips[usize::from(p.gang_dim.clamp(1, 3) - 1)];
        if slot.is_none() && p.levels.gang {
            *slot = Some((total, p.levels));
        }
    }
    Ok(Partitioned { gang_trips, headers, windows })
}

/// The loop `p` binds to and the `collapse - 1` loops nested in it, outermost first, as
/// they are: the IR is not changed.
fn recognise_nest<'ctx>(cfg: &FunctionCfg<'ctx>, p: &LoopPlan<'ctx>) -> Result<Vec<LoopShape<'ctx>>> {
    let outer = find_bound_loop(cfg, p.begin, p.end, &p.loc)?;
    let mut nest = vec![analyse(cfg, &outer, &p.loc)?];
    for _ in 1..p.collapse {
        let inner = inner_loop(cfg, nest.last().expect("non-empty"), &p.loc)?;
        nest.push(analyse(cfg, &inner, &p.loc)?);
    }
    Ok(nest)
}

pub struct Partitioned<'ctx> {
    /// Per gang dimension (1 to 3), the i64 trip count of the first loop partitioned over it
    /// and that loop's levels.
    pub gang_trips: [Option<(Value<'ctx>, Levels)>; 3],
    /// Header block and levels of every partitioned loop.
    pub headers: Vec<(Block<'ctx>, Levels)>,
    /// The sliding window of every partitioned loop (what `cache` rewrites).
    pub windows: Vec<Window<'ctx>>,
}

/// A partitioned loop after the rewrite: `header` holds the normalised index `k` (a phi:
/// the thread's id in the preheader, `k + threads` from `latch`) and leaves to `exit` once
/// `k >= total`; the body is entered from the header's other successor.
#[derive(Clone, Debug)]
pub struct Window<'ctx> {
    pub header: Block<'ctx>,
    pub latch: Block<'ctx>,
    pub preheader: Block<'ctx>,
    pub exit: Block<'ctx>,
    pub k: Value<'ctx>,
    /// The i64 trip count (of the whole collapsed nest), available in the preheader.
    pub total: Value<'ctx>,
    pub levels: Levels,
    pub collapse: u32,
    /// `gang(static: s)`: k jumps between the gang's chunks instead of striding evenly.
    pub chunked: bool,
}

/// Makes `v` (an inner loop's init, bound or step in a collapsed nest) available in the
/// outermost preheader, where the nest's trip counts are computed once. A value defined
/// outside the outer loop is used as is; one computed inside it (clang evaluates
/// `j < m - 1` in the inner loop's header, inside the outer loop) is copied to the
/// preheader when it only depends on values that do not vary in the outer loop. Phis
/// (the outer induction variable or anything carried around the loop) and calls vary:
/// None, the nest is not rectangular. Loads are copied as the single-loop bound is
/// (`copy_before_loop` in loops.rs): OpenACC evaluates the iteration counts before the loop.
fn hoist_invariant<'ctx>(v: Value<'ctx>, outer: &HashSet<Block<'ctx>>, pre: Block<'ctx>, done: &mut HashMap<Value<'ctx>, Value<'ctx>>, depth: u32) -> Option<Value<'ctx>> {
    if !v.is_instruction() || !outer.contains(&v.parent_block()) {
        return Some(v);
    }
    if let Some(h) = done.get(&v) {
        return Some(*h);
    }
    if depth > 32 || !is_rematerialisable(v.opcode()?) {
        return None;
    }
    let ops: Vec<Value> = v.operands().into_iter().map(|o| hoist_invariant(o, outer, pre, done, depth + 1)).collect::<Option<_>>()?;
    let copy = clone_instruction(v);
    for (k, o) in ops.into_iter().enumerate() {
        copy.set_operand(k as u32, o);
    }
    insert_before(copy, pre.terminator()?, v.context());
    done.insert(v, copy);
    Some(copy)
}

/// Instructions whose value depends only on their operands (and, for loads, memory that a
/// collapsed nest may not change): safe to recompute before the nest.
fn is_rematerialisable(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        LLVMAdd | LLVMSub | LLVMMul | LLVMSDiv | LLVMUDiv | LLVMSRem | LLVMURem | LLVMAnd | LLVMOr | LLVMXor | LLVMShl
            | LLVMLShr | LLVMAShr | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMICmp | LLVMSelect | LLVMGetElementPtr | LLVMLoad
    )
}

/// The loop directly nested in `outer` (for collapse): the first loop header its body reaches.
fn inner_loop<'ctx>(cfg: &FunctionCfg<'ctx>, outer: &LoopShape<'ctx>, loc: &Loc) -> Result<crate::cfg::NaturalLoop> {
    let body_entry = outer.header.successors()[outer.body_succ as usize];
    let h = cfg.index[&outer.header];
    cfg.loops()
        .into_iter()
        .filter(|l| l.header != h && outer.blocks.contains(&cfg.blocks[l.header]))
        .min_by_key(|l| {
            // The nearest header along straight-line flow from the body entry.
            let mut n = cfg.index[&body_entry];
            let mut steps = 0;
            while n != l.header && steps < 64 {
                match cfg.graph.succ[n].as_slice() {
                    [s] => n = *s,
                    _ => return usize::MAX,
                }
                steps += 1;
            }
            if n == l.header {
                steps
            } else {
                usize::MAX
            }
        })
        .filter(|l| l.latches.len() == 1)
        .ok_or_else(|| AccError::user(loc, "collapse asks for more tightly nested loops than there are"))
        .and_then(|inner| {
            // `collapse(force: n)` lets code stand between the loops (it then runs once per
            // iteration of the collapsed space), but not another loop: every other loop in
            // the outer one must be inside the inner one.
            let stray = cfg.loops().into_iter().any(|l| {
                l.header != h && l.header != inner.header && outer.blocks.contains(&cfg.blocks[l.header]) && !inner.body.contains(&l.header)
            });
            if stray {
                Err(AccError::user(loc, "collapse needs the collapsed loops nested with no other loop between them (code between them is allowed with collapse(force: n), a loop is not)"))
            } else {
                Ok(inner)
            }
        })
}

/// Thread id and thread count over `levels` (i64), from the device runtime (runtime-ir); the
/// gang level is gang dimension `gang_dim` of the grid.
fn level_id_and_count<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, levels: Levels, gang_dim: u8) -> (Value<'ctx>, Value<'ctx>) {
    use crate::devrt::{NUM_WORKERS, VECTOR_ID, VECTOR_LENGTH, WORKER_ID};
    let call = |name: &str| crate::devrt::id(m, b, name);
    let (gang_id, num_gangs) = crate::devrt::gang_dimension(gang_dim);
    let mut id: Option<Value> = None;
    let mut count: Option<Value> = None;
    for (on, idf, nf) in [
        (levels.gang, gang_id, num_gangs),
        (levels.worker, WORKER_ID, NUM_WORKERS),
        (levels.vector, VECTOR_ID, VECTOR_LENGTH),
    ] {
        if !on {
            continue;
        }
        let (i, n) = (call(idf), call(nf));
        // id = id_outer * count_this + id_this, over the levels in order.
        id = Some(match id {
            Some(id0) => b.add(b.mul(id0, n), i),
            None => i,
        });
        count = Some(match count {
            Some(c0) => b.mul(c0, n),
            None => n,
        });
    }
    (id.expect("partitioned loops have a level"), count.expect("partitioned loops have a level"))
}

/// Rewrites a (possibly collapsed) nest; returns the total trip count value (in the
/// outermost preheader) and the normalised index (the outer header's phi).
fn rewrite_nest<'ctx>(m: Module<'ctx>, nest: &[CountedLoop<'ctx>], levels: Levels, gang_dim: u8, loc: &Loc, unroll: bool, gang_static: Option<Value<'ctx>>) -> Result<(Value<'ctx>, Value<'ctx>)> {
    let ctx: Context = m.context();
    let i64t = ctx.i64();
    let outer = &nest[0];
    let plan = body_plan(memory_streams(outer), unroll);
    let b = ctx.builder();
    b.position_before(outer.preheader.terminator().expect("preheader has a terminator"));
    let mut trips = Vec::new();
    for l in nest {
        trips.push(emit_trip_count(&b, ctx, l, loc)?);
    }
    let total = trips[1..].iter().fold(trips[0], |acc, t| b.mul(acc, *t));
    let (id, count) = level_id_and_count(m, &b, levels, gang_dim);
    // gang(static: s): gang g's thread l of L (its workers and lanes) starts at g*s + l and
    // steps by L inside a chunk, then to the same offset in the gang's next chunk,
    // (g + G)*s + l; k still only grows, so `k < total` still ends the loop. A thread with
    // l >= s has no iteration. A chunk size known only at run time that is not positive
    // (the program's mistake) runs as chunks of one iteration: the loop still runs each
    // iteration once instead of never ending.
    let chunked = gang_static.filter(|_| levels.gang).map(|s| {
        let one = i64t.const_int(1);
        let s = if s.const_int_value().is_some() { s } else { b.select(b.icmp(IntPred::LLVMIntSLT, s, one), one, s) };
        let (gid, gnum) = crate::devrt::gang_dimension(gang_dim);
        let (g, gangs) = (crate::devrt::id(m, &b, gid), crate::devrt::id(m, &b, gnum));
        let inner = Levels { gang: false, ..levels };
        let (l, lanes) = if inner.is_seq() { (i64t.const_int(0), i64t.const_int(1)) } else { level_id_and_count(m, &b, inner, gang_dim) };
        let start = b.select(b.icmp(IntPred::LLVMIntSLT, l, s), b.add(b.mul(g, s), l), total);
        (s, b.mul(gangs, s), l, lanes, start)
    });

    // k = id; k < total; k += count   (in the outer header / latch)
    let first = outer.header.first_instruction().expect("header is not empty");
    b.position_before(first);
    let k = b.phi(i64t, "acc.k");
    k.add_incoming(chunked.map_or(id, |c| c.4), outer.preheader);
    b.position_before(outer.latch.terminator().expect("latch has a terminator"));
    let next = match chunked {
        // k never wraps (k < total <= 2^63 before the step), which lets LLVM count the trips
        // and unroll.
        None => b.nuw_add(k, count),
        Some((s, stride, l, lanes, _)) => {
            let off = b.srem(k, s);
            let within = b.add(k, lanes);
            let next_chunk = b.add(b.add(b.sub(k, off), stride), l);
            b.select(b.icmp(IntPred::LLVMIntSLT, b.add(off, lanes), s), within, next_chunk)
        }
    };
    k.add_incoming(next, outer.latch);
    let term = outer.header.terminator().expect("header has a terminator");
    b.position_before(term);
    let pred = if outer.body_succ == 0 { IntPred::LLVMIntSLT } else { IntPred::LLVMIntSGE };
    term.set_branch_condition(b.icmp(pred, k, total));

    // Each loop's induction value from k: idx_j = (k / prod(trips after j)) % trip_j.
    let after_phis = outer.header.first_non_phi().expect("header has a terminator");
    b.position_before(after_phis);
    // The header runs these once more when k reaches total, which is 0 when any trip count
    // is: divisors are at least 1 so that this last run cannot divide by zero (a trap on the
    // emulator's host, undefined behaviour in the IR).
    let one = i64t.const_int(1);
    let at_least_one = |v: Value<'ctx>| b.select(b.icmp(IntPred::LLVMIntSLT, v, one), one, v);
    let mut ivs = Vec::new();
    for j in 0..nest.len() {
        let mut idx = k;
        if j + 1 < nest.len() {
            let inner = trips[j + 1..].iter().skip(1).fold(trips[j + 1], |acc, t| b.mul(acc, *t));
            idx = b.sdiv(idx, at_least_one(inner));
        }
        if j > 0 {
            idx = b.srem(idx, at_least_one(trips[j]));
        }
        let l = &nest[j];
        let ivty = l.iv.ty();
        if plan.widen && in_signed_range(l) {
            // Exact in i64, so that `widen` can give 64-bit users the wide value.
            let wide = b.add(b.sext_or_trunc(l.init, i64t), b.mul(idx, b.sext_or_trunc(l.step, i64t)));
            ivs.push((b.sext_or_trunc(wide, ivty), Some(wide)));
        } else {
            let step = b.sext_or_trunc(l.step, ivty);
            ivs.push((b.add(l.init, b.mul(b.sext_or_trunc(idx, ivty), step)), None));
        }
    }
    for (l, (iv, wide)) in nest.iter().zip(&ivs) {
        l.iv.replace_all_uses_with(*iv);
        l.iv.erase();
        if let Some(wide) = wide {
            crate::widen::widen_sext_users(&b, *iv, *wide);
        }
    }
    // Collapsed inner loops run exactly once per k: no back edge, always into the body.
    for l in &nest[1..] {
        let t = l.header.terminator().expect("header has a terminator");
        t.set_branch_condition(ctx.i1().const_int((l.body_succ == 0) as u64));
        let lt = l.latch.terminator().expect("latch has a terminator");
        for (s, succ) in lt.successors().into_iter().enumerate() {
            if succ == l.header {
                lt.set_successor(s as u32, l.exit);
            }
        }
        let latch = l.latch;
        for phi in l.header.instructions().into_iter().take_while(|i| i.is_phi()) {
            rewrite_phi_edges(phi, |blk| (blk != latch).then_some(blk));
        }
        // The exit block now also comes from the latch: its phis (rare) get the same value.
        for phi in l.exit.instructions().into_iter().take_while(|i| i.is_phi()) {
            if let Some((v, _)) = phi.incoming().into_iter().find(|(_, blk)| *blk == l.header) {
                phi.add_incoming(v, latch);
            }
        }
    }
    if unroll && plan.unroll > 1 {
        outer.latch.terminator().expect("latch has a terminator").set_loop_unroll_count(plan.unroll);
    }
    Ok((total, k))
}

/// Whether every value `l`'s induction variable runs with is a signed number of its own
/// type narrower than 64 bits: the loop compares it signed, without a promotion, so its
/// values lie between `init` and `bound` of that type (`widen`'s precondition).
fn in_signed_range(l: &CountedLoop) -> bool {
    let signed = matches!(
        trip_rule(l.pred),
        Some(TripRule::Below { signed: true, .. } | TripRule::Above { signed: true, .. })
    );
    signed && l.cmp_cast.is_none() && l.iv.ty().int_width() < 64
}

/// Distinct addresses outside the thread's own variables that the loop's blocks load from
/// or store to: two accesses to `x[i]` are one (a GEP is told apart by its operands, each
/// seen through an integer extension, as clang extends `i` afresh for every access).
fn memory_streams<'ctx>(l: &CountedLoop<'ctx>) -> usize {
    let through_ext = |v: Value<'ctx>| if matches!(v.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) { v.operand(0) } else { v };
    let mut seen: HashSet<Vec<Value>> = HashSet::new();
    for blk in &l.blocks {
        for i in blk.instructions() {
            let p = match i.opcode() {
                Some(Opcode::LLVMLoad) => i.operand(0),
                Some(Opcode::LLVMStore) => i.operand(1),
                _ => continue,
            };
            let mut base = p;
            while matches!(base.opcode(), Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast)) {
                base = base.operand(0);
            }
            if base.is_alloca() {
                continue;
            }
            seen.insert(if p.opcode() == Some(Opcode::LLVMGetElementPtr) { p.operands().into_iter().map(through_ext).collect() } else { vec![p] });
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_plans() {
        // A one-stream reduction (red_sum, red_logic) and a pure compute one (mcpi).
        assert_eq!(body_plan(1, true), BodyPlan { unroll: 4, widen: true });
        assert_eq!(body_plan(0, true), BodyPlan { unroll: 4, widen: true });
        // Not accumulating: never unrolled (triad, jacobi's copy loops).
        assert_eq!(body_plan(1, false), BodyPlan { unroll: 1, widen: true });
        // A dot product: widened and unrolled; a stencil: neither.
        assert_eq!(body_plan(2, true), BodyPlan { unroll: 8, widen: true });
        assert_eq!(body_plan(6, true), BodyPlan { unroll: 1, widen: false });
    }
}
