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

/// Encodes a variable or array section as the four values `base, lower, length, elem_size`
/// (without the trailing text operand).
pub fn encode_var(item: &str) -> Result<String, VarError> {
    let toks = tokenize(item, false);
    if toks.is_empty() {
        return Err(VarError::Malformed("empty variable".into()));
    }
    let groups = top_level_groups(item, &toks).map_err(VarError::Malformed)?;
    let first_section = groups.iter().position(|g| g.colon.is_some());
    let Some(fs) = first_section else {
        let v = item.trim();
        return Ok(format!("(void*)&({v}), 0LL, 1LL, (long long)sizeof({v})"));
    };
    let sec = &groups[fs];
    // Everything after the first section must be more `[...]` groups, each `[:]`.
    let mut expect = sec.close + 1;
    for g in &groups[fs + 1..] {
        if g.open != expect {
            return Err(VarError::Unsupported(format!("{} (an array section followed by more than subscripts)", item)));
        }
        let full = g.close == g.open + 2 && g.colon == Some(g.open + 1);
        if !full {
            return Err(VarError::Unsupported(format!(
                "{} (a multi-dimensional array section whose trailing dimensions are not '[:]')",
                item
            )));
        }
        expect = g.close + 1;
    }
    if expect != toks.len() {
        return Err(VarError::Unsupported(format!("{} (an array section followed by more than subscripts)", item)));
    }
    let base = item[..toks[sec.open].start].trim();
    if base.is_empty() {
        return Err(VarError::Malformed(format!("'{}' is not a variable", item)));
    }
    let colon = sec.colon.unwrap();
    let lo = item[toks[sec.open].end..toks[colon].start].trim();
    let len = item[toks[colon].end..toks[sec.close].start].trim();
    let lo_e = if lo.is_empty() { "0".to_string() } else { lo.to_string() };
    let len_e = if len.is_empty() {
        // Only valid for arrays; clang's validation rejects an omitted length on a pointer.
        format!("sizeof({base})/sizeof(({base})[0]) - ({lo_e})")
    } else {
        len.to_string()
    };
    Ok(format!(
        "(void*)({base}), (long long)({lo_e}), (long long)({len_e}), (long long)sizeof(({base})[0])"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn strings() {
        assert_eq!(c_string("y[0:n]"), "\"y[0:n]\"");
        assert_eq!(c_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }

    #[test]
    fn scalars_and_whole_arrays() {
        assert_eq!(encode_var("n").unwrap(), "(void*)&(n), 0LL, 1LL, (long long)sizeof(n)");
        assert_eq!(encode_var("s.a").unwrap(), "(void*)&(s.a), 0LL, 1LL, (long long)sizeof(s.a)");
        assert_eq!(encode_var("a[3]").unwrap(), "(void*)&(a[3]), 0LL, 1LL, (long long)sizeof(a[3])");
    }

    #[test]
    fn sections() {
        assert_eq!(
            encode_var("y[0:n]").unwrap(),
            "(void*)(y), (long long)(0), (long long)(n), (long long)sizeof((y)[0])"
        );
        assert_eq!(
            encode_var("y[:n+1]").unwrap(),
            "(void*)(y), (long long)(0), (long long)(n+1), (long long)sizeof((y)[0])"
        );
        assert_eq!(
            encode_var("a[2:]").unwrap(),
            "(void*)(a), (long long)(2), (long long)(sizeof(a)/sizeof((a)[0]) - (2)), (long long)sizeof((a)[0])"
        );
        assert_eq!(
            encode_var("s->p[f(1,2):c?1:2]").unwrap(),
            "(void*)(s->p), (long long)(f(1,2)), (long long)(c?1:2), (long long)sizeof((s->p)[0])"
        );
        assert_eq!(
            encode_var("m[i][0:n]").unwrap(),
            "(void*)(m[i]), (long long)(0), (long long)(n), (long long)sizeof((m[i])[0])"
        );
        assert_eq!(
            encode_var("a[1:n][:]").unwrap(),
            "(void*)(a), (long long)(1), (long long)(n), (long long)sizeof((a)[0])"
        );
    }

    #[test]
    fn rejected_sections() {
        assert!(matches!(encode_var("a[0:n][0:m]"), Err(VarError::Unsupported(_))));
        assert!(matches!(encode_var("a[0:n].x"), Err(VarError::Unsupported(_))));
        assert!(matches!(encode_var("a[0:n][2]"), Err(VarError::Unsupported(_))));
        assert!(matches!(encode_var("[0:n]"), Err(VarError::Malformed(_))));
        assert!(matches!(encode_var("a[0:1:2]"), Err(VarError::Malformed(_))));
        assert!(matches!(encode_var("a[0:n"), Err(VarError::Malformed(_))));
    }
}
