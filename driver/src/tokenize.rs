//! A small C tokenizer for preprocessed (`clang -E`) text.
//!
//! It knows just enough C to find statements and pragma operands: identifiers, numbers
//! (pp-numbers), string and character literals with escapes and encoding prefixes,
//! punctuators (multi-character ones kept whole), and two kinds of preprocessor lines that
//! survive `-E`: line markers (`# N "file" flags`) and `#pragma ...` lines, each returned as
//! one token covering the whole line. Comments are skipped (the `-E` output has none unless
//! `-C` was given, but hand-written input may).

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
    /// `# N "file" flags`: the next line is line `line` of `file`. `entered` is flag 1: the
    /// preprocessor opened `file` here (an `#include`), as opposed to a `#line` directive,
    /// which only renames lines and may name anything (`/dev/zero`).
    LineMarker { line: usize, file: String, entered: bool },
    /// A `#pragma` line (or any other `#` line that is not a line marker). The token text
    /// is the whole line without its newline.
    Pragma,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    /// Byte range in the tokenized text.
    pub start: usize,
    pub end: usize,
    /// 0-based line of the token's first byte in the tokenized text.
    pub line: usize,
    /// 1-based byte column of the token's first byte.
    pub col: usize,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }
    /// A punctuator's spelling with digraphs replaced by what they stand for (`<%` is `{`),
    /// for matching; any other token's text.
    pub fn punct<'a>(&self, src: &'a str) -> &'a str {
        let t = self.text(src);
        if self.kind == Kind::Punct {
            undigraph(t)
        } else {
            t
        }
    }
    pub fn is_punct(&self, src: &str, p: &str) -> bool {
        self.kind == Kind::Punct && self.punct(src) == p
    }
    pub fn is_ident(&self, src: &str, name: &str) -> bool {
        self.kind == Kind::Ident && self.text(src) == name
    }
}

const PUNCTS4: [&str; 1] = ["%:%:"];
const PUNCTS3: [&str; 4] = ["<<=", ">>=", "...", "->*"];
const PUNCTS2: [&str; 24] = [
    "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=", "/=", "%=", "+=",
    "-=", "&=", "^=", "|=", "<%", "%>", "<:", ":>", "%:",
];

/// C's digraphs (C99 6.4.6p3) stand for these punctuators; everything else stands for itself.
pub fn undigraph(p: &str) -> &str {
    match p {
        "<%" => "{",
        "%>" => "}",
        "<:" => "[",
        ":>" => "]",
        "%:" => "#",
        "%:%:" => "##",
        _ => p,
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}
fn is_ident_char(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

/// Tokenizes `src`. `directives` enables the line-oriented handling of `#` lines (true for
/// whole files, false for the contents of one pragma line). Never fails: unknown bytes
/// become one-byte punctuators and unterminated literals end at the end of their line.
pub fn tokenize(src: &str, directives: bool) -> Vec<Token> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut line = 0;
    let mut line_start = 0;
    let mut at_line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            i += 1;
            line += 1;
            line_start = i;
            at_line_start = true;
            continue;
        }
        if c == b' ' || c == b'\t' || c == b'\r' || c == 0x0b || c == 0x0c {
            i += 1;
            continue;
        }
        // Line continuation outside a directive line (rare after -E; keep lines counted).
        if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 2;
            line += 1;
            line_start = i;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    line += 1;
                    line_start = i + 1;
                }
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        let start = i;
        let col = start - line_start + 1;
        if directives && at_line_start && c == b'#' {
            // The whole line (joining backslash continuations) is one token.
            let mut j = i;
            let start_line = line;
            while j < b.len() && b[j] != b'\n' {
                if b[j] == b'\\' && b.get(j + 1) == Some(&b'\n') {
                    j += 2;
                    line += 1;
                    line_start = j;
                    continue;
                }
                j += 1;
            }
            let text = &src[start..j];
            let kind = parse_line_marker(text).map_or(Kind::Pragma, |(line, file, entered)| Kind::LineMarker {
                line,
                file,
                entered,
            });
            toks.push(Token { kind, start, end: j, line: start_line, col });
            i = j;
            continue;
        }
        at_line_start = false;
        let kind;
        if is_ident_start(c) {
            let mut j = i + 1;
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            // Encoding prefixes of literals: L"..", u8"..", u'..', U"..".
            let word = &src[i..j];
            if matches!(word, "L" | "u" | "U" | "u8") && j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                let q = b[j];
                let end = scan_quoted(b, j, q);
                toks.push(Token {
                    kind: if q == b'"' { Kind::Str } else { Kind::Char },
                    start,
                    end,
                    line,
                    col,
                });
                i = end;
                continue;
            }
            kind = Kind::Ident;
            i = j;
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            // pp-number: digits, letters, '.', '_', and e+/e-/p+/p- exponents, digit separators.
            let mut j = i + 1;
            while j < b.len() {
                let d = b[j];
                if (d == b'+' || d == b'-') && matches!(b[j - 1], b'e' | b'E' | b'p' | b'P') {
                    j += 1;
                } else if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || (d == b'\'' && b.get(j + 1).is_some_and(|e| e.is_ascii_alphanumeric())) {
                    j += 1;
                } else {
                    break;
                }
            }
            kind = Kind::Number;
            i = j;
        } else if c == b'"' || c == b'\'' {
            let end = scan_quoted(b, i, c);
            kind = if c == b'"' { Kind::Str } else { Kind::Char };
            i = end;
        } else {
            let rest = &src[i..];
            let len = if PUNCTS4.iter().any(|p| rest.starts_with(p)) {
                4
            } else if PUNCTS3.iter().any(|p| rest.starts_with(p)) {
                3
            } else if PUNCTS2.iter().any(|p| rest.starts_with(p)) {
                2
            } else {
                // One (possibly multi-byte UTF-8) character.
                rest.chars().next().map_or(1, |ch| ch.len_utf8())
            };
            kind = Kind::Punct;
            i += len;
        }
        toks.push(Token { kind, start, end: i, line, col });
    }
    toks
}

/// Scans a quoted literal starting at `i` (the opening quote); returns the end offset
/// (after the closing quote, or at the end of the line if unterminated).
fn scan_quoted(b: &[u8], i: usize, q: u8) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            x if x == q => return j + 1,
            _ => j += 1,
        }
    }
    b.len().min(j)
}

/// Parses `# N "file" flags...` (also `#line N "file"`). Returns None for other `#` lines.
/// Parses `# N "file" flags` (or `#line N "file"`) into (N, file, flag 1 present).
pub fn parse_line_marker(text: &str) -> Option<(usize, String, bool)> {
    let rest = text.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").map(|r| r.trim_start()).unwrap_or(rest);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let line: usize = digits.parse().ok()?;
    let rest = rest[digits.len()..].trim_start();
    let (file, flags) = match rest.strip_prefix('"') {
        Some(r) => unescape_file_name(r),
        None => (String::new(), ""),
    };
    let entered = flags.split_whitespace().any(|f| f == "1");
    Some((line, file, entered))
}

/// Unescapes a line marker's file name (clang escapes '\\' and '"'), `r` starting after the
/// opening quote; returns the name and the text after the closing quote.
fn unescape_file_name(r: &str) -> (String, &str) {
    let mut out = String::new();
    let mut chars = r.char_indices();
    while let Some((k, ch)) = chars.next() {
        match ch {
            '\\' => {
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                }
            }
            '"' => return (out, &r[k + 1..]),
            _ => out.push(ch),
        }
    }
    (out, "")
}

/// Makes `bytes` valid UTF-8 of the same length: each byte of an invalid sequence becomes
/// `_`. Offsets, lines and columns stay those of the bytes, so edits computed on the text
/// apply to the original bytes (which the rewriter copies, keeping a Latin-1 string literal
/// byte for byte). `_` tokenizes like the non-ASCII byte it replaces (an identifier byte).
pub fn same_length_utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let valid = e.valid_up_to();
                // Cannot fail: from_utf8 validated this prefix.
                out.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len() - valid);
                out.extend(std::iter::repeat_n('_', bad));
                rest = &rest[valid + bad..];
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn texts(src: &str) -> Vec<String> {
        tokenize(src, true).iter().map(|t| t.text(src).to_string()).collect()
    }

    #[test]
    fn basic_tokens() {
        assert_eq!(
            texts("int x = a->b + 0x1fULL * 1.5e+3f; s = \"a\\\"b\"; c = '\\'';"),
            vec![
                "int", "x", "=", "a", "->", "b", "+", "0x1fULL", "*", "1.5e+3f", ";", "s", "=",
                "\"a\\\"b\"", ";", "c", "=", "'\\''", ";"
            ]
        );
    }

    #[test]
    fn punct_multi() {
        assert_eq!(texts("a<<=b>>=c...d"), vec!["a", "<<=", "b", ">>=", "c", "...", "d"]);
        assert_eq!(texts("x[0:n]"), vec!["x", "[", "0", ":", "n", "]"]);
        // Digraphs are punctuators of their own, matched as what they stand for.
        assert_eq!(texts("<% a<:1:>; %> %:%:"), vec!["<%", "a", "<:", "1", ":>", ";", "%>", "%:%:"]);
        let src = "<% x<:0:n:> %>";
        let toks = tokenize(src, false);
        let canon: Vec<&str> = toks.iter().map(|t| t.punct(src)).collect();
        assert_eq!(canon, vec!["{", "x", "[", "0", ":", "n", "]", "}"]);
        assert!(toks[0].is_punct(src, "{"));
    }

    #[test]
    fn prefixes_and_comments() {
        assert_eq!(texts("L\"w\" u8\"x\" /* c */ y // z\n q"), vec!["L\"w\"", "u8\"x\"", "y", "q"]);
    }

    #[test]
    fn line_markers_and_pragmas() {
        let src = "# 1 \"t.c\"\nint a;\n#pragma acc parallel loop copy(y[0:n])\n  # 7 \"dir/h \\\"q\\\".h\" 2\n";
        let toks = tokenize(src, true);
        assert_eq!(toks[0].kind, Kind::LineMarker { line: 1, file: "t.c".into(), entered: false });
        assert_eq!(toks[4].kind, Kind::Pragma);
        assert_eq!(toks[4].line, 2);
        assert_eq!(toks[4].text(src), "#pragma acc parallel loop copy(y[0:n])");
        assert_eq!(toks[5].kind, Kind::LineMarker { line: 7, file: "dir/h \"q\".h".into(), entered: false });
        let toks = tokenize("# 1 \"./h.h\" 1 3\n#line 1 \"/dev/zero\"\n", true);
        assert_eq!(toks[0].kind, Kind::LineMarker { line: 1, file: "./h.h".into(), entered: true });
        assert_eq!(toks[1].kind, Kind::LineMarker { line: 1, file: "/dev/zero".into(), entered: false });
    }

    #[test]
    fn hash_mid_line_is_punct() {
        let toks = tokenize("a # b", true);
        assert_eq!(toks[1].kind, Kind::Punct);
        // Inside a pragma line (directives=false) a leading '#' is a punctuator.
        let toks = tokenize("#pragma acc", false);
        assert_eq!(toks[0].kind, Kind::Punct);
        assert_eq!(toks.len(), 3);
    }

    #[test]
    fn columns_and_lines() {
        let toks = tokenize("a\n  bb\tc", true);
        assert_eq!((toks[1].line, toks[1].col), (1, 3));
        assert_eq!((toks[2].line, toks[2].col), (1, 6));
    }

    #[test]
    fn invalid_utf8_keeps_its_length() {
        assert_eq!(same_length_utf8(b"caf\xe9 \"\xe9t\xc3\xa9\"\n"), "caf_ \"_t\u{e9}\"\n");
        assert_eq!(same_length_utf8(b"a\xe2\x82").len(), 3);
        assert!(matches!(same_length_utf8(b"ok"), std::borrow::Cow::Borrowed("ok")));
    }

    #[test]
    fn unterminated_string_stops_at_newline() {
        assert_eq!(texts("\"abc\nx"), vec!["\"abc", "x"]);
    }
}
