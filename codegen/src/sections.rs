//! Multi-dimensional array sections (`a[i:n][0:m]` of `double a[N][M]`): accc maps one
//! contiguous byte range per clause item, so every dimension after the first must be whole.
//!
//! The rewriter writes each trailing dimension that is not `[:]` as a `lower, length, extent`
//! triple after the item's text (docs/ir-contract.md). [`contiguity`] decides what a triple
//! says: the contract reader rejects, at the directive, a section it knows to be apart in
//! memory (constant bounds); a dimension whose rows are pointers (`double **p`: a negative
//! extent, minus the size of the rows' elements) becomes a [`crate::contract::RowLevel`] of
//! the item, which the runtime maps row by row (`__accrt_data_enter_rows`, rows.rs of the
//! runtime), attaching each row pointer; the array dimensions known only at run time (a variable-length array, `[0:m]` with a variable `m`)
//! stay in `Var::dims`, and [`emit_runtime_checks`] puts a `__accrt_check_dim` call for each
//! in the directive's header (on every path, as the launch-size checks are), which stops the
//! program with the same message when the dimension is not whole.
//!
//! Expects: verified directives (contract.rs). Produces: the check calls; nothing else.

use crate::contract::{Clause, Directive, Var};
use crate::ir::Module;
use crate::rt::Runtime;

/// What a trailing dimension's `lower, length, extent` say, each known at compile time or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contiguity {
    /// `[0:extent]`: the whole dimension.
    Whole,
    /// A part of each row: the section's rows are apart in memory.
    Apart { lower: i64, length: i64, extent: i64 },
    /// The rows at this depth are pointers, not arrays, to elements of `elem_size` bytes
    /// (the extent is `-elem_size`).
    PointerRows { elem_size: i64 },
    /// Some value is only known at run time.
    Unknown,
}

pub fn contiguity(lower: Option<i64>, length: Option<i64>, extent: Option<i64>) -> Contiguity {
    match (lower, length, extent) {
        (_, _, Some(e)) if e < 0 => Contiguity::PointerRows { elem_size: -e },
        (Some(0), Some(l), Some(e)) if l == e => Contiguity::Whole,
        (Some(lower), Some(length), Some(extent)) => Contiguity::Apart { lower, length, extent },
        _ => Contiguity::Unknown,
    }
}

/// Whether a dimension's extent operand is the driver's pointer-rows marker of rows whose
/// elements have a run-time size (`-sizeof(q[0][0])` of `double (**q)[m]`: a negation, not
/// a constant; a variable-length array's extent is a quotient, never negated).
pub fn runtime_sized_pointer_rows(extent: crate::ir::Value<'_>) -> bool {
    use crate::ir::Opcode;
    match extent.opcode() {
        Some(Opcode::LLVMSub) => extent.operand(0).const_int_value() == Some(0),
        Some(Opcode::LLVMMul) => [0, 1].iter().any(|&k| extent.operand(k).const_int_value().is_some_and(|c| c < 0)),
        _ => false,
    }
}

/// The error for a section through rows that point to arrays of run-time size.
pub fn runtime_sized_rows_message(clause: &str, text: &str) -> String {
    format!("'{text}' in a '{clause}' clause (rows that are pointers to arrays of run-time size, as with 'double (**q)[m]'; make the arrays' size a constant, or use rows of pointers to elements, 'double **')")
}

/// The error for a dimension that is not whole (the runtime's `__accrt_check_dim` says the
/// same at run time).
pub fn apart_message(clause: &str, text: &str, number: u32, lower: i64, length: i64, extent: i64) -> String {
    format!(
        "'{text}' in a '{clause}' clause is not contiguous: dimension {number} takes [{lower}:{length}] of rows of {extent} elements, \
         so the parts of the rows lie apart in memory; accc maps contiguous sections only: every dimension after the first must be whole ([0:{extent}] or [:])"
    )
}

/// What a section through rows that are pointers (`p[0:n][0:m]` of `double **p`) is called
/// in its "not supported yet" error, in a clause that does not map data (`private`,
/// `use_device`, `attach`, a `declare`, ...).
pub fn pointer_rows_message(clause: &str, text: &str) -> String {
    format!(
        "'{text}' in a '{clause}' clause (a section whose rows are pointers, as with 'double **p': \
         only data clauses and update map such a section row by row)"
    )
}

/// Puts the run-time check of every dimension in `Var::dims` before the directive's last
/// clause call (every clause's operands are computed before it, in the header).
pub fn emit_runtime_checks<'ctx>(m: Module<'ctx>, directives: &[Directive<'ctx>]) {
    let ctx = m.context();
    for d in directives {
        for clause in &d.clauses {
            let Some(var) = var_of(clause).filter(|v| !v.dims.is_empty()) else { continue };
            let rt = Runtime::declare(m);
            let b = ctx.builder();
            b.position_before(d.last_header_call());
            let loc = b.global_string(&d.loc.to_string(), ".acc.loc");
            let text = b.global_string(&var.text, ".acc.text");
            for dim in &var.dims {
                let number = ctx.i32().const_int(u64::from(dim.number));
                b.call(rt.check_dim, &[dim.lower, dim.length, dim.extent, number, loc, text], "");
            }
        }
    }
}

/// The *var* of a clause that has one with trailing dimensions.
fn var_of<'a, 'ctx>(c: &'a Clause<'ctx>) -> Option<&'a Var<'ctx>> {
    match c {
        Clause::Data(_, v) | Clause::Update { var: v, .. } | Clause::Private(v) | Clause::FirstPrivate(v) | Clause::UseDevice(v) | Clause::Link(v) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_trailing_dimensions_are_contiguous() {
        assert_eq!(contiguity(Some(0), Some(7), Some(7)), Contiguity::Whole);
        assert_eq!(contiguity(Some(0), Some(4), Some(8)), Contiguity::Apart { lower: 0, length: 4, extent: 8 });
        assert_eq!(contiguity(Some(1), Some(7), Some(7)), Contiguity::Apart { lower: 1, length: 7, extent: 7 });
        assert_eq!(contiguity(Some(0), Some(5), Some(-8)), Contiguity::PointerRows { elem_size: 8 });
        assert_eq!(contiguity(None, None, Some(-1)), Contiguity::PointerRows { elem_size: 1 }, "pointer rows whatever the bounds");
        assert_eq!(contiguity(Some(0), None, Some(7)), Contiguity::Unknown);
        assert_eq!(contiguity(Some(0), Some(7), None), Contiguity::Unknown, "a variable-length array");
    }

    #[test]
    fn messages_say_why() {
        let m = apart_message("copy", "m[0:8][0:4]", 2, 0, 4, 8);
        assert!(m.starts_with("'m[0:8][0:4]' in a 'copy' clause is not contiguous: dimension 2 takes [0:4] of rows of 8 elements"), "{m}");
        assert!(m.ends_with("([0:8] or [:])"), "{m}");
        assert!(pointer_rows_message("private", "p[0:n][0:m]").starts_with("'p[0:n][0:m]' in a 'private' clause"));
        assert!(runtime_sized_rows_message("copy", "q[0:n][0:k][0:m]").contains("'double (**q)[m]'"));
    }
}
