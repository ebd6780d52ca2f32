//! `tile(s1, ..., sn)` on a `loop` (or `parallel loop`, `kernels loop`, `serial loop`)
//! directive (OpenACC 3.3 §2.9.8), lowered by the rewriter in the C source.
//!
//! Expects: the preprocessed tokens of a directive whose clauses (after `device_type`
//! selection) include `tile`, followed by n tightly nested `for` loops in canonical form
//! (`for (int i = lo; i < hi; i += s)`: `int`/`long`/unsigned variables declared in the
//! `for` or before it, `<`, `<=`, `>`, `>=`, `!=`, `++`, `--`, `+=`, `-=`, `i = i + s`,
//! `i = i - s`, `i = s + i`), whose bounds and steps do not depend on the variables of the
//! loops around them in the nest (clang has checked the sizes and the tight nesting).
//!
//! Produces: text edits that turn the nest into n tile loops (the directive itself, with the
//! tile loops collapsed: `collapse(n)`) around n element loops (a `loop` directive of its own,
//! `collapse(n)`), each level carrying the clauses OpenACC gives it ([`route`]):
//!
//! ```text
//! { __acc_begin(1, "parallel loop", ...); <clauses> tile, collapse(2); <trip counts>
//! for (long long t0 = 0; t0 < n0; t0 += 8)          // the loops' headers, in place
//!   for (long long t1 = 0; t1 < n1; t1 += 32) { __acc_begin(2, "loop", ...); <clauses> tile.element, collapse(2);
//!     for (long long e0 = 0; e0 < 8; e0++) for (long long e1 = 0; e1 < 32; e1++)
//!       if ((t0 + e0 < n0) & (t1 + e1 < n1)) { int i = lo0 + (t0 + e0) * st0; int j = ...;
//!         <the body, unchanged> } __acc_end(2); } __acc_end(1); }
//! ```
//!
//! The trip count of each loop is computed once before the nest, in 64-bit unsigned
//! arithmetic on the C comparison's own type (so `int`, `unsigned` and `long` loops, negative
//! steps and bounds of mixed types count exactly as the loop would run), and each original
//! variable is re-declared in the body from its normalised index, so the body sees the value
//! it would have had. Element loops run a constant number of iterations (the size) and skip
//! those past the end of a partial tile: the last tile of each dimension may be partial, and
//! the collapsed element index splits with constant divisors. Everything stays on the lines
//! it was on (a header's replacement keeps its newlines).
//!
//! `tile` together with `collapse(n)` associates max(n, sizes) loops ([`pad_for_collapse`]).
//! Deliberately not done: non-rectangular nests (an error: tiling needs every trip count before the nest), loop
//! variables that are not integers. A loop variable declared before the loop keeps its
//! value from before the loop on the host (it is private to the loop, OpenACC 3.3 §2.6.1).

use crate::stmt::{match_close, skip_markers, stmt_end};
use crate::tokenize::{Kind, Token};

/// The iterations a tile of `*` sizes aims for: accc launches 256 vector lanes for a vector
/// loop without workers (mapping.rs `default_shape`), so one tile fills a gang's lanes.
pub const STAR_TILE_ELEMENTS: u64 = 256;

/// The innermost `*` size (when another `*` follows): a warp's 32 lanes on consecutive
/// iterations of the innermost loop, which usually touch consecutive addresses.
pub const STAR_INNERMOST: u64 = 32;

/// The sizes of `tile(...)`, innermost loop first, with each `*` (None) chosen: the
/// product of all sizes aims at [`STAR_TILE_ELEMENTS`] (given sizes count, and use it up
/// first); the innermost `*` takes [`STAR_INNERMOST`] when another `*` follows, the others
/// share what is left as evenly as powers of two allow, the outermost `*` taking the rest.
pub fn choose_sizes(given: &[Option<u64>]) -> Vec<u64> {
    let known = given.iter().flatten().fold(1u64, |p, s| p.saturating_mul(*s));
    let mut budget = (STAR_TILE_ELEMENTS / known.max(1)).max(1);
    let stars = given.iter().filter(|s| s.is_none()).count();
    let mut seen = 0;
    given
        .iter()
        .enumerate()
        .map(|(k, s)| {
            if let Some(s) = s {
                return *s;
            }
            let left = stars - seen;
            seen += 1;
            let size = if left == 1 {
                budget
            } else if k == 0 {
                STAR_INNERMOST.min(budget)
            } else {
                // The smallest power of two whose `left`-th power covers the budget.
                let mut p = 1u64;
                while p.saturating_pow(left as u32) < budget {
                    p *= 2;
                }
                p.min(budget)
            };
            budget = (budget / size).max(1);
            size
        })
        .collect()
}

/// The `vector_length` a combined construct gets when its element loops are vector loops and
/// it names none: the tile's iterations rounded up to whole warps, when that is less than the
/// default 256 lanes, so that a small tile (`tile(8, 8)`: 64 iterations) does not leave most
/// of a gang's lanes idle (NVHPC also sizes the vector by the tile). None: keep the default.
pub fn vector_length_for(sizes: &[u64]) -> Option<u64> {
    let product = sizes.iter().fold(1u64, |p, s| p.saturating_mul(*s));
    (product < STAR_TILE_ELEMENTS).then(|| product.div_ceil(32).max(1) * 32)
}

/// The value of a tile size written as an integer constant expression of literals
/// (`32`, `0x20`, `4*8`, `(1 << 5)`): what is needed to choose `*` beside it. None for
/// anything else (an enum constant, `sizeof`): such a size counts as 1 when choosing `*`.
pub fn eval_size(text: &str) -> Option<u64> {
    let toks = crate::tokenize::tokenize(text, false);
    let words: Vec<&str> = toks.iter().map(|t| t.text(text)).collect();
    let mut p = SizeParser { words: &words, at: 0 };
    let v = p.shift()?;
    (p.at == words.len() && v > 0).then_some(v as u64)
}

/// A recursive-descent evaluator of `+ - * / % << >>` and parentheses over literals.
struct SizeParser<'a> {
    words: &'a [&'a str],
    at: usize,
}

impl<'a> SizeParser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.words.get(self.at).copied()
    }
    fn shift(&mut self) -> Option<i128> {
        let mut v = self.additive()?;
        while let Some(op @ ("<<" | ">>")) = self.peek() {
            self.at += 1;
            let r = self.additive()?;
            if !(0..63).contains(&r) {
                return None;
            }
            v = if op == "<<" { v << r } else { v >> r };
        }
        Some(v)
    }
    fn additive(&mut self) -> Option<i128> {
        let mut v = self.term()?;
        while let Some(op @ ("+" | "-")) = self.peek() {
            self.at += 1;
            let r = self.term()?;
            v = if op == "+" { v + r } else { v - r };
        }
        Some(v)
    }
    fn term(&mut self) -> Option<i128> {
        let mut v = self.unary()?;
        while let Some(op @ ("*" | "/" | "%")) = self.peek() {
            self.at += 1;
            let r = self.unary()?;
            v = match op {
                "*" => v.checked_mul(r)?,
                "/" => v.checked_div(r)?,
                _ => v.checked_rem(r)?,
            };
            if v.abs() > u64::MAX as i128 {
                return None;
            }
        }
        Some(v)
    }
    fn unary(&mut self) -> Option<i128> {
        match self.peek()? {
            "(" => {
                self.at += 1;
                let v = self.shift()?;
                (self.peek() == Some(")")).then(|| self.at += 1)?;
                Some(v)
            }
            "-" => {
                self.at += 1;
                Some(-self.unary()?)
            }
            "+" => {
                self.at += 1;
                self.unary()
            }
            w => {
                self.at += 1;
                integer_literal(w)
            }
        }
    }
}

/// A C integer literal (decimal, hex, octal, binary; any `u`/`l` suffix).
fn integer_literal(w: &str) -> Option<i128> {
    let digits = w.trim_end_matches(['u', 'U', 'l', 'L']);
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        (16, h)
    } else if let Some(b) = digits.strip_prefix("0b").or_else(|| digits.strip_prefix("0B")) {
        (2, b)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    u64::from_str_radix(body, radix).ok().map(i128::from)
}

/// Which of the two loop sets a clause of the tiled directive goes to (OpenACC 3.3 §2.9.8:
/// `gang` to the tile loops, `vector` to the element loops, `worker` to the element loops
/// unless `vector` is there too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The directive itself, which becomes the tile loops' (a combined construct's compute
    /// clauses stay there too).
    Tiles,
    Elements,
    /// `seq`/`independent`/`auto` describe the whole nest; a reduction is over the whole nest
    /// (written on both, each level reduces its part).
    Both,
    /// `tile` itself: becomes the contract's `tile`/`tile.element` marks.
    Consumed,
}

/// The tile sizes, innermost loop first, for `tile` with `given` sizes on a loop that also
/// has `collapse(count)`: the construct is associated with max(count, sizes) loops (as flang
/// reads OpenACC 3.3 §2.9); the loops outside the tiled ones that only `collapse` names get
/// size 1: each of their iterations is a tile of its own, the tile loops spread them.
pub fn pad_for_collapse<T: Clone>(given: &[T], count: Option<u64>, one: T) -> Vec<T> {
    let mut sizes = given.to_vec();
    while (sizes.len() as u64) < count.unwrap_or(0) {
        sizes.push(one.clone());
    }
    sizes
}

/// The set a clause (canonical name) goes to; `has_vector`: the directive has `vector`.
pub fn route(clause: &str, has_vector: bool) -> Route {
    match clause {
        // `collapse` beside `tile` only adds associated loops: the tile marks carry the count.
        "tile" | "collapse" => Route::Consumed,
        "vector" => Route::Elements,
        "worker" if !has_vector => Route::Elements,
        "seq" | "independent" | "auto" | "reduction" => Route::Both,
        // One copy per iteration: the body runs in the element loops.
        "private" => Route::Elements,
        _ => Route::Tiles,
    }
}

/// The comparison of a canonical loop's test, the variable on its left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Lt,
    Le,
    Gt,
    Ge,
    Ne,
}

impl Rel {
    fn of(p: &str) -> Option<Rel> {
        Some(match p {
            "<" => Rel::Lt,
            "<=" => Rel::Le,
            ">" => Rel::Gt,
            ">=" => Rel::Ge,
            "!=" => Rel::Ne,
            _ => return None,
        })
    }
    /// `hi > i` is `i < hi`.
    fn swapped(self) -> Rel {
        match self {
            Rel::Lt => Rel::Gt,
            Rel::Le => Rel::Ge,
            Rel::Gt => Rel::Lt,
            Rel::Ge => Rel::Le,
            Rel::Ne => Rel::Ne,
        }
    }
}

/// One loop of the nest in canonical form, as C text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    pub var: String,
    /// The declared type when the `for` declares the variable.
    pub ty: Option<String>,
    pub lo: String,
    pub rel: Rel,
    pub hi: String,
    /// The signed step as a C expression of type `long long`.
    pub step: String,
    /// The identifiers of `lo`, `hi` and the step (the rectangular-nest check).
    pub uses: Vec<String>,
}

/// The text of `toks` joined by single spaces, line markers left out (no newline: the result
/// is written on one line).
fn join(src: &str, toks: &[Token]) -> String {
    toks.iter().filter(|t| !matches!(t.kind, Kind::LineMarker { .. })).map(|t| t.text(src)).collect::<Vec<_>>().join(" ")
}

/// Splits `toks` at the top-level (bracket depth 0) punctuators `sep`.
fn split_top<'t>(src: &str, toks: &'t [Token], sep: &str) -> Vec<&'t [Token]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, t) in toks.iter().enumerate() {
        match t.punct(src) {
            "(" | "[" | "{" if t.kind == Kind::Punct => depth += 1,
            ")" | "]" | "}" if t.kind == Kind::Punct => depth -= 1,
            s if depth == 0 && t.kind == Kind::Punct && s == sep => {
                parts.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[start..]);
    parts
}

/// Whether `toks` has a top-level binary operator other than the ones in `allowed` (a
/// punctuator after an operand: an identifier, a literal or a closing bracket).
fn has_other_binary_operator(src: &str, toks: &[Token], allowed: &[&str]) -> bool {
    let mut depth = 0i32;
    let mut after_operand = false;
    for t in toks {
        match t.kind {
            Kind::Punct => {
                let p = t.punct(src);
                match p {
                    "(" | "[" => {
                        depth += 1;
                        after_operand = false;
                    }
                    ")" | "]" => {
                        depth -= 1;
                        after_operand = true;
                    }
                    _ if depth == 0 && after_operand && !allowed.contains(&p) => return true,
                    _ => after_operand = false,
                }
            }
            Kind::LineMarker { .. } | Kind::Pragma => {}
            _ => after_operand = true,
        }
    }
    false
}

const CANONICAL: &str = "'tile' needs loops in canonical form: 'for (int i = lo; i < hi; i += step)'";

/// Reads a `for` header (`toks` between its parentheses) in canonical form.
pub fn parse_header(src: &str, toks: &[Token]) -> Result<Canonical, String> {
    let toks: Vec<Token> = toks.iter().filter(|t| !matches!(t.kind, Kind::LineMarker { .. })).cloned().collect();
    let parts = split_top(src, &toks, ";");
    let [init, test, incr] = parts.as_slice() else {
        return Err(format!("{CANONICAL}; this 'for' has no three clauses"));
    };
    // init: `T i = lo` or `i = lo`.
    let assign = split_top(src, init, "=");
    let (lhs, lo) = match assign.as_slice() {
        [lhs, lo] if !lo.is_empty() && !lhs.is_empty() => (*lhs, *lo),
        _ => return Err(format!("{CANONICAL}; its initialisation must set the loop variable ('int i = lo' or 'i = lo')")),
    };
    if split_top(src, init, ",").len() > 1 {
        return Err(format!("{CANONICAL}; its initialisation sets more than one variable"));
    }
    let name = lhs.last().filter(|t| t.kind == Kind::Ident).map(|t| t.text(src).to_string());
    let Some(var) = name else {
        return Err(format!("{CANONICAL}; its initialisation must set an integer variable"));
    };
    let ty = (lhs.len() > 1).then(|| join(src, &lhs[..lhs.len() - 1]));
    if lhs[..lhs.len() - 1].iter().any(|t| t.kind == Kind::Punct) {
        return Err(format!("{CANONICAL}; the loop variable '{var}' must be an integer"));
    }
    // test: `i OP hi` or `hi OP i` (`i` may be parenthesised), one top-level comparison.
    let is_var = |ts: &[Token]| match ts {
        [v] => v.is_ident(src, &var),
        [l, v, r] => l.is_punct(src, "(") && v.is_ident(src, &var) && r.is_punct(src, ")"),
        _ => false,
    };
    let mut cmp = None;
    let mut depth = 0i32;
    for (k, t) in test.iter().enumerate() {
        if t.kind != Kind::Punct {
            continue;
        }
        match t.punct(src) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            "&&" | "||" | "?" | "," if depth == 0 => cmp = Some(Err(())),
            p if depth == 0 => {
                if let Some(r) = Rel::of(p) {
                    cmp = match cmp {
                        None => Some(Ok((k, r))),
                        _ => Some(Err(())),
                    };
                }
            }
            _ => {}
        }
    }
    let (rel, hi) = match cmp {
        Some(Ok((k, r))) if is_var(&test[..k]) && k + 1 < test.len() => (r, &test[k + 1..]),
        Some(Ok((k, r))) if is_var(&test[k + 1..]) && k > 0 => (r.swapped(), &test[..k]),
        _ => return Err(format!("{CANONICAL}; its test must compare '{var}' with a bound ('<', '<=', '>', '>=' or '!=')")),
    };
    // increment.
    if split_top(src, incr, ",").len() > 1 {
        return Err(format!("{CANONICAL}; its increment must step '{var}' alone"));
    }
    let bad_step = || format!("{CANONICAL}; its increment must step '{var}' ('{var}++', '{var}--', '{var} += s', '{var} -= s', '{var} = {var} + s')");
    let p = |k: usize, s: &str| incr.get(k).is_some_and(|t| t.is_punct(src, s));
    let v = |k: usize| incr.get(k).is_some_and(|t| t.is_ident(src, &var));
    let long = |ts: &[Token]| format!("(long long)({})", join(src, ts));
    let (step, step_toks): (String, &[Token]) = match incr.len() {
        2 if (v(0) && p(1, "++")) || (p(0, "++") && v(1)) => ("1LL".into(), &[]),
        2 if (v(0) && p(1, "--")) || (p(0, "--") && v(1)) => ("-1LL".into(), &[]),
        n if n >= 3 && v(0) && p(1, "+=") => (long(&incr[2..]), &incr[2..]),
        n if n >= 3 && v(0) && p(1, "-=") => (format!("-{}", long(&incr[2..])), &incr[2..]),
        n if n >= 5 && v(0) && p(1, "=") && v(2) && (p(3, "+") || p(3, "-")) => {
            let rest = &incr[4..];
            // `i = i - a + b` is not `i - (a + b)`: only a product may follow.
            if has_other_binary_operator(src, rest, &["*", "/", "%"]) {
                return Err(bad_step());
            }
            (if p(3, "+") { long(rest) } else { format!("-{}", long(rest)) }, rest)
        }
        n if n >= 5 && v(0) && p(1, "=") && v(n - 1) && p(n - 2, "+") => {
            let rest = &incr[2..n - 2];
            if has_other_binary_operator(src, rest, &["*", "/", "%"]) {
                return Err(bad_step());
            }
            (long(rest), rest)
        }
        _ => return Err(bad_step()),
    };
    let uses = lo.iter().chain(hi.iter()).chain(step_toks.iter()).filter(|t| t.kind == Kind::Ident).map(|t| t.text(src).to_string()).collect();
    Ok(Canonical { var, ty, lo: join(src, lo), rel, hi: join(src, hi), step, uses })
}

/// The tiled nest as found in the tokens.
#[derive(Debug)]
pub struct Nest {
    /// Per loop, outermost first: the index of its `for` and of its header's `)`.
    pub headers: Vec<(usize, usize)>,
    pub loops: Vec<Canonical>,
    /// The last token of the innermost loop's body.
    pub body_end: usize,
}

/// Finds the `n` tightly nested loops starting at the first non-marker token at or after
/// `first`. Errors carry the index of the token they are about.
pub fn find_nest(src: &str, toks: &[Token], first: usize, n: usize) -> Result<Nest, (usize, String)> {
    let mut headers = Vec::new();
    let mut loops: Vec<Canonical> = Vec::new();
    let mut at = skip_markers(toks, first).ok_or((first.saturating_sub(1), "expected a loop after the directive".to_string()))?;
    for d in 0..n {
        if !toks[at].is_ident(src, "for") {
            return Err((at, format!("'tile' with {n} sizes applies to {n} tightly nested 'for' loops; found '{}' where loop {} should start", toks[at].text(src), d + 1)));
        }
        let open = skip_markers(toks, at + 1).filter(|&o| toks[o].is_punct(src, "(")).ok_or((at, "expected '(' after 'for'".to_string()))?;
        let close = match_close(src, toks, open).map_err(|m| (at, m))?;
        let l = parse_header(src, &toks[open + 1..close]).map_err(|m| (at, m))?;
        if let Some(outer) = loops.iter().find(|o| l.uses.contains(&o.var)) {
            return Err((at, format!("'tile' needs a rectangular loop nest: the bounds or step of this loop use '{}', the variable of a loop around it in the tiled nest", outer.var)));
        }
        if let Some(outer) = loops.iter().find(|o| o.var == l.var) {
            return Err((at, format!("the tiled loops need distinct variables: '{}' is the variable of a loop around this one", outer.var)));
        }
        headers.push((at, close));
        loops.push(l);
        if d + 1 == n {
            break;
        }
        let next = skip_markers(toks, close + 1).ok_or((at, "expected a statement after the loop header".to_string()))?;
        let not_tight = || (at, format!("'tile' with {n} sizes needs {n} tightly nested loops: the body of this loop must be the next loop alone"));
        at = if toks[next].is_ident(src, "for") {
            next
        } else if toks[next].is_punct(src, "{") {
            let rb = match_close(src, toks, next).map_err(|m| (next, m))?;
            let inner = skip_markers(toks, next + 1).ok_or_else(not_tight)?;
            let end = stmt_end(src, toks, inner).map_err(|m| (inner, m))?;
            if !toks[inner].is_ident(src, "for") || skip_markers(toks, end + 1) != Some(rb) {
                return Err(not_tight());
            }
            inner
        } else {
            return Err(not_tight());
        };
    }
    let last = headers.last().expect("n >= 1").1;
    let body_end = stmt_end(src, toks, last + 1).map_err(|m| (headers.last().unwrap().0, m))?;
    Ok(Nest { headers, loops, body_end })
}

/// The names of the rewrite's variables, unique per directive id.
pub struct Names {
    pub id: usize,
}

impl Names {
    fn v(&self, what: &str, d: usize) -> String {
        format!("__acc_tile{}_{what}{d}", self.id)
    }
}

/// The trip count of loop `d` as a C expression, from its `lo`, `hi` and `st` variables: the
/// difference of the bounds in 64-bit unsigned arithmetic after converting both to the type
/// C compares them in (exact for every integer type up to 64 bits), divided by the step,
/// times whether the loop runs at all (no `?:`: the code before the nest stays one block).
pub fn trip_count(n: &Names, d: usize, rel: Rel) -> String {
    let (lo, hi, st) = (n.v("lo", d), n.v("hi", d), n.v("st", d));
    let ct = format!("__typeof__({lo} + {hi})");
    let up = format!("((unsigned long long)({ct}){hi} - (unsigned long long)({ct}){lo})");
    let down = format!("((unsigned long long)({ct}){lo} - (unsigned long long)({ct}){hi})");
    let (pos, neg) = (format!("(unsigned long long){st}"), format!("(unsigned long long)-{st}"));
    let runs = |op: &str| format!("(unsigned long long)({lo} {op} {hi})");
    match rel {
        Rel::Lt => format!("{} * (({up} - 1ULL) / {pos} + 1ULL)", runs("<")),
        Rel::Le => format!("{} * ({up} / {pos} + 1ULL)", runs("<=")),
        Rel::Gt => format!("{} * (({down} - 1ULL) / {neg} + 1ULL)", runs(">")),
        Rel::Ge => format!("{} * ({down} / {neg} + 1ULL)", runs(">=")),
        // `!=` runs up or down by the step's sign (both quotients are defined: st != 0).
        Rel::Ne => format!(
            "{} * ((unsigned long long)({st} > 0) * (({up} - 1ULL) / {pos} + 1ULL) + (unsigned long long)({st} < 0) * (({down} - 1ULL) / {neg} + 1ULL))",
            runs("!=")
        ),
    }
}

/// The declarations before the nest: per loop its first value, bound, step and trip count.
pub fn prologue(n: &Names, loops: &[Canonical]) -> String {
    let mut s = String::new();
    for (d, l) in loops.iter().enumerate() {
        let ty = l.ty.clone().unwrap_or_else(|| format!("__typeof__({})", l.var));
        // Only integers count like this (a pointer or floating loop variable would make the
        // trip count's C ill-formed): clang's error then names the loop variable.
        let class = format!("__builtin_classify_type({})", n.v("lo", d));
        let integer = format!("_Static_assert({class} == 1 || {class} == 3, \"OpenACC 'tile': the loop variable '{}' must be an integer\"); ", l.var);
        s += &format!(
            "{ty} {lo} = ({}); {integer}__auto_type {hi} = ({}); long long {st} = {}; long long {cnt} = (long long)({}); ",
            l.lo,
            l.hi,
            l.step,
            trip_count(n, d, l.rel),
            lo = n.v("lo", d),
            hi = n.v("hi", d),
            st = n.v("st", d),
            cnt = n.v("n", d),
        );
    }
    s
}

/// The header replacing loop `d`'s: its tile loop, stepping by the size `size` (C text).
pub fn tile_header(n: &Names, d: usize, size: &str) -> String {
    let t = n.v("t", d);
    format!("for (long long {t} = 0; {t} < {}; {t} += {size})", n.v("n", d))
}

/// After the innermost tile loop's header: the element loops' directive (`begin`: its
/// `__acc_begin` and clauses), the element loops, the partial-tile guard and the original
/// variables. `sizes`: per loop, outermost first, as C text.
pub fn element_open(n: &Names, loops: &[Canonical], sizes: &[String], begin: &str) -> String {
    let mut s = format!(" {{ {begin}");
    for (d, size) in sizes.iter().enumerate() {
        let e = n.v("e", d);
        s += &format!(" for (long long {e} = 0; {e} < {size}; {e}++)");
    }
    let inside: Vec<String> = (0..loops.len()).map(|d| format!("({} + {} < {})", n.v("t", d), n.v("e", d), n.v("n", d))).collect();
    s += &format!(" if ({}) {{", inside.join(" & "));
    for (d, l) in loops.iter().enumerate() {
        let ty = format!("__typeof__({})", n.v("lo", d));
        s += &format!(
            " {ty} {} = ({ty})((unsigned long long){} + (unsigned long long)({} + {}) * (unsigned long long){});",
            l.var,
            n.v("lo", d),
            n.v("t", d),
            n.v("e", d),
            n.v("st", d)
        );
    }
    s
}

/// After the innermost body: closes the guard, the element directive and its block.
pub fn element_close(elem_id: usize) -> String {
    format!(" }} __acc_end({elem_id}); }}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_beside_tile_adds_outer_loops_of_size_one() {
        assert_eq!(pad_for_collapse(&[Some(32u64)], Some(3), Some(1)), vec![Some(32), Some(1), Some(1)]);
        assert_eq!(pad_for_collapse(&[Some(8u64), None], Some(2), Some(1)), vec![Some(8), None]);
        assert_eq!(pad_for_collapse(&[Some(8u64), Some(4)], Some(1), Some(1)), vec![Some(8), Some(4)]);
        assert_eq!(pad_for_collapse(&[Some(8u64)], None, Some(1)), vec![Some(8)]);
        assert_eq!(route("collapse", false), Route::Consumed);
    }
    use crate::tokenize::tokenize;

    #[test]
    fn star_sizes_fill_a_tile_of_256() {
        assert_eq!(choose_sizes(&[None]), vec![256]);
        assert_eq!(choose_sizes(&[None, None]), vec![32, 8]);
        assert_eq!(choose_sizes(&[None, None, None]), vec![32, 4, 2]);
        // Given sizes use the budget first.
        assert_eq!(choose_sizes(&[Some(16), None]), vec![16, 16]);
        assert_eq!(choose_sizes(&[None, Some(4)]), vec![64, 4]);
        assert_eq!(choose_sizes(&[None, None, Some(2)]), vec![32, 4, 2]);
        // Nothing left: a `*` is 1.
        assert_eq!(choose_sizes(&[Some(1024), None]), vec![1024, 1]);
        assert_eq!(choose_sizes(&[Some(3), Some(5)]), vec![3, 5]);
        // Every product is at most the budget (or the given sizes' product).
        for n in 1..=4 {
            let sizes = choose_sizes(&vec![None; n]);
            assert!(sizes.iter().product::<u64>() <= STAR_TILE_ELEMENTS, "{sizes:?}");
            assert!(sizes.iter().all(|s| *s >= 1));
        }
    }

    #[test]
    fn small_tiles_get_a_shorter_vector() {
        assert_eq!(vector_length_for(&[8, 8]), Some(64));
        assert_eq!(vector_length_for(&[5, 3]), Some(32));
        assert_eq!(vector_length_for(&[1]), Some(32));
        assert_eq!(vector_length_for(&[33, 5]), Some(192));
        assert_eq!(vector_length_for(&[32, 8]), None);
        assert_eq!(vector_length_for(&[1024, 1024]), None);
    }

    #[test]
    fn sizes_evaluate_literal_arithmetic_only() {
        assert_eq!(eval_size("32"), Some(32));
        assert_eq!(eval_size("0x10"), Some(16));
        assert_eq!(eval_size("010"), Some(8));
        assert_eq!(eval_size("4 * 8u"), Some(32));
        assert_eq!(eval_size("(1 << 5)"), Some(32));
        assert_eq!(eval_size("2 + 3 * 4"), Some(14));
        assert_eq!(eval_size("(2 + 3) * 4"), Some(20));
        assert_eq!(eval_size("64 / 4 % 5"), Some(1));
        assert_eq!(eval_size("TS"), None);
        assert_eq!(eval_size("sizeof(int)"), None);
        assert_eq!(eval_size("0"), None);
        assert_eq!(eval_size("1 / 0"), None);
    }

    #[test]
    fn clauses_go_to_their_loops() {
        assert_eq!(route("gang", false), Route::Tiles);
        assert_eq!(route("vector", false), Route::Elements);
        assert_eq!(route("worker", false), Route::Elements);
        assert_eq!(route("worker", true), Route::Tiles);
        assert_eq!(route("reduction", true), Route::Both);
        assert_eq!(route("private", false), Route::Elements);
        assert_eq!(route("seq", false), Route::Both);
        assert_eq!(route("copy", false), Route::Tiles);
        assert_eq!(route("num_gangs", false), Route::Tiles);
        assert_eq!(route("tile", false), Route::Consumed);
    }

    fn header(h: &str) -> Result<Canonical, String> {
        let toks = tokenize(h, false);
        parse_header(h, &toks)
    }

    #[test]
    fn canonical_headers() {
        let l = header("int i = 0; i < n; i++").unwrap();
        assert_eq!((l.var.as_str(), l.ty.as_deref(), l.lo.as_str(), l.rel, l.hi.as_str(), l.step.as_str()), ("i", Some("int"), "0", Rel::Lt, "n", "1LL"));
        let l = header("j = n - 1; 0 <= j; --j").unwrap();
        assert_eq!((l.ty, l.rel, l.hi.as_str(), l.step.as_str()), (None, Rel::Ge, "0", "-1LL"));
        let l = header("unsigned long k = a; k != b; k -= 3u").unwrap();
        assert_eq!((l.ty.as_deref(), l.rel, l.step.as_str()), (Some("unsigned long"), Rel::Ne, "-(long long)(3u)"));
        assert_eq!(header("int i = 0; i <= m * 2; i = i + 2 * s").unwrap().step, "(long long)(2 * s)");
        assert_eq!(header("int i = 0; i < m; i = 4 + i").unwrap().step, "(long long)(4)");
        assert_eq!(header("int i = 0; i < m; i = i - 2").unwrap().step, "-(long long)(2)");
        assert_eq!(header("int i = lo; i < f(n, m); i += st").unwrap().uses, vec!["lo", "f", "n", "m", "st"]);
        assert_eq!(header("int i = 0; n > (i); i++").unwrap().rel, Rel::Lt);
    }

    #[test]
    fn non_canonical_headers_are_errors() {
        for h in [
            "int i = 0; i < n && ok; i++",
            "int i = 0, j = 0; i < n; i++",
            "int i = 0; i < n; i *= 2",
            "int i = 0; i < n; i = i - a + b",
            "int i = 0; j < n; i++",
            ";;",
            "int *p = a; p < e; p++",
            "int i = 0; i < n; i += 1, j++",
        ] {
            assert!(header(h).is_err(), "{h}");
        }
    }

    #[test]
    fn nests_are_tight_and_rectangular() {
        let ok = "for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) a[i][j] = 0; } x;";
        let toks = tokenize(ok, false);
        let nest = find_nest(ok, &toks, 0, 2).unwrap();
        assert_eq!(nest.loops.iter().map(|l| l.var.as_str()).collect::<Vec<_>>(), ["i", "j"]);
        assert_eq!(toks[nest.body_end].text(ok), ";");
        assert!(toks[nest.body_end].start < ok.find('}').unwrap());
        for bad in [
            "for (int i = 0; i < n; i++) { a[i] = 0; for (int j = 0; j < m; j++) a[j] = 0; }",
            "for (int i = 0; i < n; i++) a[i] = 0;",
            "for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) a[j] = 0;",
            "for (int i = 0; i < n; i++) for (int i = 0; i < n; i++) a[i] = 0;",
        ] {
            let toks = tokenize(bad, false);
            assert!(find_nest(bad, &toks, 0, 2).is_err(), "{bad}");
        }
    }

    /// The trip count expression, evaluated by a C compiler, is how often the loop runs:
    /// checked in the e2e test (tests/e2e/tile.c); here its shape per comparison.
    #[test]
    fn trip_counts_need_no_branches() {
        let n = Names { id: 3 };
        for r in [Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge, Rel::Ne] {
            let t = trip_count(&n, 1, r);
            assert!(!t.contains('?') && !t.contains("&&"), "{t}");
            assert!(t.contains("__acc_tile3_lo1") && t.contains("__acc_tile3_hi1") && t.contains("__acc_tile3_st1"));
        }
    }
}
