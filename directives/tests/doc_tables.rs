//! docs/ir-contract.md's tables of directives, clauses and aliases say what the table in
//! `src/table.rs` says: every row of one is a row of the other.

use acc_directives::{canonical_clause_name, directive, ClauseSpec, Directive, Form, Operands, ALIASES, CLAUSES, DIRECTIVES};
use std::collections::{BTreeSet, HashSet};

const DOC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ir-contract.md"));

/// The body rows of the markdown table whose header row is `header`, as trimmed cells
/// (`\|` is a `|` inside a cell).
fn table(header: &str) -> Vec<Vec<String>> {
    let mut lines = DOC.lines().skip_while(|l| l.trim() != header);
    assert!(lines.next().is_some(), "docs/ir-contract.md has no table headed {header}");
    lines
        .skip(1) // |---|---|
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let row = l.replace("\\|", "\u{0}");
            row.trim().trim_matches('|').split('|').map(|c| c.replace('\u{0}', "|").trim().to_string()).collect()
        })
        .collect()
}

/// The `code` spans of a cell: `` `a`, `b c` `` gives a, b c.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

fn accc_column(supported: bool) -> &'static str {
    if supported { "yes" } else { "no" }
}

fn form_column(form: Form) -> &'static str {
    match form {
        Form::Region => "region",
        Form::Standalone => "standalone",
        Form::Declarative => "declarative",
    }
}

/// The doc's spelling of each operand shape (docs/ir-contract.md, "Clauses").
fn operands_column(operands: Operands) -> &'static str {
    match operands {
        Operands::None => "none",
        Operands::Var => "*var*",
        Operands::OpAndVar => "`ptr op`, `i64 type`, *var*",
        Operands::Int => "`i64`",
        Operands::ConstInt => "`i64` (constant)",
        Operands::OneToThreeInts => "`i64` (1–3 values)",
        Operands::OptionalInt => "none or `i64`",
        Operands::Ints => "zero or more `i64`",
        Operands::IntOrStar => "`i64` (`-1` for `*`)",
        Operands::TileSizes => "`i64`... (constants)",
        Operands::Condition => "`i64` (0 or 1)",
        Operands::DefaultKind => "`ptr` (`\"none\"` or `\"present\"`)",
        Operands::Name => "`ptr`",
        Operands::Names => "`ptr`...",
        Operands::Function => "`ptr` (a function)",
        Operands::Note => "`i64 line`, `i64 col`, `ptr reason`",
    }
}

#[test]
fn directives_table() {
    let mut documented = BTreeSet::new();
    for row in table("| `%directive` | form | accc | notes |") {
        for name in code_spans(&row[0]) {
            let spec = directive(name).unwrap_or_else(|| panic!("the doc lists '{name}', which the table does not"));
            assert_eq!(row[1], form_column(spec.form), "form of '{name}'");
            assert_eq!(row[2], accc_column(spec.supported), "accc column of '{name}'");
            assert!(documented.insert(spec.name), "'{name}' is listed twice");
        }
    }
    let all: BTreeSet<&str> = DIRECTIVES.iter().map(|d| d.name).collect();
    assert_eq!(documented, all, "directives in the table but not in the doc (or the other way)");
}

#[test]
fn clauses_table() {
    let mut documented: Vec<*const ClauseSpec> = Vec::new();
    for row in table("| clause name | operands | allowed on | accc | meaning for the pass |") {
        let on: HashSet<Directive> = code_spans(&row[2])
            .into_iter()
            .map(|d| directive(d).unwrap_or_else(|| panic!("'{d}' is not a directive")).directive)
            .collect();
        for name in code_spans(&row[0]) {
            let spec = CLAUSES
                .iter()
                .find(|c| c.name == name && c.on.iter().copied().collect::<HashSet<_>>() == on)
                .unwrap_or_else(|| panic!("the table has no row for '{name}' allowed on {}", row[2]));
            assert_eq!(row[1], operands_column(spec.operands), "operands of '{name}' on {}", row[2]);
            assert_eq!(row[3], accc_column(spec.supported), "accc column of '{name}' on {}", row[2]);
            assert!(!documented.contains(&(spec as *const _)), "'{name}' on {} is listed twice", row[2]);
            documented.push(spec);
        }
    }
    for spec in CLAUSES {
        assert!(documented.contains(&(spec as *const _)), "'{}' on {:?} is not in the doc", spec.name, spec.on);
    }
}

#[test]
fn aliases_table() {
    let mut documented = BTreeSet::new();
    for row in table("| alias | clause |") {
        let clause = code_spans(&row[1]);
        for alias in code_spans(&row[0]) {
            assert_eq!(vec![canonical_clause_name(alias)], clause, "alias '{alias}'");
            documented.insert(alias.to_string());
        }
    }
    assert_eq!(documented, ALIASES.iter().map(|(alias, _)| alias.to_string()).collect(), "aliases in the table but not in the doc (or the other way)");
}
