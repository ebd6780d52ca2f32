//! Integer expressions over a kernel's parameters, moved from the device module to the host.
//!
//! The grid size comes from the trip count of the kernel's gang loop, which the partitioner
//! computes inside the kernel. When that value depends only on kernel parameters and
//! constants, `extract` captures it as a plain `Expr` tree and the host stub re-emits it
//! (`emit`) over the values it passes to the kernel. Anything else (loads, calls) is not
//! extracted and the runtime picks the number of gangs.

use crate::ir::{Builder, Context, IntPred, Opcode, Value};

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Param(usize),
    Const { bits: u32, value: i64 },
    Cast { op: Opcode, bits: u32, arg: Box<Expr> },
    Bin { op: Opcode, a: Box<Expr>, b: Box<Expr> },
    ICmp { pred: IntPred, a: Box<Expr>, b: Box<Expr> },
    Select { c: Box<Expr>, a: Box<Expr>, b: Box<Expr> },
}

/// Captures `v` (an integer value in `kernel`) as an expression over its parameters.
pub fn extract(v: Value, kernel: Value) -> Option<Expr> {
    extract_depth(v, kernel, 0)
}

fn extract_depth(v: Value, kernel: Value, depth: u32) -> Option<Expr> {
    if depth > 64 || !(v.ty().is_int()) {
        return None;
    }
    if let Some(c) = v.const_int_value() {
        return Some(Expr::Const { bits: v.ty().int_width(), value: c });
    }
    if v.is_argument() {
        return kernel.params().iter().position(|p| *p == v).map(Expr::Param);
    }
    let sub = |i: u32| extract_depth(v.operand(i), kernel, depth + 1).map(Box::new);
    match v.opcode()? {
        op @ (Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc) => {
            Some(Expr::Cast { op, bits: v.ty().int_width(), arg: sub(0)? })
        }
        op @ (Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul | Opcode::LLVMSDiv | Opcode::LLVMUDiv
        | Opcode::LLVMSRem | Opcode::LLVMURem | Opcode::LLVMAnd | Opcode::LLVMOr | Opcode::LLVMXor | Opcode::LLVMShl
        | Opcode::LLVMLShr | Opcode::LLVMAShr) => Some(Expr::Bin { op, a: sub(0)?, b: sub(1)? }),
        Opcode::LLVMICmp => Some(Expr::ICmp { pred: v.icmp_predicate(), a: sub(0)?, b: sub(1)? }),
        Opcode::LLVMSelect => Some(Expr::Select { c: sub(0)?, a: sub(1)?, b: sub(2)? }),
        _ => None,
    }
}

/// Emits `e` at the builder's position, with `Param(i)` standing for `args[i]`.
/// Returns None when an argument is not an integer of the expected kind.
pub fn emit(e: &Expr, b: &Builder, ctx: Context, args: &[Value]) -> Option<Value> {
    Some(match e {
        Expr::Param(i) => {
            let a = *args.get(*i)?;
            if !a.ty().is_int() {
                return None;
            }
            a
        }
        Expr::Const { bits, value } => ctx.int(*bits).const_int(*value as u64),
        Expr::Cast { op, bits, arg } => {
            let a = emit(arg, b, ctx, args)?;
            if a.ty().int_width() == *bits {
                a
            } else {
                b.cast(*op, a, ctx.int(*bits))
            }
        }
        Expr::Bin { op, a, b: bb } => {
            let (x, y) = (emit(a, b, ctx, args)?, emit(bb, b, ctx, args)?);
            match op {
                Opcode::LLVMAdd => b.add(x, y),
                Opcode::LLVMSub => b.sub(x, y),
                Opcode::LLVMMul => b.mul(x, y),
                Opcode::LLVMSDiv => b.sdiv(x, y),
                Opcode::LLVMUDiv => b.udiv(x, y),
                Opcode::LLVMSRem => b.srem(x, y),
                Opcode::LLVMURem => b.urem(x, y),
                Opcode::LLVMAnd => b.and(x, y),
                Opcode::LLVMOr => b.or(x, y),
                _ => return None,
            }
        }
        Expr::ICmp { pred, a, b: bb } => {
            let (x, y) = (emit(a, b, ctx, args)?, emit(bb, b, ctx, args)?);
            b.icmp(*pred, x, y)
        }
        Expr::Select { c, a, b: bb } => {
            let (cv, x, y) = (emit(c, b, ctx, args)?, emit(a, b, ctx, args)?, emit(bb, b, ctx, args)?);
            b.select(cv, x, y)
        }
    })
}
