//! Reads the IR contract (docs/ir-contract.md) into `Directive`s and verifies it.
//!
//! Expects: a module as Clang emits it from `accc`'s rewritten source, or hand-written IR in
//! the same form. Produces: one `Directive` per `__acc_begin` id, with typed clauses, in
//! program order per function. Does not modify the IR (erasing the markers is
//! `erase_markers`, called by the pipeline once every step that needs them is done).

use crate::cfg::FunctionCfg;
use crate::error::{AccError, Loc, Result};
use crate::ir::{Module, Value};
use acc_directives::{self as acc, Operands};
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
    /// `host_data`: host code in which `use_device` items see device addresses.
    HostData,
    /// `declare`: in a function, a data region from here to every return; at file scope (in
    /// its constructor, `acc::FILE_SCOPE_DECLARE`), globals present for the whole program.
    Declare,
    Wait,
    /// `init`, `shutdown`, `set`: device management at the directive.
    Init,
    Shutdown,
    Set,
    /// `routine`: a function with a device version (routine.rs); in a holder function of its
    /// own (`acc::ROUTINE_HOLDER`) or in a function body.
    Routine,
    /// `cache`: in a loop body of a compute region, sections to keep in shared memory
    /// (cache.rs); a hint, so the host version ignores it.
    Cache,
}

impl DirectiveKind {
    /// What the pass makes of directive `d`; `None` for one it does not lower (the table
    /// marks those unsupported: a unit test checks the two agree).
    pub fn of(d: acc::Directive) -> Option<DirectiveKind> {
        use acc::Directive as D;
        use ComputeKind::*;
        use DirectiveKind::*;
        Some(match d {
            D::Parallel => Compute { kind: Parallel, combined_loop: false },
            D::Kernels => Compute { kind: Kernels, combined_loop: false },
            D::Serial => Compute { kind: Serial, combined_loop: false },
            D::ParallelLoop => Compute { kind: Parallel, combined_loop: true },
            D::KernelsLoop => Compute { kind: Kernels, combined_loop: true },
            D::SerialLoop => Compute { kind: Serial, combined_loop: true },
            D::Loop => Loop,
            D::Data => Data,
            D::EnterData => EnterData,
            D::ExitData => ExitData,
            D::Update => Update,
            D::HostData => HostData,
            D::Declare => Declare,
            D::Wait => Wait,
            D::Routine => Routine,
            D::Init => Init,
            D::Shutdown => Shutdown,
            D::Set => Set,
            D::Cache => Cache,
            _ => return None,
        })
    }
    pub fn is_compute(self) -> bool {
        matches!(self, DirectiveKind::Compute { .. })
    }
    pub fn is_standalone(self) -> bool {
        matches!(
            self,
            DirectiveKind::EnterData
                | DirectiveKind::ExitData
                | DirectiveKind::Update
                | DirectiveKind::Declare
                | DirectiveKind::Wait
                | DirectiveKind::Init
                | DirectiveKind::Shutdown
                | DirectiveKind::Set
                | DirectiveKind::Routine
                | DirectiveKind::Cache
        )
    }
    /// Lowered by data.rs in host code (not outlined). `host_data` (host_data.rs) and
    /// `declare` (declare.rs) stay in host code too, but have lowerings of their own.
    pub fn is_host_directive(self) -> bool {
        matches!(
            self,
            DirectiveKind::Data
                | DirectiveKind::EnterData
                | DirectiveKind::ExitData
                | DirectiveKind::Update
                | DirectiveKind::Wait
                | DirectiveKind::Init
                | DirectiveKind::Shutdown
                | DirectiveKind::Set
        )
    }
}

/// Data movement kinds, numbered as the runtime ABI (docs/runtime-abi.md): the clause in
/// the low byte, `zero:` as the ABI's `ACCRT_ZERO` bit (`rt::ZERO`).
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
    /// `copyout(zero: x)`: COPYOUT | ACCRT_ZERO.
    CopyOutZero = 0x802,
    /// `create(zero: x)`: CREATE | ACCRT_ZERO.
    CreateZero = 0x803,
}

impl DataKind {
    /// Whether the clause copies the data back when its exit drops the last reference.
    pub fn copies_out(self) -> bool {
        matches!(self, DataKind::Copy | DataKind::CopyOut | DataKind::CopyOutZero)
    }
}

/// The order in which a construct's data clause items (kinds in clause order) exit: the
/// reverse of their entries (the parts before their wholes), except that items that copy
/// out go after the others. When one construct names the same data in several clauses
/// (`create(zero: b) copyout(b)`), only the exit that drops the last reference acts, and it
/// must be the one that copies out, not a `create`'s that only frees.
pub fn exit_order(kinds: &[DataKind]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..kinds.len()).rev().collect();
    order.sort_by_key(|&i| kinds[i].copies_out());
    order
}

/// A clause item: the bytes `[base + lower*elem_size, base + (lower+length)*elem_size)`.
#[derive(Clone, Debug)]
pub struct Var<'ctx> {
    pub base: Value<'ctx>,
    pub lower: Value<'ctx>,
    pub length: Value<'ctx>,
    pub elem_size: Value<'ctx>,
    pub text: String,
    /// Trailing dimensions of a multi-dimensional section (`a[i:n][0:m]`) that the compile
    /// could not prove whole: checked at run time (sections.rs). Those with constant bounds
    /// are checked by the contract reader.
    pub dims: Vec<Dim<'ctx>>,
    /// The dimensions whose rows are pointers (`p[0:n][0:m]` of `double **p`), outermost
    /// first: the bytes above are then the first level (the row pointers), and each level
    /// here is `[lower:length]` of every row a pointer of the level before points to. Empty
    /// for a contiguous item. Only data clauses and `update` take such items.
    pub rows: Vec<RowLevel<'ctx>>,
}

/// One level of a section through pointer rows: each row pointer of the level before
/// (every pointer in its bytes) points to a row whose elements `[lower, lower + length)`,
/// of `elem_size` bytes each, the item maps and attaches the pointer to.
#[derive(Clone, Copy, Debug)]
pub struct RowLevel<'ctx> {
    pub lower: Value<'ctx>,
    pub length: Value<'ctx>,
    pub elem_size: u64,
}

/// One trailing dimension of a multi-dimensional section: `[lower:length]` of rows of
/// `extent` elements (negative: the rows are pointers to elements of `-extent` bytes; those
/// become `RowLevel`s, never `Dim`s).
#[derive(Clone, Copy, Debug)]
pub struct Dim<'ctx> {
    /// 2 for the second dimension, ...
    pub number: u32,
    pub lower: Value<'ctx>,
    pub length: Value<'ctx>,
    pub extent: Value<'ctx>,
}

#[derive(Clone, Debug)]
pub enum Clause<'ctx> {
    Data(DataKind, Var<'ctx>),
    /// `attach(p)`, and the attach action of a data clause item whose section is based on a
    /// struct member or an element (the rewriter writes it after the item): `base` is the
    /// address of the pointer. Done after the directive's data entries, undone (detach)
    /// before its exits.
    Attach(Var<'ctx>),
    /// `detach(p)` of `exit data` (also the detach action of its `copyout`/`delete` items).
    Detach(Var<'ctx>),
    /// `update device(...)` (true) or `update self/host(...)` (false).
    Update { to_device: bool, var: Var<'ctx> },
    Private(Var<'ctx>),
    FirstPrivate(Var<'ctx>),
    /// `reduction(op: var)`, one per item.
    Reduction(Reduction<'ctx>),
    /// `num_gangs(x[, y[, z]])`: the gang count per dimension (1 to 3 values; the
    /// dimensions not given are 1, OpenACC 3.3 §2.5.10).
    NumGangs(Vec<Value<'ctx>>),
    NumWorkers(Value<'ctx>),
    VectorLength(Value<'ctx>),
    If(Value<'ctx>),
    /// `self(c)` of a compute construct (`self` alone: 1): run on the host when non-zero.
    SelfCond(Value<'ctx>),
    Default(String),
    Gang,
    /// `gang(num: n)` of a loop (only in `kernels`): that loop's kernel runs n gangs.
    GangNum(Value<'ctx>),
    /// `gang(static: s)`: the gang loop's iterations go to the gangs in chunks of s, round
    /// robin; `static: *` is None (the default schedule). The value is the clause's operand:
    /// a constant, or a value computed where the directive stands.
    GangStatic(Option<Value<'ctx>>),
    /// `gang(dim: d)`: the gang loop is partitioned over gang dimension d (1, 2 or 3) of the
    /// grid; on `routine`, the highest dimension its gang loops may use.
    GangDim(u8),
    /// `worker` / `worker(num: n)`: n only sizes a `kernels` loop's kernel (kernels.rs).
    Worker(Option<Value<'ctx>>),
    /// `vector` / `vector(length: n)`: likewise.
    Vector(Option<Value<'ctx>>),
    Seq,
    Independent,
    Auto,
    Collapse(u32),
    /// A loop set of a nest the rewriter tiled (driver/src/tile.rs) and the sizes it used,
    /// innermost loop first: the pass only reports it (the loops are ordinary collapsed
    /// loops by then).
    Tile(TilePart, Vec<u64>),
    Finalize,
    IfPresent,
    /// `use_device(var)` of `host_data`, one per item.
    UseDevice(Var<'ctx>),
    /// `link(var)` of `declare`: a global the device sees only while a data clause maps it.
    Link(Var<'ctx>),
    /// `async(q)`: the async argument as written (`async` alone: `acc_async_noval`).
    Async(Value<'ctx>),
    /// `wait(q, ...)`: the queues to wait for first; empty: every queue. With `devnum: d`
    /// (`wait.devnum`), the device the queues are on (else the current one).
    Wait(Option<Value<'ctx>>, Vec<Value<'ctx>>),
    /// `device_type(...)` of `init`/`shutdown`/`set`: the types named, as `acc_device_t`.
    DeviceType(Vec<i32>),
    /// `device_num(n)` of `init`/`shutdown`/`set`.
    DeviceNum(Value<'ctx>),
    /// `default_async(q)` of `set`.
    DefaultAsync(Value<'ctx>),
    /// `bind(name)` of `routine`: the name device code calls instead.
    Bind(String),
    /// `nohost` of `routine`.
    NoHost,
    /// `routine.function`: the function a `routine` directive applies to.
    RoutineFunction(Value<'ctx>),
    /// An item of a `cache` directive: `var.dims` holds every dimension after the first as
    /// written (none need be whole); `readonly` from `cache(readonly: ...)`.
    Cache { var: Var<'ctx>, readonly: bool },
    /// `implicit`: a `loop` directive the rewriter put around a plain `for` of `kernels`.
    Implicit,
    /// `implicit.seq`: a plain `for` of the `kernels` construct left unmarked, at (line, col),
    /// and why (driver/src/implicit.rs).
    ImplicitSeq { line: u32, col: u32, reason: String },
}

/// The `acc_device_t` value (openacc.h) of a device type named in a `device_type` clause of
/// `init`, `shutdown` or `set`; `None` for a type accc does not know. `*` (every type) acts
/// as the default type, the only one these directives can act on besides the host.
pub fn device_type_code(name: &str) -> Option<i32> {
    Some(match name {
        "*" | "default" | "acc_device_default" => 1,
        // NVHPC's name for running on the host's cores, which accc's host path is.
        "host" | "acc_device_host" | "multicore" => 2,
        "not_host" | "acc_device_not_host" => 3,
        "nvidia" | "acc_device_nvidia" => 4,
        _ => return None,
    })
}

/// `acc_async_noval` (openacc.h): what `async` without an argument means.
pub const ASYNC_NOVAL: i64 = -1;
/// `acc_async_sync`: the queue of a directive without `async`.
pub const ASYNC_SYNC: i64 = -2;

/// Whether `n` is an async argument OpenACC allows (the runtime's `queue::valid`): a queue
/// number (an `int` >= 0), `acc_async_noval` (-1), `acc_async_sync` (-2) or
/// `acc_async_default` (-3).
pub fn valid_async_argument(n: i64) -> bool {
    (0..=i64::from(i32::MAX)).contains(&n) || (-3..=-1).contains(&n)
}

/// One item of a `reduction` clause.
#[derive(Clone, Debug)]
pub struct Reduction<'ctx> {
    pub op: acc::ReductionOp,
    pub ty: acc::ReductionType,
    pub var: Var<'ctx>,
}

#[derive(Clone, Debug)]
pub struct Directive<'ctx> {
    pub id: u32,
    pub kind: DirectiveKind,
    pub name: String,
    pub loc: Loc,
    pub clauses: Vec<Clause<'ctx>>,
    pub begin: Value<'ctx>,
    pub end: Value<'ctx>,
    /// The `__acc_clause` calls, in order.
    pub clause_calls: Vec<Value<'ctx>>,
    pub function: Value<'ctx>,
}

impl<'ctx> Directive<'ctx> {
    pub fn has(&self, pred: impl Fn(&Clause<'ctx>) -> bool) -> bool {
        self.clauses.iter().any(pred)
    }
    /// The conditions under which the directive acts on the device, each `(value, want)`:
    /// the device only when every `value != 0` is `want` (`if(c)`: c true; a compute
    /// construct's `self(c)`: c false). Empty: always.
    pub fn device_conditions(&self) -> Vec<(Value<'ctx>, bool)> {
        self.clauses
            .iter()
            .filter_map(|c| match c {
                Clause::If(v) => Some((*v, true)),
                Clause::SelfCond(v) => Some((*v, false)),
                _ => None,
            })
            .collect()
    }
    /// The last marker call before the region body: the body starts right after it.
    pub fn last_header_call(&self) -> Value<'ctx> {
        *self.clause_calls.last().unwrap_or(&self.begin)
    }
    /// The `async` argument (as written; `None`: synchronous).
    pub fn async_queue(&self) -> Option<Value<'ctx>> {
        self.clauses.iter().find_map(|c| if let Clause::Async(v) = c { Some(*v) } else { None })
    }
    /// The `wait` clauses' lists (each empty for "every queue").
    pub fn waits(&self) -> impl Iterator<Item = (Option<Value<'ctx>>, &[Value<'ctx>])> {
        self.clauses.iter().filter_map(|c| if let Clause::Wait(d, v) = c { Some((*d, v.as_slice())) } else { None })
    }
}

/// Reads and verifies every directive in the module, grouped by function in program order.
pub fn read_module<'ctx>(m: Module<'ctx>) -> Result<Vec<Directive<'ctx>>> {
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
struct Pieces<'ctx> {
    begin: Option<Value<'ctx>>,
    end: Option<Value<'ctx>>,
    clauses: Vec<Value<'ctx>>,
}

fn marker_id<'ctx>(call: Value<'ctx>, what: &str) -> Result<u32> {
    call.call_arg(0)
        .const_int_value()
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| malformed(call, &format!("the first operand of {what} must be an i32 constant id")))
}

fn malformed<'ctx>(call: Value<'ctx>, why: &str) -> AccError {
    AccError::user(
        &Loc { file: call.parent_function().name(), line: 0, col: 0 },
        format!("malformed OpenACC IR contract in function '{}': {why}\n  {}", call.parent_function().name(), call.to_string().trim()),
    )
}

/// Reads the loop directives left in an outlined region (a kernel in the device module):
/// there the enclosing compute construct is the function itself.
pub fn read_kernel<'ctx>(f: Value<'ctx>) -> Result<Vec<Directive<'ctx>>> {
    read_function(f, true)
}

fn read_function<'ctx>(f: Value<'ctx>, in_kernel: bool) -> Result<Vec<Directive<'ctx>>> {
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

fn build_directive<'ctx>(id: u32, p: Pieces<'ctx>, f: Value<'ctx>, cfg: &FunctionCfg<'ctx>) -> Result<Directive<'ctx>> {
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
    let Some(spec) = acc::directive(&name) else {
        return Err(AccError::user(&loc, format!("unknown OpenACC directive '{name}'")));
    };
    if spec.rewritten {
        return Err(AccError::user(
            &loc,
            format!("OpenACC '{name}' has no form in the IR contract: accc's driver lowers it in the C source (to atomic instructions), before the pass"),
        ));
    }
    let Some(kind) = DirectiveKind::of(spec.directive).filter(|_| spec.supported) else {
        return Err(AccError::unsupported(&loc, format!("'{name}'")));
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
        match parse_clause(*c, &loc, spec.directive)? {
            // The attach action of an item whose base is an array, not a pointer: nothing.
            Clause::Attach(v) | Clause::Detach(v) if v.base.is_zero_constant() => {}
            clause => clauses.push(clause),
        }
    }
    check_tile_marks(&clauses, &loc)?;
    Ok(Directive { id, kind, name, loc, clauses, begin, end, clause_calls: p.clauses, function: f })
}

/// Which loops of a tiled nest a `tile`/`tile.element` mark is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TilePart {
    /// The tile loops (the directive as written).
    Tiles,
    /// The element loops (the rewriter's inner `loop` directive).
    Elements,
}

/// The sizes of a `tile` mark (operands checked positive constants by `has_operands`).
fn tile_sizes<'ctx>(args: &[Value<'ctx>]) -> Vec<u64> {
    args.iter().map(|a| a.const_int_value().unwrap_or(1).max(1) as u64).collect()
}

/// A tile mark names the collapsed loops the rewriter made: one per size. Anything else is
/// IR that claims a tiling it does not have.
fn check_tile_marks(clauses: &[Clause], loc: &Loc) -> Result<()> {
    let collapse = clauses.iter().find_map(|c| if let Clause::Collapse(n) = c { Some(*n) } else { None }).unwrap_or(1);
    for c in clauses {
        if let Clause::Tile(part, sizes) = c {
            if sizes.len() != collapse as usize {
                let which = if *part == TilePart::Tiles { "tile" } else { "tile.element" };
                return Err(AccError::user(
                    loc,
                    format!("'{which}' with {} sizes on a loop that collapses {collapse}: the mark names the n collapsed loops the driver made of a tiled nest (driver/src/tile.rs)", sizes.len()),
                ));
            }
        }
    }
    Ok(())
}

/// An async argument known at compile time must be one OpenACC allows (one only known at
/// run time is checked there, at the directive).
fn async_argument<'ctx>(loc: &Loc, clause: &str, v: Value<'ctx>) -> Result<Value<'ctx>> {
    match v.const_int_value() {
        Some(n) if !valid_async_argument(n) => Err(AccError::user(
            loc,
            format!("{clause}({n}): not a valid async argument (a queue number >= 0, acc_async_noval, acc_async_sync or acc_async_default)"),
        )),
        _ => Ok(v),
    }
}

/// A launch size known at compile time must be positive (one only known at run time is
/// checked there: `__accrt_check_launch_size`).
fn launch_size<'ctx>(loc: &Loc, clause: &str, v: Value<'ctx>) -> Result<Value<'ctx>> {
    match v.const_int_value() {
        Some(n) if n <= 0 => Err(AccError::user(loc, format!("{clause}({n}): the value must be positive"))),
        _ => Ok(v),
    }
}

/// Reads one `__acc_clause` call of directive `on`: the table says what its name means there
/// and which operands it takes.
fn parse_clause<'ctx>(call: Value<'ctx>, loc: &Loc, on: acc::Directive) -> Result<Clause<'ctx>> {
    let Some(name) = call.call_arg(1).const_string() else {
        return Err(malformed(call, "the clause name must be a constant string"));
    };
    let Some(spec) = acc::clause(&name, on) else {
        return Err(AccError::user(loc, format!("unknown OpenACC clause '{name}'")));
    };
    if !spec.supported {
        return Err(AccError::unsupported(loc, format!("'{name}'")));
    }
    let args: Vec<Value> = (2..call.call_arg_count()).map(|i| call.call_arg(i)).collect();
    if !has_operands(spec.operands, &args) {
        return Err(malformed(call, &format!("clause '{name}' takes {}", operands_wanted(spec.operands))));
    }
    lower_clause(call, spec.clause, &name, &args, loc)
}

/// Whether a clause call's operands (after the id and the name) have the table's shape.
fn has_operands<'ctx>(shape: Operands, args: &[Value<'ctx>]) -> bool {
    let int = |v: &Value<'ctx>| v.ty().is_int() && v.ty().int_width() == 64;
    match shape {
        Operands::None => args.is_empty(),
        // Then `lower, length, extent` per trailing dimension of a multi-dimensional section.
        Operands::Var => {
            args.len() >= 5 && (args.len() - 5) % 3 == 0 && args[0].ty().is_ptr() && args[1..4].iter().all(int) && args[4].ty().is_ptr() && args[5..].iter().all(int)
        }
        Operands::Int | Operands::ConstInt | Operands::Condition => args.len() == 1 && int(&args[0]),
        Operands::OneToThreeInts => (1..=3).contains(&args.len()) && args.iter().all(int),
        Operands::OptionalInt => args.len() <= 1 && args.iter().all(int),
        Operands::Ints => args.iter().all(int),
        Operands::DefaultKind => matches!(args, [a] if a.const_string().is_some_and(|s| s == "none" || s == "present")),
        Operands::OpAndVar => args.len() >= 7 && args[0].const_string().is_some() && int(&args[1]) && has_operands(Operands::Var, &args[2..]),
        Operands::Names => !args.is_empty() && args.iter().all(|a| a.const_string().is_some()),
        Operands::Name => matches!(args, [a] if a.const_string().is_some()),
        Operands::Function => matches!(args, [a] if a.ty().is_ptr()),
        // `gang.static`: one i64 (-1 for `*`).
        Operands::IntOrStar => matches!(args, [a] if int(a)),
        // `tile`, `tile.element`: the sizes the rewriter used, positive constants.
        Operands::TileSizes => !args.is_empty() && args.iter().all(|a| int(a) && a.const_int_value().is_some_and(|v| v >= 1)),
        Operands::Note => matches!(args, [l, c, r] if int(l) && int(c) && r.const_string().is_some()),
    }
}

/// How the message about a malformed clause call names the operands it should have.
fn operands_wanted(shape: Operands) -> &'static str {
    match shape {
        Operands::None => "no operands",
        Operands::Var => "(ptr base, i64 lower, i64 length, i64 elem_size, ptr text), then i64 lower, length and extent per trailing dimension",
        Operands::Int | Operands::ConstInt | Operands::Condition => "one i64 operand",
        Operands::OneToThreeInts => "one to three i64 operands",
        Operands::OptionalInt => "no operand or one i64 operand",
        Operands::Ints => "i64 operands only",
        Operands::DefaultKind => "one string operand, \"none\" or \"present\"",
        Operands::OpAndVar => "(ptr op, i64 type, ptr base, i64 lower, i64 length, i64 elem_size, ptr text), then i64 lower, length and extent per trailing dimension",
        Operands::Names => "one or more string operands",
        Operands::Name => "one string operand",
        Operands::Function => "one pointer operand, a function",
        Operands::IntOrStar => "one i64 operand (-1 for '*')",
        Operands::TileSizes => "one or more positive constant i64 operands",
        Operands::Note => "(i64 line, i64 col, ptr reason)",
    }
}

/// The runtime ABI's kind of a data clause.
fn data_kind(c: acc::Clause) -> Option<DataKind> {
    use acc::Clause as C;
    Some(match c {
        C::Copy => DataKind::Copy,
        C::CopyIn => DataKind::CopyIn,
        C::CopyOut => DataKind::CopyOut,
        C::Create => DataKind::Create,
        C::CopyOutZero => DataKind::CopyOutZero,
        C::CreateZero => DataKind::CreateZero,
        C::Present => DataKind::Present,
        C::NoCreate => DataKind::NoCreate,
        C::Delete => DataKind::Delete,
        C::DevicePtr => DataKind::DevicePtr,
        // A device-only allocation: what `create` does (accc never copies it either way).
        C::DeviceResident => DataKind::Create,
        _ => return None,
    })
}

/// The pass's reading of a supported clause whose operands have the table's shape.
fn lower_clause<'ctx>(call: Value<'ctx>, clause: acc::Clause, name: &str, args: &[Value<'ctx>], loc: &Loc) -> Result<Clause<'ctx>> {
    use acc::Clause as C;
    // Sections through pointer rows are mapped row by row by data clauses and `update`.
    // (`use_device` translates the pointer variable itself: the rows change nothing; private
    // copies hold each level's pointers and the rows, private_copies.rs.)
    let rows_allowed = matches!(data_kind(clause), Some(k) if k != DataKind::DevicePtr) || matches!(clause, C::Device | C::Self_ | C::Host | C::UseDevice | C::Private | C::FirstPrivate);
    let var = || read_var(args, name, loc, rows_allowed);
    if let Some(kind) = data_kind(clause) {
        return Ok(Clause::Data(kind, var()?));
    }
    Ok(match clause {
        C::Attach => Clause::Attach(var()?),
        C::Detach => Clause::Detach(var()?),
        C::Device => Clause::Update { to_device: true, var: var()? },
        // `self(c)` on a compute construct: one i64 condition (a *var* has five operands).
        C::Self_ if args.len() == 1 => Clause::SelfCond(args[0]),
        C::Self_ | C::Host => Clause::Update { to_device: false, var: var()? },
        // A copy of a section of several dimensions holds its whole rows (`p[0:n][0:m]` of
        // `double (*p)[M]`: n rows of M): a superset of the section, as private storage may
        // be, filled from whole rows (inside the host's array) for firstprivate.
        C::Private | C::FirstPrivate => {
            let v = var()?;
            let v = Var { dims: Vec::new(), ..v };
            if clause == C::Private { Clause::Private(v) } else { Clause::FirstPrivate(v) }
        }
        C::Reduction => return reduction(call, args, loc).map(Clause::Reduction),
        C::NumGangs => Clause::NumGangs(args.iter().map(|v| launch_size(loc, name, *v)).collect::<Result<_>>()?),
        C::NumWorkers => Clause::NumWorkers(launch_size(loc, name, args[0])?),
        C::VectorLength => Clause::VectorLength(launch_size(loc, name, args[0])?),
        C::If => Clause::If(args[0]),
        C::Default => Clause::Default(args[0].const_string().unwrap_or_default()),
        C::Gang => Clause::Gang,
        C::GangNum => match args[0].const_int_value() {
            Some(n) if n <= 0 => return Err(AccError::user(loc, format!("gang(num: {n}): the value must be positive"))),
            _ => Clause::GangNum(args[0]),
        },
        // A chunk size known only at run time is checked where the loop starts (partition.rs).
        C::GangStatic => match args[0].const_int_value() {
            Some(-1) => Clause::GangStatic(None),
            Some(s) if s >= 1 => Clause::GangStatic(Some(args[0])),
            Some(s) => return Err(AccError::user(loc, format!("gang(static: {s}): the chunk size must be positive (or '*')"))),
            None => Clause::GangStatic(Some(args[0])),
        },
        C::GangDim => match args[0].const_int_value() {
            Some(d @ 1..=3) => Clause::GangDim(d as u8),
            _ => return Err(AccError::user(loc, "gang(dim:) takes the constant 1, 2 or 3")),
        },
        // The size of a loop's workers or vector sizes a `kernels` loop's kernel (kernels.rs).
        C::Worker | C::Vector if !args.is_empty() => {
            let v = launch_size(loc, name, args[0])?;
            if clause == C::Worker { Clause::Worker(Some(v)) } else { Clause::Vector(Some(v)) }
        }
        C::Worker => Clause::Worker(None),
        C::Vector => Clause::Vector(None),
        C::Seq => Clause::Seq,
        C::Independent => Clause::Independent,
        C::Auto => Clause::Auto,
        C::Finalize => Clause::Finalize,
        C::IfPresent => Clause::IfPresent,
        C::UseDevice => Clause::UseDevice(var()?),
        C::Link => Clause::Link(var()?),
        C::Async => match args.first() {
            Some(v) => Clause::Async(async_argument(loc, name, *v)?),
            None => Clause::Async(call.context().i64().const_int(ASYNC_NOVAL as u64)),
        },
        C::Wait => Clause::Wait(None, args.iter().map(|v| async_argument(loc, name, *v)).collect::<Result<_>>()?),
        C::WaitDevnum => match args.split_first() {
            Some((dev, queues)) if !queues.is_empty() => {
                if let Some(n) = dev.const_int_value().filter(|n| *n < 0) {
                    return Err(AccError::user(loc, format!("wait(devnum: {n}): not a valid device number")));
                }
                Clause::Wait(Some(*dev), queues.iter().map(|v| async_argument(loc, "wait", *v)).collect::<Result<_>>()?)
            }
            _ => return Err(AccError::user(loc, "wait(devnum: ...) needs a device number and at least one queue")),
        },
        C::DeviceType => Clause::DeviceType(
            args.iter()
                .map(|a| {
                    let n = a.const_string().unwrap_or_default();
                    device_type_code(&n).ok_or_else(|| {
                        AccError::user(loc, format!("unknown device type '{n}' in '{name}' (accc knows nvidia, host, multicore, not_host, default and *)"))
                    })
                })
                .collect::<Result<_>>()?,
        ),
        C::DeviceNum => Clause::DeviceNum(args[0]),
        C::Bind => Clause::Bind(args[0].const_string().unwrap_or_default()),
        C::NoHost => Clause::NoHost,
        C::RoutineFunction => Clause::RoutineFunction(args[0]),
        C::Implicit => Clause::Implicit,
        C::ImplicitSeq => Clause::ImplicitSeq {
            line: args[0].const_int_value().unwrap_or(0).max(0) as u32,
            col: args[1].const_int_value().unwrap_or(0).max(0) as u32,
            reason: args[2].const_string().unwrap_or_default(),
        },
        C::Cache | C::CacheReadonly => Clause::Cache { var: read_section(args), readonly: clause == C::CacheReadonly },
        C::DefaultAsync => Clause::DefaultAsync(async_argument(loc, name, args[0])?),
        C::Collapse => match args[0].const_int_value() {
            Some(c) if c >= 1 => Clause::Collapse(c as u32),
            _ => return Err(malformed(call, &format!("clause '{name}' takes a positive constant"))),
        },
        C::Tile => Clause::Tile(TilePart::Tiles, tile_sizes(args)),
        C::TileElement => Clause::Tile(TilePart::Elements, tile_sizes(args)),
        // Marked supported in the table, but the pass has no reading of it: still an error.
        _ => return Err(AccError::unsupported(loc, format!("'{name}'"))),
    })
}

/// A *var* operand (`args` after the clause name): its range, its text, and its trailing
/// dimensions, which must be whole for the range to be contiguous (sections.rs decides;
/// those only known at run time are left in `dims` for the run-time check) unless their rows
/// are pointers (`rows`, where `rows_allowed`: a data clause or `update`).
fn read_var<'ctx>(args: &[Value<'ctx>], clause: &str, loc: &Loc, rows_allowed: bool) -> Result<Var<'ctx>> {
    let text = args[4].const_string().unwrap_or_else(|| "?".into());
    reject_runtime_sized_rows(&args[5..], clause, &text, loc)?;
    let mut dims = Vec::new();
    let mut rows = Vec::new();
    for (k, t) in args[5..].chunks(3).enumerate() {
        let dim = Dim { number: k as u32 + 2, lower: t[0], length: t[1], extent: t[2] };
        let known = |v: Value<'ctx>| v.const_int_value();
        match crate::sections::contiguity(known(dim.lower), known(dim.length), known(dim.extent)) {
            crate::sections::Contiguity::Whole => {}
            crate::sections::Contiguity::Unknown => dims.push(dim),
            crate::sections::Contiguity::PointerRows { elem_size } if rows_allowed => {
                rows.push(RowLevel { lower: dim.lower, length: dim.length, elem_size: elem_size as u64 })
            }
            crate::sections::Contiguity::PointerRows { .. } => return Err(rows_error(clause, &text, loc)),
            crate::sections::Contiguity::Apart { lower, length, extent } => {
                return Err(AccError::user(loc, crate::sections::apart_message(clause, &text, dim.number, lower, length, extent)))
            }
        }
    }
    Ok(Var { base: args[0], lower: args[1], length: args[2], elem_size: args[3], text, dims, rows })
}

/// Why a clause that maps no data takes no section through pointer rows: `deviceptr`,
/// `attach`, `detach` and `link` name pointers or globals themselves (OpenACC 3.3 §2.7.5,
/// §2.7.13-14, §2.13.3: the elements of `p[0:n][0:m]` are the rows' elements); private
/// copies of such a section are not made yet.
fn rows_error(clause: &str, text: &str, loc: &Loc) -> AccError {
    match clause {
        "deviceptr" | "attach" | "detach" => AccError::user(
            loc,
            format!("'{text}' in a '{clause}' clause: its items must be pointers (OpenACC 3.3), and this section names the elements of the rows; name the row pointers instead ('{clause}' of a section of them, or of the pointer variable)"),
        ),
        "link" => AccError::user(loc, format!("'{text}' in a 'link' clause: a 'declare link' names global variables (or sections of global arrays), not the data their pointers reach")),
        _ => AccError::unsupported(loc, crate::sections::pointer_rows_message(clause, text)),
    }
}

/// The items of a `cache` directive read afresh from its clause calls (their operands as they
/// are now: SROA replaces the values the first reading saw), each with its `readonly`.
pub fn cache_items<'ctx>(d: &Directive<'ctx>) -> Vec<(Var<'ctx>, bool)> {
    d.clause_calls
        .iter()
        .map(|c| {
            let args: Vec<Value> = (2..c.call_arg_count()).map(|i| c.call_arg(i)).collect();
            let readonly = c.call_arg(1).const_string().is_some_and(|n| n == acc::Clause::CacheReadonly.name());
            (read_section(&args), readonly)
        })
        .collect()
}

/// A `cache` item: every dimension after the first as written, whole or not (the cache
/// keeps a rectangle of elements, not a contiguous range).
fn read_section<'ctx>(args: &[Value<'ctx>]) -> Var<'ctx> {
    let text = args[4].const_string().unwrap_or_else(|| "?".into());
    let dims = args[5..]
        .chunks(3)
        .enumerate()
        .map(|(k, t)| Dim { number: k as u32 + 2, lower: t[0], length: t[1], extent: t[2] })
        .collect();
    Var { base: args[0], lower: args[1], length: args[2], elem_size: args[3], text, dims, rows: Vec::new() }
}

/// A `reduction` item: the operator and type must be ones OpenACC defines together (clang
/// checks C source; this catches hand-written contract IR and types accc cannot reduce).
fn reduction<'ctx>(call: Value<'ctx>, args: &[Value<'ctx>], loc: &Loc) -> Result<Reduction<'ctx>> {
    let symbol = args[0].const_string().unwrap_or_default();
    let op = acc::ReductionOp::from_symbol(&symbol).ok_or_else(|| malformed(call, &format!("unknown reduction operator '{symbol}'")))?;
    let text = args[6].const_string().unwrap_or_else(|| "?".into());
    let ty = match args[1].const_int_value().and_then(acc::ReductionType::from_code) {
        Some(t) => t,
        None if args[1].const_int_value().is_some() => {
            // OpenACC 3.3 §2.5.15 reduces arithmetic scalars (Clang rejects structs and
            // pointers in C); `long double` is arithmetic, but the GPU has no arithmetic for it.
            return Err(AccError::user(
                loc,
                format!("reduction on '{text}': a reduction variable must be an integer, _Bool, float, double or complex variable ('long double' cannot be used in a compute region: the GPU has no arithmetic for it; use 'double')"),
            ))
        }
        None => return Err(malformed(call, "the reduction type must be a constant")),
    };
    if !ty.allows(op) {
        return Err(AccError::user(loc, format!("reduction operator '{}' is not defined on '{}' ('{text}')", op.symbol(), ty.c_name())));
    }
    // Trailing dimensions as written (`m[0:8][0:4]`): whole ones are dropped (the rows are
    // the elements), a part of each row stays in `dims` (reduced with atomics); rows that
    // are pointers (`p[0:n][0:m]` of `double **p`) become `rows` (mapped row by row, reduced
    // with atomics).
    // Rows that are pointers to arrays (`q[0:n][0:m][2:3]` of `double (**q)[8]`): the
    // dimensions after the rows are folded into them (`rows_of_arrays`).
    let mut var = read_section(&args[2..]);
    reject_runtime_sized_rows(&args[7..], "reduction", &var.text, loc)?;
    let known = |v: Value<'ctx>| v.const_int_value();
    let mut dims = Vec::new();
    let mut after_rows = Vec::new();
    for d in std::mem::take(&mut var.dims) {
        match crate::sections::contiguity(known(d.lower), known(d.length), known(d.extent)) {
            crate::sections::Contiguity::Whole if var.rows.is_empty() => {}
            crate::sections::Contiguity::PointerRows { elem_size } if dims.is_empty() && after_rows.is_empty() => {
                var.rows.push(RowLevel { lower: d.lower, length: d.length, elem_size: elem_size as u64 })
            }
            _ if !var.rows.is_empty() => after_rows.push(d),
            _ => dims.push(d),
        }
    }
    var.dims = dims;
    if !after_rows.is_empty() {
        rows_of_arrays(call, &mut var, after_rows, ty.size()).map_err(|why| AccError::unsupported(loc, format!("the reduction '{}' whose rows are pointers to arrays {why}", var.text)))?;
    }
    Ok(Reduction { op, ty, var })
}

/// Sections through rows that point to arrays of run-time size (`dims`: the trailing
/// dimensions' operands, three each) are "not supported yet": the row pointers' targets
/// have no constant size to map or privatise them by.
fn reject_runtime_sized_rows(dims: &[Value<'_>], clause: &str, text: &str, loc: &Loc) -> Result<()> {
    if dims.chunks(3).any(|t| t.len() == 3 && crate::sections::runtime_sized_pointer_rows(t[2])) {
        return Err(AccError::unsupported(loc, crate::sections::runtime_sized_rows_message(clause, text)));
    }
    Ok(())
}

/// A reduction through rows that are pointers to arrays (`double (**q)[8]`): the last level's
/// rows become rows of the arrays' elements (`q[i][lo:m]` of arrays of 8 is elements
/// `[8 lo : 8 m]` of the row, the same bytes), computed before the clause call `call`; a
/// part of the arrays (`q[0:n][0:m][2:3]`) stays in `dims`, every array dimension as a part
/// of the folded row's `m` arrays (reduction.rs `ViewShape::Rows`). Err (why) when an array
/// dimension's extent is not a constant, or the arrays are not of the reduced elements.
fn rows_of_arrays<'ctx>(call: Value<'ctx>, var: &mut Var<'ctx>, after: Vec<Dim<'ctx>>, elem_bytes: u64) -> std::result::Result<(), &'static str> {
    let extents: Vec<u64> = after.iter().map(|d| d.extent.const_int_value().and_then(|e| u64::try_from(e).ok()).filter(|e| *e > 0)).collect::<Option<_>>().ok_or("of run-time size")?;
    let per_array: u64 = extents.iter().product();
    let last = var.rows.last_mut().expect("dimensions after rows follow a row level");
    if last.elem_size != per_array * elem_bytes {
        return Err("whose elements are not the reduced type");
    }
    let b = call.context().builder();
    b.position_before(call);
    let i64t = call.context().i64();
    let times = |v: Value<'ctx>| b.binop(crate::ir::Opcode::LLVMMul, b.sext_or_trunc(v, i64t), i64t.const_int(per_array));
    (last.lower, last.length, last.elem_size) = (times(last.lower), times(last.length), elem_bytes);
    let whole = |d: &Dim<'ctx>| matches!(crate::sections::contiguity(d.lower.const_int_value(), d.length.const_int_value(), d.extent.const_int_value()), crate::sections::Contiguity::Whole);
    if !after.iter().all(whole) {
        var.dims = after;
    }
    Ok(())
}

/// Regions nest properly, and compute regions do not nest; loops live inside compute regions.
/// `outer`'s region contains `inner`'s: entering inner means having entered outer, and
/// leaving inner still has outer's end ahead.
pub fn encloses<'ctx>(cfg: &FunctionCfg<'ctx>, outer: (Value<'ctx>, Value<'ctx>), inner: (Value<'ctx>, Value<'ctx>)) -> bool {
    outer.0 != inner.0 && cfg.dominates_inst(outer.0, inner.0) && cfg.post_dominates_inst(outer.1, inner.1)
}

/// A `loop` directive outside every compute region must be in a function with a `routine`
/// directive (`routines`), whose callers' launch partitions it (routine.rs).
pub fn check_orphaned_loops<'ctx>(ds: &[Directive<'ctx>], routines: &[Value<'ctx>]) -> Result<()> {
    let mut cfgs: std::collections::HashMap<Value<'ctx>, FunctionCfg<'ctx>> = std::collections::HashMap::new();
    for d in ds.iter().filter(|d| d.kind == DirectiveKind::Loop && !routines.contains(&d.function)) {
        let cfg = cfgs.entry(d.function).or_insert_with(|| FunctionCfg::new(d.function));
        let inside = ds.iter().any(|o| o.kind.is_compute() && o.function == d.function && encloses(cfg, (o.begin, o.end), (d.begin, d.end)));
        if !inside {
            return Err(AccError::user(
                &d.loc,
                format!("OpenACC 'loop' outside a compute region must be in a function with a 'routine' directive ('{}' has none)", d.function.name()),
            ));
        }
    }
    Ok(())
}

fn verify_nesting<'ctx>(ds: &[Directive<'ctx>], cfg: &FunctionCfg<'ctx>, _in_kernel: bool) -> Result<()> {
    let inside = |inner: &Directive<'ctx>, outer: &Directive<'ctx>| encloses(cfg, (outer.begin, outer.end), (inner.begin, inner.end));
    for d in ds {
        let enclosing_compute = ds.iter().find(|o| o.kind.is_compute() && inside(d, o));
        match d.kind {
            DirectiveKind::Compute { .. } if enclosing_compute.is_some() => {
                return Err(AccError::user(&d.loc, format!("OpenACC '{}' cannot be nested inside a compute region", d.name)))
            }
            DirectiveKind::Data | DirectiveKind::EnterData | DirectiveKind::ExitData | DirectiveKind::Update | DirectiveKind::HostData
            | DirectiveKind::Declare | DirectiveKind::Wait | DirectiveKind::Init | DirectiveKind::Shutdown | DirectiveKind::Set
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
pub fn erase_markers<'ctx>(m: Module<'ctx>) {
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
pub fn erase_clause_calls<'ctx>(d: &Directive<'ctx>) {
    for c in &d.clause_calls {
        c.erase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copying_exits_go_last() {
        use DataKind::*;
        assert_eq!(exit_order(&[CopyIn, CreateZero, CopyOut]), vec![1, 0, 2]);
        assert_eq!(exit_order(&[Copy, Create, Present]), vec![2, 1, 0]);
        assert_eq!(exit_order(&[Create, Copy, CopyOutZero, Present]), vec![3, 0, 2, 1]);
        assert_eq!(exit_order(&[]), Vec::<usize>::new());
    }

    #[test]
    fn the_pass_lowers_exactly_the_directives_the_table_supports() {
        for d in acc::DIRECTIVES {
            assert_eq!(DirectiveKind::of(d.directive).is_some(), d.supported && !d.rewritten, "'{}'", d.name);
        }
    }

    #[test]
    fn zero_kinds_are_their_clause_with_the_zero_flag() {
        assert_eq!(DataKind::CreateZero as u64, DataKind::Create as u64 | crate::rt::ZERO);
        assert_eq!(DataKind::CopyOutZero as u64, DataKind::CopyOut as u64 | crate::rt::ZERO);
        assert_eq!(data_kind(acc::Clause::CreateZero), Some(DataKind::CreateZero));
        assert_eq!(data_kind(acc::Clause::Attach), None, "attach is not a data movement");
    }

    #[test]
    fn async_arguments() {
        for n in [0, 1, i64::from(i32::MAX), ASYNC_NOVAL, ASYNC_SYNC, -3] {
            assert!(valid_async_argument(n), "{n}");
        }
        for n in [-4, -100, i64::from(i32::MAX) + 1, i64::MIN] {
            assert!(!valid_async_argument(n), "{n}");
        }
    }

    #[test]
    fn supported_clauses_have_operands_the_pass_checks() {
        // `lower_clause` needs IR values; here: each supported clause has an operand shape
        // `has_operands` checks (not one it waves through for unsupported clauses).
        for c in acc::CLAUSES.iter().filter(|c| c.supported) {
            assert!(!operands_wanted(c.operands).contains("docs/ir-contract.md"), "'{}'", c.name);
        }
    }
}
