//! Rejects host global variables that device code would reach without the data environment.
//!
//! Expects: the device module right after it was cloned from the host module, retargeted
//! and stripped to what the kernels use (`globaldce`), before the device runtime and
//! libdevice are linked. A global that a compute region uses directly was captured when the
//! region was outlined (outline.rs) and reaches the kernel as a parameter mapped through
//! the present table (implicitly `copy`, OpenACC 3.3 §2.6.2). Any writable global still
//! referenced here was reached another way: from a function the region calls (`int g;
//! int f(int i) { return i * g; }`), a `static` variable of such a function, or a constant
//! table holding its address. The clone would give the device its own copy of the static
//! initialiser, never synchronised with the host variable (LLVM even folds it as a
//! constant): a silently wrong result. Until `declare` exists that is a located error, as
//! is a constant defined in another file (no value to copy). Constant globals defined here
//! (string literals, `const` tables) are fine. Produces nothing; changes
//! nothing.

use crate::error::{AccError, Result};
use crate::ir::{Module, Value};
use crate::outline::Outlined;
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

/// Errors (at the first region that reaches it) for the first global that needs `declare`.
pub fn check<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], regions: &[Outlined<'ctx>]) -> Result<()> {
    for g in dev.globals() {
        if !needs_declare(&g.name(), g.is_global_constant(), g.has_initializer()) {
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
        return Err(AccError::user(
            &loc,
            format!(
                "global variable {} is used in a compute region (directly or in a called function); \
                 OpenACC 'declare' is not supported yet: pass it through a local pointer or array with a data clause",
                c_name(&g.name())
            ),
        ));
    }
    Ok(())
}

/// Functions whose code uses `v`, through constant expressions and global initialisers.
fn user_functions<'ctx>(v: Value<'ctx>) -> HashSet<Value<'ctx>> {
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
