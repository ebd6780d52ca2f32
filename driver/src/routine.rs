//! `#pragma acc routine`: which function a directive applies to, and where its markers go.
//!
//! A `routine` directive is a declaration, not a statement, so its markers
//! (docs/ir-contract.md) cannot stand where it is written at file scope. They go into a
//! function of their own, `void __acc_routine_<id>(void)` (`acc::ROUTINE_HOLDER`), whose only
//! job is to carry them to the pass, which reads them and erases the function. The routine's
//! function is the `routine.function` clause's operand (the function designator itself, so
//! the front end resolves the name as C does). The unnamed form applies to the declaration
//! that follows it: the holder goes right after that declaration's `;` or body, where the
//! name is declared; the named form `routine(f)` names a function already declared, so the
//! holder replaces the directive. Inside a function body the markers are a block statement
//! instead. Nothing here adds a line: line markers stay right.

use acc_directives as acc;

use crate::operand::c_string;
use crate::pragma::{parse_pragma, Directive};
use crate::stmt::match_close;
use crate::tokenize::{Kind, Token};

/// The function a `routine` directive applies to, and the token after which its markers go
/// (None: in place of the directive).
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    pub name: String,
    pub after: Option<usize>,
}

/// Identifiers followed by a parenthesised group that is not a parameter list.
const NOT_A_NAME: &[&str] = &[
    "__attribute__", "__attribute", "__declspec", "_Alignas", "alignas", "typeof", "__typeof__", "__typeof",
    "typeof_unqual", "_Static_assert", "static_assert", "__asm__", "__asm", "asm", "_Atomic", "__extension__",
];

/// Keywords that start a statement, not a declaration.
const STATEMENT_KEYWORDS: &[&str] = &["for", "while", "if", "switch", "return", "sizeof", "_Alignof", "alignof", "do", "else", "case", "goto"];

/// The function of directive `d`, written at token `ti` of `toks`.
pub fn target(d: &Directive, src: &str, toks: &[Token], ti: usize) -> Result<Target, String> {
    if let Some(args) = &d.args {
        return match args.as_slice() {
            [a] if is_identifier(a.text.trim()) => Ok(Target { name: a.text.trim().to_string(), after: None }),
            _ => Err("OpenACC 'routine(name)' takes one function name".to_string()),
        };
    }
    following_function(src, toks, ti + 1).ok_or_else(|| "expected a function declaration or definition after OpenACC 'routine'".to_string())
}

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The name declared by the declaration starting at token `from` (other directives and line
/// markers before it are skipped) and its last token: the `;`, or the `}` of the body.
fn following_function(src: &str, toks: &[Token], from: usize) -> Option<Target> {
    let mut i = from;
    // Other pragmas (not OpenACC ones) and line markers may come between.
    let skipped = |t: &Token| match t.kind {
        Kind::LineMarker { .. } => true,
        Kind::Pragma => matches!(parse_pragma(t.text(src)), Ok(None)),
        _ => false,
    };
    while toks.get(i).is_some_and(skipped) {
        i += 1;
    }
    let mut name = None;
    while i < toks.len() {
        let t = &toks[i];
        // `int (*f(int))(int)`: a parenthesis that opens with `*` groups a declarator.
        let next_is_open = toks.get(i + 1).is_some_and(|n| n.is_punct(src, "(")) && !toks.get(i + 2).is_some_and(|n| n.is_punct(src, "*"));
        if t.kind == Kind::Ident && next_is_open {
            if NOT_A_NAME.contains(&t.text(src)) {
                i = match_close(src, toks, i + 1).ok()? + 1;
                continue;
            }
            if STATEMENT_KEYWORDS.contains(&t.text(src)) {
                return None;
            }
            name = Some(t.text(src).to_string());
            break;
        }
        if t.kind == Kind::Pragma || (t.kind == Kind::Punct && [";", "{", "}", "="].contains(&t.punct(src))) {
            return None;
        }
        i += 1;
    }
    let name = name?;
    // The end: `;` or the body's `}` outside every parenthesis.
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == Kind::Punct {
            match t.punct(src) {
                "(" | "[" => i = match_close(src, toks, i).ok()?,
                ";" => return Some(Target { name, after: Some(i) }),
                "{" => return Some(Target { name, after: Some(match_close(src, toks, i).ok()?) }),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The `routine.function` clause call that names the directive's function.
pub fn function_clause(id: usize, name: &str) -> String {
    format!("__acc_clause({id}, {}, {name}); ", c_string(acc::Clause::RoutineFunction.name()))
}

/// The text that carries the directive's markers (`{ __acc_begin...; __acc_end(id); }`): at
/// file scope (`depth` 0) a holder function, declared first so that no prototype warning
/// fires; in a function, the block itself.
pub fn holder(id: usize, markers: &str, depth: i64) -> String {
    if depth > 0 {
        return markers.to_string();
    }
    let f = format!("{}{id}", acc::ROUTINE_HOLDER);
    format!(" void {f}(void); void {f}(void) {markers}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::tokenize;

    fn find(src: &str) -> Option<(String, Option<String>)> {
        let toks = tokenize(src, true);
        following_function(src, &toks, 0).map(|t| (t.name, t.after.map(|i| toks[i].text(src).to_string())))
    }

    #[test]
    fn names_of_declarations() {
        assert_eq!(find("static inline int f(int x);"), Some(("f".into(), Some(";".into()))));
        assert_eq!(find("double g(double *p) { if (p) { return 1; } return 0; } int h;"), Some(("g".into(), Some("}".into()))));
        assert_eq!(find("__attribute__((noinline)) unsigned long k(void (*cb)(int)) ;"), Some(("k".into(), Some(";".into()))));
        assert_eq!(find("int (*pick(int n))(int);"), Some(("pick".into(), Some(";".into()))));
        assert_eq!(find("#pragma omp declare simd\nfloat v(float);"), Some(("v".into(), Some(";".into()))));
        assert_eq!(find("int x;"), None);
        assert_eq!(find("struct s { int a; };"), None);
        assert_eq!(find("int a[3] = {1};"), None);
        assert_eq!(find("#pragma acc init\nint f(int);"), None);
        assert_eq!(find("for (;;) ;"), None);
    }

    #[test]
    fn holders() {
        assert_eq!(holder(3, "{ m; }", 0), " void __acc_routine_3(void); void __acc_routine_3(void) { m; }");
        assert_eq!(holder(3, "{ m; }", 2), "{ m; }");
    }
}
