//! Reads the IR contract (docs/ir-contract.md) into `Directive`s and verifies it.
//!
//! Expects: a module as Clang emits it from `accc`'s rewritten source, or hand-written IR in
//! the same form. Produces: one `Directive` per `__acc_begin` id, with typed clauses, in
//! program order per function. Does not modify the IR (erasing the markers is
//! `erase_markers`, called by the pipeline once every step that needs them is done).

use crate::cfg::FunctionCfg;
use crate::error::{AccError, Loc, Result};
use crate::ir::{Module, Value};
use std::collections::BTreeMap;

pub const BEGIN: &str = "__acc_begin";
pub const CLAUSE: &str = "__acc_clause";
pub const END: &str = "__acc_end";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeKind {
    Parallel,
    Kernels,
    Serial,
    /// A stretch of a `kernels` construct outside its loop nests (kernels.rs): runs on one
    /// thread, with the data rules of `kernels`.
    KernelsSequential,
}

impl ComputeKind {
    /// Every loop runs sequentially and the launch is one thread.
    pub fn is_sequential(self) -> bool {
        matches!(self, ComputeKind::Serial | ComputeKind::KernelsSequential)
    }
    /// Implicit data attributes follow `kernels` (a scalar the region writes is copied).
    pub fn has_kernels_data_rules(self) -> bool {
        matches!(self, ComputeKind::Kernels | ComputeKind::KernelsSequential)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectiveKind {
    Compute { kind: ComputeKind, combined_loop: bool },
    Loop,
    Data,
    EnterData,
    ExitData,
    Update,
}

impl DirectiveKind {
    pub fn parse(s: &str) -> Option<DirectiveKind> {
        use ComputeKind::*;
        use DirectiveKind::*;
        Some(match s {
            "parallel" => Compute { kind: Parallel, combined_loop: false },
            "kernels" => Compute { kind: Kernels, combined_loop: false },
            "serial" => Compute { kind: Serial, combined_loop: false },
            "parallel loop" => Compute { kind: Parallel, combined_loop: true },
            "kernels loop" => Compute { kind: Kernels, combined_loop: true },
            "serial loop" => Compute { kind: Serial, combined_loop: true },
            "loop" => Loop,
            "data" => Data,
            "enter data" => EnterData,
            "exit data" => ExitData,
            "update" => Update,
            _ => return None,
        })
    }
    pub fn is_compute(self) -> bool {
        matches!(self, DirectiveKind::Compute { .. })
    }
    pub fn is_standalone(self) -> bool {
        matches!(self, DirectiveKind::EnterData | DirectiveKind::ExitData | DirectiveKind::Update)
    }
}

/// Directives that are OpenACC but not lowered yet.
const KNOWN_UNSUPPORTED_DIRECTIVES: &[&str] = &[
    "host_data", "wait", "init", "shutdown", "set", "atomic", "atomic read", "atomic write",
    "atomic update", "atomic capture", "cache", "routine", "declare",
];

/// Data movement kinds, numbered as the runtime ABI (docs/runtime-abi.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    Copy = 0,
    CopyIn = 1,
    CopyOut = 2,
    Create = 3,
    Present = 4,
    NoCreate = 5,
    Delete = 6,
    DevicePtr = 7,
}

/// A clause item: the bytes `[base + lower*elem_size, base + (lower+length)*elem_size)`.
#[derive(Clone, Debug)]
pub struct Var {
    pub base: Value,
    pub lower: Value,
    pub length: Value,
    pub elem_size: Value,
    pub text: String,
}

#[derive(Clone, Debug)]
pub enum Clause {
    Data(DataKind, Var),
    /// `update device(...)` (true) or `update self/host(...)` (false).
    Update { to_device: bool, var: Var },
    Private(Var),
    FirstPrivate(Var),
    NumGangs(Value),
    NumWorkers(Value),
    VectorLength(Value),
    If(Value),
    Default(String),
    Gang,
    Worker,
    Vector,
    Seq,
    Independent,
    Auto,
    Collapse(u32),
    Finalize,
    IfPresent,
}

#[derive(Clone, Debug)]
pub struct Directive {
    pub id: u32,
    pub kind: DirectiveKind,
    pub name: String,
    pub loc: Loc,
    pub clauses: Vec<Clause>,
    pub begin: Value,
    pub end: Value,
    /// The `__acc_clause` calls, in order.
    pub clause_calls: Vec<Value>,
    pub function: Value,
}

impl Directive {
    pub fn has(&self, pred: impl Fn(&Clause) -> bool) -> bool {
        self.clauses.iter().any(pred)
    }
    /// The last marker call before the region body: the body starts right after it.
    pub fn last_header_call(&self) -> Value {
        *self.clause_calls.last().unwrap_or(&self.begin)
    }
}

/// Reads and verifies every directive in the module, grouped by function in program order.
pub fn read_module(m: Module) -> Result<Vec<Directive>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for f in m.functions() {
        if f.is_declaration() {
            continue;
        }
        match read_function(f, false) {
            Ok(mut ds) => out.append(&mut ds),
            Err(e) => errors.push(e),
        }
    }
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[derive(Default)]
struct Pieces {
    begin: Option<Value>,
    end: Option<Value>,
    clauses: Vec<Value>,
}

fn marker_id(call: Value, what: &str) -> Result<u32> {
    call.call_arg(0)
        .const_int_value()
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| malformed(call, &format!("the first operand of {what} must be an i32 constant id")))
}

fn malformed(call: Value, why: &str) -> AccError {
    AccError::user(
        &Loc { file: call.parent_function().name(), line: 0, col: 0 },
        format!("malformed OpenACC IR contract in function '{}': {why}\n  {}", call.parent_function().name(), call.to_string().trim()),
    )
}

/// Reads the loop directives left in an outlined region (a kernel in the device module):
/// there the enclosing compute construct is the function itself.
pub fn read_kernel(f: Value) -> Result<Vec<Directive>> {
    read_function(f, true)
}

fn read_function(f: Value, in_kernel: bool) -> Result<Vec<Directive>> {
    let mut by_id: BTreeMap<u32, Pieces> = BTreeMap::new();
    let mut order: Vec<u32> = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if !i.is_call() {
                continue;
            }
            let Some(name) = i.called_name() else { continue };
            match name.as_str() {
                BEGIN => {
                    let id = marker_id(i, BEGIN)?;
                    let p = by_id.entry(id).or_default();
                    if p.begin.replace(i).is_some() {
                        return Err(malformed(i, &format!("directive id {id} has two __acc_begin calls")));
                    }
                    order.push(id);
                }
                CLAUSE => {
                    let id = marker_id(i, CLAUSE)?;
                    by_id.entry(id).or_default().clauses.push(i);
                }
                END => {
                    let id = marker_id(i, END)?;
                    let p = by_id.entry(id).or_default();
                    if p.end.replace(i).is_some() {
                        return Err(malformed(i, &format!("directive id {id} has two __acc_end calls")));
                    }
                }
                _ => {}
            }
        }
    }
    if by_id.is_empty() {
        return Ok(Vec::new());
    }
    let cfg = FunctionCfg::new(f);
    let mut out = Vec::new();
    for id in order {
        let p = by_id.remove(&id).expect("ids in `order` come from `by_id`");
        out.push(build_directive(id, p, f, &cfg)?);
    }
    if let Some((id, p)) = by_id.into_iter().next() {
        let call = p.end.or(p.clauses.first().copied()).expect("an entry exists only with a call");
        return Err(malformed(call, &format!("directive id {id} has no __acc_begin")));
    }
    verify_nesting(&out, &cfg, in_kernel)?;
    Ok(out)
}

fn build_directive(id: u32, p: Pieces, f: Value, cfg: &FunctionCfg) -> Result<Directive> {
    let begin = p.begin.expect("built from a begin");
    if begin.call_arg_count() != 5 {
        return Err(malformed(begin, "__acc_begin takes (i32 id, ptr directive, ptr file, i32 line, i32 col)"));
    }
    let text = |i: u32, what: &str| {
        begin.call_arg(i).const_string().ok_or_else(|| malformed(begin, &format!("the {what} operand must be a constant string")))
    };
    let name = text(1, "directive")?;
    let file = text(2, "file")?;
    let num = |i: u32| begin.call_arg(i).const_int_value().unwrap_or(0).max(0) as u32;
    let loc = Loc { file, line: num(3), col: num(4) };
    let kind = match DirectiveKind::parse(&name) {
        Some(k) => k,
        None if KNOWN_UNSUPPORTED_DIRECTIVES.contains(&name.as_str()) => {
            return Err(AccError::unsupported(&loc, format!("'{name}'")))
        }
        None => return Err(AccError::user(&loc, format!("unknown OpenACC directive '{name}'"))),
    };
    let end = p.end.ok_or_else(|| AccError::user(&loc, format!("OpenACC '{name}' (id {id}) has no matching __acc_end")))?;
    if !cfg.dominates_inst(begin, end) {
        return Err(AccError::user(&loc, format!("the region of OpenACC '{name}' is not single-entry: its begin does not dominate its end")));
    }
    if !cfg.post_dominates_inst(end, begin) {
        return Err(AccError::user(&loc, format!("the region of OpenACC '{name}' is not single-exit: control can leave it without reaching its end (break, return or goto out of a region is not allowed)")));
    }
    let mut clauses = Vec::new();
    for c in &p.clauses {
        if !cfg.dominates_inst(begin, *c) || !cfg.dominates_inst(*c, end) {
            return Err(malformed(*c, "a clause must lie between its directive's begin and end"));
        }
        clauses.push(parse_clause(*c, &loc, kind)?);
    }
    Ok(Directive { id, kind, name, loc, clauses, begin, end, clause_calls: p.clauses, function: f })
}

/// A launch size known at compile time must be positive (one only known at run time is
/// checked there: `__accrt_check_launch_size`).
fn launch_size(loc: &Loc, clause: &str, v: Value) -> Result<Value> {
    match v.const_int_value() {
        Some(n) if n <= 0 => Err(AccError::user(loc, format!("{clause}({n}): the value must be positive"))),
        _ => Ok(v),
    }
}

fn parse_clause(call: Value, loc: &Loc, dir: DirectiveKind) -> Result<Clause> {
    let n = call.call_arg_count();
    let Some(name) = call.call_arg(1).const_string() else {
        return Err(malformed(call, "the clause name must be a constant string"));
    };
    let args: Vec<Value> = (2..n).map(|i| call.call_arg(i)).collect();
    let bad = |shape: &str| malformed(call, &format!("clause '{name}' takes {shape}"));
    let int = |v: Value| v.ty().is_int() && v.ty().int_width() == 64;
    let var = |args: &[Value]| -> Result<Var> {
        if args.len() != 5 || !args[0].ty().is_ptr() || !args[1..4].iter().all(|v| int(*v)) || !args[4].ty().is_ptr() {
            return Err(bad("(ptr base, i64 lower, i64 length, i64 elem_size, ptr text)"));
        }
        Ok(Var {
            base: args[0],
            lower: args[1],
            length: args[2],
            elem_size: args[3],
            text: args[4].const_string().unwrap_or_else(|| "?".into()),
        })
    };
    let one_int = |args: &[Value]| -> Result<Value> {
        if args.len() == 1 && int(args[0]) {
            Ok(args[0])
        } else {
            Err(bad("one i64 operand"))
        }
    };
    let none = |c: Clause, args: &[Value]| if args.is_empty() { Ok(c) } else { Err(bad("no operands")) };
    let data = |k: DataKind| Ok(Clause::Data(k, var(&args)?));
    match name.as_str() {
        "copy" => data(DataKind::Copy),
        "copyin" => data(DataKind::CopyIn),
        "copyout" => data(DataKind::CopyOut),
        "create" => data(DataKind::Create),
        "present" => data(DataKind::Present),
        "no_create" => data(DataKind::NoCreate),
        "delete" => data(DataKind::Delete),
        "deviceptr" => data(DataKind::DevicePtr),
        "device" => Ok(Clause::Update { to_device: true, var: var(&args)? }),
        "self" | "host" if dir == DirectiveKind::Update => Ok(Clause::Update { to_device: false, var: var(&args)? }),
        "private" => Ok(Clause::Private(var(&args)?)),
        "firstprivate" => Ok(Clause::FirstPrivate(var(&args)?)),
        "num_gangs" if args.len() > 1 => Err(AccError::unsupported(loc, "'num_gangs' with more than one value")),
        "num_gangs" => Ok(Clause::NumGangs(launch_size(loc, &name, one_int(&args)?)?)),
        "num_workers" => Ok(Clause::NumWorkers(launch_size(loc, &name, one_int(&args)?)?)),
        "vector_length" => Ok(Clause::VectorLength(launch_size(loc, &name, one_int(&args)?)?)),
        "if" => Ok(Clause::If(one_int(&args)?)),
        "default" => match args.first().and_then(|v| v.const_string()) {
            Some(s) if (s == "none" || s == "present") && args.len() == 1 => Ok(Clause::Default(s)),
            _ => Err(bad("one string operand, \"none\" or \"present\"")),
        },
        "gang" => none(Clause::Gang, &args),
        // A size on worker/vector of a loop only matters inside `kernels`; it is not lowered yet.
        "worker" | "vector" if !args.is_empty() => Err(AccError::unsupported(loc, format!("'{name}' with a size argument"))),
        "worker" => Ok(Clause::Worker),
        "vector" => Ok(Clause::Vector),
        "seq" => none(Clause::Seq, &args),
        "independent" => none(Clause::Independent, &args),
        "auto" => none(Clause::Auto, &args),
        "finalize" => none(Clause::Finalize, &args),
        "if_present" => none(Clause::IfPresent, &args),
        "collapse" => match one_int(&args)?.const_int_value() {
            Some(c) if c >= 1 => Ok(Clause::Collapse(c as u32)),
            _ => Err(bad("a positive constant")),
        },
        "reduction" | "async" | "wait" | "attach" | "detach" | "tile" | "device_type" | "self" | "gang.num"
        | "gang.dim" | "gang.static" | "use_device" | "bind" | "nohost" | "device_resident" | "link" => {
            Err(AccError::unsupported(loc, format!("'{name}'")))
        }
        _ => Err(AccError::user(loc, format!("unknown OpenACC clause '{name}'"))),
    }
}

/// Regions nest properly, and compute regions do not nest; loops live inside compute regions.
/// `outer`'s region contains `inner`'s: entering inner means having entered outer, and
/// leaving inner still has outer's end ahead.
pub fn encloses(cfg: &FunctionCfg, outer: (Value, Value), inner: (Value, Value)) -> bool {
    outer.0 != inner.0 && cfg.dominates_inst(outer.0, inner.0) && cfg.post_dominates_inst(outer.1, inner.1)
}

fn verify_nesting(ds: &[Directive], cfg: &FunctionCfg, in_kernel: bool) -> Result<()> {
    let inside = |inner: &Directive, outer: &Directive| encloses(cfg, (outer.begin, outer.end), (inner.begin, inner.end));
    for d in ds {
        let enclosing_compute = ds.iter().find(|o| o.kind.is_compute() && inside(d, o));
        match d.kind {
            DirectiveKind::Compute { .. } if enclosing_compute.is_some() => {
                return Err(AccError::user(&d.loc, format!("OpenACC '{}' cannot be nested inside a compute region", d.name)))
            }
            DirectiveKind::Loop if enclosing_compute.is_none() && !in_kernel => {
                return Err(AccError::unsupported(&d.loc, "'loop' outside a compute region (orphaned loop in a routine)"))
            }
            DirectiveKind::Data | DirectiveKind::EnterData | DirectiveKind::ExitData | DirectiveKind::Update
                if enclosing_compute.is_some() =>
            {
                return Err(AccError::user(&d.loc, format!("OpenACC '{}' is not allowed inside a compute region", d.name)))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Erases every marker call and the marker declarations.
pub fn erase_markers(m: Module) {
    for name in [BEGIN, CLAUSE, END] {
        if let Some(f) = m.function(name) {
            for u in f.users() {
                if u.is_call() && u.users().is_empty() {
                    u.erase();
                }
            }
            if f.users().is_empty() {
                f.erase_function();
            }
        }
    }
}

/// Erases the clause calls of one directive (its operands stay for whoever uses them).
pub fn erase_clause_calls(d: &Directive) {
    for c in &d.clause_calls {
        c.erase();
    }
}
