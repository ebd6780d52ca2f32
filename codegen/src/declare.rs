//! Lowers `declare` directives (OpenACC 3.3 §2.13).
//!
//! Expects: verified `declare` directives (contract.rs). One written in a function is a data
//! region from the directive to the function's end. One written at file scope sits alone in
//! a constructor of its own (`acc_directives::FILE_SCOPE_DECLARE`, made by the driver's
//! rewriter) and names globals, whole or as sections with constant bounds, with `create`,
//! `copyin`, `device_resident` or `link`.
//!
//! Produces:
//! - in a function: at the directive, `__accrt_data_enter` per item on the structured
//!   counter (as a `data` construct's clauses); before every `ret` the directive dominates,
//!   `__accrt_data_exit` per item in reverse order (a function's later declares exit
//!   first), so `copy`/`copyout` copy back at every return. A declared local's lifetime end
//!   (`llvm.lifetime.end`, a variable-length array's `llvm.stackrestore`) after the directive
//!   is dropped: the copy-out at the return writes the local. `link` items do nothing.
//! - at file scope: in the constructor, `__accrt_declare(host, bytes, init, kind, loc, text)`
//!   (`__accrt_declare_rows` with a constant table of levels for a section through pointer
//!   rows)
//!   per `create`/`device_resident` (kind create) and `copyin` item: the runtime maps the
//!   global for the whole program at its first data or compute operation. `init` (copyin) is
//!   a private constant image of the global's static initialiser at the item's offset (null
//!   when it is all zeros; the global itself when its definition is elsewhere or may be
//!   replaced at link time). `link` items register nothing: data clauses map them.
//!
//! The rest of the pipeline reads file-scope items ([`file_scope_items`]) as clauses of a
//! data construct around every compute construct of the module (a use finds the global
//! present, or reports it missing, instead of mapping it implicitly), and device code that
//! reaches a declared global through a called function gets its device address (outline.rs
//! captures the global, globals.rs redirects the device code's uses).
//!
//! Errors, at the directive: a declare in a function inside a loop (it would enter on every
//! iteration and exit once), or in a block that some path from it to a return leaves without
//! passing the function's end (`if (c) { ...declare... } return;`, where no single exit
//! point exists); at file scope, an item that is not a global or has bounds unknown before
//! the program runs, and any clause but the four above.
//! Does not: handle a function's `static` variables as program-long data (a function-scope
//! declare of one is a data region like any other), or globals of `routine` functions.

use crate::cfg::{tree_dominates, FunctionCfg, Graph};
use crate::contract::{Clause, DataKind, Directive, DirectiveKind, Var};
use crate::error::{AccError, Result};
use crate::ir::{Builder, Context, Linkage, Module, Value};
use crate::outline::strip;
use crate::rt::{OnQueue, Runtime};
use std::collections::{HashMap, HashSet};

/// Whether `d` was written at file scope (it sits in the rewriter's constructor).
pub fn at_file_scope(d: &Directive) -> bool {
    d.kind == DirectiveKind::Declare && d.function.name().starts_with(acc_directives::FILE_SCOPE_DECLARE)
}

/// A declare item: a data clause's kind, or None for `link`.
fn items<'a, 'ctx>(d: &'a Directive<'ctx>) -> impl Iterator<Item = (Option<DataKind>, &'a Var<'ctx>)> {
    d.clauses.iter().filter_map(|c| match c {
        Clause::Data(k, v) => Some((Some(*k), v)),
        Clause::Link(v) => Some((None, v)),
        _ => None,
    })
}

/// What a file-scope item registers with the runtime: `Ok(Some(kind))` for create (and
/// device_resident, read as create), `create(zero:)` and copyin, `Ok(None)` for link
/// (nothing), `Err` for a clause OpenACC does not allow there.
pub fn file_scope_registration(kind: Option<DataKind>) -> std::result::Result<Option<DataKind>, ()> {
    match kind {
        Some(k @ (DataKind::Create | DataKind::CreateZero | DataKind::CopyIn)) => Ok(Some(k)),
        None => Ok(None),
        Some(_) => Err(()),
    }
}

fn clause_name(kind: Option<DataKind>) -> &'static str {
    match kind {
        None => "link",
        Some(DataKind::Copy) => "copy",
        Some(DataKind::CopyIn) => "copyin",
        Some(DataKind::CopyOut) => "copyout",
        Some(DataKind::Create) => "create",
        Some(DataKind::CreateZero) => "create(zero:)",
        Some(DataKind::CopyOutZero) => "copyout(zero:)",
        Some(DataKind::Present) => "present",
        Some(DataKind::NoCreate) => "no_create",
        Some(DataKind::Delete) => "delete",
        Some(DataKind::DevicePtr) => "deviceptr",
    }
}

/// The items of every file-scope `declare`, checked, as the data clauses that hold around
/// every compute construct (`link` reads as `present`: its data must be mapped by then).
/// Their operands are constants, valid in any function.
pub fn file_scope_items<'ctx>(ds: &[Directive<'ctx>]) -> Result<Vec<(DataKind, Var<'ctx>)>> {
    let mut out = Vec::new();
    for d in ds.iter().filter(|d| at_file_scope(d)) {
        for (kind, v) in items(d) {
            if file_scope_registration(kind).is_err() {
                return Err(AccError::user(
                    &d.loc,
                    format!("'{}({})' in a file-scope 'declare': only create, copyin, device_resident and link are allowed there", clause_name(kind), v.text),
                ));
            }
            let constant = [v.lower, v.length, v.elem_size].iter().chain(v.rows.iter().flat_map(|r| [&r.lower, &r.length])).all(|x| x.const_int_value().is_some());
            if !strip(v.base).is_global_variable() || !constant {
                return Err(AccError::user(
                    &d.loc,
                    format!(
                        "'{}' in a file-scope 'declare' must be a global variable or a section of a global array with constant bounds (its address must be known before the program runs)",
                        v.text
                    ),
                ));
            }
            out.push((kind.unwrap_or(DataKind::Present), v.clone()));
        }
    }
    Ok(out)
}

/// The globals of file-scope `declare` directives.
pub fn declared_globals<'ctx>(items: &[(DataKind, Var<'ctx>)]) -> HashSet<Value<'ctx>> {
    items.iter().map(|(_, v)| strip(v.base)).collect()
}

/// The globals of file-scope `declare link` items: unlike the others, their device copy
/// changes with the data clauses that map them, so two kernels running at once (on two
/// async queues) may each have a different one (globals.rs, `bind_declared`).
pub fn linked_globals<'ctx>(ds: &[Directive<'ctx>]) -> HashSet<Value<'ctx>> {
    ds.iter().filter(|d| at_file_scope(d)).flat_map(|d| items(d).filter(|(k, _)| k.is_none()).map(|(_, v)| strip(v.base)).collect::<Vec<_>>()).collect()
}

/// Why a function-scope `declare` cannot be lowered where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misplaced {
    /// Its block is in a loop.
    InLoop,
    /// A return reachable from it does not pass it on every path (it is not dominated).
    NotOnEveryPath,
}

/// Where the data region of a `declare` in block `at` ends: the returns (`rets`, blocks
/// ending in `ret`) it dominates; an error when `at` is in a cycle or reaches a return it
/// does not dominate.
pub fn exits(g: &Graph, idom: &[Option<usize>], at: usize, rets: &[usize]) -> std::result::Result<Vec<usize>, Misplaced> {
    let mut seen = vec![false; g.succ.len()];
    let mut todo: Vec<usize> = g.succ[at].clone();
    while let Some(n) = todo.pop() {
        if n == at {
            return Err(Misplaced::InLoop);
        }
        if !std::mem::replace(&mut seen[n], true) {
            todo.extend(g.succ[n].iter().copied());
        }
    }
    let mut out = Vec::new();
    for &r in rets {
        if r == at || tree_dominates(idom, at, r) {
            out.push(r);
        } else if seen[r] {
            return Err(Misplaced::NotOnEveryPath);
        }
    }
    Ok(out)
}

/// The `ret` instructions where function-scope declare `d` ends, or its placement error.
fn returns_of<'ctx>(d: &Directive<'ctx>, cfg: &FunctionCfg<'ctx>) -> Result<Vec<Value<'ctx>>> {
    let rets: Vec<usize> = cfg
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.terminator().is_some_and(|t| t.opcode() == Some(llvm_sys::LLVMOpcode::LLVMRet)))
        .map(|(i, _)| i)
        .collect();
    match exits(&cfg.graph, &cfg.idom, cfg.index[&d.end.parent_block()], &rets) {
        Ok(r) => Ok(r.into_iter().map(|i| cfg.blocks[i].terminator().expect("a ret block")).collect()),
        Err(Misplaced::InLoop) => Err(AccError::user(
            &d.loc,
            "OpenACC 'declare' inside a loop: its data region lasts to the function's return, so it would be entered on every iteration; move it out of the loop",
        )),
        Err(Misplaced::NotOnEveryPath) => Err(AccError::user(
            &d.loc,
            "OpenACC 'declare' in a block that the function can return without finishing (inside an 'if'?): its data region lasts to every return; move it to the function's outermost block",
        )),
    }
}

/// Checks every function-scope declare's placement (before anything changes the IR, so
/// that errors come first).
pub fn check_placement<'ctx>(ds: &[Directive<'ctx>]) -> Result<()> {
    let mut cfgs: HashMap<Value, FunctionCfg> = HashMap::new();
    for d in ds.iter().filter(|d| d.kind == DirectiveKind::Declare && !at_file_scope(d)) {
        let cfg = cfgs.entry(d.function).or_insert_with(|| FunctionCfg::new(d.function));
        returns_of(d, cfg)?;
    }
    Ok(())
}

/// The items of the function-scope declares whose data region holds at compute construct
/// `d` (same function, the declare dominates it).
pub fn enclosing<'ctx>(d: &Directive<'ctx>, all: &[Directive<'ctx>], cfg: &FunctionCfg<'ctx>) -> Vec<(DataKind, Var<'ctx>)> {
    all.iter()
        .filter(|o| o.kind == DirectiveKind::Declare && o.function == d.function && !at_file_scope(o))
        .filter(|o| cfg.dominates_inst(o.end, d.begin))
        .flat_map(|o| items(o).map(|(k, v)| (k.unwrap_or(DataKind::Present), v.clone())).collect::<Vec<_>>())
        .collect()
}

/// Lowers every `declare` of the module.
pub fn lower<'ctx>(m: Module<'ctx>, ds: &[Directive<'ctx>]) -> Result<()> {
    let mut by_function: Vec<(Value, Vec<&Directive>)> = Vec::new();
    for d in ds.iter().filter(|d| d.kind == DirectiveKind::Declare) {
        if at_file_scope(d) {
            lower_file_scope(m, d);
            continue;
        }
        match by_function.iter_mut().find(|(f, _)| *f == d.function) {
            Some((_, v)) => v.push(d),
            None => by_function.push((d.function, vec![d])),
        }
    }
    for (f, declares) in by_function {
        lower_in_function(m, f, declares)?;
    }
    Ok(())
}

/// A function's declares: entries at each, exits at the returns, storage kept alive.
fn lower_in_function<'ctx>(m: Module<'ctx>, f: Value<'ctx>, mut declares: Vec<&Directive<'ctx>>) -> Result<()> {
    let ctx = m.context();
    let rt = Runtime::declare(m);
    let cfg = FunctionCfg::new(f);
    // Program order: a declare that dominates another comes first (by how many of the
    // function's declares dominate each).
    let before = |d: &Directive<'ctx>| declares.iter().filter(|o| o.id != d.id && cfg.dominates_inst(o.end, d.begin)).count();
    let mut keyed: Vec<(usize, &Directive)> = declares.iter().map(|d| (before(d), *d)).collect();
    keyed.sort_by_key(|(k, _)| *k);
    declares = keyed.into_iter().map(|(_, d)| d).collect();
    let mut exits_at: Vec<(Value, Vec<&Directive>)> = Vec::new();
    for d in &declares {
        let b = ctx.builder();
        b.position_before(d.end);
        let loc = b.global_string(&d.loc.to_string(), ".acc.loc");
        for (kind, v) in items(d) {
            if let Some(k) = kind {
                crate::data::call_item(&b, ctx, OnQueue(None), (rt.data_enter, rt.data_enter_async, rt.data_enter_rows), v, k as u64, loc);
            }
        }
        keep_storage(d, &cfg);
        for r in returns_of(d, &cfg)? {
            match exits_at.iter_mut().find(|(x, _)| *x == r) {
                Some((_, v)) => v.push(d),
                None => exits_at.push((r, vec![d])),
            }
        }
    }
    for (ret, ds) in exits_at {
        let b = ctx.builder();
        b.position_before(ret);
        for d in ds.iter().rev() {
            let loc = b.global_string(&d.loc.to_string(), ".acc.loc");
            let its: Vec<_> = items(d).collect();
            for (kind, v) in its.into_iter().rev() {
                if let Some(k) = kind {
                    crate::data::call_item(&b, ctx, OnQueue(None), (rt.data_exit, rt.data_exit_async, rt.data_exit_rows), v, k as u64, loc);
                }
            }
        }
    }
    Ok(())
}

/// Drops what would end a declared local's storage between the directive and a return: its
/// lifetime end, and for a variable-length array the stack restore of the scope that
/// allocated it (the return frees both).
fn keep_storage<'ctx>(d: &Directive<'ctx>, cfg: &FunctionCfg<'ctx>) {
    let after = |i: Value<'ctx>| cfg.dominates_inst(d.end, i);
    for (_, v) in items(d) {
        let s = strip(v.base);
        if !s.is_alloca() {
            continue;
        }
        for u in s.users() {
            if u.is_call() && u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime.end")) && after(u) {
                u.erase();
            }
        }
        if s.operand(0).const_int_value().is_some() {
            continue;
        }
        for b in &cfg.blocks {
            for i in b.instructions() {
                let restore = i.is_call() && i.called_name().is_some_and(|n| n.starts_with("llvm.stackrestore"));
                if !restore || !after(i) {
                    continue;
                }
                if stack_saves(i.call_arg(0)).iter().any(|save| cfg.dominates_inst(*save, s)) {
                    i.erase();
                }
            }
        }
    }
}

/// The `llvm.stacksave` calls whose result a stack restore's operand can be: the call
/// itself, or (Clang's memory form) the calls stored to the slot it was loaded from.
fn stack_saves<'ctx>(v: Value<'ctx>) -> Vec<Value<'ctx>> {
    let is_save = |x: Value<'ctx>| x.is_call() && x.called_name().is_some_and(|n| n.starts_with("llvm.stacksave"));
    if is_save(v) {
        return vec![v];
    }
    if v.opcode() != Some(llvm_sys::LLVMOpcode::LLVMLoad) || !v.operand(0).is_alloca() {
        return Vec::new();
    }
    let slot = v.operand(0);
    slot.users()
        .into_iter()
        .filter(|u| u.opcode() == Some(llvm_sys::LLVMOpcode::LLVMStore) && u.operand(1) == slot && is_save(u.operand(0)))
        .map(|u| u.operand(0))
        .collect()
}

/// A file-scope declare: its registrations, in its constructor.
fn lower_file_scope<'ctx>(m: Module<'ctx>, d: &Directive<'ctx>) {
    let ctx = m.context();
    let rt = Runtime::declare(m);
    let b = ctx.builder();
    b.position_before(d.end);
    let loc = b.global_string(&d.loc.to_string(), ".acc.loc");
    for (kind, v) in items(d) {
        let Ok(Some(k)) = file_scope_registration(kind) else { continue };
        let (addr, bytes) = crate::host_stub::section(&b, ctx, v);
        let init = match k {
            // Rows are uploaded from what the row pointers reach at the first use; the
            // global itself says "copy in" (null: `create(zero:)`).
            DataKind::CopyIn if !v.rows.is_empty() => addr,
            DataKind::CopyIn => initial_image(m, &b, ctx, v, addr),
            _ => ctx.ptr().const_null(),
        };
        // `create(zero:)` registers as a copyin of all zero bytes (a null image).
        let k = if k == DataKind::CreateZero { DataKind::CopyIn } else { k };
        let text = b.global_string(&v.text, ".acc.text");
        if v.rows.is_empty() {
            b.call(rt.declare, &[addr, bytes, init, ctx.i32().const_int(k as u64), loc, text], "");
            continue;
        }
        // Through pointer rows: the levels (constants, checked by `file_scope_items`) in a
        // table of their own; mapped from the row pointers the global holds at the first use.
        let i64t = ctx.i64();
        let fields: Vec<Value> = v
            .rows
            .iter()
            .flat_map(|r| [r.lower.const_int_value().unwrap_or(0) as u64, r.length.const_int_value().unwrap_or(0) as u64, r.elem_size])
            .map(|x| i64t.const_int(x))
            .collect();
        let levels = m.add_global(ctx.array_type(i64t, fields.len() as u64), ".acc.rows");
        levels.set_initializer(i64t.const_array(&fields));
        levels.set_global_constant(true);
        levels.set_linkage(Linkage::LLVMPrivateLinkage);
        let n = ctx.i32().const_int(v.rows.len() as u64);
        b.call(rt.declare_rows, &[addr, bytes, init, ctx.i32().const_int(k as u64), levels, n, loc, text], "");
    }
}

/// Where `copyin` of item `v` (at `addr`) takes its initial value: a private constant image
/// of the global's static initialiser, at the item's offset; null for all zeros; `addr`
/// itself for a global whose initialiser is not known here for certain.
fn initial_image<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, ctx: Context<'ctx>, v: &Var<'ctx>, addr: Value<'ctx>) -> Value<'ctx> {
    let g = strip(v.base);
    let definitive = matches!(g.linkage(), Linkage::LLVMExternalLinkage | Linkage::LLVMInternalLinkage | Linkage::LLVMPrivateLinkage);
    let Some(init) = g.initializer().filter(|_| definitive) else { return addr };
    if init.is_zero_constant() {
        return ctx.ptr().const_null();
    }
    let image = m.add_global(g.global_value_type(), &format!("{}.acc.init", g.name()));
    image.set_initializer(init);
    image.set_global_constant(true);
    image.set_linkage(Linkage::LLVMPrivateLinkage);
    image.set_unnamed_addr();
    let off = b.mul(v.lower, v.elem_size);
    b.gep_bytes(ctx, image, off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_scope_clauses() {
        assert_eq!(file_scope_registration(Some(DataKind::Create)), Ok(Some(DataKind::Create)));
        assert_eq!(file_scope_registration(Some(DataKind::CopyIn)), Ok(Some(DataKind::CopyIn)));
        assert_eq!(file_scope_registration(Some(DataKind::CreateZero)), Ok(Some(DataKind::CreateZero)));
        assert_eq!(file_scope_registration(None), Ok(None), "link registers nothing");
        for k in [DataKind::Copy, DataKind::CopyOut, DataKind::CopyOutZero, DataKind::Present, DataKind::DevicePtr] {
            assert_eq!(file_scope_registration(Some(k)), Err(()), "{k:?}");
        }
    }

    fn graph(succ: &[&[usize]]) -> (Graph, Vec<Option<usize>>) {
        let g = Graph { succ: succ.iter().map(|s| s.to_vec()).collect() };
        let idom = g.idoms();
        (g, idom)
    }

    #[test]
    fn exits_at_the_returns_it_dominates() {
        // 0 (early return test) -> {1 (ret), 2 (declare)} ; 2 -> 3 (ret)
        let (g, idom) = graph(&[&[1, 2], &[], &[3], &[]]);
        assert_eq!(exits(&g, &idom, 2, &[1, 3]), Ok(vec![3]), "the early return before it is not an exit");
        // The declare in the return block itself.
        assert_eq!(exits(&g, &idom, 3, &[1, 3]), Ok(vec![3]));
        // At the entry: every return.
        assert_eq!(exits(&g, &idom, 0, &[1, 3]), Ok(vec![1, 3]));
    }

    #[test]
    fn misplaced_declares() {
        // 0 -> 1 (loop header) -> {2 (body, declare), 3 (ret)}; 2 -> 1
        let (g, idom) = graph(&[&[1], &[2, 3], &[1], &[]]);
        assert_eq!(exits(&g, &idom, 2, &[3]), Err(Misplaced::InLoop));
        // 0 -> {1 (if: declare), 2}; 1 -> 2 (ret)
        let (g, idom) = graph(&[&[1, 2], &[2], &[]]);
        assert_eq!(exits(&g, &idom, 1, &[2]), Err(Misplaced::NotOnEveryPath));
        // 0 -> {1 (if: declare, returns), 2 (ret)}: fine, its own return.
        let (g, idom) = graph(&[&[1, 2], &[3], &[], &[]]);
        assert_eq!(exits(&g, &idom, 1, &[2, 3]), Ok(vec![3]));
    }
}
