//! Values: classification, operands and uses, instructions, functions, globals.

use super::raw::{self, Isa};
use super::{Block, Context, IntPred, Linkage, Opcode, Type, Value};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::values::{BasicValueEnum, CallSiteValue, UnnamedAddress};

impl<'ctx> Type<'ctx> {
    /// The context this type lives in.
    pub fn context(self) -> Context<'ctx> {
        // Any type, labels and tokens included (which inkwell's type enums do not cover).
        // SAFETY: the context of a live type of context 'ctx.
        Context(unsafe { inkwell::context::ContextRef::new(raw::type_context(self.raw)) })
    }
}

/// `is_x(self) -> bool` for each `LLVMIsA*` kind test.
macro_rules! isa_tests {
    ($($name:ident: $kind:ident),* $(,)?) => {
        $(pub fn $name(self) -> bool {
            raw::isa(self.raw(), Isa::$kind)
        })*
    };
}

/// Whether a function or call may read or write memory (`Value::memory_effects`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEffects {
    pub reads: bool,
    pub writes: bool,
}

// ---------------------------------------------------------------- any value
impl<'ctx> Value<'ctx> {
    pub fn is_null(self) -> bool {
        self.raw().is_null()
    }
    pub fn name(self) -> String {
        raw::value_name(self.raw())
    }
    pub fn set_name(self, name: &str) {
        raw::set_value_name(self.raw(), name)
    }
    /// The context this value lives in.
    pub fn context(self) -> Context<'ctx> {
        self.ty().context()
    }
    pub fn ty(self) -> Type<'ctx> {
        Type::wrap(raw::type_of(self.raw()))
    }
    pub fn to_string(self) -> String {
        raw::print_value(self.raw())
    }
    isa_tests! {
        is_instruction: Instruction, is_argument: Argument, is_const_expr: ConstantExpr,
        is_global_variable: GlobalVariable, is_function: Function, is_alloca: Alloca,
        is_phi: Phi, is_call: Call, is_const_int: ConstantInt, is_inline_asm: InlineAsm,
    }
    pub fn const_int_value(self) -> Option<i64> {
        if !self.is_const_int() {
            return None;
        }
        self.basic().into_int_value().get_sign_extended_constant()
    }
    /// The bytes of a constant string global (`@.str = constant [N x i8] c"...\00"`),
    /// without the trailing NUL.
    pub fn const_string(self) -> Option<String> {
        if !self.is_global_variable() {
            return None;
        }
        let BasicValueEnum::ArrayValue(init) = self.global().get_initializer()? else { return None };
        if !init.is_const_string() {
            return None;
        }
        let bytes = init.as_const_string()?.to_vec();
        let bytes = bytes.split(|b| *b == 0).next().unwrap_or(&bytes);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
    pub fn opcode(self) -> Option<Opcode> {
        if self.is_instruction() {
            Some(self.inst().get_opcode().into())
        } else if self.is_const_expr() {
            Some(raw::const_opcode(self.raw()))
        } else {
            None
        }
    }
    /// An atomic memory operation: `atomicrmw`, `cmpxchg`, or a `load`/`store` with an
    /// atomic ordering (what the C `__atomic_*` builtins compile to).
    /// The operation of an `atomicrmw` instruction.
    pub fn atomic_rmw_op(self) -> llvm_sys::LLVMAtomicRMWBinOp {
        debug_assert_eq!(self.opcode(), Some(Opcode::LLVMAtomicRMW));
        raw::atomic_rmw_op(self.raw())
    }
    pub fn is_atomic_access(self) -> bool {
        match self.opcode() {
            Some(Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => true,
            Some(Opcode::LLVMLoad | Opcode::LLVMStore) => {
                self.inst().get_atomic_ordering().is_ok_and(|o| o != inkwell::AtomicOrdering::NotAtomic)
            }
            _ => false,
        }
    }
    /// Whether an `add`/`sub`/`mul`/`shl` instruction carries `nsw` (false for anything else).
    pub fn has_nsw(self) -> bool {
        self.is_instruction() && self.inst().get_no_signed_wrap_flag().unwrap_or(false)
    }
    /// Whether an `add`/`sub`/`mul`/`shl` instruction carries `nuw` (false for anything else).
    pub fn has_nuw(self) -> bool {
        self.is_instruction() && self.inst().get_no_unsigned_wrap_flag().unwrap_or(false)
    }
    pub fn num_operands(self) -> u32 {
        raw::num_operands(self.raw())
    }
    pub fn operand(self, i: u32) -> Value<'ctx> {
        Value::wrap(raw::operand(self.raw(), i))
    }
    pub fn operands(self) -> Vec<Value<'ctx>> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }
    pub fn set_operand(self, i: u32, v: Value<'ctx>) {
        raw::set_operand(self.raw(), i, v.raw())
    }
    /// All users of this value (one entry per use).
    pub fn users(self) -> Vec<Value<'ctx>> {
        raw::users(self.raw()).into_iter().map(Value::wrap).collect()
    }
    pub fn replace_all_uses_with(self, new: Value<'ctx>) {
        raw::replace_all_uses_with(self.raw(), new.raw())
    }
    /// Replaces the uses of `self` whose user instruction satisfies `pred`.
    pub fn replace_uses_where(self, new: Value<'ctx>, pred: impl Fn(Value<'ctx>) -> bool) {
        for user in self.users() {
            if !pred(user) {
                continue;
            }
            for i in 0..user.num_operands() {
                if user.operand(i) == self {
                    user.set_operand(i, new);
                }
            }
        }
    }
}

// ---------------------------------------------------------------- instructions
impl<'ctx> Value<'ctx> {
    /// Erases an instruction without remaining uses.
    pub fn erase(self) {
        self.inst().erase_from_basic_block()
    }
    pub fn parent_block(self) -> Block<'ctx> {
        Block(self.inst().get_parent().expect("instructions the pass walks are in a block"))
    }
    pub fn parent_function(self) -> Value<'ctx> {
        self.parent_block().parent()
    }
    pub fn next_instruction(self) -> Option<Value<'ctx>> {
        self.inst().get_next_instruction().map(Value::of)
    }
    pub fn prev_instruction(self) -> Option<Value<'ctx>> {
        self.inst().get_previous_instruction().map(Value::of)
    }
    fn call_site(self) -> Option<CallSiteValue<'ctx>> {
        CallSiteValue::try_from(self.inst()).ok()
    }
    /// For a call: the called function (None for indirect calls and for anything that is
    /// not a call).
    pub fn called_function(self) -> Option<Value<'ctx>> {
        if !self.is_call() {
            return None;
        }
        let callee = self.operand(self.num_operands() - 1);
        callee.is_function().then_some(callee)
    }
    pub fn called_name(self) -> Option<String> {
        self.called_function().map(|f| f.name())
    }
    pub fn call_arg(self, i: u32) -> Value<'ctx> {
        self.operand(i)
    }
    pub fn call_arg_count(self) -> u32 {
        self.call_site().expect("a call").count_arguments()
    }
    pub fn allocated_type(self) -> Type<'ctx> {
        Type::of(self.inst().get_allocated_type().expect("an alloca"))
    }
    /// An instruction's debug location (file, line, column), when it has one (`-g`).
    pub fn debug_loc(self) -> Option<(String, u32, u32)> {
        let loc = self.inst().get_debug_location()?;
        let line = loc.get_line();
        (line != 0).then(|| (raw::debug_loc_file(self.raw()), line, loc.get_column()))
    }
    /// Makes this load or store atomic (monotonic).
    pub fn set_monotonic(self) {
        raw::set_monotonic(self.raw())
    }
    /// The first index of an `extractvalue`/`insertvalue` (None for any other value).
    pub fn aggregate_index(self) -> Option<u32> {
        raw::first_aggregate_index(self.raw())
    }
    pub fn fcmp_predicate(self) -> llvm_sys::LLVMRealPredicate {
        raw::fcmp_predicate(self.raw())
    }
    pub fn icmp_predicate(self) -> IntPred {
        self.inst().get_icmp_predicate().expect("an icmp").into()
    }
    pub fn successors(self) -> Vec<Block<'ctx>> {
        raw::successors(self.raw()).into_iter().map(Block::wrap).collect()
    }
    pub fn set_successor(self, i: u32, b: Block<'ctx>) {
        raw::set_successor(self.raw(), i, b.0.as_mut_ptr())
    }
    /// The case values of a `switch`, in successor order (successor `k + 1` is case `k`;
    /// successor 0 is the default). `None` for a case that is not a plain integer constant.
    pub fn switch_case_values(self) -> Vec<Option<i64>> {
        let n = self.successors().len() as u32;
        (1..n).map(|i| Value::wrap(raw::switch_case_value(self.raw(), i)).const_int_value()).collect()
    }
    pub fn is_conditional_branch(self) -> bool {
        raw::isa(self.raw(), Isa::Branch) && self.inst().is_conditional().unwrap_or(false)
    }
    pub fn branch_condition(self) -> Value<'ctx> {
        self.operand(0)
    }
    pub fn set_branch_condition(self, c: Value<'ctx>) {
        self.set_operand(0, c)
    }
    /// On a loop's latch branch: ask the unroller for `count` copies of the body.
    pub fn set_loop_unroll_count(self, count: u32) {
        raw::set_loop_unroll_count(self.raw(), count)
    }
    /// Drops the loop hints of a latch branch.
    pub fn clear_loop_metadata(self) {
        raw::clear_loop_metadata(self.raw())
    }
    pub fn gep_source_type(self) -> Type<'ctx> {
        Type::wrap(raw::gep_source_type(self.raw()))
    }
    pub fn is_in_bounds(self) -> bool {
        raw::in_bounds(self.raw())
    }
}

// ---------------------------------------------------------------- globals and functions
impl<'ctx> Value<'ctx> {
    /// Deletes a function without remaining uses.
    pub fn erase_function(self) {
        // SAFETY: the function has no uses left and the callers drop their handles into it.
        unsafe { self.func().delete() }
    }
    /// Deletes a global variable without remaining uses.
    pub fn erase_global(self) {
        // SAFETY: the global has no uses left and the callers drop their handles to it.
        unsafe { self.global().delete() }
    }
    pub fn global_value_type(self) -> Type<'ctx> {
        Type::of(self.global().get_value_type())
    }
    pub fn is_global_constant(self) -> bool {
        self.global().is_constant()
    }
    pub fn has_initializer(self) -> bool {
        self.global().get_initializer().is_some()
    }
    /// Whether a constant (a global's initializer) is all zero bytes: `zeroinitializer`,
    /// `0`, `0.0`, `null`.
    pub fn is_zero_constant(self) -> bool {
        use inkwell::values::BasicValueEnum as B;
        match self.basic() {
            B::ArrayValue(v) => v.is_null(),
            B::IntValue(v) => v.is_null(),
            B::FloatValue(v) => v.is_null(),
            B::PointerValue(v) => v.is_null(),
            B::StructValue(v) => v.is_null(),
            B::VectorValue(v) => v.is_null(),
            B::ScalableVectorValue(v) => v.is_null(),
        }
    }
    /// A global variable's initializer (None for a declaration).
    pub fn initializer(self) -> Option<Value<'ctx>> {
        self.global().get_initializer().map(Value::of)
    }
    pub fn set_initializer(self, v: Value<'ctx>) {
        self.global().set_initializer(&v.basic())
    }
    pub fn set_global_constant(self, c: bool) {
        self.global().set_constant(c)
    }
    pub fn linkage(self) -> Linkage {
        self.global().get_linkage().into()
    }
    pub fn set_linkage(self, l: Linkage) {
        self.global().set_linkage(l.into())
    }
    pub fn set_unnamed_addr(self) {
        self.global().set_unnamed_address(UnnamedAddress::Global)
    }
    /// Alignment of a global, alloca, load or store.
    pub fn alignment(self) -> u32 {
        if self.is_instruction() {
            self.inst().get_alignment().expect("a memory instruction")
        } else {
            self.global().get_alignment()
        }
    }
    pub fn set_alignment(self, a: u32) {
        if self.is_instruction() {
            self.inst().set_alignment(a).expect("a memory instruction")
        } else {
            self.global().set_alignment(a)
        }
    }
    pub fn is_thread_local(self) -> bool {
        self.global().is_thread_local()
    }
    pub fn is_declaration(self) -> bool {
        self.global().is_declaration()
    }
    pub fn function_type(self) -> Type<'ctx> {
        self.global_value_type()
    }
    pub fn params(self) -> Vec<Value<'ctx>> {
        self.func().get_params().into_iter().map(Value::of).collect()
    }
    pub fn blocks(self) -> Vec<Block<'ctx>> {
        self.func().get_basic_blocks().into_iter().map(Block).collect()
    }
    pub fn entry_block(self) -> Block<'ctx> {
        Block(self.func().get_first_basic_block().expect("a function with a body"))
    }
    /// Runs a textual new-PM function pipeline (e.g. `"sroa,instsimplify"`) on this function
    /// only: the cost does not grow with the rest of the module.
    pub fn run_function_passes(self, pipeline: &str) -> Result<(), String> {
        raw::run_passes(std::ptr::null_mut(), Some(self.raw()), pipeline)
    }
    pub fn set_call_conv(self, cc: u32) {
        self.func().set_call_conventions(cc)
    }
    /// Removes a string function attribute such as "target-cpu".
    pub fn remove_fn_string_attr(self, key: &str) {
        self.func().remove_string_attribute(AttributeLoc::Function, key)
    }
    pub fn remove_fn_enum_attr(self, name: &str) {
        let kind = Attribute::get_named_enum_kind_id(name);
        if kind != 0 {
            self.func().remove_enum_attribute(AttributeLoc::Function, kind)
        }
    }
    pub fn add_fn_enum_attr(self, name: &str) {
        let kind = Attribute::get_named_enum_kind_id(name);
        let attr = self.ty().context().0.create_enum_attribute(kind, 0);
        self.func().add_attribute(AttributeLoc::Function, attr)
    }
    /// The function this argument belongs to.
    pub fn argument_parent(self) -> Value<'ctx> {
        Value::wrap(raw::param_parent(self.raw()))
    }
    /// Whether parameter `i` of this function carries enum attribute `name` (`noalias`).
    pub fn param_has_attr(self, i: u32, name: &str) -> bool {
        let kind = Attribute::get_named_enum_kind_id(name);
        kind != 0 && self.func().get_enum_attribute(AttributeLoc::Param(i), kind).is_some()
    }
    /// What this function, or this call (its call-site attributes, then its callee's), may do
    /// to memory, from the `memory` attribute: None when unknown (no attribute).
    pub fn memory_effects(self) -> Option<MemoryEffects> {
        let kind = Attribute::get_named_enum_kind_id("memory");
        let attr = if self.is_function() {
            self.func().get_enum_attribute(AttributeLoc::Function, kind)
        } else {
            let cs = self.call_site()?;
            cs.get_enum_attribute(AttributeLoc::Function, kind).or_else(|| self.called_function()?.func().get_enum_attribute(AttributeLoc::Function, kind))
        }?;
        // LLVM's MemoryEffects: two bits per location, Ref (1) and Mod (2).
        let bits = attr.get_enum_value();
        Some(MemoryEffects { reads: bits & 0x5555_5555 != 0, writes: bits & 0xAAAA_AAAA != 0 })
    }
    /// A function attribute on this call (`call void @f() #alwaysinline`).
    pub fn add_call_fn_enum_attr(self, name: &str) {
        let kind = Attribute::get_named_enum_kind_id(name);
        let attr = self.ty().context().0.create_enum_attribute(kind, 0);
        if let Some(cs) = self.call_site() {
            cs.add_attribute(AttributeLoc::Function, attr)
        }
    }
}

/// Gives `new` (blocks outlined from `old`) debug info of its own: a distinct subprogram at
/// `line`, its locations and variables moved into it, records that named a value in
/// `replaced` re-pointed at its replacement, the rest of the host's metadata dropped.
pub fn fixup_outlined_debug_info<'ctx>(old: Value<'ctx>, new: Value<'ctx>, line: u32, replaced: &[(Value<'ctx>, Value<'ctx>)]) {
    let from: Vec<_> = replaced.iter().map(|(f, _)| f.raw()).collect();
    let to: Vec<_> = replaced.iter().map(|(_, t)| t.raw()).collect();
    raw::di_fixup_outlined(old.raw(), new.raw(), line, &from, &to)
}
