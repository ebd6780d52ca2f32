//! The statement finder: given the token after a directive's pragma line, find the last
//! token of the C statement the directive applies to.
//!
//! Statements: `{...}`, `for (...) S`, `while (...) S`, `switch (...) S`,
//! `if (...) S [else S]`, `do S while (...);`, labels, `;`, and expression / jump
//! statements up to their `;`. A `#pragma acc` construct with a body in front of a statement
//! is part of it (recursively); other pragmas (`#pragma unroll`) are skipped; a standalone
//! `#pragma acc` directive is itself a statement. Line markers may appear anywhere and are
//! skipped.

use crate::pragma::{has_body, parse_pragma};
use crate::tokenize::{Kind, Token};

/// First index >= `i` that is not a line marker.
pub fn skip_markers(toks: &[Token], mut i: usize) -> Option<usize> {
    while i < toks.len() {
        if !matches!(toks[i].kind, Kind::LineMarker { .. }) {
            return Some(i);
        }
        i += 1;
    }
    None
}

const EOF_MSG: &str = "expected a statement after the OpenACC directive";

/// `toks[open]` is `(`, `[` or `{`; returns the index of the matching closer.
pub fn match_close(src: &str, toks: &[Token], open: usize) -> Result<usize, String> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.kind != Kind::Punct {
            continue;
        }
        match t.punct(src) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    Err(format!("unbalanced '{}'", toks[open].text(src)))
}

/// Expects `(` at the next non-marker index >= i; returns the index of its `)`.
fn paren_group(src: &str, toks: &[Token], i: usize) -> Result<usize, String> {
    let j = skip_markers(toks, i).ok_or(EOF_MSG)?;
    if !toks[j].is_punct(src, "(") {
        return Err(format!("expected '(' but found '{}'", toks[j].text(src)));
    }
    match_close(src, toks, j)
}

/// Returns the index of the last token of the statement starting at or after `i`.
pub fn stmt_end(src: &str, toks: &[Token], i: usize) -> Result<usize, String> {
    let i = skip_markers(toks, i).ok_or(EOF_MSG)?;
    let t = &toks[i];
    let text = t.punct(src);
    match &t.kind {
        Kind::Pragma => match parse_pragma(text) {
            Ok(Some(d)) if !has_body(&d.name) => Ok(i),
            // A construct with a body (or a non-OpenACC pragma): the statement follows.
            _ => stmt_end(src, toks, i + 1),
        },
        Kind::Punct if text == "{" => match_close(src, toks, i),
        Kind::Punct if text == ";" => Ok(i),
        Kind::Ident => match text {
            "for" | "while" | "switch" => {
                let close = paren_group(src, toks, i + 1)?;
                stmt_end(src, toks, close + 1)
            }
            "if" => {
                let close = paren_group(src, toks, i + 1)?;
                let end = stmt_end(src, toks, close + 1)?;
                match skip_markers(toks, end + 1) {
                    Some(e) if toks[e].is_ident(src, "else") => stmt_end(src, toks, e + 1),
                    _ => Ok(end),
                }
            }
            "do" => {
                let body = stmt_end(src, toks, i + 1)?;
                let w = skip_markers(toks, body + 1).ok_or(EOF_MSG)?;
                if !toks[w].is_ident(src, "while") {
                    return Err("expected 'while' after the body of 'do'".into());
                }
                let close = paren_group(src, toks, w + 1)?;
                let semi = skip_markers(toks, close + 1).ok_or(EOF_MSG)?;
                if !toks[semi].is_punct(src, ";") {
                    return Err("expected ';' after 'do ... while (...)'".into());
                }
                Ok(semi)
            }
            "case" | "default" => {
                // case EXPR : S   /   default : S
                let colon = expr_until(src, toks, i + 1, ":")?;
                stmt_end(src, toks, colon + 1)
            }
            _ => {
                // A label `ident :` followed by a statement, or an expression statement.
                if let Some(n) = skip_markers(toks, i + 1) {
                    if toks[n].is_punct(src, ":") {
                        return stmt_end(src, toks, n + 1);
                    }
                }
                expr_until(src, toks, i, ";")
            }
        },
        _ => expr_until(src, toks, i, ";"),
    }
}

/// Index of the first `stop` punctuator at bracket depth 0 at or after `i`.
fn expr_until(src: &str, toks: &[Token], mut i: usize, stop: &str) -> Result<usize, String> {
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == Kind::Punct {
            match t.punct(src) {
                "(" | "[" | "{" => {
                    i = match_close(src, toks, i)? + 1;
                    continue;
                }
                ")" | "]" | "}" => {
                    return Err(format!("expected '{}' before '{}'", stop, t.text(src)))
                }
                s if s == stop => return Ok(i),
                _ => {}
            }
        }
        i += 1;
    }
    Err(EOF_MSG.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::tokenize;
    use pretty_assertions::assert_eq;

    /// Returns the text from the first token to the end of the statement found there.
    fn stmt(src: &str) -> String {
        let toks = tokenize(src, true);
        let end = stmt_end(src, &toks, 0).unwrap();
        src[toks[0].start..toks[end].end].to_string()
    }

    #[test]
    fn simple_statements() {
        assert_eq!(stmt("x = f(a, b); y = 2;"), "x = f(a, b);");
        assert_eq!(stmt("{ a; { b; } } c;"), "{ a; { b; } }");
        assert_eq!(stmt("; x;"), ";");
        assert_eq!(stmt("return (int){1}; x;"), "return (int){1};");
    }

    #[test]
    fn loops() {
        assert_eq!(stmt("for (i = 0; i < n; i++) y[i] = x[i]; z;"), "for (i = 0; i < n; i++) y[i] = x[i];");
        assert_eq!(stmt("for (;;) { a; } z;"), "for (;;) { a; }");
        assert_eq!(stmt("for (i=0;i<n;i++) for (j=0;j<m;j++) a[i][j]=0; z;"), "for (i=0;i<n;i++) for (j=0;j<m;j++) a[i][j]=0;");
        assert_eq!(stmt("while (x) x--; z;"), "while (x) x--;");
        assert_eq!(stmt("do { x--; } while (x > 0); z;"), "do { x--; } while (x > 0);");
        assert_eq!(stmt("do x--; while (x); z;"), "do x--; while (x);");
    }

    #[test]
    fn if_else_switch_labels() {
        assert_eq!(stmt("if (a) b; else if (c) d; else { e; } z;"), "if (a) b; else if (c) d; else { e; }");
        assert_eq!(stmt("if (a) { b; } z;"), "if (a) { b; }");
        assert_eq!(stmt("if (a) if (b) c; else d; z;"), "if (a) if (b) c; else d;");
        assert_eq!(stmt("switch (a) { case 1: b; } z;"), "switch (a) { case 1: b; }");
        assert_eq!(stmt("lbl: x = 1; z;"), "lbl: x = 1;");
    }

    #[test]
    fn pragmas_and_markers() {
        let src = "#pragma acc loop seq\nfor (;;) a;\nz;";
        assert_eq!(stmt(src), "#pragma acc loop seq\nfor (;;) a;");
        let src = "#pragma unroll\nfor (;;) a;\nz;";
        assert_eq!(stmt(src), "#pragma unroll\nfor (;;) a;");
        let src = "#pragma acc update device(x)\nz;";
        assert_eq!(stmt(src), "#pragma acc update device(x)");
        let src = "for (i = 0;\n# 20 \"t.c\"\n i < n; i++)\n# 30 \"t.c\"\n a;\nz;";
        assert_eq!(stmt(src), "for (i = 0;\n# 20 \"t.c\"\n i < n; i++)\n# 30 \"t.c\"\n a;");
        let src = "# 5 \"t.c\"\n{ a; }";
        let toks = tokenize(src, true);
        assert_eq!(stmt_end(src, &toks, 0).unwrap(), 4);
    }

    #[test]
    fn digraph_braces() {
        assert_eq!(stmt("<% a; b<:1:> = 2; %> z;"), "<% a; b<:1:> = 2; %>");
        assert_eq!(stmt("for (;;) <% a; b; %> z;"), "for (;;) <% a; b; %>");
        assert_eq!(stmt("x = (int)<%1%>; z;"), "x = (int)<%1%>;");
    }

    #[test]
    fn errors() {
        let toks = tokenize("x = 1", true);
        assert!(stmt_end("x = 1", &toks, 0).is_err());
        let toks = tokenize("{ a;", true);
        assert!(stmt_end("{ a;", &toks, 0).is_err());
        let toks = tokenize("", true);
        assert!(stmt_end("", &toks, 0).is_err());
        let toks = tokenize("do a; b;", true);
        assert!(stmt_end("do a; b;", &toks, 0).is_err());
    }
}
