//! Outlines one compute region into a function of its own.
//!
//! Expects: a verified compute `Directive` (contract.rs) in its host function, as Clang
//! emits it (memory form: locals in allocas of the entry block) or in SSA form.
//! Produces: a new internal function `<fn>_l<line>` (`void(captures...)`) holding the
//! region's blocks, whose parameters are the captured values passed as `capture::classify`
//! decides; the host function keeps the directive's header (begin marker, clause operands)
//! in `header`, which now branches straight to `exit` (the block that starts with the end
//! marker). The same function is the host fallback and, cloned into the device module, the
//! kernel. With debug info, the new function gets a subprogram of its own at the directive's
//! line; its instructions keep their source lines, and variable records follow the captures
//! to their parameters or private copies (`ir::fixup_outlined_debug_info`). Does not build
//! the launch stub (host_stub.rs) and does not map loops (the device module does).

use crate::capture::{classify, CaptureError, CaptureFacts, Passing, Storage};
use crate::cfg::{FunctionCfg, NaturalLoop};
use crate::contract::{Clause, ComputeKind, DataKind, Directive, DirectiveKind, Var};
use crate::error::{warn, AccError, Loc, Result, Warning};
use crate::ir::{const_expr_as_instruction, Block, Context, Module, Value};
use crate::liveness::{self, Access};
use crate::loops::find_bound_loop;
use llvm_sys::LLVMLinkage;
use std::collections::{HashMap, HashSet};

/// One parameter of the outlined function (Private captures have no parameter).
#[derive(Clone, Debug)]
pub struct Capture<'ctx> {
    /// The host value: an SSA value, an alloca or a global.
    pub value: Value<'ctx>,
    pub passing: Passing,
    /// Bytes of the variable (for implicit mapping).
    pub bytes: u64,
    /// A variable-length array's bytes, an `i64` computed before the region (host), which
    /// implicit mapping takes instead of `bytes`.
    pub size: Option<Value<'ctx>>,
    /// A data clause whose item this capture points into (for translating pointers whose
    /// base itself is not mapped, e.g. `y` with `copy(y[5:10])`).
    pub via: Option<(DataKind, Var<'ctx>)>,
    pub name: String,
    /// The attribute the compiler chose for it and why, when no clause did (for the
    /// compile report: `capture::implicit_attribute`).
    pub implicit: Option<(&'static str, &'static str)>,
    /// A pointer that no data clause covers, translated at launch (`implicit` says so): the
    /// kernel's accesses through it may bound an implicit copy of its target
    /// (implicit_bounds.rs).
    pub unmapped_pointer: bool,
}

pub struct Outlined<'ctx> {
    pub directive: Directive<'ctx>,
    pub compute: ComputeKind,
    pub func: Value<'ctx>,
    pub captures: Vec<Capture<'ctx>>,
    /// Host block holding the directive header; ends in `br exit` until the stub replaces it.
    pub header: Block<'ctx>,
    pub exit: Block<'ctx>,
    /// The construct or one of its loops has a `reduction` clause: the function's last
    /// parameter is the runtime's reduction scratch pointer (null on the host path).
    pub scratch_param: bool,
    /// Private copies of run-time size (private_copies.rs), in the order of their
    /// parameters, which follow the scratch's.
    pub copies: Vec<crate::private_copies::Copy<'ctx>>,
    /// Loop `private` sections sized inside the region, made per iteration in the kernel
    /// (private_copies::InLoopCopy): their texts, for the report.
    pub in_loop: Vec<String>,
}

impl<'ctx> Outlined<'ctx> {
    /// What host value `v` (a captured variable) became in `f` (the outlined function or its
    /// clone in the device module): its parameter, or its private slot in the entry block.
    pub fn value_in(&self, f: Value<'ctx>, v: Value<'ctx>) -> Option<Value<'ctx>> {
        let params = f.params();
        let mut pi = 0;
        for c in &self.captures {
            let found = c.value == v;
            let slot = |suffix: &str| {
                let name = format!("{}.{suffix}", c.name);
                f.entry_block().instructions().into_iter().find(|i| i.is_alloca() && i.name() == name)
            };
            match c.passing {
                Passing::Private | Passing::PrivateCopy { .. } if found => return slot("private"),
                Passing::Private | Passing::PrivateCopy { .. } => continue,
                Passing::FirstPrivate if found => return slot("firstprivate"),
                _ if found => return params.get(pi).copied(),
                _ => {}
            }
            pi += 1;
        }
        None
    }
}

/// Outlines `d`. `enclosing_data` are the clause items of the enclosing data regions (and
/// declares), `loops` the loop directives inside the region, `earlier` the regions of the
/// module outlined before this one (their headers read what they capture), `declared` the
/// globals of file-scope declares: those that functions the region calls use are captured
/// too (their device addresses reach the kernel, globals.rs).
pub fn outline<'ctx>(
    m: Module<'ctx>,
    d: &Directive<'ctx>,
    enclosing_data: &[(DataKind, Var<'ctx>)],
    loops: &[Directive<'ctx>],
    earlier: &[Outlined<'ctx>],
    declared: &HashSet<Value<'ctx>>,
) -> Result<Outlined<'ctx>> {
    let ctx = m.context();
    // Reductions combined across gangs, read before the region is split off: their variables
    // are `copy` (capture.rs), a pointer section gets a `copy` clause (reduction.rs).
    let cfg = FunctionCfg::new(d.function);
    let gang_items = crate::reduction::gang_level_items(d, loops, &cfg);
    let mut implied = d.clone();
    implied.clauses.extend(crate::reduction::implied_copies(&gang_items, d.last_header_call(), &cfg));
    let d = &implied;
    let DirectiveKind::Compute { kind: compute, .. } = d.kind else {
        return Err(AccError::internal("outline called on a non-compute directive"));
    };
    let last = d.last_header_call();
    let header = last.parent_block();
    let after = last.next_instruction().ok_or_else(|| AccError::internal("marker call without a following instruction"))?;
    let entry = header.split_before(ctx, after, "acc.region");
    let exit = if d.end.prev_instruction().is_none() {
        d.end.parent_block()
    } else {
        d.end.parent_block().split_before(ctx, d.end, "acc.exit")
    };
    let region = region_blocks(entry, exit);
    check_single_exit(d, &region, exit)?;
    expand_global_const_exprs(&region);

    // Captured values in order of first use.
    let mut seen = HashSet::new();
    let mut captured = Vec::new();
    for b in &region {
        for i in b.instructions() {
            for op in i.operands() {
                if is_capture(op, &region) && seen.insert(op) {
                    captured.push(op);
                }
            }
        }
    }
    for g in crate::globals::used_by_callees(&region, declared) {
        if seen.insert(g) {
            captured.push(g);
        }
    }
    // A combined construct's `gang(static: s)` chunk size computed at run time: the kernel
    // partitions the loop with it (device.rs), so it is passed as a value.
    if let DirectiveKind::Compute { combined_loop: true, .. } = d.kind {
        for c in &d.clauses {
            if let Clause::GangStatic(Some(v)) = c {
                if v.const_int_value().is_none() && seen.insert(*v) {
                    captured.push(*v);
                }
            }
        }
    }

    let mut all_vars: Vec<(DataKind, &Var)> = enclosing_data.iter().map(|(k, v)| (*k, v)).collect();
    all_vars.extend(d.clauses.iter().filter_map(|c| match c {
        Clause::Data(k, v) => Some((*k, v)),
        _ => None,
    }));
    let default_none = d.has(|c| matches!(c, Clause::Default(s) if s == "none"));
    let default_present = d.has(|c| matches!(c, Clause::Default(s) if s == "present"));
    let cfg = FunctionCfg::new(d.function);
    let loop_vars = loop_variables(&cfg, d, loops);
    let gang_reduced: HashSet<Value> = gang_items.iter().map(|r| crate::reduction::storage_root(r.var.base)).collect();
    let flow = Flow { cfg: &cfg, region: &region, entry, exit, earlier };

    crate::private_copies::check_sections(d, loops)?;
    let mut captures = Vec::new();
    let mut copies = Vec::new();
    let mut in_loop = Vec::new();
    // (capture index, bytes) of the private arrays and structs (named by a clause or
    // declared in the region).
    let mut private_arrays = Vec::new();
    for v in captured {
        let storage = storage_of(v);
        // A variable an earlier region captured (e.g. set by one part of a split `kernels`
        // construct for the next) has lost those uses to that region's function, so its
        // remaining uses alone say nothing about where it was declared.
        let captured_before = earlier.iter().any(|r| r.captures.iter().any(|c| c.value == v));
        let region_local = !v.is_global_variable()
            && !captured_before
            && v.users().iter().all(|u| !u.is_instruction() || region.contains(&u.parent_block()));
        let local = v.is_alloca() && liveness::address_is_private(v);
        let facts = CaptureFacts {
            storage,
            compute,
            in_data_clause: all_vars.iter().any(|(_, x)| strip(x.base) == v),
            pointee_in_data_clause: all_vars.iter().any(|(_, x)| points_into(x.base, v)),
            // `private` on the construct or on one of its loops: a variable from outside
            // the region that a loop privatises gets private storage in the kernel, which
            // privatize.rs then places per gang, worker or thread after the loop's level.
            private_clause: std::iter::once(d).chain(loops).any(|l| l.has(|c| matches!(c, Clause::Private(x) if strip(x.base) == v))),
            firstprivate_clause: d.has(|c| matches!(c, Clause::FirstPrivate(x) if strip(x.base) == v)),
            deviceptr_clause: all_vars.iter().any(|(k, x)| *k == DataKind::DevicePtr && strip(x.base) == v),
            gang_reduction: gang_reduced.contains(&v),
            region_local,
            written: written_in(v, &region),
            loop_variable: loop_vars.contains(&v),
            live_in: !local || flow.live_in(v),
            live_out: !local || flow.live_out(v),
            default_present,
            // default(none) asks the user to name each variable of theirs; Clang's own
            // temporaries (`cleanup.dest.slot` of a loop that declares its variable, ...)
            // are not theirs to name and take the implicit rules.
            default_none: default_none && crate::capture::is_user_variable_name(&display_name(v)),
        };
        let name = display_name(v);
        let mut passing = classify(facts).map_err(|e| match e {
            CaptureError::NeedsExplicitClause => AccError::user(
                &d.loc,
                format!("variable '{name}' is used in the region but has no data clause, and default(none) requires one"),
            ),
        })?;
        let var_bytes = if matches!(storage, Storage::Variable { .. }) { variable_type(v).store_size(m) } else { 0 };
        let mut in_loop_copy = false;
        if let Some((source, initialised, origin)) = crate::private_copies::find(d, loops, v, passing, var_bytes, FIRSTPRIVATE_BYTES) {
            let before = header.terminator().expect("split left a branch");
            match crate::private_copies::place(v, source, origin, loops, before, &cfg) {
                crate::private_copies::Placing::Area(source) => {
                    passing = Passing::PrivateCopy { initialised };
                    copies.push(crate::private_copies::Copy { value: v, name: name.clone(), source, initialised, origin });
                }
                // The pointer itself stays captured as it was.
                crate::private_copies::Placing::InLoop(c) => {
                    in_loop.push(c);
                    in_loop_copy = true;
                }
            }
        }
        // Sections of its pointer members: the struct is passed as before.
        for (source, initialised, origin) in crate::private_copies::member_sections(d, loops, v) {
            let before = header.terminator().expect("split left a branch");
            match crate::private_copies::place(v, source, origin, loops, before, &cfg) {
                crate::private_copies::Placing::Area(source) => {
                    let crate::private_copies::Source::Member(x) = &source else { unreachable!("member_sections gives members") };
                    copies.push(crate::private_copies::Copy { value: v, name: x.text.clone(), source, initialised, origin });
                }
                crate::private_copies::Placing::InLoop(c) => {
                    in_loop.push(c);
                    in_loop_copy = true;
                }
            }
        }
        // An array reduction without constant bounds may need private copies of run-time
        // size (the device module decides: reduction.rs).
        copies.extend(crate::private_copies::reduction_view(d, loops, v, header.terminator().expect("split left a branch"), &cfg));
        // A variable-length array's bytes are known only at run time: mapped with them, and
        // its private copies are the area's.
        let size = vla_count(v).map(|count| {
            let b = ctx.builder();
            b.position_before(header.terminator().expect("split left a branch"));
            let count = b.zext_or_trunc(count, ctx.i64());
            b.binop(crate::ir::Opcode::LLVMMul, count, ctx.i64().const_int(variable_type(v).store_size(m)))
        });
        if let (Some(bytes), Passing::Private | Passing::FirstPrivate) = (size, passing) {
            let initialised = passing == Passing::FirstPrivate;
            let origin = if initialised { crate::private_copies::Origin::Construct } else { crate::private_copies::array_origin(d, loops, v) };
            passing = Passing::PrivateCopy { initialised };
            copies.push(crate::private_copies::Copy { value: v, name: name.clone(), source: crate::private_copies::Source::Whole(bytes), initialised, origin });
        }
        if crate::capture::loses_write(&facts, passing) && crate::capture::is_user_variable_name(&name) {
            warn(&Warning { loc: d.loc.clone(), msg: lost_write_message(&name, &d.name) });
        }
        let bytes = match storage {
            Storage::Variable { .. } => variable_type(v).store_size(m),
            _ => 0,
        };
        let via = all_vars.iter().find(|(_, x)| points_into(x.base, v)).map(|(k, x)| (*k, (*x).clone()));
        let pointer = match storage {
            Storage::Variable { .. } => variable_type(v).is_ptr(),
            _ => v.ty().is_ptr(),
        };
        let implicit = crate::capture::implicit_attribute(&facts, passing, pointer);
        // A pointer whose loop section is copied per iteration is, outside that loop, a
        // pointer no clause maps (what the kernel still reaches through it is inferred).
        let unmapped_pointer = pointer && via.is_none() && (in_loop_copy || crate::capture::translated_without_clause(&facts, passing));
        if passing == Passing::Private && !variable_type(v).is_scalar() {
            private_arrays.push((captures.len(), var_bytes));
        }
        captures.push(Capture { value: v, passing, bytes, size, via, name, implicit, unmapped_pointer });
    }
    // Private arrays that shared memory cannot hold go to the private area.
    for i in crate::private_copies::beyond_shared(&private_arrays, crate::privatize::SHARED_LIMIT) {
        let (index, bytes) = private_arrays[i];
        let (value, name) = (captures[index].value, captures[index].name.clone());
        let origin = crate::private_copies::array_origin(d, loops, value);
        captures[index].passing = Passing::PrivateCopy { initialised: false };
        let bytes = ctx.i64().const_int(bytes);
        copies.push(crate::private_copies::Copy { value, name, source: crate::private_copies::Source::Whole(bytes), initialised: false, origin });
    }
    // Arrays of run-time size the region declares, whose size is known before it: their
    // copies are the area's too (a dynamic alloca is the thread's own).
    let before = header.terminator().expect("split left a branch");
    copies.extend(crate::private_copies::declared_vlas(m, &region, before, &cfg));

    let scratch_param = std::iter::once(d).chain(loops).any(|l| l.has(|c| matches!(c, Clause::Reduction(_))));
    let func = build_function(m, d, &captures, scratch_param, &copies, &in_loop, &region, entry, exit)?;
    // A firstprivate copy is made from the data on the device.
    let mut directive = d.clone();
    directive.clauses.extend(copies.iter().filter_map(|c| crate::private_copies::implied_copyin(m, c)));
    // The header now goes straight to the exit; the stub builder puts the launch in between.
    let b = ctx.builder();
    header.terminator().expect("split left a branch").erase();
    b.position_at_end(header);
    b.br(exit);
    let in_loop = in_loop.iter().map(|c| c.var.text.clone()).collect();
    Ok(Outlined { directive, compute, func, captures, header, exit, scratch_param, copies, in_loop })
}

/// The warning for a store to an implicitly firstprivate scalar (`capture::loses_write`).
fn lost_write_message(var: &str, construct: &str) -> String {
    format!(
        "'{var}' is assigned in this {construct} region but is firstprivate (no data clause): \
         the host will not see the new value; add copy({var})"
    )
}

/// The region inside its host function, for the liveness of the variables it captures.
struct Flow<'ctx, 'a> {
    cfg: &'a FunctionCfg<'ctx>,
    region: &'a [Block<'ctx>],
    entry: Block<'ctx>,
    exit: Block<'ctx>,
    earlier: &'a [Outlined<'ctx>],
}

impl<'ctx> Flow<'ctx, '_> {
    /// First access to `x` per block; the header of a region outlined before reads what
    /// that region captures (its launch stub will).
    fn accesses(&self, x: Value<'ctx>) -> Vec<Access> {
        self.cfg
            .blocks
            .iter()
            .map(|b| match self.earlier.iter().find(|r| r.header == *b) {
                Some(r) if r.captures.iter().any(|c| c.value == x && c.passing.is_parameter()) => Access::Read,
                _ => liveness::block_access(*b, x),
            })
            .collect()
    }

    /// The region may read `x` before writing it.
    fn live_in(&self, x: Value<'ctx>) -> bool {
        let first = self.accesses(x);
        let start = self.cfg.index[&self.entry];
        let inside: HashSet<usize> = self.region.iter().map(|b| self.cfg.index[b]).collect();
        liveness::read_before_write(&self.cfg.graph.succ, &first, start, first[start], &|n| !inside.contains(&n))
    }

    /// Something after the region may read the value it leaves in `x`.
    fn live_out(&self, x: Value<'ctx>) -> bool {
        let first = self.accesses(x);
        let start = self.cfg.index[&self.exit];
        liveness::read_before_write(&self.cfg.graph.succ, &first, start, first[start], &|_| false)
    }
}

/// The variables (allocas) that are loop variables of loops associated with a loop
/// construct in the region (the combined construct's loop, every `loop` directive's loop,
/// and the loops they collapse): OpenACC 3.3 §2.6.1 makes them private. In memory form
/// the loop's condition loads the variable and the loop stores to it.
fn loop_variables<'ctx>(cfg: &FunctionCfg<'ctx>, d: &Directive<'ctx>, loops: &[Directive<'ctx>]) -> HashSet<Value<'ctx>> {
    let collapse = |x: &Directive<'ctx>| x.clauses.iter().find_map(|c| if let Clause::Collapse(n) = c { Some(*n) } else { None }).unwrap_or(1);
    let mut bound: Vec<(Value, Value, &Loc, u32)> = loops.iter().map(|l| (l.begin, l.end, &l.loc, collapse(l))).collect();
    if let DirectiveKind::Compute { combined_loop: true, .. } = d.kind {
        bound.push((d.begin, d.end, &d.loc, collapse(d)));
    }
    let all = cfg.loops();
    let mut vars = HashSet::new();
    for (begin, end, loc, n) in bound {
        let Ok(mut l) = find_bound_loop(cfg, begin, end, loc) else { continue };
        for level in 0..n {
            if let Some(x) = loop_variable(cfg, &l) {
                vars.insert(x);
            }
            if level + 1 == n {
                break;
            }
            // The collapsed loop: the one outermost loop nested in this one.
            let inner: Vec<&NaturalLoop> = all
                .iter()
                .filter(|o| o.header != l.header && l.body.contains(&o.header))
                .filter(|o| !all.iter().any(|p| p.header != o.header && p.header != l.header && l.body.contains(&p.header) && p.body.contains(&o.header)))
                .collect();
            match inner.as_slice() {
                [one] => l = (*one).clone(),
                _ => break,
            }
        }
    }
    vars
}

/// The variable a loop counts with: loaded (maybe through a cast) in the header's
/// condition and stored inside the loop.
fn loop_variable<'ctx>(cfg: &FunctionCfg<'ctx>, l: &NaturalLoop) -> Option<Value<'ctx>> {
    let t = cfg.blocks[l.header].terminator()?;
    if !t.is_conditional_branch() {
        return None;
    }
    let c = t.branch_condition();
    if c.opcode() != Some(llvm_sys::LLVMOpcode::LLVMICmp) {
        return None;
    }
    c.operands().into_iter().find_map(|op| {
        let op = match op.opcode() {
            Some(llvm_sys::LLVMOpcode::LLVMSExt | llvm_sys::LLVMOpcode::LLVMZExt | llvm_sys::LLVMOpcode::LLVMTrunc) => op.operand(0),
            _ => op,
        };
        if op.opcode() != Some(llvm_sys::LLVMOpcode::LLVMLoad) || !op.operand(0).is_alloca() {
            return None;
        }
        let x = op.operand(0);
        let stepped = x.users().iter().any(|u| {
            u.opcode() == Some(llvm_sys::LLVMOpcode::LLVMStore)
                && u.operand(1) == x
                && cfg.index.get(&u.parent_block()).is_some_and(|b| l.body.contains(b))
        });
        stepped.then_some(x)
    })
}

/// Blocks reachable from `entry` without passing `exit`.
pub(crate) fn region_blocks<'ctx>(entry: Block<'ctx>, exit: Block<'ctx>) -> Vec<Block<'ctx>> {
    let mut out = vec![entry];
    let mut seen: HashSet<Block> = HashSet::from([entry, exit]);
    let mut i = 0;
    while i < out.len() {
        for s in out[i].successors() {
            if seen.insert(s) {
                out.push(s);
            }
        }
        i += 1;
    }
    out
}

/// A private section's pointer at a variable index (`pp[i][0:n]`) is the element the index
/// has where the region starts: the region's reads of `pp[i]` are the copy only while `i`
/// keeps that value, so the index must be a variable the region never assigns. Ok(false)
/// when the region does not read an index: it never names the section (a warning says so;
/// its copy is unused).
fn check_index_variables<'ctx>(f: Value<'ctx>, path: &crate::private_copies::MemberPath<'ctx>, replaced: &[(Value<'ctx>, Value<'ctx>)], loc: &crate::error::Loc, text: &str) -> Result<bool> {
    for host in path.index_variables() {
        let name = display_name(host);
        let Some(slot) = replaced.iter().find(|(v, _)| *v == host).map(|(_, r)| *r) else {
            crate::error::warn(&crate::error::Warning {
                loc: loc.clone(),
                msg: format!("'{text}' in a private clause: the region does not read its index '{name}', so it never names this section; the clause has no effect"),
            });
            return Ok(false);
        };
        if !crate::private_copies::keeps_its_value(f, slot) {
            return Err(AccError::user(
                loc,
                format!("'{text}' in a private clause: the region assigns its index '{name}', after which the section's pointer is another one; copy the pointer to a local variable before the region and privatise that variable's section"),
            ));
        }
    }
    Ok(true)
}

/// Erases `a` when nothing uses it and it only computes an address (a GEP, a cast, a load of
/// a pointer), then what it was computed from, the same way.
fn erase_unused_address(a: Value<'_>) {
    let mut at = a;
    while at.is_instruction()
        && at.users().is_empty()
        && matches!(at.opcode(), Some(crate::ir::Opcode::LLVMGetElementPtr | crate::ir::Opcode::LLVMBitCast | crate::ir::Opcode::LLVMAddrSpaceCast | crate::ir::Opcode::LLVMLoad))
        && !at.is_atomic_access()
    {
        let next = at.operand(0);
        at.erase();
        at = next;
    }
}

fn check_single_exit<'ctx>(d: &Directive<'ctx>, region: &[Block<'ctx>], exit: Block<'ctx>) -> Result<()> {
    for b in region {
        if b.terminator().is_some_and(|t| t.successors().is_empty() && t.opcode() != Some(llvm_sys::LLVMOpcode::LLVMUnreachable)) {
            return Err(AccError::user(&d.loc, "a 'return' inside an OpenACC compute region is not allowed"));
        }
        for i in b.instructions() {
            for u in i.users() {
                if u.is_instruction() && !region.contains(&u.parent_block()) {
                    return Err(AccError::unsupported(
                        &d.loc,
                        format!("a value computed inside the region and used after it ({})", i.to_string().trim()),
                    ));
                }
            }
        }
    }
    if exit.instructions().iter().any(|i| i.is_phi()) {
        return Err(AccError::unsupported(&d.loc, "a region whose exit block merges values (phi)"));
    }
    Ok(())
}

/// Rewrites constant expressions that refer to writable globals (`gep (@a, 0, 3)`) as
/// instructions, so the global becomes an ordinary captured operand. A phi's incoming
/// constant (`c ? &g[1] : &g[2]`) is rebuilt at the end of its incoming block (once per
/// block, as a phi needs one value per predecessor); left alone, the kernel would read
/// the device module's own copy of the global.
pub(crate) fn expand_global_const_exprs<'ctx>(region: &[Block<'ctx>]) {
    let mut at_end: HashMap<(Block, Value), Value> = HashMap::new();
    for b in region {
        for i in b.instructions() {
            for k in 0..i.num_operands() {
                let op = i.operand(k);
                if !(op.is_const_expr() && mentions_writable_global(op)) {
                    continue;
                }
                let new = if i.is_phi() {
                    let from = i.incoming()[k as usize].1;
                    *at_end.entry((from, op)).or_insert_with(|| {
                        const_expr_as_instruction(op, from.terminator().expect("verified IR has terminators"))
                    })
                } else {
                    const_expr_as_instruction(op, i)
                };
                i.set_operand(k, new);
            }
        }
    }
}

fn mentions_writable_global<'ctx>(c: Value<'ctx>) -> bool {
    c.operands().into_iter().any(|o| (o.is_global_variable() && !o.is_global_constant()) || (o.is_const_expr() && mentions_writable_global(o)))
}

fn is_capture<'ctx>(op: Value<'ctx>, region: &[Block<'ctx>]) -> bool {
    if op.is_instruction() {
        return !region.contains(&op.parent_block());
    }
    op.is_argument() || (op.is_global_variable() && !op.is_global_constant())
}

fn storage_of<'ctx>(v: Value<'ctx>) -> Storage {
    if v.is_alloca() || v.is_global_variable() {
        Storage::Variable { scalar: variable_type(v).is_scalar() && vla_count(v).is_none() }
    } else if v.ty().is_ptr() {
        Storage::PointerValue
    } else {
        Storage::ScalarValue
    }
}

/// The most bytes of one firstprivate array or struct: CUDA's kernel parameters hold 4 KiB in
/// all (PTX before ISA 8.1), and the region's other captures need room beside it; a larger one
/// is a copy in the launch's private area (private_copies.rs).
pub const FIRSTPRIVATE_BYTES: u64 = 2048;

/// The element count of a variable-length array (`double v[m]`: an alloca of a run-time
/// count, whose `variable_type` is the element's), if `v` is one.
pub(crate) fn vla_count<'ctx>(v: Value<'ctx>) -> Option<Value<'ctx>> {
    (v.is_alloca() && v.operand(0).const_int_value() != Some(1)).then(|| v.operand(0))
}

/// The type of variable `v` (an alloca or a global); a variable-length array's element type.
pub(crate) fn variable_type<'ctx>(v: Value<'ctx>) -> crate::ir::Type<'ctx> {
    if v.is_alloca() {
        v.allocated_type()
    } else {
        v.global_value_type()
    }
}

/// Strips zero-offset GEPs and casts: `&a[0]` of an array alloca is the alloca.
pub fn strip<'ctx>(mut v: Value<'ctx>) -> Value<'ctx> {
    while let Some(op) = v.opcode() {
        let zero_gep = op == llvm_sys::LLVMOpcode::LLVMGetElementPtr && v.operands()[1..].iter().all(|i| i.const_int_value() == Some(0));
        if zero_gep || op == llvm_sys::LLVMOpcode::LLVMBitCast || op == llvm_sys::LLVMOpcode::LLVMAddrSpaceCast {
            v = v.operand(0);
        } else {
            break;
        }
    }
    v
}

/// The clause base is `v` itself or the pointer loaded from variable `v`.
fn points_into<'ctx>(base: Value<'ctx>, v: Value<'ctx>) -> bool {
    let b = strip(base);
    b == v || (b.opcode() == Some(llvm_sys::LLVMOpcode::LLVMLoad) && strip(b.operand(0)) == v)
}

fn written_in<'ctx>(v: Value<'ctx>, region: &[Block<'ctx>]) -> bool {
    v.users().iter().any(|u| {
        u.is_instruction()
            && region.contains(&u.parent_block())
            && match u.opcode() {
                // A store to it, or of its address (which may be written through later:
                // `#pragma acc atomic` keeps `&x` in a local, driver/src/atomic.rs).
                Some(llvm_sys::LLVMOpcode::LLVMStore) => u.operand(1) == v || u.operand(0) == v,
                Some(llvm_sys::LLVMOpcode::LLVMAtomicRMW | llvm_sys::LLVMOpcode::LLVMAtomicCmpXchg) => u.operand(0) == v,
                Some(llvm_sys::LLVMOpcode::LLVMCall) => u.called_name().is_none_or(|n| !n.starts_with("__acc_") && !n.starts_with("llvm.lifetime")),
                _ => false,
            }
    })
}

pub fn display_name<'ctx>(v: Value<'ctx>) -> String {
    let n = v.name();
    let n = n.strip_suffix(".addr").unwrap_or(&n).to_string();
    if n.is_empty() {
        v.to_string().trim().to_string()
    } else {
        n
    }
}

fn unique_name<'ctx>(m: Module<'ctx>, base: &str) -> String {
    if m.function(base).is_none() {
        return base.to_string();
    }
    (2..).map(|k| format!("{base}_{k}")).find(|n| m.function(n).is_none()).expect("unbounded")
}

#[allow(clippy::too_many_arguments)]
fn build_function<'ctx>(
    m: Module<'ctx>,
    d: &Directive<'ctx>,
    caps: &[Capture<'ctx>],
    scratch_param: bool,
    copies: &[crate::private_copies::Copy<'ctx>],
    in_loop: &[crate::private_copies::InLoopCopy<'ctx>],
    region: &[Block<'ctx>],
    entry: Block<'ctx>,
    exit: Block<'ctx>,
) -> Result<Value<'ctx>> {
    let ctx: Context = m.context();
    let mut param_tys: Vec<_> = caps
        .iter()
        .filter(|c| c.passing.is_parameter())
        .map(|c| match c.passing {
            Passing::FirstPrivate => variable_type(c.value),
            _ => c.value.ty(),
        })
        .collect();
    if scratch_param {
        param_tys.push(ctx.ptr());
    }
    param_tys.extend(crate::private_copies::param_types(ctx, copies));
    let fty = ctx.fn_type(ctx.void(), &param_tys, false);
    let name = unique_name(m, &format!("{}_l{}", d.function.name(), d.loc.line));
    let f = m.get_or_add_function(&name, fty);
    f.set_linkage(LLVMLinkage::LLVMInternalLinkage);
    f.add_fn_enum_attr("nounwind");
    let fentry = ctx.append_block(f, "acc.entry");
    let ret = ctx.append_block(f, "acc.ret");
    let mut after = fentry;
    for b in region {
        b.move_after(after);
        after = *b;
    }
    ret.move_after(after);
    let b = ctx.builder();
    b.position_at_end(ret);
    b.ret_void();
    for blk in region {
        let t = blk.terminator().expect("verified IR has terminators");
        for (k, s) in t.successors().into_iter().enumerate() {
            if s == exit {
                t.set_successor(k as u32, ret);
            }
        }
    }
    b.position_at_end(fentry);
    let params = f.params();
    let in_f = |u: Value<'ctx>| u.is_instruction() && u.parent_function() == f;
    let mut pi = 0;
    let mut replaced = Vec::new();
    for c in caps {
        let replacement = match c.passing {
            Passing::Private => b.alloca(variable_type(c.value), &format!("{}.private", c.name)),
            // Replaced below, once every copy's parameters are known.
            Passing::PrivateCopy { .. } => continue,
            Passing::FirstPrivate => {
                let p = params[pi];
                pi += 1;
                p.set_name(&c.name);
                let slot = b.alloca(variable_type(c.value), &format!("{}.firstprivate", c.name));
                b.store(p, slot);
                slot
            }
            _ => {
                let p = params[pi];
                pi += 1;
                p.set_name(&c.name);
                p
            }
        };
        c.value.replace_uses_where(replacement, in_f);
        replaced.push((c.value, replacement));
    }
    if scratch_param {
        params[pi].set_name(crate::reduction::SCRATCH_PARAM);
        pi += 1;
    }
    if !copies.is_empty() {
        let names: Vec<String> = copies.iter().map(|c| c.name.clone()).collect();
        let types: Vec<_> = copies.iter().map(|c| variable_type(c.value)).collect();
        let with = crate::private_copies::emit_entry(m, &b, copies, &params[pi..], &names, &types);
        for (c, replacement) in copies.iter().zip(with) {
            if let crate::private_copies::Source::Member(x) = &c.source {
                // The member's loads (of the struct as passed) are the copy's pointer.
                let root = replaced.iter().find(|(v, _)| *v == c.value).map_or(c.value, |(_, r)| *r);
                if let Some(path) = crate::private_copies::member_path(strip(x.base).operand(0)) {
                    if !check_index_variables(f, &path, &replaced, &d.loc, &x.text)? {
                        continue;
                    }
                }
                let slot_in = |host: Value<'ctx>| replaced.iter().find(|(v, _)| *v == host).map(|(_, r)| *r);
                for load in crate::private_copies::member_loads(f, x, root, &slot_in) {
                    load.replace_all_uses_with(replacement);
                    let address = load.operand(0);
                    load.erase();
                    // What only found the member (`ps->q` for `ps->q->p`) goes too: a pointer
                    // the kernel no longer dereferences needs no device data.
                    erase_unused_address(address);
                }
                continue;
            }
            // A reduction's copies take the place of the variable only where reduction.rs
            // says.
            if matches!(c.source, crate::private_copies::Source::ReductionView(_)) {
                continue;
            }
            // An array the region declared keeps its alloca, unused (dead code), so that
            // the copy's `value` stays valid for the device module's decisions.
            c.value.replace_uses_where(replacement, in_f);
            if !(c.value.is_instruction() && c.value.parent_function() == f) {
                replaced.push((c.value, replacement));
            }
        }
    }
    b.br(entry);
    for c in in_loop {
        let storage = replaced.iter().find(|(v, _)| *v == c.value).map(|(_, r)| *r).ok_or_else(|| AccError::internal("an in-loop private copy of a variable the region does not capture"))?;
        if let Some(path) = &c.member {
            if !check_index_variables(f, path, &replaced, &c.loc, &c.var.text)? {
                continue;
            }
        }
        let slot_in = |host: Value<'ctx>| replaced.iter().find(|(v, _)| *v == host).map(|(_, r)| *r);
        crate::private_copies::emit_in_loop(m, f, c, storage, &slot_in)?;
    }
    drop_foreign_lifetimes(f);
    // Debug records are not uses: they still name the host's values and scopes.
    crate::ir::fixup_outlined_debug_info(d.function, f, d.loc.line, &replaced);
    Ok(f)
}

/// Lifetime markers whose variable became a parameter (a captured variable declared in the
/// construct, e.g. a scalar one part of a split `kernels` construct sets for the next) no
/// longer name an alloca: LLVM only allows them on allocas, and the storage is not the
/// function's to scope, so they go.
fn drop_foreign_lifetimes<'ctx>(f: Value<'ctx>) {
    for blk in f.blocks() {
        for i in blk.instructions() {
            let lifetime = i.called_name().is_some_and(|n| n.starts_with("llvm.lifetime."));
            if lifetime && !strip(i.call_arg(0)).is_alloca() {
                i.erase();
            }
        }
    }
}
