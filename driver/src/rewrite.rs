//! The rewriter: turns every `#pragma acc` line of a preprocessed translation unit into
//! marker calls (docs/ir-contract.md) without changing the line structure, so that line
//! markers, diagnostics and debug info keep pointing at the user's source.
//!
//! ```text
//! #pragma acc parallel loop copy(y[0:n])     { __acc_begin(1, "parallel loop", "t.c", 3, 9); __acc_clause(1, "copy", ...);
//! for (...) y[i] = ...;                  →   for (...) y[i] = ...; __acc_end(1); }
//! ```
//!
//! Columns come from the original source line when the file is readable (so indentation and
//! `_Pragma` inside macros are reported where the user wrote them); otherwise from the
//! preprocessed text. The begin marker's column is that of `acc`; a rejection names the
//! directive's or clause's own column.

use std::collections::{HashMap, HashSet};

use acc_directives::{self as acc, Operands};

use crate::error::{Diag, Loc};
use crate::operand::{c_string, encode_var, implicit_attach, section_base, Trailing, VarError};
use crate::pragma::{parse_pragma, split_group, split_modifier, Arg, Clause, Directive};
use crate::tile;
use crate::stmt::stmt_end;
use crate::tokenize::{same_length_utf8, tokenize, Kind, Token};

/// Declarations of the marker functions, put in front of every rewritten file.
pub const PRELUDE: &str = "void __acc_begin(int, const char *, const char *, int, int); \
void __acc_clause(int, const char *, ...); void __acc_end(int);";

/// Result of a successful rewrite.
#[derive(Debug)]
pub struct Rewritten {
    /// The rewritten unit: the input's bytes unchanged outside the directives.
    pub text: Vec<u8>,
    /// Number of directives lowered to markers.
    pub directives: usize,
}

/// Reads an original source file by the name a line marker gives (None if unreadable).
/// It is asked only for files the preprocessor opened (see [`opened_files`]).
pub type SourceReader<'a> = dyn FnMut(&str) -> Option<String> + 'a;

/// The files the preprocessor opened: the main file (the first line marker) and each file
/// entered by an `#include` (flag 1). A `#line 1 "/dev/zero"` renames lines without opening
/// anything, so its name is never read.
fn opened_files(toks: &[Token]) -> HashSet<String> {
    let mut opened = HashSet::new();
    let mut first = true;
    for t in toks {
        if let Kind::LineMarker { file, entered, .. } = &t.kind {
            if first || *entered {
                opened.insert(file.clone());
            }
            first = false;
        }
    }
    opened
}

/// Maps each line of the preprocessed text to (file, 1-based line) of the user's source.
fn line_origins(src: &str, toks: &[Token]) -> Vec<(String, usize)> {
    let mut markers: HashMap<usize, (usize, String)> = HashMap::new();
    for t in toks {
        if let Kind::LineMarker { line, file, .. } = &t.kind {
            markers.insert(t.line, (*line, file.clone()));
        }
    }
    let nlines = src.split('\n').count();
    let mut out = Vec::with_capacity(nlines);
    let mut file = String::new();
    let mut next = 1usize;
    for l in 0..nlines {
        if let Some((n, f)) = markers.get(&l) {
            out.push((f.clone(), 0));
            file = f.clone();
            next = *n;
        } else {
            out.push((file.clone(), next));
            next += 1;
        }
    }
    out
}

/// The original text of a pragma: its physical lines (following backslash continuations)
/// joined, tokenized, with each token's (line, col).
struct Original {
    text: String,
    toks: Vec<Token>,
    /// (line, col) per token.
    pos: Vec<(usize, usize)>,
}

impl Original {
    fn load(content: &str, line: usize) -> Option<Original> {
        let lines: Vec<&str> = content.split('\n').collect();
        let mut text = String::new();
        let mut starts = Vec::new(); // (offset in text, line number)
        let mut l = line;
        loop {
            let phys = lines.get(l.checked_sub(1)?)?.trim_end_matches('\r');
            starts.push((text.len(), l));
            if let Some(stripped) = phys.strip_suffix('\\') {
                text.push_str(stripped);
                text.push(' ');
                l += 1;
            } else {
                text.push_str(phys);
                break;
            }
        }
        let toks = tokenize(&text, false);
        let pos = toks
            .iter()
            .map(|t| {
                let (off, ln) = starts.iter().rev().find(|(o, _)| *o <= t.start).copied().unwrap_or((0, line));
                (ln, t.start - off + 1)
            })
            .collect();
        Some(Original { text, toks, pos })
    }

    /// Index of the first token at or after `from` that is the identifier `name`
    /// (optionally followed by the identifier `then`).
    fn find(&self, from: usize, name: &str, then: Option<&str>) -> Option<usize> {
        (from..self.toks.len()).find(|&i| {
            self.toks[i].is_ident(&self.text, name)
                && then.is_none_or(|w| self.toks.get(i + 1).is_some_and(|t| t.is_ident(&self.text, w)))
        })
    }
}

/// Source positions of a directive and its clauses, plus clause items as written.
struct Located {
    acc: Loc,
    name: Loc,
    clauses: Vec<Loc>,
    /// The items of each clause as written in the source, when they could be matched.
    items: Vec<Option<Vec<String>>>,
}

fn locate(d: &Directive, file: &str, line: usize, pragma_col: usize, original: Option<&Original>) -> Located {
    let at = |off: usize| Loc::at(file, line, pragma_col + off);
    let fallback = || Located {
        acc: at(d.acc_off),
        name: at(d.name_off),
        clauses: d.clauses.iter().map(|c| at(c.off)).collect(),
        items: d.clauses.iter().map(|_| None).collect(),
    };
    let Some(o) = original else { return fallback() };
    let first = d.name.split(' ').next().unwrap_or("");
    let Some(acc) = o.find(0, "acc", Some(first)) else {
        // A `_Pragma` produced by a macro whose body is elsewhere: point at the line's first
        // token (the macro use) rather than at a column of the preprocessed text.
        return match o.toks.first() {
            Some(_) => {
                let l = Loc::at(file, o.pos[0].0, o.pos[0].1);
                Located {
                    acc: l.clone(),
                    name: l.clone(),
                    clauses: d.clauses.iter().map(|_| l.clone()).collect(),
                    items: d.clauses.iter().map(|_| None).collect(),
                }
            }
            None => fallback(),
        };
    };
    let loc = |i: usize| Loc::at(file, o.pos[i].0, o.pos[i].1);
    let mut out = Located { acc: loc(acc), name: loc(acc + 1), clauses: vec![], items: vec![] };
    let mut from = acc + 2;
    for c in &d.clauses {
        match o.find(from, &c.name, None) {
            Some(i) => {
                out.clauses.push(loc(i));
                from = i + 1;
                let items = (c.args.is_some() && o.toks.get(i + 1).is_some_and(|t| t.is_punct(&o.text, "(")))
                    .then(|| split_group(&o.text, &o.toks, i + 1).ok())
                    .flatten()
                    .map(|(items, _)| items.into_iter().map(|a| a.text).collect::<Vec<_>>())
                    .filter(|items| items.len() == c.args.as_ref().map_or(0, |a| a.len()));
                out.items.push(items);
            }
            None => {
                out.clauses.push(at(c.off));
                out.items.push(None);
            }
        }
    }
    out
}

/// Emits the `__acc_clause` calls of one clause of directive `on`, or diagnoses it. The
/// table says what the clause is there and which operands the contract gives it.
fn lower_clause(
    id: usize,
    on: acc::Directive,
    c: &Clause,
    loc: &Loc,
    written: Option<&Vec<String>>,
    out: &mut String,
    diags: &mut Vec<Diag>,
) {
    let canon = acc::canonical_clause_name(&c.name);
    let Some(spec) = acc::clause(canon, on) else {
        diags.push(Diag { loc: loc.clone(), message: format!("unknown OpenACC clause '{}'", c.name) });
        return;
    };
    if !spec.supported {
        diags.push(Diag::unsupported(loc.clone(), &c.name));
        return;
    }
    let args: &[Arg] = c.args.as_deref().unwrap_or(&[]);
    let call = |ops: &str| format!("__acc_clause({id}, {}{}); ", c_string(canon), ops);
    let bad = |msg: String| Diag { loc: loc.clone(), message: msg };
    let int = |e: &str| format!("(long long)({e})");
    let accepted = |modifier: &str| spec.modifiers.contains(&modifier);
    match spec.operands {
        Operands::Var => {
            if args.is_empty() {
                diags.push(bad(format!("OpenACC '{}' clause needs a list of variables", c.name)));
                return;
            }
            for (k, a) in args.iter().enumerate() {
                let (modifier, var) = split_modifier(&a.text);
                let mut text = written.and_then(|w| w.get(k)).map(|s| s.as_str()).unwrap_or(&a.text);
                let mut name = canon;
                if let Some(m) = modifier {
                    if !accepted(m) {
                        diags.push(Diag::unsupported(loc.clone(), &format!("{}({}:)", c.name, m)));
                        continue;
                    }
                    // A modifier that changes the clause makes it a contract clause of its
                    // own (`create.zero`); any other is only a hint, dropped (from the text too).
                    text = split_modifier(text).1;
                    name = acc::modified_clause(spec.clause, m).map_or(canon, |to| to.name());
                }
                let Some((mut ops, dims)) = var_operands(c, var, Trailing::Checked, loc, &bad, diags) else { continue };
                let mut text_op = c_string(text);
                if name == "present" && section_base(var).is_none() && dims.is_empty() {
                    (ops, text_op) = crate::operand::encode_present_whole(var, text);
                }
                out.push_str(&format!("__acc_clause({id}, {}, {ops}, {text_op}{dims}); ", c_string(name)));
                if let Some(attach) = attach_action(spec.clause, on) {
                    out.push_str(&implicit_attach_call(id, attach, var, text));
                    // A whole pointer variable (`copy(p)`): attached to its target. Not for
                    // `present(p)`, whose item is the target itself (encode_present_whole).
                    if let Some(addr) = crate::operand::whole_pointer_attach(var).filter(|_| name != "present") {
                        out.push_str(&format!("__acc_clause({id}, {}, {addr}, 0LL, 1LL, (long long)sizeof(void *), {}); ", c_string(attach.name()), c_string(text)));
                    }
                }
            }
        }
        Operands::OneToThreeInts => {
            if args.is_empty() || args.len() > 3 {
                diags.push(bad(format!("OpenACC '{}' clause takes 1 to 3 values", c.name)));
                return;
            }
            let ops: Vec<String> = args.iter().map(|a| int(&a.text)).collect();
            out.push_str(&call(&format!(", {}", ops.join(", "))));
        }
        Operands::Int | Operands::ConstInt | Operands::OptionalInt => {
            if c.args.is_none() && spec.operands == Operands::OptionalInt {
                out.push_str(&call(""));
                return;
            }
            if args.len() != 1 {
                diags.push(bad(format!("OpenACC '{}' clause takes one value", c.name)));
                return;
            }
            match split_modifier(&args[0].text) {
                (Some(m), _) if !accepted(m) => diags.push(Diag::unsupported(loc.clone(), &format!("{}({}:)", c.name, m))),
                (_, e) => out.push_str(&call(&format!(", {}", int(e)))),
            }
        }
        Operands::Condition => {
            // `self` alone on a compute construct: the condition is true.
            if c.args.is_none() && spec.clause == acc::Clause::Self_ {
                out.push_str(&call(", (long long)1"));
                return;
            }
            if args.len() != 1 {
                diags.push(bad(format!("OpenACC '{}' clause takes one condition", c.name)));
                return;
            }
            out.push_str(&call(&format!(", (long long)(({}) != 0)", args[0].text)));
        }
        Operands::DefaultKind => match args {
            [a] if a.text == "none" || a.text == "present" => {
                out.push_str(&call(&format!(", {}", c_string(&a.text))))
            }
            _ => diags.push(bad(format!("OpenACC '{}' clause takes 'none' or 'present'", c.name))),
        },
        Operands::None => {
            if c.args.is_some() {
                if spec.clause == acc::Clause::Gang {
                    lower_gang_arguments(id, c, args, on, &bad, out, diags);
                } else {
                    diags.push(bad(format!("OpenACC '{}' clause takes no arguments", c.name)));
                }
                return;
            }
            out.push_str(&call(""));
        }
        Operands::OpAndVar => lower_reduction(c, args, written, &call, &bad, loc, out, diags),
        Operands::Ints => {
            // `wait(queues: 1, n)`: the modifier is dropped; `wait` alone: no operands;
            // `wait(devnum: d: [queues:] 1, n)`: a `wait.devnum` clause, `d` first.
            let mut ops = String::new();
            let mut name = canon;
            for (k, a) in args.iter().enumerate() {
                let mut e = a.text.as_str();
                if k == 0 && spec.clause == acc::Clause::Wait {
                    if let (Some("devnum"), rest) = split_modifier(e) {
                        let Some((dev, queues)) = split_devnum(rest) else {
                            return diags.push(bad(format!("OpenACC '{}(devnum: ...)' needs a queue list after the device number: '{}(devnum: n: q, ...)'", c.name, c.name)));
                        };
                        name = acc::Clause::WaitDevnum.name();
                        ops.push_str(&format!(", {}", int(dev)));
                        e = queues;
                    }
                }
                if k == 0 {
                    match split_modifier(e) {
                        (Some(m), rest) if accepted(m) => e = rest,
                        (Some(m), _) => return diags.push(Diag::unsupported(loc.clone(), &format!("{}({}:)", c.name, m))),
                        _ => {}
                    }
                }
                ops.push_str(&format!(", {}", int(e)));
            }
            out.push_str(&format!("__acc_clause({id}, {}{ops}); ", c_string(name)));
        }
        // `device_type(nvidia, host)` / `device_type(*)`: one string per name.
        Operands::Names if spec.supported => {
            if args.is_empty() {
                diags.push(bad(format!("OpenACC '{}' clause takes one or more device types", c.name)));
                return;
            }
            let ops: String = args.iter().map(|a| format!(", {}", c_string(a.text.trim()))).collect();
            out.push_str(&call(&ops));
        }
        // Only clauses accc does not lower have these operands.
        Operands::IntOrStar
        | Operands::TileSizes
        | Operands::Names => diags.push(Diag::unsupported(loc.clone(), &c.name)),
        // `bind(name)` or `bind("name")`: the name as a string.
        Operands::Name => match args {
            [a] if a.text.trim().starts_with('"') => out.push_str(&call(&format!(", {}", a.text.trim()))),
            [a] => out.push_str(&call(&format!(", {}", c_string(a.text.trim())))),
            _ => diags.push(bad(format!("OpenACC '{}' clause takes one name", c.name))),
        },
        // Contract-only: written by the rewriter itself (routine.rs), never by users.
        Operands::Function | Operands::Note => diags.push(Diag { loc: loc.clone(), message: format!("unknown OpenACC clause '{}'", c.name) }),
    }
}

/// The device types a `device_type` clause may name (clang's list, and `*`), compared
/// without regard to case as clang does.
const DEVICE_TYPES: &[&str] = &["*", "default", "nvidia", "acc_device_nvidia", "radeon", "host", "multicore"];

/// How closely a `device_type` list names the device accc compiles for (NVIDIA; the emulator
/// emulates it, the host path runs the original loops, which schedule clauses do not touch):
/// 2 for `nvidia` (or `default`, accc's default type), 1 for `*`, 0 for other types only.
fn device_type_rank(names: &[String]) -> u8 {
    names
        .iter()
        .map(|n| match n.as_str() {
            "nvidia" | "acc_device_nvidia" | "default" => 2,
            "*" => 1,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// The clauses that may follow a `device_type` clause on directive `on` (OpenACC 3.3: §2.5.1-3
/// compute constructs, §2.9 loop, §2.6.5 data, §2.14.4 update, §2.15.1 routine); a combined
/// construct takes either part's. `None`: `device_type` is an ordinary clause there
/// (`init`, `shutdown`, `set`) or not allowed at all.
fn after_device_type(on: acc::Directive) -> Option<Vec<&'static str>> {
    use acc::Directive as D;
    let compute = ["async", "wait", "num_gangs", "num_workers", "vector_length"];
    let looped = ["collapse", "gang", "worker", "vector", "seq", "independent", "auto", "tile"];
    Some(match on {
        D::Parallel | D::Kernels | D::Serial => compute.to_vec(),
        D::Loop => looped.to_vec(),
        D::ParallelLoop | D::KernelsLoop | D::SerialLoop => compute.iter().chain(looped.iter()).copied().collect(),
        D::Data | D::Update => vec!["async", "wait"],
        D::Routine => vec!["gang", "worker", "vector", "seq", "bind"],
        _ => return None,
    })
}

/// The clauses of `d` that apply on the NVIDIA device, as (index into `d.clauses`, clause), in
/// source order (OpenACC 3.3 §2.4): clauses before any `device_type` are the defaults; those
/// after `device_type(list)` up to the next one apply only to the types listed. Per clause
/// kind, a set naming `nvidia` overrides a `*` set, which overrides the defaults; sets of other
/// types are dropped. `seq`, `independent` and `auto` are one kind, and a set's `seq` also
/// drops default `gang`/`worker`/`vector` (and a set's `gang`/`worker`/`vector` a default `seq`),
/// so that the result is a valid loop. Directives where `device_type` is an ordinary clause
/// keep every clause. Errors: an unknown device type, a clause that may not follow
/// `device_type` there.
fn select_device_type<'c>(d: &'c Directive, on: acc::Directive, locs: &[Loc], diags: &mut Vec<Diag>) -> Vec<(usize, &'c Clause)> {
    let all = || d.clauses.iter().enumerate().collect();
    let is_dtype = |c: &Clause| acc::canonical_clause_name(&c.name) == acc::Clause::DeviceType.name();
    let Some(allowed) = after_device_type(on) else { return all() };
    if !d.clauses.iter().any(is_dtype) {
        return all();
    }
    // (rank of the set the clause belongs to, or None for a default; index; clause)
    let mut tagged: Vec<(Option<u8>, usize, &Clause)> = Vec::new();
    let mut set: Option<u8> = None;
    for (k, c) in d.clauses.iter().enumerate() {
        if is_dtype(c) {
            let names: Vec<String> = c.args.as_deref().unwrap_or(&[]).iter().map(|a| a.text.trim().to_ascii_lowercase()).collect();
            if names.is_empty() {
                diags.push(Diag { loc: locs[k].clone(), message: format!("OpenACC '{}' clause takes one or more device types", c.name) });
            }
            for n in names.iter().filter(|n| !DEVICE_TYPES.contains(&n.as_str())) {
                diags.push(Diag {
                    loc: locs[k].clone(),
                    message: format!("unknown device type '{n}' in '{}' (expected one of {})", c.name, DEVICE_TYPES.join(", ")),
                });
            }
            set = Some(device_type_rank(&names));
            continue;
        }
        if set.is_some() && !allowed.contains(&acc::canonical_clause_name(&c.name)) {
            diags.push(Diag {
                loc: locs[k].clone(),
                message: format!("OpenACC '{}' clause may not follow a 'device_type' clause on '{}' (only {})", c.name, d.name, allowed.join(", ")),
            });
            continue;
        }
        tagged.push((set, k, c));
    }
    fn kind(c: &Clause) -> &str {
        match acc::canonical_clause_name(&c.name) {
            "seq" | "independent" | "auto" => "seq",
            n => n,
        }
    }
    let levels = ["gang", "worker", "vector"];
    let best = |k: &str| {
        tagged.iter().filter(|(s, _, c)| s.is_some_and(|r| r > 0) && kind(c) == k).map(|(s, ..)| s.unwrap()).max()
    };
    // `gang`/`worker`/`vector` and `seq` say one thing, the parallelism: the best set that
    // says it decides it, so an nvidia set's `vector` drops a `*` set's `seq` (and the reverse).
    let parallelism = |c: &Clause| levels.contains(&kind(c)) || acc::canonical_clause_name(&c.name) == "seq";
    let best_parallelism = tagged.iter().filter(|(s, _, c)| s.is_some_and(|r| r > 0) && parallelism(c)).map(|(s, ..)| s.unwrap()).max();
    tagged
        .iter()
        .filter(|(s, _, c)| {
            let k = kind(c);
            match s {
                Some(0) => false,
                Some(r) if parallelism(c) && best_parallelism.is_some_and(|b| b > *r) => false,
                Some(r) => best(k) == Some(*r),
                None => {
                    best(k).is_none()
                        && !(levels.contains(&k) && tagged.iter().any(|(s, _, o)| s.is_some_and(|r| r > 0) && acc::canonical_clause_name(&o.name) == "seq"))
                        && !(k == "seq"
                            && acc::canonical_clause_name(&c.name) == "seq"
                            && tagged.iter().any(|(s, _, o)| s.is_some_and(|r| r > 0) && levels.contains(&kind(o))))
                }
            }
        })
        .map(|(_, k, c)| (*k, *c))
        .collect()
}

/// `gang(num: n, static: s, dim: d)` (`gang(n)` is `num: n`; `static: *` is -1): `gang`,
/// then a `gang.num`, `gang.static` or `gang.dim` clause per argument.
fn lower_gang_arguments(id: usize, c: &Clause, args: &[Arg], on: acc::Directive, bad: &dyn Fn(String) -> Diag, out: &mut String, diags: &mut Vec<Diag>) {
    let mut code = format!("__acc_clause({id}, {}); ", c_string(acc::Clause::Gang.name()));
    for a in args {
        let (name, value) = match split_modifier(&a.text) {
            (Some(m @ ("num" | "static" | "dim")), v) => (m, v.trim()),
            (None, v) => ("num", v.trim()),
            (Some(m), _) => {
                return diags.push(bad(format!("OpenACC '{}' clause takes 'num:', 'static:' or 'dim:' arguments, not '{m}:'", c.name)));
            }
        };
        let clause = format!("gang.{name}");
        if acc::clause(&clause, on).is_none_or(|s| !s.allowed_on(on)) {
            return diags.push(bad(format!("OpenACC 'gang({name}:)' is not allowed on '{}'", on.name())));
        }
        let value = if name == "static" && value == "*" { "-1LL".to_string() } else { format!("(long long)({value})") };
        code.push_str(&format!("__acc_clause({id}, {}, {value}); ", c_string(&clause)));
    }
    out.push_str(&code);
}

/// `d : q, ...` after `devnum:` split at the colon that ends the device number (one not
/// closing a `?:` inside it); `None` without a non-empty queue list.
fn split_devnum(text: &str) -> Option<(&str, &str)> {
    let toks = crate::tokenize::tokenize(text, false);
    let (mut depth, mut questions) = (0i32, 0i32);
    for t in &toks {
        match t.text(text) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "?" if depth == 0 => questions += 1,
            ":" if depth == 0 && questions > 0 => questions -= 1,
            ":" if depth == 0 => {
                let (dev, queues) = (text[..t.start].trim(), text[t.start + 1..].trim());
                return (!dev.is_empty() && !queues.is_empty()).then_some((dev, queues));
            }
            _ => {}
        }
    }
    None
}

/// The `wait` directive's own list (`wait(1, n)`) as the `wait` clause that carries it in the
/// contract; `None` for other directives and a `wait` without a list (every queue).
fn wait_list(d: &Directive) -> Option<Clause> {
    (d.name == acc::Directive::Wait.name() && d.args.is_some()).then(|| Clause {
        name: acc::Clause::Wait.name().to_string(),
        off: d.name_off,
        args: d.args.clone(),
    })
}

/// The `cache` directive's list (`cache(readonly: a[i-1:3], b[j])`) as the `cache` clause
/// that carries it in the contract, one call per item; `None` for other directives.
fn cache_list(d: &Directive) -> Option<Clause> {
    (d.name == acc::Directive::Cache.name() && d.args.is_some()).then(|| Clause {
        name: acc::Clause::Cache.name().to_string(),
        off: d.name_off,
        args: d.args.clone(),
    })
}

/// `reduction(op: a, b[0:n])`: per item, `ptr op, i64 type code, var, text`. The operator
/// comes before the first item only; the type code is a `_Generic` selection over the item
/// (its element for an array section) that the front end evaluates.
#[allow(clippy::too_many_arguments)]
fn lower_reduction(
    c: &Clause,
    args: &[Arg],
    written: Option<&Vec<String>>,
    call: &dyn Fn(&str) -> String,
    bad: &dyn Fn(String) -> Diag,
    loc: &Loc,
    out: &mut String,
    diags: &mut Vec<Diag>,
) {
    let Some((op_text, first)) = args.first().and_then(|a| a.text.split_once(':')) else {
        diags.push(bad(format!("OpenACC '{}' clause needs an operator and a list of variables: 'reduction(+: x)'", c.name)));
        return;
    };
    let Some(op) = acc::ReductionOp::from_symbol(op_text) else {
        diags.push(bad(format!("unknown reduction operator '{}' (expected + * max min & | ^ && ||)", op_text.trim())));
        return;
    };
    for (k, a) in args.iter().enumerate() {
        let var = if k == 0 { first.trim() } else { a.text.trim() };
        let mut text = written.and_then(|w| w.get(k)).map(|s| s.as_str()).unwrap_or(var);
        if k == 0 {
            if let Some((_, v)) = text.split_once(':').filter(|(o, _)| acc::ReductionOp::from_symbol(o).is_some()) {
                text = v.trim();
            }
        }
        // An element of the section (through every dimension: `(p)[0][0]` for
        // `p[0:n][0:m]`, whose rows may be pointers), for its type.
        let element = match crate::operand::section_base(var) {
            Some(base) => format!("({base}){}", "[0]".repeat(1 + crate::operand::trailing_dims(var))),
            None => var.to_string(),
        };
        // Trailing dimensions that are not `[:]` follow the text: the pass reduces a part of
        // each row with atomic updates (atomic_reduction.rs).
        if let Some((ops, dims)) = var_operands(c, var, Trailing::Checked, loc, bad, diags) {
            let ty = acc::ReductionType::generic_selection(&element);
            out.push_str(&call(&format!(", {}, {ty}, {ops}, {}{dims}", c_string(op.symbol()), c_string(text))));
        }
    }
}

/// The clause that carries the attach action (OpenACC 3.3 §2.7.2) of an item of data clause
/// `clause` on directive `on`: `attach` where the directive enters data, `detach` on `exit
/// data`; None for clauses without one (`deviceptr`, `update`, ...) and for `declare`.
fn attach_action(clause: acc::Clause, on: acc::Directive) -> Option<acc::Clause> {
    use acc::Clause as C;
    let entering = matches!(clause, C::Copy | C::CopyIn | C::CopyOut | C::Create | C::Present | C::NoCreate);
    match on {
        acc::Directive::ExitData => matches!(clause, C::CopyOut | C::Delete).then_some(C::Detach),
        acc::Directive::Declare => None,
        _ => (entering && acc::clause(C::Attach.name(), on).is_some_and(|s| s.allowed_on(on))).then_some(C::Attach),
    }
}

/// The `attach`/`detach` call after data clause item `var` (written `text`) whose section is
/// based on a struct member or an element (`operand::implicit_attach`), else nothing. Its
/// *var* is the base pointer's storage (a null constant when the base is an array).
fn implicit_attach_call(id: usize, attach: acc::Clause, var: &str, text: &str) -> String {
    let Some((addr, base)) = implicit_attach(var) else { return String::new() };
    let base_text = section_base(text).unwrap_or(&base);
    format!(
        "__acc_clause({id}, {}, {addr}, 0LL, 1LL, (long long)sizeof(void *), {}); ",
        c_string(attach.name()),
        c_string(base_text)
    )
}

/// The *var* operands of clause item `var` (`encode_var`: the four values, then the
/// trailing dimensions' triples), or None with its diagnostic.
fn var_operands(c: &Clause, var: &str, trailing: Trailing, loc: &Loc, bad: &dyn Fn(String) -> Diag, diags: &mut Vec<Diag>) -> Option<(String, String)> {
    match encode_var(var, trailing) {
        Ok(ops) => Some(ops),
        Err(VarError::Unsupported(what)) => {
            diags.push(Diag::unsupported(loc.clone(), &what));
            None
        }
        Err(VarError::Malformed(m)) => {
            diags.push(bad(format!("invalid '{}' clause item: {}", c.name, m)));
            None
        }
    }
}

/// Rewrites a preprocessed translation unit. `read_source` gives the text of an original
/// file by its line-marker name (used for columns and clause texts). All problems of the
/// unit are returned together, in source order. The unit is bytes, not necessarily UTF-8
/// (a Latin-1 string literal): every byte outside the directives is copied unchanged.
pub fn rewrite(bytes: &[u8], read_source: &mut SourceReader) -> Result<Rewritten, Vec<Diag>> {
    let text = same_length_utf8(bytes);
    let ipp: &str = &text;
    let toks = tokenize(ipp, true);
    let origins = line_origins(ipp, &toks);
    let opened = opened_files(&toks);
    let mut cache: HashMap<String, Option<String>> = HashMap::new();
    let mut diags = Vec::new();
    // (position, tie-break, replaced end, text); applied in order of position.
    let mut edits: Vec<(usize, i64, usize, String)> = Vec::new();
    let mut next_id = 1usize;
    // Brace depth: 0 outside every function body (file scope).
    let mut depth = 0i64;

    for (ti, t) in toks.iter().enumerate() {
        if t.kind == Kind::Punct {
            match t.punct(ipp) {
                "{" => depth += 1,
                "}" => depth -= 1,
                _ => {}
            }
        }
        if t.kind != Kind::Pragma {
            continue;
        }
        let line_text = t.text(ipp);
        let (file, line) = origins.get(t.line).cloned().unwrap_or_default();
        let d = match parse_pragma(line_text) {
            Ok(None) => continue,
            Ok(Some(d)) => d,
            Err((off, msg)) => {
                diags.push(Diag { loc: Loc::at(&file, line, t.col + off), message: msg });
                continue;
            }
        };
        let content = cache
            .entry(file.clone())
            .or_insert_with(|| if opened.contains(&file) { read_source(&file) } else { None });
        let original = content.as_deref().and_then(|c| Original::load(c, line));
        let at = locate(&d, &file, line, t.col, original.as_ref());

        let Some(spec) = acc::directive(&d.name) else {
            diags.push(Diag { loc: at.name.clone(), message: format!("unknown OpenACC directive '{}'", d.name) });
            continue;
        };
        if !spec.supported {
            diags.push(Diag::unsupported(at.name.clone(), &d.name));
            continue;
        }
        let routine = match spec.directive {
            acc::Directive::Routine => match crate::routine::target(&d, ipp, &toks, ti) {
                Ok(r) => Some(r),
                Err(message) => {
                    diags.push(Diag { loc: at.name.clone(), message });
                    continue;
                }
            },
            _ => None,
        };
        let listed = matches!(spec.directive, acc::Directive::Wait | acc::Directive::Cache);
        if d.args.is_some() && !listed && routine.is_none() {
            diags.push(Diag { loc: at.name.clone(), message: format!("OpenACC '{}' takes no parenthesised argument", d.name) });
            continue;
        }
        if let Some(kind) = crate::atomic::Kind::of(spec.directive) {
            // Lowered here, into C: no markers (atomic.rs).
            match lower_atomic(kind, &d, &at, ipp, &toks, ti, &origins) {
                Ok(stmt) => {
                    edits.push((t.start, 0, t.end, String::new()));
                    edits.push(stmt);
                }
                Err(d) => diags.push(d),
            }
            continue;
        }
        let id = next_id;
        next_id += 1;
        let n_before = diags.len();
        let mut code = format!(
            "{{ __acc_begin({id}, {}, {}, {}, {}); ",
            c_string(&d.name),
            c_string(&file),
            at.acc.line,
            at.acc.col
        );
        if let Some(r) = &routine {
            code.push_str(&crate::routine::function_clause(id, &r.name));
        }
        if let Some(list) = wait_list(&d) {
            lower_clause(id, spec.directive, &list, &at.name, None, &mut code, &mut diags);
        }
        match cache_list(&d) {
            Some(list) => lower_clause(id, spec.directive, &list, &at.name, None, &mut code, &mut diags),
            None if spec.directive == acc::Directive::Cache => {
                diags.push(Diag { loc: at.name.clone(), message: "OpenACC 'cache' needs a list of array elements or sections: 'cache(a[i-1:3])'".into() })
            }
            None => {}
        }
        let selected = select_device_type(&d, spec.directive, &at.clauses, &mut diags);
        let mut tile_edits = Vec::new();
        if spec.form == acc::Form::Region && selected.iter().any(|(_, c)| acc::canonical_clause_name(&c.name) == acc::Clause::Tile.name()) {
            // The nest is rewritten into tile and element loops (tile.rs).
            let elem_id = next_id;
            next_id += 1;
            let site = Site { on: spec.directive, at: &at, file: &file, origins: &origins };
            if let Some(e) = lower_tiled((id, elem_id), &site, &selected, ipp, &toks, ti, &mut code, &mut diags) {
                tile_edits = e;
            }
        } else {
            for (k, c) in selected {
                lower_clause(id, spec.directive, c, &at.clauses[k], at.items[k].as_ref(), &mut code, &mut diags);
            }
        }
        if diags.len() > n_before {
            continue;
        }
        edits.append(&mut tile_edits);
        match spec.form {
            acc::Form::Declarative if routine.is_some() => {
                code.push_str(&format!("__acc_end({id}); }}"));
                let holder = crate::routine::holder(id, &code, depth);
                match routine.and_then(|r| r.after) {
                    Some(after) => {
                        edits.push((t.start, 0, t.end, String::new()));
                        edits.push((toks[after].end, id as i64, toks[after].end, holder));
                    }
                    None => edits.push((t.start, 0, t.end, holder)),
                }
            }
            acc::Form::Standalone | acc::Form::Declarative => {
                code.push_str(&format!("__acc_end({id}); }}"));
                if spec.form == acc::Form::Declarative && depth <= 0 {
                    code = file_scope(id, &code);
                }
                edits.push((t.start, 0, t.end, code));
            }
            acc::Form::Region => match stmt_end(ipp, &toks, ti + 1) {
                Ok(end) => {
                    if let Some(construct) = implicit_construct(spec.directive, &d) {
                        let loops = crate::implicit::find(ipp, &toks, ti + 1, construct);
                        mark_implicit_loops(id, &loops, &toks, &origins, &mut next_id, &mut code, &mut edits);
                    }
                    edits.push((t.start, 0, t.end, code.trim_end().to_string()));
                    // Several ends after one token: the inner (later) construct closes first.
                    edits.push((toks[end].end, -(id as i64), toks[end].end, format!(" __acc_end({id}); }}")));
                }
                Err(msg) => diags.push(Diag { loc: at.name.clone(), message: format!("{msg} '{}'", d.name) }),
            },
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    // Stable: edits with the same position and tie-break stay in the order they were made.
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = Vec::with_capacity(bytes.len() + edits.len() * 80 + 200);
    out.extend_from_slice(PRELUDE.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(b"# 1 ");
    out.extend_from_slice(&main_file_name(bytes, &toks));
    out.push(b'\n');
    let mut pos = 0;
    for (start, _, end, text) in &edits {
        out.extend_from_slice(&bytes[pos..*start]);
        out.extend_from_slice(text.as_bytes());
        pos = *end;
    }
    out.extend_from_slice(&bytes[pos..]);
    Ok(Rewritten { text: out, directives: next_id - 1 })
}

/// What a `kernels` or `kernels loop` directive says about its own loops (implicit.rs);
/// None for other directives.
fn implicit_construct(on: acc::Directive, d: &Directive) -> Option<crate::implicit::Construct> {
    let named = |n: &str| d.clauses.iter().find(|c| acc::canonical_clause_name(&c.name) == n);
    match on {
        acc::Directive::Kernels => Some(crate::implicit::Construct::Kernels),
        acc::Directive::KernelsLoop => {
            let collapse = named(acc::Clause::Collapse.name()).map(|c| {
                c.args.as_ref().and_then(|a| a.first()).and_then(|a| tile::eval_size(crate::pragma::split_modifier(&a.text).1))
            });
            // A collapse the driver cannot evaluate: nothing is marked inside (as with seq).
            let unknown = matches!(collapse, Some(None));
            Some(crate::implicit::Construct::KernelsLoop {
                collapse: collapse.flatten().unwrap_or(1).max(1) as usize,
                seq_or_tile: unknown || named(acc::Clause::Seq.name()).is_some() || named(acc::Clause::Tile.name()).is_some(),
            })
        }
        _ => None,
    }
}

/// Gives each marked plain loop of construct `id` its `loop` directive with the `implicit`
/// mark (a fresh id, the position of its `for`), and writes each unmarked one as an
/// `implicit.seq` clause of the construct (`code`) with its position and reason.
fn mark_implicit_loops(
    id: usize,
    loops: &[crate::implicit::Plain],
    toks: &[Token],
    origins: &[(String, usize)],
    next_id: &mut usize,
    code: &mut String,
    edits: &mut Vec<(usize, i64, usize, String)>,
) {
    for p in loops {
        let f = &toks[p.for_tok];
        let (file, line) = origins.get(f.line).cloned().unwrap_or_default();
        match &p.reason {
            None => {
                let lid = *next_id;
                *next_id += 1;
                let begin = format!(
                    "{{ __acc_begin({lid}, {}, {}, {line}, {}); __acc_clause({lid}, {}); ",
                    c_string(acc::Directive::Loop.name()),
                    c_string(&file),
                    f.col,
                    c_string(acc::Clause::Implicit.name())
                );
                edits.push((f.start, 0, f.start, begin));
                // Several ends after one token: the inner (later) loop closes first, the
                // construct (a smaller id) after every loop.
                let end = toks[p.end].end;
                edits.push((end, -(lid as i64), end, format!(" __acc_end({lid}); }}")));
            }
            Some(why) => code.push_str(&format!(
                "__acc_clause({id}, {}, {line}LL, {}LL, {}); ",
                c_string(acc::Clause::ImplicitSeq.name()),
                f.col,
                c_string(why)
            )),
        }
    }
}

/// Where a directive stands: what the tiled rewrite needs to lower clauses and place errors.
struct Site<'a> {
    on: acc::Directive,
    at: &'a Located,
    file: &'a str,
    origins: &'a [(String, usize)],
}

impl Site<'_> {
    /// The user's position of a token of the preprocessed text.
    fn token_loc(&self, t: &Token) -> Loc {
        match self.origins.get(t.line) {
            Some((f, l)) => Loc::at(f, *l, t.col),
            None => Loc::at(self.file, 0, t.col),
        }
    }
}

/// A directive with `tile(s1, ..., sn)` (tile.rs): its clauses go to the tile loops' directive
/// (`ids.0`, written into `code`, which also gets the trip counts) or to the element loops'
/// (`ids.1`, a `loop` directive the rewrite places inside the tile loops) as [`tile::route`]
/// says; returns the edits of the nest's headers and body end, or None with diagnostics.
#[allow(clippy::too_many_arguments)]
fn lower_tiled(
    ids: (usize, usize),
    site: &Site,
    selected: &[(usize, &Clause)],
    ipp: &str,
    toks: &[Token],
    ti: usize,
    code: &mut String,
    diags: &mut Vec<Diag>,
) -> Option<Vec<(usize, i64, usize, String)>> {
    let (id, elem_id) = ids;
    let at = site.at;
    let canon = |c: &Clause| acc::canonical_clause_name(&c.name).to_string();
    let has = |name: &str| selected.iter().any(|(_, c)| canon(c) == name);
    // `collapse(n)` (or `collapse(force: n)`) beside `tile`: n associated loops at least.
    let collapse_count = selected.iter().find(|(_, c)| canon(c) == acc::Clause::Collapse.name()).and_then(|(_, c)| {
        let text = c.args.as_deref()?.last()?.text.trim().to_string();
        tile::eval_size(text.strip_prefix("force").map(|t| t.trim_start().trim_start_matches(':')).unwrap_or(&text).trim())
    });
    let (tk, tile_clause) = selected.iter().find(|(_, c)| canon(c) == acc::Clause::Tile.name()).copied()?;
    let args = tile_clause.args.as_deref().unwrap_or(&[]);
    if args.is_empty() {
        diags.push(Diag { loc: at.clauses[tk].clone(), message: "OpenACC 'tile' clause takes one or more sizes ('tile(32, 8)', '*' for accc's choice)".into() });
        return None;
    }
    let star = |a: &Arg| a.text.trim() == "*";
    let evaluated: Vec<Option<u64>> = args.iter().map(|a| if star(a) { None } else { tile::eval_size(&a.text) }).collect();
    let known = args.iter().zip(&evaluated).all(|(a, v)| star(a) || v.is_some());
    // A size the driver cannot evaluate (an enum constant) counts as 1 when choosing `*`.
    let given: Vec<Option<u64>> = args.iter().zip(&evaluated).map(|(a, v)| if star(a) { None } else { Some(v.unwrap_or(1)) }).collect();
    let given = tile::pad_for_collapse(&given, collapse_count, Some(1));
    let chosen = tile::choose_sizes(&given);
    // Innermost loop first, as written; each a C constant expression.
    let written: Vec<Option<&str>> = args.iter().map(|a| (!star(a)).then_some(a.text.as_str())).collect();
    let written = tile::pad_for_collapse(&written, collapse_count, Some("1"));
    let sizes: Vec<String> = written.iter().zip(&chosen).map(|(w, c)| match w { None => format!("{c}LL"), Some(t) => format!("((long long)({t}))") }).collect();
    let n = sizes.len();
    let nest = match tile::find_nest(ipp, toks, ti + 1, n) {
        Ok(nest) => nest,
        Err((t, message)) => {
            diags.push(Diag { loc: site.token_loc(&toks[t]), message });
            return None;
        }
    };
    let mut elem = format!(
        "__acc_begin({elem_id}, {}, {}, {}, {}); ",
        c_string(acc::Directive::Loop.name()),
        c_string(site.file),
        at.acc.line,
        at.acc.col
    );
    let has_vector = has(acc::Clause::Vector.name());
    for (k, c) in selected {
        let (loc, written) = (&at.clauses[*k], at.items[*k].as_ref());
        let route = tile::route(&canon(c), has_vector);
        if matches!(route, tile::Route::Tiles | tile::Route::Both) {
            lower_clause(id, site.on, c, loc, written, code, diags);
        }
        if matches!(route, tile::Route::Elements | tile::Route::Both) {
            lower_clause(elem_id, acc::Directive::Loop, c, loc, written, &mut elem, diags);
        }
    }
    // `tile` asserts that the nest's iterations may run in any order (tiling reorders them):
    // in `kernels`, where accc does no dependence analysis, the nest is independent.
    if !has("seq") && !has("auto") && !has("independent") {
        code.push_str(&format!("__acc_clause({id}, {}); ", c_string(acc::Clause::Independent.name())));
        elem.push_str(&format!("__acc_clause({elem_id}, {}); ", c_string(acc::Clause::Independent.name())));
    }
    // A combined construct whose element loops are vector loops: a vector as long as a small
    // tile (unless the construct names one, or a size is not known here).
    let combined = matches!(site.on, acc::Directive::ParallelLoop | acc::Directive::KernelsLoop);
    let element_vector = !has("seq") && !has("auto") && (has_vector || !has(acc::Clause::Worker.name()));
    if combined && element_vector && known && !has(acc::Clause::VectorLength.name()) {
        if let Some(v) = tile::vector_length_for(&chosen) {
            code.push_str(&format!("__acc_clause({id}, {}, {v}LL); ", c_string(acc::Clause::VectorLength.name())));
        }
    }
    let marks = sizes.join(", ");
    let collapse = c_string(acc::Clause::Collapse.name());
    code.push_str(&format!("__acc_clause({id}, {}, {marks}); __acc_clause({id}, {collapse}, {n}LL); ", c_string(acc::Clause::Tile.name())));
    elem.push_str(&format!("__acc_clause({elem_id}, {}, {marks}); __acc_clause({elem_id}, {collapse}, {n}LL);", c_string(acc::Clause::TileElement.name())));
    let names = tile::Names { id };
    // In a block of their own that closes before the directive's end: the trip counts are
    // then locals of the region (their lifetimes inside it), not variables it captures.
    code.push_str("{ ");
    code.push_str(&tile::prologue(&names, &nest.loops));
    // Per loop, outermost first: the first size goes with the innermost loop.
    let per_loop: Vec<String> = sizes.iter().rev().cloned().collect();
    let mut edits = Vec::new();
    for (d, (f, close)) in nest.headers.iter().enumerate() {
        let mut text = tile::tile_header(&names, d, &per_loop[d]);
        if d + 1 == n {
            text += &tile::element_open(&names, &nest.loops, &per_loop, &elem);
        }
        // A header written over several lines keeps them, so later lines stay where they are.
        text += &"\n".repeat(ipp[toks[*f].start..toks[*close].end].matches('\n').count());
        edits.push((toks[*f].start, 0, toks[*close].end, text));
    }
    let end = toks[nest.body_end].end;
    edits.push((end, -(elem_id as i64), end, tile::element_close(elem_id)));
    // Closes the trip counts' block just before the directive's own end, which has the same
    // position and tie-break but is pushed after this one (the edits' sort is stable).
    match stmt_end(ipp, toks, ti + 1) {
        Ok(outer) => edits.push((toks[outer].end, -(id as i64), toks[outer].end, " }".into())),
        Err(message) => diags.push(Diag { loc: at.name.clone(), message }),
    }
    Some(edits)
}

/// The edit that replaces the statement of an atomic directive (the token after `toks[ti]`,
/// its pragma line) by its lowering (atomic.rs), or the diagnostic. The lowering is one line
/// at the statement's first token; the rest of the statement's text becomes spaces, its
/// newlines and line markers kept, so every later line stays where it was.
fn lower_atomic(
    kind: crate::atomic::Kind,
    d: &Directive,
    at: &Located,
    ipp: &str,
    toks: &[Token],
    ti: usize,
    origins: &[(String, usize)],
) -> Result<(usize, i64, usize, String), Diag> {
    let mut condition = None;
    for (k, c) in d.clauses.iter().enumerate() {
        let loc = at.clauses[k].clone();
        match acc::clause(acc::canonical_clause_name(&c.name), acc::Directive::Atomic) {
            Some(spec) if spec.clause == acc::Clause::If => match c.args.as_deref() {
                Some([a]) if condition.is_none() => condition = Some(a.text.clone()),
                Some([_]) => return Err(Diag { loc, message: format!("at most one 'if' clause may appear on OpenACC '{}'", d.name) }),
                _ => return Err(Diag { loc, message: format!("OpenACC '{}' clause takes one condition", c.name) }),
            },
            _ => return Err(Diag { loc, message: format!("OpenACC '{}' takes no '{}' clause (only 'if')", d.name, c.name) }),
        }
    }
    let no_statement = || Diag { loc: at.name.clone(), message: format!("expected a statement after OpenACC '{}'", d.name) };
    let first = (ti + 1..toks.len()).find(|&i| !matches!(toks[i].kind, Kind::LineMarker { .. })).ok_or_else(no_statement)?;
    if toks[first].kind == Kind::Pragma {
        return Err(no_statement());
    }
    let end = stmt_end(ipp, toks, first).map_err(|m| Diag { loc: at.name.clone(), message: format!("{m} '{}'", d.name) })?;
    let stmt: Vec<&Token> = toks[first..=end].iter().filter(|t| !matches!(t.kind, Kind::LineMarker { .. })).collect();
    let texts: Vec<&str> = stmt.iter().map(|t| t.punct(ipp)).collect();
    let (file, line) = origins.get(toks[first].line).cloned().unwrap_or_default();
    let stmt_loc = Loc::at(&file, line, toks[first].col);
    let atomic = crate::atomic::classify(kind, &texts)
        .map_err(|m| Diag { loc: stmt_loc, message: format!("statement of OpenACC '{}' is not one accc can lower: {m}", d.name) })?;
    let mut code = crate::atomic::lower(&atomic);
    if let Some(cond) = condition {
        // False: the statement as written, not atomically (OpenACC 3.4 §2.12).
        let written: Vec<&str> = stmt.iter().map(|t| t.text(ipp)).collect();
        code = format!("{{ if ({cond}) {code} else {} }}", written.join(" "));
    }
    // The statement's text with only its newlines and line markers left.
    let (start, stop) = (toks[first].start, toks[end].end);
    let mut keep = vec![false; stop - start];
    for t in &toks[first..=end] {
        if matches!(t.kind, Kind::LineMarker { .. }) {
            keep[t.start - start..t.end - start].iter_mut().for_each(|k| *k = true);
        }
    }
    let rest: String = ipp[start..stop].char_indices().map(|(off, ch)| if keep[off] || ch == '\n' { ch } else { ' ' }).collect();
    let rest: Vec<&str> = rest.split('\n').map(|l| l.trim_end_matches(' ')).collect();
    code.push_str(&rest.join("\n"));
    Ok((start, 0, stop, code))
}

/// A declarative directive at file scope: its markers in a constructor of their own
/// (docs/ir-contract.md), since C allows no statement there.
fn file_scope(id: usize, markers: &str) -> String {
    format!("static void __attribute__((constructor)) {}{id}(void) {markers}", acc::FILE_SCOPE_DECLARE)
}

/// The quoted file name of the first line marker, as bytes of the input (a name that is not
/// UTF-8 stays as it is), for the marker after the prelude.
fn main_file_name(bytes: &[u8], toks: &[Token]) -> Vec<u8> {
    let Some(marker) = toks.iter().find(|t| matches!(t.kind, Kind::LineMarker { .. })) else {
        return c_string("").into_bytes();
    };
    let text = &bytes[marker.start..marker.end];
    let open = text.iter().position(|&b| b == b'"');
    let close = text.iter().rposition(|&b| b == b'"');
    match (open, close) {
        (Some(o), Some(c)) if c > o => text[o..=c].to_vec(),
        _ => c_string("").into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn rw(ipp: &str, src: Option<&str>) -> Result<Rewritten, Vec<Diag>> {
        let s = src.map(|s| s.to_string());
        rewrite(ipp.as_bytes(), &mut |_: &str| s.clone())
    }

    fn body(r: &Rewritten) -> String {
        String::from_utf8(r.text.clone()).unwrap().splitn(3, '\n').nth(2).unwrap().to_string()
    }

    /// The lines of the rewritten unit after the ipp's own first line marker.
    fn lines(r: &Rewritten) -> Vec<String> {
        body(r).lines().skip(1).map(String::from).collect()
    }

    #[test]
    fn parallel_loop_keeps_lines() {
        let ipp = "# 1 \"t.c\"\nvoid f(float *y, int n) {\n#pragma acc parallel loop copy(y[0:n])\n  for (int i = 0; i < n; i++) y[i] = 0;\n}\n";
        let r = rw(ipp, None).unwrap();
        assert!(r.text.starts_with(PRELUDE.as_bytes()));
        assert_eq!(r.directives, 1);
        let b = body(&r);
        assert_eq!(b.lines().count(), ipp.lines().count());
        let lines: Vec<&str> = b.lines().collect();
        assert_eq!(
            lines[2],
            "{ __acc_begin(1, \"parallel loop\", \"t.c\", 2, 9); __acc_clause(1, \"copy\", (void*)(y), (long long)(0), (long long)(n), (long long)sizeof((y)[0]), \"y[0:n]\");"
        );
        assert_eq!(lines[3], "  for (int i = 0; i < n; i++) y[i] = 0; __acc_end(1); }");
    }

    #[test]
    fn columns_from_original_source() {
        let src = "void f(float *y, int n) {\n    #pragma acc parallel loop copy(y[0:N]) \\\n        copyin(x[0:n])\n";
        let ipp = "# 1 \"t.c\"\nvoid f(float *y, int n) {\n#pragma acc parallel loop copy(y[0:100]) copyin(x[0:n])\n\n for (;;) ;\n";
        let r = rw(ipp, Some(src)).unwrap();
        let b = body(&r);
        assert!(b.contains("__acc_begin(1, \"parallel loop\", \"t.c\", 2, 13)"), "{}", b);
        // The text is the item as written (macro unexpanded), the value the expansion.
        assert!(b.contains("(long long)(100), (long long)sizeof((y)[0]), \"y[0:N]\""), "{}", b);
        // A bad clause on the continuation line is reported there.
        let ipp2 = ipp.replace("copyin(x[0:n])", "collapse(1) tile()");
        let src2 = src.replace("copyin(x[0:n])", "collapse(1) tile()");
        let e = rw(&ipp2, Some(&src2)).unwrap_err();
        assert!(e[0].to_string().starts_with("t.c:3:21: error: OpenACC 'tile' clause takes one or more sizes"), "{}", e[0]);
    }

    #[test]
    fn nested_and_shared_end_token() {
        let ipp = "# 1 \"t.c\"\n#pragma acc data copy(a)\n#pragma acc kernels\nfor (;;) a++;\nz;\n";
        let lines = lines(&rw(ipp, None).unwrap());
        assert!(lines[0].starts_with("{ __acc_begin(1, \"data\""));
        assert!(lines[1].starts_with("{ __acc_begin(2, \"kernels\""));
        assert_eq!(lines[2], "for (;;) a++; __acc_end(2); } __acc_end(1); }");
    }

    #[test]
    fn standalone_and_clause_encodings() {
        let ipp = "# 1 \"t.c\"\n#pragma acc update self(x[lo:len]) if(n > 3) if_present\n#pragma acc enter data copyin(readonly: s) create(b[0:n][:])\n";
        let lines = lines(&rw(ipp, None).unwrap());
        assert_eq!(
            lines[0],
            "{ __acc_begin(1, \"update\", \"t.c\", 1, 9); __acc_clause(1, \"self\", (void*)(x), (long long)(lo), (long long)(len), (long long)sizeof((x)[0]), \"x[lo:len]\"); __acc_clause(1, \"if\", (long long)((n > 3) != 0)); __acc_clause(1, \"if_present\"); __acc_end(1); }"
        );
        assert!(lines[1].contains("__acc_clause(2, \"copyin\", (void*)&(s), 0LL, 1LL, (long long)sizeof(s), \"s\");"), "{}", lines[1]);
        assert!(lines[1].contains("\"b[0:n][:]\""));
    }

    #[test]
    fn loop_clauses() {
        let ipp = "# 1 \"t.c\"\n#pragma acc parallel num_gangs(4, 2) vector_length(128) default(none) firstprivate(k)\n{\n#pragma acc loop gang worker vector(32) collapse(2) private(t) independent\nfor(;;) for(;;) ;\n#pragma acc loop seq worker(num: 4) vector(length: 8) auto\nfor(;;);\n}\n";
        let b = body(&rw(ipp, None).unwrap());
        for s in [
            "__acc_clause(1, \"num_gangs\", (long long)(4), (long long)(2));",
            "__acc_clause(1, \"vector_length\", (long long)(128));",
            "__acc_clause(1, \"default\", \"none\");",
            "__acc_clause(1, \"firstprivate\", (void*)&(k), 0LL, 1LL, (long long)sizeof(k), \"k\");",
            "__acc_clause(2, \"gang\");",
            "__acc_clause(2, \"worker\");",
            "__acc_clause(2, \"vector\", (long long)(32));",
            "__acc_clause(2, \"collapse\", (long long)(2));",
            "__acc_clause(2, \"private\", (void*)&(t)",
            "__acc_clause(2, \"independent\");",
            "__acc_clause(3, \"seq\");",
            "__acc_clause(3, \"worker\", (long long)(4));",
            "__acc_clause(3, \"vector\", (long long)(8));",
            "__acc_clause(3, \"auto\");",
            "for(;;) for(;;) ; __acc_end(2); }",
            "for(;;); __acc_end(3); }",
            "} __acc_end(1); }",
        ] {
            assert!(b.contains(s), "missing {s} in\n{b}");
        }
    }

    #[test]
    fn aliases_are_canonicalised() {
        let ipp = "# 1 \"t.c\"\n#pragma acc data pcopy(a) present_or_copyin(b)\n;\n";
        let b = body(&rw(ipp, None).unwrap());
        assert!(b.contains("\"copy\", (void*)&(a)") && b.contains("\"copyin\", (void*)&(b)"), "{}", b);
    }

    #[test]
    fn reductions_carry_operator_type_code_and_item() {
        let ipp = "# 1 \"t.c\"\n#pragma acc parallel loop reduction(max: a, b[2:3]) reduction(&&:ok)\nfor(;;);\n";
        let r = rw(ipp, None).unwrap();
        let t = String::from_utf8_lossy(&r.text).into_owned();
        assert!(t.contains("__acc_clause(1, \"reduction\", \"max\", (long long)_Generic(&(a), char *: 1"), "{t}");
        assert!(t.contains(", (void*)&(a), 0LL, 1LL, (long long)sizeof(a), \"a\");"), "{t}");
        assert!(t.contains("_Generic(&((b)[0]), ") && t.contains(", (void*)(b), (long long)(2), (long long)(3), (long long)sizeof((b)[0]), \"b[2:3]\");"), "{t}");
        assert!(t.contains("\"reduction\", \"&&\", "), "{t}");
        // The element's type through every dimension (the rows may be pointers).
        let rows = rw("# 1 \"t.c\"\n#pragma acc parallel loop reduction(+: p[0:n][0:m])\nfor(;;);\n", None).unwrap();
        let t = String::from_utf8_lossy(&rows.text).into_owned();
        assert!(t.contains("_Generic(&((p)[0][0]), "), "{t}");
        let bad = rw("# 1 \"t.c\"\n#pragma acc parallel loop reduction(-:s)\nfor(;;);\n", None).unwrap_err();
        assert_eq!(bad[0].to_string(), "t.c:1:27: error: unknown reduction operator '-' (expected + * max min & | ^ && ||)");
    }

    #[test]
    fn tiled_nests_keep_their_lines() {
        // A header over two lines, braces between the loops, a body on its own line.
        let ipp = "# 1 \"t.c\"\n#pragma acc parallel loop tile(4, *) copy(a)\nfor (int i = 0;\n     i < n; i++) {\n  for (j = m; j > 0; j -= 2)\n    a[i][j] = 0;\n}\nz;\n";
        let r = rw(ipp, None).unwrap();
        let lines = lines(&r);
        assert_eq!(lines.len(), ipp.lines().count() - 1, "{lines:#?}");
        assert!(lines[0].starts_with("{ __acc_begin(1, \"parallel loop\"") && lines[0].contains("__acc_clause(1, \"tile\", ((long long)(4)), 64LL);"), "{}", lines[0]);
        assert!(lines[1].starts_with("for (long long __acc_tile1_t0 = 0; __acc_tile1_t0 < __acc_tile1_n0; __acc_tile1_t0 += 64LL)"), "{}", lines[1]);
        // The header's second line is left empty but for what followed the header.
        assert_eq!(lines[2], " {");
        assert!(lines[3].starts_with("  for (long long __acc_tile1_t1 = 0;") && lines[3].contains("{ __acc_begin(2, \"loop\""), "{}", lines[3]);
        assert!(lines[3].contains(" __typeof__(__acc_tile1_lo1) j = "), "{}", lines[3]);
        assert_eq!(lines[4], "    a[i][j] = 0; } __acc_end(2); }");
        assert_eq!(lines[5], "} } __acc_end(1); }");
        assert_eq!(r.directives, 2);
    }

    #[test]
    fn cache_list_is_one_clause_per_item() {
        let ipp = "# 1 \"t.c\"\n#pragma acc cache(readonly: a[i-1:3], b[j-1:3][i-1:3])\n";
        let r = rw(ipp, None).unwrap();
        let t = String::from_utf8_lossy(&r.text).into_owned();
        assert!(t.contains("__acc_begin(1, \"cache\", \"t.c\", 1, 9); __acc_clause(1, \"cache.readonly\", (void*)(a), (long long)(i-1), (long long)(3)"), "{t}");
        assert!(t.contains("__acc_clause(1, \"cache\", (void*)(b), (long long)(j-1), (long long)(3)"), "{t}");
        assert!(t.contains("\"b[j-1:3][i-1:3]\", (long long)(i-1), (long long)(3), "), "{t}");
        let bad = rw("# 1 \"t.c\"\n#pragma acc cache\n", None).unwrap_err();
        assert_eq!(bad[0].to_string(), "t.c:1:13: error: OpenACC 'cache' needs a list of array elements or sections: 'cache(a[i-1:3])'");
    }

    #[test]
    fn all_rejections_reported() {
        let ipp = "# 1 \"t.c\"\n#pragma acc parallel loop reduction(+:s) async gang(num:2) tile(2)\nfor(;;);\n#pragma acc wait(devnum: 0: 1)\n#pragma acc atomic update\nx++;\n#pragma acc routine seq\n#pragma acc init\n#pragma acc shutdown\n#pragma acc set device_num(0)\n#pragma acc cache(a[0:4])\n#pragma acc enter data copyin(m[0:n][0:k][2]) copyin(readonly: p)\n#pragma acc exit data copyout(ro: q)\n#pragma acc kernels loop wait(1) bind(f) nohost device_resident(x) link(y) default_async(1)\nfor(;;);\n";
        let e = rw(ipp, None).unwrap_err();
        let msgs: Vec<String> = e.iter().map(|d| d.to_string()).collect();
        let want = [
            "t.c:2:1: error: 'tile' needs loops in canonical form: 'for (int i = lo; i < hi; i += step)'; its initialisation must set the loop variable ('int i = lo' or 'i = lo')",
            "t.c:6:13: error: expected a function declaration or definition after OpenACC 'routine'",
        ];
        assert_eq!(&msgs[..want.len().min(msgs.len())], &want[..]);
        assert!(!msgs.iter().any(|m| m.contains("'init'") || m.contains("'set'") || m.contains("'shutdown'")), "{msgs:?}");
        let rest = msgs[want.len()..].join("\n");
        for s in ["'copyout(ro:)'"] {
            assert!(rest.contains(s), "missing {s} in\n{rest}");
        }
    }

    #[test]
    fn device_type_sets_are_selected_for_nvidia() {
        let ipp = "# 1 \"t.c\"\n#pragma acc parallel loop num_gangs(4) vector_length(32) seq device_type(NVIDIA) num_gangs(8) gang dtype(host, radeon) num_gangs(2) vector_length(7) device_type(*) vector_length(64) num_workers(2) async(1) device_type(acc_device_nvidia) async(3)\nfor(;;);\n#pragma acc loop gang vector device_type(multicore) seq dtype(*) seq\nfor(;;);\n#pragma acc update self(a) device_type(host) async\n#pragma acc init device_type(host)\n";
        let lines = lines(&rw(ipp, None).unwrap());
        let clauses = |l: &str| l.split("__acc_clause(").skip(1).map(|c| c.split(')').next().unwrap().to_string()).collect::<Vec<_>>();
        // Defaults overridden per kind: nvidia beats `*`, which beats the defaults; a set's
        // `gang` drops the default `seq`; host/radeon sets are dropped.
        assert_eq!(
            clauses(&lines[0]),
            ["1, \"num_gangs\", (long long", "1, \"gang\"", "1, \"vector_length\", (long long", "1, \"num_workers\", (long long", "1, \"async\", (long long"]
        );
        assert!(lines[0].contains("\"num_gangs\", (long long)(8))") && lines[0].contains("\"vector_length\", (long long)(64))") && lines[0].contains("\"async\", (long long)(3))"), "{}", lines[0]);
        // A `*` set's seq drops the default gang and vector; a multicore set is dropped.
        assert_eq!(clauses(&lines[2]), ["2, \"seq\""]);
        assert!(!lines[4].contains("async"), "{}", lines[4]);
        // On init, device_type is an ordinary clause.
        assert!(lines[5].contains("__acc_clause(4, \"device_type\", \"host\")"), "{}", lines[5]);
        // The parallelism is one decision: the nvidia set's level beats a `*` set's `seq`
        // and the reverse, on loops and routines alike.
        let ipp = "# 1 \"t.c\"\n#pragma acc loop device_type(nvidia) vector device_type(*) seq\nfor(;;);\n#pragma acc loop dtype(*) gang worker dtype(nvidia) seq\nfor(;;);\n#pragma acc routine device_type(nvidia) vector device_type(*) seq\nvoid v(void);\n#pragma acc routine dtype(*) gang dtype(host) seq\nvoid g(void);\n";
        let out = self::lines(&rw(ipp, None).unwrap());
        let levels = |l: &str| clauses(l).into_iter().filter(|c| ["gang", "worker", "vector", "seq"].iter().any(|k| c.contains(&format!("\"{k}\"")))).map(|c| c.split('"').nth(1).unwrap().to_string()).collect::<Vec<_>>();
        let loops: Vec<&String> = out.iter().filter(|l| l.contains("\"loop\"")).collect();
        assert_eq!(levels(loops[0]), ["vector"], "{}", loops[0]);
        assert_eq!(levels(loops[1]), ["seq"], "{}", loops[1]);
        let routines: Vec<&String> = out.iter().filter(|l| l.contains("\"routine\"")).collect();
        assert_eq!(levels(routines[0]), ["vector"], "{}", routines[0]);
        assert_eq!(levels(routines[1]), ["gang"], "{}", routines[1]);
        let e = rw("# 1 \"t.c\"\n#pragma acc parallel device_type(foo) num_gangs(2)\n;\n#pragma acc kernels dtype(nvidia) copy(a)\n;\n#pragma acc data copy(a) device_type(*) if(1)\n;\n", None).unwrap_err();
        let msgs: Vec<String> = e.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            msgs,
            [
                "t.c:1:22: error: unknown device type 'foo' in 'device_type' (expected one of *, default, nvidia, acc_device_nvidia, radeon, host, multicore)",
                "t.c:3:35: error: OpenACC 'copy' clause may not follow a 'device_type' clause on 'kernels' (only async, wait, num_gangs, num_workers, vector_length)",
                "t.c:5:41: error: OpenACC 'if' clause may not follow a 'device_type' clause on 'data' (only async, wait)",
            ]
        );
    }

    #[test]
    fn atomics_become_c_in_place() {
        // The statement spans three lines, a line marker among them; the pragma line is emptied.
        let ipp = "# 1 \"t.c\"\nvoid f(int *h, int k, int w) {\n#pragma acc atomic update if(k > 0)\n  h[k]\n    +=\n# 9 \"t.c\"\n w;\n}\n";
        let r = rw(ipp, None).unwrap();
        assert_eq!(r.directives, 0, "no markers");
        let lines = lines(&r);
        assert_eq!(lines.len(), ipp.lines().count() - 1);
        assert_eq!(lines[1], "");
        assert!(lines[2].starts_with("  { if (k > 0) { __typeof__(h [ k ]) *__acc_p = &(h [ k ]); __auto_type __acc_e = (w);"), "{}", lines[2]);
        assert!(lines[2].ends_with(" else h [ k ] += w ; }"), "{}", lines[2]);
        assert_eq!(&lines[3..], ["", "# 9 \"t.c\"", "", "}"]);
        // Inside a construct: the construct's end follows the lowered statement.
        let ipp = "# 1 \"t.c\"\n#pragma acc parallel\n#pragma acc atomic capture\n{ v = x; x = 3; }\n";
        let lines = super::tests::lines(&rw(ipp, None).unwrap());
        assert!(lines[0].starts_with("{ __acc_begin(1, \"parallel\""), "{}", lines[0]);
        assert!(lines[2].contains("__atomic_exchange(__acc_p, &__acc_new, &__acc_old, 0); v = __acc_old; }") && lines[2].ends_with(" __acc_end(1); }"), "{}", lines[2]);
        let e = rw("# 1 \"t.c\"\n#pragma acc atomic\n  x = y + 1;\n#pragma acc atomic read async\nv = x;\n", None).unwrap_err();
        assert_eq!(e[0].to_string(), "t.c:2:3: error: statement of OpenACC 'atomic' is not one accc can lower: 'x = y + 1' is not an atomic update of 'x': expected x++, x--, ++x, --x, 'x binop= expr', 'x = x binop expr' or 'x = expr binop x' (binop: + * - / & ^ | << >>), or a min/max 'x = x < expr ? expr : x'");
        assert_eq!(e[1].to_string(), "t.c:3:25: error: OpenACC 'atomic read' takes no 'async' clause (only 'if')");
    }

    #[test]
    fn routines_go_after_their_declaration_or_in_place() {
        let ipp = "# 1 \"t.c\"\n#pragma acc routine seq bind(\"g_dev\") nohost\nint g(int);\n#pragma acc routine vector\nvoid v(int *a) {\n}\nvoid h(void) {\n#pragma acc routine(g) seq bind(k)\n}\n";
        let lines = lines(&rw(ipp, None).unwrap());
        assert_eq!(lines[0], "");
        assert_eq!(
            lines[1],
            "int g(int); void __acc_routine_1(void); void __acc_routine_1(void) { __acc_begin(1, \"routine\", \"t.c\", 1, 9); __acc_clause(1, \"routine.function\", g); __acc_clause(1, \"seq\"); __acc_clause(1, \"bind\", \"g_dev\"); __acc_clause(1, \"nohost\"); __acc_end(1); }"
        );
        assert!(lines[4].starts_with("} void __acc_routine_2(void); void __acc_routine_2(void) { __acc_begin(2, \"routine\", \"t.c\", 3, 9); __acc_clause(2, \"routine.function\", v); __acc_clause(2, \"vector\"); __acc_end(2); }"), "{}", lines[4]);
        // In a function: the named form's markers are a block where the directive was.
        assert_eq!(lines[6], "{ __acc_begin(3, \"routine\", \"t.c\", 7, 9); __acc_clause(3, \"routine.function\", g); __acc_clause(3, \"seq\"); __acc_clause(3, \"bind\", \"k\"); __acc_end(3); }");
        let e = rw("# 1 \"t.c\"\n#pragma acc routine(a, b) seq\n", None).unwrap_err();
        assert_eq!(e[0].to_string(), "t.c:1:13: error: OpenACC 'routine(name)' takes one function name");
    }

    #[test]
    fn device_directives_carry_names_and_numbers() {
        let ipp = "# 1 \"t.c\"\n#pragma acc set device_type(nvidia) device_num(n + 1) default_async(2)\n#pragma acc init device_type(host, *)\n";
        let t = String::from_utf8_lossy(&rw(ipp, None).unwrap().text).into_owned();
        assert!(t.contains("__acc_clause(1, \"device_type\", \"nvidia\"); "), "{t}");
        assert!(t.contains("__acc_clause(1, \"device_num\", (long long)(n + 1)); "), "{t}");
        assert!(t.contains("__acc_clause(1, \"default_async\", (long long)(2)); "), "{t}");
        assert!(t.contains("__acc_clause(2, \"device_type\", \"host\", \"*\"); "), "{t}");
    }

    #[test]
    fn attach_detach_and_implicit_attach_actions() {
        let ipp = "# 1 \"t.c\"\n#pragma acc enter data attach(s->p) copyin(s->q[0:n], v[0:n]) create(zero: t.a[1:2])\n#pragma acc exit data detach(s->p) copyout(zero: s->q[0:n]) delete(pp[i][0:m])\n#pragma acc parallel loop copy(s.v[0:n]) deviceptr(d) present(r->s->w[0:k])\nfor(;;);\n#pragma acc update self(s->q[0:n])\n";
        let lines = lines(&rw(ipp, None).unwrap());
        let attach = |n: usize, clause: &str, base: &str| {
            format!("__acc_clause({n}, \"{clause}\", __builtin_choose_expr(__builtin_types_compatible_p(__typeof__({base}), __typeof__(&({base})[0])), (void*)&({base}), (void*)0), 0LL, 1LL, (long long)sizeof(void *), \"{base}\");")
        };
        assert!(lines[0].contains("__acc_clause(1, \"attach\", (void*)&(s->p), 0LL, 1LL, (long long)sizeof(s->p), \"s->p\");"), "{}", lines[0]);
        // Each item whose section is based on a member or element: its attach action after it.
        let q = "__acc_clause(1, \"copyin\", (void*)(s->q), (long long)(0), (long long)(n), (long long)sizeof((s->q)[0]), \"s->q[0:n]\"); ";
        assert!(lines[0].contains(&format!("{q}{} __acc_clause(1, \"copyin\", (void*)(v)", attach(1, "attach", "s->q"))), "{}", lines[0]);
        assert!(lines[0].contains(&format!("__acc_clause(1, \"create.zero\", (void*)(t.a), (long long)(1), (long long)(2), (long long)sizeof((t.a)[0]), \"t.a[1:2]\"); {}", attach(1, "attach", "t.a"))), "{}", lines[0]);
        assert!(lines[1].contains("__acc_clause(2, \"detach\", (void*)&(s->p),"), "{}", lines[1]);
        assert!(lines[1].contains(&format!("\"copyout.zero\", (void*)(s->q), (long long)(0), (long long)(n), (long long)sizeof((s->q)[0]), \"s->q[0:n]\"); {}", attach(2, "detach", "s->q"))), "{}", lines[1]);
        assert!(lines[1].contains(&attach(2, "detach", "pp[i]")), "{}", lines[1]);
        assert!(lines[2].contains(&attach(3, "attach", "s.v")) && lines[2].contains(&attach(3, "attach", "r->s->w")), "{}", lines[2]);
        assert!(!lines[2].contains("attach\", __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(d)"), "{}", lines[2]);
        assert!(!lines[3].contains("attach") && !lines[3].contains("detach"), "update has no attach action: {}", lines[3]);
        assert_eq!(lines[0].matches("\"attach\"").count(), 3, "none for v[0:n]: {}", lines[0]);
    }

    #[test]
    fn declare_in_functions_and_at_file_scope() {
        let ipp = "# 1 \"t.c\"\nint g[4];\n#pragma acc declare copyin(g) link(h)\nvoid f(int n) { int a[n];\n#pragma acc declare create(a)\n}\nstruct s { int x; };\n#pragma acc declare device_resident(g)\n";
        let lines = lines(&rw(ipp, None).unwrap());
        assert_eq!(
            lines[1],
            "static void __attribute__((constructor)) __acc_declare_file_1(void) { __acc_begin(1, \"declare\", \"t.c\", 2, 9); __acc_clause(1, \"copyin\", (void*)&(g), 0LL, 1LL, (long long)sizeof(g), \"g\"); __acc_clause(1, \"link\", (void*)&(h), 0LL, 1LL, (long long)sizeof(h), \"h\"); __acc_end(1); }"
        );
        assert!(lines[3].starts_with("{ __acc_begin(2, \"declare\", \"t.c\", 4, 9); __acc_clause(2, \"create\", (void*)&(a)"), "{}", lines[3]);
        assert!(lines[3].ends_with("__acc_end(2); }"), "{}", lines[3]);
        // After a struct's braces: file scope again.
        assert!(lines[6].starts_with("static void __attribute__((constructor)) __acc_declare_file_3(void) {"), "{}", lines[6]);
    }

    #[test]
    fn async_and_wait() {
        let ipp = "# 1 \"t.c\"\n#pragma acc parallel loop async wait\nfor(;;);\n#pragma acc update self(x[0:n]) async(q + 1) wait(queues: 1, n)\n#pragma acc wait\n#pragma acc wait(1, acc_async_noval) async(3) if(k)\n#pragma acc wait(queues: 2)\n";
        let b = body(&rw(ipp, None).unwrap());
        for s in [
            "__acc_clause(1, \"async\"); __acc_clause(1, \"wait\");",
            "__acc_clause(2, \"async\", (long long)(q + 1)); __acc_clause(2, \"wait\", (long long)(1), (long long)(n));",
            "{ __acc_begin(3, \"wait\", \"t.c\", 4, 9); __acc_end(3); }",
            "{ __acc_begin(4, \"wait\", \"t.c\", 5, 9); __acc_clause(4, \"wait\", (long long)(1), (long long)(acc_async_noval)); __acc_clause(4, \"async\", (long long)(3)); __acc_clause(4, \"if\", (long long)((k) != 0)); __acc_end(4); }",
            "__acc_clause(5, \"wait\", (long long)(2)); __acc_end(5); }",
        ] {
            assert!(b.contains(s), "missing {s} in\n{b}");
        }
        let b = body(&rw("# 1 \"t.c\"\n#pragma acc update self(x) wait(devnum: c ? 1 : d : queues: 1, n)\n#pragma acc wait(devnum: f(a[0]): 3) async(2)\n", None).unwrap());
        for s in [
            "__acc_clause(1, \"wait.devnum\", (long long)(c ? 1 : d), (long long)(1), (long long)(n));",
            "__acc_clause(2, \"wait.devnum\", (long long)(f(a[0])), (long long)(3)); __acc_clause(2, \"async\", (long long)(2));",
        ] {
            assert!(b.contains(s), "missing {s} in\n{b}");
        }
        let e = rw("# 1 \"t.c\"\n#pragma acc update self(x) wait(devnum: 0)\n", None).unwrap_err();
        assert_eq!(e[0].to_string(), "t.c:1:28: error: OpenACC 'wait(devnum: ...)' needs a queue list after the device number: 'wait(devnum: n: q, ...)'");
    }

    #[test]
    fn missing_statement() {
        let e = rw("# 1 \"t.c\"\nvoid f() {\n#pragma acc parallel\n", None).unwrap_err();
        assert!(e[0].to_string().starts_with("t.c:2:13: error: expected a statement"), "{}", e[0]);
    }

    #[test]
    fn header_line_markers() {
        let ipp = "# 1 \"t.c\"\n# 1 \"./h.h\" 1\nvoid g(int *a) {\n#pragma acc kernels\na[0] = 1;\n}\n# 2 \"t.c\" 2\nint x;\n";
        let b = body(&rw(ipp, None).unwrap());
        assert!(b.contains("__acc_begin(1, \"kernels\", \"./h.h\", 2, 9)"), "{}", b);
        assert!(b.contains("a[0] = 1; __acc_end(1); }"));
    }

    #[test]
    fn bytes_outside_directives_are_kept() {
        // A Latin-1 literal (not UTF-8) and a Latin-1 file name survive byte for byte.
        let ipp: &[u8] = b"# 1 \"caf\xe9.c\"\nchar *s = \"caf\xe9\";\n#pragma acc parallel\ns = \"\xe9\";\n";
        let r = rewrite(ipp, &mut |_: &str| None).unwrap();
        let after_prelude = &r.text[PRELUDE.len() + 1..];
        assert!(after_prelude.starts_with(b"# 1 \"caf\xe9.c\"\n# 1 \"caf\xe9.c\"\nchar *s = \"caf\xe9\";\n{ __acc_begin(1,"));
        assert!(r.text.ends_with(b"s = \"\xe9\"; __acc_end(1); }\n"));
    }

    #[test]
    fn only_opened_files_are_read() {
        let ipp = "# 1 \"t.c\"\n# 1 \"./h.h\" 1\n#pragma acc update device(a)\n# 1 \"/dev/zero\"\n#pragma acc update device(a)\n# 2 \"/dev/zero\" 2\n#pragma acc update device(a)\n";
        let mut asked = Vec::new();
        rewrite(ipp.as_bytes(), &mut |f: &str| {
            asked.push(f.to_string());
            None
        })
        .unwrap();
        assert_eq!(asked, ["./h.h"]);
    }

    #[test]
    fn no_pragmas_is_identity_plus_prelude() {
        let ipp = "# 1 \"t.c\"\nint main(void) { return 0; }\n#pragma once\n";
        let r = rw(ipp, None).unwrap();
        assert_eq!(r.directives, 0);
        assert_eq!(body(&r), ipp);
    }
}
