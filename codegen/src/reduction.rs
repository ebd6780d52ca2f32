//! Reductions: private copies, the trees that combine them, and the last-gang combine.
//!
//! Expects: a kernel before SSA construction (variables still in memory), its loop
//! directives' `begin`/`end` markers in place with their effective levels (mapping.rs),
//! the clause calls already read (the `reduction` items hold the kernel's pointers to the
//! variables) and `runtime-ir/reduce.c` linked into the module (`link_helpers`).
//!
//! Produces, following OpenUH (shared/seeds/reduction-in-parallel-loops-pmam14*.txt and
//! nested-loop-transformation-openuh-ccpe.txt §5):
//! - **Placement.** A clause applies to its loop and, when written once on an outer loop
//!   (or on the compute construct), to every nested partitioned loop that uses the variable
//!   (`propagate`): writing it once on the loop nearest the result's next use or on every
//!   level gives the same program.
//! - **Per loop with a reduction** (a *site*): a private copy (`<var>.red`, an alloca)
//!   set to the operator's identity at the loop's begin; the loop's uses of the variable go
//!   to it. At the loop's end the copies of the threads that shared the loop's iterations
//!   inside a gang are combined by a tree (`within_gang`: the lanes of a worker, or the whole
//!   gang, warp shuffles then one partial per warp in shared memory) that leaves the result
//!   on every one of those threads, and the result is combined once into the variable as it
//!   was before the loop (a load and a store that `guard` makes single-lane when the
//!   variable is shared).
//! - **Across gangs** (the construct has the clause, or a loop spanning gangs does): the
//!   variable itself (device memory) is replaced in the whole kernel by a per-gang copy
//!   (`<var>.gang`) starting at the identity; at the kernel's end each gang leaves its value
//!   in the runtime's scratch buffer (the kernel's last parameter) and the last gang to
//!   finish combines them in gang order, then the variable's original value, once.
//!
//! - **Per iteration** (`&&`/`||` on a scalar, innermost site): a copy of its own at the
//!   identity, combined into the thread's copy at the latch (`fresh_each_iteration`), so the
//!   short circuit folds away and loads of consecutive iterations do not wait on each other.
//!
//! The operators and types live in `runtime-ir/reduce.c` (`__acc_red_<kind>_<op>_<type>`,
//! which also picks `redux.sync` or shuffles); this module only decides where the calls go.
//! Sections with bounds that are not constants are updated with atomics (atomic_reduction.rs)
//! or, when the region reads an element, get copies of run-time size ([`View`]: in the
//! launch's private area, or made where a loop begins when the region computes the bounds).
//! Does not do struct reductions (OpenACC reduces arithmetic types) or merging the trees of
//! several variables of one loop into one pass.

use crate::contract::{Reduction, Var};
use crate::error::{AccError, Loc, Result};
use crate::ir::{Block, Module, Opcode, Type, Value};
use crate::mapping::Levels;
use crate::outline::strip;
use acc_directives::{ReductionOp, ReductionType};
use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// Prefix of the combine helpers, which guard.rs treats as a store to their first argument.
pub const COMBINE_PREFIX: &str = "__acc_red_combine_";

/// Name of the outlined function's last parameter when it has reductions.
pub const SCRATCH_PARAM: &str = "acc.scratch";
/// The shared-memory buffer every tree of a module uses (reduce.c: SMEM_SLOTS x 16 bytes).
pub const SMEM: &str = "acc.red.smem";
const SMEM_BYTES: u64 = 50 * 16;

const HELPERS_BC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/reduce.bc"));

/// How the private copies of one loop's threads inside a gang are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Within {
    /// One thread per gang does the loop's iterations (or all do the same ones).
    Nothing,
    /// The vector lanes of each worker (a vector loop inside a worker loop).
    Worker,
    /// Every thread of the gang; `lane0_only`: a worker loop whose lanes hold copies of
    /// one value (vector-single code), so only lane 0 of each worker counts.
    Gang { lane0_only: bool },
}

/// The tree for a loop partitioned over `levels` (its effective levels: a vector loop
/// without a worker loop around it also has the worker level).
pub fn within_gang(levels: Levels) -> Within {
    match (levels.worker, levels.vector) {
        (true, true) => Within::Gang { lane0_only: false },
        (true, false) => Within::Gang { lane0_only: true },
        (false, true) => Within::Worker,
        (false, false) => Within::Nothing,
    }
}

impl Within {
    pub fn describe(self) -> &'static str {
        match self {
            Within::Nothing => "no tree",
            Within::Worker => "worker tree (a worker is one warp)",
            Within::Gang { lane0_only: false } => "gang tree (a partial per warp in shared memory)",
            Within::Gang { lane0_only: true } => "gang tree over lane 0 of each worker (a partial per warp in shared memory)",
        }
    }
}

/// How one warp combines its lanes' values (reduce.c): `redux.sync` for integers of at most
/// 32 bits on sm_80 and later (any operator but `*`), shuffles otherwise.
pub fn warp_step(op: ReductionOp, ty: ReductionType) -> &'static str {
    use ReductionType::*;
    let narrow_int = matches!(ty, I8 | U8 | I16 | U16 | I32 | U32 | Bool);
    if narrow_int && op != ReductionOp::Mul {
        "redux.sync per warp from sm_80, shuffles before"
    } else {
        "shuffles per warp"
    }
}

/// One reduction item, its variable identified by `key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item<K> {
    pub key: K,
    pub op: ReductionOp,
    pub ty: ReductionType,
    pub text: String,
    pub shape: Shape,
}

/// The elements a reduction item covers: `n` elements from `lo` (a scalar: one element,
/// not an array); for a part of each row (`m[1:3][2:4]`), `lo`/`n` are the whole rows and
/// `part` says which columns of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub lo: u64,
    pub n: u64,
    pub array: bool,
    pub part: Option<Part>,
}

/// The columns of each row that a reduction over a part of each row covers: `cols` from
/// `first`, in rows of `row` elements. Its private copies hold the whole rows (the body
/// indexes them as the variable's); only the combines into the variable itself keep to the
/// part (the other elements are not the reduction's: `x && 1` would change a 5 to 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub first: u64,
    pub cols: u64,
    pub row: u64,
}

impl Shape {
    pub const SCALAR: Shape = Shape { lo: 0, n: 1, array: false, part: None };

    /// The elements combined into the variable (per-gang partials for each): `n`, or the
    /// part's columns of every row.
    pub fn columns(self) -> u64 {
        match self.part {
            Some(p) => self.n / p.row * p.cols,
            None => self.n,
        }
    }

    /// From a clause item's constant operands (docs/ir-contract.md): a scalar `&v, 0, 1,
    /// size`; a whole array `&a, 0, 1, k * size`; a section `a, lo, n, size`. None when the
    /// bounds are not constants or do not fit the element type.
    pub fn of(lower: Option<i64>, length: Option<i64>, elem_size: Option<i64>, ty_size: u64) -> Option<Shape> {
        let (lo, len, size) = (u64::try_from(lower?).ok()?, u64::try_from(length?).ok()?, u64::try_from(elem_size?).ok()?);
        if size == ty_size && lo == 0 && len == 1 {
            return Some(Shape::SCALAR);
        }
        if size == ty_size && len >= 1 {
            return Some(Shape { lo, n: len, array: true, part: None });
        }
        // Whole rows (`a[lo:len][:]` of `double a[N][M]`, a whole array `&a, 0, 1, N * size`):
        // the elements of rows lo .. lo + len, which the body addresses as the variable's.
        if size > ty_size && size % ty_size == 0 {
            let per_row = size / ty_size;
            if len == 0 {
                return None;
            }
            return Some(Shape { lo: lo.checked_mul(per_row)?, n: len.checked_mul(per_row)?, array: true, part: None });
        }
        None
    }

    /// Elements the private copy holds (from element 0, so that the program's indices
    /// address it as they do the variable).
    pub fn extent(self) -> u64 {
        self.lo + self.n
    }
}

/// What `propagate` needs to know about one loop directive (program order, parents first).
#[derive(Clone, Debug)]
pub struct LoopNode<K> {
    pub explicit: Vec<Item<K>>,
    pub parent: Option<usize>,
    /// The variables the loop's body uses.
    pub uses: HashSet<K>,
    /// Variables a `private` clause of this loop names: an outer reduction stops there.
    pub private: HashSet<K>,
}

/// Per loop, the reductions that apply to it: its own clause's items, and those of an
/// enclosing loop or of the construct whose variable it uses (OpenUH's placement).
/// `Err((loop, message))` when a loop names a variable again with another operator.
pub fn propagate<K: Clone + Eq + Hash>(construct: &[Item<K>], loops: &[LoopNode<K>]) -> std::result::Result<Vec<Vec<Item<K>>>, (usize, String)> {
    let mut applied: Vec<Vec<Item<K>>> = Vec::with_capacity(loops.len());
    // What the loops inside each loop inherit.
    let mut avail: Vec<Vec<Item<K>>> = Vec::with_capacity(loops.len());
    for (i, l) in loops.iter().enumerate() {
        let outer: Vec<Item<K>> = match l.parent {
            Some(p) => avail[p].clone(),
            None => construct.to_vec(),
        };
        let mut mine: Vec<Item<K>> = Vec::new();
        for e in &l.explicit {
            if let Some(o) = outer.iter().find(|o| o.key == e.key && o.op != e.op) {
                return Err((i, format!("'{}' is reduced with '{}' here but with '{}' around this loop", e.text, e.op.symbol(), o.op.symbol())));
            }
            if !mine.iter().any(|m| m.key == e.key) {
                mine.push(e.clone());
            }
        }
        for o in &outer {
            if l.uses.contains(&o.key) && !l.private.contains(&o.key) && !mine.iter().any(|m| m.key == o.key) {
                mine.push(o.clone());
            }
        }
        let mut next: Vec<Item<K>> = outer.into_iter().filter(|o| !l.private.contains(&o.key) && !mine.iter().any(|m| m.key == o.key)).collect();
        next.extend(mine.iter().cloned());
        avail.push(next);
        applied.push(mine);
    }
    Ok(applied)
}

/// The helper `__acc_red_<kind>_<op>_<type>` (reduce.c).
pub fn helper_name(kind: &str, op: ReductionOp, ty: ReductionType) -> String {
    format!("__acc_red_{kind}_{}_{}", op.mnemonic(), ty.mnemonic())
}

/// One loop directive of a kernel, as the rewrite needs it.
pub struct LoopInput<'ctx> {
    pub begin: Value<'ctx>,
    pub end: Value<'ctx>,
    pub loc: Loc,
    /// Effective levels (mapping::effective_levels).
    pub levels: Levels,
    pub parent: Option<usize>,
    pub items: Vec<Reduction<'ctx>>,
    pub private: Vec<Value<'ctx>>,
    /// `gang(dim: d)`: the grid dimension of the loop's gang level.
    pub gang_dim: u8,
}

/// The gang dimensions (bit d-1 for dimension d) whose gangs a kernel must not split: those of
/// gang loops nested in another gang loop (`gang(dim: 1)` in `gang(dim: 2)`) that reduce a
/// variable private to the kernel (declared in the outer loop's body: a row's sum). Its
/// per-thread copies are combined within the gang; combining them across the gangs of the
/// row would need every gang of the row to wait for the others in the middle of the kernel,
/// which a launch cannot do, so the row runs on one gang of that dimension (whose lanes
/// still share its iterations).
pub fn row_reduction_dims(gang: &[bool], dims: &[u8], parents: &[Option<usize>], private_reduced: &[bool]) -> u8 {
    let mut mask = 0;
    for i in (0..gang.len()).filter(|&i| gang[i] && private_reduced[i]) {
        let mut p = parents[i];
        while let Some(j) = p {
            if gang[j] {
                mask |= 1 << (dims[i].clamp(1, 3) - 1);
                break;
            }
            p = parents[j];
        }
    }
    mask
}

/// The gang dimensions (bit d-1 for dimension d) a variable combined across gangs is
/// partitioned over: those of the gang loops that reduce it (`reduces[i]`) and of the gang
/// loops around them. Gangs that differ only in another dimension did the same work, so
/// only those at index 0 there contribute (reduce.c). A variable no gang loop reduces (the
/// construct's own clause, reduced in gang-redundant code) counts every gang: all bits.
pub fn gang_dims_mask(gang: &[bool], dims: &[u8], parents: &[Option<usize>], reduces: &[bool]) -> i64 {
    let mut mask = 0;
    for i in (0..gang.len()).filter(|&i| reduces[i] && gang[i]) {
        let mut p = Some(i);
        while let Some(j) = p {
            if gang[j] {
                mask |= 1 << (dims[j].clamp(1, 3) - 1);
            }
            p = parents[j];
        }
    }
    if mask == 0 {
        0b111
    } else {
        mask
    }
}

/// One reduction as the compile report shows it: where, the clause, the levels it spans
/// (`gangs` for the combine across gangs) and how the partials are combined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub loc: Loc,
    pub clause: String,
    pub span: String,
    pub strategy: String,
}

/// What the kernel plan and the compile report need.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Variables combined across gangs (the runtime's `reduce_vars`).
    pub gang_vars: u64,
    /// Gang dimensions (bit d-1 for dimension d) the kernel must run one gang in: a gang loop
    /// nested in another gang loop reduces a variable private to the outer loop's iteration
    /// (`row_reduction_dims`).
    pub single_gang_dims: u8,
    /// A worker tree is used: it needs workers of one warp (`ACCRT_KERNEL_WORKER_SYNC`).
    pub worker_sync: bool,
    /// Per reduction, what the compile report says (report.rs).
    pub report: Vec<Note>,
    /// Indices (in `rewrite_kernel`'s `loops`) of the loops whose threads accumulate a
    /// scalar with no inner loop reducing it: their bodies are worth unrolling.
    pub accumulating: Vec<usize>,
}

/// Links reduce.c's helpers into `m` (the device module, before the emulator's copy). They
/// stay external until `drop_unused_helpers` (the linker would not copy internal functions
/// nothing calls yet).
pub fn link_helpers<'ctx>(m: Module<'ctx>) -> Result<()> {
    crate::devmath::link_host_c(m, HELPERS_BC, "runtime-ir/reduce.c", llvm_sys::LLVMLinkage::LLVMExternalLinkage)
}

/// After every kernel is planned: the helpers no kernel calls go (the emulator's copy and
/// the device pipeline would carry hundreds of them).
pub fn drop_unused_helpers<'ctx>(m: Module<'ctx>) -> Result<()> {
    for f in m.functions() {
        if f.name().starts_with("__acc_red_") && !f.is_declaration() {
            f.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        }
    }
    m.run_passes("globaldce", None).map_err(AccError::internal)
}

/// The LLVM type of a reduction variable in memory (what Clang gives such a C variable).
fn ir_type<'ctx>(m: Module<'ctx>, ty: ReductionType) -> Type<'ctx> {
    let ctx = m.context();
    use ReductionType::*;
    match ty {
        I8 | U8 | Bool => ctx.i8(),
        I16 | U16 => ctx.i16(),
        I32 | U32 => ctx.i32(),
        I64 | U64 => ctx.i64(),
        F32 => ctx.f32(),
        F64 => ctx.f64(),
        C32 => ctx.struct_type(&[ctx.f32(), ctx.f32()]),
        C64 => ctx.struct_type(&[ctx.f64(), ctx.f64()]),
    }
}

/// Blocks of a loop directive's region: from its begin to its end.
pub(crate) struct Region<'ctx> {
    blocks: HashSet<Block<'ctx>>,
    begin: Value<'ctx>,
    end: Value<'ctx>,
}

impl<'ctx> Region<'ctx> {
    pub(crate) fn new(begin: Value<'ctx>, end: Value<'ctx>) -> Region<'ctx> {
        let (first, last) = (begin.parent_block(), end.parent_block());
        let mut blocks = HashSet::from([first]);
        let mut work = vec![first];
        while let Some(b) = work.pop() {
            if b == last {
                continue;
            }
            for s in b.terminator().map(|t| t.successors()).unwrap_or_default() {
                if blocks.insert(s) {
                    work.push(s);
                }
            }
        }
        Region { blocks, begin, end }
    }

    /// Whether instruction `i` lies between the begin and the end.
    pub(crate) fn contains(&self, i: Value<'ctx>) -> bool {
        use crate::cfg::FunctionCfg;
        if !i.is_instruction() || !self.blocks.contains(&i.parent_block()) {
            return false;
        }
        let b = i.parent_block();
        let after_begin = b != self.begin.parent_block() || (i != self.begin && FunctionCfg::same_block_before(self.begin, i));
        let before_end = b != self.end.parent_block() || (i != self.end && FunctionCfg::same_block_before(i, self.end));
        after_begin && before_end
    }
}

/// Makes the region's own computations of an element item's address (`s[q]`) the clause's
/// (element_address.rs): a construct's item from its clause to the kernel's return, a loop's
/// inside the loop. Items that name the same element (the construct's `reduction(+: s[q])`
/// and a loop's) get one address, the earliest that dominates the others: the returned map
/// takes each item's address to it, so that they are one variable to `propagate`. No item's
/// own address is replaced (another item still names it).
fn unify_element_addresses<'ctx>(k: Value<'ctx>, construct: &[Reduction<'ctx>], loops: &[LoopInput<'ctx>]) -> Result<HashMap<Value<'ctx>, Value<'ctx>>> {
    let ret = k.blocks().into_iter().find(|blk| blk.name() == "acc.ret").and_then(|b| b.terminator()).ok_or_else(|| AccError::internal("kernel without acc.ret"))?;
    // Scalars and whole arrays (allocas, parameters) have one address already.
    let element = |v: Value<'ctx>| v.is_instruction() && v.opcode() == Some(crate::ir::Opcode::LLVMGetElementPtr) && v.parent_function() == k;
    let mut items: Vec<(Value<'ctx>, Region<'ctx>)> = construct.iter().filter(|r| element(r.var.base)).map(|r| (r.var.base, Region::new(r.var.base, ret))).collect();
    for l in loops {
        items.extend(l.items.iter().filter(|r| element(r.var.base)).map(|r| (r.var.base, Region::new(l.begin, l.end))));
    }
    if items.is_empty() {
        return Ok(HashMap::new());
    }
    let own: HashSet<Value<'ctx>> = items.iter().map(|(b, _)| *b).collect();
    let cfg = crate::cfg::FunctionCfg::new(k);
    let mut canon: HashMap<Value<'ctx>, Value<'ctx>> = HashMap::new();
    for (i, (base, reg)) in items.iter().enumerate() {
        let first = items[..i].iter().map(|(e, _)| canon[e]).find(|&e| e != *base && crate::element_address::same(k, e, *base) && cfg.dominates_inst(e, *base));
        let c = first.unwrap_or(*base);
        canon.insert(*base, c);
        crate::element_address::unify(k, c, |x| reg.contains(x) && !own.contains(&x));
        if c != *base {
            // This item's own address: its uses (the clause's) become the shared one's.
            base.replace_uses_where(c, |u| u.is_instruction() && u.parent_function() == k);
        }
    }
    Ok(canon)
}

/// Whether the variable's storage is the thread's own (an alloca of the kernel).
fn is_private_storage(v: Value<'_>) -> bool {
    v.is_alloca()
}

/// Rewrites the reductions of kernel `k`. `construct` are the compute construct's items
/// (pointers in `k`), `loops` its loop directives in program order.
pub fn rewrite_kernel<'ctx>(m: Module<'ctx>, k: Value<'ctx>, construct: &[Reduction<'ctx>], construct_loc: &Loc, loops: &[LoopInput<'ctx>], views: &Views<'ctx>) -> Result<Summary> {
    if construct.is_empty() && loops.iter().all(|l| l.items.is_empty()) {
        return Ok(Summary::default());
    }
    let canon = unify_element_addresses(k, construct, loops)?;
    let canon = |v: Value<'ctx>| canon.get(&v).copied().unwrap_or(v);
    let mut shapes: HashMap<Value, Shape> = HashMap::new();
    let owned = construct.iter().map(|r| (r, construct_loc, None)).chain(loops.iter().enumerate().flat_map(|(i, l)| l.items.iter().map(move |r| (r, &l.loc, Some(i)))));
    for (r, loc, owner) in owned {
        let shape = if views.get(key_of(k, canon(r.var.base)), owner, loops).is_some() { View::SHAPE } else { shape_of(r, loc)? };
        shapes.insert(r.var.base, shape);
    }
    let item = |r: &Reduction<'ctx>| Item { key: key_of(k, canon(r.var.base)), op: r.op, ty: r.ty, text: r.var.text.clone(), shape: shapes[&r.var.base] };
    let regions: Vec<Region> = loops.iter().map(|l| Region::new(l.begin, l.end)).collect();
    let construct_items: Vec<Item<Value>> = dedup(construct.iter().map(item).collect());
    let loop_items: Vec<Vec<Item<Value>>> = loops.iter().map(|l| l.items.iter().map(item).collect()).collect();
    let keys: Vec<Value> = construct_items.iter().chain(loop_items.iter().flatten()).map(|i| i.key).collect();
    let loop_nodes: Vec<LoopNode<Value>> = loops
        .iter()
        .zip(&regions)
        .zip(loop_items)
        .map(|((l, reg), explicit)| LoopNode {
            explicit,
            parent: l.parent,
            uses: keys.iter().copied().filter(|key| key.users().into_iter().any(|u| reg.contains(u))).collect(),
            private: l.private.iter().map(|p| strip(*p)).collect(),
        })
        .collect();
    let applied = propagate(&construct_items, &loop_nodes).map_err(|(i, msg)| AccError::user(&loops[i].loc, msg))?;
    let private_reduced: Vec<bool> = applied.iter().map(|items| items.iter().any(|i| is_private_storage(i.key))).collect();
    let single_gang_dims = row_reduction_dims(
        &loops.iter().map(|l| l.levels.gang).collect::<Vec<_>>(),
        &loops.iter().map(|l| l.gang_dim).collect::<Vec<_>>(),
        &loops.iter().map(|l| l.parent).collect::<Vec<_>>(),
        &private_reduced,
    );

    let ctx = m.context();
    let smem = shared_buffer(m);
    let b = ctx.builder();
    let entry = k.entry_block();
    // Every copy is the thread's own: the suffix tells privatize.rs not to share a complex
    // (aggregate) one between lanes as it would a private array used across loop levels.
    // Names are made unique here: LLVM would append a number after the suffix.
    let made = std::cell::Cell::new(0u32);
    let alloca = |ty: Type<'ctx>, name: &str| {
        b.position_before(entry.first_instruction().expect("the entry block has a terminator"));
        made.set(made.get() + 1);
        b.alloca(ty, &format!("{name}{}{}", made.get(), crate::privatize::VECTOR_SUFFIX))
    };
    let helper = |kind: &str, op: ReductionOp, ty: ReductionType| {
        m.function(&helper_name(kind, op, ty)).ok_or_else(|| AccError::internal(format!("reduction helper {} missing (runtime-ir/reduce.c not linked)", helper_name(kind, op, ty))))
    };
    let mut summary = Summary { single_gang_dims, ..Summary::default() };
    // An item with copies of run-time size (`views`: `view` is its own, where it is used)
    // has its count and start from them.
    let count = |it: &Item<Value<'ctx>>, view: Option<&View<'ctx>>| view.map_or_else(|| ctx.i64().const_int(it.shape.n), |v| v.elements(&v.builder()));
    // (Of a copy: a view's variable is combined into by `combine_into_variable` only.)
    let first = |b: &crate::ir::Builder<'ctx>, p: Value<'ctx>, it: &Item<Value<'ctx>>, view: Option<&View<'ctx>>| match view {
        Some(v) => v.first(b, p),
        None => at(b, p, it),
    };
    let new_copy = |it: &Item<Value<'ctx>>, name: &str, view: Option<&View<'ctx>>| match view {
        Some(v) => v.next_copy(m, it.ty.size()),
        None => alloca(copy_type(m, it), name),
    };

    // Across gangs: the variables the construct or a gang loop reduces, when they live in
    // device memory (a variable private to the kernel has nothing to combine across gangs).
    // A gang loop's item whose copies are made where the loop begins (its bounds are computed
    // in the region, too late for a copy at the kernel's entry) has no per-gang copy: each
    // gang combines its loop's copies into the variable with compare-and-swaps where the
    // loop ends, as a worker loop's would.
    let mut gang: Vec<Item<Value>> = construct_items.iter().filter(|i| !is_private_storage(i.key)).cloned().collect();
    for (at, (l, items)) in loops.iter().zip(&applied).enumerate() {
        if l.levels.gang {
            for i in items.iter().filter(|i| !is_private_storage(i.key) && views.get(i.key, Some(at), loops).is_none_or(|v| v.in_room())) {
                match gang.iter().find(|g| g.key == i.key) {
                    Some(g) if g.op != i.op => {
                        return Err(AccError::user(&l.loc, format!("'{}' is reduced with '{}' here but with '{}' on the compute construct", i.text, i.op.symbol(), g.op.symbol())))
                    }
                    Some(_) => {}
                    None => gang.push(i.clone()),
                }
            }
        }
    }
    let mut base: HashMap<Value, Value> = HashMap::new();
    if !gang.is_empty() {
        let scratch = k.params().into_iter().find(|p| p.name() == SCRATCH_PARAM).ok_or_else(|| AccError::internal("a kernel with reductions lacks its scratch parameter"))?;
        let ret = k.blocks().into_iter().find(|blk| blk.name() == "acc.ret").ok_or_else(|| AccError::internal("kernel without acc.ret"))?;
        let nvars = ctx.i64().const_int(gang.iter().map(|g| g.shape.columns()).sum());
        let mut index = 0;
        for g in &gang {
            let view = views.rooms.get(&g.key);
            let copy = new_copy(g, &format!("{}.gang", g.text), view);
            g.key.replace_uses_where(copy, |u| u.is_instruction() && u.parent_function() == k);
            let n = count(g, view);
            // Right after the slot: before any loop's begin (a combined construct's loop
            // begins in the entry block), so that no loop takes this call for its own.
            b.position_before(copy.next_instruction().expect("an alloca is followed by the block's terminator at least"));
            b.call(helper("identity", g.op, g.ty)?, &[first(&b, copy, g, view), n], "");
            b.position_before(ret.terminator().expect("acc.ret returns"));
            let reduces: Vec<bool> = applied.iter().map(|items| items.iter().any(|i| i.key == g.key)).collect();
            let gang_loops: Vec<bool> = loops.iter().map(|l| l.levels.gang).collect();
            let dims: Vec<u8> = loops.iter().map(|l| l.gang_dim).collect();
            let parents: Vec<Option<usize>> = loops.iter().map(|l| l.parent).collect();
            let mask = ctx.i64().const_int(gang_dims_mask(&gang_loops, &dims, &parents, &reduces) as u64);
            base.insert(g.key, copy);
            // Copies of run-time size have no columns in the scratch buffer: each gang
            // combines its copy into the variable with compare-and-swaps.
            let strategy = if let Some(v) = view {
                v.combine_into_variable(m, ret.terminator().expect("acc.ret returns"), g.key, copy, g.ty.size(), helper("combine_atomic", g.op, g.ty)?, mask);
                View::GANG_STRATEGY
            } else if let Some(part) = g.shape.part {
                // Row by row, only the part's columns: each row's partials are columns of
                // their own (`index` + row x cols).
                let gang_fn = helper("gang", g.op, g.ty)?;
                let first = index;
                let c = |v: u64| ctx.i64().const_int(v);
                let (lo_bytes, size) = (c(g.shape.lo * g.ty.size()), g.ty.size());
                for_each_row(m, ret.terminator().expect("acc.ret returns"), c(g.shape.n / part.row), |b, r| {
                    let parts = [PartDim::of(ctx, part)];
                    let at = |p| part_address(b, p, lo_bytes, &parts, r, c(size));
                    let (mine, dst) = (at(copy), at(g.key));
                    let idx = b.binop(Opcode::LLVMAdd, ctx.i64().const_int(first), b.binop(Opcode::LLVMMul, r, ctx.i64().const_int(part.cols)));
                    b.call(gang_fn, &[mine, dst, ctx.i64().const_int(part.cols), scratch, nvars, idx, smem, mask], "");
                });
                index += g.shape.columns();
                "per-gang partials of the part of each row, the last gang combines them in gang order"
            } else {
                let idx = ctx.i64().const_int(index);
                b.call(helper("gang", g.op, g.ty)?, &[at(&b, copy, g), at(&b, g.key, g), n, scratch, nvars, idx, smem, mask], "");
                index += g.shape.n;
                "per-gang partials, the last gang combines them in gang order"
            };
            summary.report.push(Note { loc: construct_loc.clone(), clause: format!("reduction({}:{})", g.op.symbol(), g.text), span: "gangs".into(), strategy: strategy.into() });
        }
        summary.gang_vars = index;
    }

    // Sites: one per partitioned loop and variable it reduces, in program order.
    let mut sites: Vec<(usize, Item<Value>)> = Vec::new();
    for (i, (l, items)) in loops.iter().zip(&applied).enumerate() {
        if !l.levels.is_seq() {
            sites.extend(items.iter().map(|it| (i, it.clone())));
        }
    }
    // The nearest enclosing site of the same variable.
    let parents: Vec<Option<usize>> = sites
        .iter()
        .map(|(i, it)| {
            let mut p = loops[*i].parent;
            while let Some(j) = p {
                if let Some(k) = sites.iter().position(|(l, o)| *l == j && o.key == it.key) {
                    return Some(k);
                }
                p = loops[j].parent;
            }
            None
        })
        .collect();
    let site_nodes: Vec<SiteNode> = sites
        .iter()
        .enumerate()
        .map(|(s, (i, it))| {
            let children: Vec<usize> = (0..sites.len()).filter(|&c| parents[c] == Some(s)).collect();
            let current = base.get(&it.key).copied().unwrap_or(it.key);
            let only_in_children = !children.is_empty()
                && current.users().into_iter().filter(|u| regions[*i].contains(*u)).all(|u| children.iter().any(|&c| regions[sites[c].0].contains(u)));
            SiteNode { parent: parents[s], levels: loops[*i].levels, only_in_children }
        })
        .collect();
    let trees = plan_trees(&site_nodes);

    // Per site: the private copy, the tree (unless the enclosing site's does it), the
    // combine into the enclosing copy (the enclosing site's, else the per-gang copy, else
    // the variable).
    let mut copies: Vec<Value> = Vec::with_capacity(sites.len());
    for (((i, it), tree), node) in sites.iter().zip(&trees).zip(&site_nodes) {
        let (i, l) = (*i, &loops[*i]);
        let outer = node.parent.map(|p| copies[p]).or_else(|| base.get(&it.key).copied()).unwrap_or(it.key);
        let view = views.get(it.key, Some(i), loops);
        // (Before a copy made where the loop begins: its count is computed before the copy.)
        let n = count(it, view);
        let red = match view {
            Some(v) if !v.in_room() => {
                made.set(made.get() + 1);
                v.local_copy(m, it.ty.size(), l.begin, l.end, &format!("{}.red{}", it.text, made.get()))
            }
            _ => new_copy(it, &format!("{}.red", it.text), view),
        };
        let reg = &regions[i];
        outer.replace_uses_where(red, |u| reg.contains(u));
        // (After the copy, for one made where the loop begins.)
        let start = if red.is_instruction() && red.parent_block() == l.begin.parent_block() && crate::cfg::FunctionCfg::same_block_before(l.begin, red) { red } else { l.begin };
        b.position_before(start.next_instruction().expect("a begin marker is followed by its loop"));
        b.call(helper("identity", it.op, it.ty)?, &[first(&b, red, it, view), n], "");
        let has_children = parents.contains(&Some(copies.len()));
        if fresh_each_iteration(it.op, it.shape, has_children) {
            if let Some(one) = iteration(k, l, red)? {
                let iter = alloca(copy_type(m, it), &format!("{}.iter", it.text));
                red.replace_uses_where(iter, |u| u.is_instruction() && one.body.contains(&u.parent_block()));
                b.position_before(one.start);
                b.call(helper("identity", it.op, it.ty)?, &[at(&b, iter, it), n], "");
                b.position_before(one.end);
                b.call(helper("combine", it.op, it.ty)?, &[at(&b, red, it), at(&b, iter, it), n], "");
            }
        }
        b.position_before(l.end);
        let within = match tree {
            Tree::Deferred => Within::Nothing,
            Tree::Over(levels) => within_gang(*levels),
        };
        match within {
            Within::Nothing => {}
            Within::Worker => {
                b.call(helper("worker", it.op, it.ty)?, &[first(&b, red, it, view), n, smem], "");
                summary.worker_sync = true;
            }
            Within::Gang { lane0_only } => {
                b.call(helper("block", it.op, it.ty)?, &[first(&b, red, it, view), n, smem, ctx.i32().const_int(lane0_only as u64)], "");
            }
        }
        // Into the copy around the loop: every thread into its own, lane 0 alone into one
        // the lanes share (guard.rs treats this call as the store it is). Copies of
        // run-time size go into the variable itself with compare-and-swaps: the gangs that
        // run the loop redundantly all do (as their atomic updates would).
        if let (Some(v), true) = (view, outer == it.key) {
            let every_gang = ctx.i64().const_int(7);
            v.combine_into_variable(m, l.end, outer, red, it.ty.size(), helper("combine_atomic", it.op, it.ty)?, every_gang);
            b.position_before(l.end);
        } else if let (Some(part), true) = (it.shape.part, outer == it.key) {
            // Into the variable itself: only the part's columns of each row.
            let combine = helper("combine", it.op, it.ty)?;
            let c = |v: u64| ctx.i64().const_int(v);
            let lo_bytes = c(it.shape.lo * it.ty.size());
            for_each_row(m, l.end, c(it.shape.n / part.row), |b, r| {
                let parts = [PartDim::of(ctx, part)];
                let at = |p| part_address(b, p, lo_bytes, &parts, r, c(it.ty.size()));
                b.call(combine, &[at(outer), at(red), c(part.cols)], "");
            });
            b.position_before(l.end);
        } else {
            b.call(helper("combine", it.op, it.ty)?, &[first(&b, outer, it, view), first(&b, red, it, view), n], "");
        }
        if !has_children && !it.shape.array {
            summary.accumulating.push(i);
        }
        copies.push(red);
        let how = match (tree, within) {
            _ if view.is_some_and(|v| !v.in_room()) => {
                let into = if outer == it.key { "; combined into the variable with compare-and-swaps where the loop ends" } else { "" };
                format!("{} ({}){into}", View::LOOP_COPY_STRATEGY, within.describe())
            }
            _ if view.is_some() => format!("{} ({})", View::SITE_STRATEGY, within.describe()),
            (Tree::Deferred, _) => "each thread's partial goes to the enclosing loop's tree".to_string(),
            (Tree::Over(lv), Within::Nothing) if *lv == l.levels => within.describe().to_string(),
            (Tree::Over(lv), _) if *lv != l.levels => format!("{} over {} (the inner loops' trees deferred here), {}", within.describe(), lv.describe(), warp_step(it.op, it.ty)),
            _ => format!("{}, {}", within.describe(), warp_step(it.op, it.ty)),
        };
        summary.report.push(Note { loc: l.loc.clone(), clause: format!("reduction({}:{})", it.op.symbol(), it.text), span: l.levels.describe(), strategy: how });
    }
    Ok(summary)
}

/// The private copies of an array reduction without constant bounds whose region reads
/// its elements, stores one plainly or passes its address (atomics cannot give it the view
/// of a private copy the spec promises): room in the launch's private area for as many
/// copies per thread as the rewrite makes (private_copies.rs `Source::ReductionView`), the
/// section starting `lo_bytes` into the variable. They take the place of the alloca'd copies
/// of constant size; the trees are the same helpers with `n` at run time (over a copy's
/// elements, `View::elements`), and the gangs combine into the variable with
/// compare-and-swaps (`combine_atomic`) instead of the scratch buffer's columns, row by row
/// for a part of each row or rows through pointers ([`ViewShape`]).
#[derive(Clone)]
pub struct View<'ctx> {
    /// Where its copies are made.
    pub made: Made<'ctx>,
    /// Elements (whole rows of a part of each row), or rows through pointers.
    pub count: Value<'ctx>,
    pub lo_bytes: Value<'ctx>,
    pub shape: ViewShape<'ctx>,
    /// How many copies the rewrite has made (what the host stub sizes the room by).
    pub used: std::rc::Rc<std::cell::Cell<u64>>,
}

/// Where a [`View`]'s copies are made.
#[derive(Clone, Copy)]
pub enum Made<'ctx> {
    /// In a room of the launch's private area: its `__acc_private_copy` call, the thread's
    /// first copy.
    Room(Value<'ctx>),
    /// Where a loop begins (`View::local_copy`: a loop's item whose bounds the region
    /// computes, or an array of the region's own): the instruction before which the view's
    /// values are computed (after the clause's bounds, before the loop).
    AtLoop(Value<'ctx>),
}

/// What a [`View`]'s section is (private_copies.rs `ViewLayout`, with its kernel parameters).
#[derive(Clone)]
pub enum ViewShape<'ctx> {
    /// One range of `count` elements.
    Flat,
    /// A part of each row through one or more trailing dimensions (outermost first), `count`
    /// elements of whole rows (the outermost range with every trailing dimension whole): a
    /// copy holds them all, and only the part's elements are combined into the variable.
    Part(Vec<PartDim<'ctx>>),
    /// Rows that are pointers, through `dims.len() / 2` levels: per level its entry count per
    /// sub-table and the rebase of what its entries point to (`dims`, as
    /// `__acc_private_rows` takes them: the first count is `count`), then `cols` elements
    /// per row. A copy is each level's table (aimed at its own next level, as a private
    /// copy's), then the rows. Rows of arrays (contract.rs `rows_of_arrays`) with a part of
    /// each array have `parts`: each row is then `cols / (product of their rows)` arrays,
    /// of which only the part is combined into the variable.
    Rows { dims: Vec<Value<'ctx>>, cols: Value<'ctx>, parts: Vec<PartDim<'ctx>> },
}

/// One trailing dimension of a [`ViewShape::Part`]: `cols` indices from `first` of `row`.
#[derive(Clone, Copy)]
pub struct PartDim<'ctx> {
    pub first: Value<'ctx>,
    pub cols: Value<'ctx>,
    pub row: Value<'ctx>,
}

impl<'ctx> PartDim<'ctx> {
    /// A constant part of each row ([`Part`]) as values.
    fn of(ctx: crate::ir::Context<'ctx>, p: Part) -> PartDim<'ctx> {
        let c = |v: u64| ctx.i64().const_int(v);
        PartDim { first: c(p.first), cols: c(p.cols), row: c(p.row) }
    }
}

/// Part dimensions from their values, `first`, `cols`, `row` each.
fn part_dims<'ctx>(values: &[Value<'ctx>]) -> Vec<PartDim<'ctx>> {
    values.chunks_exact(3).map(|d| PartDim { first: d[0], cols: d[1], row: d[2] }).collect()
}

/// The rows of a part ([`PartDim`]s, outermost first) of `whole` elements of whole rows, where
/// `b` is: the outermost range's, times the part's indices of every dimension but the last.
fn part_rows<'ctx>(b: &crate::ir::Builder<'ctx>, parts: &[PartDim<'ctx>], whole: Value<'ctx>) -> Value<'ctx> {
    let i64t = whole.context().i64();
    let (_, above) = parts.split_last().expect("a part has a trailing dimension");
    let row_elements = parts.iter().fold(i64t.const_int(1), |n, d| b.binop(Opcode::LLVMMul, n, d.row));
    above.iter().fold(b.binop(Opcode::LLVMUDiv, whole, row_elements), |n, d| b.binop(Opcode::LLVMMul, n, d.cols))
}

/// The element (from the whole rows' first) where row `r` of a part starts: with r's
/// digits (the last dimension varies fastest), ((i x row1 + first1 + j1) x row2 + ...) x
/// rowk + firstk.
fn part_row_start<'ctx>(b: &crate::ir::Builder<'ctx>, parts: &[PartDim<'ctx>], r: Value<'ctx>) -> Value<'ctx> {
    let (last, above) = parts.split_last().expect("a part has a trailing dimension");
    let mut digits = Vec::new();
    let mut rest = r;
    for d in above.iter().rev() {
        digits.push(b.binop(Opcode::LLVMURem, rest, d.cols));
        rest = b.binop(Opcode::LLVMUDiv, rest, d.cols);
    }
    let mut element = rest;
    for (d, j) in above.iter().zip(digits.iter().rev()) {
        element = b.binop(Opcode::LLVMAdd, b.binop(Opcode::LLVMAdd, b.binop(Opcode::LLVMMul, element, d.row), d.first), *j);
    }
    b.binop(Opcode::LLVMAdd, b.binop(Opcode::LLVMMul, element, last.row), last.first)
}

impl<'ctx> ViewShape<'ctx> {
    /// From a layout's values after the count (private_copies.rs `view_args`, or the room's
    /// kernel parameters); `count` is the first of them.
    pub fn of(layout: crate::private_copies::ViewLayout, count: Value<'ctx>, extras: &[Value<'ctx>]) -> ViewShape<'ctx> {
        use crate::private_copies::ViewLayout;
        match (layout, extras) {
            (ViewLayout::Part(_), _) => ViewShape::Part(part_dims(extras)),
            (ViewLayout::Rows { levels, .. }, _) => {
                let (tables, rest) = extras.split_at(2 * levels - 1);
                ViewShape::Rows { dims: std::iter::once(count).chain(tables.iter().copied()).collect(), cols: rest[0], parts: part_dims(&rest[1..]) }
            }
            _ => ViewShape::Flat,
        }
    }
}

impl<'ctx> View<'ctx> {
    /// The shape `propagate` sees for such an item (one array; its size is the view's).
    const SHAPE: Shape = Shape { lo: 0, n: 0, array: true, part: None };
    const GANG_STRATEGY: &'static str = "a copy per thread of run-time size in the launch's private area (the region reads its elements); each gang combines its copy into the variable with compare-and-swaps";
    const SITE_STRATEGY: &'static str = "a copy per thread of run-time size in the launch's private area (the region reads its elements)";
    const LOOP_COPY_STRATEGY: &'static str = "a copy per thread of run-time size made where the loop begins (the region reads its elements)";

    fn in_room(&self) -> bool {
        matches!(self.made, Made::Room(_))
    }

    /// Computes in the entry block, right after the room's call (before any loop begins), or
    /// for a loop's own copies before the loop, after its clause's bounds.
    fn builder(&self) -> crate::ir::Builder<'ctx> {
        let b = self.count.context().builder();
        match self.made {
            Made::Room(area) => b.position_before(area.next_instruction().expect("a call is followed by the block's terminator at least")),
            Made::AtLoop(anchor) => b.position_before(anchor),
        }
        b
    }

    /// The bytes of a copy's row tables (none but through pointers), each rounded up to 16.
    fn table_bytes(&self, b: &crate::ir::Builder<'ctx>) -> Value<'ctx> {
        let i64t = self.count.context().i64();
        let mut total = i64t.const_int(0);
        if let ViewShape::Rows { dims, .. } = &self.shape {
            let mut entries = i64t.const_int(1);
            for count in dims.iter().step_by(2) {
                entries = b.binop(Opcode::LLVMMul, entries, *count);
                total = b.binop(Opcode::LLVMAdd, total, align16(b, b.binop(Opcode::LLVMMul, entries, i64t.const_int(8))));
            }
        }
        total
    }

    /// The rows of a copy through pointers: the product of the levels' counts.
    fn data_rows(b: &crate::ir::Builder<'ctx>, dims: &[Value<'ctx>]) -> Value<'ctx> {
        dims.iter().step_by(2).skip(1).fold(dims[0], |n, c| b.binop(Opcode::LLVMMul, n, *c))
    }

    /// The elements a copy holds (after its row tables), which the identity, the trees and
    /// the combines between copies cover.
    fn elements(&self, b: &crate::ir::Builder<'ctx>) -> Value<'ctx> {
        match &self.shape {
            ViewShape::Rows { dims, cols, .. } => b.binop(Opcode::LLVMMul, Self::data_rows(b, dims), *cols),
            _ => self.count,
        }
    }

    /// The next copy, as the variable's storage: what the region's accesses address as the
    /// variable (its element `i` is the copy's `i - lo`; through pointers, its row table).
    fn next_copy(&self, m: Module<'ctx>, elem_bytes: u64) -> Value<'ctx> {
        let ctx = m.context();
        let i64t = ctx.i64();
        let b = self.builder();
        let k = self.used.get();
        self.used.set(k + 1);
        let Made::Room(area) = self.made else { unreachable!("a room's copies (a loop's own: local_copy)") };
        let copy = b.gep_bytes(ctx, area, b.binop(Opcode::LLVMMul, self.copy_bytes(&b, elem_bytes), i64t.const_int(k)));
        self.as_variable(m, &b, &b, copy, elem_bytes)
    }

    /// The bytes of one copy (its row tables and its elements), a multiple of 16.
    fn copy_bytes(&self, b: &crate::ir::Builder<'ctx>, elem_bytes: u64) -> Value<'ctx> {
        let data = b.binop(Opcode::LLVMMul, self.elements(b), self.count.context().i64().const_int(elem_bytes));
        align16(b, b.binop(Opcode::LLVMAdd, self.table_bytes(b), data))
    }

    /// Copy `copy` (its first byte), where `b` is, as the variable's storage: through
    /// pointers its row tables are aimed at its own rows first (`at_entry` places the
    /// helper's argument table).
    fn as_variable(&self, m: Module<'ctx>, b: &crate::ir::Builder<'ctx>, at_entry: &crate::ir::Builder<'ctx>, copy: Value<'ctx>, elem_bytes: u64) -> Value<'ctx> {
        let ctx = m.context();
        let i64t = ctx.i64();
        if let ViewShape::Rows { dims, cols, .. } = &self.shape {
            let row_bytes = b.binop(Opcode::LLVMMul, *cols, i64t.const_int(elem_bytes));
            let level = i64t.const_int(crate::private_copies::CopyLevel::Thread as u64);
            crate::private_copies::call_rows(m, b, at_entry, copy, dims, row_bytes, ctx.ptr().const_null(), level);
        }
        b.gep_bytes(ctx, copy, b.binop(Opcode::LLVMSub, i64t.const_int(0), self.lo_bytes))
    }

    /// A copy of a loop's item whose bounds the region computes, made where the loop begins
    /// (`begin`, its marker) and given back after it ends (`end`): a dynamic alloca between a
    /// stack save and restore, which privatize.rs keeps on the thread's stack or takes from
    /// the device heap by its size (the name marks it the thread's own). As the variable's
    /// storage (element `i` is the copy's `i - lo`).
    fn local_copy(&self, m: Module<'ctx>, elem_bytes: u64, begin: Value<'ctx>, end: Value<'ctx>, name: &str) -> Value<'ctx> {
        let ctx = m.context();
        let b = ctx.builder();
        // Before the anchor when it is this loop's (what the builder computed for the view is
        // there), else after the loop's begin and the view's values.
        let at = match self.made {
            Made::AtLoop(a) if a.parent_block() == begin.parent_block() && crate::cfg::FunctionCfg::same_block_before(begin, a) => a,
            _ => after_definitions(begin, &self.values()).next_instruction().expect("a loop's begin marker is followed by its loop"),
        };
        b.position_before(at);
        let save = b.call(m.get_or_add_function("llvm.stacksave.p0", ctx.fn_type(ctx.ptr(), &[], false)), &[], "");
        let copy = b.array_alloca(ctx.i8(), self.copy_bytes(&b, elem_bytes), &format!("{name}{}", crate::privatize::VECTOR_SUFFIX));
        copy.set_alignment(crate::private_copies::ALIGN as u32);
        let at_entry = ctx.builder();
        at_entry.position_before(begin.parent_function().entry_block().first_instruction().expect("the entry block has its branch"));
        let storage = self.as_variable(m, &b, &at_entry, copy, elem_bytes);
        b.position_before(end.next_instruction().expect("an end marker is followed by its block's terminator at least"));
        b.call(m.get_or_add_function("llvm.stackrestore.p0", ctx.fn_type(ctx.void(), &[ctx.ptr()], false)), &[save], "");
        storage
    }

    /// The values the view's copies are made from (a loop's own copies come after them).
    fn values(&self) -> Vec<Value<'ctx>> {
        let mut v = vec![self.count, self.lo_bytes];
        match &self.shape {
            ViewShape::Flat => {}
            ViewShape::Part(dims) => v.extend(dims.iter().flat_map(|d| [d.first, d.cols, d.row])),
            ViewShape::Rows { dims, cols, parts } => v.extend(dims.iter().copied().chain([*cols]).chain(parts.iter().flat_map(|d| [d.first, d.cols, d.row]))),
        }
        v
    }

    /// The first element of copy `p` (as [`View::next_copy`] gave it), where `b` is.
    fn first(&self, b: &crate::ir::Builder<'ctx>, p: Value<'ctx>) -> Value<'ctx> {
        let ctx = p.context();
        b.gep_bytes(ctx, p, b.binop(Opcode::LLVMAdd, self.lo_bytes, self.table_bytes(b)))
    }

    /// `combine_atomic(variable's elements, copy's, n, dims)` before `before`: once for one
    /// range, per row for the others (only the section's columns of the variable).
    fn combine_into_variable(&self, m: Module<'ctx>, before: Value<'ctx>, var: Value<'ctx>, copy: Value<'ctx>, elem_bytes: u64, combine: Value<'ctx>, dims: Value<'ctx>) {
        let ctx = m.context();
        let i64t = ctx.i64();
        let b = ctx.builder();
        b.position_before(before);
        let size = i64t.const_int(elem_bytes);
        match &self.shape {
            ViewShape::Flat => {
                b.call(combine, &[b.gep_bytes(ctx, var, self.lo_bytes), self.first(&b, copy), self.count, dims], "");
            }
            ViewShape::Part(parts) => {
                let last = parts.last().expect("a part has a trailing dimension");
                for_each_row(m, before, part_rows(&b, parts, self.count), |b, r| {
                    // (A copy of whole rows has no table: its part starts as the variable's.)
                    let at = |p| part_address(b, p, self.lo_bytes, parts, r, size);
                    b.call(combine, &[at(var), at(copy), last.cols, dims], "");
                });
            }
            ViewShape::Rows { dims: levels, cols, parts } => {
                let cols = *cols;
                // Rows of arrays with a part of each: that many of the part's rows per row.
                let per_row = if parts.is_empty() { i64t.const_int(1) } else { part_rows(&b, parts, cols) };
                let rows = b.binop(Opcode::LLVMMul, Self::data_rows(&b, levels), per_row);
                for_each_row(m, before, rows, |b, r| {
                    let (r, in_row) = (b.binop(Opcode::LLVMUDiv, r, per_row), b.binop(Opcode::LLVMURem, r, per_row));
                    // Row r's digits, one per level (the last varies fastest), then down the
                    // variable's tables from the section's start, each entry moved to its
                    // section's start.
                    let mut digits = Vec::new();
                    let mut rest = r;
                    for count in levels.iter().step_by(2).rev() {
                        digits.push(b.binop(Opcode::LLVMURem, rest, *count));
                        rest = b.binop(Opcode::LLVMUDiv, rest, *count);
                    }
                    digits.reverse();
                    let mut table = b.gep_bytes(ctx, var, self.lo_bytes);
                    for (digit, rebase) in digits.iter().zip(levels.iter().skip(1).step_by(2)) {
                        let entry = b.load(ctx.ptr(), b.gep_bytes(ctx, table, b.binop(Opcode::LLVMMul, *digit, i64t.const_int(8))), "acc.red.row.ptr");
                        table = b.gep_bytes(ctx, entry, *rebase);
                    }
                    let src = b.gep_bytes(ctx, self.first(b, copy), b.binop(Opcode::LLVMMul, b.binop(Opcode::LLVMMul, r, cols), size));
                    match parts.last() {
                        None => b.call(combine, &[table, src, cols, dims], ""),
                        Some(last) => {
                            let at = |p| part_address(b, p, i64t.const_int(0), parts, in_row, size);
                            b.call(combine, &[at(table), at(src), last.cols, dims], "")
                        }
                    };
                });
            }
        }
    }
}

/// The [`View`]s of a kernel's items: a room's, for every item of its variable, and a loop's
/// own (its bounds are computed in the region: `View::local_copy`), for its item and the
/// loops inside that inherit it.
#[derive(Default)]
pub struct Views<'ctx> {
    /// By the variable's key (`key_of`).
    pub rooms: HashMap<Value<'ctx>, View<'ctx>>,
    /// By the variable's key and the index of the loop whose clause names it (in the
    /// `loops` given to `rewrite_kernel`).
    pub in_loops: HashMap<(Value<'ctx>, usize), View<'ctx>>,
}

impl<'ctx> Views<'ctx> {
    /// The view of variable `key` where loop `at` (None: the construct) uses it: its room's,
    /// else that of `at` or the nearest loop around it that has one.
    pub fn get(&self, key: Value<'ctx>, at: Option<usize>, loops: &[LoopInput<'ctx>]) -> Option<&View<'ctx>> {
        if let Some(v) = self.rooms.get(&key) {
            return Some(v);
        }
        let mut l = at;
        while let Some(i) = l {
            if let Some(v) = self.in_loops.get(&(key, i)) {
                return Some(v);
            }
            l = loops[i].parent;
        }
        None
    }
}

/// The last of `begin` (a loop's begin marker) and the instructions of `values` that follow
/// it in its block: code placed after it sees them all (values from elsewhere dominate the
/// marker's block).
pub(crate) fn after_definitions<'ctx>(begin: Value<'ctx>, values: &[Value<'ctx>]) -> Value<'ctx> {
    let mut at = begin;
    for v in values.iter().filter(|v| v.is_instruction() && v.parent_block() == begin.parent_block()) {
        if crate::cfg::FunctionCfg::same_block_before(at, *v) {
            at = *v;
        }
    }
    at
}

/// `v` rounded up to a multiple of 16 (the private area's alignment).
fn align16<'ctx>(b: &crate::ir::Builder<'ctx>, v: Value<'ctx>) -> Value<'ctx> {
    let i64t = v.context().i64();
    let align = crate::private_copies::ALIGN;
    b.binop(Opcode::LLVMAnd, b.binop(Opcode::LLVMAdd, v, i64t.const_int(align - 1)), i64t.const_int(!(align - 1)))
}

/// Whether a site's loop gives each iteration a copy of its own, starting at the identity
/// and combined into the thread's copy at the iteration's end. For `&&` and `||` this
/// turns `r = r && x[i] > 0` into `r &= x[i] > 0`: with `r` at the identity the short
/// circuit folds away, so the next iteration's load no longer waits for this one's (one
/// load in flight per thread capped red_logic at 1.9 TB/s). OpenACC leaves how many
/// iterations share a private copy to the implementation, so a copy per iteration is one
/// of the executions the program already allows. Not for arrays (an identity pass over
/// every element per iteration) nor for a loop whose inner loops reduce the same variable
/// (their copies are made from this loop's).
pub fn fresh_each_iteration(op: ReductionOp, shape: Shape, has_children: bool) -> bool {
    matches!(op, ReductionOp::And | ReductionOp::Or) && !shape.array && !has_children
}

/// One iteration of the loop a directive binds to: the blocks after its header, where an
/// iteration starts, and the end of its one latch. None when the loop has several latches
/// or its header reads `copy` (then every iteration shares the thread's copy, as before).
struct Iteration<'ctx> {
    body: HashSet<Block<'ctx>>,
    start: Value<'ctx>,
    end: Value<'ctx>,
}

fn iteration<'ctx>(k: Value<'ctx>, l: &LoopInput<'ctx>, copy: Value<'ctx>) -> Result<Option<Iteration<'ctx>>> {
    let cfg = crate::cfg::FunctionCfg::new(k);
    let nl = crate::loops::find_bound_loop(&cfg, l.begin, l.end, &l.loc)?;
    let header = cfg.blocks[nl.header];
    let [latch] = nl.latches[..] else { return Ok(None) };
    if copy.users().into_iter().any(|u| u.is_instruction() && u.parent_block() == header) {
        return Ok(None);
    }
    let body: HashSet<Block> = nl.body.iter().filter(|&&b| b != nl.header).map(|&b| cfg.blocks[b]).collect();
    let Some(first) = header.successors().into_iter().find(|s| body.contains(s)) else { return Ok(None) };
    let start = first.first_non_phi().ok_or_else(|| AccError::internal("a block without a terminator"))?;
    let end = cfg.blocks[latch].terminator().ok_or_else(|| AccError::internal("a latch without a terminator"))?;
    Ok(Some(Iteration { body, start, end }))
}

/// One site (a partitioned loop and a variable it reduces) for `plan_trees`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteNode {
    /// The nearest enclosing site of the same variable.
    pub parent: Option<usize>,
    /// The loop's effective levels.
    pub levels: Levels,
    /// The loop's body uses the variable only inside its child sites' loops: nothing reads
    /// the combined value between them.
    pub only_in_children: bool,
}

/// Where a site's copies are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tree {
    /// Not here: each thread adds its partial to its copy of the enclosing site, whose tree
    /// covers this loop's levels too.
    Deferred,
    /// A tree over these levels (the loop's own and those of the trees deferred to it).
    Over(Levels),
}

/// The seeds' nested reduction (OpenUH §5): when an enclosing loop only accumulates an
/// inner loop's result, the inner loop needs no tree of its own at each of its ends; one tree
/// at the enclosing loop's end, over the levels of both, combines every thread's partial
/// (a gang-worker-vector nest: one gang tree per kernel instead of one per row).
pub fn plan_trees(sites: &[SiteNode]) -> Vec<Tree> {
    let deferred: Vec<bool> = sites.iter().map(|s| s.parent.is_some_and(|p| sites[p].only_in_children)).collect();
    let mut levels: Vec<Levels> = sites.iter().map(|s| s.levels).collect();
    // Children come after their parents: fold them in from the end.
    for c in (0..sites.len()).rev() {
        if let (true, Some(p)) = (deferred[c], sites[c].parent) {
            levels[p] = levels[p].union(levels[c]);
        }
    }
    (0..sites.len()).map(|s| if deferred[s] { Tree::Deferred } else { Tree::Over(levels[s]) }).collect()
}

fn dedup<K: PartialEq>(items: Vec<Item<K>>) -> Vec<Item<K>> {
    let mut out: Vec<Item<K>> = Vec::new();
    for i in items {
        if !out.iter().any(|o| o.key == i.key) {
            out.push(i);
        }
    }
    out
}

/// The most bytes a thread's private copy of an array item takes: a larger array (a
/// histogram of thousands of bins) would take as much local memory per thread, and as many
/// partials per gang, so its updates are made atomic instead (atomic_reduction.rs) when
/// they can be.
pub const PRIVATE_COPY_BYTES: u64 = 1024;

/// How an item is reduced: private copies (reduction.rs), or atomic updates of the variable
/// in place (atomic_reduction.rs), which an item without constant bounds needs and a large
/// array prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Copies,
    AtomicsNeeded,
    AtomicsPreferred,
}

pub fn placement(r: &Reduction<'_>) -> Placement {
    let v = &r.var;
    // Rows that are pointers: not one range of elements.
    if !v.rows.is_empty() {
        return Placement::AtomicsNeeded;
    }
    match constant_shape(r) {
        None => Placement::AtomicsNeeded,
        // A part of each row (`m[0:8][0:4]`): atomics when the region only updates it (its
        // copies would hold the whole rows and combine per row).
        Some(s) if s.part.is_some() || s.extent() * r.ty.size() > PRIVATE_COPY_BYTES => Placement::AtomicsPreferred,
        Some(_) => Placement::Copies,
    }
}

/// The item's elements when its bounds are constants: one range, or a part of each row of
/// a 2-D array (one trailing dimension, [`Part`]).
fn constant_shape(r: &Reduction<'_>) -> Option<Shape> {
    let v = &r.var;
    let shape = Shape::of(v.lower.const_int_value(), v.length.const_int_value(), v.elem_size.const_int_value(), r.ty.size())?;
    match v.dims[..] {
        [] => Some(shape),
        [d] => {
            let (first, cols, row) = (d.lower.const_int_value()?, d.length.const_int_value()?, d.extent.const_int_value()?);
            let (first, cols, row) = (u64::try_from(first).ok()?, u64::try_from(cols).ok()?, u64::try_from(row).ok()?);
            let whole_rows = shape.array && row > 0 && shape.n % row == 0 && shape.lo % row == 0 && row * r.ty.size() == v.elem_size.const_int_value()? as u64;
            (whole_rows && cols > 0 && first + cols <= row).then_some(Shape { part: Some(Part { first, cols, row }), ..shape })
        }
        _ => None,
    }
}

/// The item's elements; array reductions need constant bounds (the private copies live in
/// registers or the thread's stack).
fn shape_of(r: &Reduction<'_>, loc: &Loc) -> Result<Shape> {
    constant_shape(r).ok_or_else(|| {
        let what = if r.var.dims.is_empty() { "without constant bounds" } else { "over a part of each row of more than two dimensions or without constant bounds" };
        AccError::unsupported(loc, format!("the array reduction '{}' {what}", r.var.text))
    })
}

/// The value that stands for the variable in the kernel: its storage (an alloca or a
/// pointer parameter), or, for a section of a pointer variable (`p[0:n]` with `int *p`),
/// the pointer: every load of the variable's slot becomes one load at the kernel's entry,
/// since the slot is only set there (a captured pointer is never reassigned in the region).
pub(crate) fn key_of<'ctx>(k: Value<'ctx>, base: Value<'ctx>) -> Value<'ctx> {
    use crate::ir::Opcode;
    let is = |v: &Value<'ctx>, op: Opcode| v.opcode() == Some(op);
    let v = strip(base);
    if !is(&v, Opcode::LLVMLoad) || !v.ty().is_ptr() {
        return v;
    }
    let slot = strip(v.operand(0));
    let entry = k.entry_block();
    if !slot.is_alloca() || slot.parent_block() != entry {
        return v;
    }
    let users = slot.users();
    let stores: Vec<Value> = users.iter().copied().filter(|u| is(u, Opcode::LLVMStore)).collect();
    if stores.iter().any(|s| s.parent_block() != entry || s.operand(1) != slot) {
        return v;
    }
    if let Some(one) = users.iter().find(|u| is(u, Opcode::LLVMLoad) && u.name().ends_with(".acc.red.ptr")) {
        return *one;
    }
    let b = k.context().builder();
    b.position_before(entry.terminator().expect("the entry block has a terminator"));
    let one = b.load(v.ty(), slot, &format!("{}.acc.red.ptr", slot.name()));
    for l in users.into_iter().filter(|u| is(u, Opcode::LLVMLoad) && u.ty().is_ptr()) {
        l.replace_all_uses_with(one);
    }
    one
}

/// The address of row `r`'s part ([`part_row_start`]) in storage `p` of a section that starts
/// `lo_bytes` into it (`size`: the element's bytes).
fn part_address<'ctx>(b: &crate::ir::Builder<'ctx>, p: Value<'ctx>, lo_bytes: Value<'ctx>, parts: &[PartDim<'ctx>], r: Value<'ctx>, size: Value<'ctx>) -> Value<'ctx> {
    let offset = b.binop(Opcode::LLVMAdd, lo_bytes, b.binop(Opcode::LLVMMul, part_row_start(b, parts, r), size));
    b.gep_bytes(p.context(), p, offset)
}

/// Runs `body` (with the row number, an `i64`) for rows 0..`rows` (an `i64`) in a loop placed
/// just before `before` (control flow the same for every thread: the helpers' barriers
/// inside stay uniform); the builder it gets is inside the loop.
fn for_each_row<'ctx>(m: Module<'ctx>, before: Value<'ctx>, rows: Value<'ctx>, body: impl FnOnce(&crate::ir::Builder<'ctx>, Value<'ctx>)) {
    let ctx = m.context();
    let i64t = ctx.i64();
    let head = before.parent_block();
    let (lp, done) = head.open_branch_before(ctx, before, "acc.red.rows", "acc.red.rows.done");
    let b = ctx.builder();
    b.position_at_end(head);
    b.cond_br(b.icmp(crate::ir::IntPred::LLVMIntSGT, rows, i64t.const_int(0)), lp, done);
    b.position_at_end(lp);
    let r = b.phi(i64t, "acc.red.row");
    r.add_incoming(i64t.const_int(0), head);
    body(&b, r);
    let next = b.binop(Opcode::LLVMAdd, r, i64t.const_int(1));
    r.add_incoming(next, b.insert_block());
    b.cond_br(b.icmp(crate::ir::IntPred::LLVMIntSLT, next, rows), lp, done);
}

/// The private copy's type: the element, or an array up to the section's end.
fn copy_type<'ctx, K>(m: Module<'ctx>, it: &Item<K>) -> Type<'ctx> {
    let t = ir_type(m, it.ty);
    if it.shape.array {
        m.context().array_type(t, it.shape.extent())
    } else {
        t
    }
}

/// The address of the item's first element in storage `p`.
fn at<'ctx, K>(b: &crate::ir::Builder<'ctx>, p: Value<'ctx>, it: &Item<K>) -> Value<'ctx> {
    if it.shape.lo == 0 {
        return p;
    }
    let ctx = p.context();
    b.gep_bytes(ctx, p, ctx.i64().const_int(it.shape.lo * it.ty.size()))
}

/// The module's shared buffer for the trees (one instance per gang on the GPU).
fn shared_buffer<'ctx>(m: Module<'ctx>) -> Value<'ctx> {
    if let Some(g) = m.global(SMEM) {
        return g;
    }
    let ctx = m.context();
    let ty = ctx.array_type(ctx.i8(), SMEM_BYTES);
    let g = m.add_global_in(ty, SMEM, 3);
    g.set_initializer(ty.undef());
    g.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
    g.set_alignment(16);
    g
}

/// The reduction items of `region` that are combined across gangs: named on the construct,
/// or on a loop that gets the gang level. Decided on the host function before outlining
/// (capture.rs makes their variables `copy`), with the same level assignment the kernel gets.
pub fn gang_level_items<'ctx>(region: &crate::contract::Directive<'ctx>, loops: &[crate::contract::Directive<'ctx>], cfg: &crate::cfg::FunctionCfg<'ctx>) -> Vec<Reduction<'ctx>> {
    use crate::contract::{Clause, DirectiveKind};
    use crate::device::LoopSource;
    let reductions = |cl: &[Clause<'ctx>]| -> Vec<Reduction<'ctx>> { cl.iter().filter_map(|c| if let Clause::Reduction(r) = c { Some(r.clone()) } else { None }).collect() };
    let mut out = reductions(&region.clauses);
    let DirectiveKind::Compute { kind, .. } = region.kind else { return out };
    let all = crate::device::loop_sources(region, loops);
    let descs: Vec<_> = crate::device::describe(&all, region, cfg).into_iter().map(|(d, _, _)| d).collect();
    if let Ok(levels) = crate::mapping::assign_levels(kind, &descs) {
        for (s, lv) in all.iter().zip(levels) {
            if let (true, LoopSource::Directive(d)) = (lv.gang, s) {
                out.extend(reductions(&d.clauses));
            }
        }
    }
    out
}

/// The storage an address is computed in: `v` with every GEP (any offset) and cast peeled
/// off. An element of a local, global or parameter array (`reduction(max: c[1])` on a loop,
/// whose `&c[1]` is computed inside the region) is part of that variable's own storage,
/// which the construct maps as a whole; a pointer's section (`h[0:n]`, `long *h`) roots at
/// the load of `h`.
pub fn storage_root<'ctx>(mut v: Value<'ctx>) -> Value<'ctx> {
    while let Some(op) = v.opcode() {
        use llvm_sys::LLVMOpcode::{LLVMAddrSpaceCast, LLVMBitCast, LLVMGetElementPtr};
        if matches!(op, LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast) {
            v = v.operand(0);
        } else {
            break;
        }
    }
    v
}

/// A `copy` clause for each section of a pointer among `gang_items` (`reduction(+:h[0:n])`
/// with `long *h`): the result must reach the array, and OpenACC gives such a section a
/// `copy` (present or copy) on the construct. A variable's own storage is `copy` already
/// (capture.rs). A loop's clause is computed inside the region (`h[0:m]` on a gang loop
/// loads `h` and `m` there): its operands are computed again before `before` (the
/// construct's last header call) from the variables they load, when the region does not
/// assign those; a section whose bounds cannot be gets no implied clause, and the
/// construct's or an enclosing data clause must map it (the runtime's present check names
/// it otherwise).
pub fn implied_copies<'ctx>(gang_items: &[Reduction<'ctx>], before: Value<'ctx>, cfg: &crate::cfg::FunctionCfg<'ctx>) -> Vec<crate::contract::Clause<'ctx>> {
    use crate::contract::{Clause, DataKind};
    gang_items
        .iter()
        .filter(|r| {
            let storage = storage_root(r.var.base);
            !storage.is_alloca() && !storage.is_global_variable() && !storage.is_argument()
        })
        .filter_map(|r| {
            // A part of each row: the whole rows are mapped.
            let mut var = Var { dims: Vec::new(), ..r.var.clone() };
            if !r.var.dims.is_empty() {
                var.text = whole_rows_text(&r.var.text, 1 + r.var.rows.len());
            }
            for v in [&mut var.base, &mut var.lower, &mut var.length].into_iter().chain(var.rows.iter_mut().flat_map(|r| [&mut r.lower, &mut r.length])) {
                *v = computed_before(*v, before, cfg, 0)?;
            }
            Some(Clause::Data(DataKind::Copy, var))
        })
        .collect()
}

/// `b[1:m][:]` for `b[1:m][2:3]`: the section of whole rows around a part of each.
/// (`keep`: the leading brackets that stay, the range's and its pointer rows'.)
fn whole_rows_text(text: &str, keep: usize) -> String {
    match text.match_indices(']').nth(keep - 1) {
        Some((end, _)) => format!("{}{}", &text[..=end], "[:]".repeat(text[end..].matches('[').count())),
        None => text.to_string(),
    }
}

/// `v`, or a copy of its computation before `before`: loads of variables that every store
/// to happens before `before` (so the copy reads what the region's load reads), integer
/// arithmetic and casts of such values. None when `v` depends on anything else.
pub(crate) fn computed_before<'ctx>(v: Value<'ctx>, before: Value<'ctx>, cfg: &crate::cfg::FunctionCfg<'ctx>, depth: u32) -> Option<Value<'ctx>> {
    use crate::ir::Opcode::*;
    if !v.is_instruction() || (v.parent_function() == before.parent_function() && cfg.dominates_inst(v, before)) {
        return Some(v);
    }
    if depth > 8 {
        return None;
    }
    let op = v.opcode()?;
    match op {
        LLVMLoad => {
            let slot = strip(v.operand(0));
            let settled = (slot.is_alloca() || slot.is_global_variable()) && cfg.dominates_inst(slot, before)
                && slot.users().into_iter().all(|u| u.opcode() != Some(LLVMStore) || (u.parent_function() == before.parent_function() && cfg.dominates_inst(u, before)))
                && !v.is_atomic_access();
            if !settled || slot.is_global_variable() && slot.users().into_iter().any(|u| u.opcode() == Some(LLVMStore)) {
                return None;
            }
            let b = v.context().builder();
            b.position_before(before);
            Some(b.load(v.ty(), slot, ""))
        }
        LLVMSExt | LLVMZExt | LLVMTrunc | LLVMAdd | LLVMSub | LLVMMul | LLVMShl => {
            let ops: Vec<Value> = v.operands().into_iter().map(|o| computed_before(o, before, cfg, depth + 1)).collect::<Option<_>>()?;
            let copy = crate::ir::clone_instruction(v);
            for (k, o) in ops.into_iter().enumerate() {
                copy.set_operand(k as u32, o);
            }
            crate::ir::insert_before(copy, before, v.context());
            Some(copy)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_rows_around_a_part_of_each() {
        assert_eq!(whole_rows_text("b[1:m][2:3]", 1), "b[1:m][:]");
        assert_eq!(whole_rows_text("c[0:2][:][1:1]", 1), "c[0:2][:][:]");
        assert_eq!(whole_rows_text("d", 1), "d");
        // Rows that are pointers to arrays keep their rows' ranges.
        assert_eq!(whole_rows_text("q[0:a][1:b][2:3]", 2), "q[0:a][1:b][:]");
    }

    #[test]
    fn gang_dimensions_a_reduction_counts() {
        // gang(dim: 2) { gang(dim: 1) reduction }: both dimensions, every gang contributes.
        assert_eq!(gang_dims_mask(&[true, true], &[2, 1], &[None, Some(0)], &[false, true]), 0b011);
        // A lone gang(dim: 2) reduction on a grid of several dimensions: dimension 2 only.
        assert_eq!(gang_dims_mask(&[true], &[2], &[None], &[true]), 0b010);
        // gang(dim: 3) reduction { worker loop }: dimension 3.
        assert_eq!(gang_dims_mask(&[true, false], &[3, 1], &[None, Some(0)], &[true, true]), 0b100);
        // Only the construct reduces it: every gang.
        assert_eq!(gang_dims_mask(&[true], &[1], &[None], &[false]), 0b111);
        assert_eq!(gang_dims_mask(&[], &[], &[], &[]), 0b111);
    }

    #[test]
    fn row_reductions_keep_their_dimension_in_one_gang() {
        // gang(dim: 2) { gang(dim: 1) reduction(private s) }: dimension 1.
        assert_eq!(row_reduction_dims(&[true, true], &[2, 1], &[None, Some(0)], &[false, true]), 0b001);
        // gang(dim: 3) { seq { gang(dim: 2) reduction(private s) } }: dimension 2.
        assert_eq!(row_reduction_dims(&[true, false, true], &[3, 1, 2], &[None, Some(0), Some(1)], &[false, false, true]), 0b010);
        // A gang loop with no gang loop around it keeps its gangs (the variable is per gang).
        assert_eq!(row_reduction_dims(&[true, false], &[1, 1], &[None, Some(0)], &[true, true]), 0);
        // A variable in device memory is combined across gangs instead.
        assert_eq!(row_reduction_dims(&[true, true], &[2, 1], &[None, Some(0)], &[false, false]), 0);
    }

    fn item(key: u32, op: ReductionOp) -> Item<u32> {
        Item { key, op, ty: ReductionType::I32, text: format!("v{key}"), shape: Shape::SCALAR }
    }

    fn node(explicit: Vec<Item<u32>>, parent: Option<usize>, uses: &[u32]) -> LoopNode<u32> {
        LoopNode { explicit, parent, uses: uses.iter().copied().collect(), private: HashSet::new() }
    }

    #[test]
    fn trees_follow_the_levels() {
        let l = |gang, worker, vector| Levels { gang, worker, vector };
        assert_eq!(within_gang(l(true, true, true)), Within::Gang { lane0_only: false });
        assert_eq!(within_gang(l(false, true, true)), Within::Gang { lane0_only: false });
        assert_eq!(within_gang(l(true, true, false)), Within::Gang { lane0_only: true });
        assert_eq!(within_gang(l(false, false, true)), Within::Worker);
        assert_eq!(within_gang(l(true, false, false)), Within::Nothing);
        assert_eq!(within_gang(Levels::NONE), Within::Nothing);
    }

    #[test]
    fn a_clause_written_once_reaches_the_inner_loops_that_use_the_variable() {
        use ReductionOp::Add;
        // gang loop reduction(+:s) { vector loop uses s; vector loop does not }
        let loops = vec![node(vec![item(1, Add)], None, &[1]), node(vec![], Some(0), &[1]), node(vec![], Some(0), &[2])];
        let a = propagate(&[], &loops).unwrap();
        assert_eq!(a[0], vec![item(1, Add)]);
        assert_eq!(a[1], vec![item(1, Add)]);
        assert!(a[2].is_empty());
        // Written on every level: the same.
        let every = vec![node(vec![item(1, Add)], None, &[1]), node(vec![item(1, Add)], Some(0), &[1]), node(vec![], Some(0), &[2])];
        assert_eq!(propagate(&[], &every).unwrap(), a);
    }

    #[test]
    fn the_construct_clause_reaches_loops_through_sequential_ones() {
        use ReductionOp::Max;
        let loops = vec![node(vec![], None, &[3]), node(vec![], Some(0), &[3])];
        let a = propagate(&[item(3, Max)], &loops).unwrap();
        assert_eq!(a[0], vec![item(3, Max)]);
        assert_eq!(a[1], vec![item(3, Max)]);
    }

    #[test]
    fn private_stops_an_outer_reduction() {
        let mut inner = node(vec![], Some(0), &[1]);
        inner.private.insert(1);
        let loops = vec![node(vec![item(1, ReductionOp::Add)], None, &[1]), inner, node(vec![], Some(1), &[1])];
        let a = propagate(&[], &loops).unwrap();
        assert!(a[1].is_empty() && a[2].is_empty());
    }

    #[test]
    fn another_operator_inside_is_an_error() {
        let loops = vec![node(vec![item(1, ReductionOp::Add)], None, &[1]), node(vec![item(1, ReductionOp::Mul)], Some(0), &[1])];
        let (at, msg) = propagate(&[], &loops).unwrap_err();
        assert_eq!(at, 1);
        assert!(msg.contains("'*' here but with '+'"), "{msg}");
    }

    #[test]
    fn shapes_of_clause_items() {
        assert_eq!(Shape::of(Some(0), Some(1), Some(4), 4), Some(Shape::SCALAR));
        // hist[0:64] of int, h[8:16], a whole double w[8].
        assert_eq!(Shape::of(Some(0), Some(64), Some(4), 4), Some(Shape { lo: 0, n: 64, array: true, part: None }));
        assert_eq!(Shape::of(Some(8), Some(16), Some(4), 4).map(|s| s.extent()), Some(24));
        assert_eq!(Shape::of(Some(0), Some(1), Some(64), 8), Some(Shape { lo: 0, n: 8, array: true, part: None }));
        // A one-element section is an array of one.
        assert_eq!(Shape::of(Some(3), Some(1), Some(4), 4), Some(Shape { lo: 3, n: 1, array: true, part: None }));
        // Not constant, empty, or not made of the element type.
        assert_eq!(Shape::of(None, Some(4), Some(4), 4), None);
        assert_eq!(Shape::of(Some(0), Some(0), Some(4), 4), None);
        assert_eq!(Shape::of(Some(0), Some(1), Some(6), 4), None);
        // Whole rows of 5 doubles: rows 1 and 2 are elements 5 .. 15.
        assert_eq!(Shape::of(Some(1), Some(2), Some(40), 8), Some(Shape { lo: 5, n: 10, array: true, part: None }));
        assert_eq!(Shape::of(Some(0), Some(0), Some(40), 8), None);
    }

    #[test]
    fn warp_steps() {
        assert!(warp_step(ReductionOp::Max, ReductionType::I32).starts_with("redux.sync"));
        assert!(warp_step(ReductionOp::And, ReductionType::Bool).starts_with("redux.sync"));
        assert_eq!(warp_step(ReductionOp::Mul, ReductionType::U16), "shuffles per warp");
        assert_eq!(warp_step(ReductionOp::Add, ReductionType::I64), "shuffles per warp");
        assert_eq!(warp_step(ReductionOp::Add, ReductionType::F32), "shuffles per warp");
    }

    #[test]
    fn nested_trees_move_to_the_outermost_loop_that_only_accumulates() {
        let l = |gang, worker, vector| Levels { gang, worker, vector };
        // gang { worker { vector { s += } } }, s used only inside the inner loops.
        let nest = [
            SiteNode { parent: None, levels: l(true, false, false), only_in_children: true },
            SiteNode { parent: Some(0), levels: l(false, true, false), only_in_children: true },
            SiteNode { parent: Some(1), levels: l(false, false, true), only_in_children: false },
        ];
        assert_eq!(plan_trees(&nest), vec![Tree::Over(l(true, true, true)), Tree::Deferred, Tree::Deferred]);
        // The worker body reads s between (stores it): the vector tree stays, the worker's
        // tree is deferred to the gang loop.
        let read = [nest[0], SiteNode { only_in_children: false, ..nest[1] }, nest[2]];
        assert_eq!(plan_trees(&read), vec![Tree::Over(l(true, true, false)), Tree::Deferred, Tree::Over(l(false, false, true))]);
        // Nothing deferred: every loop its own tree.
        let none: Vec<SiteNode> = nest.iter().map(|n| SiteNode { only_in_children: false, ..*n }).collect();
        assert_eq!(plan_trees(&none), vec![Tree::Over(l(true, false, false)), Tree::Over(l(false, true, false)), Tree::Over(l(false, false, true))]);
    }

    #[test]
    fn helper_names() {
        assert_eq!(helper_name("block", ReductionOp::And, ReductionType::U16), "__acc_red_block_land_u16");
        assert_eq!(helper_name("gang", ReductionOp::BitXor, ReductionType::C64), "__acc_red_gang_xor_c64");
    }

    #[test]
    fn a_part_of_each_row_combines_its_columns_only() {
        // m[1:3][2:3] of double m[4][8]: copies of rows 1..4 (24 elements), 9 combined.
        let s = Shape { lo: 8, n: 24, array: true, part: Some(Part { first: 2, cols: 3, row: 8 }) };
        assert_eq!(s.columns(), 9);
        assert_eq!(s.extent(), 32);
        assert_eq!(Shape { part: None, ..s }.columns(), 24);
    }

    #[test]
    fn only_scalar_logical_leaves_get_a_copy_per_iteration() {
        let arr = Shape { lo: 0, n: 4, array: true, part: None };
        assert!(fresh_each_iteration(ReductionOp::And, Shape::SCALAR, false));
        assert!(fresh_each_iteration(ReductionOp::Or, Shape::SCALAR, false));
        assert!(!fresh_each_iteration(ReductionOp::Add, Shape::SCALAR, false), "no short circuit to remove");
        assert!(!fresh_each_iteration(ReductionOp::And, arr, false), "an identity pass per iteration");
        assert!(!fresh_each_iteration(ReductionOp::Or, Shape::SCALAR, true), "inner loops copy from this one");
    }
}
