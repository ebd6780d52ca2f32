//! A thin, copyable handle layer over the LLVM C API.
//!
//! Every `unsafe` call into LLVM in the compiler lives in this module. The handles are raw
//! `LLVM*Ref` pointers wrapped in `Copy` newtypes. Invariant: a handle is only used while the
//! module that owns it is alive and the object it names has not been erased. The pass holds
//! the module for the whole run and never keeps handles across an erase of their target,
//! which is what makes the `// SAFETY:` reasoning below local and uniform.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMTypeKind};
use std::ffi::{CStr, CString};

pub use llvm_sys::LLVMIntPredicate as IntPred;
pub use llvm_sys::LLVMOpcode as Opcode;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Value(pub LLVMValueRef);
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Block(pub LLVMBasicBlockRef);
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Type(pub LLVMTypeRef);
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Module(pub LLVMModuleRef);
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Context(pub LLVMContextRef);

fn cstr(s: &str) -> CString {
    CString::new(s).expect("LLVM names never contain NUL")
}

fn take_message(ptr: *mut std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned an owned, NUL-terminated message that we free exactly once.
    unsafe {
        let s = CStr::from_ptr(ptr).to_string_lossy().into_owned();
        LLVMDisposeMessage(ptr);
        s
    }
}

// ---------------------------------------------------------------- Module / Context
impl Module {
    pub fn context(self) -> Context {
        // SAFETY: module is live (module invariant above).
        Context(unsafe { LLVMGetModuleContext(self.0) })
    }
    pub fn functions(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: iterating a live module's function list without mutating it.
        unsafe {
            let mut f = LLVMGetFirstFunction(self.0);
            while !f.is_null() {
                out.push(Value(f));
                f = LLVMGetNextFunction(f);
            }
        }
        out
    }
    pub fn globals(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: iterating a live module's global list without mutating it.
        unsafe {
            let mut g = LLVMGetFirstGlobal(self.0);
            while !g.is_null() {
                out.push(Value(g));
                g = LLVMGetNextGlobal(g);
            }
        }
        out
    }
    pub fn function(self, name: &str) -> Option<Value> {
        let n = cstr(name);
        // SAFETY: live module, NUL-terminated name.
        let f = unsafe { LLVMGetNamedFunction(self.0, n.as_ptr()) };
        (!f.is_null()).then_some(Value(f))
    }
    pub fn global(self, name: &str) -> Option<Value> {
        let n = cstr(name);
        // SAFETY: live module, NUL-terminated name.
        let g = unsafe { LLVMGetNamedGlobal(self.0, n.as_ptr()) };
        (!g.is_null()).then_some(Value(g))
    }
    /// Declares (or returns the existing) function `name` of type `ty`.
    pub fn get_or_add_function(self, name: &str, ty: Type) -> Value {
        if let Some(f) = self.function(name) {
            return f;
        }
        let n = cstr(name);
        // SAFETY: live module and type from the same context.
        Value(unsafe { LLVMAddFunction(self.0, n.as_ptr(), ty.0) })
    }
    pub fn add_global(self, ty: Type, name: &str) -> Value {
        let n = cstr(name);
        // SAFETY: live module and type from the same context.
        Value(unsafe { LLVMAddGlobal(self.0, ty.0, n.as_ptr()) })
    }
    /// A global in address space `space` (3: the GPU's shared memory).
    pub fn add_global_in(self, ty: Type, name: &str, space: u32) -> Value {
        let n = cstr(name);
        // SAFETY: live module and type from the same context.
        Value(unsafe { LLVMAddGlobalInAddressSpace(self.0, ty.0, n.as_ptr(), space) })
    }
    pub fn triple(self) -> String {
        // SAFETY: returns a pointer into the module, valid while it lives.
        unsafe { CStr::from_ptr(LLVMGetTarget(self.0)) }.to_string_lossy().into_owned()
    }
    pub fn set_triple(self, t: &str) {
        let t = cstr(t);
        // SAFETY: live module; LLVM copies the string.
        unsafe { LLVMSetTarget(self.0, t.as_ptr()) }
    }
    pub fn data_layout(self) -> String {
        // SAFETY: live module; LLVM returns a string it owns, copied here.
        unsafe { CStr::from_ptr(LLVMGetDataLayoutStr(self.0)).to_string_lossy().into_owned() }
    }
    pub fn set_data_layout(self, dl: &str) {
        let d = cstr(dl);
        // SAFETY: live module; LLVM copies the string.
        unsafe { LLVMSetDataLayout(self.0, d.as_ptr()) }
    }
    /// A deep copy in the same context (owned by the caller; see `dispose`).
    pub fn clone_module(self) -> Module {
        // SAFETY: live module; the clone is a new, independent module.
        Module(unsafe { LLVMCloneModule(self.0) })
    }
    /// Frees a module this compiler created (never one owned by opt/clang).
    pub fn dispose(self) {
        // SAFETY: only called on modules created by `clone_module`/`parse_ir`, once.
        unsafe { LLVMDisposeModule(self.0) }
    }
    /// The module as bitcode, to carry it into another context.
    pub fn to_bitcode(self) -> Vec<u8> {
        // SAFETY: live module; the buffer's bytes are copied out and the buffer freed.
        unsafe {
            let buf = llvm_sys::bit_writer::LLVMWriteBitcodeToMemoryBuffer(self.0);
            let start = LLVMGetBufferStart(buf) as *const u8;
            let bytes = std::slice::from_raw_parts(start, LLVMGetBufferSize(buf)).to_vec();
            LLVMDisposeMemoryBuffer(buf);
            bytes
        }
    }
    pub fn print_to_string(self) -> String {
        // SAFETY: live module; the message is freed by take_message.
        take_message(unsafe { LLVMPrintModuleToString(self.0) })
    }
    /// Runs the LLVM verifier; returns its message on failure.
    pub fn verify(self) -> Result<(), String> {
        let mut msg = std::ptr::null_mut();
        // SAFETY: live module; the out-message is freed by take_message.
        let bad = unsafe {
            llvm_sys::analysis::LLVMVerifyModule(
                self.0,
                llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
                &mut msg,
            )
        };
        let text = take_message(msg);
        if bad != 0 {
            Err(text)
        } else {
            Ok(())
        }
    }
    /// Links `other` into `self`; `other` is consumed.
    pub fn link(self, other: Module) -> Result<(), String> {
        // SAFETY: both modules live in the same context; LLVMLinkModules2 takes ownership of `other`.
        let failed = unsafe { llvm_sys::linker::LLVMLinkModules2(self.0, other.0) };
        if failed != 0 {
            Err("module linking failed".into())
        } else {
            Ok(())
        }
    }
    /// Runs a textual new-PM pipeline (e.g. `"sroa,instcombine"`) on the module.
    pub fn run_passes(self, pipeline: &str, tm: Option<llvm_sys::target_machine::LLVMTargetMachineRef>) -> Result<(), String> {
        let p = cstr(pipeline);
        // SAFETY: live module; the options object is created and disposed in run_pipeline.
        run_pipeline(|opts| unsafe { llvm_sys::transforms::pass_builder::LLVMRunPasses(self.0, p.as_ptr(), tm.unwrap_or(std::ptr::null_mut()), opts) })
    }
    pub fn add_module_flag_i32(self, key: &str, val: u32) {
        let ctx = self.context();
        let v = ctx.i32().const_int(val as u64);
        // SAFETY: live module; metadata created in its context.
        unsafe {
            let md = LLVMValueAsMetadata(v.0);
            LLVMAddModuleFlag(
                self.0,
                llvm_sys::LLVMModuleFlagBehavior::LLVMModuleFlagBehaviorOverride,
                key.as_ptr() as *const _,
                key.len(),
                md,
            );
        }
    }
}

impl Context {
    /// Whether names given to new values are dropped (clang's default outside `-fno-discard-
    /// value-names`); the pass names the blocks and slots it creates and finds them by name.
    pub fn set_discard_value_names(self, discard: bool) {
        // SAFETY: live context; a flag read when values are named.
        unsafe { LLVMContextSetDiscardValueNames(self.0, discard as i32) }
    }
    pub fn void(self) -> Type {
        // SAFETY: live context.
        Type(unsafe { LLVMVoidTypeInContext(self.0) })
    }
    pub fn int(self, bits: u32) -> Type {
        // SAFETY: live context.
        Type(unsafe { LLVMIntTypeInContext(self.0, bits) })
    }
    pub fn i1(self) -> Type {
        self.int(1)
    }
    pub fn i8(self) -> Type {
        self.int(8)
    }
    pub fn i32(self) -> Type {
        self.int(32)
    }
    pub fn i64(self) -> Type {
        self.int(64)
    }
    pub fn ptr(self) -> Type {
        // SAFETY: live context.
        Type(unsafe { LLVMPointerTypeInContext(self.0, 0) })
    }
    pub fn fn_type(self, ret: Type, params: &[Type], vararg: bool) -> Type {
        let mut ps: Vec<LLVMTypeRef> = params.iter().map(|t| t.0).collect();
        // SAFETY: all types come from this context.
        Type(unsafe { LLVMFunctionType(ret.0, ps.as_mut_ptr(), ps.len() as u32, vararg as i32) })
    }
    pub fn struct_type(self, fields: &[Type]) -> Type {
        let mut fs: Vec<LLVMTypeRef> = fields.iter().map(|t| t.0).collect();
        // SAFETY: all types come from this context.
        Type(unsafe { LLVMStructTypeInContext(self.0, fs.as_mut_ptr(), fs.len() as u32, 0) })
    }
    pub fn array_type(self, elem: Type, n: u64) -> Type {
        // SAFETY: element type from this context.
        Type(unsafe { LLVMArrayType2(elem.0, n) })
    }
    pub fn const_bytes(self, bytes: &[u8]) -> Value {
        // SAFETY: LLVM copies the bytes; no NUL is appended (DontNullTerminate = 1).
        Value(unsafe { LLVMConstStringInContext2(self.0, bytes.as_ptr() as *const _, bytes.len(), 1) })
    }
    pub fn const_struct(self, vals: &[Value]) -> Value {
        let mut vs: Vec<LLVMValueRef> = vals.iter().map(|v| v.0).collect();
        // SAFETY: constants from this context.
        Value(unsafe { LLVMConstStructInContext(self.0, vs.as_mut_ptr(), vs.len() as u32, 0) })
    }
    pub fn builder(self) -> Builder {
        // SAFETY: live context; the builder is disposed in Drop.
        Builder(unsafe { LLVMCreateBuilderInContext(self.0) })
    }
    pub fn append_block(self, f: Value, name: &str) -> Block {
        let n = cstr(name);
        // SAFETY: f is a live function of this context.
        Block(unsafe { LLVMAppendBasicBlockInContext(self.0, f.0, n.as_ptr()) })
    }
    /// Parses textual IR into a new module of this context.
    pub fn parse_ir(self, text: &str, name: &str) -> Result<Module, String> {
        let n = cstr(name);
        let mut m = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        // SAFETY: the memory buffer copies `text`; LLVMParseIRInContext2 does not take
        // ownership of it, so it is disposed here after parsing.
        unsafe {
            let buf = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                text.as_ptr() as *const _,
                text.len(),
                n.as_ptr(),
            );
            let bad = llvm_sys::ir_reader::LLVMParseIRInContext2(self.0, buf, &mut m, &mut msg);
            llvm_sys::core::LLVMDisposeMemoryBuffer(buf);
            if bad != 0 {
                return Err(take_message(msg));
            }
        }
        Ok(Module(m))
    }
    /// Reads a bitcode file into a new module of this context.
    pub fn read_bitcode(self, path: &std::path::Path) -> Result<Module, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.parse_bitcode(&bytes, &path.display().to_string())
    }
    /// Parses bitcode (`Module::to_bitcode`) into a new module of this context.
    pub fn parse_bitcode(self, bytes: &[u8], name: &str) -> Result<Module, String> {
        let n = cstr(name);
        let mut m = std::ptr::null_mut();
        // SAFETY: the buffer copies the bytes; LLVMParseBitcodeInContext2 does not take ownership,
        // so it is disposed here after parsing (the module keeps no reference to it).
        unsafe {
            let buf = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                bytes.as_ptr() as *const _,
                bytes.len(),
                n.as_ptr(),
            );
            let bad = llvm_sys::bit_reader::LLVMParseBitcodeInContext2(self.0, buf, &mut m);
            llvm_sys::core::LLVMDisposeMemoryBuffer(buf);
            if bad != 0 {
                return Err(format!("{name}: not a valid bitcode file"));
            }
        }
        Ok(Module(m))
    }
}

/// A context of our own, for work on another thread than the one that owns the host
/// module's context (an LLVM context and everything in it is used by one thread at a
/// time). Disposed, with every module still in it, on drop.
pub struct OwnedContext(Context);

impl OwnedContext {
    pub fn new() -> OwnedContext {
        // SAFETY: creates a fresh context owned by the returned value.
        OwnedContext(Context(unsafe { LLVMContextCreate() }))
    }
    pub fn context(&self) -> Context {
        self.0
    }
}

impl Default for OwnedContext {
    fn default() -> Self {
        OwnedContext::new()
    }
}

impl Drop for OwnedContext {
    fn drop(&mut self) {
        // SAFETY: created in `new`, disposed once; handles into it end with the owner.
        unsafe { LLVMContextDispose(self.0 .0) }
    }
}

// ---------------------------------------------------------------- Types
impl Type {
    pub fn kind(self) -> LLVMTypeKind {
        // SAFETY: live type.
        unsafe { LLVMGetTypeKind(self.0) }
    }
    pub fn is_void(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMVoidTypeKind
    }
    pub fn is_int(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMIntegerTypeKind
    }
    pub fn is_ptr(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMPointerTypeKind
    }
    pub fn is_float(self) -> bool {
        matches!(
            self.kind(),
            LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind | LLVMTypeKind::LLVMHalfTypeKind
        )
    }
    /// A scalar in OpenACC's sense: an integer, floating-point or pointer value.
    pub fn is_scalar(self) -> bool {
        self.is_int() || self.is_ptr() || self.is_float()
    }
    /// The address space of a pointer type (0 for any other type).
    pub fn address_space(self) -> u32 {
        if !self.is_ptr() {
            return 0;
        }
        // SAFETY: live pointer type.
        unsafe { LLVMGetPointerAddressSpace(self.0) }
    }
    pub fn int_width(self) -> u32 {
        // SAFETY: called only on integer types.
        unsafe { LLVMGetIntTypeWidth(self.0) }
    }
    pub fn const_int(self, v: u64) -> Value {
        // SAFETY: integer type.
        Value(unsafe { LLVMConstInt(self.0, v, 0) })
    }
    pub fn undef(self) -> Value {
        // SAFETY: live type.
        Value(unsafe { LLVMGetUndef(self.0) })
    }
    pub fn const_null(self) -> Value {
        // SAFETY: any first-class type.
        Value(unsafe { LLVMConstNull(self.0) })
    }
    /// Size in bytes under the module's data layout.
    pub fn store_size(self, m: Module) -> u64 {
        // SAFETY: live module and type; the layout object is borrowed from the module.
        unsafe {
            let dl = llvm_sys::target::LLVMGetModuleDataLayout(m.0);
            llvm_sys::target::LLVMABISizeOfType(dl, self.0)
        }
    }
    pub fn to_string(self) -> String {
        // SAFETY: live type; message freed by take_message.
        take_message(unsafe { LLVMPrintTypeToString(self.0) })
    }
    /// The types this type is built from: struct fields, array/vector elements, function
    /// return and parameter types (empty for scalars).
    pub fn contained_types(self) -> Vec<Type> {
        // SAFETY: live type; each query matches the type's kind and buffers are sized by the
        // matching count.
        unsafe {
            match self.kind() {
                LLVMTypeKind::LLVMStructTypeKind => {
                    let n = LLVMCountStructElementTypes(self.0) as usize;
                    let mut v = vec![std::ptr::null_mut(); n];
                    LLVMGetStructElementTypes(self.0, v.as_mut_ptr());
                    v.into_iter().map(Type).collect()
                }
                LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => vec![Type(LLVMGetElementType(self.0))],
                LLVMTypeKind::LLVMFunctionTypeKind => {
                    let n = LLVMCountParamTypes(self.0) as usize;
                    let mut v = vec![std::ptr::null_mut(); n];
                    LLVMGetParamTypes(self.0, v.as_mut_ptr());
                    std::iter::once(Type(LLVMGetReturnType(self.0))).chain(v.into_iter().map(Type)).collect()
                }
                _ => Vec::new(),
            }
        }
    }
}

// ---------------------------------------------------------------- Values
impl Value {
    pub fn is_null(self) -> bool {
        self.0.is_null()
    }
    pub fn name(self) -> String {
        let mut len = 0;
        // SAFETY: live value; pointer valid with `len` bytes.
        unsafe {
            let p = LLVMGetValueName2(self.0, &mut len);
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
        }
    }
    pub fn set_name(self, name: &str) {
        // SAFETY: live value; LLVM copies the name.
        unsafe { LLVMSetValueName2(self.0, name.as_ptr() as *const _, name.len()) }
    }
    pub fn ty(self) -> Type {
        // SAFETY: live value.
        Type(unsafe { LLVMTypeOf(self.0) })
    }
    pub fn to_string(self) -> String {
        // SAFETY: live value; message freed by take_message.
        take_message(unsafe { LLVMPrintValueToString(self.0) })
    }
    pub fn is_instruction(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAInstruction(self.0).is_null() }
    }
    pub fn is_argument(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAArgument(self.0).is_null() }
    }
    pub fn is_const_expr(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAConstantExpr(self.0).is_null() }
    }
    pub fn is_global_variable(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAGlobalVariable(self.0).is_null() }
    }
    pub fn is_alloca(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAAllocaInst(self.0).is_null() }
    }
    pub fn is_phi(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAPHINode(self.0).is_null() }
    }
    pub fn is_call(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsACallInst(self.0).is_null() }
    }
    pub fn is_const_int(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAConstantInt(self.0).is_null() }
    }
    pub fn const_int_value(self) -> Option<i64> {
        // SAFETY: checked to be a ConstantInt first.
        self.is_const_int().then(|| unsafe { LLVMConstIntGetSExtValue(self.0) })
    }
    /// The bytes of a constant string global (`@.str = constant [N x i8] c"...\00"`),
    /// without the trailing NUL.
    pub fn const_string(self) -> Option<String> {
        // SAFETY: each step checks the kind of value before using kind-specific accessors.
        unsafe {
            let g = LLVMIsAGlobalVariable(self.0);
            if g.is_null() {
                return None;
            }
            let init = LLVMGetInitializer(g);
            if init.is_null() || LLVMIsAConstantDataSequential(init).is_null() || LLVMIsConstantString(init) == 0 {
                return None;
            }
            let mut len = 0;
            let p = LLVMGetAsString(init, &mut len);
            let bytes = std::slice::from_raw_parts(p as *const u8, len);
            let bytes = bytes.split(|b| *b == 0).next().unwrap_or(bytes);
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
    }
    pub fn opcode(self) -> Option<LLVMOpcode> {
        // SAFETY: checked instruction/constexpr before reading the opcode.
        unsafe {
            if self.is_instruction() {
                Some(LLVMGetInstructionOpcode(self.0))
            } else if self.is_const_expr() {
                Some(LLVMGetConstOpcode(self.0))
            } else {
                None
            }
        }
    }
    pub fn num_operands(self) -> u32 {
        // SAFETY: live user value.
        unsafe { LLVMGetNumOperands(self.0).max(0) as u32 }
    }
    pub fn operand(self, i: u32) -> Value {
        // SAFETY: i < num_operands by the callers' loops.
        Value(unsafe { LLVMGetOperand(self.0, i) })
    }
    pub fn operands(self) -> Vec<Value> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }
    pub fn set_operand(self, i: u32, v: Value) {
        // SAFETY: i < num_operands; types are checked by the verifier in tests.
        unsafe { LLVMSetOperand(self.0, i, v.0) }
    }
    /// All users of this value (one entry per use).
    pub fn users(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the use list of a live value without modifying it.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                out.push(Value(LLVMGetUser(u)));
                u = LLVMGetNextUse(u);
            }
        }
        out
    }
    pub fn replace_all_uses_with(self, new: Value) {
        // SAFETY: both live, same type (callers guarantee).
        unsafe { LLVMReplaceAllUsesWith(self.0, new.0) }
    }
    /// Replaces the uses of `self` whose user instruction satisfies `pred`.
    pub fn replace_uses_where(self, new: Value, pred: impl Fn(Value) -> bool) {
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
    pub fn erase(self) {
        // SAFETY: instruction with no remaining uses (callers ensure), erased once.
        unsafe { LLVMInstructionEraseFromParent(self.0) }
    }
    pub fn erase_function(self) {
        // SAFETY: function with no remaining uses, erased once.
        unsafe { LLVMDeleteFunction(self.0) }
    }
    pub fn erase_global(self) {
        // SAFETY: global with no remaining uses, erased once.
        unsafe { LLVMDeleteGlobal(self.0) }
    }
    pub fn parent_block(self) -> Block {
        // SAFETY: instruction.
        Block(unsafe { LLVMGetInstructionParent(self.0) })
    }
    pub fn parent_module(self) -> Module {
        // SAFETY: global value (function or variable).
        Module(unsafe { LLVMGetGlobalParent(self.0) })
    }
    pub fn parent_function(self) -> Value {
        self.parent_block().parent()
    }
    pub fn next_instruction(self) -> Option<Value> {
        // SAFETY: instruction.
        let n = unsafe { LLVMGetNextInstruction(self.0) };
        (!n.is_null()).then_some(Value(n))
    }
    pub fn prev_instruction(self) -> Option<Value> {
        // SAFETY: instruction.
        let n = unsafe { LLVMGetPreviousInstruction(self.0) };
        (!n.is_null()).then_some(Value(n))
    }
    /// For a call: the called function (None for indirect calls and for anything that is
    /// not a call).
    pub fn called_function(self) -> Option<Value> {
        if !self.is_call() {
            return None;
        }
        // SAFETY: call instruction.
        let f = unsafe { LLVMGetCalledValue(self.0) };
        // SAFETY: f is a live value.
        (!f.is_null() && unsafe { !LLVMIsAFunction(f).is_null() }).then_some(Value(f))
    }
    pub fn called_name(self) -> Option<String> {
        self.called_function().map(|f| f.name())
    }
    pub fn call_arg(self, i: u32) -> Value {
        self.operand(i)
    }
    pub fn call_arg_count(self) -> u32 {
        // SAFETY: call instruction.
        unsafe { LLVMGetNumArgOperands(self.0) }
    }
    pub fn allocated_type(self) -> Type {
        // SAFETY: alloca.
        Type(unsafe { LLVMGetAllocatedType(self.0) })
    }
    pub fn global_value_type(self) -> Type {
        // SAFETY: global value.
        Type(unsafe { LLVMGlobalGetValueType(self.0) })
    }
    pub fn is_global_constant(self) -> bool {
        // SAFETY: global variable.
        unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }
    pub fn has_initializer(self) -> bool {
        // SAFETY: global variable.
        unsafe { !LLVMGetInitializer(self.0).is_null() }
    }
    /// A global variable's initializer (None for a declaration).
    pub fn initializer(self) -> Option<Value> {
        // SAFETY: global variable.
        let v = unsafe { LLVMGetInitializer(self.0) };
        (!v.is_null()).then_some(Value(v))
    }
    pub fn set_initializer(self, v: Value) {
        // SAFETY: global variable and a constant of its value type.
        unsafe { LLVMSetInitializer(self.0, v.0) }
    }
    pub fn set_global_constant(self, c: bool) {
        // SAFETY: global variable.
        unsafe { LLVMSetGlobalConstant(self.0, c as i32) }
    }
    pub fn linkage(self) -> LLVMLinkage {
        // SAFETY: global value.
        unsafe { LLVMGetLinkage(self.0) }
    }
    pub fn set_linkage(self, l: LLVMLinkage) {
        // SAFETY: global value.
        unsafe { LLVMSetLinkage(self.0, l) }
    }
    pub fn set_unnamed_addr(self) {
        // SAFETY: global value.
        unsafe { LLVMSetUnnamedAddress(self.0, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr) }
    }
    pub fn alignment(self) -> u32 {
        // SAFETY: global, alloca or memory instruction.
        unsafe { LLVMGetAlignment(self.0) }
    }
    pub fn set_alignment(self, a: u32) {
        // SAFETY: global or memory instruction.
        unsafe { LLVMSetAlignment(self.0, a) }
    }
    pub fn is_thread_local(self) -> bool {
        // SAFETY: global variable.
        unsafe { LLVMIsThreadLocal(self.0) != 0 }
    }
    /// An instruction's debug location (file, line, column), when it has one (`-g`).
    pub fn debug_loc(self) -> Option<(String, u32, u32)> {
        // SAFETY: live instruction; the file name is borrowed from its metadata and copied.
        unsafe {
            if llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(self.0).is_null() {
                return None;
            }
            let mut len = 0;
            let p = LLVMGetDebugLocFilename(self.0, &mut len);
            let file = if p.is_null() { String::new() } else { String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned() };
            let line = LLVMGetDebugLocLine(self.0);
            (line != 0).then(|| (file, line, LLVMGetDebugLocColumn(self.0)))
        }
    }
    pub fn is_declaration(self) -> bool {
        // SAFETY: global value.
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }
    pub fn function_type(self) -> Type {
        self.global_value_type()
    }
    pub fn params(self) -> Vec<Value> {
        // SAFETY: function; buffer sized by LLVMCountParams.
        unsafe {
            let n = LLVMCountParams(self.0) as usize;
            let mut v = vec![std::ptr::null_mut(); n];
            LLVMGetParams(self.0, v.as_mut_ptr());
            v.into_iter().map(Value).collect()
        }
    }
    pub fn blocks(self) -> Vec<Block> {
        let mut out = Vec::new();
        // SAFETY: iterating a live function's blocks without mutating.
        unsafe {
            let mut b = LLVMGetFirstBasicBlock(self.0);
            while !b.is_null() {
                out.push(Block(b));
                b = LLVMGetNextBasicBlock(b);
            }
        }
        out
    }
    pub fn entry_block(self) -> Block {
        // SAFETY: function with a body.
        Block(unsafe { LLVMGetEntryBasicBlock(self.0) })
    }
    /// Runs a textual new-PM function pipeline (e.g. `"sroa,instsimplify"`) on this function
    /// only: the cost does not grow with the rest of the module.
    pub fn run_function_passes(self, pipeline: &str) -> Result<(), String> {
        let p = cstr(pipeline);
        // SAFETY: live function definition; the options object is created and disposed in
        // run_pipeline.
        run_pipeline(|opts| unsafe { llvm_sys::transforms::pass_builder::LLVMRunPassesOnFunction(self.0, p.as_ptr(), std::ptr::null_mut(), opts) })
    }
    pub fn set_call_conv(self, cc: u32) {
        // SAFETY: function.
        unsafe { LLVMSetFunctionCallConv(self.0, cc) }
    }
    /// Removes a string function attribute such as "target-cpu".
    pub fn remove_fn_string_attr(self, key: &str) {
        // SAFETY: function; index -1 (u32::MAX) is the function attribute list.
        unsafe {
            LLVMRemoveStringAttributeAtIndex(self.0, u32::MAX, key.as_ptr() as *const _, key.len() as u32)
        }
    }
    pub fn remove_fn_enum_attr(self, name: &str) {
        // SAFETY: function; unknown kinds are ignored by looking up the id first.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind != 0 {
                LLVMRemoveEnumAttributeAtIndex(self.0, u32::MAX, kind);
            }
        }
    }
    pub fn add_fn_enum_attr(self, name: &str) {
        // SAFETY: function; attribute from the function's context.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            let c = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let a = LLVMCreateEnumAttribute(c, kind, 0);
            LLVMAddAttributeAtIndex(self.0, u32::MAX, a);
        }
    }
    pub fn add_incoming(self, v: Value, b: Block) {
        let mut vs = [v.0];
        let mut bs = [b.0];
        // SAFETY: phi node; value type matches the phi.
        unsafe { LLVMAddIncoming(self.0, vs.as_mut_ptr(), bs.as_mut_ptr(), 1) }
    }
    pub fn incoming(self) -> Vec<(Value, Block)> {
        // SAFETY: phi node; indices below LLVMCountIncoming.
        unsafe {
            (0..LLVMCountIncoming(self.0))
                .map(|i| (Value(LLVMGetIncomingValue(self.0, i)), Block(LLVMGetIncomingBlock(self.0, i))))
                .collect()
        }
    }
    pub fn icmp_predicate(self) -> LLVMIntPredicate {
        // SAFETY: icmp instruction.
        unsafe { LLVMGetICmpPredicate(self.0) }
    }
    pub fn successors(self) -> Vec<Block> {
        // SAFETY: terminator instruction.
        unsafe { (0..LLVMGetNumSuccessors(self.0)).map(|i| Block(LLVMGetSuccessor(self.0, i))).collect() }
    }
    pub fn set_successor(self, i: u32, b: Block) {
        // SAFETY: terminator instruction, i < successors.
        unsafe { LLVMSetSuccessor(self.0, i, b.0) }
    }
    /// The case values of a `switch`, in successor order (successor `k + 1` is case `k`;
    /// successor 0 is the default). `None` for a case that is not a plain integer constant.
    pub fn switch_case_values(self) -> Vec<Option<i64>> {
        let n = self.successors().len() as u32;
        // SAFETY: `self` is a switch (callers check the opcode); 0 < i < its successor count.
        (1..n).map(|i| Value(unsafe { LLVMGetSwitchCaseValue(self.0, i) }).const_int_value()).collect()
    }
    pub fn is_conditional_branch(self) -> bool {
        // SAFETY: live instruction checked to be a branch first.
        unsafe { !LLVMIsABranchInst(self.0).is_null() && LLVMIsConditional(self.0) != 0 }
    }
    pub fn branch_condition(self) -> Value {
        // SAFETY: conditional branch.
        Value(unsafe { LLVMGetCondition(self.0) })
    }
    pub fn set_branch_condition(self, c: Value) {
        // SAFETY: conditional branch, i1 condition.
        unsafe { LLVMSetCondition(self.0, c.0) }
    }
    pub fn gep_source_type(self) -> Type {
        // SAFETY: GEP instruction or constant expression.
        Type(unsafe { LLVMGetGEPSourceElementType(self.0) })
    }
    pub fn is_in_bounds(self) -> bool {
        // SAFETY: GEP.
        unsafe { LLVMIsInBounds(self.0) != 0 }
    }
}

// ---------------------------------------------------------------- Blocks
impl Block {
    pub fn parent(self) -> Value {
        // SAFETY: live block inside a function.
        Value(unsafe { LLVMGetBasicBlockParent(self.0) })
    }
    pub fn name(self) -> String {
        // SAFETY: live block.
        unsafe { CStr::from_ptr(LLVMGetBasicBlockName(self.0)) }.to_string_lossy().into_owned()
    }
    pub fn instructions(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: iterating without mutation.
        unsafe {
            let mut i = LLVMGetFirstInstruction(self.0);
            while !i.is_null() {
                out.push(Value(i));
                i = LLVMGetNextInstruction(i);
            }
        }
        out
    }
    pub fn first_instruction(self) -> Option<Value> {
        // SAFETY: live block.
        let i = unsafe { LLVMGetFirstInstruction(self.0) };
        (!i.is_null()).then_some(Value(i))
    }
    pub fn terminator(self) -> Option<Value> {
        // SAFETY: live block.
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Value(t))
    }
    pub fn successors(self) -> Vec<Block> {
        self.terminator().map(|t| t.successors()).unwrap_or_default()
    }
    pub fn first_non_phi(self) -> Option<Value> {
        self.instructions().into_iter().find(|i| !i.is_phi())
    }
    /// Moves this block (from any function) to just after `after`.
    pub fn move_after(self, after: Block) {
        // SAFETY: both live; BasicBlock::moveAfter supports moving across functions.
        unsafe { LLVMMoveBasicBlockAfter(self.0, after.0) }
    }
    pub fn erase(self) {
        // SAFETY: block without remaining predecessors or uses.
        unsafe { LLVMDeleteBasicBlock(self.0) }
    }
    /// Splits before `at`: instructions from `at` on move to a new block that follows; this
    /// block ends with `br new`. Phis in successors are updated to name the new block.
    pub fn split_before(self, ctx: Context, at: Value, name: &str) -> Block {
        let f = self.parent();
        let new = ctx.append_block(f, name);
        new.move_after(self);
        let to_move: Vec<Value> = {
            let mut v = Vec::new();
            let mut cur = Some(at);
            while let Some(i) = cur {
                v.push(i);
                cur = i.next_instruction();
            }
            v
        };
        let b = ctx.builder();
        for i in &to_move {
            b.position_at_end(new);
            // SAFETY: the instruction is removed and re-inserted at the end of `new`, keeping
            // its identity and uses.
            unsafe {
                LLVMInstructionRemoveFromParent(i.0);
                LLVMInsertIntoBuilder(b.0, i.0);
            }
        }
        // Successor phis that named `self` now come from `new`.
        for succ in new.successors() {
            for phi in succ.instructions().into_iter().take_while(|i| i.is_phi()) {
                rewrite_phi_edges(phi, |blk| Some(if blk == self { new } else { blk }));
            }
        }
        b.position_at_end(self);
        b.br(new);
        new
    }
}

/// Runs `run` with fresh pass-builder options and turns its error into a message.
fn run_pipeline(run: impl FnOnce(llvm_sys::transforms::pass_builder::LLVMPassBuilderOptionsRef) -> llvm_sys::error::LLVMErrorRef) -> Result<(), String> {
    // SAFETY: the options object lives until after `run` returns; an error object returned
    // by LLVM is read once and disposed.
    unsafe {
        let opts = llvm_sys::transforms::pass_builder::LLVMCreatePassBuilderOptions();
        let err = run(opts);
        llvm_sys::transforms::pass_builder::LLVMDisposePassBuilderOptions(opts);
        if err.is_null() {
            Ok(())
        } else {
            let m = llvm_sys::error::LLVMGetErrorMessage(err);
            let s = CStr::from_ptr(m).to_string_lossy().into_owned();
            llvm_sys::error::LLVMDisposeErrorMessage(m);
            Err(s)
        }
    }
}

/// Rewrites the incoming edges of `phi`: `edge(b)` is the block that an edge from `b` comes
/// from now, or None to drop the edge. Returns the phi, which is a new one when its edges
/// changed: PHINode's setIncomingBlock and removeIncomingValue have no C API, so the phi is
/// rebuilt in place (same position, type and name).
pub fn rewrite_phi_edges(phi: Value, edge: impl Fn(Block) -> Option<Block>) -> Value {
    let old = phi.incoming();
    let new: Vec<(Value, Block)> = old.iter().filter_map(|&(v, b)| Some((v, edge(b)?))).collect();
    if new == old {
        return phi;
    }
    let ty = phi.ty();
    // SAFETY: the builder is positioned before the old phi; the old phi is replaced by the new
    // one (same type, incoming values of its type) and erased once.
    unsafe {
        let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(ty.0));
        LLVMPositionBuilderBefore(b, phi.0);
        let newphi = LLVMBuildPhi(b, ty.0, c"".as_ptr());
        for (v, blk) in &new {
            let mut vs = [v.0];
            let mut bs = [blk.0];
            LLVMAddIncoming(newphi, vs.as_mut_ptr(), bs.as_mut_ptr(), 1);
        }
        let name = phi.name();
        LLVMReplaceAllUsesWith(phi.0, newphi);
        LLVMInstructionEraseFromParent(phi.0);
        Value(newphi).set_name(&name);
        LLVMDisposeBuilder(b);
        Value(newphi)
    }
}

// ---------------------------------------------------------------- Debug info
// The C API reads debug records but cannot retarget or erase them; these two fix-ups are
// C++ (debuginfo.cpp, compiled by build.rs) and are called only from here.
extern "C" {
    fn accc_di_fixup_outlined(old: LLVMValueRef, new: LLVMValueRef, line: u32, from: *const LLVMValueRef, to: *const LLVMValueRef, n: u32);
    fn accc_di_line_directives_only(m: LLVMModuleRef);
}

/// Gives `new` (blocks outlined from `old`) debug info of its own: a distinct subprogram at
/// `line`, its locations and variables moved into it, records that named a value in
/// `replaced` re-pointed at its replacement, the rest of the host's metadata dropped.
pub fn fixup_outlined_debug_info(old: Value, new: Value, line: u32, replaced: &[(Value, Value)]) {
    let from: Vec<LLVMValueRef> = replaced.iter().map(|(f, _)| f.0).collect();
    let to: Vec<LLVMValueRef> = replaced.iter().map(|(_, t)| t.0).collect();
    // SAFETY: both functions are live definitions in the same module; the arrays hold
    // `replaced.len()` live values each and outlive the call, which does not keep them.
    unsafe { accc_di_fixup_outlined(old.0, new.0, line, from.as_ptr(), to.as_ptr(), replaced.len() as u32) }
}

impl Module {
    /// Whether the module carries debug info (a compile unit in `llvm.dbg.cu`).
    pub fn has_debug_info(self) -> bool {
        // SAFETY: live module; the name is NUL-terminated and only read.
        unsafe { LLVMGetNamedMetadataNumOperands(self.0, c"llvm.dbg.cu".as_ptr()) > 0 }
    }
    /// Reduces the module's debug info to line directives (`-gline-directives-only`).
    pub fn debug_info_to_line_directives(self) {
        // SAFETY: live module owned by the caller, not being iterated.
        unsafe { accc_di_line_directives_only(self.0) }
    }
}

impl Builder {
    /// Gives what the builder creates from now on the debug location of `i` (none if it
    /// has none): calls to functions with debug info must carry one.
    pub fn set_debug_loc_of(&self, i: Value) {
        // SAFETY: live instruction; a null location clears the builder's.
        unsafe { LLVMSetCurrentDebugLocation2(self.0, llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(i.0)) }
    }
}

// ---------------------------------------------------------------- Builder
pub struct Builder(LLVMBuilderRef);

impl Drop for Builder {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateBuilderInContext, disposed once.
        unsafe { LLVMDisposeBuilder(self.0) }
    }
}

macro_rules! binop {
    ($name:ident, $llvm:ident) => {
        pub fn $name(&self, a: Value, b: Value) -> Value {
            // SAFETY: builder positioned in a live block; operands of the same type.
            Value(unsafe { $llvm(self.0, a.0, b.0, c"".as_ptr()) })
        }
    };
}

impl Builder {
    pub fn position_at_end(&self, b: Block) {
        // SAFETY: live block.
        unsafe { LLVMPositionBuilderAtEnd(self.0, b.0) }
    }
    pub fn position_before(&self, i: Value) {
        // SAFETY: live instruction.
        unsafe { LLVMPositionBuilderBefore(self.0, i.0) }
    }
    binop!(add, LLVMBuildAdd);
    binop!(sub, LLVMBuildSub);
    binop!(mul, LLVMBuildMul);
    binop!(sdiv, LLVMBuildSDiv);
    binop!(udiv, LLVMBuildUDiv);
    binop!(srem, LLVMBuildSRem);
    binop!(urem, LLVMBuildURem);
    binop!(and, LLVMBuildAnd);
    binop!(or, LLVMBuildOr);
    pub fn icmp(&self, p: LLVMIntPredicate, a: Value, b: Value) -> Value {
        // SAFETY: integer/pointer operands of the same type.
        Value(unsafe { LLVMBuildICmp(self.0, p, a.0, b.0, c"".as_ptr()) })
    }
    pub fn select(&self, c: Value, a: Value, b: Value) -> Value {
        // SAFETY: i1 condition, same-typed arms.
        Value(unsafe { LLVMBuildSelect(self.0, c.0, a.0, b.0, c"".as_ptr()) })
    }
    pub fn sext_or_trunc(&self, v: Value, to: Type) -> Value {
        let (from, tow) = (v.ty().int_width(), to.int_width());
        // SAFETY: integer operands.
        unsafe {
            if from == tow {
                v
            } else if from < tow {
                Value(LLVMBuildSExt(self.0, v.0, to.0, c"".as_ptr()))
            } else {
                Value(LLVMBuildTrunc(self.0, v.0, to.0, c"".as_ptr()))
            }
        }
    }
    pub fn zext_or_trunc(&self, v: Value, to: Type) -> Value {
        let (from, tow) = (v.ty().int_width(), to.int_width());
        // SAFETY: integer operands.
        unsafe {
            if from == tow {
                v
            } else if from < tow {
                Value(LLVMBuildZExt(self.0, v.0, to.0, c"".as_ptr()))
            } else {
                Value(LLVMBuildTrunc(self.0, v.0, to.0, c"".as_ptr()))
            }
        }
    }
    pub fn call(&self, f: Value, args: &[Value], name: &str) -> Value {
        let mut a: Vec<LLVMValueRef> = args.iter().map(|v| v.0).collect();
        let n = cstr(name);
        // SAFETY: f is a function; arguments match its type (callers build them so).
        unsafe {
            let ty = LLVMGlobalGetValueType(f.0);
            Value(LLVMBuildCall2(self.0, ty, f.0, a.as_mut_ptr(), a.len() as u32, n.as_ptr()))
        }
    }
    pub fn br(&self, b: Block) -> Value {
        // SAFETY: builder at the end of a block without terminator.
        Value(unsafe { LLVMBuildBr(self.0, b.0) })
    }
    pub fn cond_br(&self, c: Value, t: Block, e: Block) -> Value {
        // SAFETY: i1 condition.
        Value(unsafe { LLVMBuildCondBr(self.0, c.0, t.0, e.0) })
    }
    pub fn unreachable(&self) -> Value {
        // SAFETY: builder at the end of a block without terminator.
        Value(unsafe { LLVMBuildUnreachable(self.0) })
    }
    pub fn ret_void(&self) -> Value {
        // SAFETY: inside a void function.
        Value(unsafe { LLVMBuildRetVoid(self.0) })
    }
    pub fn alloca(&self, ty: Type, name: &str) -> Value {
        let n = cstr(name);
        // SAFETY: builder inside a function.
        Value(unsafe { LLVMBuildAlloca(self.0, ty.0, n.as_ptr()) })
    }
    pub fn load(&self, ty: Type, p: Value, name: &str) -> Value {
        let n = cstr(name);
        // SAFETY: pointer operand.
        Value(unsafe { LLVMBuildLoad2(self.0, ty.0, p.0, n.as_ptr()) })
    }
    pub fn store(&self, v: Value, p: Value) -> Value {
        // SAFETY: pointer operand.
        Value(unsafe { LLVMBuildStore(self.0, v.0, p.0) })
    }
    pub fn gep_bytes(&self, ctx: Context, p: Value, offset: Value) -> Value {
        let mut idx = [offset.0];
        // SAFETY: i8 GEP over a pointer with an integer offset.
        Value(unsafe { LLVMBuildGEP2(self.0, ctx.i8().0, p.0, idx.as_mut_ptr(), 1, c"".as_ptr()) })
    }
    pub fn gep(&self, src: Type, p: Value, idx: &[Value], inbounds: bool) -> Value {
        let mut ix: Vec<LLVMValueRef> = idx.iter().map(|v| v.0).collect();
        // SAFETY: GEP with the given source element type.
        Value(unsafe {
            if inbounds {
                LLVMBuildInBoundsGEP2(self.0, src.0, p.0, ix.as_mut_ptr(), ix.len() as u32, c"".as_ptr())
            } else {
                LLVMBuildGEP2(self.0, src.0, p.0, ix.as_mut_ptr(), ix.len() as u32, c"".as_ptr())
            }
        })
    }
    pub fn cast(&self, op: LLVMOpcode, v: Value, to: Type) -> Value {
        // SAFETY: a valid cast opcode for the operand/target types (taken from existing IR).
        Value(unsafe { LLVMBuildCast(self.0, op, v.0, to.0, c"".as_ptr()) })
    }
    pub fn extract_value(&self, agg: Value, index: u32) -> Value {
        // SAFETY: aggregate operand with at least `index + 1` members.
        Value(unsafe { LLVMBuildExtractValue(self.0, agg.0, index, c"".as_ptr()) })
    }
    pub fn insert_value(&self, agg: Value, v: Value, index: u32) -> Value {
        // SAFETY: aggregate operand whose member `index` has `v`'s type.
        Value(unsafe { LLVMBuildInsertValue(self.0, agg.0, v.0, index, c"".as_ptr()) })
    }
    pub fn phi(&self, ty: Type, name: &str) -> Value {
        let n = cstr(name);
        // SAFETY: builder at the start of a block.
        Value(unsafe { LLVMBuildPhi(self.0, ty.0, n.as_ptr()) })
    }
    pub fn global_string(&self, s: &str, name: &str) -> Value {
        let v = cstr(s);
        let n = cstr(name);
        // SAFETY: builder positioned in a function of the target module.
        Value(unsafe { LLVMBuildGlobalString(self.0, v.as_ptr(), n.as_ptr()) })
    }
}

/// Clones an instruction (not inserted anywhere yet); insert with `insert_before`.
pub fn clone_instruction(i: Value) -> Value {
    // SAFETY: live instruction; the clone has no parent until inserted.
    Value(unsafe { LLVMInstructionClone(i.0) })
}

pub fn insert_before(new: Value, before: Value, ctx: Context) {
    let b = ctx.builder();
    b.position_before(before);
    // SAFETY: `new` has no parent (fresh clone).
    unsafe { LLVMInsertIntoBuilder(b.0, new.0) }
}

/// Converts a constant expression into an equivalent instruction inserted before `before`.
pub fn const_expr_as_instruction(ce: Value, before: Value) -> Value {
    // ConstantExpr::getAsInstruction has no C API, so the expression is rebuilt from its
    // opcode and operands.
    let b = {
        // SAFETY: context of the instruction's type.
        let c = Context(unsafe { LLVMGetTypeContext(LLVMTypeOf(before.0)) });
        c.builder()
    };
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
    // SAFETY: the builder is positioned; poison of the operand's first-class type.
    let placeholder = Value(unsafe { LLVMBuildFreeze(b.0, LLVMGetPoison(LLVMTypeOf(ops[0].0)), c"".as_ptr()) });
    use LLVMOpcode::*;
    let inst = match op {
        LLVMGetElementPtr => b.gep(ce.gep_source_type(), placeholder, &ops[1..], ce.is_in_bounds()),
        LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast => b.cast(op, placeholder, ce.ty()),
        // SAFETY: a binary opcode taken from the expression, operands of its types.
        _ if ops.len() == 2 => Value(unsafe { LLVMBuildBinOp(b.0, op, placeholder.0, ops[1].0, c"".as_ptr()) }),
        _ => {
            placeholder.erase();
            return ce;
        }
    };
    inst.set_operand(0, ops[0]);
    placeholder.erase();
    inst
}



#[cfg(test)]
mod tests {
    use super::*;

    const DIAMOND: &str = "define i32 @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %x = phi i32 [ 1, %a ], [ 2, %b ]
  ret i32 %x
}
";

    fn edges(phi: Value) -> Vec<(Option<i64>, String)> {
        phi.incoming().into_iter().map(|(v, b)| (v.const_int_value(), b.name())).collect()
    }

    #[test]
    fn phi_edges_are_retargeted_and_dropped() {
        let owned = OwnedContext::new();
        let m = owned.context().parse_ir(DIAMOND, "diamond.ll").expect("parses");
        let f = m.function("f").expect("f");
        let [_, a, b, join] = f.blocks()[..] else { panic!("four blocks") };
        let phi = join.first_instruction().expect("phi");
        assert_eq!(rewrite_phi_edges(phi, Some), phi, "unchanged edges keep the phi");
        // split_before retargets the edge from a block to its second half.
        let a2 = a.split_before(owned.context(), a.terminator().expect("br"), "a2");
        let phi = join.first_instruction().expect("phi");
        assert_eq!(edges(phi), [(Some(1), "a2".to_string()), (Some(2), "b".to_string())]);
        m.verify().expect("valid after the split");
        // `b` no longer reaches `join`: its edge is dropped; the phi keeps its place and name.
        b.terminator().expect("br").set_successor(0, a2);
        let phi = rewrite_phi_edges(phi, |blk| (blk != b).then_some(blk));
        assert_eq!((edges(phi), phi.name()), (vec![(Some(1), "a2".to_string())], "x".to_string()));
        assert_eq!(join.first_instruction(), Some(phi));
        m.verify().expect("valid after the edge is dropped");
    }
}
