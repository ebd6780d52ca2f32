//! Dependence analysis of the loops whose parallelism the compiler decides: `auto` loops, and
//! loops of a `kernels` construct without `independent` or a level (OpenACC 3.3 §2.5.2,
//! §2.9.6). A loop is partitioned only when this proves its iterations independent; else it
//! stays sequential and the compile report (-Minfo) says why.
//!
//! Expects: the device module before any kernel is planned (device.rs), each kernel with its
//! `loop` markers and clause calls, not in SSA form. `Analysis::new` copies the module once,
//! so nothing here changes the kernels that are built; each kernel's copy gets the SSA
//! construction planning gives the kernel (`sroa`, after the clause calls are erased).
//! Produces: per loop asked about, a `Verdict`.
//!
//! What it proves, per loop (and per loop of a `collapse(n)` nest, each with the outer ones
//! fixed, which together cover any two different points of the collapsed space):
//! - no scalar carries a value from one iteration to the next (a header phi other than the
//!   induction variable, after SSA construction) and no value computed in the loop is used
//!   after it (the last iteration's value);
//! - no two accesses, one a store, touch the same bytes in two different iterations:
//!   addresses are decomposed into a base object and a byte offset polynomial (GEPs over
//!   `nsw` arithmetic, sign extensions), and depend.rs tests each pair of the same base;
//!   accesses of different bases are independent only when the bases are known distinct
//!   (different arrays: globals, local variables; `restrict` pointer parameters, whose
//!   pointees C says no pointer not based on them reaches: apart from distinct arrays and
//!   other `restrict` parameters); two plain pointers may alias, which keeps the loop
//!   sequential with a reason naming them; so does a loop whose bound is read from memory
//!   in every iteration, or that can be left early;
//! - no atomic operation, and no call that may write memory (calls of functions with no
//!   memory effects, C math functions and `llvm.*` intrinsics that write nothing are fine;
//!   a call that may read memory conflicts with every store of the loop).
//!
//! Arrays whose lifetime starts inside the loop (declared in its body) are private to an
//! iteration and not compared.
//!
//! Deliberately not done: reductions are not recognised (a loop with a `reduction` clause,
//! or one that accumulates into a scalar, stays sequential: the reason suggests
//! `independent reduction(...)`); unsigned 32-bit subscript arithmetic (which may wrap) and
//! pointer induction variables are not followed; `restrict` on local pointer variables is
//! invisible (Clang's IR carries it on parameters only).

use crate::cfg::{FunctionCfg, NaturalLoop};
use crate::contract::{self, DirectiveKind};
use crate::depend::{self, Atom, LoopSpace, Poly, Range, Subscript};
use crate::device::LoopSource;
use crate::error::{AccError, Loc, Result};
use crate::ir::{Block, Module, Opcode, OwnedModule, Type, TypeKind, Value};
use crate::loops::{self, TripRule};
use crate::outline::Outlined;
use std::collections::{BTreeSet, HashMap, HashSet};

/// What the analysis found for one loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No loop-carried dependence: the loop may be partitioned.
    Independent,
    /// Kept sequential, and why (for the compile report).
    Sequential(String),
}

/// A copy of the device module to analyse kernels in.
pub struct Analysis<'ctx> {
    module: OwnedModule<'ctx>,
}

impl<'ctx> Analysis<'ctx> {
    pub fn new(dev: Module<'ctx>) -> Result<Analysis<'ctx>> {
        let module = dev.clone_module();
        // The memory effects of the functions loops call.
        module.handle().run_passes("function(sroa),cgscc(function-attrs)", None).map_err(AccError::internal)?;
        Ok(Analysis { module })
    }

    /// What kernel `kernel` reaches through each of its pointer parameters `params`
    /// (implicit_bounds.rs), found in the analysis copy (SSA form, loops intact).
    pub fn pointer_bounds(&self, kernel: &str, params: &[usize]) -> Vec<Option<crate::implicit_bounds::Bounds>> {
        let m = self.module.handle();
        match m.function(kernel) {
            Some(f) => params.iter().map(|p| crate::implicit_bounds::infer(m, f, *p)).collect(),
            None => vec![None; params.len()],
        }
    }

    /// Verdicts for the loops of region `r`'s kernel (named `kernel`), in the order of
    /// `device::loop_sources`: `ids` holds each loop directive's id (None for a combined
    /// construct's loop), `asked` which loops to analyse, `collapse` their collapse counts.
    pub fn loops(&self, r: &Outlined<'ctx>, kernel: &str, ids: &[Option<u32>], asked: &[bool], collapse: &[u32]) -> Result<Vec<Option<Verdict>>> {
        let m = self.module.handle();
        let f = m.function(kernel).ok_or_else(|| AccError::internal(format!("kernel {kernel} missing in the analysis copy")))?;
        let directives: Vec<_> = contract::read_kernel(f)?.into_iter().filter(|d| d.kind == DirectiveKind::Loop).collect();
        for d in &directives {
            contract::erase_clause_calls(d);
        }
        let (cb, ce) = crate::device::combined_markers(m, f, &r.directive)?;
        f.run_function_passes("sroa,early-cse,instsimplify").map_err(AccError::internal)?;
        let cfg = FunctionCfg::new(f);
        let mut out = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            if !asked[i] {
                out.push(None);
                continue;
            }
            let markers = match id {
                None => cb.zip(ce).map(|(b, e)| (b, e, r.directive.loc.clone())),
                Some(id) => directives.iter().find(|d| d.id == *id).map(|d| (d.begin, d.end, d.loc.clone())),
            };
            let (begin, end, loc) = markers.ok_or_else(|| AccError::internal("a loop directive is missing in the analysis copy"))?;
            let verdict = match loops::find_bound_loop(&cfg, begin, end, &loc) {
                Ok(l) => prove_nest(m, f, &cfg, &l, collapse[i], r),
                Err(_) => Verdict::Sequential("no countable loop follows the directive".into()),
            };
            out.push(Some(verdict));
        }
        Ok(out)
    }
}

/// The ids of the loop directives of `sources` (None for a combined construct's loop).
pub(crate) fn loop_ids<'ctx>(sources: &[LoopSource<'ctx, '_>]) -> Vec<Option<u32>> {
    sources
        .iter()
        .map(|s| match s {
            LoopSource::Combined => None,
            LoopSource::Directive(d) => Some(d.id),
        })
        .collect()
}

/// The loop and the `n - 1` loops a `collapse(n)` folds into it, outermost first.
fn collapsed_nest(cfg: &FunctionCfg, outer: &NaturalLoop, n: u32) -> Vec<NaturalLoop> {
    let all = cfg.loops();
    let mut nest = vec![outer.clone()];
    while nest.len() < n as usize {
        let last = nest.last().expect("not empty");
        let child = all.iter().filter(|l| l.header != last.header && last.body.contains(&l.header)).max_by_key(|l| l.body.len());
        match child {
            Some(c) => nest.push(c.clone()),
            None => break,
        }
    }
    nest
}

fn prove_nest<'ctx>(m: Module<'ctx>, f: Value<'ctx>, cfg: &FunctionCfg<'ctx>, outer: &NaturalLoop, collapse: u32, r: &Outlined<'ctx>) -> Verdict {
    let nest = collapsed_nest(cfg, outer, collapse);
    let mut fixed = Vec::new();
    for test in &nest {
        let Ok(shape) = loops::analyse(cfg, test, &Loc::default()) else {
            return Verdict::Sequential("its induction variable is not recognised".into());
        };
        let v = LoopProof { m, f, cfg, scope: &nest[0], test, shape: &shape, fixed: &fixed, r }.prove();
        if v != Verdict::Independent {
            return v;
        }
        fixed.push(shape.iv);
    }
    Verdict::Independent
}

/// The object an access's base pointer points into, as far as aliasing goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Object<'ctx> {
    /// A distinct array or variable: a global, a local variable of the host function (its
    /// device copy), a kernel-private variable.
    Distinct(Value<'ctx>),
    /// A `restrict` pointer parameter's target.
    Restrict(Value<'ctx>),
    /// A plain pointer: may point anywhere but into kernel-private storage.
    MayAlias(Value<'ctx>),
}

/// Whether two different base pointers certainly reach different memory. A `restrict`
/// parameter's target is reached by no pointer not based on it, but a plain pointer may be
/// based on it (`double *b = a + 1`), so only distinct objects and other `restrict`
/// parameters are apart from it.
fn disjoint(a: Object, b: Object) -> bool {
    match (a, b) {
        (Object::Distinct(x), Object::Distinct(y)) | (Object::Restrict(x), Object::Restrict(y)) => x != y,
        (Object::Restrict(_), Object::Distinct(_)) | (Object::Distinct(_), Object::Restrict(_)) => true,
        _ => false,
    }
}

struct Access<'ctx> {
    write: bool,
    base: Value<'ctx>,
    offset: Option<Poly>,
    size: u64,
}

/// One loop's proof: `test` is the loop whose iterations are compared, `scope` the loop
/// whose body holds the accesses (the outermost of a collapsed nest), `fixed` the
/// induction variables of the collapsed loops around `test` (the same in both iterations).
struct LoopProof<'a, 'ctx> {
    m: Module<'ctx>,
    f: Value<'ctx>,
    cfg: &'a FunctionCfg<'ctx>,
    scope: &'a NaturalLoop,
    test: &'a NaturalLoop,
    shape: &'a loops::LoopShape<'ctx>,
    fixed: &'a [Value<'ctx>],
    r: &'a Outlined<'ctx>,
}

/// Numbering of the values polynomials are written over.
struct Atoms<'ctx> {
    ids: HashMap<Value<'ctx>, Atom>,
}

impl<'ctx> Atoms<'ctx> {
    fn of(&mut self, v: Value<'ctx>) -> Atom {
        let n = self.ids.len() as Atom;
        *self.ids.entry(v).or_insert(n)
    }
}

impl<'a, 'ctx> LoopProof<'a, 'ctx> {
    fn blocks(&self, l: &NaturalLoop) -> HashSet<Block<'ctx>> {
        l.body.iter().map(|&i| self.cfg.blocks[i]).collect()
    }

    fn prove(&self) -> Verdict {
        let test_blocks = self.blocks(self.test);
        let scope_blocks = self.blocks(self.scope);
        if let Some(why) = self.carried_scalar(&test_blocks) {
            return Verdict::Sequential(why);
        }
        if self.loads_in_loop(self.shape.bound, &test_blocks) {
            return Verdict::Sequential("its bound is read again in every iteration (from memory the loop may change)".into());
        }
        if self.leaves_early(&test_blocks) {
            return Verdict::Sequential("it can be left before its last iteration (break, return or goto)".into());
        }
        let mut atoms = Atoms { ids: HashMap::new() };
        let mut space = self.space(&scope_blocks, &mut atoms);
        let mut accesses = Vec::new();
        let mut reads_unknown: Option<String> = None;
        let mut ordered: Vec<usize> = self.scope.body.iter().copied().collect();
        ordered.sort_unstable();
        for i in ordered.into_iter().flat_map(|b| self.cfg.blocks[b].instructions()) {
            match i.opcode() {
                Some(Opcode::LLVMLoad | Opcode::LLVMStore) if i.is_atomic_access() => return atomic(),
                Some(Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => return atomic(),
                Some(Opcode::LLVMLoad) => accesses.push(self.access(i.operand(0), i.ty(), false, &mut atoms)),
                Some(Opcode::LLVMStore) => accesses.push(self.access(i.operand(1), i.operand(0).ty(), true, &mut atoms)),
                Some(Opcode::LLVMCall) => match call_effect(i) {
                    CallEffect::None => {}
                    CallEffect::Reads(name) => reads_unknown = Some(name),
                    CallEffect::Writes(name) => {
                        let elsewhere = i.called_function().is_some_and(|f| f.is_declaration());
                        let why = if elsewhere { "defined in another file, it may write memory" } else { "it may write memory" };
                        return Verdict::Sequential(format!("it calls '{name}': {why} (accc proves only calls of functions that write none)"));
                    }
                },
                _ => {}
            }
        }
        // Values the loop changes, other than the induction variables with known ranges.
        space.varying = atoms
            .ids
            .iter()
            .filter(|(v, id)| **id != space.iv && !space.inner.contains_key(id) && self.defined_in(**v, &scope_blocks) && !self.fixed.contains(v))
            .map(|(_, id)| *id)
            .collect();
        let private = |a: &Access<'ctx>| self.private_to_iteration(a.base, &test_blocks);
        let accesses: Vec<Access> = accesses.into_iter().filter(|a| !private(a)).collect();
        if let (Some(name), Some(w)) = (&reads_unknown, accesses.iter().find(|a| a.write)) {
            return Verdict::Sequential(format!("it calls '{name}', which may read memory that the loop writes ('{}')", self.name_of(w.base)));
        }
        // Accesses of one object first: their reason says more than a possible alias does.
        for same_base in [true, false] {
            for (k, a) in accesses.iter().enumerate() {
                for b in accesses[k..].iter().filter(|b| (b.base == a.base) == same_base && (a.write || b.write)) {
                    if let Some(why) = self.conflict(a, b, &space, &scope_blocks) {
                        return Verdict::Sequential(why);
                    }
                }
            }
        }
        Verdict::Independent
    }

    /// A scalar carried between iterations, or a value of the loop used after it.
    fn carried_scalar(&self, test_blocks: &HashSet<Block<'ctx>>) -> Option<String> {
        for phi in self.shape.header.instructions().into_iter().take_while(|i| i.is_phi()) {
            if phi != self.shape.iv {
                let name = variable_name(phi);
                if phi.ty().is_ptr() {
                    return Some(format!("the pointer '{name}' is carried from one iteration to the next (accc follows subscripts, not pointer arithmetic across iterations)"));
                }
                return Some(format!(
                    "scalar '{name}' is carried from one iteration to the next (if it is a reduction, say so: 'loop independent reduction(op:{name})')"
                ));
            }
        }
        for b in test_blocks {
            for i in b.instructions() {
                let outside = i.users().into_iter().any(|u| u.is_instruction() && !test_blocks.contains(&u.parent_block()));
                if outside && i != self.shape.iv {
                    return Some(format!("'{}' computed in the loop is used after it (the last iteration's value)", variable_name(i)));
                }
            }
        }
        None
    }

    /// Whether `v` is computed in the loop from a load made there (`i < s->n`: the bound is
    /// read again in every iteration, while a partitioned loop reads it once).
    fn loads_in_loop(&self, v: Value<'ctx>, test_blocks: &HashSet<Block<'ctx>>) -> bool {
        // Phis end the walk: a bound `loops::analyse` accepts is computed from none.
        self.defined_in(v, test_blocks)
            && !v.is_phi()
            && (v.opcode() == Some(Opcode::LLVMLoad) || v.operands().into_iter().any(|o| self.loads_in_loop(o, test_blocks)))
    }

    /// Whether a block of the loop other than its header branches out of it.
    fn leaves_early(&self, test_blocks: &HashSet<Block<'ctx>>) -> bool {
        test_blocks.iter().any(|b| *b != self.shape.header && b.successors().iter().any(|s| !test_blocks.contains(s)))
    }

    /// Arrays declared in the loop's body: their lifetime starts in every iteration.
    fn private_to_iteration(&self, base: Value<'ctx>, test_blocks: &HashSet<Block<'ctx>>) -> bool {
        base.is_alloca()
            && base.users().into_iter().any(|u| {
                u.is_call() && u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime.start")) && test_blocks.contains(&u.parent_block())
            })
    }

    /// The loop's iteration space: its induction variable and span, the inner loops'
    /// induction variables with their ranges, and the values that vary with no known range.
    fn space(&self, scope_blocks: &HashSet<Block<'ctx>>, atoms: &mut Atoms<'ctx>) -> LoopSpace {
        let iv = atoms.of(self.shape.iv);
        // Countable loops in the scope other than the collapsed ones: their IVs.
        let nest_headers: BTreeSet<usize> = [self.scope.header, self.test.header].into_iter().collect();
        let mut inner_shapes = Vec::new();
        for l in self.cfg.loops() {
            if !self.scope.body.contains(&l.header) || nest_headers.contains(&l.header) {
                continue;
            }
            if let Ok(s) = loops::analyse(self.cfg, &l, &Loc::default()) {
                if !self.fixed.contains(&s.iv) {
                    inner_shapes.push(s);
                }
            }
        }
        // Whether a polynomial is over symbols only (invariant in the scope).
        let symbolic = |p: &Poly, atoms: &Atoms<'ctx>| {
            p.atoms().iter().all(|a| {
                let v = atoms.ids.iter().find(|(_, id)| *id == a).map(|(v, _)| *v).expect("numbered");
                !self.defined_in(v, scope_blocks) || self.fixed.contains(&v)
            })
        };
        let mut inner = std::collections::BTreeMap::new();
        for s in &inner_shapes {
            if let Some(range) = self.range(s, atoms) {
                if symbolic(&range.lo, atoms) && symbolic(&range.hi, atoms) {
                    inner.insert(atoms.of(s.iv), range);
                }
            }
        }
        let iv_range = self.range(self.shape, atoms).filter(|r| symbolic(&r.lo, atoms) && symbolic(&r.hi, atoms));
        let span = iv_range.as_ref().map(|r| r.hi.sub(&r.lo));
        LoopSpace { iv, span, iv_range, inner, varying: BTreeSet::new() }
    }

    fn defined_in(&self, v: Value<'ctx>, blocks: &HashSet<Block<'ctx>>) -> bool {
        v.is_instruction() && blocks.contains(&v.parent_block())
    }

    /// The inclusive range of a countable loop's induction variable, from its initial value,
    /// bound, step and condition.
    fn range(&self, s: &loops::LoopShape<'ctx>, atoms: &mut Atoms<'ctx>) -> Option<Range> {
        if s.cmp_cast.is_some() {
            return None;
        }
        let step = s.step.amount.const_int_value()?;
        let step = if s.step.negated { -step } else { step };
        let (init, bound) = (self.poly(s.init, atoms), self.poly(s.bound, atoms));
        let one = |inclusive: bool| Poly::constant(i128::from(!inclusive));
        match (loops::trip_rule(s.pred)?, step.signum()) {
            (TripRule::Below { inclusive, signed: true }, 1) => Some(Range { lo: init, hi: bound.sub(&one(inclusive)) }),
            (TripRule::Above { inclusive, signed: true }, -1) => Some(Range { lo: bound.add(&one(inclusive)), hi: init }),
            (TripRule::NotEqual, 1) if step == 1 => Some(Range { lo: init, hi: bound.sub(&Poly::constant(1)) }),
            (TripRule::NotEqual, -1) if step == -1 => Some(Range { lo: bound.add(&Poly::constant(1)), hi: init }),
            _ => None,
        }
    }

    /// An integer value as a polynomial over atoms: sums, differences and products that
    /// cannot wrap (`nsw`, or 64-bit), constant shifts, sign extensions; anything else is an
    /// atom.
    fn poly(&self, v: Value<'ctx>, atoms: &mut Atoms<'ctx>) -> Poly {
        if let Some(c) = v.const_int_value() {
            return Poly::constant(i128::from(c));
        }
        let no_wrap = v.ty().is_int() && (v.ty().int_width() >= 64 || v.has_nsw());
        match v.opcode() {
            Some(Opcode::LLVMAdd) if no_wrap => self.poly(v.operand(0), atoms).add(&self.poly(v.operand(1), atoms)),
            Some(Opcode::LLVMSub) if no_wrap => self.poly(v.operand(0), atoms).sub(&self.poly(v.operand(1), atoms)),
            Some(Opcode::LLVMMul) if no_wrap => self.poly(v.operand(0), atoms).mul(&self.poly(v.operand(1), atoms)),
            Some(Opcode::LLVMShl) if no_wrap => match v.operand(1).const_int_value() {
                Some(k @ 0..=62) => self.poly(v.operand(0), atoms).scale(1i128 << k),
                _ => Poly::atom(atoms.of(v)),
            },
            Some(Opcode::LLVMSExt) => {
                let x = v.operand(0);
                let arithmetic = matches!(x.opcode(), Some(Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul | Opcode::LLVMShl));
                if !arithmetic || x.has_nsw() {
                    self.poly(x, atoms)
                } else {
                    Poly::atom(atoms.of(v))
                }
            }
            _ => Poly::atom(atoms.of(v)),
        }
    }

    /// A load or store: its base pointer and byte offset.
    fn access(&self, ptr: Value<'ctx>, ty: Type<'ctx>, write: bool, atoms: &mut Atoms<'ctx>) -> Access<'ctx> {
        let (base, offset) = self.address(ptr, atoms);
        Access { write, base, offset, size: ty.store_size(self.m) }
    }

    /// Walks GEPs and casts down to the base pointer, adding up the byte offset.
    fn address(&self, ptr: Value<'ctx>, atoms: &mut Atoms<'ctx>) -> (Value<'ctx>, Option<Poly>) {
        let mut offset = Some(Poly::zero());
        let mut cur = ptr;
        loop {
            match cur.opcode() {
                Some(Opcode::LLVMGetElementPtr) => {
                    let ops = cur.operands();
                    let mut ty = cur.gep_source_type();
                    let mut add = |p: Option<Poly>| offset = offset.take().zip(p).map(|(o, p)| o.add(&p));
                    add(Some(self.poly(ops[1], atoms).scale(i128::from(ty.store_size(self.m)))));
                    for idx in &ops[2..] {
                        match ty.kind() {
                            TypeKind::LLVMArrayTypeKind => {
                                ty = ty.contained_types()[0];
                                add(Some(self.poly(*idx, atoms).scale(i128::from(ty.store_size(self.m)))));
                            }
                            TypeKind::LLVMStructTypeKind => match idx.const_int_value() {
                                Some(k) => {
                                    add(ty.field_offset(self.m, k as u32).map(|o| Poly::constant(i128::from(o))));
                                    ty = ty.contained_types()[k as usize];
                                }
                                None => add(None),
                            },
                            _ => add(None),
                        }
                    }
                    cur = ops[0];
                }
                Some(Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) => cur = cur.operand(0),
                _ => return (cur, offset),
            }
        }
    }

    /// Why accesses `a` and `b` (one a store) keep the loop sequential, if they do.
    fn conflict(&self, a: &Access<'ctx>, b: &Access<'ctx>, space: &LoopSpace, scope_blocks: &HashSet<Block<'ctx>>) -> Option<String> {
        let verb = if a.write && b.write { "written" } else { "read" };
        if let Some(moving) = [a.base, b.base].into_iter().find(|p| self.defined_in(*p, scope_blocks)) {
            return Some(format!("the pointer '{}' changes in the loop (accc follows subscripts, not pointer arithmetic across iterations)", self.name_of(moving)));
        }
        if a.base == b.base {
            let name = self.name_of(a.base);
            let (Some(oa), Some(ob)) = (&a.offset, &b.offset) else {
                return Some(format!("the address of '{name}' is not affine in the loop variables"));
            };
            return match depend::carried(&Subscript { offset: oa.clone(), size: a.size }, &Subscript { offset: ob.clone(), size: b.size }, space) {
                depend::Verdict::Independent => None,
                depend::Verdict::Carried { distance: Some(d) } => {
                    Some(format!("'{name}' written in one iteration is {verb} in another (dependence distance {})", d.abs()))
                }
                depend::Verdict::Carried { distance: None } if oa.atoms().is_empty() && ob.atoms().is_empty() && a.write && b.write => {
                    Some(format!("'{name}' is written in every iteration (after the loop it holds the last iteration's value)"))
                }
                depend::Verdict::Carried { distance: None } if oa.atoms().is_empty() && ob.atoms().is_empty() => Some(format!(
                    "'{name}' is written in every iteration and read in the others (if it is a reduction, say so: 'loop independent reduction(op:{name})')"
                )),
                depend::Verdict::Carried { distance: None } => Some(format!("'{name}' written in one iteration is {verb} in another")),
                depend::Verdict::Unknown => Some(format!(
                    "the subscripts of '{name}' are not affine in the loop variables, so accc cannot tell which iterations touch the same element"
                )),
            };
        }
        let (oa, ob) = (self.object(a.base), self.object(b.base));
        if disjoint(oa, ob) {
            return None;
        }
        let (na, nb) = (self.name_of(a.base), self.name_of(b.base));
        Some(format!("'{na}' and '{nb}' may point to the same memory: declare the pointers restrict (e.g. 'double *restrict {na}') or mark the loop independent"))
    }

    /// What base pointer `base` of the kernel points into.
    fn object(&self, base: Value<'ctx>) -> Object<'ctx> {
        if base.is_alloca() || base.is_global_variable() {
            return Object::Distinct(base);
        }
        match self.capture_of(base).map(|c| c.value) {
            // A pointer variable's parameter is its target (translated), not the variable.
            Some(host) if host.is_global_variable() && !host.global_value_type().is_ptr() => Object::Distinct(host),
            Some(host) if host.is_alloca() && !host.allocated_type().is_ptr() => Object::Distinct(host),
            Some(host) if host.is_alloca() && restrict_variable(host) => Object::Restrict(host),
            Some(host) if host.is_argument() && restrict_parameter(host) => Object::Restrict(host),
            _ => Object::MayAlias(base),
        }
    }

    /// The capture a kernel parameter receives (outline.rs: every capture but the private
    /// ones has a parameter, in order).
    fn capture_of(&self, base: Value<'ctx>) -> Option<&'a crate::outline::Capture<'ctx>> {
        if !base.is_argument() {
            return None;
        }
        let index = self.f.params().iter().position(|p| *p == base)?;
        self.r.captures.iter().filter(|c| c.passing.is_parameter()).nth(index)
    }

    /// The name of what `base` points into, for the report.
    fn name_of(&self, base: Value<'ctx>) -> String {
        if let Some(c) = self.capture_of(base) {
            return c.name.clone();
        }
        match base.opcode() {
            Some(Opcode::LLVMLoad) => format!("the pointer loaded from '{}'", self.name_of(crate::outline::strip(base.operand(0)))),
            _ => variable_name(base),
        }
    }
}

fn atomic() -> Verdict {
    Verdict::Sequential("it has atomic operations (accc keeps them in program order)".into())
}

/// What a call in a loop may do to memory.
enum CallEffect {
    None,
    Reads(String),
    Writes(String),
}

fn call_effect(call: Value) -> CallEffect {
    let name = call.called_name().unwrap_or_else(|| "a function through a pointer".into());
    if name.starts_with("__acc_") || ["llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias"].iter().any(|p| name.starts_with(p)) {
        return CallEffect::None;
    }
    let declared_math = call.called_function().is_some_and(|f| f.is_declaration()) && is_math_function(&name);
    if declared_math {
        return CallEffect::None;
    }
    match call.memory_effects() {
        Some(e) if !e.writes && !e.reads => CallEffect::None,
        Some(e) if !e.writes => CallEffect::Reads(name),
        _ => CallEffect::Writes(name),
    }
}

/// C99 math.h functions that return their result and write nothing but `errno` (which the
/// device versions do not set): the double form, and the float one with an `f`.
fn is_math_function(name: &str) -> bool {
    const MATH: &[&str] = &[
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp2",
        "exp10", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "hypot", "ilogb", "ldexp", "llrint", "llround", "log",
        "log10", "log1p", "log2", "logb", "lrint", "lround", "nearbyint", "nextafter", "pow", "remainder", "rint", "round", "scalbln",
        "scalbn", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc",
    ];
    MATH.contains(&name) || name.strip_suffix('f').is_some_and(|d| MATH.contains(&d))
}

/// A pointer variable of the host function that only ever holds a `restrict` parameter
/// (`double *restrict a` is stored to `a.addr` on entry) and whose address is not taken.
fn restrict_variable(slot: Value) -> bool {
    let users = slot.users();
    let stores: Vec<Value> = users.iter().copied().filter(|u| u.opcode() == Some(Opcode::LLVMStore)).collect();
    let only_read = users.iter().all(|u| match u.opcode() {
        Some(Opcode::LLVMLoad) => true,
        Some(Opcode::LLVMStore) => u.operand(1) == slot,
        Some(Opcode::LLVMCall) => u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime.") || n.starts_with("__acc_")),
        _ => false,
    });
    only_read && !stores.is_empty() && stores.iter().all(|s| s.operand(0).is_argument() && restrict_parameter(s.operand(0)))
}

fn restrict_parameter(arg: Value) -> bool {
    let f = arg.argument_parent();
    let index = f.params().iter().position(|p| *p == arg);
    index.is_some_and(|i| f.param_has_attr(i as u32, "noalias"))
}

/// The C variable a value stands for: its name up to the first '.' (SSA construction
/// names values `s.0`, `x.sroa.3`), else a description.
fn variable_name(v: Value) -> String {
    let n = v.name();
    let base = n.split('.').next().unwrap_or("");
    if base.is_empty() {
        "a value".into()
    } else {
        base.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_that_are_disjoint() {
        let owned = crate::ir::OwnedContext::new();
        let m = owned.context().parse_ir("@g = global i32 0\n@h = global i32 0\ndefine void @f(ptr %p, ptr %q) {\n  ret void\n}\n", "t.ll").expect("parses");
        let m = m.handle();
        let (g, h) = (m.global("g").expect("g"), m.global("h").expect("h"));
        let params = m.function("f").expect("f").params();
        let (p, q) = (params[0], params[1]);
        assert!(disjoint(Object::Distinct(g), Object::Distinct(h)));
        assert!(!disjoint(Object::Distinct(g), Object::Distinct(g)));
        assert!(!disjoint(Object::Restrict(p), Object::MayAlias(q)), "a plain pointer may be based on a restrict one");
        assert!(disjoint(Object::Restrict(p), Object::Restrict(q)));
        assert!(disjoint(Object::Restrict(p), Object::Distinct(g)));
        assert!(!disjoint(Object::MayAlias(p), Object::MayAlias(q)));
        assert!(!disjoint(Object::MayAlias(p), Object::Distinct(g)), "a plain pointer may point into an array");
    }

    #[test]
    fn math_functions_and_names() {
        assert!(is_math_function("sin") && is_math_function("sqrtf") && is_math_function("pow"));
        assert!(!is_math_function("frexp") && !is_math_function("printf") && !is_math_function("modff"));
    }
}
