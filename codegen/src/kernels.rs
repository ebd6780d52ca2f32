//! Splits each `kernels` construct into compute regions that run one after another.
//!
//! Expects: the verified directives of the module (contract.rs), before outlining. A
//! `kernels` construct (not `kernels loop`) whose body has top-level loop directives (not
//! inside another loop directive, and executed whenever the body is: their begin post-
//! dominates the body's entry, and not on a cycle of the body made by `goto`) becomes, in program order, one compute region per top-level
//! loop nest (`kernels loop` with the loop's clauses) and one `KernelsSequential` region per
//! stretch of code between them that does anything (runs once, on one thread; loops in it
//! run sequentially). Each region is a separate launch, so the second nest sees every write
//! of the first, as one launch per loop nest does in other OpenACC compilers. The construct
//! itself becomes a `data` region with its data clauses, so the arrays stay on the device
//! between the launches; its other clauses (`if`, `self`, `default`, launch sizes, `async`) go to
//! every part, except `wait`, which the data region does first (the parts then follow in
//! queue order).
//! A loop nest's `worker(num: n)` and `vector(length: n)` (the top loop's value, a
//! constant of a loop inside it, or the one inner loop's value when it can be computed
//! before the construct) become its kernel's `num_workers`/`vector_length`, in a
//! split part and in a `kernels loop` alike (clang allows them only when the construct has
//! no such clause).
//! Produces: the new directive list, with begin/end markers inserted for the stretches.
//! Does not analyse dependences: a loop nest without `independent` (or gang/worker/vector)
//! still runs sequentially on one thread.

use crate::cfg::FunctionCfg;
use crate::contract::{self, Clause, ComputeKind, Directive, DirectiveKind};
use crate::guard::touches_shared_state;
use crate::ir::{Block, Module, Opcode, Value};
use std::collections::HashSet;

pub fn split<'ctx>(m: Module<'ctx>, directives: Vec<Directive<'ctx>>) -> Vec<Directive<'ctx>> {
    let mut next_id = directives.iter().map(|d| d.id).max().unwrap_or(0) + 1;
    let mut out = Vec::new();
    let mut absorbed: HashSet<u32> = HashSet::new();
    for d in &directives {
        if absorbed.contains(&d.id) {
            continue;
        }
        if !matches!(d.kind, DirectiveKind::Compute { kind: ComputeKind::Kernels, .. }) {
            out.push(d.clone());
            continue;
        }
        let cfg = FunctionCfg::new(d.function);
        let inside = |o: &Directive<'ctx>, outer: (Value<'ctx>, Value<'ctx>)| contract::encloses(&cfg, outer, (o.begin, o.end));
        let loops: Vec<&Directive> = directives.iter().filter(|o| o.kind == DirectiveKind::Loop && o.function == d.function && inside(o, (d.begin, d.end))).collect();
        if d.kind == (DirectiveKind::Compute { kind: ComputeKind::Kernels, combined_loop: true }) {
            // `kernels loop`: one loop nest, one kernel, sized by its loops like a split part.
            let (workers, vector) = nest_sizes(&std::iter::once(d).chain(loops.iter().copied()).collect::<Vec<_>>(), d.begin, &cfg);
            let mut sized = d.clone();
            sized.clauses.extend(workers.map(Clause::NumWorkers));
            sized.clauses.extend(vector.map(Clause::VectorLength));
            out.push(sized);
            continue;
        }
        let body_start = d.last_header_call();
        let natural = cfg.loops();
        let top: Vec<&Directive> = loops
            .iter()
            .copied()
            .filter(|l| !loops.iter().any(|o| o.id != l.id && inside(l, (o.begin, o.end))))
            .filter(|l| cfg.post_dominates_inst(l.begin, body_start))
            .filter(|l| !in_cycle_of_body(&cfg, &natural, l.begin, d.begin))
            .collect();
        if top.is_empty() {
            out.push(d.clone());
            continue;
        }
        let shared: Vec<Clause> = d.clauses.iter().filter(|c| !matches!(c, Clause::Data(..) | Clause::Attach(_) | Clause::Wait(..))).cloned().collect();
        let data_clauses: Vec<Clause> = d
            .clauses
            .iter()
            .filter(|c| matches!(c, Clause::Data(..) | Clause::Attach(_) | Clause::If(_) | Clause::SelfCond(_) | Clause::Async(_) | Clause::Wait(..)))
            .cloned()
            .collect();
        out.push(Directive { kind: DirectiveKind::Data, name: acc_directives::Directive::Data.name().into(), clauses: data_clauses, ..d.clone() });
        let mut from = body_start;
        for l in &top {
            if let Some(s) = stretch(m, d, from, l.begin, &shared, &mut next_id) {
                out.push(s);
            }
            absorbed.insert(l.id);
            let mut clauses = l.clauses.clone();
            // The loop's `gang(num: n)` is its kernel's gang count, over the construct's num_gangs;
            // `worker(num: n)` and `vector(length: n)` of the nest's loops likewise size it.
            let gang_num = l.has(|c| matches!(c, Clause::GangNum(_)));
            let nest: Vec<&Directive> = std::iter::once(*l).chain(loops.iter().copied().filter(|o| o.id != l.id && inside(o, (l.begin, l.end)))).collect();
            let (workers, vector) = nest_sizes(&nest, d.begin, &cfg);
            clauses.extend(shared.iter().filter(|c| match c {
                Clause::NumGangs(_) => !gang_num,
                Clause::NumWorkers(_) => workers.is_none(),
                Clause::VectorLength(_) => vector.is_none(),
                _ => true,
            }).cloned());
            clauses.extend(workers.map(Clause::NumWorkers));
            clauses.extend(vector.map(Clause::VectorLength));
            out.push(Directive {
                kind: DirectiveKind::Compute { kind: ComputeKind::Kernels, combined_loop: true },
                name: acc_directives::Directive::KernelsLoop.name().into(),
                clauses,
                ..(*l).clone()
            });
            from = l.end;
        }
        if let Some(s) = stretch(m, d, from, d.end, &shared, &mut next_id) {
            out.push(s);
        }
    }
    out
}

/// Whether `at` (a loop's begin) lies on a cycle of the construct's body that has no
/// directive (a `goto` back to a label before it): such a nest runs again after the code
/// behind it, so the body is not a sequence of parts, and the construct stays one kernel.
/// (A cycle around the whole construct, a host loop, also holds the construct's `begin`.)
fn in_cycle_of_body<'ctx>(cfg: &FunctionCfg<'ctx>, natural: &[crate::cfg::NaturalLoop], at: Value<'ctx>, construct_begin: Value<'ctx>) -> bool {
    let (a, c) = (cfg.index[&at.parent_block()], cfg.index[&construct_begin.parent_block()]);
    natural.iter().any(|l| l.body.contains(&a) && !l.body.contains(&c))
}

/// Removes the `implicit.seq` notes from the `kernels` constructs (driver/src/implicit.rs:
/// plain `for` loops the rewriter left unmarked) and returns them as (function, position,
/// reason), for the report.
pub fn take_unmarked<'ctx>(directives: &mut [Directive<'ctx>]) -> Vec<(String, crate::error::Loc, String)> {
    let mut out = Vec::new();
    for d in directives.iter_mut() {
        d.clauses.retain(|c| match c {
            Clause::ImplicitSeq { line, col, reason } => {
                out.push((d.function.name(), crate::error::Loc { file: d.loc.file.clone(), line: *line, col: *col }, reason.clone()));
                false
            }
            _ => true,
        });
    }
    out
}

/// The worker count and vector length the loops of one `kernels` loop nest (its top loop
/// first) give their kernel with `worker(num: n)` and `vector(length: n)`: the first given,
/// on the top loop any value, on a loop inside it a constant, or a value computed again
/// before the construct (`before`, in the function whose CFG is `cfg`: the variables it
/// reads are not written inside the construct) when that loop is the only one of the nest
/// to give it. Other values of the nest are computed inside the kernel, too late to size its
/// launch: device.rs rejects them.
fn nest_sizes<'ctx>(nest: &[&Directive<'ctx>], before: Value<'ctx>, cfg: &FunctionCfg<'ctx>) -> (Option<Value<'ctx>>, Option<Value<'ctx>>) {
    let first = |pick: &dyn Fn(&Clause<'ctx>) -> Option<Value<'ctx>>| {
        let given: Vec<(usize, Value<'ctx>)> = nest.iter().enumerate().filter_map(|(i, d)| d.clauses.iter().find_map(pick).map(|v| (i, v))).collect();
        given.iter().find(|(i, v)| *i == 0 || v.const_int_value().is_some()).map(|(_, v)| *v).or_else(|| match given[..] {
            [(_, v)] => crate::reduction::computed_before(v, before, cfg, 0),
            _ => None,
        })
    };
    (
        first(&|c| if let Clause::Worker(Some(v)) = c { Some(*v) } else { None }),
        first(&|c| if let Clause::Vector(Some(v)) = c { Some(*v) } else { None }),
    )
}

/// The code after `from` up to `to`, as a sequential region, when it does anything.
fn stretch<'ctx>(m: Module<'ctx>, d: &Directive<'ctx>, from: Value<'ctx>, to: Value<'ctx>, clauses: &[Clause<'ctx>], next_id: &mut u32) -> Option<Directive<'ctx>> {
    let start = from.next_instruction().expect("a marker is never a terminator");
    if !does_anything(start, to) {
        return None;
    }
    let ctx = m.context();
    let (i32t, ptr) = (ctx.i32(), ctx.ptr());
    let begin_fn = m.get_or_add_function(contract::BEGIN, ctx.fn_type(ctx.void(), &[i32t, ptr, ptr, i32t, i32t], false));
    let end_fn = m.get_or_add_function(contract::END, ctx.fn_type(ctx.void(), &[i32t], false));
    let id = *next_id;
    *next_id += 1;
    let idv = i32t.const_int(u64::from(id));
    let b = ctx.builder();
    b.position_before(start);
    let begin = b.call(begin_fn, &[idv, ptr.const_null(), ptr.const_null(), i32t.const_int(u64::from(d.loc.line)), i32t.const_int(u64::from(d.loc.col))], "");
    b.position_before(to);
    let end = b.call(end_fn, &[idv], "");
    Some(Directive {
        id,
        kind: DirectiveKind::Compute { kind: ComputeKind::KernelsSequential, combined_loop: false },
        name: acc_directives::Directive::Kernels.name().into(),
        clauses: clauses.to_vec(),
        begin,
        end,
        clause_calls: Vec::new(),
        ..d.clone()
    })
}

/// Whether code from `start` to `to` has an effect: a store, an atomic or a call (markers
/// and intrinsics without memory effects aside). In the host function every variable is
/// memory, so loads and pure arithmetic alone do nothing the program can see.
fn does_anything<'ctx>(start: Value<'ctx>, to: Value<'ctx>) -> bool {
    let mut seen: HashSet<Block> = HashSet::new();
    let mut work = vec![start];
    while let Some(first) = work.pop() {
        let mut cur = Some(first);
        while let Some(i) = cur {
            if i == to {
                break;
            }
            let effect = match i.opcode() {
                Some(Opcode::LLVMStore | Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => true,
                Some(Opcode::LLVMCall) => !i.called_name().is_some_and(|n| n.starts_with("__acc_")) && touches_shared_state(i),
                _ => false,
            };
            if effect {
                return true;
            }
            if i.next_instruction().is_none() {
                for s in i.parent_block().successors() {
                    if seen.insert(s) {
                        work.push(s.first_instruction().expect("blocks are not empty"));
                    }
                }
            }
            cur = i.next_instruction();
        }
    }
    false
}
