//! Rejects device code the GPU cannot run, with an error at the user's construct, before
//! LLVM's NVPTX back end would crash on it or the device module would fail to verify.
//!
//! Two checks, at the two places the code can still be traced to the source:
//! - `thread_locals_in_regions`, on the host module before outlining: a `_Thread_local`
//!   variable used directly in a compute region. Outlining would pass its address as a
//!   parameter, but `llvm.threadlocal.address` needs the global itself (the module would not
//!   verify), and a GPU thread has no host thread's copy to read anyway.
//! - `device_module`, on the device module right after it is stripped to what the kernels
//!   use (`globaldce`), before any device transformation: values of a type the GPU has no
//!   arithmetic for (`long double` is x87's 80-bit `x86_fp80`; `__float128` is `fp128`; the
//!   NVPTX back end aborts on both), and thread-local globals reached from functions that a
//!   region calls.
//!
//! The location is the instruction's debug location when the program was built with `-g`,
//! else the compute construct's. Produces nothing; changes nothing. Does not look at types
//! that only appear in dead code LLVM would delete later: a type anywhere in the device
//! code is an error even when optimisation could fold it away, so the answer does not
//! depend on the optimisation level.

use crate::cfg::FunctionCfg;
use crate::contract::Directive;
use crate::error::{AccError, Loc, Result};
use crate::ir::{Module, Type, Value};
use crate::outline::Outlined;
use llvm_sys::LLVMTypeKind;
use std::collections::{HashMap, HashSet};

/// The C spelling of a floating-point type the GPU cannot compute with, if `t` is one.
pub fn unsupported_float(kind: LLVMTypeKind) -> Option<&'static str> {
    match kind {
        LLVMTypeKind::LLVMX86_FP80TypeKind => Some("'long double' (80-bit x87 floating point)"),
        LLVMTypeKind::LLVMFP128TypeKind => Some("'__float128' (128-bit floating point)"),
        LLVMTypeKind::LLVMPPC_FP128TypeKind => Some("'long double' (128-bit double-double)"),
        _ => None,
    }
}

/// The first unsupported floating-point type in `t` or the types it is built from.
fn find_unsupported_float<'ctx>(t: Type<'ctx>, seen: &mut HashSet<Type<'ctx>>) -> Option<&'static str> {
    if !seen.insert(t) {
        return None;
    }
    unsupported_float(t.kind()).or_else(|| t.contained_types().into_iter().find_map(|c| find_unsupported_float(c, seen)))
}

/// Errors at the first `_Thread_local` variable that a compute region uses directly.
/// `cfgs` are the host functions' CFGs, taken before any region was outlined.
pub fn thread_locals_in_regions<'ctx>(m: Module<'ctx>, directives: &[Directive<'ctx>], cfgs: &HashMap<Value<'ctx>, FunctionCfg<'ctx>>) -> Result<()> {
    for g in m.globals().into_iter().filter(|g| g.is_thread_local()) {
        for i in crate::globals::instruction_users(g) {
            let f = i.parent_function();
            let Some(cfg) = cfgs.get(&f) else { continue };
            let inside = |d: &&Directive<'ctx>| {
                d.kind.is_compute() && d.function == f && cfg.dominates_inst(d.begin, i) && cfg.post_dominates_inst(d.end, i)
            };
            if let Some(d) = directives.iter().find(inside) {
                return Err(thread_local_error(g, &loc_of(i, &d.loc)));
            }
        }
    }
    Ok(())
}

/// Errors at the first value of an unsupported type, or thread-local global, in the code
/// the kernels run.
pub fn device_module<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], regions: &[Outlined<'ctx>]) -> Result<()> {
    let region_of = |f: Value<'ctx>| -> Loc {
        kernels
            .iter()
            .zip(regions)
            .find(|(k, _)| crate::globals::reachable(**k).contains(&f))
            .map(|(_, r)| r.directive.loc.clone())
            .unwrap_or_default()
    };
    for g in dev.globals().into_iter().filter(|g| g.is_thread_local()) {
        if let Some(i) = crate::globals::instruction_users(g).into_iter().next() {
            return Err(thread_local_error(g, &loc_of(i, &region_of(i.parent_function()))));
        }
    }
    for f in dev.functions().into_iter().filter(|f| !f.is_declaration()) {
        for b in f.blocks() {
            for i in b.instructions() {
                if i.is_call() && i.called_function().is_none() && !i.operand(i.num_operands() - 1).is_inline_asm() {
                    return Err(AccError::user(
                        &loc_of(i, &region_of(f)),
                        "a function is called through a pointer in a compute region: device code can only call functions by name (OpenACC 'routine')",
                    ));
                }
                if let Some(what) = instruction_float(i) {
                    return Err(AccError::user(
                        &loc_of(i, &region_of(f)),
                        format!("{what} cannot be used in a compute region: the GPU has no arithmetic for it (use 'double')"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// An unsupported floating-point type in the instruction's result, operands or the memory
/// type it works on (alloca, GEP).
fn instruction_float<'ctx>(i: Value<'ctx>) -> Option<&'static str> {
    let mut seen = HashSet::new();
    let mut types = vec![i.ty()];
    types.extend(i.operands().into_iter().map(|o| o.ty()));
    if i.is_alloca() {
        types.push(i.allocated_type());
    }
    if i.opcode() == Some(llvm_sys::LLVMOpcode::LLVMGetElementPtr) {
        types.push(i.gep_source_type());
    }
    types.into_iter().find_map(|t| find_unsupported_float(t, &mut seen))
}

fn thread_local_error<'ctx>(g: Value<'ctx>, loc: &Loc) -> AccError {
    AccError::user(
        loc,
        format!(
            "thread-local variable {} is used in a compute region: GPU threads have no host thread's copy \
             (copy it to an ordinary variable before the region)",
            crate::globals::c_name(&g.name())
        ),
    )
}

/// The instruction's `-g` location, else `fallback` (the compute construct's).
fn loc_of<'ctx>(i: Value<'ctx>, fallback: &Loc) -> Loc {
    match i.debug_loc() {
        Some((file, line, col)) if !file.is_empty() => Loc { file, line, col },
        _ => fallback.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_wide_floats_are_rejected() {
        assert!(unsupported_float(LLVMTypeKind::LLVMX86_FP80TypeKind).unwrap().contains("long double"));
        assert!(unsupported_float(LLVMTypeKind::LLVMFP128TypeKind).unwrap().contains("__float128"));
        assert!(unsupported_float(LLVMTypeKind::LLVMDoubleTypeKind).is_none());
        assert!(unsupported_float(LLVMTypeKind::LLVMFloatTypeKind).is_none());
        assert!(unsupported_float(LLVMTypeKind::LLVMHalfTypeKind).is_none());
    }
}
