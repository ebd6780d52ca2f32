//! The `cache` directive (OpenACC 3.3 §2.10): the sections it names are kept in shared
//! memory for each window of the vector loop around it (the fcw paper's tile caching,
//! shared/seeds/software-managed-cache-fcw-openacc.txt, its FETCH_ONLY kind: no channel
//! between iterations, no write-back).
//!
//! Expects: a kernel after `partition` and `privatize` (before `guard`), its `cache`
//! directives still marked, each
//! vector-partitioned loop described by its `Window` (the normalised index `k`, the trip
//! count, header, latch, exit).
//!
//! Produces, for a `cache` directive at the top of the body of a vector loop: the loop runs
//! in windows of P x C consecutive iterations, C the threads sharing a window and P the
//! iterations each runs per window (`iterations_per_thread`: up to 8, as the tiles' shared
//! memory allows; a loop spread over the gangs then needs P times fewer gangs, which the
//! launch takes from `Applied::gang_loops`), every thread running every window (a thread
//! past the end skips the body but not the barriers). A loop spread over all the threads of
//! a block (a `gang vector` loop, or a `vector` loop with no worker loop around it) has
//! windows of the block's threads, one tile and block barriers; a vector loop inside a
//! worker loop has windows of each worker's lanes, a tile per worker (16, indexed by the
//! worker id) and worker barriers, and the kernel is flagged for worker syncs (the runtime
//! then gives workers one warp each). Per window and item, a shared-memory tile receives the
//! union of the window's sections, `a[lo(i0) : P*C + len - 1]` for `a[i+d : len]` (each
//! leading dimension of `a[j-1:3][i-1:3]` a constant number of rows), loaded cooperatively
//! after a barrier (thread t loads columns t, t + C, ... of each row, several loads in
//! flight per round: `fill_round`; only the columns of iterations that exist), then a
//! barrier; the body's loads of the section's elements read the tile, thread t's round j
//! at column j*C + t. Why P (measured on bench/stencil_cache.c): with one iteration per
//! thread and window, the halo, the barriers and the fill's latency cost more than the
//! shared memory saves, and the radius-8 stencil ran slower cached than not.
//!
//! A load is redirected when its address is, symbolically, the section's start plus a
//! constant inside the section (linear forms over the IR's values, `linear`), or, in a
//! one-dimensional section, plus an offset that varies
//! (`a[i + r]` in a loop over r: tested at run time, the tile when inside); any other load
//! of the array stays a global load, which is always correct.
//!
//! What it deliberately does not do (each a line of the compile report, the item then kept
//! in global memory): sections whose start in the last dimension is not the loop index plus
//! a loop-invariant value (unit stride), lengths or extents that are not constants,
//! dimensions other than the last that vary in the loop, `gang(static:)` and `collapse`, a
//! directive inside a sequential loop, tiles over `SHARED_BUDGET`, and an item the loop body
//! writes or may write (a store through the same pointer, a call) unless `readonly:` says
//! it does not. Stores through another pointer are taken not to reach the cached array
//! within the same iteration (a different element would be a race between iterations of an
//! independent loop); README "What is supported" says so. Index arithmetic is taken not to
//! wrap (signed overflow is undefined in C; a wrapped unsigned index is outside any array
//! under 2^32 elements).

use crate::cfg::FunctionCfg;
use crate::contract::{Directive, Var};
use crate::devrt::{self, Scope};
use crate::error::Loc;
use crate::ir::{clone_instruction, Block, Builder, IntPred, Module, Opcode, Type, Value};
use crate::partition::Window;
use std::collections::{HashMap, HashSet};

/// Shared memory the tiles of one kernel may take at most (less what its private arrays
/// take: `Limits::shared_bytes`; a block has 48 KiB of static shared memory).
pub const SHARED_BUDGET: u64 = 32 * 1024;

/// What the kernel leaves the tiles.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most threads a block of the kernel has.
    pub threads: u64,
    /// Shared memory the private arrays leave (privatize.rs' limit less theirs).
    pub shared_bytes: u64,
    /// false (`ACCC_DEBUG_NO_SYNC`): the barriers are left out, so that
    /// scripts/emulator-selfcheck can show the e2e test sees them missing.
    pub sync: bool,
}

/// The most threads a block can have: the tile width when the launch size is not a constant.
pub const MAX_BLOCK_THREADS: u64 = 1024;

/// Tiles of a vector loop inside a worker loop: one per worker, of one warp's lanes (the
/// runtime launches a kernel that syncs workers with vector length 32 and at most 15
/// workers, launch.rs `adjust_for_kernel`).
pub const WORKER_COPIES: u64 = 16;
pub const WORKER_LANES: u64 = 32;

/// Who shares a window's tile, and the barrier they meet at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Every thread of the block runs the loop's window (a `gang vector` loop, or a vector
    /// loop with no worker loop around it): one tile, block barriers.
    Block,
    /// The lanes of each worker run a window of their own (a vector loop inside a worker
    /// loop): a tile per worker, worker (warp) barriers.
    Worker,
}

/// What the compile report says about one item of a `cache` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub loc: Loc,
    pub item: String,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// In shared memory: `rows` x `width` elements of `elem_bytes`, read by `loads` loads,
    /// and by `checked` more when their index falls inside the section (tested at run time).
    /// `copies`: 1 for a tile of the block, `WORKER_COPIES` for one per worker;
    /// `per_thread`: the iterations each thread runs per window (`iterations_per_thread`).
    Shared { rows: u64, width: u64, elem_bytes: u64, copies: u64, per_thread: u64, loads: usize, checked: usize },
    /// Kept in global memory, and why.
    Global(String),
}

impl Note {
    /// The report's line.
    pub fn text(&self) -> String {
        match &self.outcome {
            Outcome::Shared { rows, width, elem_bytes, copies, per_thread, loads, checked } => {
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                let mut readers = Vec::new();
                if *loads > 0 {
                    readers.push(format!("{loads} load{} of the body", plural(*loads)));
                }
                if *checked > 0 {
                    readers.push(format!("{checked} load{} where its index falls inside the section (checked at run time)", plural(*checked)));
                }
                let per = if *copies > 1 { format!(", a copy per worker ({copies} copies)") } else { String::new() };
                format!(
                    "Caching {} in shared memory: {rows} x {width} elements of {elem_bytes} bytes ({} bytes{per}) per window of the vector loop ({per_thread} iteration{} per thread), read by {}",
                    self.item,
                    rows * width * elem_bytes * copies,
                    plural(*per_thread as usize),
                    readers.join(" and ")
                )
            }
            Outcome::Global(why) => format!("Not caching {} (kept in global memory): {why}", self.item),
        }
    }
}

/// A linear form `constant + sum(coefficient * leaf)` over IR values: what an index or a
/// byte offset is, seen through additions, multiplications by constants, shifts by
/// constants, integer extensions and truncations (no wrap: module doc) and GEPs.
#[derive(Clone, Debug, PartialEq)]
pub struct Linear<T> {
    pub terms: Vec<(T, i64)>,
    pub constant: i64,
}

impl<T: Copy> Linear<T> {
    fn zero() -> Self {
        Linear { terms: Vec::new(), constant: 0 }
    }
    fn constant(c: i64) -> Self {
        Linear { terms: Vec::new(), constant: c }
    }
    fn leaf(v: T) -> Self {
        Linear { terms: vec![(v, 1)], constant: 0 }
    }
    /// `self + sign * other`, terms merged when `same` says two leaves are one value.
    pub fn plus(&self, other: &Self, sign: i64, same: &dyn Fn(T, T) -> bool) -> Self {
        let mut out = self.clone();
        out.constant = out.constant.wrapping_add(sign.wrapping_mul(other.constant));
        for &(v, c) in &other.terms {
            match out.terms.iter_mut().find(|(w, _)| same(*w, v)) {
                Some(t) => t.1 = t.1.wrapping_add(sign.wrapping_mul(c)),
                None => out.terms.push((v, sign.wrapping_mul(c))),
            }
        }
        out.terms.retain(|(_, c)| *c != 0);
        out
    }
    pub fn scaled(&self, by: i64) -> Self {
        let mut out = Linear { terms: self.terms.iter().map(|&(v, c)| (v, c.wrapping_mul(by))).collect(), constant: self.constant.wrapping_mul(by) };
        out.terms.retain(|(_, c)| *c != 0);
        out
    }
    /// The value when there is no leaf.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
}

/// Where, in element offsets from a section's start (`q`), an element lies in each
/// dimension of the section: `q = sum(o[d] * strides[d])` with `0 <= o[d] < lens[d]`, or
/// None when it lies outside. `strides` are the array's (the last 1), each dimension's
/// length at most the next stride up (checked by `geometry`), so the answer is unique.
pub fn tile_coords(q: i64, strides: &[i64], lens: &[i64]) -> Option<Vec<i64>> {
    let mut rest = q;
    let mut out = Vec::with_capacity(strides.len());
    for (d, (&s, &len)) in strides.iter().zip(lens).enumerate() {
        let o = if d + 1 == strides.len() { rest } else { rest.div_euclid(s) };
        if !(0..len).contains(&o) {
            return None;
        }
        rest -= o * s;
        out.push(o);
    }
    Some(out)
}

/// The strides (elements) of a section's dimensions from the extents of its rows
/// (`extents[d]` for dimension d + 2), or why the tile cannot be laid out.
pub fn geometry(lens: &[Option<i64>], extents: &[Option<i64>]) -> Result<(Vec<i64>, Vec<i64>), String> {
    let mut lengths = Vec::new();
    for (d, l) in lens.iter().enumerate() {
        match l {
            Some(n) if *n > 0 => lengths.push(*n),
            Some(n) => return Err(format!("dimension {} has length {n}", d + 1)),
            None => return Err(format!("the length of dimension {} is not a constant", d + 1)),
        }
    }
    let mut strides = vec![1i64; lengths.len()];
    for d in (0..lengths.len().saturating_sub(1)).rev() {
        let extent = match extents[d] {
            Some(e) if e > 0 => e,
            Some(_) => return Err("its rows are pointers, not arrays".into()),
            None => return Err(format!("the rows of dimension {} have no constant extent (a variable-length array)", d + 2)),
        };
        if lengths[d + 1] > extent {
            return Err(format!("dimension {} takes {} elements of rows of {extent}", d + 2, lengths[d + 1]));
        }
        strides[d] = strides[d + 1] * extent;
    }
    Ok((strides, lengths))
}

/// Elements of a tile row for a window of `iterations` consecutive iterations whose sections
/// take `len` elements of the last dimension each: each row holds the union of the window's.
pub fn tile_width(iterations: u64, len: u64) -> u64 {
    iterations + len - 1
}

/// Shared memory a window's tiles may take per thread sharing them, so that a block still
/// has an SM's full complement of threads resident (228 KiB of shared memory for 2048
/// threads on sm_90: about 111 bytes a thread).
pub const TILE_BYTES_PER_THREAD: u64 = 96;

/// How many iterations of the vector loop each thread runs per window, given the bytes of
/// the window's tiles for a choice (`tile_bytes`), the threads that share them and the
/// shared memory left: the most of 8, 4, 2 whose tiles fit both the budget and
/// `TILE_BYTES_PER_THREAD`, else 1. More iterations per window mean fewer fills of the
/// halo and a fill with several independent loads per thread in flight: measured on an
/// H200 for the radius-8 stencil (CUDA, 256 threads), 1.69 TB/s at 1, 2.26 at 2, 2.71 at 4
/// and 2.89 at 8, against 1.64 for global loads.
pub fn iterations_per_thread(tile_bytes: impl Fn(u64) -> u64, threads: u64, budget: u64) -> u64 {
    [8, 4, 2].into_iter().find(|&k| tile_bytes(k) <= budget.min(TILE_BYTES_PER_THREAD * threads)).unwrap_or(1)
}

type Form<'ctx> = Linear<Value<'ctx>>;

/// Two leaves compute the same value: the same IR value, or the same pure operation on the
/// same operands (clang computes `j*n` afresh for every use).
fn same<'ctx>(a: Value<'ctx>, b: Value<'ctx>) -> bool {
    same_at(a, b, 0)
}

fn same_at<'ctx>(a: Value<'ctx>, b: Value<'ctx>, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth > 8 || !a.is_instruction() || !b.is_instruction() || a.opcode() != b.opcode() || a.ty() != b.ty() || !a.opcode().is_some_and(is_pure) {
        return false;
    }
    let (x, y) = (a.operands(), b.operands());
    x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same_at(*p, *q, depth + 1))
}

/// Operations whose value depends only on their operands and that cannot trap.
fn is_pure(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMAnd | LLVMOr | LLVMXor | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMICmp | LLVMSelect | LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast)
}

/// The linear form of an integer value.
fn linear<'ctx>(v: Value<'ctx>) -> Form<'ctx> {
    linear_at(v, 0)
}

fn linear_at<'ctx>(v: Value<'ctx>, depth: u32) -> Form<'ctx> {
    if let Some(c) = v.const_int_value() {
        return Linear::constant(c);
    }
    if depth > 24 {
        return Linear::leaf(v);
    }
    let sub = |i: u32| linear_at(v.operand(i), depth + 1);
    match v.opcode() {
        Some(Opcode::LLVMAdd) => sub(0).plus(&sub(1), 1, &same),
        Some(Opcode::LLVMSub) => sub(0).plus(&sub(1), -1, &same),
        Some(Opcode::LLVMMul) => match (v.operand(0).const_int_value(), v.operand(1).const_int_value()) {
            (_, Some(c)) => sub(0).scaled(c),
            (Some(c), _) => sub(1).scaled(c),
            _ => Linear::leaf(v),
        },
        Some(Opcode::LLVMShl) => match v.operand(1).const_int_value() {
            Some(c @ 0..=32) => sub(0).scaled(1i64 << c),
            _ => Linear::leaf(v),
        },
        Some(Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc) => sub(0),
        _ => Linear::leaf(v),
    }
}

/// A pointer as its root (what no GEP or cast computes) and its byte offset from it.
fn address<'ctx>(m: Module<'ctx>, p: Value<'ctx>) -> (Value<'ctx>, Form<'ctx>) {
    let mut off = Form::zero();
    let mut p = p;
    for _ in 0..32 {
        match p.opcode() {
            Some(Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) => p = p.operand(0),
            Some(Opcode::LLVMGetElementPtr) => match gep_offset(m, p) {
                Some(o) => {
                    off = off.plus(&o, 1, &same);
                    p = p.operand(0);
                }
                None => break,
            },
            _ => break,
        }
    }
    (p, off)
}

/// A GEP's byte offset from its pointer operand: its indices times the sizes of the types
/// they step over, a struct's field by its offset (None through a vector).
fn gep_offset<'ctx>(m: Module<'ctx>, g: Value<'ctx>) -> Option<Form<'ctx>> {
    let mut ty: Type = g.gep_source_type();
    let mut off = Form::zero();
    for (k, idx) in g.operands().into_iter().enumerate().skip(1) {
        if k > 1 {
            match ty.kind() {
                crate::ir::TypeKind::LLVMArrayTypeKind => ty = *ty.contained_types().first()?,
                crate::ir::TypeKind::LLVMStructTypeKind => {
                    let field = u32::try_from(idx.const_int_value()?).ok()?;
                    off = off.plus(&Linear::constant(ty.field_offset(m, field)? as i64), 1, &same);
                    ty = *ty.contained_types().get(field as usize)?;
                    continue;
                }
                _ => return None,
            }
        }
        let size = ty.store_size(m) as i64;
        off = off.plus(&linear(idx).scaled(size), 1, &same);
    }
    Some(off)
}

/// What `apply` did to a kernel.
pub struct Applied<'ctx> {
    /// Per item, the compile report's note.
    pub notes: Vec<Note>,
    /// A tile is per worker (the kernel then syncs workers: `KernelPlan::worker_sync`).
    pub per_worker: bool,
    /// The trip count (`Window::total`) of each rewritten loop spread over the gangs and
    /// the iterations its threads run per window: the launch needs that many fewer gangs.
    pub gang_loops: Vec<(Value<'ctx>, u64)>,
}

/// The kernel's `cache` directives rewritten (or reported), their markers erased.
pub fn apply<'ctx>(m: Module<'ctx>, kernel: Value<'ctx>, caches: &[Directive<'ctx>], windows: &[Window<'ctx>], limits: Limits) -> Applied<'ctx> {
    // Which window each directive caches in, decided before any rewrite; the directives of
    // one window are rewritten together (a rewrite replaces the window's index phi).
    let found: Vec<Result<(usize, Sharing), String>> = {
        let cfg = FunctionCfg::new(kernel);
        caches.iter().map(|d| enclosing_window(&cfg, d, windows)).collect()
    };
    let mut notes: Vec<Vec<Note>> = vec![Vec::new(); caches.len()];
    for ((d, f), n) in caches.iter().zip(&found).zip(&mut notes) {
        if let Err(why) = f {
            // Read afresh: the values the contract reader saw may be gone since SROA.
            *n = crate::contract::cache_items(d).iter().map(|(v, _)| Note { loc: d.loc.clone(), item: v.text.clone(), outcome: Outcome::Global(why.clone()) }).collect();
        }
    }
    let mut budget = SHARED_BUDGET.min(limits.shared_bytes);
    let mut per_worker = false;
    let mut gang_loops = Vec::new();
    let mut done = HashSet::new();
    for &(wi, sharing) in found.iter().flatten() {
        if !done.insert(wi) {
            continue;
        }
        let members: Vec<usize> = (0..caches.len()).filter(|i| found[*i].as_ref().is_ok_and(|f| f.0 == wi)).collect();
        let plans = plan_window(m, kernel, &windows[wi], sharing, caches, &members, limits, &mut budget, &mut notes);
        if let Some(per_thread) = plans.first().map(|p| p.per_thread) {
            per_worker |= sharing == Sharing::Worker;
            if windows[wi].levels.gang {
                gang_loops.push((windows[wi].total, per_thread as u64));
            }
            let cfg = FunctionCfg::new(kernel);
            rewrite_window(m, kernel, &windows[wi], &loop_blocks(&cfg, windows[wi].header), &plans, sharing, limits.sync, per_thread);
        }
    }
    for d in caches {
        for c in &d.clause_calls {
            c.erase();
        }
        d.begin.erase();
        d.end.erase();
    }
    Applied { notes: notes.into_iter().flatten().collect(), per_worker, gang_loops }
}

/// The plans of the items of directives `members` of `caches`, all at the top of window
/// `w`'s loop, within `budget` bytes of shared memory; each item's note goes to `notes`.
#[allow(clippy::too_many_arguments)]
fn plan_window<'ctx>(
    m: Module<'ctx>,
    kernel: Value<'ctx>,
    w: &Window<'ctx>,
    sharing: Sharing,
    caches: &[Directive<'ctx>],
    members: &[usize],
    limits: Limits,
    budget: &mut u64,
    notes: &mut [Vec<Note>],
) -> Vec<Plan<'ctx>> {
    let (lanes, copies) = match sharing {
        Sharing::Block => (limits.threads, 1),
        Sharing::Worker => (WORKER_LANES, WORKER_COPIES),
    };
    let cfg = FunctionCfg::new(kernel);
    let blocks = loop_blocks(&cfg, w.header);
    // Each item at one iteration per thread, within the budget in order; then the window's
    // iterations per thread for the items kept.
    let before = *budget;
    let mut plans = Vec::new();
    let mut outcomes = Vec::new();
    for &i in members {
        let d = &caches[i];
        for (var, readonly) in &crate::contract::cache_items(d) {
            let outcome = match plan_item(m, var, *readonly, w, &blocks, lanes, copies, &cfg) {
                Ok(p) if p.bytes() > *budget => Err(format!(
                    "its tile takes {} bytes of shared memory, over the {budget} left to tiles (at most {SHARED_BUDGET}, less the private arrays' shared memory)",
                    p.bytes()
                )),
                Ok(p) => {
                    *budget -= p.bytes();
                    plans.push(p);
                    Ok(plans.len() - 1)
                }
                Err(why) => Err(why),
            };
            outcomes.push((i, d.loc.clone(), var.text.clone(), outcome));
        }
    }
    // The threads of a block that share its tiles (a block has fewer workers than tiles).
    let sharers = match sharing {
        Sharing::Block => lanes,
        Sharing::Worker => limits.threads.min(lanes * copies),
    };
    let per_thread = iterations_per_thread(|k| plans.iter().map(|p| p.bytes_at(k as i64)).sum(), sharers, before) as i64;
    *budget = before - plans.iter().map(|p| p.bytes_at(per_thread)).sum::<u64>();
    for p in &mut plans {
        p.per_thread = per_thread;
    }
    for (i, loc, item, outcome) in outcomes {
        let outcome = match outcome {
            Ok(at) => {
                let p = &plans[at];
                Outcome::Shared {
                    rows: p.rows as u64,
                    width: p.width() as u64,
                    elem_bytes: p.elem_bytes as u64,
                    copies,
                    per_thread: per_thread as u64,
                    loads: p.loads.len(),
                    checked: p.checked.len(),
                }
            }
            Err(why) => Outcome::Global(why),
        };
        notes[i].push(Note { loc, item, outcome });
    }
    plans
}

/// The vector loop whose body the directive is at the top of (an index into `windows`) and
/// who shares its windows, or why there is none.
fn enclosing_window<'ctx>(cfg: &FunctionCfg<'ctx>, d: &Directive<'ctx>, windows: &[Window<'ctx>]) -> Result<(usize, Sharing), String> {
    let at = cfg.index[&d.begin.parent_block()];
    let innermost = cfg.loops().into_iter().filter(|l| l.body.contains(&at)).min_by_key(|l| l.body.len());
    let Some(l) = innermost else { return Err("the directive is not in a loop of the compute region".into()) };
    let header = cfg.blocks[l.header];
    let Some(wi) = windows.iter().position(|w| w.header == header) else {
        return Err("the loop around it is sequential: only a loop spread over vector lanes is cached".into());
    };
    let w = &windows[wi];
    if !w.levels.vector {
        return Err("the loop around it is not a vector loop".into());
    }
    if w.chunked {
        return Err("the loop has gang(static:) chunks, whose iterations are not contiguous per block".into());
    }
    if w.collapse > 1 {
        return Err("the loop is collapsed".into());
    }
    Ok((wi, if w.levels.worker { Sharing::Block } else { Sharing::Worker }))
}

fn loop_blocks<'ctx>(cfg: &FunctionCfg<'ctx>, header: Block<'ctx>) -> HashSet<Block<'ctx>> {
    let h = cfg.index[&header];
    cfg.loops().into_iter().find(|l| l.header == h).map(|l| l.body.iter().map(|&b| cfg.blocks[b]).collect()).unwrap_or_default()
}

/// One item to cache in a window.
struct Plan<'ctx> {
    name: String,
    /// What the section's base pointer is computed from (loop-invariant).
    root: Value<'ctx>,
    elem: Type<'ctx>,
    elem_bytes: i64,
    /// Start of the window's union, in bytes from `root`, as a form in which `k` stands for
    /// the window's first index.
    start: Form<'ctx>,
    strides: Vec<i64>,
    lens: Vec<i64>,
    /// Rows of the tile (the leading dimensions' lengths multiplied).
    rows: i64,
    /// Threads sharing a tile (the block's, or a worker's lanes), at most.
    lanes: i64,
    /// Iterations per thread and window (`iterations_per_thread`; 1 until chosen).
    per_thread: i64,
    /// Tiles (one per worker, or one).
    copies: i64,
    /// Loads of the body to redirect, with their tile row and their column less the
    /// iteration's.
    loads: Vec<(Value<'ctx>, i64, i64)>,
    /// Loads of a one-dimensional section at a varying offset from its start (`a[i + r]` in
    /// a loop over r), with that offset in elements: the tile when it is inside the section.
    checked: Vec<(Value<'ctx>, Form<'ctx>)>,
}

impl Plan<'_> {
    /// Elements of a tile row when each thread runs `per_thread` iterations per window:
    /// the union of the window's sections.
    fn width_at(&self, per_thread: i64) -> i64 {
        tile_width((self.lanes * per_thread) as u64, *self.lens.last().expect("a section has a dimension") as u64) as i64
    }
    fn bytes_at(&self, per_thread: i64) -> u64 {
        (self.rows * self.width_at(per_thread) * self.elem_bytes * self.copies) as u64
    }
    fn width(&self) -> i64 {
        self.width_at(self.per_thread)
    }
    fn bytes(&self) -> u64 {
        self.bytes_at(self.per_thread)
    }
}

/// Decides whether `var` can be cached in window `w` and how.
#[allow(clippy::too_many_arguments)]
fn plan_item<'ctx>(
    m: Module<'ctx>,
    var: &Var<'ctx>,
    readonly: bool,
    w: &Window<'ctx>,
    blocks: &HashSet<Block<'ctx>>,
    lanes: u64,
    copies: u64,
    cfg: &FunctionCfg<'ctx>,
) -> Result<Plan<'ctx>, String> {
    let body: Vec<Block> = blocks.iter().copied().filter(|b| *b != w.header).collect();
    let lens: Vec<Option<i64>> = std::iter::once(var.length).chain(var.dims.iter().map(|d| d.length)).map(|v| v.const_int_value()).collect();
    let extents: Vec<Option<i64>> = var.dims.iter().map(|d| d.extent.const_int_value()).collect();
    let (strides, lens) = geometry(&lens, &extents)?;
    // The contract's element size is the first dimension's (a whole row of `a[j][i]`).
    let elem_bytes = var.elem_size.const_int_value().ok_or("its element size is not a constant")? / strides[0];
    // The section's first byte from the root of its base pointer, which must not vary (the
    // base itself may: `a[i]` is `&a[i]`, 0, 1).
    let (root, base_off) = address(m, var.base);
    if !invariant(root, blocks, 0) {
        return Err("its base pointer is computed in the loop".into());
    }
    let k_in = |f: &Form<'ctx>| f.terms.iter().find(|(v, _)| same(*v, w.k)).map_or(0, |t| t.1);
    let lowers: Vec<Value> = std::iter::once(var.lower).chain(var.dims.iter().map(|d| d.lower)).collect();
    let mut section = base_off;
    for (d, lo) in lowers.iter().enumerate() {
        let f = linear(*lo);
        if d + 1 < lowers.len() && k_in(&f) != 0 {
            return Err(format!("the start of dimension {} varies in the loop (only the last dimension may follow the loop index)", d + 1));
        }
        section = section.plus(&f.scaled(strides[d] * elem_bytes), 1, &same);
    }
    // One element further per iteration: the loop index (unit stride) in the last dimension.
    match k_in(&section) {
        n if n == elem_bytes => {}
        0 => return Err("the start of its last dimension does not follow the loop index".into()),
        _ => return Err("the start of its last dimension is not the loop index plus a constant offset (unit stride)".into()),
    }
    if section.terms.iter().any(|(v, _)| !same(*v, w.k) && !invariant(*v, blocks, 0)) {
        return Err("the start of the section is not an affine function of the loop index".into());
    }
    // Writes: a store through the same root, or a call that may write anything.
    if !readonly {
        if let Some(why) = body.iter().flat_map(|b| b.instructions()).find_map(|i| writes(m, i, root)) {
            return Err(format!("{why}; only data the loop does not write is cached (add 'readonly:' if it does not)"));
        }
    }
    // The body's loads of the section's elements.
    let mut loads = Vec::new();
    let mut checked = Vec::new();
    let mut elem: Option<Type> = None;
    for i in body.iter().flat_map(|b| b.instructions()) {
        if i.opcode() != Some(Opcode::LLVMLoad) || i.ty().store_size(m) as i64 != elem_bytes {
            continue;
        }
        let (r, off) = address(m, i.operand(0));
        if r != root {
            continue;
        }
        if elem.is_some_and(|t| t != i.ty()) {
            continue;
        }
        let diff = off.plus(&section, -1, &same);
        let Some(q) = diff.as_constant() else {
            if let Some(f) = varying_offset(&diff, elem_bytes, lens.len(), w, i, cfg) {
                elem = Some(i.ty());
                checked.push((i, f));
            }
            continue;
        };
        if q % elem_bytes != 0 {
            continue;
        }
        let Some(o) = tile_coords(q / elem_bytes, &strides, &lens) else { continue };
        elem = Some(i.ty());
        loads.push((i, o));
    }
    let Some(elem) = elem else {
        return Err("no load of the loop body reads its elements at a constant offset from the section's start".into());
    };
    let last = lens.len() - 1;
    let rows: i64 = lens[..last].iter().product();
    // Tile row of each load (row-major over the leading dimensions) and its column less the
    // iteration's.
    let loads = loads
        .into_iter()
        .map(|(i, o)| {
            let row = o[..last].iter().zip(&lens[..last]).fold(0i64, |acc, (x, l)| acc * l + x);
            (i, row, o[last])
        })
        .collect();
    Ok(Plan { name: var.text.clone(), root, elem, elem_bytes, start: section, strides, lens, rows, lanes: lanes as i64, per_thread: 1, copies: copies as i64, loads, checked })
}

/// A load's byte offset from a one-dimensional section's start that varies (`a[i + r]`):
/// the offset in elements, when every leaf is an integer the load sees (it dominates the
/// load and the window's rewrite keeps it: not a header phi) and the form counts whole
/// elements.
fn varying_offset<'ctx>(diff: &Form<'ctx>, elem_bytes: i64, dims: usize, w: &Window<'ctx>, load: Value<'ctx>, cfg: &FunctionCfg<'ctx>) -> Option<Form<'ctx>> {
    if dims != 1 || diff.constant % elem_bytes != 0 || diff.terms.iter().any(|(_, c)| c % elem_bytes != 0) {
        return None;
    }
    let usable = |v: Value<'ctx>| {
        v.ty().is_int() && (!v.is_instruction() || (v.parent_block() != w.header && cfg.dominates_inst(v, load)))
    };
    diff.terms.iter().all(|(v, _)| usable(*v)).then(|| Linear {
        terms: diff.terms.iter().map(|&(v, c)| (v, c / elem_bytes)).collect(),
        constant: diff.constant / elem_bytes,
    })
}

/// Why instruction `i` may write memory reached from `root` (None: it does not).
fn writes<'ctx>(m: Module<'ctx>, i: Value<'ctx>, root: Value<'ctx>) -> Option<String> {
    let target = match i.opcode()? {
        Opcode::LLVMStore => i.operand(1),
        Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => i.operand(0),
        Opcode::LLVMCall => {
            let name = i.called_name().unwrap_or_default();
            let harmless = name.starts_with("__acc_") || name.starts_with("__nv_") || (name.starts_with("llvm.") && !name.starts_with("llvm.mem"));
            return (!harmless).then(|| format!("the loop body calls '{name}', which may write it"));
        }
        _ => return None,
    };
    (address(m, target).0 == root).then(|| "the loop body writes it".to_string())
}

/// `v` has the same value in every iteration of the loop made of `blocks`.
fn invariant<'ctx>(v: Value<'ctx>, blocks: &HashSet<Block<'ctx>>, depth: u32) -> bool {
    if !v.is_instruction() || !blocks.contains(&v.parent_block()) {
        return true;
    }
    depth < 16 && v.opcode().is_some_and(is_pure) && v.operands().into_iter().all(|o| invariant(o, blocks, depth + 1))
}

/// A copy of invariant `v` computed by `b` (values defined outside the loop as they are).
fn materialize<'ctx>(v: Value<'ctx>, blocks: &HashSet<Block<'ctx>>, b: &Builder<'ctx>, done: &mut HashMap<Value<'ctx>, Value<'ctx>>) -> Value<'ctx> {
    if !v.is_instruction() || !blocks.contains(&v.parent_block()) {
        return v;
    }
    if let Some(c) = done.get(&v) {
        return *c;
    }
    let ops: Vec<Value> = v.operands().into_iter().map(|o| materialize(o, blocks, b, done)).collect();
    let copy = clone_instruction(v);
    for (k, o) in ops.into_iter().enumerate() {
        copy.set_operand(k as u32, o);
    }
    b.0.insert_instruction(&copy.inst(), None);
    done.insert(v, copy);
    copy
}

/// Emits form `f` as an i64, with `k_value` for leaf `old_k` (the index phi the form was
/// read with: erased by now, so only compared).
fn emit<'ctx>(f: &Form<'ctx>, old_k: Value<'ctx>, k_value: Value<'ctx>, blocks: &HashSet<Block<'ctx>>, b: &Builder<'ctx>, done: &mut HashMap<Value<'ctx>, Value<'ctx>>) -> Value<'ctx> {
    let i64t = k_value.ty().context().i64();
    let mut acc = i64t.const_int(f.constant as u64);
    for &(v, c) in &f.terms {
        let leaf = if v == old_k { k_value } else { b.sext_or_trunc(materialize(v, blocks, b, done), i64t) };
        acc = b.add(acc, b.mul(leaf, i64t.const_int(c as u64)));
    }
    acc
}

/// Rewrites window `w`'s loop to run every window on every thread with the tiles of
/// `plans` filled at its start (module doc). A window is `per_thread` rounds of the
/// window's threads C: thread t runs iterations kw + t, kw + t + C, ... of the window
/// starting at kw, and the windows of a loop spread over the gangs are `per_thread` times
/// its old stride apart.
///
/// Shape (j counts the rounds of a window, the same on every thread sharing it):
/// ```text
/// header:   k = phi [(k0 - t) * P + t, pre], [k', join]; j = phi [0, pre], [j', join]
///           (the loop's induction values from k); col = j * C + t; br j == 0, start, dispatch
/// start:    br k - t < total, fill, exit          (uniform: k - t is the window's start)
/// fill:     barrier; tiles <- the window's sections; barrier; br dispatch
/// dispatch: br k < total, body, skip
/// latch:    br join                               skip: br join
/// join:     last = j + 1 == P; k' = last ? k - j * C + stride * P : k + C;
///           j' = last ? 0 : j + 1; other header values from the latch or unchanged
/// ```
#[allow(clippy::too_many_arguments)]
fn rewrite_window<'ctx>(m: Module<'ctx>, kernel: Value<'ctx>, w: &Window<'ctx>, blocks: &HashSet<Block<'ctx>>, plans: &[Plan<'ctx>], sharing: Sharing, sync: bool, per_thread: i64) {
    let ctx = m.context();
    let i64t = ctx.i64();
    let c = |v: i64| i64t.const_int(v as u64);
    let b = ctx.builder();
    // The thread's column t and the window's threads C (the block's, or the worker's
    // lanes), in the preheader.
    b.position_before(w.preheader.terminator().expect("preheader has a terminator"));
    let id = |name: &str| devrt::id(m, &b, name);
    let (wid, nv, vid) = (id(devrt::WORKER_ID), id(devrt::VECTOR_LENGTH), id(devrt::VECTOR_ID));
    let (t, threads, scope) = match sharing {
        Sharing::Block => (b.add(b.mul(wid, nv), vid), b.mul(id(devrt::NUM_WORKERS), nv), Scope::Gang),
        Sharing::Worker => (vid, nv, Scope::Worker),
    };
    let stride = threads_stride(m, &b, w, threads);
    let tiles: Vec<Value> = plans
        .iter()
        .map(|p| {
            let one = (p.rows * p.width()) as u64;
            let ty = ctx.array_type(p.elem, one * p.copies as u64);
            let g = m.add_global_in(ty, &format!("acc.cache.{}", p.name.split('[').next().unwrap_or("tile")), 3);
            g.set_initializer(ty.undef());
            g.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            g.set_alignment(p.elem_bytes.clamp(1, 16) as u32);
            let tile = b.cast(Opcode::LLVMAddrSpaceCast, g, ctx.ptr());
            match sharing {
                Sharing::Block => tile,
                Sharing::Worker => b.gep(p.elem, tile, &[b.mul(wid, i64t.const_int(one))], true),
            }
        })
        .collect();

    // Old shape: header: k = phi [k0, pre], [k + stride, latch]; br (k < total) body, exit.
    let header = w.header;
    let old_term = header.terminator().expect("header has a terminator");
    let body = *old_term.successors().iter().find(|s| **s != w.exit).expect("the header enters the body");
    let join = ctx.append_block(kernel, "acc.cache.join");
    let skip = ctx.append_block(kernel, "acc.cache.skip");
    let start = ctx.append_block(kernel, "acc.cache.start");
    let fill = ctx.append_block(kernel, "acc.cache.fill");
    let dispatch = ctx.append_block(kernel, "acc.cache.dispatch");
    let latch_term = w.latch.terminator().expect("latch has a terminator");
    for (s, succ) in latch_term.successors().into_iter().enumerate() {
        if succ == header {
            latch_term.set_successor(s as u32, join);
        }
    }
    b.position_at_end(skip);
    b.br(join);

    // The header's phis again, their latch values through the join (a thread that skipped
    // the body carries its values unchanged); k and j as the shape says.
    let hb = ctx.builder();
    hb.position_before(header.first_instruction().expect("header is not empty"));
    let j = hb.phi(i64t, "acc.cache.j");
    j.add_incoming(c(0), w.preheader);
    b.position_at_end(join);
    let mut k = w.k;
    for phi in header.instructions().into_iter().take_while(|i| i.is_phi()).filter(|p| *p != j) {
        let incoming = phi.incoming();
        hb.position_before(phi);
        let fresh = hb.phi(phi.ty(), "");
        if phi == w.k {
            let pre = incoming.iter().find(|(_, blk)| *blk == w.preheader).map(|(v, _)| *v).expect("k starts in the preheader");
            let entry = if per_thread == 1 {
                pre
            } else {
                let pb = ctx.builder();
                pb.position_before(w.preheader.terminator().expect("preheader has a terminator"));
                pb.add(pb.mul(pb.sub(pre, t), c(per_thread)), t)
            };
            fresh.add_incoming(entry, w.preheader);
            k = fresh;
        } else {
            let from_latch = incoming.iter().find(|(_, blk)| *blk == w.latch).map(|(v, _)| *v).expect("header phis have a latch value");
            let q = b.phi(phi.ty(), "");
            q.add_incoming(from_latch, w.latch);
            q.add_incoming(fresh, skip);
            for (v, blk) in &incoming {
                fresh.add_incoming(if *blk == w.latch { q } else { *v }, if *blk == w.latch { join } else { *blk });
            }
        }
        phi.replace_all_uses_with(fresh);
        phi.erase();
    }
    let j1 = b.add(j, c(1));
    let last = b.icmp(IntPred::LLVMIntEQ, j1, c(per_thread));
    let next_window = b.nuw_add(b.sub(k, b.mul(j, threads)), b.mul(stride, c(per_thread)));
    let k_next = b.select(last, next_window, b.nuw_add(k, threads));
    k.add_incoming(k_next, join);
    j.add_incoming(b.select(last, c(0), j1), join);
    b.br(header);

    // Header: a new window, or the window's next round.
    b.position_before(old_term);
    let col = b.add(b.mul(j, threads), t);
    b.cond_br(b.icmp(IntPred::LLVMIntEQ, j, c(0)), start, dispatch);
    old_term.erase();
    for phi in w.exit.instructions().into_iter().take_while(|i| i.is_phi()) {
        crate::ir::rewrite_phi_edges(phi, |blk| Some(if blk == header { start } else { blk }));
    }

    // The window goes on while its first index is in range (the same on every thread
    // sharing it, so the barriers are uniform).
    b.position_at_end(start);
    let kbase = b.sub(k, t);
    b.cond_br(b.icmp(IntPred::LLVMIntSLT, kbase, w.total), fill, w.exit);

    // The barrier before the fill keeps it from overwriting what the previous window's
    // rounds still read.
    b.position_at_end(fill);
    if sync {
        devrt::sync(m, &b, scope);
    }
    // Iterations of this window: P * C, or fewer in the last.
    let left = b.sub(w.total, kbase);
    let size = b.mul(threads, c(per_thread));
    let active = b.select(b.icmp(IntPred::LLVMIntSLT, left, size), left, size);
    let mut done = HashMap::new();
    let mut at = fill;
    for (p, tile) in plans.iter().zip(&tiles) {
        at = emit_fill(m, kernel, &b, at, p, *tile, w.k, kbase, t, threads, active, blocks, &mut done);
    }
    if sync {
        devrt::sync(m, &b, scope);
    }
    b.br(dispatch);

    b.position_at_end(dispatch);
    b.cond_br(b.icmp(IntPred::LLVMIntSLT, k, w.total), body, skip);
    for phi in body.instructions().into_iter().take_while(|i| i.is_phi()) {
        crate::ir::rewrite_phi_edges(phi, |blk| Some(if blk == header { dispatch } else { blk }));
    }

    // The body's loads of cached elements read the tile at the iteration's column plus
    // their offset.
    for (p, tile) in plans.iter().zip(&tiles) {
        let width = p.width();
        for &(load, row, off) in &p.loads {
            let lb = ctx.builder();
            lb.position_before(load);
            let idx = lb.add(col, i64t.const_int((row * width + off) as u64));
            let ptr = lb.gep(p.elem, *tile, &[idx], true);
            load.set_operand(0, ptr);
        }
        for (load, offset) in &p.checked {
            read_tile_when_inside(m, *load, offset, p, *tile, col);
        }
    }
}

/// `v = load p` becomes `q = offset; if (q <u len) v1 = tile[t + q] else v2 = load p;
/// v = phi(v1, v2)`.
fn read_tile_when_inside<'ctx>(m: Module<'ctx>, load: Value<'ctx>, offset: &Form<'ctx>, p: &Plan<'ctx>, tile: Value<'ctx>, t: Value<'ctx>) {
    let ctx = m.context();
    let i64t = ctx.i64();
    let b = ctx.builder();
    b.position_before(load);
    let mut q = i64t.const_int(offset.constant as u64);
    for &(v, c) in &offset.terms {
        q = b.add(q, b.mul(b.sext_or_trunc(v, i64t), i64t.const_int(c as u64)));
    }
    let inside = b.icmp(IntPred::LLVMIntULT, q, i64t.const_int(p.lens[0] as u64));
    let shared_ptr = b.gep(p.elem, tile, &[b.add(t, q)], true);
    let blk = load.parent_block();
    let next = load.next_instruction().expect("a load is not a terminator");
    let join = blk.split_before(ctx, next, "acc.cache.join");
    let global = blk.split_before(ctx, load, "acc.cache.global");
    let shared = ctx.append_block(blk.parent(), "acc.cache.shared");
    b.position_at_end(shared);
    let from_tile = b.load(p.elem, shared_ptr, "");
    b.br(join);
    let old = blk.terminator().expect("split blocks end with a branch");
    b.position_before(old);
    b.cond_br(inside, shared, global);
    old.erase();
    b.position_before(join.first_instruction().expect("the join holds the rest of the block"));
    let phi = b.phi(p.elem, "");
    load.replace_all_uses_with(phi);
    phi.add_incoming(from_tile, shared);
    phi.add_incoming(load, global);
}

/// What `k` steps by: the latch adds the threads of every level the loop spreads over
/// (the gangs' too when it is a gang loop).
fn threads_stride<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, w: &Window<'ctx>, block: Value<'ctx>) -> Value<'ctx> {
    if w.levels.gang {
        b.mul(block, devrt::id(m, b, devrt::NUM_GANGS))
    } else {
        block
    }
}

/// Rows of a tile one round of the fill loads together (all of them when they are few),
/// and the columns of each row a thread loads per round (two, or one when a thread runs
/// one iteration per window: its columns then take a round of a C + len - 1 wide row and
/// one more of its len - 1 left): the loads of a round are independent, all issued before
/// its first store to the tile (a loop that stored each element before loading the next
/// would wait for memory once per element). More columns per round keep more loads in
/// flight but each needs its address live across the round: nine per round took the
/// radius-8 stencil's kernel to 64 registers and half the occupancy (1.39 TB/s on an
/// H100, against 2.23 with two, 28 registers).
pub fn fill_round(rows: u64, per_thread: u64) -> (u64, u64) {
    const LOADS_PER_ROUND: u64 = 32;
    let group = if rows <= 16 { rows } else { 1 };
    (group, 2.min((LOADS_PER_ROUND / group).max(1)).min(per_thread + 1))
}

/// The cooperative fill of one tile, from block `at` on (where the builder is); returns
/// the block the builder is left at the end of. Rounds of `fill_round`'s rows and columns:
/// thread t loads columns t, t + C, ... (C the window's threads) of each row in the round,
/// every load's column clamped to the window's last (so that none reads past the section),
/// then stores those inside the window's columns; no division per element.
#[allow(clippy::too_many_arguments)]
fn emit_fill<'ctx>(
    m: Module<'ctx>,
    kernel: Value<'ctx>,
    b: &Builder<'ctx>,
    at: Block<'ctx>,
    p: &Plan<'ctx>,
    tile: Value<'ctx>,
    old_k: Value<'ctx>,
    kbase: Value<'ctx>,
    t: Value<'ctx>,
    threads: Value<'ctx>,
    active: Value<'ctx>,
    blocks: &HashSet<Block<'ctx>>,
    done: &mut HashMap<Value<'ctx>, Value<'ctx>>,
) -> Block<'ctx> {
    let ctx = m.context();
    let i64t = ctx.i64();
    let c = |v: i64| i64t.const_int(v as u64);
    let last = p.lens.len() - 1;
    let (group, per_row) = fill_round(p.rows as u64, p.per_thread as u64);
    let (group, per_row) = (group as i64, per_row as i64);
    // Columns this window needs: its iterations' sections overlap but for len - 1.
    let cols = b.add(active, c(p.lens[last] - 1));
    let last_col = b.sub(cols, c(1));
    let start = emit(&p.start, old_k, kbase, blocks, b, done);
    let root = materialize(p.root, blocks, b, done);
    let width = p.width();
    let group_head = ctx.append_block(kernel, "acc.cache.rows");
    let col_loop = ctx.append_block(kernel, "acc.cache.load");
    let group_next = ctx.append_block(kernel, "acc.cache.rows.next");
    let after = ctx.append_block(kernel, "acc.cache.filled");
    b.br(group_head);
    b.position_at_end(group_head);
    let first_row = b.phi(i64t, "acc.cache.r");
    first_row.add_incoming(c(0), at);
    b.cond_br(b.icmp(IntPred::LLVMIntSLT, t, cols), col_loop, group_next);

    b.position_at_end(col_loop);
    let col = b.phi(i64t, "acc.cache.c");
    col.add_incoming(t, group_head);
    let columns: Vec<Value> = (0..per_row).map(|u| if u == 0 { col } else { b.add(col, b.mul(threads, c(u))) }).collect();
    // (row's tile offset, column, value) of every load of the round, loaded first.
    let mut loaded = Vec::new();
    for g in 0..group {
        let row = b.add(first_row, c(g));
        // The row's element offset from the window's start: its index in each leading
        // dimension (row-major over their lengths) times that dimension's stride.
        let mut rest = row;
        let mut row_off = c(0);
        for d in (0..last).rev() {
            let o = if d == 0 { rest } else { b.urem(rest, c(p.lens[d])) };
            if d > 0 {
                rest = b.udiv(rest, c(p.lens[d]));
            }
            row_off = b.add(row_off, b.mul(o, c(p.strides[d])));
        }
        let src_row = b.add(start, b.mul(row_off, c(p.elem_bytes)));
        let dst_row = b.mul(row, c(width));
        for (u, &column) in columns.iter().enumerate() {
            let clamped = if u == 0 { column } else { b.select(b.icmp(IntPred::LLVMIntSLT, column, cols), column, last_col) };
            let src = b.gep(ctx.i8(), root, &[b.add(src_row, b.mul(clamped, c(p.elem_bytes)))], false);
            loaded.push((u, dst_row, b.load(p.elem, src, "")));
        }
    }
    // Stores: column u of the round only where it is inside the window (then so are the
    // columns before it).
    let col_next = ctx.append_block(kernel, "acc.cache.load.next");
    for (u, &column) in columns.iter().enumerate() {
        if u > 0 {
            let store_u = ctx.append_block(kernel, "acc.cache.store");
            b.cond_br(b.icmp(IntPred::LLVMIntSLT, column, cols), store_u, col_next);
            b.position_at_end(store_u);
        }
        for &(_, dst_row, v) in loaded.iter().filter(|l| l.0 == u) {
            b.store(v, b.gep(p.elem, tile, &[b.add(dst_row, column)], true));
        }
    }
    b.br(col_next);
    b.position_at_end(col_next);
    let next = b.add(col, b.mul(threads, c(per_row)));
    col.add_incoming(next, col_next);
    b.cond_br(b.icmp(IntPred::LLVMIntSLT, next, cols), col_loop, group_next);

    b.position_at_end(group_next);
    let next_row = b.add(first_row, c(group));
    first_row.add_incoming(next_row, group_next);
    b.cond_br(b.icmp(IntPred::LLVMIntSLT, next_row, c(p.rows)), group_head, after);
    b.position_at_end(after);
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_inside_and_outside_a_section() {
        // a[j-1:3][i-1:3] of rows of 67: the element a[j+1][i] is 2 rows and 1 column in.
        let strides = [67, 1];
        assert_eq!(tile_coords(2 * 67 + 1, &strides, &[3, 3]), Some(vec![2, 1]));
        assert_eq!(tile_coords(0, &strides, &[3, 3]), Some(vec![0, 0]));
        // One column left of the section (a[j][i-2]) and one past it (a[j][i+2]).
        assert_eq!(tile_coords(67 - 1, &strides, &[3, 3]), None);
        assert_eq!(tile_coords(67 + 3, &strides, &[3, 3]), None);
        // A row below it, and before it.
        assert_eq!(tile_coords(3 * 67, &strides, &[3, 3]), None);
        assert_eq!(tile_coords(-1, &strides, &[3, 3]), None);
        // One dimension: a[i-4:9].
        assert_eq!(tile_coords(8, &[1], &[9]), Some(vec![8]));
        assert_eq!(tile_coords(9, &[1], &[9]), None);
    }

    #[test]
    fn geometry_needs_constant_lengths_and_array_rows() {
        assert_eq!(geometry(&[Some(3), Some(3)], &[Some(67)]), Ok((vec![67, 1], vec![3, 3])));
        assert_eq!(geometry(&[Some(3), Some(5), Some(2)], &[Some(10), Some(4)]), Ok((vec![40, 4, 1], vec![3, 5, 2])));
        assert_eq!(geometry(&[Some(9)], &[]), Ok((vec![1], vec![9])));
        assert!(geometry(&[None], &[]).unwrap_err().contains("not a constant"));
        assert!(geometry(&[Some(3), Some(3)], &[None]).unwrap_err().contains("variable-length"));
        assert!(geometry(&[Some(3), Some(3)], &[Some(-1)]).unwrap_err().contains("pointers"));
        assert!(geometry(&[Some(3), Some(8)], &[Some(4)]).unwrap_err().contains("takes 8 elements of rows of 4"));
        assert!(geometry(&[Some(0)], &[]).is_err());
    }

    #[test]
    fn a_tile_row_holds_the_union_of_the_block_s_sections() {
        // 256 lanes of a[i-1:3]: columns i0-1 .. i0+256.
        assert_eq!(tile_width(256, 3), 258);
        assert_eq!(tile_width(32, 9), 40);
        assert_eq!(tile_width(1, 1), 1);
    }

    #[test]
    fn iterations_per_thread_fit_the_budget_and_the_occupancy_target() {
        // The radius-8 float stencil on 256 threads: 8 x 256 + 16 floats fit both.
        let stencil = |k: u64| (k * 256 + 16) * 4;
        assert_eq!(iterations_per_thread(stencil, 256, SHARED_BUDGET), 8);
        // Doubles on 1024 threads: 8 rounds take 65 KiB, 4 take 32 KiB + 16 bytes, 2 fit.
        let wide = |k: u64| (k * 1024 + 2) * 8;
        assert_eq!(iterations_per_thread(wide, 1024, SHARED_BUDGET), 2);
        // Three rows of doubles on 256 threads: 4 rounds take 48 bytes over 96 a thread.
        let rows = |k: u64| 3 * (k * 256 + 2) * 8;
        assert_eq!(iterations_per_thread(rows, 256, SHARED_BUDGET), 2);
        let rows_1024 = |k: u64| 3 * (k * 1024 + 2) * 8;
        assert_eq!(iterations_per_thread(rows_1024, 1024, SHARED_BUDGET), 1);
        // Little budget left: one round, whatever the occupancy allows.
        assert_eq!(iterations_per_thread(stencil, 256, 1100), 1);
        assert_eq!(iterations_per_thread(stencil, 256, 2200), 2);
    }

    #[test]
    fn a_fill_round_loads_two_columns_of_each_of_a_few_rows() {
        assert_eq!(fill_round(1, 8), (1, 2));
        assert_eq!(fill_round(3, 8), (3, 2));
        assert_eq!(fill_round(9, 4), (9, 2));
        assert_eq!(fill_round(16, 8), (16, 2));
        assert_eq!(fill_round(1, 1), (1, 2));
        // Many rows: one per round.
        assert_eq!(fill_round(27, 1), (1, 2));
        assert_eq!(fill_round(100, 2), (1, 2));
    }

    #[test]
    fn linear_forms_merge_and_cancel() {
        let eq = |a: char, b: char| a == b;
        let f = Linear { terms: vec![('k', 1), ('j', 67)], constant: -68 };
        let g = Linear { terms: vec![('j', 67), ('k', 1)], constant: 1 };
        assert_eq!(g.plus(&f, -1, &eq).as_constant(), Some(69));
        assert_eq!(f.scaled(8), Linear { terms: vec![('k', 8), ('j', 536)], constant: -544 });
        assert_eq!(f.plus(&f, -1, &eq).terms, vec![]);
        assert_eq!(f.as_constant(), None);
    }

    #[test]
    fn report_lines() {
        let loc = Loc { file: "t.c".into(), line: 9, col: 9 };
        let shared = Note { loc: loc.clone(), item: "a[i-1:3]".into(), outcome: Outcome::Shared { rows: 1, width: 258, elem_bytes: 8, copies: 1, per_thread: 1, loads: 3, checked: 0 } };
        assert_eq!(shared.text(), "Caching a[i-1:3] in shared memory: 1 x 258 elements of 8 bytes (2064 bytes) per window of the vector loop (1 iteration per thread), read by 3 loads of the body");
        let both = Note { outcome: Outcome::Shared { rows: 1, width: 264, elem_bytes: 4, copies: 1, per_thread: 4, loads: 1, checked: 2 }, ..shared.clone() };
        assert!(both.text().ends_with("(4 iterations per thread), read by 1 load of the body and 2 loads where its index falls inside the section (checked at run time)"), "{}", both.text());
        let workers = Note { outcome: Outcome::Shared { rows: 3, width: 34, elem_bytes: 8, copies: 16, per_thread: 1, loads: 5, checked: 0 }, ..shared.clone() };
        assert_eq!(workers.text(), "Caching a[i-1:3] in shared memory: 3 x 34 elements of 8 bytes (13056 bytes, a copy per worker (16 copies)) per window of the vector loop (1 iteration per thread), read by 5 loads of the body");
        let global = Note { loc, item: "c[i:1]".into(), outcome: Outcome::Global("the loop body writes it".into()) };
        assert_eq!(global.text(), "Not caching c[i:1] (kept in global memory): the loop body writes it");
    }
}
