//! Lowers the directives that stay in host code: `data` regions, `enter data`, `exit data`,
//! `update`, `wait`, and the device management directives `init`, `shutdown` and `set`.
//!
//! Expects: verified directives (contract.rs) outside compute regions. Produces calls to the
//! host runtime at the directive: first the waits of its `wait` clauses ([`emit_waits`]),
//! then data-clause entries after the header and exits (in reverse order) at the region end;
//! under an `if` clause all are skipped when it is false. A data region's items count on the
//! structured reference counter; `enter data`/`exit data` items carry `rt::DYNAMIC` (and
//! `rt::FINALIZE` with `finalize`) in their kind; `update` passes `rt::IF_PRESENT` with
//! `if_present`. A section through pointer rows (`p[0:n][0:m]` of `double **p`) is one call
//! of the `_rows` form, which maps, attaches and updates row by row in the runtime.
//! `attach` items (explicit, or the attach actions the rewriter writes after
//! items based on a struct member or an element) are attached after every entry and
//! detached before every exit (`exit data`'s `detach` items too, with `finalize`). With an
//! `async` clause every call is the `_async` form with the argument as
//! written (a data region's exits too), so the copies go on that queue. The `wait`
//! directive is only its waits. `init`/`shutdown`/`set` are one `__accrt_device_directive`
//! call per device type named (one without a `device_type` clause). The runtime makes the data calls no-ops when compute regions
//! run on the host (and checks the queue arguments there too).

use crate::contract::{exit_order, Clause, DataKind, Directive, DirectiveKind, Var, ASYNC_SYNC};
use crate::error::Result;
use crate::host_stub::{call_item_at, section};
use crate::ir::{Builder, Context, IntPred, Module, Value};
use crate::rt::{self, OnQueue, Runtime};

pub fn lower<'ctx>(m: Module<'ctx>, d: &Directive<'ctx>) -> Result<()> {
    let ctx = m.context();
    let rt = Runtime::declare(m);
    let flags = directive_flags(d);
    let cond = d.device_conditions();
    let loc = d.loc.to_string();
    let q = OnQueue(d.async_queue());
    let at_begin = d.last_header_call().next_instruction().expect("a marker is never a terminator");
    emit_guarded(ctx, at_begin, &cond, |b| {
        let loc_s = b.global_string(&loc, ".acc.loc");
        emit_waits(b, ctx, &rt, d, loc_s);
        // Detach actions before any exit, attach actions once every item is present.
        let exiting = d.kind == DirectiveKind::ExitData;
        if exiting {
            emit_attachments(b, ctx, &rt, d.clauses.iter(), false, flags, loc_s);
        }
        for c in &d.clauses {
            match (d.kind, c) {
                (DirectiveKind::Data | DirectiveKind::EnterData, Clause::Data(k, v)) => {
                    call_item(b, ctx, q, (rt.data_enter, rt.data_enter_async, rt.data_enter_rows), v, *k as u64 | flags, loc_s)
                }
                (DirectiveKind::ExitData, Clause::Data(k, v)) => {
                    call_item(b, ctx, q, (rt.data_exit, rt.data_exit_async, rt.data_exit_rows), v, *k as u64 | flags, loc_s)
                }
                (DirectiveKind::Update, Clause::Update { to_device, var }) => {
                    let f = if *to_device {
                        (rt.update_device, rt.update_device_async, rt.update_device_rows)
                    } else {
                        (rt.update_self, rt.update_self_async, rt.update_self_rows)
                    };
                    call_item(b, ctx, q, f, var, flags, loc_s)
                }
                _ => {}
            }
        }
        if !exiting {
            emit_attachments(b, ctx, &rt, d.clauses.iter(), true, flags, loc_s);
        }
        if let Some(which) = device_directive(d.kind) {
            emit_device_directive(b, ctx, &rt, d, which, loc_s);
        }
    });
    if d.kind == DirectiveKind::Data {
        emit_guarded(ctx, d.end, &cond, |b| {
            let loc_s = b.global_string(&loc, ".acc.loc");
            emit_attachments(b, ctx, &rt, d.clauses.iter().rev(), false, 0, loc_s);
            let items: Vec<(DataKind, &Var)> = d.clauses.iter().filter_map(|c| if let Clause::Data(k, v) = c { Some((*k, v)) } else { None }).collect();
            let kinds: Vec<DataKind> = items.iter().map(|(k, _)| *k).collect();
            for i in exit_order(&kinds) {
                let (k, v) = items[i];
                call_item(b, ctx, q, (rt.data_exit, rt.data_exit_async, rt.data_exit_rows), v, k as u64, loc_s);
            }
        });
    }
    Ok(())
}

/// The attach actions (`attaching`) or the detach actions of `clauses`: `__accrt_attach` per
/// `attach` item, or `__accrt_detach` per `detach` item and, at a data region's end, per
/// `attach` item (`clauses` then in reverse). They write the device copy of a pointer
/// synchronously, also on an async directive (docs/runtime-abi.md). `flags`: a directive's;
/// only `rt::FINALIZE` reaches the runtime.
pub(crate) fn emit_attachments<'a, 'ctx: 'a>(
    b: &Builder<'ctx>,
    ctx: Context<'ctx>,
    rt: &Runtime<'ctx>,
    clauses: impl Iterator<Item = &'a Clause<'ctx>>,
    attaching: bool,
    flags: u64,
    loc: Value<'ctx>,
) {
    let flags = ctx.i32().const_int(flags & rt::FINALIZE);
    for c in clauses {
        let (f, v) = match c {
            Clause::Attach(v) if attaching => (rt.attach, v),
            Clause::Attach(v) | Clause::Detach(v) if !attaching => (rt.detach, v),
            _ => continue,
        };
        let (addr, _) = section(b, ctx, v);
        let text = b.global_string(&v.text, ".acc.text");
        b.call(f, &[addr, flags, loc, text], "");
    }
}

/// The waits directive `d` does before anything else: per `wait` clause, its queues (an
/// empty list: every queue) are waited for by `d`'s queue (its `async` argument; without
/// one, the host: `acc_async_sync`). A `wait` directive without a list waits for every
/// queue.
pub fn emit_waits<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, rt: &Runtime<'ctx>, d: &Directive<'ctx>, loc: Value<'ctx>) {
    let on = d.async_queue().unwrap_or_else(|| ctx.i64().const_int(ASYNC_SYNC as u64));
    let mut lists = d.waits().peekable();
    if d.kind == DirectiveKind::Wait && lists.peek().is_none() {
        b.call(rt.wait_all, &[on, loc], "");
    }
    for (device, list) in lists {
        if list.is_empty() {
            b.call(rt.wait_all, &[on, loc], "");
        }
        for queue in list {
            match device {
                Some(dev) => b.call(rt.wait_device, &[dev, *queue, on, loc], ""),
                None => b.call(rt.wait, &[*queue, on, loc], ""),
            };
        }
    }
}

/// `__accrt_device_directive`'s `directive` argument for `init`, `shutdown` and `set`.
fn device_directive(kind: DirectiveKind) -> Option<u64> {
    match kind {
        DirectiveKind::Init => Some(rt::DEVICE_INIT),
        DirectiveKind::Shutdown => Some(rt::DEVICE_SHUTDOWN),
        DirectiveKind::Set => Some(rt::DEVICE_SET),
        _ => None,
    }
}

/// One `__accrt_device_directive` call per device type `d` names (the current type without
/// a `device_type` clause), with its `device_num` and `default_async`.
fn emit_device_directive<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, rt: &Runtime<'ctx>, d: &Directive<'ctx>, which: u64, loc: Value<'ctx>) {
    let (i32t, i64t) = (ctx.i32(), ctx.i64());
    let mut given = 0;
    let mut num = i64t.const_int(0);
    let mut queue = i64t.const_int(0);
    let mut types = vec![rt::DEVICE_TYPE_CURRENT];
    for c in &d.clauses {
        match c {
            Clause::DeviceNum(v) => (num, given) = (*v, given | rt::GIVEN_DEVICE_NUM),
            Clause::DefaultAsync(v) => (queue, given) = (*v, given | rt::GIVEN_DEFAULT_ASYNC),
            Clause::DeviceType(ts) => types = ts.iter().map(|t| i64::from(*t)).collect(),
            _ => {}
        }
    }
    for t in types {
        let args = [i32t.const_int(which), i32t.const_int(t as u64), num, queue, i32t.const_int(given), loc];
        b.call(rt.device_directive, &args, "");
    }
}

/// The flag bits a directive adds to each of its items' `kind` (data clauses) or `flags`
/// (update) argument: `enter data`/`exit data` count on the dynamic reference counter.
fn directive_flags(d: &Directive) -> u64 {
    let mut flags = 0;
    if matches!(d.kind, DirectiveKind::EnterData | DirectiveKind::ExitData) {
        flags |= rt::DYNAMIC;
    }
    if d.has(|c| matches!(c, Clause::Finalize)) {
        flags |= rt::FINALIZE;
    }
    if d.has(|c| matches!(c, Clause::IfPresent)) {
        flags |= rt::IF_PRESENT;
    }
    flags
}

/// `f(addr, bytes, kind_or_flags, loc, text)` for one clause item (`f_async` with the queue
/// after them on an async queue; `rows_f` for a section through pointer rows:
/// `host_stub::call_item_at`).
pub(crate) fn call_item<'ctx>(
    b: &Builder<'ctx>,
    ctx: Context<'ctx>,
    q: OnQueue<'ctx>,
    fs: (Value<'ctx>, Value<'ctx>, Value<'ctx>),
    v: &Var<'ctx>,
    kind: u64,
    loc: Value<'ctx>,
) {
    let (addr, bytes) = section(b, ctx, v);
    let text = b.global_string(&v.text, ".acc.text");
    call_item_at(b, ctx, q, fs, v, [addr, bytes, ctx.i32().const_int(kind), text], loc);
}

/// Emits `body` before `at`, under the directive's conditions (`Directive::device_conditions`:
/// each `(c != 0) == want`) when there are any.
pub(crate) fn emit_guarded<'ctx>(ctx: Context<'ctx>, at: Value<'ctx>, cond: &[(Value<'ctx>, bool)], body: impl FnOnce(&Builder<'ctx>)) {
    let b = ctx.builder();
    match cond {
        [] => {
            b.position_before(at);
            body(&b);
        }
        _ => {
            let blk = at.parent_block();
            let rest = blk.split_before(ctx, at, "acc.data.cont");
            let then = ctx.append_block(blk.parent(), "acc.data.if");
            then.move_after(blk);
            blk.terminator().expect("split adds a branch").erase();
            b.position_at_end(blk);
            let on = all_conditions(&b, ctx, cond);
            b.cond_br(on, then, rest);
            b.position_at_end(then);
            body(&b);
            b.br(rest);
        }
    }
}

/// The `i1` that is true when every condition `(c != 0) == want` holds (`cond` not empty).
pub(crate) fn all_conditions<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, cond: &[(Value<'ctx>, bool)]) -> Value<'ctx> {
    let zero = ctx.i64().const_int(0);
    let one = |(c, want): &(Value<'ctx>, bool)| b.icmp(if *want { IntPred::LLVMIntNE } else { IntPred::LLVMIntEQ }, *c, zero);
    cond[1..].iter().fold(one(&cond[0]), |on, c| b.and(on, one(c)))
}
