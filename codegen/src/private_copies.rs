//! Private copies in memory the runtime allocates per launch: `private(p[0:n])` and
//! `firstprivate(p[0:n])` of a pointer variable `p` (their size is known only at run time),
//! firstprivate arrays and structs too large for a kernel parameter (over
//! `outline::FIRSTPRIVATE_BYTES`), private arrays that shared memory cannot hold (over
//! `privatize::SHARED_LIMIT` together: the largest go, [`beyond_shared`]), and
//! variable-length arrays: private or firstprivate ones, and those the region declares
//! ([`declared_vlas`]), whose run-time size is known before the region.
//!
//! Expects: a compute region being outlined (outline.rs), its captured variables and the
//! clauses of the construct and its loops.
//!
//! Produces, in the outlined function, after the captures' parameters (and the reduction
//! scratch): `ptr area, i64 G, i64 W, i64 T`, then per copy `i64 offset, i64 rebase` and, for
//! a firstprivate copy, `ptr source, i64 bytes`. Its entry block gets, per copy,
//! `%c = __acc_private_copy(area, G, W, T, level, offset)` (level 0 until the device module
//! knows the loop's level, [`set_levels`]) and, for a firstprivate one,
//! `__acc_private_init(%c, source, bytes)` (collective: every thread of the gang copies a
//! share, then the gang syncs); the variable's uses become the copy (a pointer section's
//! pointer variable becomes a private slot holding `%c - rebase`, so `p[i]` is the copy's
//! element `i`). The host stub ([`stub_args`]) lays the copies out: on the device, per gang
//! `[G: gang copies][W x workers: worker copies][T x threads: thread copies]` in an area the
//! runtime allocates at launch (runtime/src/private_area.rs); on the host path, one block of
//! `G + W + T` bytes it mallocs around the call. A firstprivate copy's source is the device
//! copy of its data (the stub adds an implied `copyin` for it: present data is used as is).
//!
//! A section of a pointer member of a struct variable (`s.p[0:n]`, [`Source::Member`]) is
//! a copy too: the struct is passed as before, and the region's loads of that member
//! become the copy's pointer; so is one of a member at constant offsets from a pointer
//! variable's target (`ps->p[0:n]`, `pp[2][0:n]`), or through further pointers
//! (`ps->q->p[0:n]`, [`MemberPath::hops`]): the region's loads of `ps->p` become the copy's
//! pointer.
//!
//! A loop's section (of a pointer variable or a member) whose bounds the region computes
//! cannot be in the area (sized at launch): [`InLoopCopy`] makes it per iteration inside
//! the kernel.
//!
//! A section of several dimensions (`p[0:n][0:m]` of `double (*p)[M]`) is copied as its
//! whole rows (contract.rs drops the trailing dimensions of private items).
//!
//! A section through pointer rows (`private(p[0:n][0:m])` of `double **p`, `q[0:a][0:b][0:c]`
//! of `int ***q`) is a copy of each level's pointers followed by the rows, the pointers set at
//! the kernel's entry to the copy's next level (`__acc_private_rows`), which firstprivate
//! fills from the device copy of the rows (the implied `copyin` maps and attaches them).
//!
//! A loop's copy whose bounds the region computes ([`InLoopCopy`]) through pointer rows has
//! the same layout in its dynamic alloca, its pointers set where the iteration starts.
//!
//! Does not: keep a loop's private copy apart from the uses of the pointer outside that loop (like
//! any captured variable a loop privatises, there is one private slot per kernel).

use crate::capture::Passing;
use crate::contract::{Clause, DataKind, Directive, DirectiveKind, Var};
use crate::error::{AccError, Result};
use crate::ir::{Builder, Context, Module, Opcode, Value};
use crate::mapping::Levels;
use crate::outline::strip;

/// The device runtime's helpers (runtime-ir/private.c; the host path's in libaccrt).
pub const COPY_FN: &str = "__acc_private_copy";
pub const INIT_FN: &str = "__acc_private_init";
pub const ROWS_FN: &str = "__acc_private_rows";

const HELPERS_BC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/private.bc"));

/// Links private.c's helpers into the device module (before the emulator's copy is taken:
/// the GPU and the emulator run the same ones).
pub fn link_helpers<'ctx>(dev: Module<'ctx>) -> Result<()> {
    crate::devmath::link_host_c(dev, HELPERS_BC, "runtime-ir/private.c", llvm_sys::LLVMLinkage::LLVMExternalLinkage)
}

/// Every copy starts 16-byte aligned.
pub const ALIGN: u64 = 16;

/// The name suffix of a reduction's copies' `__acc_private_copy` call ([`Source::ReductionView`]):
/// guard.rs treats memory based on it as the thread's own, as it does allocas.
pub const VIEW_SUFFIX: &str = ".acc.red.view";

/// Which executors have a copy of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyLevel {
    Gang = 0,
    Worker = 1,
    Thread = 2,
    /// No copy in the area: an array declared in the region that its uses make the
    /// thread's own is an alloca of the kernel again (local memory), as it was before.
    Local = 3,
}

/// The copies of a loop spread over `levels` (effective levels, mapping.rs): one per
/// executor of its finest level, as for private arrays (privatize.rs).
pub fn level_of(levels: Levels) -> CopyLevel {
    if levels.vector {
        CopyLevel::Thread
    } else if levels.worker {
        CopyLevel::Worker
    } else {
        CopyLevel::Gang
    }
}

/// What the compile report says of a copy.
pub fn describe(level: CopyLevel, initialised: bool) -> &'static str {
    match (level, initialised) {
        (CopyLevel::Gang, true) => "a copy per gang in device memory, filled from the device copy of the data",
        (CopyLevel::Gang, false) => "a copy per gang in device memory",
        (CopyLevel::Worker, true) => "a copy per worker in device memory, filled from the device copy of the data",
        (CopyLevel::Worker, false) => "a copy per worker in device memory",
        (CopyLevel::Thread, true) => "a copy per thread in device memory, filled from the device copy of the data",
        (CopyLevel::Thread, false) => "a copy per thread in device memory",
        (CopyLevel::Local, _) => "a copy per thread in its local memory",
    }
}

/// What a copy holds.
#[derive(Clone, Debug)]
pub enum Source<'ctx> {
    /// A section of the pointer variable: `base[lower:length]` of `elem_size` bytes.
    Section(Var<'ctx>),
    /// A section of a pointer member of the struct variable (`s.p[lo:n]`, `s.in.p[lo:n]`):
    /// the region's loads of that member become the copy's pointer; the struct itself is
    /// passed as before.
    Member(Var<'ctx>),
    /// The whole variable (its address is the capture), of this many bytes (an `i64` of the
    /// host function: a constant, or a variable-length array's size computed before the
    /// region).
    Whole(Value<'ctx>),
    /// Room for the private copies of an array reduction without constant bounds
    /// (`reduction(+: h[lo:n])`) whose region reads an element, stores one plainly or passes
    /// its address ([`reduction_view`]): each thread gets as many copies of the section as
    /// the device module's reduction.rs makes of it (`KernelPlan::private_multiples`; none
    /// when the region only updates it, atomic_reduction.rs). The variable's uses stay as
    /// they are: reduction.rs points the loops' uses at the copies.
    ReductionView(Var<'ctx>),
}

/// Where the clause that asked for the copy is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// On the compute construct (`parallel`, `serial`; for a combined construct's `private`,
    /// its loop).
    Construct,
    /// On the loop directive with this id (`Directive::id`: the same in the device module).
    Loop(u32),
    /// No clause: an array declared in the region, placed by its uses as C scoping says
    /// (privatize.rs `place_area_copies`, once the kernel's loops are partitioned).
    Uses,
}

/// One private copy of a region.
#[derive(Clone, Debug)]
pub struct Copy<'ctx> {
    /// The host variable the copy stands for: a captured variable, or an array of run-time
    /// size that the region declares (an alloca inside it).
    pub value: Value<'ctx>,
    /// Its name as the user wrote it.
    pub name: String,
    pub source: Source<'ctx>,
    pub initialised: bool,
    pub origin: Origin,
}

/// The clause item of `v` (a captured variable) that makes it a copy of run-time size, if
/// any: a `private`/`firstprivate` section whose base is `v`'s value (`p[0:n]` of pointer
/// `p`), or a firstprivate variable of more than `param_limit` bytes (`bytes`).
pub fn find<'ctx>(d: &Directive<'ctx>, loops: &[Directive<'ctx>], v: Value<'ctx>, passing: Passing, bytes: u64, param_limit: u64) -> Option<(Source<'ctx>, bool, Origin)> {
    // `p[lo:n]` of a pointer variable `p` (not `s.p[lo:n]`, whose first member's address
    // strips to the struct's).
    let pointer_variable = (v.is_alloca() || v.is_global_variable()) && crate::outline::variable_type(v).is_ptr();
    let of_v = |x: &Var<'ctx>| {
        let b = strip(x.base);
        pointer_variable && b.opcode() == Some(Opcode::LLVMLoad) && strip(b.operand(0)) == v
    };
    // (`check_sections` has rejected sections of several dimensions.)
    for c in &d.clauses {
        match c {
            Clause::Private(x) if of_v(x) => return Some((Source::Section(x.clone()), false, Origin::Construct)),
            Clause::FirstPrivate(x) if of_v(x) => return Some((Source::Section(x.clone()), true, Origin::Construct)),
            _ => {}
        }
    }
    for l in loops {
        for c in &l.clauses {
            if let Clause::Private(x) = c {
                if of_v(x) {
                    return Some((Source::Section(x.clone()), false, Origin::Loop(l.id)));
                }
            }
        }
    }
    if passing == Passing::FirstPrivate && bytes > param_limit {
        return Some((Source::Whole(v.context().i64().const_int(bytes)), true, Origin::Construct));
    }
    None
}

/// Where a pointer member is: its root variable and, from the root's storage down to the
/// member, the hops of GEPs (zero-offset ones stripped), each hop after the first starting
/// at a pointer loaded from where the hop before ends: `s.p`, `s.in.p` (one hop from the
/// struct variable), `ps->p`, `pp[2]` (an empty hop to the pointer variable's slot, then its
/// target's), `ps->q->p` (three). An index is a constant or a variable's value (`pp[i]`).
#[derive(Clone, Debug)]
pub struct MemberPath<'ctx> {
    pub root: Value<'ctx>,
    pub hops: Vec<Vec<(crate::ir::Type<'ctx>, Vec<Index<'ctx>>)>>,
}

/// One index of a GEP on a member's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index<'ctx> {
    Const(i64),
    /// The value of the variable in this slot (an alloca or a global), read where the path
    /// is computed (converted to the index type).
    Variable(Value<'ctx>),
}

impl<'ctx> MemberPath<'ctx> {
    /// The variables the path's indices read (`i` of `pp[i]`).
    pub fn index_variables(&self) -> Vec<Value<'ctx>> {
        self.hops.iter().flatten().flat_map(|(_, ix)| ix.iter()).filter_map(|i| if let Index::Variable(v) = i { Some(*v) } else { None }).collect()
    }
}

/// The index GEP operand `v` is: a constant, or a load of a variable's slot (through integer
/// conversions).
fn index_of(v: Value<'_>) -> Option<Index<'_>> {
    if let Some(c) = v.const_int_value() {
        return Some(Index::Const(c));
    }
    let mut at = v;
    while matches!(at.opcode(), Some(Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc)) {
        at = at.operand(0);
    }
    let slot = (at.opcode() == Some(Opcode::LLVMLoad) && !at.is_atomic_access()).then(|| strip(at.operand(0)))?;
    (slot.is_alloca() || slot.is_global_variable()).then_some(Index::Variable(slot))
}

/// The member a pointer's address names, when it is one (`&s.p`, `&s.in.p`, `&ps->p`,
/// `&pp[2]`, `&pp[i]`, `&ps->q->p`, `&s.q->p`).
pub fn member_path<'ctx>(addr: Value<'ctx>) -> Option<MemberPath<'ctx>> {
    let is_variable = |v: Value<'ctx>| v.is_alloca() || v.is_global_variable();
    let mut hops = Vec::new();
    let mut at = strip(addr);
    loop {
        let mut chain = Vec::new();
        while at.opcode() == Some(Opcode::LLVMGetElementPtr) {
            let indices: Option<Vec<Index>> = at.operands()[1..].iter().map(|i| index_of(*i)).collect();
            chain.push((at.gep_source_type(), indices?));
            at = strip(at.operand(0));
        }
        hops.push(chain);
        // The root: a struct variable (the member inside it, or through pointers from it),
        // or a pointer variable whose target the path starts in.
        if is_variable(at) && (hops.len() > 1 || !crate::outline::variable_type(at).is_scalar()) {
            hops.reverse();
            return Some(MemberPath { root: at, hops });
        }
        if at.opcode() != Some(Opcode::LLVMLoad) || hops.len() > 8 {
            return None;
        }
        at = strip(at.operand(0));
    }
}

/// The `private`/`firstprivate` sections of pointer members of variable `v` (a struct,
/// or a pointer to one or to pointers; see [`find`] for the rest).
pub fn member_sections<'ctx>(d: &Directive<'ctx>, loops: &[Directive<'ctx>], v: Value<'ctx>) -> Vec<(Source<'ctx>, bool, Origin)> {
    let of_v = |x: &Var<'ctx>| {
        let b = strip(x.base);
        b.opcode() == Some(Opcode::LLVMLoad) && member_path(b.operand(0)).is_some_and(|p| p.root == v)
    };
    let mut out = Vec::new();
    for c in &d.clauses {
        match c {
            Clause::Private(x) if of_v(x) => out.push((Source::Member(x.clone()), false, Origin::Construct)),
            Clause::FirstPrivate(x) if of_v(x) => out.push((Source::Member(x.clone()), true, Origin::Construct)),
            _ => {}
        }
    }
    for l in loops {
        for c in &l.clauses {
            if let Clause::Private(x) = c {
                if of_v(x) && !out.iter().any(|(s, _, _)| matches!(s, Source::Member(y) if y.text == x.text)) {
                    out.push((Source::Member(x.clone()), false, Origin::Loop(l.id)));
                }
            }
        }
    }
    out
}

/// In outlined function `f`, the loads of the member that member copy `x` names, now that
/// its root variable is `root` there and an index variable's slot is `slot_in(host slot)`.
pub fn member_loads<'ctx>(f: Value<'ctx>, x: &Var<'ctx>, root: Value<'ctx>, slot_in: &dyn Fn(Value<'ctx>) -> Option<Value<'ctx>>) -> Vec<Value<'ctx>> {
    match member_path(strip(x.base).operand(0)) {
        Some(path) => loads_of_member(f, &path, root, slot_in),
        None => Vec::new(),
    }
}

/// In `f`, the loads of the member at `path` from `root` (what its root variable is there;
/// `slot_in`: what an index variable's slot is there).
pub fn loads_of_member<'ctx>(f: Value<'ctx>, path: &MemberPath<'ctx>, root: Value<'ctx>, slot_in: &dyn Fn(Value<'ctx>) -> Option<Value<'ctx>>) -> Vec<Value<'ctx>> {
    let index_is = |v: Value<'ctx>, want: &Index<'ctx>| match (index_of(v), want) {
        (Some(Index::Const(a)), Index::Const(b)) => a == *b,
        (Some(Index::Variable(a)), Index::Variable(b)) => slot_in(*b) == Some(a),
        _ => false,
    };
    let same = |addr: Value<'ctx>| {
        let mut at = strip(addr);
        for (hop, chain) in path.hops.iter().enumerate().rev() {
            for (ty, indices) in chain {
                let here = at.opcode() == Some(Opcode::LLVMGetElementPtr)
                    && at.gep_source_type() == *ty
                    && at.num_operands() as usize == indices.len() + 1
                    && at.operands()[1..].iter().zip(indices).all(|(v, want)| index_is(*v, want));
                if !here {
                    return false;
                }
                at = strip(at.operand(0));
            }
            // Every hop but the first starts at a pointer loaded where the one before ends.
            if hop > 0 {
                if at.opcode() != Some(Opcode::LLVMLoad) {
                    return false;
                }
                at = strip(at.operand(0));
            }
        }
        at == root
    };
    f.blocks().into_iter().flat_map(|b| b.instructions()).filter(|i| i.opcode() == Some(Opcode::LLVMLoad) && i.ty().is_ptr() && same(i.operand(0))).collect()
}

/// Whether the variable in `slot` (of function `f`) keeps one value in `f`: stored only in
/// the entry block (a capture's initial value), so that every read of it is the same index.
pub fn keeps_its_value<'ctx>(f: Value<'ctx>, slot: Value<'ctx>) -> bool {
    let entry = f.entry_block();
    slot.users().into_iter().all(|u| u.opcode() != Some(Opcode::LLVMStore) || u.operand(1) != slot || u.parent_block() == entry)
}

/// Which of the arrays that private clauses name (`(capture, bytes)`) go to the private
/// area: the largest, until the rest fit in `limit` bytes of shared memory (privatize.rs
/// keeps a gang's or a worker's copies there; a thread's copies would fit in its own
/// memory, but that level is known only in the device module). Indices into `arrays`.
pub fn beyond_shared(arrays: &[(usize, u64)], limit: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..arrays.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(arrays[i].1));
    let mut total: u64 = arrays.iter().map(|a| a.1).sum();
    let mut out = Vec::new();
    for i in order {
        if total <= limit {
            break;
        }
        total -= arrays[i].1;
        out.push(i);
    }
    out
}

/// Where private array `v`'s copies come from: the construct's or a loop's `private` clause
/// naming it, or (no clause) its declaration in the region.
pub fn array_origin<'ctx>(d: &Directive<'ctx>, loops: &[Directive<'ctx>], v: Value<'ctx>) -> Origin {
    let names = |l: &Directive<'ctx>| l.has(|c| matches!(c, Clause::Private(x) if strip(x.base) == v));
    if names(d) {
        return Origin::Construct;
    }
    loops.iter().find(|l| names(l)).map_or(Origin::Uses, |l| Origin::Loop(l.id))
}

/// The variable a reduction item reduces: the pointer variable of a section (`h[0:m]` of
/// `int *h`: its slot) or the array itself.
pub fn reduced_variable<'ctx>(x: &Var<'ctx>) -> Value<'ctx> {
    let b = strip(x.base);
    if b.opcode() == Some(Opcode::LLVMLoad) && b.ty().is_ptr() {
        strip(b.operand(0))
    } else {
        b
    }
}

/// Room for private copies of captured variable `v` that one of the construct's or its
/// loops' array reductions without constant bounds may need ([`Source::ReductionView`]):
/// the first such item of `v` (laid out as [`ViewLayout`] says), its bounds computed
/// again before the region (`before`, in the host function whose CFG is `cfg`). None when
/// `v` has no such item or its bounds are computed in the region (reduction.rs then makes a
/// loop's copies where the loop begins, `View::local_copy`).
pub fn reduction_view<'ctx>(d: &Directive<'ctx>, loops: &[Directive<'ctx>], v: Value<'ctx>, before: Value<'ctx>, cfg: &crate::cfg::FunctionCfg<'ctx>) -> Option<Copy<'ctx>> {
    let r = std::iter::once(d).chain(loops).flat_map(|l| l.clauses.iter()).find_map(|c| match c {
        Clause::Reduction(r) if reduced_variable(&r.var) == v => {
            (crate::reduction::placement(r) == crate::reduction::Placement::AtomicsNeeded).then_some(r)
        }
        _ => None,
    })?;
    let y = computed_again(&r.var, before, cfg)?;
    Some(Copy { value: v, name: r.var.text.clone(), source: Source::ReductionView(y), initialised: false, origin: Origin::Construct })
}

/// Clause item `x` with every bound (its range's, its row levels' and trailing dimensions')
/// computed again before the region (`before`, in the host function whose CFG is `cfg`), so
/// that the host stub can read them; None when one is computed in the region.
fn computed_again<'ctx>(x: &Var<'ctx>, before: Value<'ctx>, cfg: &crate::cfg::FunctionCfg<'ctx>) -> Option<Var<'ctx>> {
    let again = |b: Value<'ctx>| crate::reduction::computed_before(b, before, cfg, 0);
    let rows = x.rows.iter().map(|r| Some(crate::contract::RowLevel { lower: again(r.lower)?, length: again(r.length)?, ..*r })).collect::<Option<_>>()?;
    let dims = x.dims.iter().map(|d| Some(crate::contract::Dim { lower: again(d.lower)?, length: again(d.length)?, extent: again(d.extent)?, ..*d })).collect::<Option<_>>()?;
    Some(Var { base: again(x.base)?, lower: again(x.lower)?, length: again(x.length)?, elem_size: again(x.elem_size)?, rows, dims, ..x.clone() })
}

/// How a reduction's room ([`Source::ReductionView`]) lays out one copy, and the kernel
/// parameters it has after its offset, rebase and count (`view_args`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewLayout {
    /// One range of `count` elements.
    Flat,
    /// A part of each row, through this many trailing dimensions (`m[0:a][1:b]`: one;
    /// `m[0:a][1:b][2:c]`: two), `count` elements of whole rows (the outermost range's rows
    /// with every trailing dimension whole): per dimension `first`, `cols` and `row` (its
    /// extent) follow.
    Part(usize),
    /// Through `levels` levels of pointer rows: each level's table (of `count` row pointers
    /// at the first level), then the rows; `rows_dims`' values after the count follow
    /// (level 0's rebase, then each further level's count and rebase), then the row's
    /// elements. Rows of arrays with a part of each (`parts` > 0: contract.rs
    /// `rows_of_arrays`) then have `first`, `cols`, `row` per array dimension, as `Part`'s.
    Rows { levels: usize, parts: usize },
}

impl ViewLayout {
    pub fn of(x: &Var<'_>) -> ViewLayout {
        match (x.dims.len(), x.rows.len()) {
            (0, 0) => ViewLayout::Flat,
            (dims, 0) => ViewLayout::Part(dims),
            (parts, levels) => ViewLayout::Rows { levels, parts },
        }
    }

    /// The parameters after the count.
    pub fn extras(self) -> usize {
        match self {
            ViewLayout::Flat => 0,
            ViewLayout::Part(dims) => 3 * dims,
            ViewLayout::Rows { levels, parts } => 2 * levels + 3 * parts,
        }
    }
}

/// A reduction room's kernel arguments after its offset and rebase, where `b` is: the count
/// (elements, or rows through pointers) and the layout's extras. (Also the values of a
/// loop's copies made where the loop begins, reduction.rs `View::local_copy`.)
pub(crate) fn view_args<'ctx>(b: &Builder<'ctx>, x: &Var<'ctx>) -> Vec<Value<'ctx>> {
    let i64t = x.length.context().i64();
    let wide = |v: Value<'ctx>| b.sext_or_trunc(v, i64t);
    match ViewLayout::of(x) {
        ViewLayout::Flat => vec![wide(x.length)],
        ViewLayout::Part(_) => {
            let count = x.dims.iter().fold(wide(x.length), |n, d| b.binop(Opcode::LLVMMul, n, wide(d.extent)));
            std::iter::once(count).chain(x.dims.iter().flat_map(|d| [wide(d.lower), wide(d.length), wide(d.extent)])).collect()
        }
        ViewLayout::Rows { .. } => {
            let (mut dims, _) = rows_dims(b, x);
            dims.push(wide(x.rows.last().expect("rows").length));
            dims.extend(x.dims.iter().flat_map(|d| [wide(d.lower), wide(d.length), wide(d.extent)]));
            dims
        }
    }
}

/// In kernel `k`, the parameters after a reduction's room's offset (the operand of its
/// `__acc_private_copy` call `call`): the section's start in bytes, its count and the
/// layout's `extras` ([`ViewLayout`]).
pub fn view_params<'ctx>(k: Value<'ctx>, call: Value<'ctx>, extras: usize) -> Option<(Value<'ctx>, Value<'ctx>, Vec<Value<'ctx>>)> {
    let params = k.params();
    let at = params.iter().position(|p| *p == call.call_arg(5))?;
    Some((*params.get(at + 1)?, *params.get(at + 2)?, params.get(at + 3..at + 3 + extras)?.to_vec()))
}

/// Where a private copy of run-time size is made.
#[derive(Clone, Debug)]
pub enum Placing<'ctx> {
    /// In the launch's area, with its bounds known before the region (a loop clause's
    /// section computed inside the region is computed again before it).
    Area(Source<'ctx>),
    /// Per iteration of its loop, inside the kernel: a loop clause's section whose bounds
    /// the region computes.
    InLoop(InLoopCopy<'ctx>),
}

/// Where copy `source` of captured variable `v` (named by a clause of `origin`) is made: a
/// loop clause's section is computed inside the region, where the host stub cannot read it,
/// so its bounds are computed again before the region (`before`, in the host function whose
/// CFG is `cfg`) when they can be, else it is made in the loop.
pub fn place<'ctx>(v: Value<'ctx>, source: Source<'ctx>, origin: Origin, loops: &[Directive<'ctx>], before: Value<'ctx>, cfg: &crate::cfg::FunctionCfg<'ctx>) -> Placing<'ctx> {
    let (Source::Section(x) | Source::Member(x), Origin::Loop(id)) = (&source, origin) else { return Placing::Area(source) };
    if let Some(y) = computed_again(x, before, cfg) {
        return Placing::Area(match source {
            Source::Member(_) => Source::Member(y),
            _ => Source::Section(y),
        });
    }
    let l = loops.iter().find(|l| l.id == id).expect("the origin names one of the region's loops");
    // A member's path is found now, while the region is still in the host function.
    let member = matches!(source, Source::Member(_)).then(|| member_path(strip(x.base).operand(0))).flatten();
    Placing::InLoop(InLoopCopy { value: v, var: x.clone(), begin: l.begin, end: l.end, loc: l.loc.clone(), member })
}

/// A loop's `private` section of a pointer variable whose bounds the region computes
/// (`int k = ...; #pragma acc loop vector private(t[0:k])`): the launch's area cannot be sized
/// for it, so each iteration of the loop gets its copy where the iteration starts (OpenACC
/// 3.3 §2.9.10: a copy per iteration), as if the body declared `T copy[k]`: a dynamic alloca
/// between a stack save at the body's start and a restore at the latch. Its placement then
/// follows the variable-length arrays' (privatize.rs): each thread's own stack when only the
/// loop's own lanes use it (the heap over 256 bytes), the device heap (one per gang or
/// worker) when a finer loop inside shares it. The loop body's loads of the pointer read a slot holding the copy's address
/// minus the section's start; uses outside the loop keep the shared pointer.
#[derive(Clone, Debug)]
pub struct InLoopCopy<'ctx> {
    /// The pointer variable (a captured variable of the region).
    pub value: Value<'ctx>,
    pub var: Var<'ctx>,
    /// The loop directive's markers and position.
    pub begin: Value<'ctx>,
    pub end: Value<'ctx>,
    pub loc: crate::error::Loc,
    /// A member's section (`s.p[0:k]`, `ps->p[0:k]`): where the member is (found while the
    /// region is still in the host function); `value` is its root variable, and the body's
    /// loads of the member read the copy.
    pub member: Option<MemberPath<'ctx>>,
}

/// Makes in-loop copy `c` in outlined function `f`, where the pointer variable's storage is
/// `storage` (its private slot or parameter, outline.rs).
pub fn emit_in_loop<'ctx>(m: Module<'ctx>, f: Value<'ctx>, c: &InLoopCopy<'ctx>, storage: Value<'ctx>, slot_in: &dyn Fn(Value<'ctx>) -> Option<Value<'ctx>>) -> Result<()> {
    let ctx = m.context();
    let cfg = crate::cfg::FunctionCfg::new(f);
    let l = crate::loops::find_bound_loop(&cfg, c.begin, c.end, &c.loc)?;
    let unsupported = |why: &str| AccError::unsupported(&c.loc, format!("'private({})' on a loop whose bounds are computed inside the compute region, {why}", c.var.text));
    let [latch] = l.latches[..] else { return Err(unsupported("whose loop has several back edges")) };
    let header = cfg.blocks[l.header];
    let body_entry = header
        .terminator()
        .expect("verified IR has terminators")
        .successors()
        .into_iter()
        .find(|s| s != &header && l.body.contains(&cfg.index[s]))
        .ok_or_else(|| unsupported("whose loop has no body"))?;
    // The copy is made once per iteration: not in a block that an inner loop repeats.
    if cfg.loops().iter().any(|o| o.header != l.header && l.body.contains(&o.header) && o.body.contains(&cfg.index[&body_entry])) {
        return Err(unsupported("whose body starts with another loop's repeated block"));
    }
    let latch = cfg.blocks[latch];
    let i64t = ctx.i64();
    let b = ctx.builder();
    b.position_before(f.entry_block().first_instruction().expect("the entry block has its branch"));
    let slot = b.alloca(ctx.ptr(), &format!("{}.iteration", c.var.text));
    b.position_before(body_entry.first_non_phi().expect("a block has a terminator"));
    let save = b.call(m.get_or_add_function("llvm.stacksave.p0", ctx.fn_type(ctx.ptr(), &[], false)), &[], "");
    let elem = b.sext_or_trunc(c.var.elem_size, i64t);
    let rebase = b.binop(Opcode::LLVMMul, b.sext_or_trunc(c.var.lower, i64t), elem);
    let bytes = if c.var.rows.is_empty() { b.binop(Opcode::LLVMMul, b.sext_or_trunc(c.var.length, i64t), elem) } else { rows_bytes(&b, &c.var) };
    let copy = b.array_alloca(ctx.i8(), bytes, &c.var.text);
    copy.set_alignment(ALIGN as u32);
    if !c.var.rows.is_empty() {
        // Through pointer rows: each level's pointers aimed at the next, as for the area's
        // copies (nothing to fill: a loop's copy is private, never firstprivate).
        let at_entry = ctx.builder();
        at_entry.position_before(f.entry_block().first_instruction().expect("the entry block has its branch"));
        let (dims, row_bytes) = rows_dims(&b, &c.var);
        call_rows(m, &b, &at_entry, copy, &dims, row_bytes, ctx.ptr().const_null(), i64t.const_int(CopyLevel::Thread as u64));
    }
    b.store(b.gep_bytes(ctx, copy, b.binop(Opcode::LLVMSub, i64t.const_int(0), rebase)), slot);
    b.position_before(latch.terminator().expect("verified IR has terminators"));
    b.call(m.get_or_add_function("llvm.stackrestore.p0", ctx.fn_type(ctx.void(), &[ctx.ptr()], false)), &[save], "");
    // The header's loads run before the iteration's copy exists (the loop's condition).
    let body: std::collections::HashSet<crate::ir::Block> = l.body.iter().filter(|&&i| i != l.header).map(|&i| cfg.blocks[i]).collect();
    if let Some(path) = &c.member {
        // The member's loads in the body: each becomes a load of the slot.
        for load in loads_of_member(f, path, storage, slot_in).into_iter().filter(|i| body.contains(&i.parent_block())) {
            b.position_before(load);
            load.replace_all_uses_with(b.load(ctx.ptr(), slot, ""));
            load.erase();
        }
    } else {
        for u in storage.users() {
            if u.is_instruction() && u.opcode() == Some(Opcode::LLVMLoad) && u.operand(0) == storage && body.contains(&u.parent_block()) {
                u.set_operand(0, slot);
            }
        }
    }
    // The clause's marker no longer needs the pointer: passed to a call it would escape, and
    // what the kernel still reaches through it could not be bounded (implicit_bounds.rs). A
    // null in its place, not the slot: a read of the slot before the loop would merge the
    // copies of different iterations (and privatize would see the gang's code use them).
    let base = strip(c.var.base);
    let ours = base.opcode() == Some(Opcode::LLVMLoad) && (c.member.is_some() || base.operand(0) == storage);
    if ours {
        for u in base.users() {
            if u.is_call() && u.called_name().as_deref() == Some(crate::contract::CLAUSE) {
                for i in 0..u.num_operands() {
                    if u.operand(i) == base {
                        u.set_operand(i, ctx.ptr().const_null());
                    }
                }
            }
        }
    }
    Ok(())
}

/// `private`/`firstprivate` of a section of several dimensions through a pointer, or of one
/// whose pointer is neither a variable of its own nor a member at constant offsets from a
/// variable or from its target (`pp[i][0:n]`, `ps->q->p[0:n]`): a located error, not the
/// pointee silently shared.
pub fn check_sections<'ctx>(d: &Directive<'ctx>, loops: &[Directive<'ctx>]) -> Result<()> {
    for l in std::iter::once(d).chain(loops) {
        for c in &l.clauses {
            let (Clause::Private(x) | Clause::FirstPrivate(x)) = c else { continue };
            let b = strip(x.base);
            if b.opcode() != Some(Opcode::LLVMLoad) {
                continue;
            }
            let slot = strip(b.operand(0));
            let variable = (slot.is_alloca() || slot.is_global_variable()) && crate::outline::variable_type(slot).is_ptr();
            let clause = if matches!(c, Clause::Private(_)) { "private" } else { "firstprivate" };
            if !variable && member_path(b.operand(0)).is_none() {
                return Err(AccError::unsupported(
                    &l.loc,
                    format!("'{clause}({})': a private copy of a section whose pointer is computed other than from variables by members and indices (copy the pointer to a local variable and privatise its section)", x.text),
                ));
            }
        }
    }
    Ok(())
}

/// Copies for the arrays of run-time size that `region` declares (`double t[m];` inside it:
/// a dynamic alloca, which on the device would be each thread's own), placed by their uses,
/// when their size can be computed before the region (`before`; in the host function whose
/// CFG is `cfg`). One whose size cannot stays a dynamic alloca.
pub fn declared_vlas<'ctx>(m: Module<'ctx>, region: &[crate::ir::Block<'ctx>], before: Value<'ctx>, cfg: &crate::cfg::FunctionCfg<'ctx>) -> Vec<Copy<'ctx>> {
    let ctx = m.context();
    let mut out = Vec::new();
    for a in region.iter().flat_map(|b| b.instructions()).filter(|i| i.is_alloca()) {
        let Some(count) = crate::outline::vla_count(a) else { continue };
        let Some(count) = crate::reduction::computed_before(count, before, cfg, 0) else { continue };
        let b = ctx.builder();
        b.position_before(before);
        let count = b.zext_or_trunc(count, ctx.i64());
        let bytes = b.binop(Opcode::LLVMMul, count, ctx.i64().const_int(a.allocated_type().store_size(m)));
        out.push(Copy { value: a, name: crate::outline::display_name(a), source: Source::Whole(bytes), initialised: false, origin: Origin::Uses });
    }
    out
}

/// The implied data clause of a firstprivate copy: its data must be on the device to be
/// copied from (present data is used as is).
pub fn implied_copyin<'ctx>(m: Module<'ctx>, c: &Copy<'ctx>) -> Option<Clause<'ctx>> {
    if !c.initialised {
        return None;
    }
    let i64t = m.context().i64();
    let var = match &c.source {
        Source::Section(x) | Source::Member(x) => x.clone(),
        Source::Whole(bytes) => Var { base: c.value, lower: i64t.const_int(0), length: i64t.const_int(1), elem_size: *bytes, text: c.name.clone(), dims: Vec::new(), rows: Vec::new() },
        Source::ReductionView(_) => return None,
    };
    Some(Clause::Data(DataKind::CopyIn, var))
}

/// Whether data clause item `v` of kind `k` is the implied `copyin` of a firstprivate copy
/// of `copies` ([`implied_copyin`]; for the compile report).
pub fn is_implied_copyin<'ctx>(copies: &[Copy<'ctx>], k: DataKind, v: &Var<'ctx>) -> bool {
    k == DataKind::CopyIn
        && copies.iter().any(|c| {
            c.initialised
                && match &c.source {
                    Source::Section(x) | Source::Member(x) => x.base == v.base && x.text == v.text,
                    Source::Whole(_) => v.base == c.value,
                    Source::ReductionView(_) => false,
                }
        })
}

/// The parameter types the copies add to the outlined function.
pub fn param_types<'ctx>(ctx: Context<'ctx>, copies: &[Copy<'ctx>]) -> Vec<crate::ir::Type<'ctx>> {
    if copies.is_empty() {
        return Vec::new();
    }
    let mut t = vec![ctx.ptr(), ctx.i64(), ctx.i64(), ctx.i64()];
    for c in copies {
        t.extend([ctx.i64(), ctx.i64()]);
        if let Source::ReductionView(x) = &c.source {
            t.extend(std::iter::repeat_n(ctx.i64(), 1 + ViewLayout::of(x).extras()));
        }
        // Per level of pointer rows: its count and rebase; the row's bytes once.
        match row_levels(c).len() {
            0 => {}
            levels => t.extend(std::iter::repeat_n(ctx.i64(), 2 * levels + 1)),
        }
        if c.initialised {
            t.extend([ctx.ptr(), ctx.i64()]);
        }
    }
    t
}

/// Emits the copies at the outlined function's entry (`b` there), `params` being its
/// parameters from the area's on; returns, per copy, what replaces the captured variable.
pub fn emit_entry<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, copies: &[Copy<'ctx>], params: &[Value<'ctx>], names: &[String], types: &[crate::ir::Type<'ctx>]) -> Vec<Value<'ctx>> {
    let ctx = m.context();
    let (i64t, ptr) = (ctx.i64(), ctx.ptr());
    let copy_fn = m.get_or_add_function(COPY_FN, ctx.fn_type(ptr, &[ptr, i64t, i64t, i64t, i64t, i64t], false));
    let init_fn = m.get_or_add_function(INIT_FN, ctx.fn_type(ctx.void(), &[ptr, ptr, i64t, i64t], false));
    let (area, sizes) = (params[0], &params[1..4]);
    let mut at = 4;
    let mut out = Vec::new();
    let mut inits = Vec::new();
    let mut rows = Vec::new();
    for ((c, name), ty) in copies.iter().zip(names).zip(types) {
        let (offset, rebase) = (params[at], params[at + 1]);
        at += 2;
        if let Source::ReductionView(x) = &c.source {
            // The section's count and its layout's extras follow the rebase; reduction.rs
            // reads them (`view_args`).
            at += 1 + ViewLayout::of(x).extras();
            let level = i64t.const_int(CopyLevel::Thread as u64);
            out.push(b.call(copy_fn, &[area, sizes[0], sizes[1], sizes[2], level, offset], &format!("{name}{VIEW_SUFFIX}")));
            continue;
        }
        let copy = b.call(copy_fn, &[area, sizes[0], sizes[1], sizes[2], i64t.const_int(CopyLevel::Gang as u64), offset], &format!("{name}.copy"));
        // `[count 0, row bytes, rebase 0, count 1, rebase 1, ...]` (stub_args).
        let shape = match row_levels(c).len() {
            0 => None,
            levels => {
                let p = &params[at..at + 2 * levels + 1];
                at += 2 * levels + 1;
                let mut dims = vec![p[0], p[2]];
                dims.extend_from_slice(&p[3..]);
                Some((dims, p[1]))
            }
        };
        let source = c.initialised.then(|| {
            at += 2;
            (params[at - 2], params[at - 1])
        });
        match (shape, source) {
            (Some((dims, row_bytes)), source) => rows.push((copy, dims, row_bytes, source.map_or(ptr.const_null(), |s| s.0))),
            (None, Some((source, bytes))) => inits.push((copy, source, bytes)),
            (None, None) => {}
        }
        out.push(match c.source {
            Source::Section(_) => {
                // The pointer variable's private slot: `p[i]` is the copy's element `i`.
                let slot = b.alloca(*ty, &format!("{name}.private"));
                let back = b.binop(Opcode::LLVMSub, i64t.const_int(0), rebase);
                b.store(b.gep_bytes(ctx, copy, back), slot);
                slot
            }
            Source::Whole(_) | Source::ReductionView(_) => copy,
            // What the member's loads become (build_function replaces them).
            Source::Member(_) => {
                let back = b.binop(Opcode::LLVMSub, i64t.const_int(0), rebase);
                b.gep_bytes(ctx, copy, back)
            }
        });
    }
    // After every copy's address: each init ends with a gang barrier.
    // (Their last operand, the copy's level, is set with the copy's: `set_levels`.)
    let gang = i64t.const_int(CopyLevel::Gang as u64);
    for (copy, source, bytes) in inits {
        b.call(init_fn, &[copy, source, bytes, gang], "");
    }
    for (copy, dims, row_bytes, source) in rows {
        call_rows(m, b, b, copy, &dims, row_bytes, source, gang);
    }
    out
}

/// `__acc_private_rows(copy, levels, dims, row_bytes, source, level)` where `b` is, with the
/// levels' counts and rebases (`dims`, [`rows_dims`]) in an array of the thread's own that
/// `at_entry` (positioned in the function's entry block) allocates.
#[allow(clippy::too_many_arguments)]
pub(crate) fn call_rows<'ctx>(m: Module<'ctx>, b: &Builder<'ctx>, at_entry: &Builder<'ctx>, copy: Value<'ctx>, dims: &[Value<'ctx>], row_bytes: Value<'ctx>, source: Value<'ctx>, level: Value<'ctx>) {
    let ctx = m.context();
    let (i64t, ptr) = (ctx.i64(), ctx.ptr());
    let rows_fn = m.get_or_add_function(ROWS_FN, ctx.fn_type(ctx.void(), &[ptr, i64t, ptr, i64t, ptr, i64t], false));
    let table = at_entry.alloca(ctx.array_type(i64t, dims.len() as u64), "acc.private.rows");
    for (i, d) in dims.iter().enumerate() {
        b.store(*d, b.gep(i64t, table, &[i64t.const_int(i as u64)], true));
    }
    let levels = i64t.const_int(dims.len() as u64 / 2);
    b.call(rows_fn, &[copy, levels, table, row_bytes, source, level], "");
}

/// A section through pointer rows, as `__acc_private_rows` takes it: per level its count
/// (entries per sub-table) and the rebase of what its entries point to (`[count 0, rebase
/// 0, count 1, rebase 1, ...]`), and the bytes of a row; computed where `b` is.
fn rows_dims<'ctx>(b: &Builder<'ctx>, x: &Var<'ctx>) -> (Vec<Value<'ctx>>, Value<'ctx>) {
    let i64t = x.length.context().i64();
    let rebase = |r: &crate::contract::RowLevel<'ctx>| b.binop(Opcode::LLVMMul, b.sext_or_trunc(r.lower, i64t), i64t.const_int(r.elem_size));
    let last = x.rows.last().expect("a section through pointer rows");
    let row_bytes = b.binop(Opcode::LLVMMul, b.sext_or_trunc(last.length, i64t), i64t.const_int(last.elem_size));
    let mut dims = vec![b.sext_or_trunc(x.length, i64t), rebase(&x.rows[0])];
    for (above, r) in x.rows.iter().zip(&x.rows[1..]) {
        dims.extend([b.sext_or_trunc(above.length, i64t), rebase(r)]);
    }
    (dims, row_bytes)
}

/// The bytes of a copy of a section through pointer rows: each level's pointers (rounded up
/// to 16 bytes), then every row (runtime-ir/private.c, `__acc_private_rows`); computed where
/// `b` is.
fn rows_bytes<'ctx>(b: &Builder<'ctx>, x: &Var<'ctx>) -> Value<'ctx> {
    let i64t = x.length.context().i64();
    let (last, above) = x.rows.split_last().expect("a section through pointer rows");
    let align = |v: Value<'ctx>| b.binop(Opcode::LLVMAnd, b.binop(Opcode::LLVMAdd, v, i64t.const_int(ALIGN - 1)), i64t.const_int(!(ALIGN - 1)));
    let mut entries = b.sext_or_trunc(x.length, i64t);
    let mut total = align(b.binop(Opcode::LLVMMul, entries, i64t.const_int(8)));
    for r in above {
        entries = b.binop(Opcode::LLVMMul, entries, b.sext_or_trunc(r.length, i64t));
        total = b.binop(Opcode::LLVMAdd, total, align(b.binop(Opcode::LLVMMul, entries, i64t.const_int(8))));
    }
    let row = b.binop(Opcode::LLVMMul, b.sext_or_trunc(last.length, i64t), i64t.const_int(last.elem_size));
    b.binop(Opcode::LLVMAdd, total, b.binop(Opcode::LLVMMul, entries, row))
}

/// The levels of pointer rows of a copy of a section through them (`p[0:n][0:m]` of `double
/// **p`: one; `q[0:a][0:b][0:c]` of `int ***q`: two).
fn row_levels<'a, 'ctx>(c: &'a Copy<'ctx>) -> &'a [crate::contract::RowLevel<'ctx>] {
    match &c.source {
        Source::Section(x) | Source::Member(x) => &x.rows,
        Source::Whole(_) | Source::ReductionView(_) => &[],
    }
}

/// The levels of a kernel's copies, in the region's order: a construct's `firstprivate` is
/// the gang's; `private` on a combined construct takes its loop's level, on a `parallel`
/// construct the gang's; on a loop, the loop's (`effective`, per directive of `loops`, the
/// combined loop first when `combined`). Sets each `__acc_private_copy` call of kernel `k`
/// to its copy's level.
pub fn set_levels<'ctx>(k: Value<'ctx>, directive: &Directive<'ctx>, copies: &[Copy<'ctx>], loops: &[Directive<'ctx>], effective: &[Levels]) -> Vec<CopyLevel> {
    let combined = matches!(directive.kind, DirectiveKind::Compute { combined_loop: true, .. });
    let loop_levels = &effective[usize::from(combined)..];
    let levels: Vec<CopyLevel> = copies
        .iter()
        .map(|c| match c.origin {
            // A reduction's copies are each thread's own (reduction.rs's trees combine them).
            _ if matches!(c.source, Source::ReductionView(_)) => CopyLevel::Thread,
            // A combined construct's copy (firstprivate too) is its loop's executors': a
            // loop spread over workers and lanes runs the gang's iterations at once.
            Origin::Construct if combined => level_of(effective[0]),
            _ if c.initialised => CopyLevel::Gang,
            Origin::Construct | Origin::Uses => CopyLevel::Gang,
            Origin::Loop(id) => loops.iter().zip(loop_levels).find(|(l, _)| l.id == id).map_or(CopyLevel::Gang, |(_, lv)| level_of(*lv)),
        })
        .collect();
    let calls: Vec<Value> = k.entry_block().instructions().into_iter().filter(|i| i.called_name().as_deref() == Some(COPY_FN)).collect();
    let i64t = k.context().i64();
    for (call, level) in calls.iter().zip(&levels) {
        call.set_operand(4, i64t.const_int(*level as u64));
        // The fill of the copy is shared by the threads that share the copy.
        for fill in call.users().into_iter().filter(|u| matches!(u.called_name().as_deref(), Some(INIT_FN | ROWS_FN)) && u.call_arg(0) == *call) {
            let last = fill.call_arg_count() - 1;
            fill.set_operand(last, i64t.const_int(*level as u64));
        }
    }
    levels
}

/// The values the host stub passes for the copies (after the captures and the scratch):
/// `levels` per copy (all `Gang` on the host path, whose one block is `G + W + T` bytes);
/// `sizes` per copy its `(host address, bytes, rebase)`, `sources` per firstprivate copy its
/// source (the host address on the host path, the device one on the device). Returns the
/// arguments with a null area (the runtime's slot on the device; the host path's block is
/// `total` bytes, the second value) and the byte count G + W + T.
pub fn stub_args<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, copies: &[Copy<'ctx>], levels: &[CopyLevel], multiples: &[u64], sizes: &[(Value<'ctx>, Value<'ctx>, Value<'ctx>)], sources: &[Value<'ctx>]) -> (Vec<Value<'ctx>>, Value<'ctx>) {
    let i64t = ctx.i64();
    let align = |v: Value<'ctx>| {
        let up = b.binop(Opcode::LLVMAdd, v, i64t.const_int(ALIGN - 1));
        b.binop(Opcode::LLVMAnd, up, i64t.const_int(!(ALIGN - 1)))
    };
    let mut level_bytes = [i64t.const_int(0); 3];
    let mut per_copy = Vec::new();
    for (((_, bytes, rebase), level), multiple) in sizes.iter().zip(levels).zip(multiples) {
        if *level == CopyLevel::Local || *multiple == 0 {
            per_copy.push((i64t.const_int(0), *rebase));
            continue;
        }
        let l = *level as usize;
        per_copy.push((level_bytes[l], *rebase));
        let room = b.binop(Opcode::LLVMMul, align(*bytes), i64t.const_int(*multiple));
        level_bytes[l] = b.binop(Opcode::LLVMAdd, level_bytes[l], room);
    }
    let mut args = vec![ctx.ptr().const_null(), level_bytes[0], level_bytes[1], level_bytes[2]];
    let mut src = sources.iter();
    for ((c, (offset, rebase)), (_, bytes, _)) in copies.iter().zip(per_copy).zip(sizes) {
        args.extend([offset, rebase]);
        if let Source::ReductionView(x) = &c.source {
            args.extend(view_args(b, x));
        }
        if let (false, Source::Section(x) | Source::Member(x)) = (row_levels(c).is_empty(), &c.source) {
            // The row's bytes after the first level's pair: `[count 0, row bytes, rebase 0,
            // count 1, rebase 1, ...]`.
            let (dims, row_bytes) = rows_dims(b, x);
            args.extend([dims[0], row_bytes, dims[1]]);
            args.extend_from_slice(&dims[2..]);
        }
        if c.initialised {
            args.extend([*src.next().expect("a source per firstprivate copy"), *bytes]);
        }
    }
    let total = b.binop(Opcode::LLVMAdd, b.binop(Opcode::LLVMAdd, level_bytes[0], level_bytes[1]), level_bytes[2]);
    (args, total)
}

/// Per copy, its `(host address, bytes, rebase)` at the stub (the address only of what a
/// firstprivate copy is filled from: an array the region declares has none; null then).
pub fn host_ranges<'ctx>(b: &Builder<'ctx>, ctx: Context<'ctx>, copies: &[Copy<'ctx>]) -> Vec<(Value<'ctx>, Value<'ctx>, Value<'ctx>)> {
    let i64t = ctx.i64();
    copies
        .iter()
        .map(|c| match &c.source {
            Source::ReductionView(x) => {
                // Whole rows of a part of each row; a row table and the rows through pointers.
                let bytes = match ViewLayout::of(x) {
                    ViewLayout::Rows { .. } => rows_bytes(b, x),
                    _ => b.binop(Opcode::LLVMMul, b.sext_or_trunc(x.length, i64t), b.sext_or_trunc(x.elem_size, i64t)),
                };
                (ctx.ptr().const_null(), bytes, b.binop(Opcode::LLVMMul, x.lower, x.elem_size))
            }
            Source::Section(x) | Source::Member(x) => {
                let (addr, bytes) = crate::host_stub::section(b, ctx, x);
                let bytes = if x.rows.is_empty() { bytes } else { rows_bytes(b, x) };
                (addr, bytes, b.binop(Opcode::LLVMMul, x.lower, x.elem_size))
            }
            Source::Whole(bytes) if c.initialised => (c.value, *bytes, i64t.const_int(0)),
            Source::Whole(bytes) => (ctx.ptr().const_null(), *bytes, i64t.const_int(0)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_private_arrays_leave_shared_memory_first() {
        assert_eq!(beyond_shared(&[(0, 1000), (3, 2000)], 40960), Vec::<usize>::new());
        assert_eq!(beyond_shared(&[(0, 30000), (3, 50000), (4, 8000)], 40960), vec![1]);
        assert_eq!(beyond_shared(&[(0, 30000), (3, 30000), (4, 8000)], 40960), vec![0]);
        assert_eq!(beyond_shared(&[(0, 80000), (1, 90000)], 40960), vec![1, 0]);
    }

    #[test]
    fn copies_follow_the_finest_level_of_their_loop() {
        let l = |gang, worker, vector| Levels { gang, worker, vector };
        assert_eq!(level_of(l(true, false, false)), CopyLevel::Gang);
        assert_eq!(level_of(l(true, true, false)), CopyLevel::Worker);
        assert_eq!(level_of(l(false, true, false)), CopyLevel::Worker);
        assert_eq!(level_of(l(true, true, true)), CopyLevel::Thread);
        assert_eq!(level_of(l(false, false, true)), CopyLevel::Thread);
        assert_eq!(level_of(Levels::NONE), CopyLevel::Gang);
    }
}
