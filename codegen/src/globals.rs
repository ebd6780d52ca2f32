//! Host globals in device code: points the device code that reaches a declared global
//! through a called function at its device copy, and rejects the globals device code would
//! reach without the data environment.
//!
//! Expects: the device module right after it was cloned from the host module, retargeted
//! and stripped to what the kernels use (`globaldce`), before the device runtime and
//! libdevice are linked. A global that a compute region uses directly was captured when the
//! region was outlined (outline.rs) and reaches the kernel as a parameter mapped through
//! the present table (implicitly `copy`, OpenACC 3.3 §2.6.2, or found present when a
//! file-scope `declare` names it). Any writable global still referenced here was reached
//! another way: from a function the region calls (`int g; int f(int i) { return i * g; }`),
//! a `static` variable of such a function, or a constant table holding its address.
//!
//! A global of a file-scope `declare` reached from a called function was captured too (its
//! device address is a kernel parameter, outline.rs): [`redirect_declared`] gives it a slot
//! `<g>.acc.dev` (a device global holding a pointer) and makes every use of the global in
//! device code load the slot; after the kernels are planned, [`bind_declared`] makes each
//! kernel that captured the global store its parameter there first thing (every thread
//! stores the same address, then reads its own store). One slot serves every kernel: a
//! global of `declare create/copyin/device_resident` has one device copy for the whole
//! program, but a `declare link` global has the copy of whichever data clause maps it, and
//! two kernels on different async queues, running at once, could each have their own and
//! would then use each other's. So a kernel that sets a `link` global's slot is flagged
//! (`FLAG_LINK_SLOT`: the runtime waits for it at its launch; the slot is one per global).
//!
//! A declared global whose address sits in another global's initialiser (a table of
//! addresses) gets its entries filled at each kernel's start ([`patch_tables`]).
//!
//! Any other writable global would give the device its own copy of the static initialiser,
//! never synchronised with the host variable (LLVM even folds it as a constant): a silently
//! wrong result, so [`check`] makes it a located error, as is a constant defined in another
//! file (no value to copy). Constant globals defined here (string literals, `const` tables)
//! are fine.

use crate::error::{AccError, Result};
use crate::ir::{Block, Module, Value};
use crate::outline::Outlined;
use llvm_sys::LLVMLinkage;
use std::collections::HashSet;

/// Whether a global left in the device module needs the data environment it does not get:
/// it is writable, or defined in another file (`extern const int t[];`: the device has no
/// value for it), and not one of LLVM's own (`llvm.*`).
pub fn needs_declare(name: &str, constant: bool, defined: bool) -> bool {
    (!constant || !defined) && !name.starts_with("llvm.")
}

/// The C name of a global: a function's `static` variable is `fn.var` in the IR.
pub fn c_name(ir_name: &str) -> String {
    match ir_name.split_once('.') {
        Some((f, v)) if !f.is_empty() && !v.is_empty() && !v.contains('.') => format!("'{v}' (a static variable of '{f}')"),
        _ => format!("'{ir_name}'"),
    }
}

/// The slot of declared global `name` in the device module.
fn slot_name(name: &str) -> String {
    format!("{name}.acc.dev")
}

/// The slot of declared global `name` (a device global holding its device address), made
/// when it is first needed.
fn slot_of<'ctx>(dev: Module<'ctx>, name: &str) -> Value<'ctx> {
    dev.global(&slot_name(name)).unwrap_or_else(|| {
        let ctx = dev.context();
        let slot = dev.add_global(ctx.ptr(), &slot_name(name));
        slot.set_initializer(ctx.ptr().const_null());
        slot.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        slot
    })
}

/// Errors (at the first region that reaches it) for the first global that needs `declare`.
/// `declared`: the globals of file-scope declares (their uses left here are in initialisers).
pub fn check<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], regions: &[Outlined<'ctx>], declared: &[String]) -> Result<()> {
    for g in dev.globals() {
        let own_slot = declared.iter().any(|d| slot_name(d) == g.name());
        // (A table of addresses `patch_tables` fills is writable only for its fill.)
        let filled_table = dev.function(&format!("{TABLE_FILL_PREFIX}{}", g.name())).is_some();
        if own_slot || filled_table || !needs_declare(&g.name(), g.is_global_constant(), g.has_initializer()) {
            continue;
        }
        let users = user_functions(g);
        if users.is_empty() {
            continue;
        }
        let loc = kernels
            .iter()
            .zip(regions)
            .find(|(k, _)| reachable(**k).iter().any(|f| users.contains(f)))
            .map(|(_, r)| r.directive.loc.clone())
            .unwrap_or_default();
        if declared.contains(&g.name()) {
            // `patch_tables` filled every table but a declared one, whose device copy is the
            // runtime's, holding the host's bytes.
            return Err(AccError::user(
                &loc,
                format!(
                    "the address of the declared global {} sits in the initialiser of a table that a 'declare' also names: that table's device copy starts as the host's bytes, so the device would read the host's address; leave the table out of the 'declare' (accc then fills the device's table with device addresses) or attach its pointers (acc_attach)",
                    c_name(&g.name())
                ),
            ));
        }
        return Err(AccError::user(
            &loc,
            format!(
                "global variable {} is used in a compute region through a called function (or a table of addresses) \
                 and has no device copy: give it one with a file-scope '#pragma acc declare create(...)' (or copyin), \
                 or pass it through a local pointer or array with a data clause",
                c_name(&g.name())
            ),
        ));
    }
    Ok(())
}

/// The declared globals (of `declared`) that functions called from `blocks` use, directly
/// or through the functions they call, in name order: a compute region made of `blocks`
/// passes their device addresses to its kernel.
pub fn used_by_callees<'ctx>(blocks: &[Block<'ctx>], declared: &HashSet<Value<'ctx>>) -> Vec<Value<'ctx>> {
    let mut called = HashSet::new();
    for b in blocks {
        for i in b.instructions() {
            if let Some(c) = i.is_call().then(|| i.called_function()).flatten() {
                if !c.is_declaration() && !called.contains(&c) {
                    called.extend(reachable(c));
                }
            }
        }
    }
    let mut out: Vec<Value> = declared.iter().copied().filter(|g| user_functions(*g).iter().any(|f| called.contains(f))).collect();
    out.sort_by_key(|g| g.name());
    out
}

/// Makes device code load declared globals' device addresses from their slots (module
/// doc): each global of `declared` that device code uses gets a slot, and every instruction
/// that used the global uses a load of the slot (constant expressions around it become
/// instructions first).
pub fn redirect_declared<'ctx>(dev: Module<'ctx>, declared: &[String]) {
    let ctx = dev.context();
    let used: Vec<(&String, Value)> = declared
        .iter()
        .filter_map(|name| dev.global(name).map(|g| (name, g)))
        .filter(|(_, g)| !instruction_users(*g).is_empty())
        .collect();
    if used.is_empty() {
        return;
    }
    for f in dev.functions().into_iter().filter(|f| !f.is_declaration()) {
        crate::outline::expand_global_const_exprs(&f.blocks());
    }
    for (name, g) in used {
        let slot = slot_of(dev, name);
        let b = ctx.builder();
        for u in g.users().into_iter().filter(|u| u.is_instruction()) {
            for k in 0..u.num_operands() {
                if u.operand(k) != g {
                    continue;
                }
                let at = if u.is_phi() { u.incoming()[k as usize].1.terminator().expect("verified IR has terminators") } else { u };
                b.position_before(at);
                let dev_addr = b.load(ctx.ptr(), slot, &format!("{name}.device"));
                u.set_operand(k, dev_addr);
            }
        }
    }
}

/// The prefix of the functions that fill a table's device copy (`patch_tables`).
const TABLE_FILL_PREFIX: &str = "__acc_fill_table.";

/// Where a declared global's address sits in another global's initialiser: a table of
/// addresses (`double *const fields[] = {u, v + 1};` with `declare create(u, v)`). The device
/// module's copy of the table cannot hold it as a constant (the runtime allocates the
/// global's device copy), so the table becomes writable, those entries null, and a function
/// `__acc_fill_table.<table>` stores each entry computed from the globals' device addresses
/// (their slots, `redirect_declared`); every kernel that reaches the table calls it after it
/// has set the slots (`bind_declared`). Every thread stores the same addresses before it
/// reads the table, so each reads its own stores or equal ones. A table that is itself
/// declared is left alone: its device copy is the runtime's, holding the host's bytes
/// (`check` says so).
pub fn patch_tables<'ctx>(dev: Module<'ctx>, declared: &[String], kernels: &[Value<'ctx>], regions: &[Outlined<'ctx>]) -> Result<()> {
    let ctx = dev.context();
    let globals: Vec<Value> = declared.iter().filter_map(|n| dev.global(n)).filter(|g| !g.users().is_empty()).collect();
    if globals.is_empty() {
        return Ok(());
    }
    let is_declared = |t: Value<'ctx>| declared.iter().any(|d| *d == t.name() || slot_name(d) == t.name());
    // Globals some table that is not filled here still holds (`check` reports them).
    let mut still_held = HashSet::new();
    for table in dev.globals() {
        let Some(init) = table.initializer() else { continue };
        let mut entries = Vec::new();
        addresses_in(dev, init, 0, &globals, &mut entries);
        if entries.is_empty() {
            continue;
        }
        if is_declared(table) {
            // Device code reaches its device copy (the runtime's, holding the host's bytes)
            // through its slot.
            if let Some(slot) = dev.global(&slot_name(&table.name())) {
                let users = user_functions(slot);
                let region = kernels.iter().zip(regions).find(|(k, _)| reachable(**k).iter().any(|f| users.contains(f)));
                if let Some((_, r)) = region {
                    let g = entries.iter().find_map(|(_, e)| globals.iter().find(|g| refers_to(*e, &[**g]))).expect("an entry refers to a global");
                    return Err(AccError::user(
                        &r.directive.loc,
                        format!(
                            "the address of the declared global {} sits in the initialiser of {}, which a 'declare' also names: its device copy starts as the host's bytes, so the device would read the host's address; leave {} out of the 'declare' (accc then fills the device's table with device addresses) or attach its pointers (acc_attach)",
                            c_name(&g.name()),
                            c_name(&table.name()),
                            c_name(&table.name())
                        ),
                    ));
                }
            }
        }
        if is_declared(table) || user_functions(table).is_empty() {
            for g in &globals {
                if entries.iter().any(|(_, e)| refers_to(*e, &[*g])) {
                    still_held.insert(*g);
                }
            }
            continue;
        }
        // The fill: each entry rebuilt as instructions, the global's address loaded from
        // its slot.
        let fill = dev.get_or_add_function(&format!("{TABLE_FILL_PREFIX}{}", table.name()), ctx.fn_type(ctx.void(), &[], false));
        fill.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        let body = ctx.append_block(fill, "fill");
        let b = ctx.builder();
        b.position_at_end(body);
        let ret = b.ret_void();
        for (offset, entry) in entries {
            b.position_before(ret);
            let value = if globals.contains(&entry) { entry } else { crate::ir::const_expr_as_instruction(entry, ret) };
            let at = b.gep_bytes(ctx, table, ctx.i64().const_int(offset));
            let store = b.store(value, at);
            // The instructions that use a global now load its slot instead.
            let mut work = vec![store];
            while let Some(i) = work.pop() {
                for k in 0..i.num_operands() {
                    let o = i.operand(k);
                    if let Some(g) = globals.iter().find(|g| **g == o) {
                        let slot = slot_of(dev, &g.name());
                        b.position_before(i);
                        i.set_operand(k, b.load(ctx.ptr(), slot, &format!("{}.device", g.name())));
                    } else if o.is_instruction() && o.parent_function() == fill {
                        work.push(o);
                    }
                }
            }
        }
        table.set_global_constant(false);
    }
    // What is left of the globals' uses: table initialisers, now filled at run time.
    for g in globals.into_iter().filter(|g| !still_held.contains(g)) {
        if g.users().iter().all(|u| !u.is_instruction()) {
            g.replace_all_uses_with(ctx.ptr().const_null());
        }
    }
    Ok(())
}

/// The entries of constant `c` (at byte `offset` of its global) that hold the address of one
/// of `globals` (the global itself, or a constant expression over it), with their offsets.
fn addresses_in<'ctx>(dev: Module<'ctx>, c: Value<'ctx>, offset: u64, globals: &[Value<'ctx>], out: &mut Vec<(u64, Value<'ctx>)>) {
    let ty = c.ty();
    if ty.is_ptr() {
        if refers_to(c, globals) {
            out.push((offset, c));
        }
        return;
    }
    let elements = match ty.kind() {
        llvm_sys::LLVMTypeKind::LLVMStructTypeKind | llvm_sys::LLVMTypeKind::LLVMArrayTypeKind => c.operands(),
        _ => return,
    };
    for (i, e) in elements.into_iter().enumerate() {
        let at = match ty.kind() {
            llvm_sys::LLVMTypeKind::LLVMStructTypeKind => ty.field_offset(dev, i as u32).unwrap_or(0),
            _ => i as u64 * e.ty().store_size(dev),
        };
        addresses_in(dev, e, offset + at, globals, out);
    }
}

/// Whether constant `c` is one of `globals` or an expression over one.
fn refers_to<'ctx>(c: Value<'ctx>, globals: &[Value<'ctx>]) -> bool {
    globals.contains(&c) || (c.is_const_expr() && c.operands().into_iter().any(|o| refers_to(o, globals)))
}

/// Stores, at the start of each kernel, the device addresses of the declared globals it
/// captured into their slots (`redirect_declared`). Returns, per kernel, whether it sets the
/// slot of a global of `linked` (the `declare link` globals: module doc).
pub fn bind_declared<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], regions: &[Outlined<'ctx>], linked: &[String]) -> Vec<bool> {
    let b = dev.context().builder();
    let mut link_slots = Vec::new();
    for (k, r) in kernels.iter().zip(regions) {
        let mut link_slot = false;
        for c in r.captures.iter().filter(|c| c.value.is_global_variable()) {
            let Some(slot) = dev.global(&slot_name(&c.value.name())) else { continue };
            let Some(p) = r.value_in(*k, c.value) else { continue };
            let entry = k.entry_block();
            let first = entry.instructions().into_iter().find(|i| !i.is_alloca()).expect("a block ends in a terminator");
            b.position_before(first);
            b.store(p, slot);
            link_slot |= linked.contains(&c.value.name());
        }
        // Then the tables of addresses it reaches (`patch_tables`), from the slots just set.
        let reached = reachable(*k);
        for fill in dev.functions().into_iter().filter(|f| f.name().starts_with(TABLE_FILL_PREFIX)) {
            let Some(table) = dev.global(&fill.name()[TABLE_FILL_PREFIX.len()..]) else { continue };
            if user_functions(table).iter().any(|f| reached.contains(f)) {
                let first = k.entry_block().instructions().into_iter().find(|i| !i.is_alloca() && !(i.opcode() == Some(llvm_sys::LLVMOpcode::LLVMStore) && i.operand(1).is_global_variable())).expect("a block ends in a terminator");
                b.position_before(first);
                b.call(fill, &[], "");
            }
        }
        link_slots.push(link_slot);
    }
    link_slots
}

/// Functions whose code uses `v`, through constant expressions and global initialisers.
pub(crate) fn user_functions<'ctx>(v: Value<'ctx>) -> HashSet<Value<'ctx>> {
    instruction_users(v).into_iter().map(|i| i.parent_function()).collect()
}

/// Instructions that use `v`, directly or through constant expressions, aggregates and the
/// globals whose initialisers hold it.
pub fn instruction_users<'ctx>(v: Value<'ctx>) -> Vec<Value<'ctx>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut todo = vec![v];
    while let Some(x) = todo.pop() {
        for u in x.users() {
            if !seen.insert(u) {
                continue;
            }
            if u.is_instruction() {
                out.push(u);
            } else {
                todo.push(u);
            }
        }
    }
    out
}

/// `k` and every function it calls, directly or not.
pub fn reachable<'ctx>(k: Value<'ctx>) -> HashSet<Value<'ctx>> {
    let mut out = HashSet::from([k]);
    let mut todo = vec![k];
    while let Some(f) = todo.pop() {
        for b in f.blocks() {
            for i in b.instructions() {
                if let Some(c) = i.is_call().then(|| i.called_function()).flatten() {
                    if !c.is_declaration() && out.insert(c) {
                        todo.push(c);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn writable_globals_need_declare() {
        assert!(needs_declare("g", false, true));
        assert!(needs_declare("ext", false, false));
        assert!(needs_declare("bump.counter", false, true));
        assert!(!needs_declare("table", true, true), "const tables are fine");
        assert!(needs_declare("ctab", true, false), "an extern const table has no value here");
        assert!(!needs_declare(".str.4", true, true), "string literals are fine");
        assert!(!needs_declare("llvm.used", false, true));
    }

    #[test]
    fn names_as_written_in_c() {
        assert_eq!(c_name("g"), "'g'");
        assert_eq!(c_name("bump.counter"), "'counter' (a static variable of 'bump')");
        assert_eq!(c_name("x.y.z"), "'x.y.z'");
    }
}
