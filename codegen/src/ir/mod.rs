//! The compiler's view of LLVM IR, built on inkwell.
//!
//! The transformations walk IR generically: a def-use chain may run through instructions,
//! arguments, globals and constant expressions alike, so the handles here are untyped.
//! [`Value`], [`Type`], [`Block`], [`Module`] and [`Context`] are `Copy` handles that carry
//! the lifetime `'ctx` of the LLVM context they live in (inkwell's), so none can outlive it.
//! Each operation turns the handle into the inkwell type that has the API (an
//! `InstructionValue`, `FunctionValue`, `GlobalValue`, `PhiValue`, a builder, a module, a
//! target machine, the new pass manager) through the few `view` functions below, the only
//! places a raw handle becomes an inkwell value. What inkwell has no API for is in
//! [`raw`], one function per LLVM C call with its `// SAFETY:` reason.
//!
//! Architecture invariant: a handle is used only while the object it names has not been
//! erased (the pass never keeps handles across an erase of their target). The module that
//! opt or clang hands the pass is borrowed ([`with_borrowed_module`]) and never disposed;
//! modules this compiler makes are [`OwnedModule`]s, freed when dropped.

mod block;
mod builder;
mod module;
mod raw;
mod value;

pub use block::rewrite_phi_edges;
pub use builder::{clone_instruction, const_expr_as_instruction, insert_before, Builder};
pub use module::{with_borrowed_module, Context, Module, OwnedContext, OwnedModule};
pub use value::{fixup_outlined_debug_info, MemoryEffects};

pub use llvm_sys::LLVMIntPredicate as IntPred;
pub use llvm_sys::LLVMLinkage as Linkage;
pub use llvm_sys::LLVMOpcode as Opcode;
pub use llvm_sys::LLVMTypeKind as TypeKind;

use inkwell::basic_block::BasicBlock;
use inkwell::types::{AnyTypeEnum, BasicTypeEnum};
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, GlobalValue, InstructionValue, PhiValue};
use llvm_sys::prelude::{LLVMTypeRef, LLVMValueRef};
use std::marker::PhantomData;

/// Any LLVM value: instruction, argument, constant, global, function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Value<'ctx> {
    raw: LLVMValueRef,
    ctx: PhantomData<&'ctx ()>,
}

/// Any LLVM type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Type<'ctx> {
    raw: LLVMTypeRef,
    ctx: PhantomData<&'ctx ()>,
}

/// A basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block<'ctx>(pub(crate) BasicBlock<'ctx>);

impl std::fmt::Debug for Block<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Block({:?})", self.0.as_mut_ptr())
    }
}

impl<'ctx> Value<'ctx> {
    /// Wraps a value handed out by LLVM in context `'ctx`.
    fn wrap(raw: LLVMValueRef) -> Value<'ctx> {
        Value { raw, ctx: PhantomData }
    }
    /// The handle of an inkwell value.
    pub(crate) fn of(v: impl AsValueRef) -> Value<'ctx> {
        Value::wrap(v.as_value_ref())
    }
    pub(crate) fn raw(self) -> LLVMValueRef {
        self.raw
    }

    // ------------------------------------------------------------ views into inkwell
    /// This instruction as inkwell's instruction.
    pub(crate) fn inst(self) -> InstructionValue<'ctx> {
        assert!(self.is_instruction(), "internal: {} is not an instruction", self.to_string());
        // SAFETY: a live instruction (checked) of context 'ctx.
        unsafe { InstructionValue::new(self.raw) }
    }
    /// This first-class value (not void, label, metadata or token) as inkwell's.
    pub(crate) fn basic(self) -> BasicValueEnum<'ctx> {
        assert!(self.ty().is_first_class(), "internal: {} is not a first-class value", self.to_string());
        // SAFETY: a live value of a first-class type (checked) of context 'ctx.
        unsafe { BasicValueEnum::new(self.raw) }
    }
    /// This function as inkwell's.
    pub(crate) fn func(self) -> FunctionValue<'ctx> {
        // SAFETY: a live value of context 'ctx; `new` checks that it is a function.
        unsafe { FunctionValue::new(self.raw) }.unwrap_or_else(|| panic!("internal: {} is not a function", self.to_string()))
    }
    /// This global variable or function as inkwell's global value.
    pub(crate) fn global(self) -> GlobalValue<'ctx> {
        assert!(self.is_global_variable() || self.is_function(), "internal: {} is not a global value", self.to_string());
        // SAFETY: a live global value (checked) of context 'ctx.
        unsafe { GlobalValue::new(self.raw) }
    }
    /// This phi node as inkwell's.
    pub(crate) fn phi_node(self) -> PhiValue<'ctx> {
        assert!(self.is_phi(), "internal: {} is not a phi", self.to_string());
        // SAFETY: a live phi node (checked) of context 'ctx.
        unsafe { PhiValue::new(self.raw) }
    }
}

impl<'ctx> Type<'ctx> {
    fn wrap(raw: LLVMTypeRef) -> Type<'ctx> {
        Type { raw, ctx: PhantomData }
    }
    pub(crate) fn of(t: impl inkwell::types::AsTypeRef) -> Type<'ctx> {
        Type::wrap(t.as_type_ref())
    }
    /// This type as inkwell's (any type).
    pub(crate) fn any(self) -> AnyTypeEnum<'ctx> {
        // SAFETY: a live type of context 'ctx; every LLVM type but label, metadata and token
        // is an AnyTypeEnum, and values of those never reach here (see `is_first_class`).
        unsafe { AnyTypeEnum::new(self.raw) }
    }
    /// This first-class type as inkwell's basic type.
    pub(crate) fn basic(self) -> BasicTypeEnum<'ctx> {
        assert!(self.is_first_class(), "internal: {} is not a first-class type", self.to_string());
        // SAFETY: a live first-class type (checked) of context 'ctx.
        unsafe { BasicTypeEnum::new(self.raw) }
    }
}

impl<'ctx> Block<'ctx> {
    fn wrap(raw: llvm_sys::prelude::LLVMBasicBlockRef) -> Block<'ctx> {
        // SAFETY: a live, non-null block of context 'ctx handed out by LLVM.
        Block(unsafe { BasicBlock::new(raw) }.expect("LLVM hands out non-null blocks"))
    }
}

// ---------------------------------------------------------------- Types
impl<'ctx> Type<'ctx> {
    pub fn kind(self) -> TypeKind {
        raw::type_kind(self.raw)
    }
    pub fn is_void(self) -> bool {
        self.kind() == TypeKind::LLVMVoidTypeKind
    }
    pub fn is_int(self) -> bool {
        self.kind() == TypeKind::LLVMIntegerTypeKind
    }
    pub fn is_ptr(self) -> bool {
        self.kind() == TypeKind::LLVMPointerTypeKind
    }
    pub fn is_float(self) -> bool {
        matches!(self.kind(), TypeKind::LLVMFloatTypeKind | TypeKind::LLVMDoubleTypeKind | TypeKind::LLVMHalfTypeKind)
    }
    /// A type values of which are first-class in inkwell's sense (a `BasicValueEnum`).
    pub fn is_first_class(self) -> bool {
        use TypeKind::*;
        !matches!(self.kind(), LLVMVoidTypeKind | LLVMLabelTypeKind | LLVMMetadataTypeKind | LLVMTokenTypeKind | LLVMFunctionTypeKind | LLVMTargetExtTypeKind)
    }
    /// A scalar in OpenACC's sense: an integer, floating-point or pointer value.
    pub fn is_scalar(self) -> bool {
        self.is_int() || self.is_ptr() || self.is_float()
    }
    /// The address space of a pointer type (0 for any other type).
    pub fn address_space(self) -> u32 {
        if self.is_ptr() {
            raw::pointer_address_space(self.raw)
        } else {
            0
        }
    }
    pub fn int_width(self) -> u32 {
        self.any().into_int_type().get_bit_width()
    }
    pub fn const_int(self, v: u64) -> Value<'ctx> {
        Value::of(self.any().into_int_type().const_int(v, false))
    }
    pub fn undef(self) -> Value<'ctx> {
        match self.basic() {
            BasicTypeEnum::ArrayType(t) => Value::of(t.get_undef()),
            BasicTypeEnum::FloatType(t) => Value::of(t.get_undef()),
            BasicTypeEnum::IntType(t) => Value::of(t.get_undef()),
            BasicTypeEnum::PointerType(t) => Value::of(t.get_undef()),
            BasicTypeEnum::StructType(t) => Value::of(t.get_undef()),
            BasicTypeEnum::VectorType(t) => Value::of(t.get_undef()),
            BasicTypeEnum::ScalableVectorType(t) => Value::of(t.get_undef()),
        }
    }
    /// A constant array of integer constants `vals` of this integer type.
    pub fn const_array(self, vals: &[Value<'ctx>]) -> Value<'ctx> {
        let ints: Vec<inkwell::values::IntValue> = vals.iter().map(|v| v.basic().into_int_value()).collect();
        Value::of(self.any().into_int_type().const_array(&ints))
    }
    pub fn const_null(self) -> Value<'ctx> {
        Value::of(self.basic().const_zero())
    }
    /// Size in bytes under the module's data layout.
    pub fn store_size(self, m: Module<'ctx>) -> u64 {
        raw::abi_size(m.raw(), self.raw)
    }
    /// Byte offset of a struct type's field `field` under the module's data layout (None: not
    /// a struct, or no such field).
    pub fn field_offset(self, m: Module<'ctx>, field: u32) -> Option<u64> {
        (self.kind() == TypeKind::LLVMStructTypeKind && (field as usize) < self.contained_types().len()).then(|| raw::field_offset(m.raw(), self.raw, field))
    }
    pub fn to_string(self) -> String {
        raw::print_type(self.raw)
    }
    /// The types this type is built from: struct fields, array/vector elements, function
    /// return and parameter types (empty for scalars).
    pub fn contained_types(self) -> Vec<Type<'ctx>> {
        use TypeKind::*;
        if !matches!(self.kind(), LLVMStructTypeKind | LLVMArrayTypeKind | LLVMVectorTypeKind | LLVMFunctionTypeKind) {
            return Vec::new();
        }
        match self.any() {
            AnyTypeEnum::StructType(s) => s.get_field_types().into_iter().map(Type::of).collect(),
            AnyTypeEnum::ArrayType(a) => vec![Type::of(a.get_element_type())],
            AnyTypeEnum::VectorType(v) => vec![Type::of(v.get_element_type())],
            AnyTypeEnum::FunctionType(f) => {
                let ret = f.get_return_type().map(Type::of).unwrap_or_else(|| Type::of(f.get_context().void_type()));
                std::iter::once(ret).chain(f.get_param_types().into_iter().map(Type::of)).collect()
            }
            _ => Vec::new(),
        }
    }
}
