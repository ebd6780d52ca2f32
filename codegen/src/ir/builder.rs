//! Building instructions: inkwell's builder over untyped handles.
//!
//! The handles are untyped, so each method asks for the inkwell type its operation needs
//! (`into_int_value`, `into_pointer_value`, ...): a mismatch is our bug and panics with
//! inkwell's message, which the pass reports as an internal error. Builder errors (an
//! unpositioned builder) are our bugs too.

use super::{raw, Block, Context, IntPred, Opcode, Type, Value};
use inkwell::builder::BuilderError;
use inkwell::values::{AggregateValueEnum, BasicMetadataValueEnum, BasicValueEnum, IntValue};

/// An instruction builder (inkwell's), disposed on drop.
pub struct Builder<'ctx>(pub(crate) inkwell::builder::Builder<'ctx>);

/// Unwraps a builder result: failing only on an unpositioned builder, our bug.
fn built<T>(r: Result<T, BuilderError>) -> T {
    r.unwrap_or_else(|e| panic!("internal: the IR builder failed: {e}"))
}

fn int(v: Value) -> IntValue {
    v.basic().into_int_value()
}

macro_rules! int_binop {
    ($name:ident, $ink:ident) => {
        pub fn $name(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
            Value::of(built(self.0.$ink(int(a), int(b), "")))
        }
    };
}

impl<'ctx> Builder<'ctx> {
    pub fn position_at_end(&self, b: Block<'ctx>) {
        self.0.position_at_end(b.0)
    }
    pub fn position_before(&self, i: Value<'ctx>) {
        self.0.position_before(&i.inst())
    }
    /// The block the builder inserts into (it must be positioned).
    pub fn insert_block(&self) -> Block<'ctx> {
        Block(self.0.get_insert_block().expect("internal: the IR builder is not positioned"))
    }
    /// Gives what the builder creates from now on the debug location of `i` (none if it
    /// has none): calls to functions with debug info must carry one.
    pub fn set_debug_loc_of(&self, i: Value<'ctx>) {
        match i.inst().get_debug_location() {
            Some(loc) => self.0.set_current_debug_location(loc),
            None => self.0.unset_current_debug_location(),
        }
    }
    int_binop!(add, build_int_add);
    int_binop!(nuw_add, build_int_nuw_add);
    int_binop!(sub, build_int_sub);
    int_binop!(mul, build_int_mul);
    int_binop!(sdiv, build_int_signed_div);
    int_binop!(udiv, build_int_unsigned_div);
    int_binop!(srem, build_int_signed_rem);
    int_binop!(urem, build_int_unsigned_rem);
    int_binop!(add_nsw, build_int_nsw_add);
    int_binop!(sub_nsw, build_int_nsw_sub);
    int_binop!(mul_nsw, build_int_nsw_mul);
    int_binop!(and, build_and);
    int_binop!(or, build_or);
    /// Integer or pointer comparison.
    pub fn icmp(&self, p: IntPred, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value::of(match (a.basic(), b.basic()) {
            (BasicValueEnum::PointerValue(x), BasicValueEnum::PointerValue(y)) => built(self.0.build_int_compare(p.into(), x, y, "")),
            (x, y) => built(self.0.build_int_compare(p.into(), x.into_int_value(), y.into_int_value(), "")),
        })
    }
    pub fn select(&self, c: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_select(int(c), a.basic(), b.basic(), "")))
    }
    pub fn sext_or_trunc(&self, v: Value<'ctx>, to: Type<'ctx>) -> Value<'ctx> {
        let (from_w, to_w) = (v.ty().int_width(), to.int_width());
        let to_ty = to.any().into_int_type();
        match from_w.cmp(&to_w) {
            std::cmp::Ordering::Equal => v,
            std::cmp::Ordering::Less => Value::of(built(self.0.build_int_s_extend(int(v), to_ty, ""))),
            std::cmp::Ordering::Greater => Value::of(built(self.0.build_int_truncate(int(v), to_ty, ""))),
        }
    }
    pub fn zext_or_trunc(&self, v: Value<'ctx>, to: Type<'ctx>) -> Value<'ctx> {
        let (from_w, to_w) = (v.ty().int_width(), to.int_width());
        let to_ty = to.any().into_int_type();
        match from_w.cmp(&to_w) {
            std::cmp::Ordering::Equal => v,
            std::cmp::Ordering::Less => Value::of(built(self.0.build_int_z_extend(int(v), to_ty, ""))),
            std::cmp::Ordering::Greater => Value::of(built(self.0.build_int_truncate(int(v), to_ty, ""))),
        }
    }
    pub fn call(&self, f: Value<'ctx>, args: &[Value<'ctx>], name: &str) -> Value<'ctx> {
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| a.basic().into()).collect();
        Value::of(built(self.0.build_call(f.func(), &args, name)))
    }
    pub fn br(&self, b: Block<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_unconditional_branch(b.0)))
    }
    pub fn cond_br(&self, c: Value<'ctx>, t: Block<'ctx>, e: Block<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_conditional_branch(int(c), t.0, e.0)))
    }
    pub fn unreachable(&self) -> Value<'ctx> {
        Value::of(built(self.0.build_unreachable()))
    }
    pub fn ret_void(&self) -> Value<'ctx> {
        Value::of(built(self.0.build_return(None)))
    }
    pub fn ret(&self, v: Value<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_return(Some(&v.basic()))))
    }
    pub fn alloca(&self, ty: Type<'ctx>, name: &str) -> Value<'ctx> {
        Value::of(built(self.0.build_alloca(ty.basic(), name)))
    }
    /// `count` elements of `ty` on the stack (a dynamic alloca when `count` is not constant).
    pub fn array_alloca(&self, ty: Type<'ctx>, count: Value<'ctx>, name: &str) -> Value<'ctx> {
        Value::of(built(self.0.build_array_alloca(ty.basic(), int(count), name)))
    }
    pub fn load(&self, ty: Type<'ctx>, p: Value<'ctx>, name: &str) -> Value<'ctx> {
        Value::of(built(self.0.build_load(ty.basic(), p.basic().into_pointer_value(), name)))
    }
    /// A monotonic atomic load (its type's natural alignment).
    pub fn atomic_load(&self, ty: Type<'ctx>, p: Value<'ctx>) -> Value<'ctx> {
        let l = self.load(ty, p, "");
        raw::set_monotonic(l.raw());
        l
    }
    /// `atomicrmw op p, v monotonic`.
    pub fn atomic_rmw(&self, op: llvm_sys::LLVMAtomicRMWBinOp, p: Value<'ctx>, v: Value<'ctx>) -> Value<'ctx> {
        Value::wrap(raw::build_atomic_rmw(self.0.as_mut_ptr(), op, p.raw(), v.raw()))
    }
    /// `cmpxchg p, cmp, new monotonic monotonic`: `{old, swapped}`.
    pub fn cmpxchg(&self, p: Value<'ctx>, cmp: Value<'ctx>, new: Value<'ctx>) -> Value<'ctx> {
        use inkwell::AtomicOrdering::Monotonic;
        Value::of(built(self.0.build_cmpxchg(p.basic().into_pointer_value(), cmp.basic(), new.basic(), Monotonic, Monotonic)))
    }
    pub fn fneg(&self, v: Value<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_float_neg(v.basic().into_float_value(), "")))
    }
    pub fn store(&self, v: Value<'ctx>, p: Value<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_store(p.basic().into_pointer_value(), v.basic())))
    }
    /// `p + offset` bytes.
    pub fn gep_bytes(&self, ctx: Context<'ctx>, p: Value<'ctx>, offset: Value<'ctx>) -> Value<'ctx> {
        self.gep(ctx.i8(), p, &[offset], false)
    }
    pub fn gep(&self, src: Type<'ctx>, p: Value<'ctx>, idx: &[Value<'ctx>], inbounds: bool) -> Value<'ctx> {
        let ix: Vec<IntValue> = idx.iter().map(|i| int(*i)).collect();
        let ptr = p.basic().into_pointer_value();
        // SAFETY: inkwell marks GEP unsafe because an out-of-range index gives a pointer that
        // is UB to use; the indices here come from the user's program or address a field
        // that exists in `src`, as the original IR did.
        Value::of(built(unsafe {
            if inbounds {
                self.0.build_in_bounds_gep(src.basic(), ptr, &ix, "")
            } else {
                self.0.build_gep(src.basic(), ptr, &ix, "")
            }
        }))
    }
    /// A cast with an opcode taken from existing IR (valid for these types).
    pub fn cast(&self, op: Opcode, v: Value<'ctx>, to: Type<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_cast(op.into(), v.basic(), to.basic(), "")))
    }
    /// A binary operation with an opcode taken from existing IR.
    pub fn binop(&self, op: Opcode, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_binop(op.into(), a.basic(), b.basic(), "")))
    }
    /// Floating-point comparison.
    pub fn fcmp(&self, p: inkwell::FloatPredicate, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        Value::of(built(self.0.build_float_compare(p, a.basic().into_float_value(), b.basic().into_float_value(), "")))
    }
    /// Element `index` of a vector value.
    pub fn extract_element(&self, v: Value<'ctx>, index: u64) -> Value<'ctx> {
        let i = self.0.get_insert_block().expect("a positioned builder").get_context().i32_type().const_int(index, false);
        Value::of(built(self.0.build_extract_element(v.basic().into_vector_value(), i, "")))
    }
    pub fn extract_value(&self, agg: Value<'ctx>, index: u32) -> Value<'ctx> {
        Value::of(built(self.0.build_extract_value(aggregate(agg), index, "")))
    }
    pub fn insert_value(&self, agg: Value<'ctx>, v: Value<'ctx>, index: u32) -> Value<'ctx> {
        Value::of(built(self.0.build_insert_value(aggregate(agg), v.basic(), index, "")))
    }
    pub fn phi(&self, ty: Type<'ctx>, name: &str) -> Value<'ctx> {
        Value::of(built(self.0.build_phi(ty.basic(), name)))
    }
    /// A private constant global holding `s` and a NUL.
    pub fn global_string(&self, s: &str, name: &str) -> Value<'ctx> {
        Value::of(built(self.0.build_global_string_ptr(s, name)))
    }
}

fn aggregate(v: Value) -> AggregateValueEnum {
    match v.basic() {
        BasicValueEnum::StructValue(s) => s.into(),
        BasicValueEnum::ArrayValue(a) => a.into(),
        other => panic!("internal: {other:?} is not an aggregate"),
    }
}

/// Clones an instruction (not inserted anywhere yet); insert with `insert_before`.
pub fn clone_instruction(i: Value<'_>) -> Value<'_> {
    Value::of(i.inst().explicit_clone())
}

/// Inserts `new`, a fresh clone without a block, before `before`.
pub fn insert_before<'ctx>(new: Value<'ctx>, before: Value<'ctx>, ctx: Context<'ctx>) {
    let b = ctx.builder();
    b.position_before(before);
    b.0.insert_instruction(&new.inst(), None)
}

/// Converts a constant expression into an equivalent instruction inserted before `before`.
pub fn const_expr_as_instruction<'ctx>(ce: Value<'ctx>, before: Value<'ctx>) -> Value<'ctx> {
    // ConstantExpr::getAsInstruction has no C API, so the expression is rebuilt from its
    // opcode and operands.
    let b = before.ty().context().builder();
    b.position_before(before);
    let Some(op) = ce.opcode() else { return ce };
    let mut ops = ce.operands();
    // Nested expressions first (`gep (ptrtoint ...)`), so that every level is an instruction.
    for o in ops.iter_mut() {
        if o.is_const_expr() {
            *o = const_expr_as_instruction(*o, before);
        }
    }
    // The builder folds all-constant operands straight back into a constant expression
    // (a `gep` on a global stays a constant, and the global never becomes an operand of an
    // instruction): build on a placeholder instruction, then put the real operand in.
    let placeholder = Value::wrap(raw::build_freeze_poison(b.0.as_mut_ptr(), ops[0].ty().raw));
    use Opcode::*;
    let inst = match op {
        LLVMGetElementPtr => b.gep(ce.gep_source_type(), placeholder, &ops[1..], ce.is_in_bounds()),
        LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast => b.cast(op, placeholder, ce.ty()),
        _ if ops.len() == 2 => b.binop(op, placeholder, ops[1]),
        _ => {
            placeholder.erase();
            return ce;
        }
    };
    inst.set_operand(0, ops[0]);
    placeholder.erase();
    inst
}
