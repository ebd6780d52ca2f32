//! `#pragma acc atomic` (OpenACC 3.3 §2.12): the statement after the directive, classified
//! (`classify`, pure, on its tokens) and rewritten into GNU C atomic builtins (`lower`) that
//! Clang compiles to LLVM `atomicrmw`/`cmpxchg`/atomic loads and stores, the same on the host
//! and in device code. No marker reaches the IR contract: the pass sees only atomic
//! instructions, which it treats as memory accesses (guard.rs runs them on one lane in
//! single-mode code; the emulator yields after them).
//!
//! Forms, with `x` and `v` lvalues, `e` an expression and `op` one of `+ * - / & ^ | << >>`
//! (and, as an extension accc accepts although OpenACC 3.3 and Clang's validation do not,
//! `&& ||` in `x = x op e` / `x = e op x`, and the OpenMP 5.1 style min/max
//! `x = x < e ? e : x` with any of `< > <= >=` and either order):
//! - read `v = x;`, write `x = e;`
//! - update (also `atomic` alone): `x++; x--; ++x; --x; x op= e; x = x op e; x = e op x;`
//! - capture: `v = x++; v = x--; v = ++x; v = --x; v = x op= e; v = x = x op e;
//!   v = x = e op x;` and the blocks `{v = x; U;}` (v gets the old value), `{U; v = x;}`
//!   (the new value), `{v = x; x = e;}` (an exchange), U being an update statement.
//!
//! Lowering. `&(x)` and `e` are evaluated once, before the operation; the new value is
//! computed in C, as the statement itself would compute it (`x = x * e` with a `char` x and
//! a `double` e is `(char)(old * e)`), by a compare-and-swap loop over the generic
//! `__atomic_compare_exchange` (any scalar type; LLVM widens 8- and 16-bit ones on NVPTX).
//! Where a hardware read-modify-write gives the same value, a compile-time test on the
//! types (`__builtin_classify_type`, sizes, signedness: integer constant expressions, so
//! Clang emits only the chosen branch, at -O0 too) uses `__atomic_fetch_<op>` instead:
//! `+ -` on an integer x with an integer e, or a float/double x with an e that converts to
//! x's type exactly as C's usual conversions would (an integer, or a floating type no wider
//! than x: GPU `atom.add.f32/f64`); `& | ^` on integers (not `_Bool`, where `(b & 2) != 0`
//! differs); min/max on integers with an integer e of the same signedness and at most x's
//! width. The unchosen branch must still compile for every type, so it names x's type only
//! through `__builtin_choose_expr` (an `int` when not chosen). Ordering is relaxed (OpenACC
//! atomics order nothing). An `if(cond)` clause runs the statement as written when the
//! condition is false (OpenACC 3.4 §2.12).

use std::fmt::Write as _;

/// The directive's flavour (`atomic` alone is `Update`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Update,
    Capture,
}

impl Kind {
    pub fn of(d: acc_directives::Directive) -> Option<Kind> {
        use acc_directives::Directive as D;
        Some(match d {
            D::AtomicRead => Kind::Read,
            D::AtomicWrite => Kind::Write,
            D::Atomic | D::AtomicUpdate => Kind::Update,
            D::AtomicCapture => Kind::Capture,
            _ => return None,
        })
    }
}

/// A binary operator of an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    LogAnd,
    LogOr,
}

const OPS: [(&str, Op); 11] = [
    ("+", Op::Add),
    ("-", Op::Sub),
    ("*", Op::Mul),
    ("/", Op::Div),
    ("&", Op::And),
    ("|", Op::Or),
    ("^", Op::Xor),
    ("<<", Op::Shl),
    (">>", Op::Shr),
    ("&&", Op::LogAnd),
    ("||", Op::LogOr),
];

impl Op {
    pub fn from_binop(s: &str) -> Option<Op> {
        OPS.iter().find(|(t, _)| *t == s).map(|(_, o)| *o)
    }
    /// `+=` → Add; `&&`/`||` have no compound form.
    pub fn from_compound(s: &str) -> Option<Op> {
        let op = Op::from_binop(s.strip_suffix('=')?)?;
        (!matches!(op, Op::LogAnd | Op::LogOr)).then_some(op)
    }
    pub fn symbol(self) -> &'static str {
        OPS.iter().find(|(_, o)| *o == self).map_or("?", |(t, _)| t)
    }
}

/// How an update computes x's new value from its old one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// `old op e` (or `e op old` when `expr_first`); `x++` is `Add` with `e` = `1`.
    Binop { op: Op, expr: String, expr_first: bool },
    /// `(A relop B) ? C : D` where one of A, B is x and the other e, and C, D are x and e:
    /// `x_left` says x is A, `then_e` that C is e. `max` says which one it is on integers.
    MinMax { relop: String, x_left: bool, then_e: bool, expr: String, max: bool },
    /// `x = e` in `{v = x; x = e;}`: an exchange.
    Assign { expr: String },
}

/// A classified atomic statement. Texts are the statement's tokens joined by spaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Atomic {
    Read { v: String, x: String },
    Write { x: String, expr: String },
    Update { x: String, update: Update },
    /// `v` receives the new value when `new`, else the old one.
    Capture { v: String, x: String, update: Update, new: bool },
}

const ASSIGN_OPS: [&str; 11] = ["=", "+=", "-=", "*=", "/=", "&=", "^=", "|=", "<<=", ">>=", "%="];
const RELOPS: [&str; 4] = ["<", ">", "<=", ">="];

fn join(ts: &[&str]) -> String {
    ts.join(" ")
}

/// Bracket depth before each token (`(`, `[`, `{` open; digraphs already undone).
fn depths(ts: &[&str]) -> Vec<i32> {
    let mut d = 0;
    ts.iter()
        .map(|t| {
            if matches!(*t, ")" | "]" | "}") {
                d -= 1;
            }
            let here = d;
            if matches!(*t, "(" | "[" | "{") {
                d += 1;
            }
            here
        })
        .collect()
}

/// `ts` without parentheses around the whole of it: `((a[i]))` is `a[i]`.
fn strip<'a, 'b>(mut ts: &'a [&'b str]) -> &'a [&'b str] {
    while ts.len() >= 2 && ts[0] == "(" && ts[ts.len() - 1] == ")" {
        let d = depths(ts);
        // The opening parenthesis must close at the end, not earlier (`(a) + (b)`).
        if d[1..ts.len() - 1].iter().any(|&x| x < 1) {
            break;
        }
        ts = &ts[1..ts.len() - 1];
    }
    ts
}

/// Whether `ts` can be an lvalue as written: no binary, conditional, comparison, comma or
/// assignment operator outside brackets (`*p`, `a[i + 1]`, `s->f` are; `x + 1` is not).
fn lvalue_like(ts: &[&str]) -> bool {
    let ts = strip(ts);
    let d = depths(ts);
    let operand_end = |t: &str| t.ends_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | ')' | ']' | '"' | '\''));
    !ts.is_empty()
        && (1..ts.len()).all(|k| {
            let t = ts[k];
            d[k] != 0
                || !(matches!(t, "?" | ":" | "," | "==" | "!=" | "++" | "--")
                    || RELOPS.contains(&t)
                    || ASSIGN_OPS.contains(&t)
                    || (Op::from_binop(t).is_some() && operand_end(ts[k - 1])))
        })
}

fn same(a: &[&str], b: &[&str]) -> bool {
    let (a, b) = (strip(a), strip(b));
    !a.is_empty() && a == b
}

/// One expression statement (without its `;`).
#[derive(Debug)]
enum Expr<'a, 'b> {
    Assign { lhs: &'a [&'b str], op: &'b str, rhs: &'a [&'b str] },
    IncDec { x: &'a [&'b str], inc: bool, post: bool },
    Other,
}

fn expr<'a, 'b>(ts: &'a [&'b str]) -> Expr<'a, 'b> {
    let d = depths(ts);
    if let Some(k) = (1..ts.len()).find(|&k| d[k] == 0 && ASSIGN_OPS.contains(&ts[k])) {
        return Expr::Assign { lhs: &ts[..k], op: ts[k], rhs: &ts[k + 1..] };
    }
    match ts {
        [first, rest @ ..] if !rest.is_empty() && (*first == "++" || *first == "--") => Expr::IncDec { x: rest, inc: *first == "++", post: false },
        [rest @ .., last] if !rest.is_empty() && (*last == "++" || *last == "--") => Expr::IncDec { x: rest, inc: *last == "++", post: true },
        _ => Expr::Other,
    }
}

const UPDATE_FORMS: &str = "x++, x--, ++x, --x, 'x binop= expr', 'x = x binop expr' or 'x = expr binop x' (binop: + * - / & ^ | << >>)";

/// The update an expression statement makes, and its x.
fn update<'a, 'b>(e: &Expr<'a, 'b>) -> Result<(&'a [&'b str], Update), String> {
    match e {
        Expr::IncDec { x, inc, .. } => Ok((x, Update::Binop { op: if *inc { Op::Add } else { Op::Sub }, expr: "1".into(), expr_first: false })),
        Expr::Assign { lhs, op: "=", rhs } => rhs_update(lhs, rhs).map(|u| (*lhs, u)),
        Expr::Assign { lhs, op, rhs } => match Op::from_compound(op) {
            Some(o) if !rhs.is_empty() => Ok((lhs, Update::Binop { op: o, expr: join(rhs), expr_first: false })),
            _ => Err(format!("operator '{op}' is not an atomic update operator: expected {UPDATE_FORMS}")),
        },
        Expr::Other => Err(format!("expected {UPDATE_FORMS}")),
    }
}

/// The update in `x = rhs`.
fn rhs_update(x: &[&str], rhs: &[&str]) -> Result<Update, String> {
    let rhs = strip(rhs);
    let d = depths(rhs);
    if let Some(q) = (0..rhs.len()).find(|&k| d[k] == 0 && rhs[k] == "?") {
        return min_max(x, rhs, q);
    }
    let binop = |k: usize| d[k] == 0 && Op::from_binop(rhs[k]).is_some();
    // x op e: x's tokens, then the operator.
    if let Some(k) = (1..rhs.len().saturating_sub(1)).find(|&k| binop(k) && same(&rhs[..k], x)) {
        return Ok(Update::Binop { op: Op::from_binop(rhs[k]).unwrap_or(Op::Add), expr: join(&rhs[k + 1..]), expr_first: false });
    }
    // e op x: the last such operator (the one of lowest precedence that x follows).
    if let Some(k) = (1..rhs.len().saturating_sub(1)).rev().find(|&k| binop(k) && same(&rhs[k + 1..], x)) {
        return Ok(Update::Binop { op: Op::from_binop(rhs[k]).unwrap_or(Op::Add), expr: join(&rhs[..k]), expr_first: true });
    }
    Err(format!("'{} = {}' is not an atomic update of '{}': expected {UPDATE_FORMS}, or a min/max 'x = x < expr ? expr : x'", join(x), join(rhs), join(x)))
}

/// `x = cond ? a : b` (rhs[q] is the `?`): min or max of x and e.
fn min_max(x: &[&str], rhs: &[&str], q: usize) -> Result<Update, String> {
    let bad = || format!("'{} = {}' is not an atomic min/max: expected 'x = x < expr ? expr : x' (or with > <= >=, either order)", join(x), join(rhs));
    let d = depths(rhs);
    let mut nested = 0;
    let mut colon = None;
    for k in q + 1..rhs.len() {
        if d[k] != 0 {
            continue;
        }
        match rhs[k] {
            "?" => nested += 1,
            ":" if nested == 0 => {
                colon = Some(k);
                break;
            }
            ":" => nested -= 1,
            _ => {}
        }
    }
    let c = colon.ok_or_else(bad)?;
    let (cond, a, b) = (strip(&rhs[..q]), &rhs[q + 1..c], &rhs[c + 1..]);
    let cd = depths(cond);
    let rel: Vec<usize> = (0..cond.len()).filter(|&k| cd[k] == 0 && RELOPS.contains(&cond[k])).collect();
    let [r] = rel[..] else { return Err(bad()) };
    let (l, rr) = (&cond[..r], &cond[r + 1..]);
    let (x_left, e) = if same(l, x) {
        (true, rr)
    } else if same(rr, x) {
        (false, l)
    } else {
        return Err(bad());
    };
    let then_e = if same(a, x) && same(b, e) {
        false
    } else if same(a, e) && same(b, x) {
        true
    } else {
        return Err(bad());
    };
    let x_smaller = (x_left && matches!(cond[r], "<" | "<=")) || (!x_left && matches!(cond[r], ">" | ">="));
    Ok(Update::MinMax { relop: cond[r].to_string(), x_left, then_e, expr: join(strip(e)), max: x_smaller == then_e })
}

/// The statements of a `{ s1; s2; }` block, without their `;`.
fn block_statements<'a, 'b>(ts: &'a [&'b str]) -> Vec<&'a [&'b str]> {
    let inner = &ts[1..ts.len() - 1];
    let d = depths(inner);
    let mut out = Vec::new();
    let mut start = 0;
    for k in 0..inner.len() {
        if d[k] == 0 && inner[k] == ";" {
            out.push(&inner[start..k]);
            start = k + 1;
        }
    }
    if start < inner.len() {
        out.push(&inner[start..]);
    }
    out
}

/// Classifies the statement `ts` (its tokens, digraphs undone, ending in `;` or `}`) of an
/// atomic directive of kind `kind`.
pub fn classify(kind: Kind, ts: &[&str]) -> Result<Atomic, String> {
    let block = ts.first() == Some(&"{") && ts.last() == Some(&"}");
    if block && kind != Kind::Capture {
        return Err("only 'atomic capture' takes a block: expected one expression statement".into());
    }
    if block {
        return capture_block(&block_statements(ts));
    }
    let Some((&";", body)) = ts.split_last() else { return Err("expected an expression statement".into()) };
    let e = expr(body);
    match kind {
        Kind::Read => match e {
            Expr::Assign { lhs, op: "=", rhs } if lvalue_like(rhs) => Ok(Atomic::Read { v: join(lhs), x: join(rhs) }),
            _ => Err("expected 'v = x;' after 'atomic read'".into()),
        },
        Kind::Write => match e {
            Expr::Assign { lhs, op: "=", rhs } if !rhs.is_empty() => Ok(Atomic::Write { x: join(lhs), expr: join(rhs) }),
            _ => Err("expected 'x = expr;' after 'atomic write'".into()),
        },
        Kind::Update => update(&e).map(|(x, update)| Atomic::Update { x: join(x), update }),
        Kind::Capture => {
            let capture_forms = "expected 'v = x++;', 'v = ++x;' (or --), 'v = x binop= expr;', 'v = x = x binop expr;', 'v = x = expr binop x;' or a block '{v = x; x binop= expr;}'";
            let Expr::Assign { lhs: v, op: "=", rhs } = e else { return Err(capture_forms.into()) };
            let inner = expr(rhs);
            let new = match inner {
                Expr::IncDec { post, .. } => !post,
                Expr::Assign { .. } => true,
                Expr::Other => return Err(capture_forms.into()),
            };
            let (x, update) = update(&inner)?;
            Ok(Atomic::Capture { v: join(v), x: join(x), update, new })
        }
    }
}

/// `{v = x; U;}`, `{v = x; x = e;}` or `{U; v = x;}`.
fn capture_block(stmts: &[&[&str]]) -> Result<Atomic, String> {
    let forms = "expected a block of two statements: '{v = x; x binop= expr;}', '{x binop= expr; v = x;}', '{v = x; x = expr;}' (or with x++, ++x, x--, --x, 'x = x binop expr', 'x = expr binop x')";
    let [s1, s2] = stmts[..] else { return Err(forms.into()) };
    let (e1, e2) = (expr(s1), expr(s2));
    // The capture first: v gets the old value.
    if let Expr::Assign { lhs: v, op: "=", rhs: x } = e1 {
        let target = match &e2 {
            Expr::Assign { lhs, .. } => Some(*lhs),
            Expr::IncDec { x, .. } => Some(*x),
            Expr::Other => None,
        };
        if lvalue_like(x) && target.is_some_and(|t| same(t, x)) {
            let (x2, update) = match (&e2, update(&e2)) {
                (_, Ok(u)) => u,
                (Expr::Assign { lhs, op: "=", rhs }, Err(_)) => (*lhs, Update::Assign { expr: join(rhs) }),
                (_, Err(m)) => return Err(m),
            };
            return Ok(Atomic::Capture { v: join(v), x: join(x2), update, new: false });
        }
    }
    // The update first: v gets the new value.
    if let Expr::Assign { lhs: v, op: "=", rhs: x } = e2 {
        let (x1, update) = update(&e1).map_err(|m| format!("{m} before 'v = x' in an atomic capture block"))?;
        if same(x1, x) {
            return Ok(Atomic::Capture { v: join(v), x: join(x1), update, new: true });
        }
    }
    Err(forms.into())
}

const OLD: &str = "__acc_old";
const NEW: &str = "__acc_new";
const E: &str = "__acc_e";

/// `__builtin_classify_type` classes (GCC's typeclass.h): integers (enums too in C),
/// `_Bool`, real floating types.
fn class(v: &str) -> String {
    format!("__builtin_classify_type({v})")
}

/// The compile-time test under which `__atomic_fetch_<op>` gives C's value, and the builtin.
fn fast_path(u: &Update) -> Option<(String, &'static str)> {
    let int_x = format!("{} == 1", class(OLD));
    let int_e = format!("({0} == 1 || {0} == 3 || {0} == 4)", class(E));
    let add = || {
        format!(
            "(({int_x} && {int_e}) || ({cx} == 8 && sizeof({OLD}) <= 8 && ({int_e} || ({ce} == 8 && sizeof({E}) <= sizeof({OLD})))))",
            cx = class(OLD),
            ce = class(E)
        )
    };
    match u {
        Update::Binop { op: Op::Add, .. } => Some((add(), "__atomic_fetch_add")),
        Update::Binop { op: Op::Sub, expr_first: false, .. } => Some((add(), "__atomic_fetch_sub")),
        Update::Binop { op: Op::And, .. } => Some((format!("({int_x})"), "__atomic_fetch_and")),
        Update::Binop { op: Op::Or, .. } => Some((format!("({int_x})"), "__atomic_fetch_or")),
        Update::Binop { op: Op::Xor, .. } => Some((format!("({int_x})"), "__atomic_fetch_xor")),
        Update::MinMax { max, .. } => {
            // Signedness through a type that is `int` unless the operand is an integer, so
            // that the test stays an integer constant expression for every type.
            let signed = |v: &str| format!("((__typeof__(__builtin_choose_expr({} == 1, {v}, 0)))-1 < 0)", class(v));
            Some((
                format!("({int_x} && {} == 1 && {} == {} && sizeof({E}) <= sizeof({OLD}))", class(E), signed(E), signed(OLD)),
                if *max { "__atomic_fetch_max" } else { "__atomic_fetch_min" },
            ))
        }
        _ => None,
    }
}

/// x's new value, in C, from `__acc_old` and `__acc_e`.
fn new_value(u: &Update) -> String {
    match u {
        Update::Binop { op, expr_first: false, .. } => format!("{OLD} {} {E}", op.symbol()),
        Update::Binop { op, expr_first: true, .. } => format!("{E} {} {OLD}", op.symbol()),
        Update::MinMax { relop, x_left, then_e, .. } => {
            let (l, r) = if *x_left { (OLD, E) } else { (E, OLD) };
            let (a, b) = if *then_e { (E, OLD) } else { (OLD, E) };
            format!("({l} {relop} {r}) ? {a} : {b}")
        }
        Update::Assign { .. } => E.to_string(),
    }
}

fn update_expr(u: &Update) -> &str {
    match u {
        Update::Binop { expr, .. } | Update::MinMax { expr, .. } | Update::Assign { expr } => expr,
    }
}

/// The statement's replacement: one line of C, a compound statement.
pub fn lower(a: &Atomic) -> String {
    let ptr = |x: &str| format!("__typeof__({x}) *__acc_p = &({x});");
    match a {
        Atomic::Read { v, x } => format!("{{ {} __typeof_unqual__({x}) {OLD}; __atomic_load(__acc_p, &{OLD}, 0); {v} = {OLD}; }}", ptr(x)),
        Atomic::Write { x, expr } => format!("{{ {} __typeof_unqual__({x}) {NEW} = ({expr}); __atomic_store(__acc_p, &{NEW}, 0); }}", ptr(x)),
        Atomic::Update { x, update } => rmw(x, update, None),
        Atomic::Capture { v, x, update, new } => rmw(x, update, Some((v, *new))),
    }
}

fn rmw(x: &str, u: &Update, capture: Option<(&String, bool)>) -> String {
    let mut s = format!("{{ __typeof__({x}) *__acc_p = &({x}); __auto_type {E} = ({}); __typeof_unqual__({x}) {OLD}, {NEW}; ", update_expr(u));
    let newv = new_value(u);
    if let Update::Assign { .. } = u {
        let _ = write!(s, "{NEW} = {E}; __atomic_exchange(__acc_p, &{NEW}, &{OLD}, 0); ");
    } else {
        if let Some((cond, builtin)) = fast_path(u) {
            let _ = write!(
                s,
                "enum {{ __acc_fast = {cond} }}; typedef __typeof__(__builtin_choose_expr(__acc_fast, {OLD}, 0)) __acc_ft; \
                 if (__acc_fast) {{ {OLD} = (__typeof_unqual__({x})){builtin}((__acc_ft *)__acc_p, (__acc_ft){E}, 0); "
            );
            if capture.is_some_and(|(_, new)| new) {
                let _ = write!(s, "{NEW} = {newv}; ");
            }
            s.push_str("} else ");
        }
        let _ = write!(
            s,
            "{{ __atomic_load(__acc_p, &{OLD}, 0); do {NEW} = {newv}; while (!__atomic_compare_exchange(__acc_p, &{OLD}, &{NEW}, 0, 0, 0)); }} "
        );
    }
    if let Some((v, new)) = capture {
        let _ = write!(s, "{v} = {}; ", if new { NEW } else { OLD });
    }
    s.push('}');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::tokenize;
    use pretty_assertions::assert_eq;

    fn c(kind: Kind, src: &str) -> Result<Atomic, String> {
        let toks = tokenize(src, false);
        let ts: Vec<&str> = toks.iter().map(|t| t.punct(src)).collect();
        classify(kind, &ts)
    }
    fn bin(op: Op, expr: &str, expr_first: bool) -> Update {
        Update::Binop { op, expr: expr.into(), expr_first }
    }
    fn upd(x: &str, u: Update) -> Atomic {
        Atomic::Update { x: x.into(), update: u }
    }
    fn cap(v: &str, x: &str, u: Update, new: bool) -> Atomic {
        Atomic::Capture { v: v.into(), x: x.into(), update: u, new }
    }

    #[test]
    fn read_and_write() {
        assert_eq!(c(Kind::Read, "v = a[i];"), Ok(Atomic::Read { v: "v".into(), x: "a [ i ]".into() }));
        assert_eq!(c(Kind::Write, "x = n + 1;"), Ok(Atomic::Write { x: "x".into(), expr: "n + 1".into() }));
        assert!(c(Kind::Read, "v += x;").is_err());
        assert!(c(Kind::Write, "x++;").is_err());
        assert!(c(Kind::Read, "{v = x;}").is_err());
        // Clang 22 lets a read of a non-lvalue through; accc names it.
        assert!(c(Kind::Read, "v = x + 1;").is_err());
        assert!(c(Kind::Read, "v = *p;").is_ok() && c(Kind::Read, "v = (s->a[i + 1]);").is_ok());
        assert!(c(Kind::Capture, "{v = x + 1; x++;}").is_err());
    }

    #[test]
    fn update_forms() {
        assert_eq!(c(Kind::Update, "x++;"), Ok(upd("x", bin(Op::Add, "1", false))));
        assert_eq!(c(Kind::Update, "--p->n;"), Ok(upd("p -> n", bin(Op::Sub, "1", false))));
        assert_eq!(c(Kind::Update, "h[k % 7] += w;"), Ok(upd("h [ k % 7 ]", bin(Op::Add, "w", false))));
        assert_eq!(c(Kind::Update, "x <<= 1;"), Ok(upd("x", bin(Op::Shl, "1", false))));
        assert_eq!(c(Kind::Update, "*p = *p * 3;"), Ok(upd("* p", bin(Op::Mul, "3", false))));
        assert_eq!(c(Kind::Update, "x = x - (a - b);"), Ok(upd("x", bin(Op::Sub, "( a - b )", false))));
        assert_eq!(c(Kind::Update, "x = a - b - x;"), Ok(upd("x", bin(Op::Sub, "a - b", true))));
        assert_eq!(c(Kind::Update, "x = 2.0 / x;"), Ok(upd("x", bin(Op::Div, "2.0", true))));
        assert_eq!(c(Kind::Update, "(x) = x >> s;"), Ok(upd("( x )", bin(Op::Shr, "s", false))));
        assert_eq!(c(Kind::Update, "x = x && f(a, b);"), Ok(upd("x", bin(Op::LogAnd, "f ( a , b )", false))));
        assert_eq!(c(Kind::Update, "x = e || x;"), Ok(upd("x", bin(Op::LogOr, "e", true))));
        assert_eq!(c(Kind::Update, "s.f ^= m;"), Ok(upd("s . f", bin(Op::Xor, "m", false))));
        assert!(c(Kind::Update, "x %= 3;").unwrap_err().contains("'%='"));
        assert!(c(Kind::Update, "x = y + 1;").is_err());
        assert!(c(Kind::Update, "x = f(x);").is_err());
        assert!(c(Kind::Update, "f(x);").is_err());
    }

    #[test]
    fn min_max_forms() {
        let mm = |relop: &str, x_left, then_e, max| Update::MinMax { relop: relop.into(), x_left, then_e, expr: "e".into(), max };
        assert_eq!(c(Kind::Update, "x = x < e ? e : x;"), Ok(upd("x", mm("<", true, true, true))));
        assert_eq!(c(Kind::Update, "x = e > x ? e : x;"), Ok(upd("x", mm(">", false, true, true))));
        assert_eq!(c(Kind::Update, "x = x > e ? e : x;"), Ok(upd("x", mm(">", true, true, false))));
        assert_eq!(c(Kind::Update, "x = (e <= x) ? e : x;"), Ok(upd("x", mm("<=", false, true, false))));
        assert_eq!(c(Kind::Update, "x = x >= e ? x : e;"), Ok(upd("x", mm(">=", true, false, true))));
        assert_eq!(c(Kind::Update, "x = x < e ? x : e;"), Ok(upd("x", mm("<", true, false, false))));
        assert!(c(Kind::Update, "x = x < e ? f : x;").is_err());
        assert!(c(Kind::Update, "x = y < e ? e : x;").is_err());
        assert!(c(Kind::Update, "x = x == e ? e : x;").is_err());
    }

    #[test]
    fn capture_expression_forms() {
        assert_eq!(c(Kind::Capture, "v = x++;"), Ok(cap("v", "x", bin(Op::Add, "1", false), false)));
        assert_eq!(c(Kind::Capture, "v = --x;"), Ok(cap("v", "x", bin(Op::Sub, "1", false), true)));
        assert_eq!(c(Kind::Capture, "v[i] = x *= 2;"), Ok(cap("v [ i ]", "x", bin(Op::Mul, "2", false), true)));
        assert_eq!(c(Kind::Capture, "v = x = x / d;"), Ok(cap("v", "x", bin(Op::Div, "d", false), true)));
        assert_eq!(c(Kind::Capture, "v = x = d - x;"), Ok(cap("v", "x", bin(Op::Sub, "d", true), true)));
        assert!(c(Kind::Capture, "v = x;").is_err());
        assert!(c(Kind::Capture, "x++;").is_err());
    }

    #[test]
    fn capture_blocks() {
        assert_eq!(c(Kind::Capture, "{v = x; x += e;}"), Ok(cap("v", "x", bin(Op::Add, "e", false), false)));
        assert_eq!(c(Kind::Capture, "{ x |= e; v = x; }"), Ok(cap("v", "x", bin(Op::Or, "e", false), true)));
        assert_eq!(c(Kind::Capture, "{v = x; x = x << e;}"), Ok(cap("v", "x", bin(Op::Shl, "e", false), false)));
        assert_eq!(c(Kind::Capture, "{v = x; x = e - x;}"), Ok(cap("v", "x", bin(Op::Sub, "e", true), false)));
        assert_eq!(c(Kind::Capture, "{x = x * e; v = x;}"), Ok(cap("v", "x", bin(Op::Mul, "e", false), true)));
        assert_eq!(c(Kind::Capture, "{x = e / x; v = x;}"), Ok(cap("v", "x", bin(Op::Div, "e", true), true)));
        assert_eq!(c(Kind::Capture, "{v = x; x = e;}"), Ok(cap("v", "x", Update::Assign { expr: "e".into() }, false)));
        assert_eq!(c(Kind::Capture, "{v = a[i]; a[i]++;}"), Ok(cap("v", "a [ i ]", bin(Op::Add, "1", false), false)));
        assert_eq!(c(Kind::Capture, "{v = x; --x;}"), Ok(cap("v", "x", bin(Op::Sub, "1", false), false)));
        assert_eq!(c(Kind::Capture, "{++x; v = x;}"), Ok(cap("v", "x", bin(Op::Add, "1", false), true)));
        assert_eq!(c(Kind::Capture, "{x--; v = x;}"), Ok(cap("v", "x", bin(Op::Sub, "1", false), true)));
        assert!(c(Kind::Capture, "{v = x; y += 1;}").is_err());
        assert!(c(Kind::Capture, "{x = e; v = x;}").is_err());
        assert!(c(Kind::Capture, "{v = x; x += 1; w = x;}").is_err());
    }

    #[test]
    fn lowering_picks_the_hardware_operation_where_c_agrees() {
        let add = lower(&upd("x", bin(Op::Add, "e", false)));
        assert!(add.contains("if (__acc_fast) { __acc_old = (__typeof_unqual__(x))__atomic_fetch_add((__acc_ft *)__acc_p, (__acc_ft)__acc_e, 0); } else {"), "{add}");
        assert!(add.contains("__atomic_compare_exchange(__acc_p, &__acc_old, &__acc_new, 0, 0, 0)"), "{add}");
        assert!(add.contains("do __acc_new = __acc_old + __acc_e; while"), "{add}");
        // e - x and * have no read-modify-write: the loop alone.
        for u in [bin(Op::Sub, "e", true), bin(Op::Mul, "e", false), bin(Op::LogAnd, "e", false)] {
            assert!(!lower(&upd("x", u.clone())).contains("__atomic_fetch"), "{u:?}");
        }
        assert!(lower(&upd("x", bin(Op::Sub, "e", false))).contains("__atomic_fetch_sub"));
        let max = lower(&upd("x", Update::MinMax { relop: "<".into(), x_left: true, then_e: true, expr: "e".into(), max: true }));
        assert!(max.contains("__atomic_fetch_max") && max.contains("do __acc_new = (__acc_old < __acc_e) ? __acc_e : __acc_old; while"), "{max}");
        let xchg = lower(&cap("v", "x", Update::Assign { expr: "e".into() }, false));
        assert!(xchg.contains("__atomic_exchange(__acc_p, &__acc_new, &__acc_old, 0); v = __acc_old; }"), "{xchg}");
        let newv = lower(&cap("v", "x", bin(Op::Add, "1", false), true));
        assert!(newv.ends_with("v = __acc_new; }") && newv.matches("__acc_new = __acc_old + __acc_e;").count() == 2, "{newv}");
        assert_eq!(
            lower(&Atomic::Read { v: "v".into(), x: "x".into() }),
            "{ __typeof__(x) *__acc_p = &(x); __typeof_unqual__(x) __acc_old; __atomic_load(__acc_p, &__acc_old, 0); v = __acc_old; }"
        );
        assert!(!lower(&upd("x", bin(Op::Add, "1", false))).contains('\n'));
    }
}
