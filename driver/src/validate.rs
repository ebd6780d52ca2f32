//! Step 1's output, filtered: clang's OpenACC checks minus the one accc overrules.
//!
//! Clang 22 rejects a `float _Complex`/`double _Complex` variable in a `reduction` clause
//! ("invalid type '_Complex double' used in OpenACC 'reduction' variable reference"), but
//! OpenACC 3.3 §2.5.15 allows `+` and `*` on complex types and accc reduces them. The
//! validation step's stderr is therefore captured and that diagnostic (with its notes)
//! dropped; the pass still rejects other operators on complex types at the clause. So is
//! Clang's rejection of the atomic statements accc lowers as an extension (`x = x && e`,
//! `x = x < e ? e : x`: atomic.rs), which the rewriter checks itself. Every other
//! diagnostic is printed unchanged.

/// Clang's message for a complex reduction variable (C's two complex types).
fn is_complex_reduction_error(message: &str) -> bool {
    message.contains(" error: invalid type '_Complex ")
        && message.contains("' used in OpenACC 'reduction' variable reference")
        && (message.contains("'_Complex float'") || message.contains("'_Complex double'"))
}

/// Whether `line` starts a diagnostic (`file:line:col: error: ...`, `note:`, `warning:`).
fn diagnostic_kind(line: &str) -> Option<&'static str> {
    let plain = strip_ansi(line);
    ["error", "warning", "note", "fatal error"].into_iter().find(|k| plain.contains(&format!(": {k}: ")) && !plain.starts_with(' '))
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Clang's message for an atomic statement it rejects, and the notes (what it found wrong)
/// for the forms accc lowers anyway as an extension (atomic.rs): `&&`/`||` as the operator,
/// a `?:` min/max, and such an update in a capture block. The rewriter classifies every
/// atomic statement itself and rejects, at the statement, any it cannot lower, so dropping
/// these lets nothing malformed through.
fn is_atomic_statement_error(message: &str) -> bool {
    message.contains(" error: statement associated with OpenACC 'atomic") && message.trim_end().ends_with("' directive is invalid")
}

fn is_atomic_extension_note(message: &str) -> bool {
    [
        " note: binary operator not supported, only +, *, -, /, &, ^, |, <<, or >> are permitted",
        " note: expected binary operation on right hand side of assignment operator",
        " note: right operand to assignment expression must be an l-value",
    ]
    .iter()
    .any(|n| message.trim_end().ends_with(n))
}

/// One diagnostic: its first line (without colours), and its text with the include stack
/// before it and the source lines after it.
struct Block {
    kind: Option<&'static str>,
    first: String,
    text: String,
}

/// Clang's stderr without the complex-reduction errors, the atomic-statement errors of
/// accc's extension forms, and their notes, and the number of errors left. The "N errors
/// generated." line is rewritten (or dropped with none left).
pub fn filter(stderr: &str) -> (String, usize) {
    let mut blocks: Vec<Block> = Vec::new();
    // "In file included from ..." lines belong to the diagnostic after them: kept or
    // dropped with it.
    let mut include_stack = String::new();
    for line in stderr.split_inclusive('\n') {
        let plain = strip_ansi(line);
        if plain.starts_with("In file included from ") || (!include_stack.is_empty() && plain.trim_start().starts_with("from ") && plain.starts_with(' ')) {
            include_stack.push_str(line);
            continue;
        }
        if plain.trim_end().ends_with("generated.") && (plain.contains(" error") || plain.contains(" warning")) && !plain.starts_with(' ') && diagnostic_kind(line).is_none() {
            // Summary lines: rebuilt below.
            continue;
        }
        match diagnostic_kind(line) {
            Some(kind) => {
                blocks.push(Block { kind: Some(kind), first: plain, text: std::mem::take(&mut include_stack) + line });
            }
            None => match blocks.last_mut() {
                Some(b) => {
                    b.text.push_str(&include_stack);
                    include_stack.clear();
                    b.text.push_str(line);
                }
                None => blocks.push(Block { kind: None, first: plain, text: std::mem::take(&mut include_stack) + line }),
            },
        }
    }
    let mut out = String::new();
    let mut errors = 0;
    let mut dropping = false;
    for (i, b) in blocks.iter().enumerate() {
        match b.kind {
            Some("error" | "fatal error") if is_complex_reduction_error(&b.first) => dropping = true,
            Some("error") if is_atomic_statement_error(&b.first) && blocks.get(i + 1).is_some_and(|n| n.kind == Some("note") && is_atomic_extension_note(&n.first)) => dropping = true,
            Some("note") if dropping => {}
            Some(kind) => {
                dropping = false;
                errors += usize::from(kind == "error" || kind == "fatal error");
            }
            None => {}
        }
        if !dropping {
            out.push_str(&b.text);
        }
    }
    out.push_str(&include_stack);
    if errors > 0 {
        out.push_str(&format!("{errors} error{} generated.\n", if errors == 1 { "" } else { "s" }));
    }
    (out, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_stack_goes_with_its_diagnostic() {
        let complex = "In file included from main.c:2:\nIn file included from a.h:1:\ncred.h:3:41: error: invalid type '_Complex double' used in OpenACC 'reduction' variable reference; type is not a scalar value\n    3 | x\n1 error generated.\n";
        assert_eq!(filter(complex), (String::new(), 0));
        let other = "In file included from main.c:2:\nbad.h:1:1: error: unknown type name 'foo'\n1 error generated.\n";
        assert_eq!(filter(other), ("In file included from main.c:2:\nbad.h:1:1: error: unknown type name 'foo'\n1 error generated.\n".to_string(), 1));
    }

    const CLANG: &str = "r.c:4:41: error: variable of type 'double' referenced in OpenACC 'reduction' clause does not have a valid operation available
    4 |   #pragma acc parallel loop reduction(&:s)
      |                                         ^
r.c:6:43: error: invalid type '_Complex double' used in OpenACC 'reduction' variable reference; type is not a scalar value, or array of scalars, or composite of scalars
    6 |   #pragma acc parallel loop reduction(max:z)
      |                                           ^
r.c:6:43: note: OpenACC 'reduction' variable reference must be a scalar variable or a composite of scalars, or an array, sub-array, or element of scalar types
r.c:9:3: warning: unused variable 'q'
2 errors generated.
";

    #[test]
    fn complex_reduction_errors_are_dropped_with_their_notes() {
        let (out, errors) = filter(CLANG);
        assert_eq!(errors, 1);
        assert!(out.starts_with("r.c:4:41: error: variable of type 'double'"), "{out}");
        assert!(!out.contains("_Complex") && !out.contains("note:"), "{out}");
        assert!(out.contains("r.c:9:3: warning: unused variable 'q'\n1 error generated.\n"), "{out}");
    }

    #[test]
    fn only_complex_errors_leave_nothing() {
        let only = "t.c:2:9: error: invalid type '_Complex float' used in OpenACC 'reduction' variable reference; x\n    2 | x\n      | ^\nt.c:2:9: note: OpenACC 'reduction' variable reference must be\n1 error generated.\n";
        assert_eq!(filter(only), (String::new(), 0));
        // Warnings pass through untouched.
        let w = "t.c:1:1: warning: w\n1 warning generated.\n";
        assert_eq!(filter(w).1, 0);
        assert!(filter(w).0.starts_with("t.c:1:1: warning: w\n"));
    }

    #[test]
    fn atomic_extension_forms_are_left_to_the_rewriter() {
        let clang = "In file included from w.c:10:
./w.h:1:1: error: statement associated with OpenACC 'atomic' directive is invalid
    1 | #pragma acc atomic
      | ^
./w.h:2:7: note: expected binary operation on right hand side of assignment operator
    2 |   x = x < n ? n : x;
      |       ^
w.c:4:1: error: statement associated with OpenACC 'atomic capture' directive is invalid
    4 | #pragma acc atomic capture
      | ^
w.c:7:18: note: binary operator not supported, only +, *, -, /, &, ^, |, <<, or >> are permitted
    7 |   { v = x; x = x || n; }
      |                  ^
w.c:8:1: error: statement associated with OpenACC 'atomic update' directive is invalid
    8 | #pragma acc atomic update
      | ^
w.c:9:3: note: expected assignment, compound assignment, increment, or decrement expression
    9 |   if (x < n) x = n;
      |   ^
3 errors generated.
";
        let (out, errors) = filter(clang);
        assert_eq!(errors, 1);
        assert!(out.starts_with("w.c:8:1: error: statement associated with OpenACC 'atomic update' directive is invalid\n"), "{out}");
        assert!(out.ends_with("      |   ^\n1 error generated.\n") && !out.contains("w.h") && !out.contains("||"), "{out}");
    }

    #[test]
    fn colours_do_not_hide_a_diagnostic() {
        let coloured = "\u{1b}[1mt.c:2:9: \u{1b}[0m\u{1b}[0;1;31merror: \u{1b}[0m\u{1b}[1minvalid type '_Complex double' used in OpenACC 'reduction' variable reference\u{1b}[0m\n";
        assert_eq!(filter(coloured).1, 0);
    }
}
