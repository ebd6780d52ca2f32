//! The plain C `for` loops of a `kernels` construct (OpenACC 3.3 §2.5.2: the compiler
//! decides which loops of a `kernels` region run in parallel), found by the rewriter so
//! that each gets a loop directive of its own, as if the user had written `#pragma acc loop`
//! in front of it.
//!
//! Expects: the preprocessed tokens and the index of the first token after the pragma line
//! of a `kernels` construct (the statement it applies to) or of a `kernels loop` (whose own
//! loop, and the loops its `collapse(n)` folds into it, are the directive's).
//!
//! Produces: [`Plain`] loops in source order, outermost first, each with the reason it is
//! left unmarked (None: marked). The rewriter (rewrite.rs) wraps a marked loop in
//! `{ __acc_begin(id, "loop", ...); __acc_clause(id, "implicit"); for ... __acc_end(id); }`
//! (the pass proves it parallel or keeps it sequential, codegen/src/autopar.rs) and writes an
//! unmarked one as an `implicit.seq` clause of the construct (line, column, reason), which
//! only the report reads: that loop runs sequentially where it is.
//!
//! Which loops (the depth policy): every `for` statement (and, listed unmarked, every `while`
//! and `do` statement) of the construct's body reached
//! through blocks, `if`/`else` branches, labels and the bodies of marked `for` loops and of
//! `loop` directives without `seq` or `tile` (after the loops their `collapse(n)` takes). Not
//! marked, and not entered: loops inside `while`, `do` and `switch` statements, inside an
//! unmarked `for`, inside a `loop seq` or a tiled nest (its loops are the tile rewrite's,
//! tile.rs), inside other OpenACC constructs (`atomic`), and loops in the functions the
//! region calls. A loop that never gets a gang under a sequential loop needs that loop to be
//! a directive (codegen/src/mapping.rs); so no marked loop sits inside a loop that is not
//! one.
//!
//! A marked loop must be one the pass can bind (docs/ir-contract.md: a countable loop, a
//! single-exit region): a `for` is left unmarked, with the reason, when its header is not
//! canonical (tile.rs's `parse_header`: `for (int i = lo; i < hi; i += s)` shapes), its
//! variable is declared before it (marking would make it private, OpenACC 3.3 §2.6.1, so the
//! host would no longer see its last value), its body has a `break` of its own, a `goto` or
//! a `return`, or its body writes the loop variable (assignment, `++`/`--`, its address
//! taken). Everything else (calls, scalars carried between iterations, bounds that change)
//! is the pass's to find: the loop then stays sequential there, with the reason. Never an
//! error: a loop the rewriter cannot read is only left unmarked.

use crate::pragma::{has_body, parse_pragma};
use crate::stmt::{match_close, skip_markers, stmt_end};
use crate::tile::parse_header;
use crate::tokenize::{Kind, Token};

/// A plain loop of a `kernels` construct (a `while` or `do` loop is one too, always
/// unmarked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plain {
    /// Index of its `for` (`while`, `do`) token.
    pub for_tok: usize,
    /// Index of the last token of its body.
    pub end: usize,
    /// Why it is left unmarked (None: it gets a loop directive).
    pub reason: Option<String>,
}

/// What the construct's pragma says about its own loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Construct {
    /// `kernels`: the statement after it is the body.
    Kernels,
    /// `kernels loop` with `collapse(n)` (1 without), `seq` or `tile` (then nothing is marked).
    KernelsLoop { collapse: usize, seq_or_tile: bool },
}

/// The plain `for` loops of the construct whose statement starts at `first`.
pub fn find(src: &str, toks: &[Token], first: usize, construct: Construct) -> Vec<Plain> {
    let mut w = Walker { src, toks, out: Vec::new() };
    match construct {
        Construct::Kernels => {
            let _ = w.stmt(first);
        }
        Construct::KernelsLoop { seq_or_tile: true, .. } => {}
        Construct::KernelsLoop { collapse, .. } => {
            let _ = w.directive_loop(first, collapse);
        }
    }
    w.out
}

struct Walker<'a> {
    src: &'a str,
    toks: &'a [Token],
    out: Vec<Plain>,
}

impl Walker<'_> {
    fn paren(&self, i: usize) -> Option<(usize, usize)> {
        let open = skip_markers(self.toks, i).filter(|&o| self.toks[o].is_punct(self.src, "("))?;
        Some((open, match_close(self.src, self.toks, open).ok()?))
    }

    /// Walks the statement starting at or after `i`, collecting its loops; returns the index
    /// of its last token (None: not a statement the walker reads; nothing more is collected).
    fn stmt(&mut self, i: usize) -> Option<usize> {
        let (src, toks) = (self.src, self.toks);
        let i = skip_markers(toks, i)?;
        let t = &toks[i];
        match t.kind {
            Kind::Pragma => match parse_pragma(t.text(src)) {
                Ok(Some(d)) if !has_body(&d.name) => Some(i),
                Ok(Some(d)) if d.name == "loop" => {
                    let named = |n: &str| d.clauses.iter().any(|c| acc_directives::canonical_clause_name(&c.name) == n);
                    let end = stmt_end(src, toks, i + 1).ok()?;
                    if !named("seq") && !named("tile") {
                        let collapse = d
                            .clauses
                            .iter()
                            .find(|c| c.name == "collapse")
                            .and_then(|c| c.args.as_ref()?.first().map(|a| crate::tile::eval_size(crate::pragma::split_modifier(&a.text).1)))
                            .map_or(Some(1), |n| n.map(|n| n as usize));
                        if let Some(n) = collapse {
                            self.directive_loop(i + 1, n.max(1));
                        }
                    }
                    Some(end)
                }
                // Another construct (`atomic`): its statement is its own.
                Ok(Some(_)) => stmt_end(src, toks, i + 1).ok(),
                // Not OpenACC (`#pragma unroll`): the statement follows.
                Ok(None) => self.stmt(i + 1),
                Err(_) => None,
            },
            Kind::Punct if t.punct(src) == "{" || t.punct(src) == "<%" => {
                let close = match_close(src, toks, i).ok()?;
                let mut j = i + 1;
                while let Some(k) = skip_markers(toks, j).filter(|&k| k < close) {
                    j = self.stmt(k)? + 1;
                }
                Some(close)
            }
            Kind::Ident => match t.text(src) {
                "for" => {
                    let end = stmt_end(src, toks, i).ok()?;
                    let (open, close) = self.paren(i + 1)?;
                    let reason = self.classify(open, close, end);
                    let marked = reason.is_none();
                    self.out.push(Plain { for_tok: i, end, reason });
                    if marked {
                        self.stmt(close + 1)?;
                    }
                    Some(end)
                }
                "if" => {
                    let (_, close) = self.paren(i + 1)?;
                    let then_end = self.stmt(close + 1)?;
                    match skip_markers(toks, then_end + 1) {
                        Some(e) if toks[e].is_ident(src, "else") => self.stmt(e + 1),
                        _ => Some(then_end),
                    }
                }
                // Loops that are not `for` loops: listed, unmarked, not entered.
                w @ ("while" | "do") => {
                    let end = stmt_end(src, toks, i).ok()?;
                    self.out.push(Plain { for_tok: i, end, reason: Some(format!("not a countable loop (a '{w}' loop: only 'for' loops are analysed)")) });
                    Some(end)
                }
                "switch" | "case" | "default" => stmt_end(src, toks, i).ok(),
                _ => match skip_markers(toks, i + 1) {
                    // A label: the statement it labels.
                    Some(n) if toks[n].is_punct(src, ":") => self.stmt(n + 1),
                    _ => stmt_end(src, toks, i).ok(),
                },
            },
            _ => stmt_end(src, toks, i).ok(),
        }
    }

    /// A loop directive's loop at `i` and the `n - 1` loops its collapse takes: walks the
    /// innermost one's body.
    fn directive_loop(&mut self, i: usize, n: usize) -> Option<()> {
        let (src, toks) = (self.src, self.toks);
        let mut at = skip_markers(toks, i)?;
        for level in 0..n {
            // Other pragmas (`#pragma unroll`) and braces may come between collapsed loops.
            while toks[at].kind == Kind::Pragma || (level > 0 && toks[at].is_punct(src, "{")) {
                at = skip_markers(toks, at + 1)?;
            }
            if !toks[at].is_ident(src, "for") {
                return None;
            }
            let (_, close) = self.paren(at + 1)?;
            if level + 1 == n {
                self.stmt(close + 1)?;
            } else {
                at = skip_markers(toks, close + 1)?;
            }
        }
        Some(())
    }

    /// Why the `for` whose header is `toks[open..=close]` and whose body ends at `end` is
    /// left unmarked (None: it is marked).
    fn classify(&self, open: usize, close: usize, end: usize) -> Option<String> {
        let (src, toks) = (self.src, self.toks);
        let h = match parse_header(src, &toks[open + 1..close]) {
            Ok(h) => h,
            Err(_) => return Some("not a countable loop (its header is not 'for (int i = lo; i < hi; i += step)')".into()),
        };
        if h.ty.is_none() {
            return Some(format!(
                "not a countable loop of its own: its variable '{}' is declared before it (declare it in the 'for' to let the compiler privatise it)",
                h.var
            ));
        }
        body_reason(src, toks, close + 1, end, &h.var)
    }
}

/// Why a loop body (`toks[from..=end]`) keeps its loop unmarked: an exit of its own
/// (`break` not inside an inner loop or `switch`, `goto`, `return`) or a write of the loop
/// variable `var`.
fn body_reason(src: &str, toks: &[Token], from: usize, end: usize, var: &str) -> Option<String> {
    // Inner loops and switches: a `break` there is theirs.
    let mut inner: Vec<(usize, usize)> = Vec::new();
    let operand = |k: usize| {
        (0..k).rev().find(|&p| !matches!(toks[p].kind, Kind::LineMarker { .. })).is_some_and(|p| {
            let t = &toks[p];
            matches!(t.kind, Kind::Ident | Kind::Number | Kind::Str | Kind::Char) || t.is_punct(src, ")") || t.is_punct(src, "]")
        })
    };
    let prev = |k: usize| (from..k).rev().find(|&p| !matches!(toks[p].kind, Kind::LineMarker { .. })).map(|p| (p, toks[p].text(src)));
    let next = |k: usize| skip_markers(toks, k + 1).filter(|&n| n <= end).map(|n| toks[n].text(src));
    for k in from..=end {
        let t = &toks[k];
        if t.kind != Kind::Ident {
            continue;
        }
        match t.text(src) {
            "for" | "while" | "do" | "switch" => {
                if let Ok(e) = stmt_end(src, toks, k) {
                    inner.push((k, e));
                }
            }
            "break" if !inner.iter().any(|(a, b)| *a < k && k <= *b) => return Some("a 'break' leaves it early".into()),
            "goto" => return Some("its body has a 'goto'".into()),
            "return" => return Some("its body has a 'return'".into()),
            name if name == var => {
                let member = matches!(prev(k), Some((_, "." | "->")));
                let written = matches!(next(k), Some("=" | "+=" | "-=" | "*=" | "/=" | "%=" | "<<=" | ">>=" | "&=" | "|=" | "^=" | "++" | "--"))
                    || matches!(prev(k), Some((_, "++" | "--")))
                    || matches!(prev(k), Some((p, "&")) if !operand(p));
                if written && !member {
                    return Some(format!("its body writes the loop variable '{var}'"));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::tokenize;
    use pretty_assertions::assert_eq;

    /// (text from `for` to the loop's end, reason) per loop found in `src`'s statement.
    fn found(src: &str, construct: Construct) -> Vec<(String, Option<String>)> {
        let toks = tokenize(src, true);
        find(src, &toks, 0, construct).into_iter().map(|p| (src[toks[p.for_tok].start..toks[p.end].end].to_string(), p.reason)).collect()
    }

    fn texts(src: &str) -> Vec<String> {
        found(src, Construct::Kernels).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn nests_are_marked_every_level() {
        let src = "{ x = 1; for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) a[i*m+j] = 0; b[i] = 1; } if (c) for (int k = n; k > 0; k--) c[k] = 0; else { for (long l = 0; l < n; l += 2) d[l] = 0; } }";
        assert_eq!(
            found(src, Construct::Kernels),
            vec![
                ("for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) a[i*m+j] = 0; b[i] = 1; }".into(), None),
                ("for (int j = 0; j < m; j++) a[i*m+j] = 0;".into(), None),
                ("for (int k = n; k > 0; k--) c[k] = 0;".into(), None),
                ("for (long l = 0; l < n; l += 2) d[l] = 0;".into(), None),
            ]
        );
        // A lone loop as the construct's statement.
        assert_eq!(texts("for (int i = 0; i < n; i++) a[i] = 0; z;"), ["for (int i = 0; i < n; i++) a[i] = 0;"]);
    }

    #[test]
    fn unreadable_loops_stay_unmarked_with_the_reason() {
        let reason = |src: &str| found(src, Construct::Kernels).into_iter().next().and_then(|(_, r)| r);
        assert!(reason("for (;;) { if (x) break; }").unwrap().starts_with("not a countable loop (its header"));
        assert!(reason("for (int i = 0; x < n; i++) a[i] = 0;").unwrap().starts_with("not a countable loop"));
        assert!(reason("for (i = 0; i < n; i++) a[i] = 0;").unwrap().contains("'i' is declared before it"));
        assert_eq!(reason("for (int i = 0; i < n; i++) { if (a[i] < 0) break; a[i] = 1; }").unwrap(), "a 'break' leaves it early");
        assert_eq!(reason("for (int i = 0; i < n; i++) { if (a[i]) goto out; } out: ;").unwrap(), "its body has a 'goto'");
        assert_eq!(reason("for (int i = 0; i < n; i++) { a[i] = 0; i += 2; }").unwrap(), "its body writes the loop variable 'i'");
        assert_eq!(reason("for (int i = 0; i < n; i++) f(&i);").unwrap(), "its body writes the loop variable 'i'");
        assert_eq!(reason("for (int i = 0; i < n; i++) a[i] = ++i;").unwrap(), "its body writes the loop variable 'i'");
        // Not writes: a comparison, a member of that name, a bitwise and, an inner loop's break.
        assert_eq!(reason("for (int i = 0; i < n; i++) { a[i] = (i == 3) + s.i + (m & i); s->i = 2; }"), None);
        assert_eq!(reason("for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) if (a[j]) break; while (x) break; switch (i) { case 1: break; } }"), None);
    }

    #[test]
    fn what_is_not_entered() {
        // Inside while/do/switch and an unmarked loop: nothing; the unmarked loop itself is listed.
        assert_eq!(
            found("{ while (t) for (int i = 0; i < n; i++) a[i] = 0; do { for (int i = 0; i < n; i++) a[i] = 0; } while (t); switch (t) { case 1: for (;;); } }", Construct::Kernels),
            vec![
                ("while (t) for (int i = 0; i < n; i++) a[i] = 0;".into(), Some("not a countable loop (a 'while' loop: only 'for' loops are analysed)".into())),
                ("do { for (int i = 0; i < n; i++) a[i] = 0; } while (t);".into(), Some("not a countable loop (a 'do' loop: only 'for' loops are analysed)".into())),
            ]
        );
        assert_eq!(texts("for (int t = 0; t < 9; t++) { if (x) break; for (int i = 0; i < n; i++) a[i] = 0; }"), ["for (int t = 0; t < 9; t++) { if (x) break; for (int i = 0; i < n; i++) a[i] = 0; }"]);
        // `loop seq` and a tiled nest: nothing inside; other loop directives: inside their loops.
        assert_eq!(texts("{\n#pragma acc loop seq\nfor (int i = 0; i < n; i++) for (int j = 0; j < m; j++) a[j] = 0;\n}"), Vec::<String>::new());
        assert_eq!(texts("{\n#pragma acc loop tile(8)\nfor (int i = 0; i < n; i++) for (int j = 0; j < m; j++) a[j] = 0;\n}"), Vec::<String>::new());
        assert_eq!(texts("{\n#pragma acc loop gang\nfor (int i = 0; i < n; i++) for (int j = 0; j < m; j++) a[j] = 0;\n}"), ["for (int j = 0; j < m; j++) a[j] = 0;"]);
        assert_eq!(
            texts("{\n#pragma acc loop collapse(2)\nfor (int i = 0; i < n; i++) for (int j = 0; j < m; j++) for (int k = 0; k < m; k++) a[k] = 0;\n}"),
            ["for (int k = 0; k < m; k++) a[k] = 0;"]
        );
        // An atomic's statement is its own.
        assert_eq!(texts("{\n#pragma acc atomic update\nx += 1;\nfor (int i = 0; i < n; i++) a[i] = 0;\n}"), ["for (int i = 0; i < n; i++) a[i] = 0;"]);
    }

    #[test]
    fn kernels_loop_marks_inside_its_own_loops() {
        let src = "for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) for (int k = 0; k < m; k++) a[k] = 0;";
        let loops = |c| found(src, c).into_iter().map(|(t, _)| t).collect::<Vec<_>>();
        assert_eq!(loops(Construct::KernelsLoop { collapse: 1, seq_or_tile: false }), ["for (int j = 0; j < m; j++) for (int k = 0; k < m; k++) a[k] = 0;", "for (int k = 0; k < m; k++) a[k] = 0;"]);
        assert_eq!(loops(Construct::KernelsLoop { collapse: 2, seq_or_tile: false }), ["for (int k = 0; k < m; k++) a[k] = 0;"]);
        assert!(loops(Construct::KernelsLoop { collapse: 1, seq_or_tile: true }).is_empty());
    }
}
