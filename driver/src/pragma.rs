//! Parsing of one `#pragma acc` line into a directive and its clauses, and the tables of
//! what accc lowers now and what it recognises but rejects.
//!
//! Positions are byte offsets into the pragma line as it appears in the preprocessed text;
//! `rewrite` maps them back to the user's source.

use crate::tokenize::{tokenize, Kind, Token};

/// One clause item (an argument split at a top-level comma).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The item's text with the original spacing inside it, trimmed.
    pub text: String,
    /// Offset of the item in the pragma line.
    pub off: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    /// The name as written (`pcopy`, `dtype`, ...).
    pub name: String,
    pub off: usize,
    /// `None` without parentheses; `Some(vec![])` for `name()`.
    pub args: Option<Vec<Arg>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// Canonical multi-word name: `parallel loop`, `enter data`, `atomic update`, ...
    pub name: String,
    /// Offset of `acc` and of the directive's first word in the pragma line.
    pub acc_off: usize,
    pub name_off: usize,
    /// Parenthesised directive argument (`wait(1)`, `cache(a[0:4])`, `routine(f)`).
    pub args: Option<Vec<Arg>>,
    pub clauses: Vec<Clause>,
}

/// What a directive name is to accc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirKind {
    /// Lowered, followed by a structured block / loop.
    Region,
    /// Lowered, executable statement on its own.
    Standalone,
    /// Recognised OpenACC, rejected with "not supported yet".
    Unsupported,
}

pub fn directive_kind(name: &str) -> Option<DirKind> {
    Some(match name {
        "parallel" | "kernels" | "serial" | "parallel loop" | "kernels loop" | "serial loop"
        | "loop" | "data" => DirKind::Region,
        "enter data" | "exit data" | "update" => DirKind::Standalone,
        "host_data" | "wait" | "init" | "shutdown" | "set" | "atomic" | "atomic read"
        | "atomic write" | "atomic update" | "atomic capture" | "cache" | "routine"
        | "declare" => DirKind::Unsupported,
        _ => return None,
    })
}

/// True for directives that apply to the statement that follows them (lowered or not).
pub fn has_body(name: &str) -> bool {
    directive_kind(name) == Some(DirKind::Region)
        || name == "host_data"
        || name.starts_with("atomic")
}

/// True for compute constructs (including combined ones).
pub fn is_compute(name: &str) -> bool {
    matches!(
        name,
        "parallel" | "kernels" | "serial" | "parallel loop" | "kernels loop" | "serial loop"
    )
}

/// What a clause name is to accc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClauseKind {
    /// Data clause with a list of variables (*var* operands).
    VarList,
    /// One call with 1..=3 integer operands (`num_gangs`).
    IntList,
    /// Exactly one integer (`num_workers`, `vector_length`, `collapse`).
    Int,
    /// Optional integer (`worker`, `vector`).
    OptInt,
    /// `if(cond)`.
    Cond,
    /// `default(none|present)`.
    Default,
    /// No operands (`seq`, `gang`, ...).
    Flag,
    /// Recognised, rejected.
    Unsupported,
}

/// Maps deprecated aliases to the canonical clause name.
pub fn canonical_clause(name: &str) -> &str {
    match name {
        "pcopy" | "present_or_copy" => "copy",
        "pcopyin" | "present_or_copyin" => "copyin",
        "pcopyout" | "present_or_copyout" => "copyout",
        "pcreate" | "present_or_create" => "create",
        other => other,
    }
}

pub fn clause_kind(canonical: &str) -> Option<ClauseKind> {
    use ClauseKind::*;
    Some(match canonical {
        "copy" | "copyin" | "copyout" | "create" | "no_create" | "present" | "deviceptr"
        | "delete" | "self" | "host" | "device" | "private" | "firstprivate" => VarList,
        "num_gangs" => IntList,
        "num_workers" | "vector_length" | "collapse" => Int,
        "worker" | "vector" => OptInt,
        "if" => Cond,
        "default" => Default,
        "gang" | "seq" | "independent" | "auto" | "finalize" | "if_present" => Flag,
        "reduction" | "async" | "wait" | "attach" | "detach" | "tile" | "device_type"
        | "dtype" | "bind" | "nohost" | "use_device" | "device_resident" | "link"
        | "default_async" | "device_num" => Unsupported,
        _ => return None,
    })
}

/// Splits the tokens between a `(` and its matching `)` at top-level commas.
/// `toks[open]` is the `(`; returns the items and the index of the `)`.
pub fn split_group(line: &str, toks: &[Token], open: usize) -> Result<(Vec<Arg>, usize), String> {
    let mut depth = 0usize;
    let mut items = Vec::new();
    let mut item_start: Option<usize> = None; // byte offset of first token of current item
    let mut item_end = 0usize;
    let mut i = open;
    while i < toks.len() {
        let t = &toks[i];
        let s = t.punct(line);
        let is_p = t.kind == Kind::Punct;
        if is_p && matches!(s, "(" | "[" | "{") {
            depth += 1;
            if depth == 1 {
                i += 1;
                continue;
            }
        } else if is_p && matches!(s, ")" | "]" | "}") {
            if depth == 0 {
                return Err(format!("unbalanced '{}'", s));
            }
            depth -= 1;
            if depth == 0 {
                if s != ")" {
                    return Err(format!("expected ')' but found '{}'", s));
                }
                if let Some(st) = item_start {
                    items.push(Arg { text: line[st..item_end].trim().to_string(), off: st });
                } else if !items.is_empty() {
                    return Err("empty item in list".into());
                }
                return Ok((items, i));
            }
        } else if is_p && s == "," && depth == 1 {
            match item_start.take() {
                Some(st) => items.push(Arg { text: line[st..item_end].trim().to_string(), off: st }),
                None => return Err("empty item in list".into()),
            }
            i += 1;
            continue;
        }
        if item_start.is_none() {
            item_start = Some(t.start);
        }
        item_end = t.end;
        i += 1;
    }
    Err("missing ')'".into())
}

/// Parses a pragma line (`#pragma acc ...`, as the whole line text). Returns `Ok(None)` when
/// the pragma is not an OpenACC one. Errors are messages about malformed syntax (which
/// clang's validation normally reports first) with the offset they refer to.
pub fn parse_pragma(line: &str) -> Result<Option<Directive>, (usize, String)> {
    let toks = tokenize(line, false);
    let t = |i: usize| toks.get(i);
    let txt = |i: usize| toks.get(i).map(|t| t.text(line)).unwrap_or("");
    if !(txt(0) == "#" && txt(1) == "pragma" && txt(2) == "acc") {
        return Ok(None);
    }
    let acc_off = toks[2].start;
    let first = match t(3) {
        Some(tok) if tok.kind == Kind::Ident => tok,
        Some(tok) => return Err((tok.start, "expected an OpenACC directive name".into())),
        None => return Err((line.len(), "expected an OpenACC directive name".into())),
    };
    let name_off = first.start;
    let w1 = txt(3);
    let w2 = txt(4);
    let mut i = 4;
    let name = match (w1, w2) {
        ("parallel" | "kernels" | "serial", "loop") | ("enter" | "exit", "data") => {
            i = 5;
            format!("{} {}", w1, w2)
        }
        ("atomic", "read" | "write" | "update" | "capture") => {
            i = 5;
            format!("{} {}", w1, w2)
        }
        _ => w1.to_string(),
    };
    let mut args = None;
    if txt(i) == "(" {
        let (items, close) = split_group(line, &toks, i).map_err(|m| (toks[i].start, m))?;
        args = Some(items);
        i = close + 1;
    }
    let mut clauses = Vec::new();
    while i < toks.len() {
        if txt(i) == "," {
            i += 1;
            continue;
        }
        let tok = &toks[i];
        if tok.kind != Kind::Ident {
            return Err((tok.start, format!("expected an OpenACC clause name, found '{}'", tok.text(line))));
        }
        let mut clause = Clause { name: tok.text(line).to_string(), off: tok.start, args: None };
        i += 1;
        if txt(i) == "(" {
            let (items, close) = split_group(line, &toks, i).map_err(|m| (toks[i].start, m))?;
            clause.args = Some(items);
            i = close + 1;
        }
        clauses.push(clause);
    }
    Ok(Some(Directive { name, acc_off, name_off, args, clauses }))
}

/// Splits a leading `modifier:` off a clause item (`readonly: x[0:n]` → (`readonly`, `x[0:n]`)).
/// `a::b` or a `?:` are not modifiers; the modifier must be a plain identifier.
pub fn split_modifier(item: &str) -> (Option<&str>, &str) {
    let toks = tokenize(item, false);
    if toks.len() >= 3
        && toks[0].kind == Kind::Ident
        && toks[1].is_punct(item, ":")
    {
        return (Some(toks[0].text(item)), item[toks[2].start..].trim());
    }
    (None, item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(d: &Directive) -> Vec<&str> {
        d.clauses.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn parse_combined_with_clauses() {
        let l = "#pragma acc parallel loop copy(y[0:n], z) copyin(x[f(a,b):n]) seq";
        let d = parse_pragma(l).unwrap().unwrap();
        assert_eq!(d.name, "parallel loop");
        assert_eq!(d.acc_off, 8);
        assert_eq!(d.name_off, 12);
        assert_eq!(names(&d), vec!["copy", "copyin", "seq"]);
        let a = d.clauses[0].args.as_ref().unwrap();
        assert_eq!(a.iter().map(|a| a.text.as_str()).collect::<Vec<_>>(), vec!["y[0:n]", "z"]);
        assert_eq!(&l[a[1].off..a[1].off + 1], "z");
        let a = d.clauses[1].args.as_ref().unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].text, "x[f(a,b):n]");
        assert_eq!(d.clauses[2].args, None);
        assert_eq!(&l[d.clauses[2].off..], "seq");
    }

    #[test]
    fn multiword_directives() {
        for (src, name) in [
            ("#pragma acc enter data copyin(a)", "enter data"),
            ("#pragma acc exit data delete(a)", "exit data"),
            ("#pragma acc kernels loop", "kernels loop"),
            ("#pragma acc serial loop", "serial loop"),
            ("#pragma acc atomic update", "atomic update"),
            ("#pragma acc atomic", "atomic"),
            ("#pragma acc host_data use_device(p)", "host_data"),
            ("#pragma   acc   loop   ", "loop"),
        ] {
            assert_eq!(parse_pragma(src).unwrap().unwrap().name, name, "{}", src);
        }
    }

    #[test]
    fn directive_args_and_commas() {
        let d = parse_pragma("#pragma acc wait(1, 2) async(3)").unwrap().unwrap();
        assert_eq!(d.name, "wait");
        assert_eq!(d.args.as_ref().unwrap().len(), 2);
        assert_eq!(names(&d), vec!["async"]);
        let d = parse_pragma("#pragma acc parallel num_gangs(4), vector_length(32)").unwrap().unwrap();
        assert_eq!(names(&d), vec!["num_gangs", "vector_length"]);
    }

    #[test]
    fn nested_brackets_and_strings() {
        let d = parse_pragma("#pragma acc data copy(a[g(1,2)][:], s.b[0:h(\",\", 3)])").unwrap().unwrap();
        let a = d.clauses[0].args.as_ref().unwrap();
        assert_eq!(a[0].text, "a[g(1,2)][:]");
        assert_eq!(a[1].text, "s.b[0:h(\",\", 3)]");
    }

    #[test]
    fn not_acc_and_malformed() {
        assert_eq!(parse_pragma("#pragma omp parallel").unwrap(), None);
        assert_eq!(parse_pragma("#pragma once").unwrap(), None);
        assert!(parse_pragma("#pragma acc").is_err());
        assert!(parse_pragma("#pragma acc parallel copy(a").is_err());
        assert!(parse_pragma("#pragma acc parallel copy(a,)").is_err());
        assert!(parse_pragma("#pragma acc parallel 3").is_err());
        assert!(parse_pragma("#pragma acc parallel copy(a])").is_err());
    }

    #[test]
    fn tables() {
        assert_eq!(directive_kind("parallel loop"), Some(DirKind::Region));
        assert_eq!(directive_kind("update"), Some(DirKind::Standalone));
        assert_eq!(directive_kind("atomic capture"), Some(DirKind::Unsupported));
        assert_eq!(directive_kind("bogus"), None);
        assert_eq!(clause_kind(canonical_clause("pcopyin")), Some(ClauseKind::VarList));
        assert_eq!(clause_kind("reduction"), Some(ClauseKind::Unsupported));
        assert_eq!(clause_kind("dtype"), Some(ClauseKind::Unsupported));
        assert_eq!(clause_kind("num_gangs"), Some(ClauseKind::IntList));
        assert_eq!(clause_kind("frobnicate"), None);
        for d in ["host_data", "wait", "init", "shutdown", "set", "atomic", "cache", "routine", "declare"] {
            assert_eq!(directive_kind(d), Some(DirKind::Unsupported), "{}", d);
        }
        for c in ["reduction", "async", "wait", "attach", "detach", "tile", "device_type", "bind",
                  "nohost", "use_device", "device_resident", "link", "default_async", "device_num"] {
            assert_eq!(clause_kind(c), Some(ClauseKind::Unsupported), "{}", c);
        }
        assert!(is_compute("kernels loop") && !is_compute("data") && !is_compute("loop"));
    }

    #[test]
    fn modifiers() {
        assert_eq!(split_modifier("readonly: x[0:n]"), (Some("readonly"), "x[0:n]"));
        assert_eq!(split_modifier("x[0:n]"), (None, "x[0:n]"));
        assert_eq!(split_modifier("num:4"), (Some("num"), "4"));
        assert_eq!(split_modifier("c ? a : b"), (None, "c ? a : b"));
    }
}
