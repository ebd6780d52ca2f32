//! Replaces each outlined region in its host function by the launch sequence.
//!
//! Expects: an `Outlined` region (its header block branches straight to its exit) and the
//! device build's `KernelPlan`; the module's embedded cubin global. Produces, in the header:
//! `check launch-size clauses; wait clauses; if (__accrt_use_device() && if-clause) { data
//! enter; translate pointers; attach; launch; detach; data exit } else { [async: wait for the queue;] call
//! the outlined function (host fallback) }`, calling only the host runtime ABI
//! (docs/runtime-abi.md). With `async(q)` the data calls and the launch are their `_async`
//! forms on `q`, so nothing waits for the kernel; the host fallback (an `if` that is false
//! on a device) runs once the queue's earlier work is done. A section through pointer rows
//! (`copy(p[0:n][0:m])`, `Var::rows`) enters and exits through the runtime's `_rows` entry
//! points ([`call_item_at`], also used by data.rs and declare.rs). Does not decide launch sizes
//! beyond the defaults and the gang-loop trip count; the runtime clamps them to what the
//! kernel can run.

use crate::capture::Passing;
use crate::contract::{Clause, DataKind, Var};
use crate::device::KernelPlan;
use crate::error::Result;
use crate::expr;
use crate::mapping::GangCount;
use crate::ir::{Builder, Context, IntPred, Module, Opcode, Value};
use crate::outline::{Capture, Outlined};
use crate::data::emit_waits;
use crate::rt::{OnQueue, Runtime};

/// Returns the name of the kernel's descriptor (image_job::install fills in the image).
pub fn build<'ctx>(m: Module<'ctx>, r: &Outlined<'ctx>, plan: &KernelPlan, image: Value<'ctx>, emulator_entry: Value<'ctx>) -> Result<String> {
    let ctx = m.context();
    let rt = Runtime::declare(m);
    let b = ctx.builder();
    let d = &r.directive;
    let loc = d.loc.to_string();
    r.header.terminator().expect("outline left a branch").erase();
    b.position_at_end(r.header);
    // The launch sequence stands for the directive: it gets the directive's line (and the
    // call to the outlined function, which has debug info, must have one).
    b.set_debug_loc_of(d.begin);
    let loc_s = b.global_string(&loc, ".acc.loc");

    // Values for the host fallback (also what grid sizing reads).
    let host_args: Vec<(usize, Value)> = r
        .captures
        .iter()
        .enumerate()
        .filter(|(_, c)| c.passing.is_parameter())
        .map(|(i, c)| (i, host_arg(&b, c)))
        .collect();

    // The user's launch sizes must be positive on either path (the host fallback ignores
    // them, the device path would take 0 for "default").
    // A combined construct's chunk size known at run time too (`gang(static: 0)`).
    let combined = matches!(d.kind, crate::contract::DirectiveKind::Compute { combined_loop: true, .. });
    for c in &d.clauses {
        let (clause, values) = match c {
            Clause::NumGangs(v) => (acc_directives::Clause::NumGangs, v.as_slice()),
            Clause::GangNum(v) => (acc_directives::Clause::NumGangs, std::slice::from_ref(v)),
            Clause::NumWorkers(v) => (acc_directives::Clause::NumWorkers, std::slice::from_ref(v)),
            Clause::VectorLength(v) => (acc_directives::Clause::VectorLength, std::slice::from_ref(v)),
            Clause::GangStatic(Some(v)) if combined && v.const_int_value().is_none() => (acc_directives::Clause::GangStatic, std::slice::from_ref(v)),
            _ => continue,
        };
        let name = b.global_string(clause.name(), ".acc.clause");
        for v in values {
            b.call(rt.check_launch_size, &[*v, name, loc_s], "");
        }
    }
    // Before either path: the construct's queue (the host, without `async`) waits.
    emit_waits(&b, ctx, &rt, d, loc_s);
    let q = OnQueue(d.async_queue());
    let use_dev = b.call(rt.use_device, &[], "acc.use_device");
    let mut on = b.icmp(IntPred::LLVMIntNE, use_dev, ctx.i32().const_int(0));
    // `if(c)` false or `self(c)` true: the host fallback.
    let cond = d.device_conditions();
    if !cond.is_empty() {
        on = b.and(on, crate::data::all_conditions(&b, ctx, &cond));
    }
    let f = r.header.parent();
    let dev_bb = ctx.append_block(f, "acc.launch");
    let host_bb = ctx.append_block(f, "acc.host");
    dev_bb.move_after(r.header);
    host_bb.move_after(dev_bb);
    b.cond_br(on, dev_bb, host_bb);

    // Host fallback: the region's own code, in the queue's order.
    b.position_at_end(host_bb);
    if let Some(queue) = q.0 {
        b.call(rt.host_wait, &[queue, loc_s], "");
    }
    let hv: Vec<Value> = host_args.iter().map(|(_, v)| *v).collect();
    let mut host_call = hv.clone();
    if r.scratch_param {
        // The reduction scratch: the host path has no gangs to combine.
        host_call.push(ctx.ptr().const_null());
    }
    let host_block = host_private_copies(m, &b, r, &mut host_call);
    b.call(r.func, &host_call, "");
    if let Some(block) = host_block {
        b.call(libc_fn(m, "free", ctx.void(), &[ctx.ptr()]), &[block], "");
    }
    b.br(r.exit);

    // Device: map, translate, launch, unmap.
    b.position_at_end(dev_bb);
    let own: Vec<(DataKind, &Var)> = d
        .clauses
        .iter()
        .filter_map(|c| if let Clause::Data(k, v) = c { Some((*k, v)) } else { None })
        .collect();
    // Each item's range and text are computed once and serve both its entry and its exit.
    let items: Vec<[Value; 4]> = own
        .iter()
        .map(|(k, v)| {
            let (addr, bytes) = section(&b, ctx, v);
            let text = b.global_string(&v.text, ".acc.text");
            [addr, bytes, ctx.i32().const_int(*k as u64), text]
        })
        .collect();
    // Implicit items (whole variables) enter before the clauses' items: a clause item can
    // be part of one (`reduction(+: s[q])` beside other uses of the array `s`), and a part
    // entering after its whole is simply present, where the whole after the part would be
    // "only partially present". Both are in before any capture is translated.
    let mut implicit_exits = Vec::new();
    for (i, hv) in &host_args {
        let c = &r.captures[*i];
        if let Passing::Implicit(kind) = c.passing {
            let text = b.global_string(&c.name, ".acc.name");
            let bytes = c.size.unwrap_or_else(|| ctx.i64().const_int(c.bytes));
            q.call(&b, rt.data_enter, rt.data_enter_async, &[*hv, bytes, ctx.i32().const_int(kind as u64), loc_s, text]);
            implicit_exits.push((*hv, bytes, kind, text));
        }
    }
    let inferred_starts = enter_inferred_copies(&b, ctx, &rt, q, r, plan, &host_args, loc_s, &mut implicit_exits);
    // A synchronous entry gives the item's device address (`entered`), which serves a
    // captured pointer that is the item's start without another lookup (`translate_at`).
    let mut entered: Vec<Option<Value>> = Vec::new();
    for ((_, v), item) in own.iter().zip(&items) {
        if q.0.is_none() && v.rows.is_empty() {
            let [addr, bytes, kind, text] = *item;
            entered.push(Some(b.call(rt.data_enter, &[addr, bytes, kind, loc_s, text], "acc.entered")));
        } else {
            call_item_at(&b, ctx, q, (rt.data_enter, rt.data_enter_async, rt.data_enter_rows), v, *item, loc_s);
            entered.push(None);
        }
    }
    let mut dev_args = Vec::new();
    for (i, hv) in &host_args {
        let c = &r.captures[*i];
        let inferred_start = inferred_starts.iter().find(|(k, _)| k == i).map(|(_, start)| *start);
        let v = match (c.passing, inferred_start) {
            (Passing::Value, _) => *hv,
            (Passing::FirstPrivate, _) if !hv.ty().is_ptr() => *hv,
            // An inferred copy made the target present, unless the kernel reaches nothing
            // through the pointer: then its host value is as good as any.
            (_, Some(start)) => {
                let text = b.global_string(&c.name, ".acc.name");
                b.call(rt.translate_no_create, &[*hv, start, loc_s, text], "")
            }
            _ => {
                let text = b.global_string(&c.name, ".acc.name");
                // The construct's own item that the pointer was named in, entered above.
                let own_entry = c.via.as_ref().filter(|(kind, _)| *kind != DataKind::DevicePtr).and_then(|(_, var)| {
                    let j = own.iter().position(|(_, v)| v.base == var.base && v.lower == var.lower && v.length == var.length)?;
                    Some((entered[j]?, items[j][0]))
                });
                match own_entry {
                    Some((dev, start)) => translate_at(&b, ctx, (dev, start), || translate(&b, ctx, &rt, c, *hv, loc_s, text), *hv),
                    None => translate(&b, ctx, &rt, c, *hv, loc_s, text),
                }
            }
        };
        dev_args.push(v);
    }
    // Pointers attached once every item (implicit ones included) is present.
    crate::data::emit_attachments(&b, ctx, &rt, d.clauses.iter(), true, 0, loc_s);
    // The runtime fills the scratch slot at launch (docs/runtime-abi.md).
    let scratch_arg = if r.scratch_param {
        dev_args.push(ctx.ptr().const_null());
        dev_args.len() as u64 - 1
    } else {
        0
    };
    // Private copies of run-time size: the runtime fills the area's slot (one more than its
    // index: 0 is none).
    let private_arg = if r.copies.is_empty() {
        0
    } else {
        let ranges = crate::private_copies::host_ranges(&b, ctx, &r.copies);
        let sources: Vec<Value> = r
            .copies
            .iter()
            .zip(&ranges)
            .filter(|(c, _)| c.initialised)
            .map(|(c, (addr, _, _))| {
                let text = b.global_string(&c.name, ".acc.name");
                b.call(rt.deviceptr, &[*addr, loc_s, text], "")
            })
            .collect();
        let (args, _) = crate::private_copies::stub_args(&b, ctx, &r.copies, &plan.private_levels, &plan.private_multiples, &ranges, &sources);
        let at = dev_args.len() as u64 + 1;
        dev_args.extend(args);
        at
    };
    let args = arg_array(&b, ctx, f, &dev_args);
    let (gangs, workers, vector) = launch_sizes(&b, ctx, d, plan, &hv);
    let arg_sizes: Vec<u64> = dev_args.iter().map(|v| v.ty().store_size(m)).collect();
    let desc = descriptor(m, ctx, plan, &d.function.name(), &loc, image, emulator_entry, [scratch_arg, private_arg], &arg_sizes);
    // One dimension unless a gang dimension beyond the first can be other than 1.
    match gangs {
        [x, y, z] if y.const_int_value() == Some(1) && z.const_int_value() == Some(1) => {
            q.call(&b, rt.launch, rt.launch_async, &[desc, x, workers, vector, args]);
        }
        [x, y, z] => {
            q.call(&b, rt.launch_grid, rt.launch_grid_async, &[desc, x, y, z, workers, vector, args]);
        }
    }
    crate::data::emit_attachments(&b, ctx, &rt, d.clauses.iter().rev(), false, 0, loc_s);
    // Exits in the reverse order of the entries (the parts before their wholes), copy-outs last.
    let kinds: Vec<DataKind> = own.iter().map(|(k, _)| *k).collect();
    for i in crate::contract::exit_order(&kinds) {
        call_item_at(&b, ctx, q, (rt.data_exit, rt.data_exit_async, rt.data_exit_rows), own[i].1, items[i], loc_s);
    }
    // Copy-outs last (contract::exit_order): two pointers into the same data (`in` read, `out`
    // written) exit on one range, and the exit that drops its last reference must copy out.
    let kinds: Vec<DataKind> = implicit_exits.iter().map(|e| e.2).collect();
    for i in crate::contract::exit_order(&kinds) {
        let (p, bytes, kind, text) = implicit_exits[i];
        q.call(&b, rt.data_exit, rt.data_exit_async, &[p, bytes, ctx.i32().const_int(kind as u64), loc_s, text]);
    }
    b.br(r.exit);
    Ok(desc.name())
}

/// The host path's private copies of run-time size: one malloc'ed block of them all (every
/// copy at the gang's level: one gang, one worker, one lane), their arguments appended to
/// `call`. Returns the block, to free after the call.
fn host_private_copies<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, r: &Outlined<'ctx>, call: &mut Vec<Value<'ctx>>) -> Option<Value<'ctx>> {
    if r.copies.is_empty() {
        return None;
    }
    let ctx = m.context();
    let ranges = crate::private_copies::host_ranges(b, ctx, &r.copies);
    let levels = vec![crate::private_copies::CopyLevel::Gang; r.copies.len()];
    // The host runs the region's loops as written: a reduction needs no copies there.
    let multiples: Vec<u64> = r.copies.iter().map(|c| u64::from(!matches!(c.source, crate::private_copies::Source::ReductionView(_)))).collect();
    let sources: Vec<Value> = r.copies.iter().zip(&ranges).filter(|(c, _)| c.initialised).map(|(_, (addr, _, _))| *addr).collect();
    let (mut args, total) = crate::private_copies::stub_args(b, ctx, &r.copies, &levels, &multiples, &ranges, &sources);
    // malloc(0) may return null, which the copies would then be based on.
    let bytes = b.binop(crate::ir::Opcode::LLVMOr, total, ctx.i64().const_int(1));
    let block = b.call(libc_fn(m, "malloc", ctx.ptr(), &[ctx.i64()]), &[bytes], "acc.private.host");
    args[0] = block;
    call.extend(args);
    Some(block)
}

/// A C library function, declared once.
fn libc_fn<'ctx>(m: Module<'ctx>, name: &str, ret: crate::ir::Type<'ctx>, params: &[crate::ir::Type<'ctx>]) -> Value<'ctx> {
    m.function(name).unwrap_or_else(|| m.get_or_add_function(name, m.context().fn_type(ret, params, false)))
}

fn host_arg<'ctx>(b: &Builder<'ctx>, c: &Capture<'ctx>) -> Value<'ctx> {
    match c.passing {
        Passing::FirstPrivate => {
            let ty = if c.value.is_alloca() { c.value.allocated_type() } else { c.value.global_value_type() };
            b.load(ty, c.value, &c.name)
        }
        _ => c.value,
    }
}

/// One clause item's runtime call: `f(addr, bytes, kind, loc, text)` (`f_async` with the
/// queue after them on an async queue) for a contiguous item; for a section through pointer
/// rows (`Var::rows`), `rows_f(addr, bytes, levels, nlevels, kind, loc, text, queue)` with the
/// levels' `lower, length, elem_size` in an array of the function's entry block and the queue
/// `acc_async_sync` without `async` (docs/runtime-abi.md). `addr`/`bytes`/`text` computed once
/// by the caller ([`section`]), so that an item's exit names the range its entry did.
#[allow(clippy::too_many_arguments)]
pub(crate) fn call_item_at<'ctx>(
    b: &Builder<'ctx>,
    ctx: Context<'ctx>,
    q: OnQueue<'ctx>,
    (f, f_async, rows_f): (Value<'ctx>, Value<'ctx>, Value<'ctx>),
    v: &Var<'ctx>,
    [addr, bytes, kind, text]: [Value<'ctx>; 4],
    loc: Value<'ctx>,
) {
    if v.rows.is_empty() {
        return q.call(b, f, f_async, &[addr, bytes, kind, loc, text]);
    }
    let i64t = ctx.i64();
    let function = b.insert_block().parent();
    let entry_b = ctx.builder();
    entry_b.position_before(function.entry_block().first_instruction().expect("entry is not empty"));
    let n = v.rows.len() as u64;
    let levels = entry_b.alloca(ctx.array_type(i64t, 3 * n), "acc.rows");
    for (i, r) in v.rows.iter().enumerate() {
        let fields = [b.sext_or_trunc(r.lower, i64t), b.sext_or_trunc(r.length, i64t), i64t.const_int(r.elem_size)];
        for (j, x) in fields.into_iter().enumerate() {
            let slot = b.gep(i64t, levels, &[i64t.const_int(3 * i as u64 + j as u64)], true);
            b.store(x, slot);
        }
    }
    let queue = q.0.unwrap_or_else(|| i64t.const_int(crate::contract::ASYNC_SYNC as u64));
    b.call(rows_f, &[addr, bytes, levels, ctx.i32().const_int(n), kind, loc, text, queue], "");
}

/// Start address and byte count of a clause item.
pub fn section<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, v: &Var<'ctx>) -> (Value<'ctx>, Value<'ctx>) {
    let off = b.mul(v.lower, v.elem_size);
    let addr = b.gep_bytes(ctx, v.base, off);
    let bytes = b.mul(v.length, v.elem_size);
    (addr, bytes)
}

/// The device address for host pointer `p`, decided at launch time by its current value
/// (`__accrt_translate`): a pointer reassigned on the host since its data clause was entered
/// (`t = u; u = v; v = t;`) reaches the device copy of what it points to now. Only when it
/// points into no present range is it placed relative to the data clause item it was named
/// in (so `y` works with `copy(y[5:10])`); without such an item, a plain present lookup.
/// An item of a `no_create` clause that is not present keeps its host address
/// (`__accrt_translate_no_create`).
fn translate<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, rt: &Runtime<'ctx>, c: &Capture<'ctx>, p: Value<'ctx>, loc: Value<'ctx>, text: Value<'ctx>) -> Value<'ctx> {
    match &c.via {
        Some((DataKind::DevicePtr, _)) => p,
        Some((kind, var)) if !var.base.is_null() => {
            let (start, _) = section(b, ctx, var);
            // no_create: data that is not present is used at its host address.
            let f = if *kind == DataKind::NoCreate { rt.translate_no_create } else { rt.translate };
            b.call(f, &[p, start, loc, text], "")
        }
        _ => b.call(rt.deviceptr, &[p, loc, text], ""),
    }
}

/// Device pointer `p`, where its data clause item starting at host address `start` was
/// entered with device address `dev`: `dev` when `p` is `start` and `dev` is not null (the
/// lookup `translate` makes would find the same entry: entries do not overlap), else
/// `translate()`'s. Saves a present-table lookup per pointer per launch (`present(x[0:n])`
/// around a short kernel: bench/launch.c).
fn translate_at<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, (dev, start): (Value<'ctx>, Value<'ctx>), translate: impl FnOnce() -> Value<'ctx>, p: Value<'ctx>) -> Value<'ctx> {
    let here = b.insert_block();
    let f = here.parent();
    let (slow, join) = (ctx.append_block(f, "acc.translate"), ctx.append_block(f, "acc.translated"));
    slow.move_after(here);
    join.move_after(slow);
    let null = ctx.ptr().const_null();
    let same = b.binop(Opcode::LLVMAnd, b.icmp(IntPred::LLVMIntEQ, p, start), b.icmp(IntPred::LLVMIntNE, dev, null));
    b.cond_br(same, join, slow);
    b.position_at_end(slow);
    let looked_up = translate();
    let from = b.insert_block();
    b.br(join);
    b.position_at_end(join);
    let v = b.phi(ctx.ptr(), "acc.dev");
    v.add_incoming(dev, here);
    v.add_incoming(looked_up, from);
    v
}

/// Pointers no clause covers whose targets the kernel reaches within bounds the host can
/// compute (implicit_bounds.rs): an implicit copy of those bytes (`copyin` when the kernel
/// only reads them), only counted when the data is present; nothing when the range is empty
/// or the pointer null. Pushes each exit to `exits` and returns, per such capture, the first
/// byte mapped: the pointer is translated relative to it, as it may point before the bytes
/// the kernel reaches (`out[i]` for `i >= 1`).
#[allow(clippy::too_many_arguments)]
fn enter_inferred_copies<'ctx>(
    b: &Builder<'ctx>,
    ctx: Context<'ctx>,
    rt: &Runtime<'ctx>,
    q: OnQueue<'ctx>,
    r: &Outlined<'ctx>,
    plan: &KernelPlan,
    host_args: &[(usize, Value<'ctx>)],
    loc: Value<'ctx>,
    exits: &mut Vec<(Value<'ctx>, Value<'ctx>, DataKind, Value<'ctx>)>,
) -> Vec<(usize, Value<'ctx>)> {
    let hv: Vec<Value> = host_args.iter().map(|(_, v)| *v).collect();
    let i64t = ctx.i64();
    let zero = i64t.const_int(0);
    let mut starts = Vec::new();
    for (capture, bounds) in &plan.inferred {
        let Some(j) = host_args.iter().position(|(i, _)| i == capture) else { continue };
        let (Some(lo), Some(hi)) = (expr::emit(&bounds.lo, b, ctx, &hv), expr::emit(&bounds.hi, b, ctx, &hv)) else { continue };
        let (lo, hi) = (b.sext_or_trunc(lo, i64t), b.sext_or_trunc(hi, i64t));
        let not_null = b.icmp(IntPred::LLVMIntNE, hv[j], ctx.ptr().const_null());
        let nonempty = b.and(b.icmp(IntPred::LLVMIntSGT, hi, lo), not_null);
        let bytes = b.select(nonempty, b.sub(hi, lo), zero);
        let addr = b.gep_bytes(ctx, hv[j], b.select(nonempty, lo, zero));
        let text = b.global_string(&r.captures[*capture].name, ".acc.name");
        let kind = if bounds.written { DataKind::Copy } else { DataKind::CopyIn };
        q.call(b, rt.data_enter, rt.data_enter_async, &[addr, bytes, ctx.i32().const_int(kind as u64), loc, text]);
        exits.push((addr, bytes, kind, text));
        starts.push((*capture, addr));
    }
    starts
}

/// `void *args[] = { &a0, &a1, ... }` with the slots in the function's entry block.
fn arg_array<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, f: Value<'ctx>, vals: &[Value<'ctx>]) -> Value<'ctx> {
    let entry_b = ctx.builder();
    let entry = f.entry_block();
    entry_b.position_before(entry.first_instruction().expect("entry is not empty"));
    let n = vals.len().max(1) as u64;
    let arr = entry_b.alloca(ctx.array_type(ctx.ptr(), n), "acc.args");
    for (i, v) in vals.iter().enumerate() {
        let slot = entry_b.alloca(v.ty(), "acc.arg");
        b.store(*v, slot);
        let p = b.gep(ctx.ptr(), arr, &[ctx.i64().const_int(i as u64)], true);
        b.store(slot, p);
    }
    arr
}

/// The grid's gang counts (dimensions 1 to 3), workers and vector length of the launch.
fn launch_sizes<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, d: &crate::contract::Directive<'ctx>, plan: &KernelPlan, host_vals: &[Value<'ctx>]) -> ([Value<'ctx>; 3], Value<'ctx>, Value<'ctx>) {
    let i64t = ctx.i64();
    let clause = |f: &dyn Fn(&Clause<'ctx>) -> Option<Value<'ctx>>| d.clauses.iter().find_map(f);
    let workers = clause(&|c| if let Clause::NumWorkers(v) = c { Some(*v) } else { None })
        .unwrap_or_else(|| i64t.const_int(plan.shape.num_workers as u64));
    let vector = clause(&|c| if let Clause::VectorLength(v) = c { Some(*v) } else { None })
        .unwrap_or_else(|| i64t.const_int(plan.shape.vector_length as u64));
    let compute = match d.kind {
        crate::contract::DirectiveKind::Compute { kind, .. } => kind,
        _ => crate::contract::ComputeKind::Parallel,
    };
    // `gang(num: n)` of the loop a kernels part runs (kernels.rs) beats the construct's num_gangs.
    let num_gangs: Vec<Value<'ctx>> = clause(&|c| if let Clause::GangNum(v) = c { Some(*v) } else { None })
        .map(|v| vec![v])
        .or_else(|| d.clauses.iter().find_map(|c| if let Clause::NumGangs(v) = c { Some(v.clone()) } else { None }))
        .unwrap_or_default();
    // One gang runs a serial region, and any region without a gang loop or num_gangs: in
    // `kernels` its code outside loops must run once; in `parallel` more gangs would only
    // repeat the same work (and a reduction on the construct would count it once per gang).
    let shape = crate::mapping::grid_shape(compute.is_sequential(), num_gangs.len(), &plan.gang_dims);
    // A dimension a row reduction keeps to one gang (reduction.rs) has one.
    let mut shape = shape;
    for (d, count) in shape.iter_mut().enumerate() {
        if plan.single_gang_dims & (1 << d) != 0 {
            *count = GangCount::One;
        }
    }
    let gangs = shape.map(|count| match count {
        GangCount::One => i64t.const_int(1),
        GangCount::Clause(i) => num_gangs[i],
        GangCount::Trip => i64t.const_int(0),
    });
    let mut gangs = gangs;
    for (d, count) in shape.iter().enumerate() {
        if *count != GangCount::Trip {
            continue;
        }
        // The gangs the loop's iterations fill, its workers and lanes taking one each per
        // round; the runtime's default when the host cannot compute the trip count.
        if let Some(g) = plan.gang_trips[d].as_ref().and_then(|g| {
            let trip = expr::emit(&g.trip, b, ctx, host_vals)?;
            let trip = b.sext_or_trunc(trip, i64t);
            let mut per = i64t.const_int(g.per_thread);
            if g.levels.worker {
                per = b.mul(per, workers);
            }
            if g.levels.vector {
                per = b.mul(per, vector);
            }
            let one = i64t.const_int(1);
            let per = b.select(b.icmp(IntPred::LLVMIntSGT, per, one), per, one);
            let g = b.sdiv(b.sub(b.add(trip, per), one), per);
            Some(b.select(b.icmp(IntPred::LLVMIntSGT, g, one), g, one))
        }) {
            gangs[d] = g;
        }
    }
    (gangs, workers, vector)
}

/// `accrt_kernel` descriptor: { image, size, name, function, loc, cache, emulator entry,
/// flags, reduce_vars, scratch_arg, private_arg, num_args, arg_sizes }
/// (runtime/include/accrt.h). `image` is image_job's placeholder and the size 0 until
/// image_job::install. `arg_sizes`: the bytes of each argument slot, which the emulator
/// copies to hold an async launch until its queue runs it (runtime/src/emu_queue.rs).
#[allow(clippy::too_many_arguments)]
fn descriptor<'ctx>(m: Module<'ctx>, ctx: Context<'ctx>, plan: &KernelPlan, function: &str, loc: &str, image: Value<'ctx>, emulator_entry: Value<'ctx>, [scratch_arg, private_arg]: [u64; 2], arg_sizes: &[u64]) -> Value<'ctx> {
    let name = plan.name.as_str();
    let ptr = ctx.ptr();
    let ty = ctx.struct_type(&[ptr, ctx.i64(), ptr, ptr, ptr, ptr, ptr, ctx.i64(), ctx.i64(), ctx.i64(), ctx.i64(), ctx.i64(), ptr]);
    let s = |text: &str, gname: &str| {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        let c = ctx.const_bytes(&bytes);
        let g = m.add_global(c.ty(), gname);
        g.set_initializer(c);
        g.set_global_constant(true);
        g.set_linkage(llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
        g.set_unnamed_addr();
        g
    };
    let init = ctx.const_struct(&[
        image,
        ctx.i64().const_int(0),
        s(name, ".acc.kname"),
        s(function, ".acc.fname"),
        s(loc, ".acc.kloc"),
        ptr.const_null(),
        emulator_entry,
        ctx.i64().const_int(plan.flags()),
        ctx.i64().const_int(plan.reduce_vars),
        ctx.i64().const_int(scratch_arg),
        ctx.i64().const_int(private_arg),
        ctx.i64().const_int(arg_sizes.len() as u64),
        sizes_table(m, ctx, name, arg_sizes),
    ]);
    let g = m.add_global(ty, &format!("__acc_kernel.{name}"));
    g.set_initializer(init);
    g.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
    g
}

/// The `u32` bytes of each argument slot, as a private constant (an empty one for a kernel
/// without arguments: null means "not given" to the runtime).
fn sizes_table<'ctx>(m: Module<'ctx>, ctx: Context<'ctx>, name: &str, arg_sizes: &[u64]) -> Value<'ctx> {
    let i32t = ctx.i32();
    let vals: Vec<Value> = arg_sizes.iter().map(|&n| i32t.const_int(n)).collect();
    let c = i32t.const_array(&vals);
    let g = m.add_global(c.ty(), &format!("__acc_kernel.{name}.arg_sizes"));
    g.set_initializer(c);
    g.set_global_constant(true);
    g.set_linkage(llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
    g
}

/// Embeds the device image (image.rs: cubins and PTX) as a private constant.
pub fn embed_image<'ctx>(m: Module<'ctx>, cubin: &[u8]) -> Value<'ctx> {
    let ctx = m.context();
    let c = ctx.const_bytes(cubin);
    let g = m.add_global(c.ty(), "__acc_image");
    g.set_initializer(c);
    g.set_global_constant(true);
    g.set_linkage(llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
    g.set_alignment(16);
    g
}
