//! Lowers the data directives in host code: `data` regions, `enter data`, `exit data` and
//! `update`.
//!
//! Expects: verified directives (contract.rs) outside compute regions. Produces calls to the
//! host runtime at the directive: data-clause entries after the header and exits (in reverse
//! order) at the region end; under an `if` clause both are skipped when it is false. A data
//! region's items count on the structured reference counter; `enter data`/`exit data`
//! items carry `rt::DYNAMIC` (and `rt::FINALIZE` with `finalize`) in their kind; `update`
//! passes `rt::IF_PRESENT` with `if_present`. The runtime makes all of them no-ops when
//! compute regions run on the host.

use crate::contract::{Clause, Directive, DirectiveKind, Var};
use crate::error::Result;
use crate::host_stub::section;
use crate::ir::{Builder, Context, IntPred, Module, Value};
use crate::rt::{self, Runtime};

pub fn lower<'ctx>(m: Module<'ctx>, d: &Directive<'ctx>) -> Result<()> {
    let ctx = m.context();
    let rt = Runtime::declare(m);
    let flags = directive_flags(d);
    let cond = d.clauses.iter().find_map(|c| if let Clause::If(v) = c { Some(*v) } else { None });
    let loc = d.loc.to_string();
    let at_begin = d.last_header_call().next_instruction().expect("a marker is never a terminator");
    emit_guarded(ctx, at_begin, cond, |b| {
        let loc_s = b.global_string(&loc, ".acc.loc");
        for c in &d.clauses {
            match (d.kind, c) {
                (DirectiveKind::Data | DirectiveKind::EnterData, Clause::Data(k, v)) => call_item(b, ctx, rt.data_enter, v, *k as u64 | flags, loc_s),
                (DirectiveKind::ExitData, Clause::Data(k, v)) => call_item(b, ctx, rt.data_exit, v, *k as u64 | flags, loc_s),
                (DirectiveKind::Update, Clause::Update { to_device, var }) => {
                    let f = if *to_device { rt.update_device } else { rt.update_self };
                    call_item(b, ctx, f, var, flags, loc_s)
                }
                _ => {}
            }
        }
    });
    if d.kind == DirectiveKind::Data {
        emit_guarded(ctx, d.end, cond, |b| {
            let loc_s = b.global_string(&loc, ".acc.loc");
            for c in d.clauses.iter().rev() {
                if let Clause::Data(k, v) = c {
                    call_item(b, ctx, rt.data_exit, v, *k as u64, loc_s);
                }
            }
        });
    }
    Ok(())
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

/// `f(addr, bytes, kind_or_flags, loc, text)` for one clause item.
pub(crate) fn call_item<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, f: Value<'ctx>, v: &Var<'ctx>, kind: u64, loc: Value<'ctx>) {
    let (addr, bytes) = section(b, ctx, v);
    let text = b.global_string(&v.text, ".acc.text");
    b.call(f, &[addr, bytes, ctx.i32().const_int(kind), loc, text], "");
}

/// Emits `body` before `at`, under `if (cond != 0)` when there is a condition.
pub(crate) fn emit_guarded<'ctx>(ctx: Context<'ctx>, at: Value<'ctx>, cond: Option<Value<'ctx>>, body: impl FnOnce(&Builder<'ctx>)) {
    let b = ctx.builder();
    match cond {
        None => {
            b.position_before(at);
            body(&b);
        }
        Some(c) => {
            let blk = at.parent_block();
            let rest = blk.split_before(ctx, at, "acc.data.cont");
            let then = ctx.append_block(blk.parent(), "acc.data.if");
            then.move_after(blk);
            blk.terminator().expect("split adds a branch").erase();
            b.position_at_end(blk);
            let on = b.icmp(IntPred::LLVMIntNE, c, ctx.i64().const_int(0));
            b.cond_br(on, then, rest);
            b.position_at_end(then);
            body(&b);
            b.br(rest);
        }
    }
}
