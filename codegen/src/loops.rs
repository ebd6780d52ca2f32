//! Recognises the countable loop an OpenACC `loop` directive binds to and computes its trip
//! count.
//!
//! Expects: a function in SSA form (after `sroa`) with the directive's `__acc_begin`/
//! `__acc_end` markers still in place. Produces: a `CountedLoop` (header, latch, preheader,
//! induction phi, init/step/bound and the continue predicate) and, on request, i64 IR that
//! computes the trip count in the preheader. The IV may be narrower than `int` (C compares
//! and steps `short`/`char` IVs promoted to `int`); a subtracted run-time step and a bound
//! computed in the header are computed in the preheader. Does not change the loop itself
//! (partition.rs does).

use crate::cfg::{tree_dominates, FunctionCfg, NaturalLoop};
use crate::error::{AccError, Loc, Result};
use crate::ir::{Block, Builder, Context, IntPred, Opcode, Value};
use std::collections::HashSet;

#[derive(Clone, Debug)]
pub struct CountedLoop {
    pub header: Block,
    pub latch: Block,
    pub preheader: Block,
    /// The block the header leaves the loop to.
    pub exit: Block,
    /// Successor index (0 or 1) of the header's branch that stays in the loop.
    pub body_succ: u32,
    pub blocks: HashSet<Block>,
    pub iv: Value,
    pub init: Value,
    pub step: Value,
    pub bound: Value,
    /// Predicate under which the loop continues, with the IV on the left.
    pub pred: IntPred,
    /// The cast the condition applies to the IV before comparing it with `bound` (C
    /// promotes `short`/`char` IVs to `int`: `sext`, or `zext` for unsigned ones).
    pub cmp_cast: Option<Opcode>,
}

/// Finds the natural loop that the loop directive starting at `begin` binds to.
pub fn find_bound_loop(cfg: &FunctionCfg, begin: Value, end: Value, loc: &Loc) -> Result<NaturalLoop> {
    let loops = cfg.loops();
    let start = cfg.index[&begin.parent_block()];
    let stop = cfg.index[&end.parent_block()];
    // Breadth-first from the directive, staying between begin and end: the first loop header
    // met is the loop the directive binds to.
    let mut seen = HashSet::from([start]);
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        if let Some(l) = loops.iter().find(|l| l.header == n) {
            if !l.body.contains(&start) {
                return Ok(l.clone());
            }
        }
        for &s in &cfg.graph.succ[n] {
            if s != stop && seen.insert(s) && tree_dominates(&cfg.idom, start, s) {
                queue.push_back(s);
            }
        }
    }
    Err(AccError::user(loc, "an OpenACC 'loop' directive must be followed by a for loop"))
}

/// Analyses `l` as a countable loop.
pub fn analyse(cfg: &FunctionCfg, l: &NaturalLoop, loc: &Loc) -> Result<CountedLoop> {
    let not_countable = |why: &str| AccError::user(loc, format!("the loop after this OpenACC directive is not a countable loop: {why}"));
    let header = cfg.blocks[l.header];
    let blocks: HashSet<Block> = l.body.iter().map(|&i| cfg.blocks[i]).collect();
    if l.latches.len() != 1 {
        return Err(not_countable("it has more than one back edge"));
    }
    let latch = cfg.blocks[l.latches[0]];
    let outside_preds: Vec<usize> = (0..cfg.blocks.len())
        .filter(|&p| cfg.graph.succ[p].contains(&l.header) && !l.body.contains(&p))
        .collect();
    if outside_preds.len() != 1 {
        return Err(not_countable("it is entered from more than one place"));
    }
    let preheader = cfg.blocks[outside_preds[0]];
    let term = header.terminator().ok_or_else(|| not_countable("no terminator"))?;
    if !term.is_conditional_branch() {
        return Err(not_countable("its condition is not tested at the top (a 'for' loop with a condition is required)"));
    }
    let succs = term.successors();
    let (body_succ, exit) = match (blocks.contains(&succs[0]), blocks.contains(&succs[1])) {
        (true, false) => (0, succs[1]),
        (false, true) => (1, succs[0]),
        _ => return Err(not_countable("its header does not decide between the body and the exit")),
    };
    let cmp = term.branch_condition();
    if cmp.opcode() != Some(Opcode::LLVMICmp) {
        return Err(not_countable("its condition is not an integer comparison"));
    }
    let (a, b) = (cmp.operand(0), cmp.operand(1));
    let mut pred = cmp.icmp_predicate();
    let ((iv_side, cmp_cast), bound) = if let Some(phi) = iv_phi(a, header) {
        (phi, b)
    } else if let Some(phi) = iv_phi(b, header) {
        pred = swap(pred);
        (phi, a)
    } else {
        return Err(not_countable("no induction variable is compared in its condition"));
    };
    if body_succ == 1 {
        pred = invert(pred);
    }
    let iv = iv_side;
    let (mut init, mut next) = (None, None);
    for (v, blk) in iv.incoming() {
        if blk == preheader {
            init = Some(v);
        } else if blk == latch {
            next = Some(v);
        }
    }
    let (Some(init), Some(next)) = (init, next) else {
        return Err(not_countable("the induction variable is not initialised before the loop"));
    };
    let Some(StepOf { amount, negated }) = step_of(next, iv) else {
        return Err(not_countable("the induction variable is not stepped by a constant or loop-invariant amount"));
    };
    if !invariant(amount, &blocks) {
        return Err(not_countable("the step changes inside the loop"));
    }
    // `i -= s`: the step is -s, computed once before the loop (s is invariant).
    let step = if negated {
        let b = next.parent_function().parent_module().context().builder();
        b.position_before(preheader.terminator().expect("preheader has a terminator"));
        b.sub(amount.ty().const_int(0), amount)
    } else {
        amount
    };
    let bound = hoist_if_needed(bound, header, preheader, &blocks).ok_or_else(|| not_countable("the bound changes inside the loop"))?;
    Ok(CountedLoop { header, latch, preheader, exit, body_succ, blocks, iv, init, step, bound, pred, cmp_cast })
}

/// `v` is the header phi itself or a cast of it; returns the phi and the cast.
fn iv_phi(v: Value, header: Block) -> Option<(Value, Option<Opcode>)> {
    let (v, cast) = match v.opcode() {
        Some(op @ (Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc)) => (v.operand(0), Some(op)),
        _ => (v, None),
    };
    (v.is_phi() && v.parent_block() == header).then_some((v, cast))
}

/// How the IV's next value `next` follows from the IV: `iv + amount`, or `iv - amount`
/// (`negated`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StepOf {
    amount: Value,
    negated: bool,
}

/// Recognises `iv + s`, `s + iv` and `iv - s`, also in the form C gives `short`/`char`
/// IVs: the arithmetic in `int` on the extended IV, truncated back
/// (`trunc(add(sext(iv), s))`). `i++` on them stays narrow (`add i16 %i, 1`).
fn step_of(next: Value, iv: Value) -> Option<StepOf> {
    let (arith, narrow) = match next.opcode() {
        Some(Opcode::LLVMTrunc) => (next.operand(0), true),
        _ => (next, false),
    };
    let is_iv = |v: Value| v == iv || (narrow && matches!(v.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) && v.operand(0) == iv);
    let (a, b) = match arith.opcode() {
        Some(Opcode::LLVMAdd | Opcode::LLVMSub) => (arith.operand(0), arith.operand(1)),
        _ => return None,
    };
    match arith.opcode() {
        Some(Opcode::LLVMAdd) if is_iv(a) => Some(StepOf { amount: b, negated: false }),
        Some(Opcode::LLVMAdd) if is_iv(b) => Some(StepOf { amount: a, negated: false }),
        Some(Opcode::LLVMSub) if is_iv(a) => Some(StepOf { amount: b, negated: true }),
        _ => None,
    }
}

fn invariant(v: Value, blocks: &HashSet<Block>) -> bool {
    !v.is_instruction() || !blocks.contains(&v.parent_block())
}

/// A bound computed inside the header from invariant values (e.g. `i < s->n`) is copied
/// into the preheader; OpenACC evaluates the trip count once, before the loop.
fn hoist_if_needed(v: Value, header: Block, preheader: Block, blocks: &HashSet<Block>) -> Option<Value> {
    if invariant(v, blocks) {
        return Some(v);
    }
    if v.parent_block() != header || v.is_phi() {
        return None;
    }
    match v.opcode() {
        Some(Opcode::LLVMLoad | Opcode::LLVMGetElementPtr | Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc
        | Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul | Opcode::LLVMSDiv | Opcode::LLVMUDiv | Opcode::LLVMSRem
        | Opcode::LLVMURem | Opcode::LLVMAnd | Opcode::LLVMOr | Opcode::LLVMXor | Opcode::LLVMShl
        | Opcode::LLVMLShr | Opcode::LLVMAShr) => {}
        _ => return None,
    }
    let ops: Option<Vec<Value>> = v.operands().into_iter().map(|o| hoist_if_needed(o, header, preheader, blocks)).collect();
    let ops = ops?;
    let copy = crate::ir::clone_instruction(v);
    for (k, o) in ops.into_iter().enumerate() {
        copy.set_operand(k as u32, o);
    }
    let ctx = v.parent_function().parent_module().context();
    crate::ir::insert_before(copy, preheader.terminator()?, ctx);
    Some(copy)
}

fn swap(p: IntPred) -> IntPred {
    use IntPred::*;
    match p {
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntUGE => LLVMIntULE,
        other => other,
    }
}

fn invert(p: IntPred) -> IntPred {
    use IntPred::*;
    match p {
        LLVMIntSLT => LLVMIntSGE,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULE,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
    }
}

/// How the trip count follows from init, bound and step for one continue predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TripRule {
    /// `iv < bound` (step > 0): ceil((bound - init) / step) when positive.
    Below { inclusive: bool, signed: bool },
    /// `iv > bound` (step < 0): ceil((init - bound) / -step) when positive.
    Above { inclusive: bool, signed: bool },
    /// `iv != bound`: (bound - init) / step.
    NotEqual,
}

pub fn trip_rule(p: IntPred) -> Option<TripRule> {
    use IntPred::*;
    Some(match p {
        LLVMIntSLT => TripRule::Below { inclusive: false, signed: true },
        LLVMIntSLE => TripRule::Below { inclusive: true, signed: true },
        LLVMIntULT => TripRule::Below { inclusive: false, signed: false },
        LLVMIntULE => TripRule::Below { inclusive: true, signed: false },
        LLVMIntSGT => TripRule::Above { inclusive: false, signed: true },
        LLVMIntSGE => TripRule::Above { inclusive: true, signed: true },
        LLVMIntUGT => TripRule::Above { inclusive: false, signed: false },
        LLVMIntUGE => TripRule::Above { inclusive: true, signed: false },
        LLVMIntNE => TripRule::NotEqual,
        LLVMIntEQ => return None,
    })
}

/// Reference semantics of `TripRule` on plain integers (what the emitted IR computes).
pub fn trip_count(rule: TripRule, init: i64, bound: i64, step: i64) -> i64 {
    match rule {
        TripRule::Below { inclusive, .. } => {
            let span = bound - init + inclusive as i64;
            if span <= 0 || step <= 0 {
                0
            } else {
                (span + step - 1) / step
            }
        }
        TripRule::Above { inclusive, .. } => {
            let span = init - bound + inclusive as i64;
            if span <= 0 || step >= 0 {
                0
            } else {
                (span - step - 1) / -step
            }
        }
        TripRule::NotEqual => {
            if step == 0 {
                0
            } else {
                ((bound - init) / step).max(0)
            }
        }
    }
}

/// Emits i64 IR for the trip count of `l` at the builder's position.
pub fn emit_trip_count(b: &Builder, ctx: Context, l: &CountedLoop, loc: &Loc) -> Result<Value> {
    let i64t = ctx.i64();
    let rule = trip_rule(l.pred).ok_or_else(|| AccError::user(loc, "the loop condition '==' does not give a countable loop"))?;
    let signed = !matches!(rule, TripRule::Below { signed: false, .. } | TripRule::Above { signed: false, .. });
    let ext = |v: Value| if signed { b.sext_or_trunc(v, i64t) } else { b.zext_or_trunc(v, i64t) };
    // The condition compares the IV as cast to the bound's type (an `unsigned char` IV
    // is zero-extended to `int`): the initial value is seen the same way.
    let init = match l.cmp_cast {
        Some(op) if l.init.ty().int_width() != l.bound.ty().int_width() => b.cast(op, l.init, l.bound.ty()),
        _ => l.init,
    };
    let (init, bound) = (ext(init), ext(l.bound));
    let step = b.sext_or_trunc(l.step, i64t);
    let zero = i64t.const_int(0);
    let one = i64t.const_int(1);
    Ok(match rule {
        TripRule::Below { inclusive, .. } => {
            let mut span = b.sub(bound, init);
            if inclusive {
                span = b.add(span, one);
            }
            // Divide by a safe step: the host re-evaluates this, and x86 traps on / 0.
            let step_ok = b.icmp(IntPred::LLVMIntSGT, step, zero);
            let safe = b.select(step_ok, step, one);
            let t = b.sdiv(b.sub(b.add(span, safe), one), safe);
            let pos = b.and(b.icmp(IntPred::LLVMIntSGT, span, zero), step_ok);
            b.select(pos, t, zero)
        }
        TripRule::Above { inclusive, .. } => {
            let mut span = b.sub(init, bound);
            if inclusive {
                span = b.add(span, one);
            }
            let neg = b.sub(zero, step);
            let neg_ok = b.icmp(IntPred::LLVMIntSGT, neg, zero);
            let safe = b.select(neg_ok, neg, one);
            let t = b.sdiv(b.sub(b.add(span, safe), one), safe);
            let pos = b.and(b.icmp(IntPred::LLVMIntSGT, span, zero), neg_ok);
            b.select(pos, t, zero)
        }
        TripRule::NotEqual => {
            let nz = b.icmp(IntPred::LLVMIntNE, step, zero);
            let safe = b.select(nz, step, one);
            let t = b.sdiv(b.sub(bound, init), safe);
            let pos = b.and(nz, b.icmp(IntPred::LLVMIntSGT, t, zero));
            b.select(pos, t, zero)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trip_counts() {
        let below = TripRule::Below { inclusive: false, signed: true };
        assert_eq!(trip_count(below, 0, 10, 1), 10);
        assert_eq!(trip_count(below, 0, 10, 3), 4);
        assert_eq!(trip_count(below, 5, 5, 1), 0);
        assert_eq!(trip_count(below, 7, 2, 1), 0);
        assert_eq!(trip_count(TripRule::Below { inclusive: true, signed: true }, 1, 1000003, 1), 1000003);
        let above = TripRule::Above { inclusive: true, signed: true };
        assert_eq!(trip_count(above, 9, 0, -1), 10);
        assert_eq!(trip_count(TripRule::Above { inclusive: false, signed: true }, 10, 0, -3), 4);
        assert_eq!(trip_count(TripRule::NotEqual, 0, 31, 1), 31);
    }

    #[test]
    fn predicates_swap_and_invert() {
        assert_eq!(swap(IntPred::LLVMIntSLT), IntPred::LLVMIntSGT);
        assert_eq!(invert(IntPred::LLVMIntSGE), IntPred::LLVMIntSLT);
        assert_eq!(trip_rule(IntPred::LLVMIntEQ), None);
    }
}
