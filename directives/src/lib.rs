//! The one table of OpenACC directives and clauses (OpenACC 3.3, C) that accc knows.
//!
//! Per directive: its name, its form, and whether accc lowers it. Per clause: its name, the
//! directives it may appear on, the operands its `__acc_clause` call carries in the IR
//! contract (docs/ir-contract.md), and whether accc lowers it. `tests/doc_tables.rs` checks
//! the tables of docs/ir-contract.md against these.
//!
//! Architecture invariant: this is the only list of directive and clause names. The driver's
//! rewriter (which directives and clauses exist, which it lowers, how it writes their
//! operands) and the pass's contract reader (what each name means, which operands it takes)
//! both look names up here; other code names them through [`Directive`] and [`Clause`].
//!
//! Also [`Loc`], the source position both report errors at.

mod loc;
mod reduction;
mod table;

pub use loc::Loc;
pub use reduction::{ReductionOp, ReductionType};
pub use table::{ALIASES, CLAUSES, DIRECTIVES, MODIFIED};

/// Prefix of the function that holds a `declare` directive written at file scope: the
/// rewriter puts each in a constructor of its own, `static void __acc_declare_file_<id>(void)`
/// (docs/ir-contract.md), and the pass reads a `declare` there as one at file scope.
pub const FILE_SCOPE_DECLARE: &str = "__acc_declare_file_";

/// Prefix of the function that carries a `routine` directive's markers to the pass (the
/// rewriter's `void __acc_routine_<id>(void)`, docs/ir-contract.md); the pass erases it.
pub const ROUTINE_HOLDER: &str = "__acc_routine_";

/// An OpenACC directive. Combined constructs and multi-word directives are one each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Directive {
    Parallel,
    Kernels,
    Serial,
    ParallelLoop,
    KernelsLoop,
    SerialLoop,
    Loop,
    Data,
    EnterData,
    ExitData,
    Update,
    HostData,
    Wait,
    Init,
    Shutdown,
    Set,
    Atomic,
    AtomicRead,
    AtomicWrite,
    AtomicUpdate,
    AtomicCapture,
    Cache,
    Routine,
    Declare,
}

/// How a directive stands in the source, and so in the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Applies to the statement after it (a structured block or a loop): in the contract, the
    /// code between `__acc_begin` and `__acc_end`.
    Region,
    /// An executable statement of its own: `__acc_end` follows `__acc_begin` and its clauses.
    Standalone,
    /// A declaration (`routine`, `declare`).
    Declarative,
}

/// One row of the directive table.
#[derive(Debug)]
pub struct DirectiveSpec {
    pub directive: Directive,
    /// As written after `#pragma acc`, words separated by one space; the contract's
    /// `%directive` string.
    pub name: &'static str,
    pub form: Form,
    /// A combined construct's two parts; it takes the clauses of either (OpenACC 2.11).
    pub combines: &'static [Directive],
    /// Lowered by accc; any other directive is rejected with "not supported yet".
    pub supported: bool,
    /// Lowered by the driver's rewriter into plain C (`atomic`: GNU C atomic builtins), so it
    /// never reaches the IR contract; the pass rejects its markers.
    pub rewritten: bool,
}

/// An OpenACC clause, or a contract-only spelling of a clause's arguments (`gang.num`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Clause {
    Copy,
    CopyIn,
    CopyOut,
    Create,
    /// `create(zero: x)` (contract-only spelling `create.zero`).
    CreateZero,
    /// `copyout(zero: x)` (contract-only spelling `copyout.zero`).
    CopyOutZero,
    NoCreate,
    Present,
    DevicePtr,
    Attach,
    Delete,
    Detach,
    /// `self` (a keyword in Rust).
    Self_,
    Host,
    Device,
    Private,
    FirstPrivate,
    Reduction,
    NumGangs,
    NumWorkers,
    VectorLength,
    If,
    Async,
    Wait,
    /// `wait(devnum: d: q, ...)` (contract-only spelling `wait.devnum`): the device number,
    /// then the queues of that device.
    WaitDevnum,
    Default,
    Gang,
    GangNum,
    GangDim,
    GangStatic,
    Worker,
    Vector,
    Seq,
    Independent,
    Auto,
    Finalize,
    IfPresent,
    Collapse,
    /// `tile(s1, ..., sn)`: in the source, the user's clause (the rewriter splits the nest,
    /// driver/src/tile.rs); in the contract, the mark of the tile loops it made.
    Tile,
    /// The element loops of a tiled nest (contract-only: `tile.element`).
    TileElement,
    DeviceType,
    Bind,
    NoHost,
    /// The function a `routine` directive applies to (contract-only: `routine.function`),
    /// the one after an unnamed `routine` or the one it names (`routine(f)`).
    RoutineFunction,
    UseDevice,
    DeviceResident,
    Link,
    DefaultAsync,
    DeviceNum,
    /// An item of the `cache` directive's list (contract-only: the directive's argument,
    /// one `cache` clause per item).
    Cache,
    /// `cache(readonly: a[...])` (contract-only spelling `cache.readonly`): the loop body
    /// does not write the item.
    CacheReadonly,
    /// A plain C `for` loop of a `kernels` construct that the rewriter marked as a loop of
    /// its own (contract-only: `implicit`, driver/src/implicit.rs): analysed like a `loop`
    /// without clauses, reported as an implicit loop.
    Implicit,
    /// A plain C `for` loop of a `kernels` construct that the rewriter left unmarked, and why
    /// (contract-only: `implicit.seq` on the construct): it runs sequentially, the report
    /// says so at its position.
    ImplicitSeq,
}

/// The operands of a clause's `__acc_clause` call after the id and the name
/// (docs/ir-contract.md, "Clauses"). Integers are `i64`, strings `ptr` to constant strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// Nothing: `seq`.
    None,
    /// A *var* (`ptr base, i64 lower, i64 length, i64 elem_size, ptr text`), one call per list
    /// item: data clauses, `private`.
    Var,
    /// `ptr op`, `i64` element type code (`ReductionType`), then a *var*, one call per list
    /// item: `reduction`.
    OpAndVar,
    /// One `i64`: `num_workers`.
    Int,
    /// One `i64` that is a constant: `collapse`.
    ConstInt,
    /// One to three `i64`: `num_gangs`.
    OneToThreeInts,
    /// Nothing or one `i64`: `worker`, `vector`, `async`.
    OptionalInt,
    /// Zero or more `i64`: `wait`.
    Ints,
    /// One `i64`, `-1` for `*`: `gang.static`.
    IntOrStar,
    /// One or more positive constant `i64`: `tile` and `tile.element`, the sizes the rewriter
    /// chose (the user's `*` resolved), innermost loop first.
    TileSizes,
    /// One `i64`, 0 or 1: `if`.
    Condition,
    /// One `ptr` to `"none"` or `"present"`: `default`.
    DefaultKind,
    /// One `ptr` to a name: `bind`.
    Name,
    /// One or more `ptr` to names: `device_type`.
    Names,
    /// One `ptr` to a function: `routine.function`.
    Function,
    /// `i64 line`, `i64 col`, `ptr reason`: `implicit.seq`.
    Note,
}

/// One row of the clause table. A clause whose operands depend on the directive (`self`:
/// a condition on compute constructs, a variable list on `update`) has one row per meaning.
#[derive(Debug)]
pub struct ClauseSpec {
    pub clause: Clause,
    /// The canonical name, as written and as the contract's `%clause` string.
    pub name: &'static str,
    /// The directives it may appear on; a combined construct also takes its parts' clauses.
    pub on: &'static [Directive],
    pub operands: Operands,
    /// Item modifiers accc accepts (`copyin(readonly: x)`, `worker(num: 4)`). One that
    /// [`MODIFIED`] lists makes the item a clause of its own in the contract (`create.zero`);
    /// the others are hints the rewriter drops. Any other modifier is "not supported yet".
    pub modifiers: &'static [&'static str],
    /// Lowered by accc; any other clause is rejected with "not supported yet".
    pub supported: bool,
}

impl Directive {
    /// This directive's row.
    pub fn spec(self) -> &'static DirectiveSpec {
        DIRECTIVES.iter().find(|s| s.directive == self).expect("every directive has a row in DIRECTIVES")
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }
}

impl Clause {
    /// The clause's canonical name.
    pub fn name(self) -> &'static str {
        CLAUSES.iter().find(|s| s.clause == self).expect("every clause has a row in CLAUSES").name
    }
}

impl ClauseSpec {
    /// Whether this row lists `d`, or one of the parts of the combined construct `d`.
    pub fn allowed_on(&self, d: Directive) -> bool {
        self.on.contains(&d) || d.spec().combines.iter().any(|part| self.on.contains(part))
    }
}

/// The directive named `name` (words separated by one space), if OpenACC has one.
pub fn directive(name: &str) -> Option<&'static DirectiveSpec> {
    DIRECTIVES.iter().find(|s| s.name == name)
}

/// The canonical name of a clause written `name`: an alias's clause (`pcopy` → `copy`), else
/// `name` itself. The contract carries canonical names only.
pub fn canonical_clause_name(name: &str) -> &str {
    ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, clause)| clause.name())
}

/// The clause an item of `clause` with modifier `modifier` is in the contract, when the
/// modifier changes what the clause does ([`MODIFIED`]); None for a hint (or no modifier).
pub fn modified_clause(clause: Clause, modifier: &str) -> Option<Clause> {
    MODIFIED.iter().find(|(c, m, _)| *c == clause && *m == modifier).map(|(_, _, to)| *to)
}

/// The row of the clause named `name` (canonical) on directive `on`: the one that allows it
/// there, else the clause's first row. Placement is never an error here: clang's validation
/// rejects a misplaced clause in the source before the rewriter runs, and the pass keeps
/// reading hand-written contract IR as it always did.
pub fn clause(name: &str, on: Directive) -> Option<&'static ClauseSpec> {
    let mut rows = CLAUSES.iter().filter(|s| s.name == name).peekable();
    let first = *rows.peek()?;
    Some(rows.find(|s| s.allowed_on(on)).unwrap_or(first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_every_row_is_reachable() {
        let directives: HashSet<_> = DIRECTIVES.iter().map(|s| s.name).collect();
        assert_eq!(directives.len(), DIRECTIVES.len());
        assert_eq!(DIRECTIVES.iter().map(|s| s.directive).collect::<HashSet<_>>().len(), DIRECTIVES.len());
        for s in DIRECTIVES {
            assert_eq!(directive(s.name).map(|d| d.directive), Some(s.directive));
        }
        for s in CLAUSES {
            let on = s.on.first().copied().unwrap_or_else(|| panic!("'{}' is allowed nowhere", s.name));
            assert!(std::ptr::eq(clause(s.name, on).unwrap(), s), "'{}' on '{}' reads another row", s.name, on.name());
            assert_eq!(CLAUSES.iter().find(|r| r.clause == s.clause).unwrap().name, s.name, "one name per clause");
        }
        for (alias, clause) in ALIASES {
            assert!(!CLAUSES.iter().any(|s| s.name == *alias), "'{alias}' is both an alias and a clause");
            assert_eq!(canonical_clause_name(alias), clause.name());
        }
    }

    #[test]
    fn combined_constructs_take_both_parts_clauses() {
        let on = |name, d| clause(name, d).is_some_and(|s| s.allowed_on(d));
        assert!(on("num_gangs", Directive::ParallelLoop) && on("collapse", Directive::ParallelLoop));
        assert!(on("private", Directive::KernelsLoop) && !on("private", Directive::Kernels));
        assert!(!on("delete", Directive::SerialLoop));
    }

    #[test]
    fn self_reads_by_directive() {
        assert_eq!(clause("self", Directive::Update).map(|s| (s.operands, s.supported)), Some((Operands::Var, true)));
        assert_eq!(clause("self", Directive::ParallelLoop).map(|s| (s.operands, s.supported)), Some((Operands::Condition, true)));
        // Nowhere else: the first row (clang rejects `self` there before accc reads it).
        assert_eq!(clause("self", Directive::Data).map(|s| s.operands), Some(Operands::Condition));
    }

    #[test]
    fn what_the_rewriter_lowers_and_rejects() {
        let lowered = |name| directive(name).map(|d| (d.form, d.supported));
        assert_eq!(lowered("parallel loop"), Some((Form::Region, true)));
        assert_eq!(lowered("update"), Some((Form::Standalone, true)));
        assert_eq!(lowered("host_data"), Some((Form::Region, true)));
        assert_eq!(clause("use_device", Directive::HostData).map(|c| (c.operands, c.supported)), Some((Operands::Var, true)));
        assert_eq!(lowered("declare"), Some((Form::Declarative, true)));
        for c in ["device_resident", "link", "copy", "create", "present", "deviceptr"] {
            assert_eq!(clause(c, Directive::Declare).map(|c| (c.operands, c.supported)), Some((Operands::Var, true)), "{c}");
        }
        assert_eq!(lowered("wait"), Some((Form::Standalone, true)));
        assert_eq!(lowered("routine"), Some((Form::Declarative, true)));
        for (c, operands) in [("bind", Operands::Name), ("nohost", Operands::None), ("routine.function", Operands::Function), ("seq", Operands::None), ("gang", Operands::None)] {
            assert_eq!(clause(c, Directive::Routine).map(|c| (c.operands, c.supported)), Some((operands, true)), "{c}");
        }
        assert_eq!(lowered("cache"), Some((Form::Standalone, true)));
        assert_eq!(clause("cache", Directive::Cache).map(|c| (c.operands, c.modifiers)), Some((Operands::Var, &["readonly"][..])));
        assert_eq!(modified_clause(Clause::Cache, "readonly"), Some(Clause::CacheReadonly));
        // Atomics: the rewriter lowers them into C; they never reach the contract.
        for d in ["atomic", "atomic read", "atomic write", "atomic update", "atomic capture"] {
            assert_eq!(directive(d).map(|d| (d.form, d.supported, d.rewritten)), Some((Form::Region, true, true)), "{d}");
            assert_eq!(clause("if", directive(d).unwrap().directive).map(|c| c.supported), Some(true), "{d}");
        }
        assert!(DIRECTIVES.iter().filter(|d| d.rewritten).all(|d| d.name.starts_with("atomic")));
        for d in ["init", "shutdown", "set"] {
            assert_eq!(lowered(d), Some((Form::Standalone, true)), "{d}");
            let on = directive(d).unwrap().directive;
            assert_eq!(clause("device_type", on).map(|c| (c.operands, c.supported)), Some((Operands::Names, true)), "{d}");
            assert_eq!(clause("device_num", on).map(|c| (c.operands, c.supported)), Some((Operands::Int, true)), "{d}");
        }
        // Elsewhere device_type starts a clause set, which the rewriter resolves.
        assert_eq!(clause("device_type", Directive::Parallel).map(|c| c.supported), Some(true));
        let clause_on_loop = |name| clause(canonical_clause_name(name), Directive::ParallelLoop).map(|c| (c.operands, c.supported));
        assert_eq!(clause_on_loop("pcopyin"), Some((Operands::Var, true)));
        assert_eq!(clause_on_loop("num_gangs"), Some((Operands::OneToThreeInts, true)));
        assert_eq!(clause_on_loop("reduction"), Some((Operands::OpAndVar, true)));
        assert_eq!(clause_on_loop("async"), Some((Operands::OptionalInt, true)));
        assert_eq!(clause_on_loop("wait"), Some((Operands::Ints, true)));
        assert_eq!(clause("wait", Directive::Wait).map(|c| c.modifiers), Some(&["queues"][..]));
        for c in ["attach", "create", "copyin"] {
            assert_eq!(clause(c, Directive::EnterData).map(|c| (c.operands, c.supported)), Some((Operands::Var, true)), "{c}");
        }
        assert_eq!(clause("detach", Directive::ExitData).map(|c| (c.operands, c.supported)), Some((Operands::Var, true)));
        // tile: the rewriter splits the nest; the contract marks both loop sets with the sizes.
        for c in ["tile", "tile.element"] {
            assert_eq!(clause_on_loop(c), Some((Operands::TileSizes, true)), "{c}");
        }
    }

    #[test]
    fn modifiers_that_change_a_clause() {
        assert_eq!(modified_clause(Clause::Create, "zero"), Some(Clause::CreateZero));
        assert_eq!(modified_clause(Clause::CopyOut, "zero"), Some(Clause::CopyOutZero));
        assert_eq!(modified_clause(Clause::CopyIn, "readonly"), None, "a hint");
        for (c, m, to) in MODIFIED {
            let (from, to) = (clause(c.name(), Directive::Data).unwrap(), clause(to.name(), Directive::Data).unwrap());
            assert!(from.modifiers.contains(m), "'{}' accepts '{m}'", from.name);
            assert_eq!((from.on, from.operands), (to.on, to.operands), "'{}' reads as '{}'", to.name, from.name);
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(directive("enter data").map(|s| s.form), Some(Form::Standalone));
        assert_eq!(directive("atomic capture").map(|s| s.form), Some(Form::Region));
        assert!(directive("bogus").is_none() && clause("frobnicate", Directive::Loop).is_none());
        assert_eq!(canonical_clause_name("present_or_copyin"), "copyin");
        assert_eq!(canonical_clause_name("dtype"), "device_type");
        assert_eq!(canonical_clause_name("copy"), "copy");
        assert_eq!(Clause::Self_.name(), "self");
        assert_eq!(Directive::KernelsLoop.name(), "kernels loop");
    }
}
