//! Lowers `host_data use_device(list)` constructs (OpenACC 3.3 §2.8) in host code.
//!
//! Expects: a verified `host_data` directive (contract.rs) in its host function, before
//! outlining (a compute construct inside the construct then captures what this module
//! leaves), in Clang's memory form or in SSA form. Each item names a pointer variable
//! (`use_device(p)`, or a section of it, `p[0:n]`), an array variable (`use_device(a)`) or,
//! in hand-written SSA IR, a pointer value.
//!
//! Produces, per item, a slot `<name>.use_device` (a pointer alloca in the entry block) that
//! the construct's header sets to the device address of the item's data:
//! `__accrt_use_device_addr(host, flags, loc, text)` of the pointer's current value or the
//! array's address (`flags`: `rt::IF_PRESENT` with `if_present`), only when the `if` clause
//! is true (otherwise the slot keeps the host address). Inside the construct, every use of
//! a pointer variable's storage becomes a use of the slot (loads read the device pointer,
//! `&p` is the slot's address), and every use of an array (or pointer value) becomes the
//! slot's value, loaded at the construct's start. The runtime makes the device address the
//! host address when regions run on the host.
//!
//! The construct's markers are erased: the directives nested in it must be read again,
//! since their clause operands may now name slots (`deviceptr(p)` of a compute construct
//! inside names `p`'s slot).
//!
//! Does not: change anything outside the construct (a store to the pointer inside it goes
//! to the slot, and the host variable keeps its value), map data, or accept items that are
//! neither pointers nor arrays (a located error: their uses would dereference device
//! memory on the host).

use crate::outline::strip;
use crate::contract::{Clause, Directive, Var};
use crate::error::{AccError, Result};
use crate::ir::{Block, Builder, Context, Module, TypeKind, Value};
use crate::rt::{self, Runtime};
use std::collections::HashSet;

/// What a `use_device` item's base operand is (docs/ir-contract.md: a whole variable's
/// address, or the decayed value of a section's variable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// A variable's storage (an alloca or a global) holding a value of this kind.
    Variable(Stored),
    /// A pointer loaded from a pointer variable: the base of a section `p[lo:len]`.
    LoadedPointer,
    /// A pointer loaded from anything else (`s.p[0:n]`): no variable to redirect.
    LoadedOther,
    /// Any other pointer value (an argument or instruction in hand-written SSA IR).
    PointerValue,
}

/// The kind of value a variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    Pointer,
    Array,
    Other,
}

/// How the construct redirects an item's uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The item is a pointer variable: its host value is the pointer it holds, and the
    /// variable's storage is replaced by the slot.
    PointerVariable,
    /// The item is an address (an array, a pointer value): it is its own host value, and is
    /// replaced by the slot's value.
    Address,
}

/// The form of an item, or None when it is neither a pointer nor an array.
pub fn form(base: Base) -> Option<Form> {
    match base {
        Base::Variable(Stored::Pointer) | Base::LoadedPointer => Some(Form::PointerVariable),
        Base::Variable(Stored::Array) | Base::PointerValue => Some(Form::Address),
        Base::Variable(Stored::Other) | Base::LoadedOther => None,
    }
}

fn stored<'ctx>(variable: Value<'ctx>) -> Stored {
    let ty = if variable.is_alloca() { variable.allocated_type() } else { variable.global_value_type() };
    match ty.kind() {
        TypeKind::LLVMPointerTypeKind => Stored::Pointer,
        TypeKind::LLVMArrayTypeKind => Stored::Array,
        _ => Stored::Other,
    }
}

fn is_variable<'ctx>(v: Value<'ctx>) -> bool {
    v.is_alloca() || v.is_global_variable()
}

/// The item's base operand classified, with the value whose uses the construct redirects
/// (the variable, or the pointer value itself).
fn classify<'ctx>(base: Value<'ctx>) -> (Base, Value<'ctx>) {
    let s = strip(base);
    if is_variable(s) {
        return (Base::Variable(stored(s)), s);
    }
    if s.opcode() == Some(llvm_sys::LLVMOpcode::LLVMLoad) {
        let from = strip(s.operand(0));
        return if is_variable(from) && stored(from) == Stored::Pointer { (Base::LoadedPointer, from) } else { (Base::LoadedOther, s) };
    }
    (Base::PointerValue, s)
}

/// One item, ready to lower.
struct Item<'ctx> {
    form: Form,
    /// The variable (or value) whose uses inside the construct are redirected.
    target: Value<'ctx>,
    text: String,
}

fn item<'ctx>(d: &Directive<'ctx>, v: &Var<'ctx>) -> Result<Item<'ctx>> {
    let (base, target) = classify(v.base);
    let form = form(base).ok_or_else(|| {
        AccError::user(
            &d.loc,
            format!("use_device({}): accc needs a pointer or an array variable here (its uses inside host_data see the device address)", v.text),
        )
    })?;
    Ok(Item { form, target, text: v.text.clone() })
}

pub fn lower<'ctx>(m: Module<'ctx>, d: &Directive<'ctx>) -> Result<()> {
    let items: Vec<Item> = d
        .clauses
        .iter()
        .filter_map(|c| if let Clause::UseDevice(v) = c { Some(v) } else { None })
        .map(|v| item(d, v))
        .collect::<Result<_>>()?;
    let ctx = m.context();
    let rt = Runtime::declare(m);
    let (header, region) = split_region(ctx, d)?;
    let cond = d.device_conditions();
    let flags = if d.has(|c| matches!(c, Clause::IfPresent)) { rt::IF_PRESENT } else { 0 };
    let f = d.function;
    let slot_b = ctx.builder();
    slot_b.position_before(f.entry_block().first_instruction().expect("a function with a directive has instructions"));
    let b = ctx.builder();
    b.set_debug_loc_of(d.begin);
    b.position_before(header.terminator().expect("split left a branch"));
    let loc = b.global_string(&d.loc.to_string(), ".acc.loc");
    // Host values first (all of them: the `if` guard below splits the header); under a false
    // `if` the slots keep them.
    let mut slots = Vec::new();
    for it in &items {
        let slot = slot_b.alloca(ctx.ptr(), &format!("{}.use_device", crate::outline::display_name(it.target)));
        let host = match it.form {
            Form::PointerVariable => b.load(ctx.ptr(), it.target, ""),
            Form::Address => it.target,
        };
        if !cond.is_empty() {
            b.store(host, slot);
        }
        slots.push((slot, host));
    }
    crate::data::emit_guarded(ctx, header.terminator().expect("split left a branch"), &cond, |b: &Builder<'ctx>| {
        b.set_debug_loc_of(d.begin);
        for (it, (slot, host)) in items.iter().zip(&slots) {
            let text = b.global_string(&it.text, ".acc.text");
            let dev = b.call(rt.use_device_addr, &[*host, ctx.i32().const_int(flags), loc, text], "");
            b.store(dev, *slot);
        }
    });
    if let Some(region) = region {
        redirect(ctx, &items, &slots, &region);
    }
    // Lowered: the construct leaves no markers (the pipeline reads the directives again,
    // since the clause operands of those nested in it may now name slots).
    crate::contract::erase_clause_calls(d);
    d.begin.erase();
    d.end.erase();
    Ok(())
}

/// Splits the construct's body off its header: the header block (ending in a branch to the
/// body, or to the end marker when the body is empty) and the body's blocks (None when
/// empty).
fn split_region<'ctx>(ctx: Context<'ctx>, d: &Directive<'ctx>) -> Result<(Block<'ctx>, Option<Vec<Block<'ctx>>>)> {
    let last = d.last_header_call();
    let header = last.parent_block();
    let after = last.next_instruction().ok_or_else(|| AccError::internal("marker call without a following instruction"))?;
    let entry = header.split_before(ctx, after, "acc.host_data");
    if after == d.end {
        return Ok((header, None));
    }
    let exit = if d.end.prev_instruction().is_none() { d.end.parent_block() } else { d.end.parent_block().split_before(ctx, d.end, "acc.host_data.end") };
    Ok((header, Some(crate::outline::region_blocks(entry, exit))))
}

/// Makes the construct's uses of each item see its slot.
fn redirect<'ctx>(ctx: Context<'ctx>, items: &[Item<'ctx>], slots: &[(Value<'ctx>, Value<'ctx>)], region: &[Block<'ctx>]) {
    // A global's uses may be constant expressions (`gep (@a, 0, 3)`): as instructions, the
    // global becomes an operand that can be replaced.
    crate::outline::expand_global_const_exprs(region);
    let inside: HashSet<Block> = region.iter().copied().collect();
    let at_start = region[0].first_instruction().expect("a split block is not empty");
    let b = ctx.builder();
    b.position_before(at_start);
    for (it, (slot, _)) in items.iter().zip(slots) {
        let new = match it.form {
            Form::PointerVariable => *slot,
            Form::Address => b.load(ctx.ptr(), *slot, &format!("{}.device", crate::outline::display_name(it.target))),
        };
        it.target.replace_uses_where(new, |u| u.is_instruction() && inside.contains(&u.parent_block()) && u != new);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_and_arrays_only() {
        assert_eq!(form(Base::Variable(Stored::Pointer)), Some(Form::PointerVariable));
        assert_eq!(form(Base::LoadedPointer), Some(Form::PointerVariable), "p[0:n] redirects p");
        assert_eq!(form(Base::Variable(Stored::Array)), Some(Form::Address));
        assert_eq!(form(Base::PointerValue), Some(Form::Address));
        assert_eq!(form(Base::Variable(Stored::Other)), None, "an int or a struct");
        assert_eq!(form(Base::LoadedOther), None, "s.p[0:n]: no variable to redirect");
    }
}
