//! Encoding of clause operands as C expressions, exactly as docs/ir-contract.md specifies:
//! a *var* is `base, lower, length, elem_size, text`, every integer cast to `long long`.

use crate::tokenize::{tokenize, Kind, Token};

/// Quotes `s` as a C string literal.
pub fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A `[...]` group at the top level of a clause item.
struct Group {
    open: usize,
    close: usize,
    /// Token index of the top-level ':' inside, if any (a section rather than a subscript).
    colon: Option<usize>,
}

fn top_level_groups(src: &str, toks: &[Token]) -> Result<Vec<Group>, String> {
    let mut groups = Vec::new();
    let mut depth = 0i32;
    let mut cur: Option<(usize, Option<usize>, i32)> = None; // (open, colon, pending '?')
    for (i, t) in toks.iter().enumerate() {
        if t.kind != Kind::Punct {
            continue;
        }
        match t.punct(src) {
            "(" | "{" => depth += 1,
            "[" => {
                if depth == 0 {
                    cur = Some((i, None, 0));
                }
                depth += 1;
            }
            ")" | "}" => depth -= 1,
            "]" => {
                depth -= 1;
                if depth == 0 {
                    let (open, colon, _) = cur.take().ok_or("unbalanced ']'")?;
                    groups.push(Group { open, close: i, colon });
                }
            }
            "?" if depth == 1 => {
                if let Some(c) = cur.as_mut() {
                    c.2 += 1;
                }
            }
            ":" if depth == 1 => {
                if let Some(c) = cur.as_mut() {
                    if c.2 > 0 {
                        c.2 -= 1; // the ':' of a conditional expression
                    } else if c.1.is_none() {
                        c.1 = Some(i);
                    } else {
                        return Err("more than one ':' in an array section".into());
                    }
                }
            }
            _ => {}
        }
        if depth < 0 {
            return Err("unbalanced brackets".into());
        }
    }
    if depth != 0 {
        return Err("unbalanced brackets".into());
    }
    Ok(groups)
}

/// Why an item could not be encoded.
#[derive(Debug, PartialEq, Eq)]
pub enum VarError {
    /// A form accc does not lower yet (reported as "OpenACC '<what>' is not supported yet").
    Unsupported(String),
    /// Not a variable or array section at all.
    Malformed(String),
}

/// The text before the first array section of `item` (`a` in `a[0:n]`, `s.v` in
/// `s.v[2:3]`), or None for a variable or element without a section.
pub fn section_base(item: &str) -> Option<&str> {
    let toks = tokenize(item, false);
    let groups = top_level_groups(item, &toks).ok()?;
    let sec = groups.iter().find(|g| g.colon.is_some())?;
    Some(item[..toks[sec.open].start].trim()).filter(|b| !b.is_empty())
}

/// How many `[...]` groups follow the first array section of `item` (1 for `p[0:n][0:m]`).
pub fn trailing_dims(item: &str) -> usize {
    let toks = tokenize(item, false);
    let Ok(groups) = top_level_groups(item, &toks) else { return 0 };
    groups.iter().position(|g| g.colon.is_some()).map_or(0, |fs| groups.len() - fs - 1)
}

/// Whether the trailing dimensions of a multi-dimensional section may be any sections
/// (each written as a `lower, length, extent` triple that the pass checks for contiguity)
/// or only `[:]` (reductions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trailing {
    Checked,
    FullOnly,
}

/// C expression: whether the type of expression `e` is a pointer (not an array): a pointer's
/// type is that of `&(e)[0]`, an array's is not.
fn is_pointer(e: &str) -> String {
    format!("__builtin_types_compatible_p(__typeof__({e}), __typeof__(&({e})[0]))")
}

/// Encodes a variable or array section as the four values `base, lower, length, elem_size`
/// (without the trailing text operand); for `Trailing::Checked`, each trailing dimension
/// that is not `[:]` adds `lower, length, extent` after the text (docs/ir-contract.md); when
/// the rows at that depth are pointers (`double **p`), its extent is minus the size of the
/// elements they point to (`-sizeof(p[0][0])`), which says both that they are pointers and
/// how far apart the row's elements lie.
pub fn encode_var(item: &str, trailing: Trailing) -> Result<(String, String), VarError> {
    let toks = tokenize(item, false);
    if toks.is_empty() {
        return Err(VarError::Malformed("empty variable".into()));
    }
    let groups = top_level_groups(item, &toks).map_err(VarError::Malformed)?;
    let first_section = groups.iter().position(|g| g.colon.is_some());
    let Some(fs) = first_section else {
        let v = item.trim();
        return Ok((format!("(void*)&({v}), 0LL, 1LL, (long long)sizeof({v})"), String::new()));
    };
    let sec = &groups[fs];
    // Everything after the first section must be more `[...]` groups, each a section.
    let mut expect = sec.close + 1;
    // Per trailing dimension: its group, None for `[:]`.
    let mut dims: Vec<Option<&Group>> = Vec::new();
    for g in &groups[fs + 1..] {
        if g.open != expect {
            return Err(VarError::Malformed(format!("'{}' is not a variable, array element, member or subarray (OpenACC 3.3 §2.7.1): only more subscripts or sections may follow an array section", item)));
        }
        let full = g.close == g.open + 2 && g.colon == Some(g.open + 1);
        // A subscript after a section (`p[0:n][2]`) is the section `[2:1]` of that dimension:
        // rows of pointers map it row by row; on an array the pass reports it not contiguous.
        if !full && trailing == Trailing::FullOnly {
            let why = if g.colon.is_none() { "a subscript after an array section" } else { "a multi-dimensional array section whose trailing dimensions are not '[:]'" };
            return Err(VarError::Unsupported(format!("{} ({why})", item)));
        }
        dims.push((!full).then_some(g));
        expect = g.close + 1;
    }
    if expect != toks.len() {
        return Err(VarError::Malformed(format!("'{}' is not a variable, array element, member or subarray (OpenACC 3.3 §2.7.1): only more subscripts or sections may follow an array section", item)));
    }
    let base = item[..toks[sec.open].start].trim();
    if base.is_empty() {
        return Err(VarError::Malformed(format!("'{}' is not a variable", item)));
    }
    let (lo_e, len_e) = bounds(item, &toks, sec, &format!("sizeof({base})/sizeof(({base})[0])"));
    let ops = format!("(void*)({base}), (long long)({lo_e}), (long long)({len_e}), (long long)sizeof(({base})[0])");
    // Depth k (the k-th dimension after the first) is a row of `(base)[0]...[0]` (k zeros).
    let mut extra = String::new();
    for (depth, g) in dims.iter().enumerate() {
        // `[:]`: the whole dimension, contiguous by construction.
        let Some(g) = g else { continue };
        let row = format!("({base}){}", "[0]".repeat(depth + 1));
        let extent = format!("sizeof({row})/sizeof(({row})[0])");
        let (lo, len) = bounds(item, &toks, g, &extent);
        extra.push_str(&format!(
            ", (long long)({lo}), (long long)({len}), __builtin_choose_expr({}, -(long long)sizeof(({row})[0]), (long long)({extent}))",
            is_pointer(&row)
        ));
    }
    Ok((ops, extra))
}

/// The operands of a `present` item that names a whole variable (`present(p)`). When the
/// variable is a pointer (not an array), the item is the data it points to, from its
/// first byte, as NVHPC reads it and programs expect (`enter data copyin(p[0:n])`, then
/// `parallel present(p)`): that data must be present, and the region uses the pointer
/// translated to its device copy. Any other variable is itself the item, as for other
/// clauses. The test is made by Clang at compile time (`__builtin_classify_type` is 5 for
/// pointers, and for arrays, which `0 ? a : a` tells apart by decaying them); both branches
/// are valid for every type of lvalue, as `__builtin_choose_expr` needs.
/// Also the text operand for messages (`text` is the item as written): "the data p points
/// to" for a pointer.
pub fn encode_present_whole(item: &str, text: &str) -> (String, String) {
    let v = item.trim();
    let is_ptr = is_pointer_variable(v);
    let ops = format!("__builtin_choose_expr({is_ptr}, (void*)*(char**)&({v}), (void*)&({v})), 0LL, 1LL, __builtin_choose_expr({is_ptr}, 1LL, (long long)sizeof({v}))");
    let text_op = format!("__builtin_choose_expr({is_ptr}, {}, {})", c_string(&format!("the data {} points to", text.trim())), c_string(text));
    (ops, text_op)
}

/// A C constant expression: whether lvalue `v` is a pointer (not an array). Valid for an
/// lvalue of any type (see [`encode_present_whole`]).
fn is_pointer_variable(v: &str) -> String {
    format!("(__builtin_classify_type({v}) == 5 && __builtin_types_compatible_p(__typeof__({v}), __typeof__(0 ? ({v}) : ({v}))))")
}

/// The attach action of a data clause item that names a whole variable (`copyin(p)`): when
/// the variable is a pointer, a C expression for its address (its device copy is made to
/// point at the device copy of its target, if that is present), else a null constant,
/// which the pass drops. None for sections and elements.
pub fn whole_pointer_attach(item: &str) -> Option<String> {
    if section_base(item).is_some() {
        return None;
    }
    let v = item.trim();
    Some(format!("__builtin_choose_expr({}, (void*)&({v}), (void*)0)", is_pointer_variable(v)))
}

/// The lower bound and length of section group `g` (`[lo:len]`, `[:len]`, `[lo:]`; a
/// subscript `[i]` is `[i:1]`), an
/// omitted length being the rest of `extent` (valid for arrays only; clang's validation
/// rejects an omitted length on a pointer).
fn bounds(item: &str, toks: &[Token], g: &Group, extent: &str) -> (String, String) {
    let Some(colon) = g.colon else {
        return (item[toks[g.open].end..toks[g.close].start].trim().to_string(), "1".to_string());
    };
    let lo = item[toks[g.open].end..toks[colon].start].trim();
    let len = item[toks[colon].end..toks[g.close].start].trim();
    let lo_e = if lo.is_empty() { "0".to_string() } else { lo.to_string() };
    let len_e = if len.is_empty() { format!("{extent} - ({lo_e})") } else { len.to_string() };
    (lo_e, len_e)
}

/// The implicit attach of a data clause item (OpenACC 3.3 §2.7.2, "attach action"): for a
/// section whose base is a struct member or an element (`s->p[0:n]`, `s.p[0:n]`,
/// `pp[i][0:n]`), a C expression for the address of that base pointer, or a null constant
/// when the base is an array (`s.arr[0:2]`), which the pass drops. None for a section of a
/// plain variable or a whole variable: a pointer variable's own storage is attached only by
/// an explicit `attach` clause. Also the base as written, for messages.
pub fn implicit_attach(item: &str) -> Option<(String, String)> {
    let base = section_base(item)?;
    let toks = tokenize(base, false);
    if toks.len() == 1 && toks[0].kind == Kind::Ident {
        return None;
    }
    let addr = format!("__builtin_choose_expr({}, (void*)&({base}), (void*)0)", is_pointer(base));
    Some((addr, base.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The operands of a data clause item that has no trailing dimensions.
    fn encode_var_c(item: &str) -> Result<String, VarError> {
        encode_var(item, Trailing::Checked).map(|(ops, dims)| {
            assert_eq!(dims, "", "{item}");
            ops
        })
    }

    #[test]
    fn strings() {
        assert_eq!(c_string("y[0:n]"), "\"y[0:n]\"");
        assert_eq!(c_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }

    #[test]
    fn scalars_and_whole_arrays() {
        assert_eq!(encode_var_c("n").unwrap(), "(void*)&(n), 0LL, 1LL, (long long)sizeof(n)");
        assert_eq!(encode_var_c("s.a").unwrap(), "(void*)&(s.a), 0LL, 1LL, (long long)sizeof(s.a)");
        assert_eq!(encode_var_c("a[3]").unwrap(), "(void*)&(a[3]), 0LL, 1LL, (long long)sizeof(a[3])");
    }

    #[test]
    fn sections() {
        assert_eq!(
            encode_var_c("y[0:n]").unwrap(),
            "(void*)(y), (long long)(0), (long long)(n), (long long)sizeof((y)[0])"
        );
        assert_eq!(
            encode_var_c("y[:n+1]").unwrap(),
            "(void*)(y), (long long)(0), (long long)(n+1), (long long)sizeof((y)[0])"
        );
        assert_eq!(
            encode_var_c("a[2:]").unwrap(),
            "(void*)(a), (long long)(2), (long long)(sizeof(a)/sizeof((a)[0]) - (2)), (long long)sizeof((a)[0])"
        );
        assert_eq!(
            encode_var_c("s->p[f(1,2):c?1:2]").unwrap(),
            "(void*)(s->p), (long long)(f(1,2)), (long long)(c?1:2), (long long)sizeof((s->p)[0])"
        );
        assert_eq!(
            encode_var_c("m[i][0:n]").unwrap(),
            "(void*)(m[i]), (long long)(0), (long long)(n), (long long)sizeof((m[i])[0])"
        );
        assert_eq!(
            encode_var_c("a[1:n][:]").unwrap(),
            "(void*)(a), (long long)(1), (long long)(n), (long long)sizeof((a)[0])"
        );
    }

    #[test]
    fn trailing_dimensions_are_triples() {
        let (ops, dims) = encode_var("a[i:n][0:m]", Trailing::Checked).unwrap();
        assert_eq!(ops, "(void*)(a), (long long)(i), (long long)(n), (long long)sizeof((a)[0])");
        let row = "(a)[0]";
        let pointer = format!("__builtin_types_compatible_p(__typeof__({row}), __typeof__(&({row})[0]))");
        let extent = format!("sizeof({row})/sizeof(({row})[0])");
        assert_eq!(dims, format!(", (long long)(0), (long long)(m), __builtin_choose_expr({pointer}, -(long long)sizeof(({row})[0]), (long long)({extent}))"));
        // `[:]` adds nothing; a later dimension still names its own depth; `[2:]` runs to the end.
        let (_, dims) = encode_var("b[0:n][:][2:]", Trailing::Checked).unwrap();
        assert!(dims.starts_with(", (long long)(2), (long long)(sizeof((b)[0][0])/sizeof(((b)[0][0])[0]) - (2)), "), "{dims}");
        assert_eq!(dims.matches("long long)(2)").count(), 1, "{dims}");
        assert!(matches!(encode_var("a[0:n][0:m]", Trailing::FullOnly), Err(VarError::Unsupported(_))));
        assert_eq!(encode_var("a[1:n][:]", Trailing::FullOnly).unwrap().1, "");
    }

    #[test]
    fn implicit_attach_of_member_and_element_bases() {
        let (addr, base) = implicit_attach("s->p[0:n]").unwrap();
        assert_eq!(base, "s->p");
        assert_eq!(addr, "__builtin_choose_expr(__builtin_types_compatible_p(__typeof__(s->p), __typeof__(&(s->p)[0])), (void*)&(s->p), (void*)0)");
        assert_eq!(implicit_attach("a->b->c[lo:len]").unwrap().1, "a->b->c");
        assert_eq!(implicit_attach("pp[i][0:m]").unwrap().1, "pp[i]");
        assert_eq!(implicit_attach("s.v[:n]").unwrap().1, "s.v");
        assert_eq!(implicit_attach("p[0:n]"), None, "a plain variable's storage");
        assert_eq!(implicit_attach("s.p"), None, "not a section");
    }

    #[test]
    fn whole_variables_in_present_and_attach() {
        // present(p): a pointer's target from its first byte, named so in messages;
        // anything else the variable itself.
        let (ops, text) = encode_present_whole(" p ", "p");
        let test = is_pointer_variable("p");
        assert_eq!(ops, format!("__builtin_choose_expr({test}, (void*)*(char**)&(p), (void*)&(p)), 0LL, 1LL, __builtin_choose_expr({test}, 1LL, (long long)sizeof(p))"));
        assert_eq!(text, format!("__builtin_choose_expr({test}, \"the data p points to\", \"p\")"));
        // The attach action of a whole variable, not of a section.
        assert_eq!(whole_pointer_attach("s.p"), Some(format!("__builtin_choose_expr({}, (void*)&(s.p), (void*)0)", is_pointer_variable("s.p"))));
        assert_eq!(whole_pointer_attach("p[0:n]"), None);
        assert_eq!(whole_pointer_attach("pp[i][0:m]"), None);
    }

    #[test]
    fn rejected_sections() {
        assert!(matches!(encode_var("a[0:n][0:m]", Trailing::FullOnly), Err(VarError::Unsupported(_))));
        assert!(matches!(encode_var_c("a[0:n].x"), Err(VarError::Malformed(_))));
        assert!(matches!(encode_var("a[0:n][2]", Trailing::FullOnly), Err(VarError::Unsupported(_))));
        // A subscript after a section is a section of length 1.
        let (_, dims) = encode_var("p[0:n][2]", Trailing::Checked).unwrap();
        assert!(dims.starts_with(", (long long)(2), (long long)(1), "), "{dims}");
        assert!(matches!(encode_var_c("[0:n]"), Err(VarError::Malformed(_))));
        assert!(matches!(encode_var_c("a[0:1:2]"), Err(VarError::Malformed(_))));
        assert!(matches!(encode_var_c("a[0:n"), Err(VarError::Malformed(_))));
    }
}
