//! The bytes a kernel reaches through a pointer that no data clause covers, as expressions
//! the host evaluates at launch: what NVHPC reports as "Generating implicit copy(a[:n])".
//! OpenACC 3.3 §2.6.2 only translates such a pointer (its target must be present); with the
//! bounds, the host stub gives the target an implicit `copy` of those bytes, which is simply
//! counted when the data is present and copies it in and out when it is not, so a
//! `parallel loop` over malloc'ed arrays without data clauses runs as it does with NVHPC.
//!
//! Expects: a kernel in SSA form before partitioning (autopar.rs's analysis copy), its
//! loops countable where the pointer is used. Produces, for one pointer parameter, the
//! least and greatest byte offsets (`[lo, hi)`) of every load and store through it, over
//! the kernel's parameters (expr.rs), or None.
//!
//! It is exact or nothing, never a guess that could read past an allocation: every use of
//! the pointer must be an address computation ending in a load, a store or an atomic
//! operation (a call, a store of the pointer, a comparison: None); every access must run in every iteration of every loop
//! around it, and each of those loops in every iteration of the next one out, up to the
//! kernel's entry (an access under an `if`: None); each of those loops must count by 1 from
//! a start to a bound computed from the parameters (`for (x = lo; x < hi; x++)`, `<=`, `!=`);
//! and the access's byte offset must be linear in their induction variables, with
//! coefficients computed from the parameters (`a[x * n + y]`). A loop that runs no
//! iteration (`lo > last`) removes its accesses from the range; when no access is left the
//! range is empty (`lo >= hi`). Deliberately not done: strided loops, triangular nests (a
//! bound that depends on an outer loop), pointers reassigned in the kernel.

use std::collections::HashMap;

use crate::cfg::{FunctionCfg, NaturalLoop};
use crate::error::Loc;
use crate::expr::Expr;
use crate::ir::{Block, IntPred, Module, Opcode, TypeKind, Value};
use crate::loops;

/// `[lo, hi)`: byte offsets from the pointer's value, `i64` expressions over the kernel's
/// parameters. Empty when `lo >= hi`. `written`: some access is a store (else the data
/// only needs to be copied in).
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    pub lo: Expr,
    pub hi: Expr,
    pub written: bool,
}

impl Bounds {
    /// What a kernel that never dereferences the pointer reaches: nothing (`[0, 0)`). The
    /// pointer's value is then passed as it is when its target is absent (a private copy
    /// replaced the region's loads through it: `ps->p[0:n]`, private_copies.rs).
    pub fn nothing() -> Bounds {
        Bounds { lo: konst(0), hi: konst(0), written: false }
    }

    pub fn is_nothing(&self) -> bool {
        *self == Bounds::nothing()
    }
}

/// The bounds of what kernel `f` (in `m`) reaches through its pointer parameter `param`.
pub fn infer<'ctx>(m: Module<'ctx>, f: Value<'ctx>, param: usize) -> Option<Bounds> {
    let p = *f.params().get(param)?;
    let cfg = FunctionCfg::new(f);
    let loops: Vec<Counted> = cfg.loops().into_iter().map(|l| Counted::of(&cfg, f, l)).collect();
    let returns: Vec<Block> = f.blocks().into_iter().filter(|b| b.terminator().is_some_and(|t| t.opcode() == Some(Opcode::LLVMRet))).collect();
    let mut accesses = Vec::new();
    collect(m, f, p, &Linear::zero(), &mut accesses)?;
    if accesses.is_empty() {
        return Some(Bounds::nothing());
    }
    let written = accesses.iter().any(|a| a.write);
    let mut lo: Option<Expr> = None;
    let mut hi: Option<Expr> = None;
    for a in accesses {
        let block = a.at.parent_block();
        let around = enclosing(&cfg, &loops, block);
        if !runs_every_time(&cfg, &loops, &around, block, &returns) {
            return None;
        }
        let mut ranges = HashMap::new();
        let mut active: Option<Expr> = None;
        for &i in &around {
            let r = loops[i].range.clone()?;
            let nonempty = icmp(IntPred::LLVMIntSLE, r.first.clone(), r.last.clone());
            active = Some(match active {
                None => nonempty,
                Some(c) => Expr::Bin { op: Opcode::LLVMAnd, a: Box::new(c), b: Box::new(nonempty) },
            });
            ranges.insert(r.iv, r);
        }
        let (mut least, mut most) = (a.offset.rest.clone(), a.offset.rest.clone());
        for (iv, coef) in &a.offset.ivs {
            let r = ranges.get(iv)?;
            let at_first = mul(coef.clone(), r.first.clone());
            let at_last = mul(coef.clone(), r.last.clone());
            let positive = icmp(IntPred::LLVMIntSGE, coef.clone(), konst(0));
            least = add(least, select(positive.clone(), at_first.clone(), at_last.clone()));
            most = add(most, select(positive, at_last, at_first));
        }
        let end = add(most, konst(a.size as i64));
        let (least, end) = match active {
            Some(c) => (select(c.clone(), least, konst(i64::MAX)), select(c, end, konst(i64::MIN))),
            None => (least, end),
        };
        lo = Some(match lo {
            None => least,
            Some(l) => smin(l, least),
        });
        hi = Some(match hi {
            None => end,
            Some(h) => smax(h, end),
        });
    }
    Some(Bounds { lo: lo?, hi: hi?, written })
}

/// A natural loop and, when it counts by 1 between bounds computed from the parameters,
/// the range of its induction variable.
struct Counted<'ctx> {
    l: NaturalLoop,
    range: Option<IvRange<'ctx>>,
}

#[derive(Clone)]
struct IvRange<'ctx> {
    iv: Value<'ctx>,
    first: Expr,
    last: Expr,
}

impl<'ctx> Counted<'ctx> {
    fn of(cfg: &FunctionCfg<'ctx>, f: Value<'ctx>, l: NaturalLoop) -> Counted<'ctx> {
        let range = loops::analyse(cfg, &l, &Loc::default()).ok().and_then(|s| {
            if s.step.negated || s.step.amount.const_int_value() != Some(1) {
                return None;
            }
            if !matches!(s.cmp_cast, None | Some(Opcode::LLVMSExt | Opcode::LLVMZExt)) {
                return None;
            }
            let first = wide(&s.init, f)?;
            let bound = wide(&s.bound, f)?;
            let last = match s.pred {
                IntPred::LLVMIntSLT | IntPred::LLVMIntULT | IntPred::LLVMIntNE => sub(bound, konst(1)),
                IntPred::LLVMIntSLE | IntPred::LLVMIntULE => bound,
                _ => return None,
            };
            Some(IvRange { iv: s.iv, first, last })
        });
        Counted { l, range }
    }
}

/// The loops around `block`, innermost first.
fn enclosing(cfg: &FunctionCfg<'_>, loops: &[Counted<'_>], block: Block<'_>) -> Vec<usize> {
    let at = cfg.index[&block];
    let mut around: Vec<usize> = (0..loops.len()).filter(|&i| loops[i].l.body.contains(&at)).collect();
    around.sort_by_key(|&i| loops[i].l.body.len());
    around
}

/// Whether `block` runs in every iteration of the innermost loop around it, that loop in
/// every iteration of the next, and so on up to the kernel's every return.
fn runs_every_time<'ctx>(cfg: &FunctionCfg<'ctx>, loops: &[Counted<'ctx>], around: &[usize], block: Block<'ctx>, returns: &[Block<'ctx>]) -> bool {
    let mut inner = block;
    for &i in around {
        let l = &loops[i].l;
        if l.latches.len() != 1 || !cfg.dominates(inner, cfg.blocks[l.latches[0]]) {
            return false;
        }
        inner = cfg.blocks[l.header];
    }
    !returns.is_empty() && returns.iter().all(|r| cfg.dominates(inner, *r))
}

/// A load or store through the pointer: the instruction, its byte offset and size.
struct Access<'ctx> {
    at: Value<'ctx>,
    offset: Linear<'ctx>,
    size: u64,
    write: bool,
}

/// `rest + Σ coefficient·iv`: induction variables with coefficients, and what does not vary
/// in the kernel, all `i64` expressions over the parameters.
#[derive(Clone)]
struct Linear<'ctx> {
    ivs: Vec<(Value<'ctx>, Expr)>,
    rest: Expr,
}

impl<'ctx> Linear<'ctx> {
    fn zero() -> Linear<'ctx> {
        Linear { ivs: Vec::new(), rest: konst(0) }
    }
    fn add(&self, o: &Linear<'ctx>) -> Linear<'ctx> {
        let mut ivs = self.ivs.clone();
        for (v, c) in &o.ivs {
            match ivs.iter_mut().find(|(w, _)| w == v) {
                Some((_, d)) => *d = add(d.clone(), c.clone()),
                None => ivs.push((*v, c.clone())),
            }
        }
        Linear { ivs, rest: add(self.rest.clone(), o.rest.clone()) }
    }
    fn scale(&self, k: &Expr) -> Linear<'ctx> {
        Linear { ivs: self.ivs.iter().map(|(v, c)| (*v, mul(c.clone(), k.clone()))).collect(), rest: mul(self.rest.clone(), k.clone()) }
    }
}

/// Follows the uses of `ptr` (at byte offset `offset` from the parameter) to its loads and
/// stores; None at any other use.
fn collect<'ctx>(m: Module<'ctx>, f: Value<'ctx>, ptr: Value<'ctx>, offset: &Linear<'ctx>, out: &mut Vec<Access<'ctx>>) -> Option<()> {
    for u in ptr.users() {
        if !u.is_instruction() {
            return None;
        }
        match u.opcode()? {
            Opcode::LLVMGetElementPtr if u.operand(0) == ptr => {
                let step = gep_offset(m, f, u)?;
                collect(m, f, u, &offset.add(&step), out)?;
            }
            Opcode::LLVMLoad => out.push(Access { at: u, offset: offset.clone(), size: u.ty().store_size(m), write: false }),
            Opcode::LLVMStore if u.operand(1) == ptr && u.operand(0) != ptr => {
                out.push(Access { at: u, offset: offset.clone(), size: u.operand(0).ty().store_size(m), write: true })
            }
            // `#pragma acc atomic` on an element: a read and a write of its bytes.
            Opcode::LLVMAtomicRMW if u.operand(0) == ptr && u.operand(1) != ptr => {
                out.push(Access { at: u, offset: offset.clone(), size: u.ty().store_size(m), write: true })
            }
            Opcode::LLVMAtomicCmpXchg if u.operand(0) == ptr && u.operand(1) != ptr && u.operand(2) != ptr => {
                out.push(Access { at: u, offset: offset.clone(), size: u.operand(1).ty().store_size(m), write: true })
            }
            Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => collect(m, f, u, offset, out)?,
            _ => return None,
        }
    }
    Some(())
}

/// The byte offset a `getelementptr` adds to its base.
fn gep_offset<'ctx>(m: Module<'ctx>, f: Value<'ctx>, gep: Value<'ctx>) -> Option<Linear<'ctx>> {
    let ops = gep.operands();
    let mut ty = gep.gep_source_type();
    let mut total = linear(f, ops[1])?.scale(&konst(ty.store_size(m) as i64));
    for idx in &ops[2..] {
        match ty.kind() {
            TypeKind::LLVMArrayTypeKind => {
                ty = ty.contained_types()[0];
                total = total.add(&linear(f, *idx)?.scale(&konst(ty.store_size(m) as i64)));
            }
            TypeKind::LLVMStructTypeKind => {
                let k = idx.const_int_value()?;
                total = total.add(&Linear { ivs: Vec::new(), rest: konst(ty.field_offset(m, k as u32)? as i64) });
                ty = ty.contained_types()[k as usize];
            }
            _ => return None,
        }
    }
    Some(total)
}

/// `v` (an integer in kernel `f`) as a linear form over induction variables: `nsw` (or
/// 64-bit) arithmetic is followed, anything else must be computed from the parameters.
fn linear<'ctx>(f: Value<'ctx>, v: Value<'ctx>) -> Option<Linear<'ctx>> {
    if v.is_phi() {
        return Some(Linear { ivs: vec![(v, konst(1))], rest: konst(0) });
    }
    let no_wrap = v.ty().is_int() && (v.ty().int_width() >= 64 || v.has_nsw());
    let invariant = || wide(&v, f).map(|rest| Linear { ivs: Vec::new(), rest });
    match v.opcode() {
        Some(Opcode::LLVMAdd) if no_wrap => Some(linear(f, v.operand(0))?.add(&linear(f, v.operand(1))?)),
        Some(Opcode::LLVMSub) if no_wrap => Some(linear(f, v.operand(0))?.add(&linear(f, v.operand(1))?.scale(&konst(-1)))),
        Some(Opcode::LLVMMul) if no_wrap => {
            let (a, b) = (linear(f, v.operand(0))?, linear(f, v.operand(1))?);
            match (a.ivs.is_empty(), b.ivs.is_empty()) {
                (_, true) => Some(a.scale(&b.rest)),
                (true, false) => Some(b.scale(&a.rest)),
                _ => None,
            }
        }
        Some(Opcode::LLVMShl) if no_wrap => match v.operand(1).const_int_value() {
            Some(k @ 0..=62) => Some(linear(f, v.operand(0))?.scale(&konst(1i64 << k))),
            _ => invariant(),
        },
        Some(Opcode::LLVMSExt) => {
            let x = v.operand(0);
            let arithmetic = matches!(x.opcode(), Some(Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul | Opcode::LLVMShl));
            if !arithmetic || x.has_nsw() {
                linear(f, x)
            } else {
                invariant()
            }
        }
        _ => invariant(),
    }
}

/// `v` as an `i64` expression over the parameters (sign-extended when narrower).
fn wide<'ctx>(v: &Value<'ctx>, f: Value<'ctx>) -> Option<Expr> {
    let e = crate::expr::extract(*v, f)?;
    let bits = v.ty().int_width();
    Some(if bits < 64 { Expr::Cast { op: Opcode::LLVMSExt, bits: 64, arg: Box::new(e) } } else { e })
}

fn konst(c: i64) -> Expr {
    Expr::Const { bits: 64, value: c }
}
fn add(a: Expr, b: Expr) -> Expr {
    Expr::Bin { op: Opcode::LLVMAdd, a: Box::new(a), b: Box::new(b) }
}
fn sub(a: Expr, b: Expr) -> Expr {
    Expr::Bin { op: Opcode::LLVMSub, a: Box::new(a), b: Box::new(b) }
}
fn mul(a: Expr, b: Expr) -> Expr {
    Expr::Bin { op: Opcode::LLVMMul, a: Box::new(a), b: Box::new(b) }
}
fn icmp(pred: IntPred, a: Expr, b: Expr) -> Expr {
    Expr::ICmp { pred, a: Box::new(a), b: Box::new(b) }
}
fn select(c: Expr, a: Expr, b: Expr) -> Expr {
    Expr::Select { c: Box::new(c), a: Box::new(a), b: Box::new(b) }
}
fn smin(a: Expr, b: Expr) -> Expr {
    select(icmp(IntPred::LLVMIntSLT, a.clone(), b.clone()), a, b)
}
fn smax(a: Expr, b: Expr) -> Expr {
    select(icmp(IntPred::LLVMIntSGT, a.clone(), b.clone()), a, b)
}
