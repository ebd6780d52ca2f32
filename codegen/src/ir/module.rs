//! Modules and contexts: the host module borrowed from opt/clang, modules of our own.

use super::{raw, Block, Builder, Type, Value};
use inkwell::context::ContextRef;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{FlagBehavior, Module as InkModule};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::BasicValueEnum;
use inkwell::AddressSpace;
use llvm_sys::prelude::LLVMModuleRef;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;

/// A module, borrowed: the host module opt/clang own, or an [`OwnedModule`] of ours.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Module<'ctx> {
    raw: LLVMModuleRef,
    ctx: PhantomData<&'ctx ()>,
}

/// Runs `work` on a module that the caller (opt or clang, through the C++ shim) owns. The
/// module is wrapped so that inkwell never disposes it, and no handle into it can leave
/// `work`.
///
/// # Safety
/// `raw` must be a live module that nothing else uses while `work` runs.
pub unsafe fn with_borrowed_module<R>(raw: LLVMModuleRef, work: impl for<'a> FnOnce(Module<'a>) -> R) -> R {
    work(Module { raw, ctx: PhantomData })
}

/// A module this compiler made (a clone, parsed IR or bitcode). Freed on drop, unless
/// linked into another module first ([`Module::link`] consumes it).
pub struct OwnedModule<'ctx>(InkModule<'ctx>);

impl<'ctx> OwnedModule<'ctx> {
    /// A handle to this module. Like every handle, used only while the module lives (it is
    /// not tied to this borrow, so that the module can be linked away while values found
    /// through it are still in hand).
    pub fn handle(&self) -> Module<'ctx> {
        Module { raw: self.0.as_mut_ptr(), ctx: PhantomData }
    }
    /// The module as inkwell's, for APIs that take one (the target machine's emitter).
    pub fn ink(&self) -> &InkModule<'ctx> {
        &self.0
    }
}

impl<'ctx> Module<'ctx> {
    pub(crate) fn raw(self) -> LLVMModuleRef {
        self.raw
    }
    /// The module as inkwell's, for one operation. A view: it never disposes the module
    /// (inkwell's `Module` would on drop), which belongs to opt/clang or an `OwnedModule`.
    fn ink(self) -> ManuallyDrop<InkModule<'ctx>> {
        // SAFETY: a live module of context 'ctx (handle invariant); ManuallyDrop keeps the
        // view from disposing it.
        ManuallyDrop::new(unsafe { InkModule::new(self.raw) })
    }
    pub fn context(self) -> Context<'ctx> {
        Context(self.ink().get_context())
    }
    pub fn functions(self) -> Vec<Value<'ctx>> {
        self.ink().get_functions().map(Value::of).collect()
    }
    pub fn globals(self) -> Vec<Value<'ctx>> {
        self.ink().get_globals().map(Value::of).collect()
    }
    pub fn function(self, name: &str) -> Option<Value<'ctx>> {
        self.ink().get_function(name).map(Value::of)
    }
    pub fn global(self, name: &str) -> Option<Value<'ctx>> {
        self.ink().get_global(name).map(Value::of)
    }
    /// Declares (or returns the existing) function `name` of type `ty`.
    pub fn get_or_add_function(self, name: &str, ty: Type<'ctx>) -> Value<'ctx> {
        match self.function(name) {
            Some(f) => f,
            None => Value::of(self.ink().add_function(name, ty.any().into_function_type(), None)),
        }
    }
    pub fn add_global(self, ty: Type<'ctx>, name: &str) -> Value<'ctx> {
        Value::of(self.ink().add_global(ty.basic(), None, name))
    }
    /// A global in address space `space` (3: the GPU's shared memory).
    pub fn add_global_in(self, ty: Type<'ctx>, name: &str, space: u32) -> Value<'ctx> {
        let space = AddressSpace::try_from(space).expect("address spaces fit in 24 bits");
        Value::of(self.ink().add_global(ty.basic(), Some(space), name))
    }
    pub fn triple(self) -> String {
        self.ink().get_triple().as_str().to_string_lossy().into_owned()
    }
    pub fn set_triple(self, t: &str) {
        self.ink().set_triple(&inkwell::targets::TargetTriple::create(t))
    }
    /// The module's source file name (clang: the input it compiled).
    pub fn source_file_name(self) -> String {
        self.ink().get_source_file_name().to_string_lossy().into_owned()
    }
    pub fn data_layout(self) -> String {
        self.ink().get_data_layout().as_str().to_string_lossy().into_owned()
    }
    pub fn set_data_layout(self, dl: &str) {
        raw::set_data_layout(self.raw(), dl)
    }
    /// A deep copy in the same context.
    pub fn clone_module(self) -> OwnedModule<'ctx> {
        // SAFETY: `clone_module` returns a new module of this context that nothing else owns.
        OwnedModule(unsafe { InkModule::new(raw::clone_module(self.raw())) })
    }
    /// The module as bitcode, to carry it into another context.
    pub fn to_bitcode(self) -> Vec<u8> {
        self.ink().write_bitcode_to_memory().as_slice().to_vec()
    }
    pub fn print_to_string(self) -> String {
        self.ink().print_to_string().to_string()
    }
    /// Runs the LLVM verifier; returns its message on failure.
    pub fn verify(self) -> Result<(), String> {
        self.ink().verify().map_err(|e| e.to_string())
    }
    /// Links `other` into `self`, consuming it.
    pub fn link(self, other: OwnedModule<'ctx>) -> Result<(), String> {
        // Not inkwell's `link_in_module`: it replaces the context's diagnostic handler for
        // good, and in opt's or clang's context that handler counts the errors the pass
        // reports (their exit status).
        let other = ManuallyDrop::new(other);
        raw::link_modules(self.raw(), other.0.as_mut_ptr())
    }
    /// Runs a textual new-PM pipeline (e.g. `"sroa,instcombine"`) on the module, for the
    /// target of `tm` when given.
    pub fn run_passes(self, pipeline: &str, tm: Option<&inkwell::targets::TargetMachine>) -> Result<(), String> {
        match tm {
            Some(tm) => self.ink().run_passes(pipeline, tm, inkwell::passes::PassBuilderOptions::create()).map_err(|e| e.to_string()),
            None => raw::run_passes(self.raw(), None, pipeline),
        }
    }
    pub fn add_module_flag_i32(self, key: &str, val: u32) {
        let v = self.context().i32().any().into_int_type().const_int(val as u64, false);
        self.ink().add_basic_value_flag(key, FlagBehavior::Override, v)
    }
    /// Whether the module carries debug info (a compile unit in `llvm.dbg.cu`).
    pub fn has_debug_info(self) -> bool {
        self.ink().get_global_metadata_size("llvm.dbg.cu") > 0
    }
    /// Reduces the module's debug info to line directives (`-gline-directives-only`).
    pub fn debug_info_to_line_directives(self) {
        raw::di_line_directives_only(self.raw())
    }
}

/// An LLVM context, borrowed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Context<'ctx>(pub(crate) ContextRef<'ctx>);

impl<'ctx> Context<'ctx> {
    /// Whether names given to new values are dropped (clang's default outside `-fno-discard-
    /// value-names`); the pass names the blocks and slots it creates and finds them by name.
    pub fn set_discard_value_names(self, discard: bool) {
        raw::set_discard_value_names(self.0.raw(), discard)
    }
    pub fn void(self) -> Type<'ctx> {
        Type::of(self.0.void_type())
    }
    pub fn int(self, bits: u32) -> Type<'ctx> {
        let bits = std::num::NonZeroU32::new(bits).expect("integer types have bits");
        Type::of(self.0.custom_width_int_type(bits).expect("a valid integer width"))
    }
    pub fn i1(self) -> Type<'ctx> {
        Type::of(self.0.bool_type())
    }
    pub fn i8(self) -> Type<'ctx> {
        Type::of(self.0.i8_type())
    }
    pub fn i32(self) -> Type<'ctx> {
        Type::of(self.0.i32_type())
    }
    pub fn i64(self) -> Type<'ctx> {
        Type::of(self.0.i64_type())
    }
    pub fn f32(self) -> Type<'ctx> {
        Type::of(self.0.f32_type())
    }
    pub fn f64(self) -> Type<'ctx> {
        Type::of(self.0.f64_type())
    }
    pub fn i16(self) -> Type<'ctx> {
        Type::of(self.0.i16_type())
    }
    pub fn ptr(self) -> Type<'ctx> {
        Type::of(self.0.ptr_type(AddressSpace::default()))
    }
    pub fn fn_type(self, ret: Type<'ctx>, params: &[Type<'ctx>], vararg: bool) -> Type<'ctx> {
        let ps: Vec<BasicMetadataTypeEnum> = params.iter().map(|t| t.basic().into()).collect();
        if ret.is_void() {
            Type::of(self.0.void_type().fn_type(&ps, vararg))
        } else {
            Type::of(ret.basic().fn_type(&ps, vararg))
        }
    }
    pub fn struct_type(self, fields: &[Type<'ctx>]) -> Type<'ctx> {
        let fs: Vec<BasicTypeEnum> = fields.iter().map(|t| t.basic()).collect();
        Type::of(self.0.struct_type(&fs, false))
    }
    pub fn array_type(self, elem: Type<'ctx>, n: u64) -> Type<'ctx> {
        let n = u32::try_from(n).expect("arrays of fewer than 2^32 elements");
        Type::of(elem.basic().array_type(n))
    }
    /// A constant `[N x i8]` of exactly these bytes (no NUL appended).
    pub fn const_bytes(self, bytes: &[u8]) -> Value<'ctx> {
        Value::of(self.0.const_string(bytes, false))
    }
    pub fn const_struct(self, vals: &[Value<'ctx>]) -> Value<'ctx> {
        let vs: Vec<BasicValueEnum> = vals.iter().map(|v| v.basic()).collect();
        Value::of(self.0.const_struct(&vs, false))
    }
    pub fn builder(self) -> Builder<'ctx> {
        Builder(self.0.create_builder())
    }
    pub fn append_block(self, f: Value<'ctx>, name: &str) -> Block<'ctx> {
        Block(self.0.append_basic_block(f.func(), name))
    }
    /// Parses textual IR into a new module of this context.
    pub fn parse_ir(self, text: &str, name: &str) -> Result<OwnedModule<'ctx>, String> {
        let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), name);
        self.0.create_module_from_ir(buf).map(OwnedModule).map_err(|e| e.to_string())
    }
    /// Reads a bitcode file into a new module of this context.
    pub fn read_bitcode(self, path: &std::path::Path) -> Result<OwnedModule<'ctx>, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.parse_bitcode(&bytes, &path.display().to_string())
    }
    /// Parses bitcode (`Module::to_bitcode`) into a new module of this context.
    pub fn parse_bitcode(self, bytes: &[u8], name: &str) -> Result<OwnedModule<'ctx>, String> {
        let buf = MemoryBuffer::create_from_memory_range(bytes, name);
        InkModule::parse_bitcode_from_buffer(&buf, self.0).map(OwnedModule).map_err(|_| format!("{name}: not a valid bitcode file"))
    }
}

/// A context of our own, for work on another thread than the one that owns the host
/// module's context (an LLVM context and everything in it is used by one thread at a
/// time). Disposed, with every module still in it, on drop.
pub struct OwnedContext(inkwell::context::Context);

impl Default for OwnedContext {
    fn default() -> Self {
        OwnedContext::new()
    }
}

impl OwnedContext {
    pub fn new() -> OwnedContext {
        OwnedContext(inkwell::context::Context::create())
    }
    pub fn context(&self) -> Context<'_> {
        // A type's context is a ContextRef to this context, borrowed for as long as `self`.
        Context(self.0.i8_type().get_context())
    }
}
