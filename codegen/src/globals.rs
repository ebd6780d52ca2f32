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
//! Any other writable global (or a declared one whose address sits in another global's
//! initialiser, which no slot can reach) would give the device its own copy of the static
//! initialiser, never synchronised with the host variable (LLVM even folds it as a
//! constant): a silently wrong result, so [`check`] makes it a located error, as is a
//! constant defined in another file (no value to copy). Constant globals defined here
//! (string literals, `const` tables) are fine.

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

/// Errors (at the first region that reaches it) for the first global that needs `declare`.
/// `declared`: the globals of file-scope declares (their uses left here are in initialisers).
pub fn check<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], regions: &[Outlined<'ctx>], declared: &[String]) -> Result<()> {
    for g in dev.globals() {
        let own_slot = declared.iter().any(|d| slot_name(d) == g.name());
        if own_slot || !needs_declare(&g.name(), g.is_global_constant(), g.has_initializer()) {
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
            return Err(AccError::unsupported(
                &loc,
                format!("the address of the declared global {} held in another global's initialiser (a table of addresses) in device code", c_name(&g.name())),
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
        let slot = dev.add_global(ctx.ptr(), &slot_name(name));
        slot.set_initializer(ctx.ptr().const_null());
        slot.set_linkage(LLVMLinkage::LLVMInternalLinkage);
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
