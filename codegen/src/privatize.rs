//! Where each private array of a kernel lives: one copy per gang, per worker or per thread.
//! (Also each scalar that an `atomic` updates: lanes share such a variable as they share
//! arrays.)
//!
//! Expects: a kernel after `partition` (SSA form; arrays that SROA could not promote are still
//! allocas in its entry block), with the (effective) levels and header of every partitioned
//! loop. An alloca named `*.acc.gang`, `*.acc.worker` or `*.acc.vector` carries an explicit
//! `private` clause of that level (device.rs names them before SROA); `private` on a
//! `parallel` construct is per gang. Other arrays follow C scoping, read from their uses: an
//! array used inside a worker or vector loop and also outside it (or in two of them)
//! belongs to the innermost partitioned loop around all its uses, so the finer lanes share it.
//!
//! Produces: per-gang arrays as shared-memory globals (address space 3), per-worker ones as a
//! shared array of 16 copies indexed by the worker id (the runtime then launches at most 15
//! workers), per-thread ones left as allocas. Accesses to shared copies from single-mode code
//! are then guarded and broadcast by `guard`. Arrays over 40 KiB of shared memory per
//! kernel never get here: outline.rs made them copies in the launch's private area
//! (private_copies.rs), whose level for arrays declared in the region
//! [`place_area_copies`] decides here by the same rules. What is still over the budget
//! (arrays a routine's inlining brought in) goes to the device heap, one block per gang
//! allocated when the gang starts ([`relocate`]); so do arrays of a size computed in the
//! region that lanes share ([`place_dynamic_arrays`]).

use crate::cfg::FunctionCfg;
use crate::devrt;
use crate::error::{AccError, Loc, Result};
use crate::ir::{Block, Module, Opcode, Value};
use crate::mapping::Levels;
use std::collections::HashSet;

/// Copies of one private array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    PerGang,
    PerWorker,
    PerThread,
}

/// Shared memory the private arrays of one kernel may take.
pub const SHARED_LIMIT: u64 = 40 * 1024;
/// Per-worker copies (workers are limited to 15 in kernels that have them).
const WORKER_COPIES: u64 = 16;

pub const GANG_SUFFIX: &str = ".acc.gang";
pub const WORKER_SUFFIX: &str = ".acc.worker";
pub const VECTOR_SUFFIX: &str = ".acc.vector";

/// The suffix naming an explicit `private` clause on a loop with `levels`.
pub fn suffix_for(levels: Levels) -> &'static str {
    if levels.vector {
        VECTOR_SUFFIX
    } else if levels.worker {
        WORKER_SUFFIX
    } else {
        GANG_SUFFIX
    }
}

/// Placement from usage: `scope` is the coverage of the innermost partitioned loop around
/// every use, `finer_use` whether some use sits in a worker or vector loop inside it.
pub fn placement(scope: Levels, finer_use: bool) -> Placement {
    if !finer_use || scope.vector {
        Placement::PerThread
    } else if scope.worker {
        Placement::PerWorker
    } else {
        Placement::PerGang
    }
}

fn explicit(name: &str) -> Option<Placement> {
    if name.ends_with(GANG_SUFFIX) {
        Some(Placement::PerGang)
    } else if name.ends_with(WORKER_SUFFIX) {
        Some(Placement::PerWorker)
    } else if name.ends_with(VECTOR_SUFFIX) {
        Some(Placement::PerThread)
    } else {
        None
    }
}

/// What `place_arrays` moved to shared memory.
#[derive(Clone, Debug, Default)]
pub struct Placed {
    pub shared: bool,
    pub per_worker: bool,
    /// Arrays on the device heap (the report's lines, the kernel's flags).
    pub heap: Vec<HeapArray>,
    /// Shared memory the arrays take (cache.rs's tiles take what is left).
    pub bytes: u64,
}

/// A private array that lanes share, on the device heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapArray {
    pub name: String,
    pub place: Placement,
    /// Its size is computed in the region: `malloc` at the declaration, `free` at the end of
    /// its scope. Otherwise it is over shared memory's budget: `malloc` at the kernel's
    /// start, `free` at its end.
    pub sized_in_region: bool,
}

/// Places the kernel's private arrays.
/// (header, body, levels) of each partitioned loop of the kernel whose CFG is `cfg`.
type PartitionedLoops = Vec<(usize, std::collections::BTreeSet<usize>, Levels)>;

fn partitioned_loops<'ctx>(cfg: &FunctionCfg<'ctx>, loops: &[(Block<'ctx>, Levels)]) -> PartitionedLoops {
    let natural = cfg.loops();
    loops
        .iter()
        .filter_map(|(h, lv)| {
            let hi = *cfg.index.get(h)?;
            natural.iter().find(|l| l.header == hi).map(|l| (hi, l.body.clone(), *lv))
        })
        .collect()
}

/// The placement C scoping gives an array used in blocks `uses`: the coverage of the
/// innermost partitioned loop around every use, finer when some use is in a finer loop.
fn usage_placement(plo: &PartitionedLoops, uses: &[usize]) -> Placement {
    let cov = |n: usize| plo.iter().filter(|(_, b, _)| b.contains(&n)).fold(Levels::NONE, |a, (_, _, l)| a.union(*l));
    let scope = plo
        .iter()
        .filter(|(_, body, _)| uses.iter().all(|u| body.contains(u)))
        .min_by_key(|(_, body, _)| body.len())
        .map_or(Levels::NONE, |(h, _, _)| cov(*h));
    let finer = uses.iter().any(|&u| {
        let c = cov(u);
        (c.worker && !scope.worker) || (c.vector && !scope.vector)
    });
    placement(scope, finer)
}

/// Levels of the private area's copies that C scoping places (`by_uses`, per copy in the
/// order of their `__acc_private_copy` calls: arrays declared in the region that shared
/// memory cannot hold, private_copies.rs): from their uses, as for the arrays here; each
/// call gets its level.
/// A thread's own array becomes an alloca again (`CopyLevel::Local`: the area then holds
/// nothing for it), unless its size is a run-time one.
pub fn place_area_copies<'ctx>(k: Value<'ctx>, loops: &[(Block<'ctx>, Levels)], by_uses: &[AreaPlacement<'ctx>], levels: &mut [crate::private_copies::CopyLevel]) {
    use crate::private_copies::CopyLevel;
    if by_uses.iter().all(|p| *p == AreaPlacement::Fixed) {
        return;
    }
    let cfg = FunctionCfg::new(k);
    let plo = partitioned_loops(&cfg, loops);
    let calls: Vec<Value> = k.entry_block().instructions().into_iter().filter(|i| i.called_name().as_deref() == Some(crate::private_copies::COPY_FN)).collect();
    for (i, call) in calls.into_iter().enumerate() {
        let Some(AreaPlacement::ByUses { local }) = by_uses.get(i) else { continue };
        let uses: Vec<usize> = use_blocks(call).iter().map(|b| cfg.index[b]).collect();
        let level = match usage_placement(&plo, &uses) {
            Placement::PerGang => CopyLevel::Gang,
            Placement::PerWorker => CopyLevel::Worker,
            Placement::PerThread if local.is_none() => CopyLevel::Thread,
            Placement::PerThread => {
                let ty = local.expect("checked");
                let b = k.context().builder();
                b.position_before(k.entry_block().first_instruction().expect("the entry has a terminator"));
                let own = b.alloca(ty, &format!("{}.local", call.name()));
                call.replace_all_uses_with(own);
                call.erase();
                levels[i] = CopyLevel::Local;
                continue;
            }
        };
        call.set_operand(4, k.context().i64().const_int(level as u64));
        levels[i] = level;
    }
}

/// How a copy of the private area gets its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AreaPlacement<'ctx> {
    /// From its clause (private_copies.rs `set_levels`).
    Fixed,
    /// From its uses ([`place_area_copies`]); `local`: the array's type, when a thread's own
    /// copy may be an alloca (not for a run-time size).
    ByUses { local: Option<crate::ir::Type<'ctx>> },
}

impl<'ctx> AreaPlacement<'ctx> {
    pub fn of(c: &crate::private_copies::Copy<'ctx>) -> AreaPlacement<'ctx> {
        match c.origin {
            crate::private_copies::Origin::Uses => {
                AreaPlacement::ByUses { local: crate::outline::vla_count(c.value).is_none().then(|| crate::outline::variable_type(c.value)) }
            }
            _ => AreaPlacement::Fixed,
        }
    }
}

pub fn place_arrays<'ctx>(m: Module<'ctx>, k: Value<'ctx>, loops: &[(Block<'ctx>, Levels)], loc: &Loc) -> Result<Placed> {
    let cfg = FunctionCfg::new(k);
    let plo = partitioned_loops(&cfg, loops);
    let mut placed = Placed::default();
    // (A thread's own array from the heap splits blocks: the CFG is read again.)
    let (cfg, plo) = if place_dynamic_arrays(m, k, &cfg, &plo, loc, &mut placed)? {
        let cfg = FunctionCfg::new(k);
        let plo = partitioned_loops(&cfg, loops);
        (cfg, plo)
    } else {
        (cfg, plo)
    };
    let mut shared_bytes = 0u64;
    for a in k.entry_block().instructions().into_iter().filter(|i| i.is_alloca()) {
        let ty = a.allocated_type();
        if ty.is_scalar() && !atomically_accessed(a) {
            continue;
        }
        let uses: Vec<usize> = use_blocks(a).iter().map(|b| cfg.index[b]).collect();
        let place = explicit(&a.name()).unwrap_or_else(|| usage_placement(&plo, &uses));
        let copies = match place {
            Placement::PerThread => continue,
            Placement::PerGang => 1,
            Placement::PerWorker => WORKER_COPIES,
        };
        let bytes = worker_stride(ty.store_size(m), u64::from(a.alignment().max(16))) * copies;
        placed.per_worker |= place == Placement::PerWorker;
        placed.shared = true;
        if shared_bytes + bytes > SHARED_LIMIT {
            // Over shared memory's budget (arrays a routine's inlining brought in: outline.rs
            // moved the region's own to the private area): the device heap, per gang.
            // (The inliner names a routine's `t` `t.i`.)
            let name = crate::outline::display_name(a);
            let name = name.strip_suffix(".i").unwrap_or(&name).to_string();
            placed.heap.push(HeapArray { name, place, sized_in_region: false });
            relocate(m, k, a, place, Home::Heap);
            continue;
        }
        shared_bytes += bytes;
        placed.bytes = shared_bytes;
        relocate(m, k, a, place, Home::Shared);
    }
    Ok(placed)
}

/// An array of run-time size declared in the region whose size is computed inside it
/// (outline.rs could not make it a copy of the private area) stays a dynamic alloca when it
/// is each thread's own (declared in the body of the finest partitioned loop that uses it).
/// One that lanes share (used in a finer partitioned loop than the one it is declared in) is
/// allocated from the device heap at its declaration and freed at the end of its C scope
/// (where clang restores the stack): both are calls with effects, so `guard` makes them the
/// single-mode lane's, broadcasts the address to the lanes that share the array, and syncs
/// before the free once a partitioned loop has used it. A scope end that cannot be found is
/// a located error, not a leak.
fn place_dynamic_arrays<'ctx>(m: Module<'ctx>, k: Value<'ctx>, cfg: &FunctionCfg<'ctx>, plo: &PartitionedLoops, loc: &Loc, placed: &mut Placed) -> Result<bool> {
    let entry = k.entry_block();
    let dynamic: Vec<Value> = k
        .blocks()
        .into_iter()
        .filter(|b| *b != entry)
        .flat_map(|b| b.instructions())
        // (Constant-size ones too: an in-loop private copy whose size folded to a constant,
        // private_copies::InLoopCopy; clang puts fixed-size arrays in the entry block.)
        .filter(|i| i.is_alloca())
        .collect();
    // A thread's own arrays change the control flow: after every decision on this CFG.
    let mut own = Vec::new();
    for a in dynamic {
        let uses: Vec<usize> = use_blocks(a).iter().map(|b| cfg.index[b]).chain(std::iter::once(cfg.index[&a.parent_block()])).collect();
        // (A name can say whose it is: a reduction's copy made where its loop begins,
        // reduction.rs `View::local_copy`, is each thread's though the trees read it after.)
        let place = explicit(&a.name()).unwrap_or_else(|| usage_placement(plo, &uses));
        if place == Placement::PerThread {
            own.push((a, scope_ends(k, cfg, a)));
            continue;
        }
        let ends = scope_ends(k, cfg, a).ok_or_else(|| {
            AccError::unsupported(
                loc,
                "an array of run-time size declared in the region whose size is computed inside it, shared by the lanes of a gang or worker, whose scope's end is not found (compute its size before the region)",
            )
        })?;
        let ctx = m.context();
        let i64t = ctx.i64();
        let (malloc, free) = heap_functions(m);
        let b = ctx.builder();
        b.position_before(a);
        let count = b.zext_or_trunc(a.operand(0), i64t);
        let bytes = b.binop(Opcode::LLVMMul, count, i64t.const_int(a.allocated_type().store_size(m)));
        let p = b.call(malloc, &[bytes], "vla.heap");
        let name = array_name(a);
        a.replace_all_uses_with(p);
        a.erase();
        for end in ends {
            b.position_before(end);
            b.call(free, &[p], "");
        }
        placed.shared = true;
        placed.per_worker |= place == Placement::PerWorker;
        placed.heap.push(HeapArray { name, place, sized_in_region: true });
    }
    let mut split = false;
    for (a, ends) in own {
        split |= thread_stack_or_heap(m, a, ends, placed);
    }
    Ok(split)
}

/// The most bytes a thread's own array of run-time size takes on its stack: CUDA gives a
/// thread 1 KiB of stack unless the program raises it, and the kernel's own frame shares it
/// (a larger dynamic alloca overran it: CUDA_ERROR_ILLEGAL_ADDRESS).
pub const THREAD_STACK_ARRAY_BYTES: u64 = 256;

/// A thread's own array of run-time size (dynamic alloca `a`: a variable-length array in the
/// finest partitioned loop's body, or a loop's private copy sized in the region,
/// private_copies.rs `InLoopCopy`): on the thread's stack up to [`THREAD_STACK_ARRAY_BYTES`],
/// else from the device heap, allocated where it is declared and freed at the end of its
/// scope (`ends`, [`scope_ends`]). Left as it is when its size is a constant that small, or
/// when its scope's end is not known (as before: the stack). Returns whether it split blocks.
fn thread_stack_or_heap<'ctx>(m: Module<'ctx>, a: Value<'ctx>, ends: Option<Vec<Value<'ctx>>>, placed: &mut Placed) -> bool {
    let ctx = m.context();
    let i64t = ctx.i64();
    let elem = a.allocated_type().store_size(m);
    if a.operand(0).const_int_value().is_some_and(|c| u64::try_from(c).is_ok_and(|c| c.saturating_mul(elem) <= THREAD_STACK_ARRAY_BYTES)) {
        return false;
    }
    let Some(ends) = ends else { return false };
    let (malloc, free) = thread_heap_functions(m);
    let b = ctx.builder();
    b.position_before(a);
    let count = b.zext_or_trunc(a.operand(0), i64t);
    let bytes = b.binop(Opcode::LLVMMul, count, i64t.const_int(elem));
    let large = b.icmp(crate::ir::IntPred::LLVMIntUGT, bytes, i64t.const_int(THREAD_STACK_ARRAY_BYTES));
    // The stack's part: all of it, or nothing.
    let on_stack = b.select(large, i64t.const_int(0), count);
    a.set_operand(0, b.zext_or_trunc(on_stack, a.operand(0).ty()));
    // (Lifetime markers name allocas; the array may be the heap's now.)
    for u in a.users().into_iter().filter(|u| is_lifetime_marker(*u)) {
        u.erase();
    }
    let after = a.next_instruction().expect("an alloca is followed by its block's terminator at least");
    let users: Vec<Value> = a.users();
    let heap = if_then(m, after, large, |b| b.call(malloc, &[bytes], "vla.thread.heap"));
    b.position_before(after);
    let p = b.phi(ctx.ptr(), THREAD_ARRAY);
    p.add_incoming(a, heap.skipped);
    p.add_incoming(heap.value, heap.then);
    for u in users {
        for i in 0..u.num_operands() {
            if u.operand(i) == a {
                u.set_operand(i, p);
            }
        }
    }
    for end in ends {
        if_then(m, end, large, |b| {
            b.call(free, &[p], "");
            p
        });
    }
    placed.heap.push(HeapArray { name: array_name(a), place: Placement::PerThread, sized_in_region: true });
    true
}

/// What the report calls dynamic alloca `a`: its variable, or, as clang names a
/// variable-length array's alloca `vla`, not after the variable, "a variable-length array".
fn array_name(a: Value<'_>) -> String {
    let name = crate::outline::display_name(a);
    if name.trim_start_matches("vla").chars().all(|c| c.is_ascii_digit()) {
        "a variable-length array".to_string()
    } else {
        reduction_copy_name(&name).unwrap_or(name)
    }
}

/// A loop's reduction copy made where the loop begins (reduction.rs `View::local_copy`, named
/// `<item>.red<k>` and the suffix) as the report calls it: "a reduction copy of <item>".
fn reduction_copy_name(name: &str) -> Option<String> {
    let (item, k) = name.strip_suffix(VECTOR_SUFFIX)?.rsplit_once(".red")?;
    (!k.is_empty() && k.chars().all(|c| c.is_ascii_digit())).then(|| format!("a reduction copy of {item}"))
}

/// What [`if_then`] made: the value its body computed, the body's block and the block that
/// branched around it.
struct Conditional<'ctx> {
    value: Value<'ctx>,
    then: Block<'ctx>,
    skipped: Block<'ctx>,
}

/// `if (cond) { body }` just before `before`, which then starts the join block.
fn if_then<'ctx>(m: Module<'ctx>, before: Value<'ctx>, cond: Value<'ctx>, body: impl FnOnce(&crate::ir::Builder<'ctx>) -> Value<'ctx>) -> Conditional<'ctx> {
    let ctx = m.context();
    let head = before.parent_block();
    let (then, join) = head.open_branch_before(ctx, before, "acc.thread.heap", "acc.thread.heap.join");
    let b = ctx.builder();
    b.position_at_end(head);
    b.cond_br(cond, then, join);
    b.position_at_end(then);
    let value = body(&b);
    b.br(join);
    Conditional { value, then, skipped: head }
}

/// The ends of dynamic alloca `a`'s C scope: the `llvm.stackrestore` calls of the innermost
/// `llvm.stacksave` before it (clang saves the stack where a scope's first variable-length
/// array is declared and restores it on every way out of the scope), when `a` comes before
/// each of them. None otherwise.
fn scope_ends<'ctx>(k: Value<'ctx>, cfg: &FunctionCfg<'ctx>, a: Value<'ctx>) -> Option<Vec<Value<'ctx>>> {
    let calls: Vec<Value> = k.blocks().into_iter().flat_map(|b| b.instructions()).filter(|i| i.opcode() == Some(Opcode::LLVMCall)).collect();
    let named = |i: &Value<'ctx>, prefix: &str| i.called_name().is_some_and(|n| n.starts_with(prefix));
    let saves: Vec<Value> = calls.iter().copied().filter(|i| named(i, "llvm.stacksave") && cfg.dominates_inst(*i, a)).collect();
    let save = saves.iter().copied().find(|s| saves.iter().all(|o| o == s || cfg.dominates_inst(*o, *s)))?;
    let ends: Vec<Value> = calls.into_iter().filter(|i| named(i, "llvm.stackrestore") && crate::outline::strip(i.operand(0)) == save).collect();
    (!ends.is_empty() && ends.iter().all(|e| cfg.dominates_inst(a, *e))).then_some(ends)
}

/// Blocks of the instructions that use `a`, through address computations.
fn use_blocks<'ctx>(a: Value<'ctx>) -> HashSet<Block<'ctx>> {
    let mut out = HashSet::new();
    let mut work = vec![a];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            if !u.is_instruction() {
                continue;
            }
            if is_lifetime_marker(u) {
                continue;
            }
            out.insert(u.parent_block());
            if matches!(u.opcode(), Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMSelect | Opcode::LLVMPHI)) {
                work.push(u);
            }
        }
    }
    out
}

/// Whether an atomic operation (OpenACC `atomic`, driver/src/atomic.rs) reaches `a`'s
/// memory. Such a scalar is the one variable of its scope that lanes may update together
/// (a counter of the gang's), so it is placed like an array: one copy per gang or worker
/// when finer lanes use it. Other scalars SROA has turned into values already.
fn atomically_accessed<'ctx>(a: Value<'ctx>) -> bool {
    let mut work = vec![a];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            let address = match u.opcode() {
                Some(Opcode::LLVMStore) => u.operand(1) == v,
                Some(Opcode::LLVMLoad | Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => u.operand(0) == v,
                Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMSelect | Opcode::LLVMPHI) => {
                    work.push(u);
                    false
                }
                _ => false,
            };
            if address && u.is_atomic_access() {
                return true;
            }
        }
    }
    false
}

fn is_lifetime_marker<'ctx>(i: Value<'ctx>) -> bool {
    i.called_name().is_some_and(|n| n.starts_with("llvm.lifetime."))
}

/// Bytes from one per-worker copy to the next: the array's size rounded up to its
/// alignment, so every copy keeps the alignment its accesses were compiled for (an access
/// of the alloca may already say `align 16`, e.g. a vector load).
pub fn worker_stride(bytes: u64, align: u64) -> u64 {
    let align = align.max(1);
    bytes.max(1).div_ceil(align) * align
}

/// Where [`relocate`] puts a shared private array's copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Home {
    /// A shared-memory global (address space 3).
    Shared,
    /// A device-heap block `malloc`ed where the array was and freed at every return of the
    /// kernel: both calls have effects, so `guard` makes them the gang's single lane's,
    /// broadcasts the address, and syncs before the free.
    Heap,
}

/// The device C library's `malloc` and `free`, declared in `m` (device_libc.rs: system
/// calls on the GPU, the host's C library on the emulator).
fn heap_functions<'ctx>(m: Module<'ctx>) -> (Value<'ctx>, Value<'ctx>) {
    let ctx = m.context();
    (
        m.get_or_add_function("malloc", ctx.fn_type(ctx.ptr(), &[ctx.i64()], false)),
        m.get_or_add_function("free", ctx.fn_type(ctx.void(), &[ctx.ptr()], false)),
    )
}

/// `malloc`/`free` for a thread's own array: wrappers named `__acc_thread_malloc` /
/// `__acc_thread_free`, which guard.rs leaves to every lane (a plain `malloc` in single-mode
/// code, e.g. a reduction's copy made before a vector loop, would be lane 0's alone and its
/// address broadcast: one array for all the lanes).
/// The wrapper that allocates a thread's own array from the heap (guard.rs: every lane calls
/// it, and stores into what it gives are the thread's own).
pub(crate) const THREAD_MALLOC: &str = "__acc_thread_malloc";
/// The name of a thread's own array of run-time size: the phi of its stack and heap parts.
pub(crate) const THREAD_ARRAY: &str = "vla.thread";

fn thread_heap_functions<'ctx>(m: Module<'ctx>) -> (Value<'ctx>, Value<'ctx>) {
    let ctx = m.context();
    let (malloc, free) = heap_functions(m);
    let wrap = |name: &str, inner: Value<'ctx>, ret: crate::ir::Type<'ctx>, param: crate::ir::Type<'ctx>| {
        if let Some(f) = m.function(name) {
            return f;
        }
        let f = m.get_or_add_function(name, ctx.fn_type(ret, &[param], false));
        f.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let b = ctx.builder();
        b.position_at_end(ctx.append_block(f, "entry"));
        let r = b.call(inner, &[f.params()[0]], "");
        if ret.is_void() {
            b.ret_void();
        } else {
            b.ret(r);
        }
        f
    };
    (wrap(THREAD_MALLOC, malloc, ctx.ptr(), ctx.i64()), wrap("__acc_thread_free", free, ctx.void(), ctx.ptr()))
}

/// Replaces alloca `a` (in kernel `k`'s entry block) by one copy per gang, or per worker
/// (16 side by side, indexed by the worker id), in `home`.
fn relocate<'ctx>(m: Module<'ctx>, k: Value<'ctx>, a: Value<'ctx>, place: Placement, home: Home) {
    let ctx = m.context();
    let i64t = ctx.i64();
    let ty = a.allocated_type();
    for u in a.users() {
        if is_lifetime_marker(u) {
            u.erase();
        }
    }
    let align = a.alignment().max(16);
    let stride = worker_stride(ty.store_size(m), u64::from(align));
    let copies = if place == Placement::PerWorker { WORKER_COPIES } else { 1 };
    let b = ctx.builder();
    b.position_before(a);
    let (base, free) = match home {
        Home::Shared => {
            let gty = if place == Placement::PerWorker { ctx.array_type(ctx.i8(), stride * copies) } else { ty };
            let g = m.add_global_in(gty, &format!("{}.shared", a.name()), 3);
            g.set_initializer(gty.undef());
            g.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            g.set_alignment(align);
            (b.cast(Opcode::LLVMAddrSpaceCast, g, ctx.ptr()), None)
        }
        Home::Heap => {
            let (malloc, free) = heap_functions(m);
            (b.call(malloc, &[i64t.const_int(stride * copies)], &format!("{}.heap", a.name())), Some(free))
        }
    };
    let p = if place == Placement::PerWorker {
        let w = devrt::id(m, &b, devrt::WORKER_ID);
        b.gep_bytes(ctx, base, b.mul(w, i64t.const_int(stride)))
    } else {
        base
    };
    a.replace_all_uses_with(p);
    a.erase();
    if let Some(free) = free {
        for ret in k.blocks().into_iter().filter_map(|bb| bb.terminator()).filter(|t| t.opcode() == Some(Opcode::LLVMRet)) {
            b.position_before(ret);
            b.call(free, &[base], "");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Levels = Levels { gang: true, worker: false, vector: false };
    const GW: Levels = Levels { gang: true, worker: true, vector: false };
    const GWV: Levels = Levels { gang: true, worker: true, vector: true };

    #[test]
    fn arrays_shared_by_finer_lanes() {
        // Used in a gang loop's body and its vector loops: one per gang.
        assert_eq!(placement(G, true), Placement::PerGang);
        assert_eq!(placement(Levels::NONE, true), Placement::PerGang);
        // Used in a worker loop's body and its vector loop: one per worker.
        assert_eq!(placement(GW, true), Placement::PerWorker);
        // Used only inside one vector loop iteration, or only in single-mode code: per thread.
        assert_eq!(placement(GWV, false), Placement::PerThread);
        assert_eq!(placement(G, false), Placement::PerThread);
    }

    #[test]
    fn per_worker_copies_keep_their_alignment() {
        assert_eq!(worker_stride(24, 16), 32);
        assert_eq!(worker_stride(32, 16), 32);
        assert_eq!(worker_stride(4, 16), 16);
        assert_eq!(worker_stride(40, 32), 64);
    }

    #[test]
    fn explicit_clauses() {
        assert_eq!(suffix_for(G), GANG_SUFFIX);
        assert_eq!(suffix_for(GW), WORKER_SUFFIX);
        assert_eq!(suffix_for(GWV), VECTOR_SUFFIX);
    }

    #[test]
    fn reduction_copies_by_their_item() {
        assert_eq!(reduction_copy_name("h[0:k].red3.acc.vector").as_deref(), Some("a reduction copy of h[0:k]"));
        assert_eq!(reduction_copy_name("p.red.x.red12.acc.vector").as_deref(), Some("a reduction copy of p.red.x"));
        assert_eq!(reduction_copy_name("t.red.acc.vector"), None);
        assert_eq!(reduction_copy_name("h[0:k].red3"), None);
        assert_eq!(explicit("tmp.acc.gang"), Some(Placement::PerGang));
        assert_eq!(explicit("tmp.acc.vector"), Some(Placement::PerThread));
        assert_eq!(explicit("tmp"), None);
    }
}

/// Whether the iterations of a loop (its instructions: `inside`) write memory the whole gang
/// shares: a gang's private copy from the launch's area (`gang_copies`, the copies'
/// `__acc_private_copy` calls), or an array of the kernel that code outside the loop uses
/// too (so privatize.rs keeps one per gang). A gang loop with no partitioned loop inside is
/// spread over the gang's workers and lanes (mapping::effective_levels) only when it does not:
/// the gang runs its iterations one after another, and lanes running them at once would race
/// on such memory. (An array only the loop uses becomes each thread's own instead.)
pub fn writes_gang_memory<'ctx>(k: Value<'ctx>, inside: &dyn Fn(Value<'ctx>) -> bool, gang_copies: &[Value<'ctx>]) -> bool {
    let is_marker = |u: Value<'ctx>| u.is_call() && u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime") || n.starts_with("llvm.dbg"));
    let shared_arrays = k.entry_block().instructions().into_iter().filter(|a| {
        a.is_alloca() && !a.allocated_type().is_scalar() && a.users().into_iter().any(|u| u.is_instruction() && !is_marker(u) && !inside(u))
    });
    let roots: Vec<Value> = gang_copies.iter().copied().chain(shared_arrays).collect();
    let mut derived: HashSet<Value> = roots.iter().copied().collect();
    let mut work = roots;
    while let Some(p) = work.pop() {
        for u in p.users() {
            if !u.is_instruction() {
                continue;
            }
            let writes = match u.opcode() {
                Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMPHI | Opcode::LLVMSelect) => {
                    if derived.insert(u) {
                        work.push(u);
                    }
                    false
                }
                // A pointer kept in a variable (a section's private slot) or loaded from the
                // memory (a copy's row pointers): followed through the variable's loads.
                Some(Opcode::LLVMStore) if u.operand(0) == p => {
                    let slot = crate::outline::strip(u.operand(1));
                    for l in slot.users().into_iter().filter(|l| l.opcode() == Some(Opcode::LLVMLoad)) {
                        if derived.insert(l) {
                            work.push(l);
                        }
                    }
                    false
                }
                Some(Opcode::LLVMLoad) => {
                    if u.ty().is_ptr() && derived.insert(u) {
                        work.push(u);
                    }
                    false
                }
                Some(Opcode::LLVMStore | Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => true,
                Some(Opcode::LLVMCall) => !is_marker(u) && !u.called_name().is_some_and(|n| n == crate::private_copies::COPY_FN),
                _ => false,
            };
            if writes && inside(u) {
                return true;
            }
        }
    }
    false
}
