//! Parsing of one `#pragma acc` line into a directive and its clauses. Which directives and
//! clauses exist, and which accc lowers, is the `acc-directives` table's to say.
//!
//! Positions are byte offsets into the pragma line as it appears in the preprocessed text;
//! `rewrite` maps them back to the user's source.

use acc_directives as acc;

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

/// True for directives that apply to the statement that follows them (lowered or not).
pub fn has_body(name: &str) -> bool {
    acc::directive(name).is_some_and(|d| d.form == acc::Form::Region)
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
    // A two-word directive (`parallel loop`, `enter data`, `atomic read`) when the table has one.
    let two_words = format!("{} {}", txt(3), txt(4));
    let (name, mut i) = match acc::directive(&two_words) {
        Some(d) => (d.name.to_string(), 5),
        None => (txt(3).to_string(), 4),
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
    use pretty_assertions::assert_eq;

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
    fn modifiers() {
        assert_eq!(split_modifier("readonly: x[0:n]"), (Some("readonly"), "x[0:n]"));
        assert_eq!(split_modifier("x[0:n]"), (None, "x[0:n]"));
        assert_eq!(split_modifier("num:4"), (Some("num"), "4"));
        assert_eq!(split_modifier("c ? a : b"), (None, "c ? a : b"));
    }
}
