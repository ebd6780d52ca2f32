//! Integer expressions over a kernel's parameters, moved from the device module to the host.
//!
//! The grid size comes from the trip count of the kernel's gang loop, which the partitioner
//! computes inside the kernel. When that value depends only on kernel parameters and
//! constants, `extract` captures it as a plain `Expr` tree and the host stub re-emits it
//! (`emit`) over the values it passes to the kernel. Anything else (loads, calls) is not
//! extracted and the runtime picks the number of gangs.
//!
//! The host evaluates the expression at every launch, before the kernel runs, whereas the
//! kernel evaluates it only where the program reaches the gang loop: a loop under
//! `if (k)` inside the region (`for (i = 0; i < n / k; i++)`) divides on the device only
//! when `k != 0`. So `emit` produces total arithmetic that never traps: a division or
//! remainder by zero gives 0 and the one overflowing signed division (`MIN / -1`) divides
//! by 1 (`host_division` is the reference semantics). The value is only a launch-size hint
//! (kernels stride by the real launch size), so a loop not reached is harmless.

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
pub fn extract<'ctx>(v: Value<'ctx>, kernel: Value<'ctx>) -> Option<Expr> {
    extract_depth(v, kernel, 0)
}

fn extract_depth<'ctx>(v: Value<'ctx>, kernel: Value<'ctx>, depth: u32) -> Option<Expr> {
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
pub fn emit<'ctx>(e: &Expr, b: &Builder<'ctx>, ctx: Context<'ctx>, args: &[Value<'ctx>]) -> Option<Value<'ctx>> {
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
                Opcode::LLVMSDiv | Opcode::LLVMUDiv | Opcode::LLVMSRem | Opcode::LLVMURem => emit_division(b, *op, x, y),
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

/// `x op y` for a division or remainder, made total as `host_division` says: x86 traps on
/// a zero divisor and on `MIN / -1`, which the program may never have evaluated.
fn emit_division<'ctx>(b: &Builder<'ctx>, op: Opcode, x: Value<'ctx>, y: Value<'ctx>) -> Value<'ctx> {
    let ty = x.ty();
    let bits = ty.int_width();
    let (zero, one) = (ty.const_int(0), ty.const_int(1));
    let by_zero = b.icmp(IntPred::LLVMIntEQ, y, zero);
    let signed = matches!(op, Opcode::LLVMSDiv | Opcode::LLVMSRem);
    let bad = if signed {
        let min = ty.const_int(1u64 << (bits - 1));
        let minus_one = ty.const_int(u64::MAX);
        let overflow = b.and(b.icmp(IntPred::LLVMIntEQ, x, min), b.icmp(IntPred::LLVMIntEQ, y, minus_one));
        b.or(by_zero, overflow)
    } else {
        by_zero
    };
    let safe = b.select(bad, one, y);
    let q = match op {
        Opcode::LLVMSDiv => b.sdiv(x, safe),
        Opcode::LLVMUDiv => b.udiv(x, safe),
        Opcode::LLVMSRem => b.srem(x, safe),
        _ => b.urem(x, safe),
    };
    b.select(by_zero, zero, q)
}

/// Reference semantics of a division or remainder as `emit` computes it on the host (on
/// i64): by zero gives 0; `MIN / -1` gives `MIN` (and `MIN % -1` gives 0); else as in C.
pub fn host_division(op: Opcode, x: i64, y: i64) -> i64 {
    let unsigned = |f: fn(u64, u64) -> u64| f(x as u64, y as u64) as i64;
    match (op, y) {
        (_, 0) => 0,
        (Opcode::LLVMSDiv, _) => x.wrapping_div(y),
        (Opcode::LLVMSRem, _) => x.wrapping_rem(y),
        (Opcode::LLVMUDiv, _) => unsigned(|a, b| a / b),
        (Opcode::LLVMURem, _) => unsigned(|a, b| a % b),
        _ => panic!("host_division of a non-division opcode {op:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_divisions_never_trap() {
        assert_eq!(host_division(Opcode::LLVMSDiv, 101, 0), 0);
        assert_eq!(host_division(Opcode::LLVMSRem, 101, 0), 0);
        assert_eq!(host_division(Opcode::LLVMUDiv, 101, 0), 0);
        assert_eq!(host_division(Opcode::LLVMURem, 101, 0), 0);
        assert_eq!(host_division(Opcode::LLVMSDiv, i64::MIN, -1), i64::MIN);
        assert_eq!(host_division(Opcode::LLVMSRem, i64::MIN, -1), 0);
    }

    #[test]
    fn host_divisions_are_c_elsewhere() {
        assert_eq!(host_division(Opcode::LLVMSDiv, 101, 3), 33);
        assert_eq!(host_division(Opcode::LLVMSDiv, -101, 3), -33);
        assert_eq!(host_division(Opcode::LLVMSRem, -101, 3), -2);
        assert_eq!(host_division(Opcode::LLVMUDiv, -1, 2), i64::MAX);
        assert_eq!(host_division(Opcode::LLVMURem, 7, 4), 3);
        assert_eq!(host_division(Opcode::LLVMSDiv, i64::MIN, 1), i64::MIN);
    }
}
