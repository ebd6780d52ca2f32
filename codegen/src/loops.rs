//! Recognises the countable loop an OpenACC `loop` directive binds to and computes its trip
//! count.
//!
//! Expects: a function in SSA form (after `sroa`) with the directive's `__acc_begin`/
//! `__acc_end` markers still in place. Two steps, called in order:
//! - `analyse` is a pure analysis: it changes nothing and produces a `LoopShape` (header,
//!   latch, preheader, induction phi, init, how the IV steps, the bound as the condition
//!   computes it, and the continue predicate). The IV may be narrower than `int` (C compares
//!   and steps `short`/`char` IVs promoted to `int`).
//! - `hoist_trip_inputs` makes what the trip count needs available before the loop and
//!   produces a `CountedLoop`: it adds to the preheader the negated step of `i -= s` (a
//!   run-time `s`) and a copy of a bound computed in the header; it changes nothing else.
//!
//! `emit_trip_count` then emits i64 IR that computes the trip count in the preheader. The
//! formula is written once (`trip_formula`, over the arithmetic of `TripArith`): emitted as
//! IR there, evaluated on plain integers by `trip_count` for the unit tests. The loop
//! itself is rewritten by partition.rs.

use crate::cfg::{tree_dominates, FunctionCfg, NaturalLoop};
use crate::error::{AccError, Loc, Result};
use crate::ir::{clone_instruction, insert_before, Block, Builder, Context, IntPred, Opcode, Type, Value};
use std::collections::HashSet;

/// A countable loop as `analyse` finds it, the IR unchanged: its step is a `StepOf` (an
/// invariant amount, maybe subtracted) and its bound may be computed in the header.
pub type LoopShape<'ctx> = Countable<'ctx, StepOf<'ctx>>;

/// A countable loop whose trip count can be computed in its preheader
/// (`hoist_trip_inputs`): step and bound are available there.
pub type CountedLoop<'ctx> = Countable<'ctx, Value<'ctx>>;

/// A countable loop; `Step` says how far `analyse`/`hoist_trip_inputs` have got with it.
#[derive(Clone, Debug)]
pub struct Countable<'ctx, Step> {
    pub header: Block<'ctx>,
    pub latch: Block<'ctx>,
    pub preheader: Block<'ctx>,
    /// The block the header leaves the loop to.
    pub exit: Block<'ctx>,
    /// Successor index (0 or 1) of the header's branch that stays in the loop.
    pub body_succ: u32,
    pub blocks: HashSet<Block<'ctx>>,
    pub iv: Value<'ctx>,
    pub init: Value<'ctx>,
    /// How the IV steps per iteration: `StepOf` in a `LoopShape`, the signed amount added
    /// (available in the preheader) in a `CountedLoop`.
    pub step: Step,
    /// The value the IV is compared with: loop-invariant or computed in the header from
    /// loop-invariant values in a `LoopShape`; available in the preheader in a `CountedLoop`.
    pub bound: Value<'ctx>,
    /// Predicate under which the loop continues, with the IV on the left.
    pub pred: IntPred,
    /// The cast the condition applies to the IV before comparing it with `bound` (C
    /// promotes `short`/`char` IVs to `int`: `sext`, or `zext` for unsigned ones).
    pub cmp_cast: Option<Opcode>,
}

/// Finds the natural loop that the loop directive starting at `begin` binds to.
pub fn find_bound_loop<'ctx>(cfg: &FunctionCfg<'ctx>, begin: Value<'ctx>, end: Value<'ctx>, loc: &Loc) -> Result<NaturalLoop> {
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

/// Analyses `l` as a countable loop. Changes nothing: what the trip count needs before the
/// loop is added by `hoist_trip_inputs`.
pub fn analyse<'ctx>(cfg: &FunctionCfg<'ctx>, l: &NaturalLoop, loc: &Loc) -> Result<LoopShape<'ctx>> {
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
    let ((iv, cmp_cast), bound) = if let Some(phi) = iv_phi(a, header) {
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
    let Some(step) = step_of(next, iv) else {
        return Err(not_countable("the induction variable is not stepped by a constant or loop-invariant amount"));
    };
    if !invariant(step.amount, &blocks) {
        return Err(not_countable("the step changes inside the loop"));
    }
    if !computable_before_loop(bound, header, &blocks) {
        return Err(not_countable("the bound changes inside the loop"));
    }
    Ok(LoopShape { header, latch, preheader, exit, body_succ, blocks, iv, init, step, bound, pred, cmp_cast })
}

/// The rewriting half of recognising a loop: adds to the preheader what the trip count
/// needs and the loop does not compute there. `i -= s`: the step is -s, computed once
/// before the loop (s is invariant); a bound computed in the header is copied, since
/// OpenACC evaluates the trip count once, before the loop.
pub fn hoist_trip_inputs<'ctx>(l: LoopShape<'ctx>) -> CountedLoop<'ctx> {
    let before = l.preheader.terminator().expect("preheader has a terminator");
    let ctx = l.header.parent().context();
    let StepOf { amount, negated } = l.step;
    let step = if negated {
        let b = ctx.builder();
        b.position_before(before);
        b.sub(amount.ty().const_int(0), amount)
    } else {
        amount
    };
    let bound = copy_before_loop(l.bound, &l.blocks, before, ctx);
    let LoopShape { header, latch, preheader, exit, body_succ, blocks, iv, init, pred, cmp_cast, .. } = l;
    CountedLoop { header, latch, preheader, exit, body_succ, blocks, iv, init, step, bound, pred, cmp_cast }
}

/// `v` is the header phi itself or a cast of it; returns the phi and the cast.
fn iv_phi<'ctx>(v: Value<'ctx>, header: Block<'ctx>) -> Option<(Value<'ctx>, Option<Opcode>)> {
    let (v, cast) = match v.opcode() {
        Some(op @ (Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc)) => (v.operand(0), Some(op)),
        _ => (v, None),
    };
    (v.is_phi() && v.parent_block() == header).then_some((v, cast))
}

/// How the IV's next value follows from the IV: `iv + amount`, or `iv - amount`
/// (`negated`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepOf<'ctx> {
    pub amount: Value<'ctx>,
    pub negated: bool,
}

/// Recognises `iv + s`, `s + iv` and `iv - s`, also in the form C gives `short`/`char`
/// IVs: the arithmetic in `int` on the extended IV, truncated back
/// (`trunc(add(sext(iv), s))`). `i++` on them stays narrow (`add i16 %i, 1`).
fn step_of<'ctx>(next: Value<'ctx>, iv: Value<'ctx>) -> Option<StepOf<'ctx>> {
    let (arith, narrow) = match next.opcode() {
        Some(Opcode::LLVMTrunc) => (next.operand(0), true),
        _ => (next, false),
    };
    let is_iv = |v: Value<'ctx>| v == iv || (narrow && matches!(v.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) && v.operand(0) == iv);
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

fn invariant<'ctx>(v: Value<'ctx>, blocks: &HashSet<Block<'ctx>>) -> bool {
    !v.is_instruction() || !blocks.contains(&v.parent_block())
}

/// Whether `v` is invariant in the loop or computed in its header, from invariant values,
/// by instructions that `copy_before_loop` may recompute before the loop (e.g. `i < s->n`).
fn computable_before_loop<'ctx>(v: Value<'ctx>, header: Block<'ctx>, blocks: &HashSet<Block<'ctx>>) -> bool {
    if invariant(v, blocks) {
        return true;
    }
    v.parent_block() == header
        && !v.is_phi()
        && v.opcode().is_some_and(recomputable)
        && v.operands().into_iter().all(|o| computable_before_loop(o, header, blocks))
}

/// Instructions whose value only depends on their operands (for loads: on memory the
/// loop's condition does not change): the same when recomputed before the loop.
fn recomputable(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        LLVMLoad | LLVMGetElementPtr | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMAdd | LLVMSub | LLVMMul | LLVMSDiv
            | LLVMUDiv | LLVMSRem | LLVMURem | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr | LLVMAShr | LLVMICmp
            | LLVMSelect
    )
}

/// `v` where it is available before the loop: itself if invariant, else (checked by
/// `computable_before_loop`) a copy of its computation inserted before `before`, the
/// preheader's terminator.
fn copy_before_loop<'ctx>(v: Value<'ctx>, blocks: &HashSet<Block<'ctx>>, before: Value<'ctx>, ctx: Context<'ctx>) -> Value<'ctx> {
    if invariant(v, blocks) {
        return v;
    }
    let ops: Vec<Value> = v.operands().into_iter().map(|o| copy_before_loop(o, blocks, before, ctx)).collect();
    let copy = clone_instruction(v);
    for (k, o) in ops.into_iter().enumerate() {
        copy.set_operand(k as u32, o);
    }
    insert_before(copy, before, ctx);
    copy
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

/// The operations the trip-count formula is written in: `trip_formula` is defined once,
/// over this, and both evaluated on plain integers (`Evaluate`, for `trip_count` and the
/// unit tests) and emitted as IR (`Emit`, for `emit_trip_count`).
trait TripArith {
    type Int: Copy;
    type Bool: Copy;
    fn int(&self, v: i64) -> Self::Int;
    fn add(&self, a: Self::Int, b: Self::Int) -> Self::Int;
    fn sub(&self, a: Self::Int, b: Self::Int) -> Self::Int;
    /// Signed division; the formula never divides by zero.
    fn sdiv(&self, a: Self::Int, b: Self::Int) -> Self::Int;
    /// Signed `a > b`.
    fn gt(&self, a: Self::Int, b: Self::Int) -> Self::Bool;
    fn ne(&self, a: Self::Int, b: Self::Int) -> Self::Bool;
    fn and(&self, a: Self::Bool, b: Self::Bool) -> Self::Bool;
    fn select(&self, c: Self::Bool, a: Self::Int, b: Self::Int) -> Self::Int;
}

/// i64 arithmetic that wraps, as the emitted IR does.
struct Evaluate;

impl TripArith for Evaluate {
    type Int = i64;
    type Bool = bool;
    fn int(&self, v: i64) -> i64 {
        v
    }
    fn add(&self, a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
    fn sub(&self, a: i64, b: i64) -> i64 {
        a.wrapping_sub(b)
    }
    fn sdiv(&self, a: i64, b: i64) -> i64 {
        a.wrapping_div(b)
    }
    fn gt(&self, a: i64, b: i64) -> bool {
        a > b
    }
    fn ne(&self, a: i64, b: i64) -> bool {
        a != b
    }
    fn and(&self, a: bool, b: bool) -> bool {
        a && b
    }
    fn select(&self, c: bool, a: i64, b: i64) -> i64 {
        if c {
            a
        } else {
            b
        }
    }
}

/// i64 IR at the builder's position.
struct Emit<'ctx, 'a> {
    b: &'a Builder<'ctx>,
    i64t: Type<'ctx>,
}

impl<'ctx> TripArith for Emit<'ctx, '_> {
    type Int = Value<'ctx>;
    type Bool = Value<'ctx>;
    fn int(&self, v: i64) -> Value<'ctx> {
        self.i64t.const_int(v as u64)
    }
    fn add(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.b.add(a, b)
    }
    fn sub(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.b.sub(a, b)
    }
    fn sdiv(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.b.sdiv(a, b)
    }
    fn gt(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.b.icmp(IntPred::LLVMIntSGT, a, b)
    }
    fn ne(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.b.icmp(IntPred::LLVMIntNE, a, b)
    }
    fn and(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.b.and(a, b)
    }
    fn select(&self, c: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.b.select(c, a, b)
    }
}

/// The trip count of a loop from init, bound and step (i64, the step signed), for one
/// continue predicate: the number of iterations, or 0 when the step does not go towards
/// the bound. Each division is by a divisor made safe (1 where the real one would divide
/// by zero, and the quotient then not used): the host re-evaluates this, and x86 traps on
/// / 0.
fn trip_formula<A: TripArith>(a: &A, rule: TripRule, init: A::Int, bound: A::Int, step: A::Int) -> A::Int {
    let (zero, one) = (a.int(0), a.int(1));
    let inclusive_span = |span: A::Int, inclusive: bool| if inclusive { a.add(span, one) } else { span };
    // ceil(span / stride) when both are positive, else 0.
    let ceil_div_if_positive = |span: A::Int, stride: A::Int| {
        let stride_ok = a.gt(stride, zero);
        let safe = a.select(stride_ok, stride, one);
        let t = a.sdiv(a.sub(a.add(span, safe), one), safe);
        a.select(a.and(a.gt(span, zero), stride_ok), t, zero)
    };
    match rule {
        TripRule::Below { inclusive, .. } => ceil_div_if_positive(inclusive_span(a.sub(bound, init), inclusive), step),
        TripRule::Above { inclusive, .. } => {
            let span = inclusive_span(a.sub(init, bound), inclusive);
            ceil_div_if_positive(span, a.sub(zero, step))
        }
        TripRule::NotEqual => {
            let nonzero = a.ne(step, zero);
            let safe = a.select(nonzero, step, one);
            let t = a.sdiv(a.sub(bound, init), safe);
            a.select(a.and(nonzero, a.gt(t, zero)), t, zero)
        }
    }
}

/// `trip_formula` on plain integers: what the IR `emit_trip_count` emits computes.
pub fn trip_count(rule: TripRule, init: i64, bound: i64, step: i64) -> i64 {
    trip_formula(&Evaluate, rule, init, bound, step)
}

/// Emits i64 IR for the trip count of `l` at the builder's position.
pub fn emit_trip_count<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, l: &CountedLoop<'ctx>, loc: &Loc) -> Result<Value<'ctx>> {
    let i64t = ctx.i64();
    let rule = trip_rule(l.pred).ok_or_else(|| AccError::user(loc, "the loop condition '==' does not give a countable loop"))?;
    let signed = !matches!(rule, TripRule::Below { signed: false, .. } | TripRule::Above { signed: false, .. });
    let ext = |v: Value<'ctx>| if signed { b.sext_or_trunc(v, i64t) } else { b.zext_or_trunc(v, i64t) };
    // The condition compares the IV as cast to the bound's type (an `unsigned char` IV
    // is zero-extended to `int`): the initial value is seen the same way.
    let init = match l.cmp_cast {
        Some(op) if l.init.ty().int_width() != l.bound.ty().int_width() => b.cast(op, l.init, l.bound.ty()),
        _ => l.init,
    };
    let (init, bound) = (ext(init), ext(l.bound));
    let step = b.sext_or_trunc(l.step, i64t);
    Ok(trip_formula(&Emit { b, i64t }, rule, init, bound, step))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Module, OwnedContext};
    use std::collections::BTreeMap;

    /// Loops in the shapes C gives them after sroa: a subtracted run-time step, a bound
    /// loaded in the header with the body on the false edge, a `short` IV compared and
    /// stepped in `int`, an `unsigned char` IV on the right of the comparison, and a
    /// `collapse(2)` nest whose inner bound is computed in the inner header.
    const SHAPES: &str = r#"
define void @down(i32 %hi, i32 %lo, i32 %s, ptr %a) {
entry:
  br label %cond
cond:
  %i = phi i32 [ %hi, %entry ], [ %next, %body ]
  %c = icmp sgt i32 %i, %lo
  br i1 %c, label %body, label %end
body:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  store i32 0, ptr %p
  %next = sub nsw i32 %i, %s
  br label %cond
end:
  ret void
}

define void @loaded_bound(ptr %s) {
entry:
  br label %cond
cond:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %np = getelementptr inbounds i8, ptr %s, i64 4
  %n = load i32, ptr %np
  %last = add nsw i32 %n, -1
  %done = icmp sge i32 %i, %last
  br i1 %done, label %end, label %body
body:
  %next = add nsw i32 %i, 2
  br label %cond
end:
  ret void
}

define void @shorts(i16 %init, i32 %n) {
entry:
  br label %cond
cond:
  %i = phi i16 [ %init, %entry ], [ %next, %body ]
  %wide = sext i16 %i to i32
  %c = icmp sle i32 %wide, %n
  br i1 %c, label %body, label %end
body:
  %w = sext i16 %i to i32
  %sum = add nsw i32 %w, 3
  %next = trunc i32 %sum to i16
  br label %cond
end:
  ret void
}

define void @uchars(i32 %n) {
entry:
  br label %cond
cond:
  %c = phi i8 [ 0, %entry ], [ %next, %body ]
  %cz = zext i8 %c to i32
  %t = icmp sgt i32 %n, %cz
  br i1 %t, label %body, label %end
body:
  %next = add i8 %c, 1
  br label %cond
end:
  ret void
}

define void @nest(i64 %n, i32 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %inext, %outer.latch ]
  %more = icmp ne i64 %i, %n
  br i1 %more, label %inner.pre, label %end
inner.pre:
  br label %inner
inner:
  %j = phi i32 [ 0, %inner.pre ], [ %jnext, %inner.body ]
  %mm = sub nsw i32 %m, 1
  %jmore = icmp slt i32 %j, %mm
  br i1 %jmore, label %inner.body, label %outer.latch
inner.body:
  %jnext = add nsw i32 %j, 1
  br label %inner
outer.latch:
  %inext = add nsw i64 1, %i
  br label %outer
end:
  ret void
}
"#;

    /// Every loop of `SHAPES` (function, header block), in the order of the text.
    const LOOPS: [(&str, &str); 6] =
        [("down", "cond"), ("loaded_bound", "cond"), ("shorts", "cond"), ("uchars", "cond"), ("nest", "outer"), ("nest", "inner")];

    fn shape_of<'ctx>(m: Module<'ctx>, func: &str, header: &str) -> LoopShape<'ctx> {
        let cfg = FunctionCfg::new(m.function(func).expect("function in SHAPES"));
        let l = cfg.loops().into_iter().find(|l| cfg.blocks[l.header].name() == header).expect("loop in SHAPES");
        analyse(&cfg, &l, &Loc::default()).expect("countable")
    }

    #[test]
    fn analysis_changes_nothing() {
        let owned = OwnedContext::new();
        let module = owned.context().parse_ir(SHAPES, "shapes.ll").expect("SHAPES parses");
        let m = module.handle();
        let before = m.print_to_string();
        let shapes: Vec<LoopShape> = LOOPS.iter().map(|(f, h)| shape_of(m, f, h)).collect();
        assert_eq!(m.print_to_string(), before);
        // What it found, for the shapes that need a rewrite before the trip count.
        let arg = |f: &str, k: usize| m.function(f).expect("function").params()[k];
        assert_eq!(shapes[0].step, StepOf { amount: arg("down", 2), negated: true });
        assert_eq!(shapes[0].pred, IntPred::LLVMIntSGT);
        assert_eq!(shapes[1].bound.parent_block(), shapes[1].header, "bound computed in the header");
        assert_eq!(shapes[1].pred, IntPred::LLVMIntSLT, "body on the false edge of `i >= last`");
        assert_eq!((shapes[2].pred, shapes[2].cmp_cast), (IntPred::LLVMIntSLE, Some(Opcode::LLVMSExt)));
        assert_eq!(shapes[2].step.amount.const_int_value(), Some(3));
        assert_eq!((shapes[3].pred, shapes[3].cmp_cast), (IntPred::LLVMIntSLT, Some(Opcode::LLVMZExt)), "IV on the right");
        assert_eq!((shapes[4].pred, shapes[4].step.amount.const_int_value()), (IntPred::LLVMIntNE, Some(1)));
        assert_eq!(shapes[5].bound.parent_block(), shapes[5].header);
    }

    /// Instructions per block, by function and block name.
    fn block_sizes<'ctx>(m: Module<'ctx>) -> BTreeMap<(String, String), usize> {
        let blocks = m.functions().into_iter().flat_map(|f| f.blocks().into_iter().map(move |b| (f, b)));
        blocks.map(|(f, b)| ((f.name(), b.name()), b.instructions().len())).collect()
    }

    #[test]
    fn hoisting_adds_to_preheaders_only() {
        let owned = OwnedContext::new();
        let module = owned.context().parse_ir(SHAPES, "shapes.ll").expect("SHAPES parses");
        let m = module.handle();
        let shapes: Vec<LoopShape> = LOOPS.iter().map(|(f, h)| shape_of(m, f, h)).collect();
        let before = block_sizes(m);
        let counted: Vec<CountedLoop> = shapes.into_iter().map(hoist_trip_inputs).collect();
        m.verify().expect("valid IR after hoisting");
        let in_preheader = |l: &CountedLoop, v: Value| v.is_instruction() && v.parent_block() == l.preheader;
        // `i -= s`: the step is `0 - s`, before the loop.
        assert!(in_preheader(&counted[0], counted[0].step));
        assert_eq!(counted[0].step.opcode(), Some(Opcode::LLVMSub));
        // The header's `gep`, `load`, `add` chain is copied before the loop.
        assert!(in_preheader(&counted[1], counted[1].bound));
        assert!(in_preheader(&counted[1], counted[1].bound.operand(0)), "the load is copied too");
        assert!(in_preheader(&counted[5], counted[5].bound));
        // Invariant steps and bounds are used as they are.
        assert_eq!(counted[2].step.const_int_value(), Some(3));
        assert!(!counted[3].bound.is_instruction());
        // Only those preheaders grew (the nest's inner one lies in the outer loop).
        let mut grown = block_sizes(m);
        grown.retain(|k, n| before[k] != *n);
        let grown: Vec<(&str, &str, usize)> = grown.iter().map(|((f, b), n)| (f.as_str(), b.as_str(), n - before[&(f.clone(), b.clone())])).collect();
        assert_eq!(grown, [("down", "entry", 1), ("loaded_bound", "entry", 3), ("nest", "inner.pre", 1)]);
    }

    #[test]
    fn trip_counts() {
        let below = TripRule::Below { inclusive: false, signed: true };
        assert_eq!(trip_count(below, 0, 10, 1), 10);
        assert_eq!(trip_count(below, 0, 10, 3), 4);
        assert_eq!(trip_count(below, 5, 5, 1), 0);
        assert_eq!(trip_count(below, 7, 2, 1), 0);
        assert_eq!(trip_count(below, 0, 10, 0), 0, "a zero step does not divide by zero");
        assert_eq!(trip_count(below, 0, 10, -1), 0, "a step away from the bound");
        assert_eq!(trip_count(TripRule::Below { inclusive: true, signed: true }, 1, 1000003, 1), 1000003);
        assert_eq!(trip_count(TripRule::Below { inclusive: true, signed: false }, 0, 9, 4), 3);
        let above = TripRule::Above { inclusive: true, signed: true };
        assert_eq!(trip_count(above, 9, 0, -1), 10);
        assert_eq!(trip_count(above, 9, 0, -4), 3);
        assert_eq!(trip_count(above, 9, 0, 1), 0, "a step away from the bound");
        assert_eq!(trip_count(above, 9, 0, 0), 0);
        assert_eq!(trip_count(TripRule::Above { inclusive: false, signed: true }, 10, 0, -3), 4);
        assert_eq!(trip_count(TripRule::NotEqual, 0, 31, 1), 31);
        assert_eq!(trip_count(TripRule::NotEqual, 10, 0, -2), 5);
        assert_eq!(trip_count(TripRule::NotEqual, 0, 10, -1), 0, "a step away from the bound");
        assert_eq!(trip_count(TripRule::NotEqual, 0, 10, 0), 0);
    }

    use IntPred::*;
    const PREDICATES: [IntPred; 9] =
        [LLVMIntSLT, LLVMIntSLE, LLVMIntULT, LLVMIntULE, LLVMIntSGT, LLVMIntSGE, LLVMIntUGT, LLVMIntUGE, LLVMIntNE];
    const VALUES: [i64; 7] = [-5, -1, 0, 1, 4, 9, 12];
    const STEPS: [i64; 7] = [-3, -2, -1, 0, 1, 2, 3];

    fn is_unsigned(p: IntPred) -> bool {
        matches!(p, LLVMIntULT | LLVMIntULE | LLVMIntUGT | LLVMIntUGE)
    }

    /// How often `for (i = init; i PRED bound; i += step)` runs, `i` taking the values of
    /// `range` (its C type); None when it runs more than 1000 times or `i` leaves `range`.
    fn run_loop(pred: IntPred, init: i64, bound: i64, step: i64, range: std::ops::RangeInclusive<i64>) -> Option<i64> {
        let holds = |i: i64| match pred {
            LLVMIntSLT | LLVMIntULT => i < bound,
            LLVMIntSLE | LLVMIntULE => i <= bound,
            LLVMIntSGT | LLVMIntUGT => i > bound,
            LLVMIntSGE | LLVMIntUGE => i >= bound,
            LLVMIntNE => i != bound,
            LLVMIntEQ => i == bound,
        };
        let (mut i, mut n) = (init, 0);
        while holds(i) {
            (i, n) = (i + step, n + 1);
            if n > 1000 || !range.contains(&i) {
                return None;
            }
        }
        Some(n)
    }

    /// `v` as C sees an `int` (signed predicates) or `unsigned` (unsigned ones) holding it.
    fn as_c_int(p: IntPred, v: i64) -> i64 {
        if is_unsigned(p) {
            v as u32 as i64
        } else {
            v as i32 as i64
        }
    }

    #[test]
    fn trip_count_is_how_often_the_loop_runs() {
        let mut checked = 0;
        for p in PREDICATES {
            let range = if is_unsigned(p) { 0..=u32::MAX as i64 } else { i32::MIN as i64..=i32::MAX as i64 };
            let rule = trip_rule(p).expect("countable predicate");
            for (init, bound, step) in VALUES.iter().flat_map(|&i| VALUES.iter().flat_map(move |&b| STEPS.iter().map(move |&s| (i, b, s)))) {
                let (init, bound) = (as_c_int(p, init), as_c_int(p, bound));
                if let Some(n) = run_loop(p, init, bound, step, range.clone()) {
                    assert_eq!(trip_count(rule, init, bound, step), n, "{p:?} init {init} bound {bound} step {step}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "most cases end: {checked}");
    }

    /// The trip count `emit_trip_count` emits for constant operands, folded to a constant by
    /// the builder. `init` is an `iv_bits`-wide IV that the condition casts with `cast` to
    /// the bound's 32 bits; `step` is `step_bits` wide.
    fn emitted(p: IntPred, init: i64, iv_bits: u32, cast: Option<Opcode>, bound: i64, step: i64, step_bits: u32) -> Result<i64> {
        let owned = OwnedContext::new();
        let ctx = owned.context();
        let module = ctx.parse_ir("define void @f() {\nentry:\n  ret void\n}\n", "scratch.ll").expect("parses");
        let m = module.handle();
        let block = m.function("f").expect("f").entry_block();
        let b = ctx.builder();
        b.position_before(block.terminator().expect("ret"));
        let init = ctx.int(iv_bits).const_int(init as u64);
        let (bound, step) = (ctx.i32().const_int(bound as u64), ctx.int(step_bits).const_int(step as u64));
        // `emit_trip_count` reads only the predicate, init, bound, step and cast.
        let l = CountedLoop {
            header: block,
            latch: block,
            preheader: block,
            exit: block,
            body_succ: 0,
            blocks: HashSet::new(),
            iv: init,
            init,
            step,
            bound,
            pred: p,
            cmp_cast: cast,
        };
        let t = emit_trip_count(&b, ctx, &l, &Loc::default())?;
        assert_eq!(block.instructions().len(), 1, "constant operands fold");
        Ok(t.const_int_value().expect("a constant i64"))
    }

    #[test]
    fn emitted_trip_count_is_the_formula() {
        for p in PREDICATES {
            let rule = trip_rule(p).expect("countable predicate");
            for (init, bound, step) in VALUES.iter().flat_map(|&i| VALUES.iter().flat_map(move |&b| STEPS.iter().map(move |&s| (i, b, s)))) {
                let want = trip_count(rule, as_c_int(p, init), as_c_int(p, bound), step);
                assert_eq!(emitted(p, init, 32, None, bound, step, 32).ok(), Some(want), "{p:?} init {init} bound {bound} step {step}");
            }
        }
        assert!(emitted(LLVMIntEQ, 0, 32, None, 0, 1, 32).is_err(), "'==' is not countable");
    }

    #[test]
    fn emitted_trip_count_sees_narrow_ivs_as_the_condition_does() {
        let mut checked = 0;
        let mut check = |p: IntPred, (init, bound, step): (i64, i64, i64), iv_bits: u32, cast: Opcode, step_bits: u32| {
            let range = if cast == Opcode::LLVMSExt { -(1 << (iv_bits - 1))..=(1 << (iv_bits - 1)) - 1 } else { 0..=(1 << iv_bits) - 1 };
            if let Some(n) = run_loop(p, init, bound, step, range) {
                let got = emitted(p, init, iv_bits, Some(cast), bound, step, step_bits).ok();
                assert_eq!(got, Some(n), "i{iv_bits} IV, {cast:?}, {p:?} init {init} bound {bound} step {step}");
                checked += 1;
            }
        };
        // for (short i = init; i PRED n; i += step): sign-extended to int, stepped in int.
        for p in [LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE, LLVMIntNE] {
            for case in [(-300, 200, 7), (-4, 10, 2), (9, -4, -1), (0, 30000, 1000), (300, -300, -3)] {
                check(p, case, 16, Opcode::LLVMSExt, 32);
            }
        }
        // for (unsigned char c = init; c PRED n; c++ / c--): zero-extended (200 is 200, not
        // -56), stepped in i8.
        for p in [LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE, LLVMIntNE] {
            for case in [(200, 250, 1), (0, 255, 1), (250, 200, -1), (255, 0, -1), (200, 0, -1)] {
                check(p, case, 8, Opcode::LLVMZExt, 8);
            }
        }
        assert!(checked >= 25, "most cases end: {checked}");
        assert_eq!(emitted(LLVMIntSLT, 200, 8, Some(Opcode::LLVMZExt), 250, 1, 8).ok(), Some(50));
    }

    #[test]
    fn predicates_swap_and_invert() {
        assert_eq!(swap(IntPred::LLVMIntSLT), IntPred::LLVMIntSGT);
        assert_eq!(invert(IntPred::LLVMIntSGE), IntPred::LLVMIntSLT);
        assert_eq!(trip_rule(IntPred::LLVMIntEQ), None);
    }
}
