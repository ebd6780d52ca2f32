//! The LLVM C API calls that inkwell has no API for, one small function each.
//!
//! Everything else in `ir/` goes through inkwell. What is left here is generic over every
//! kind of value (names, operands and uses of any `User`, constant expressions), or an
//! LLVM 22 entry point inkwell does not wrap. Every function takes handles that the caller
//! guarantees are live (the handle invariant in `ir/mod.rs`), which is the precondition each
//! `// SAFETY:` line relies on.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::ffi::{c_char, CStr};

/// Copies out and frees a message LLVM allocated.
fn take_message(ptr: *mut c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned an owned, NUL-terminated message; it is freed exactly once.
    let s = unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned();
    // SAFETY: as above.
    unsafe { LLVMDisposeMessage(ptr) };
    s
}

/// Borrowed `(pointer, length)` text from LLVM, copied.
fn copy_text(p: *const c_char, len: usize) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: LLVM hands out `len` readable bytes at `p`, valid until the next change of the
    // object they belong to; they are copied at once.
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(p as *const u8, len) }).into_owned()
}

/// Kinds of value told apart with `LLVMIsA*`.
#[derive(Clone, Copy)]
pub enum Isa {
    Instruction,
    Argument,
    ConstantExpr,
    GlobalVariable,
    Alloca,
    Phi,
    Call,
    ConstantInt,
    Branch,
    Function,
    InlineAsm,
}

pub fn isa(v: LLVMValueRef, kind: Isa) -> bool {
    // SAFETY: `LLVMIsA*` only reads the value's kind.
    let r = unsafe {
        match kind {
            Isa::Instruction => LLVMIsAInstruction(v),
            Isa::Argument => LLVMIsAArgument(v),
            Isa::ConstantExpr => LLVMIsAConstantExpr(v),
            Isa::GlobalVariable => LLVMIsAGlobalVariable(v),
            Isa::Alloca => LLVMIsAAllocaInst(v),
            Isa::Phi => LLVMIsAPHINode(v),
            Isa::Call => LLVMIsACallInst(v),
            Isa::ConstantInt => LLVMIsAConstantInt(v),
            Isa::Branch => LLVMIsABranchInst(v),
            Isa::Function => LLVMIsAFunction(v),
            Isa::InlineAsm => LLVMIsAInlineAsm(v),
        }
    };
    !r.is_null()
}

pub fn type_of(v: LLVMValueRef) -> LLVMTypeRef {
    // SAFETY: live value.
    unsafe { LLVMTypeOf(v) }
}

pub fn type_kind(t: LLVMTypeRef) -> LLVMTypeKind {
    // SAFETY: live type.
    unsafe { LLVMGetTypeKind(t) }
}

pub fn type_context(t: LLVMTypeRef) -> LLVMContextRef {
    // SAFETY: live type.
    unsafe { LLVMGetTypeContext(t) }
}

/// inkwell's `AddressSpace` has no accessor for its number.
pub fn pointer_address_space(t: LLVMTypeRef) -> u32 {
    // SAFETY: a pointer type (the caller checked).
    unsafe { LLVMGetPointerAddressSpace(t) }
}

/// The name of any value (functions, globals, arguments, instructions, blocks as values).
pub fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0;
    // SAFETY: live value; LLVM returns a pointer to `len` bytes it owns.
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    copy_text(p, len)
}

pub fn set_value_name(v: LLVMValueRef, name: &str) {
    // SAFETY: live value; LLVM copies `name.len()` bytes.
    unsafe { LLVMSetValueName2(v, name.as_ptr() as *const c_char, name.len()) }
}

pub fn print_value(v: LLVMValueRef) -> String {
    // SAFETY: live value; the message is freed by take_message.
    take_message(unsafe { LLVMPrintValueToString(v) })
}

pub fn print_type(t: LLVMTypeRef) -> String {
    // SAFETY: live type; the message is freed by take_message.
    take_message(unsafe { LLVMPrintTypeToString(t) })
}

/// The opcode of a constant expression (instructions: inkwell's `get_opcode`).
pub fn const_opcode(ce: LLVMValueRef) -> LLVMOpcode {
    // SAFETY: the caller checked `isa(ce, ConstantExpr)`.
    unsafe { LLVMGetConstOpcode(ce) }
}

/// Operands of any `User` (instructions and constant expressions alike; a branch's blocks
/// appear as values).
pub fn num_operands(u: LLVMValueRef) -> u32 {
    // SAFETY: live value; non-users report 0 or -1.
    unsafe { LLVMGetNumOperands(u) }.max(0) as u32
}

pub fn operand(u: LLVMValueRef, i: u32) -> LLVMValueRef {
    // SAFETY: i < num_operands(u) (the callers' loops).
    unsafe { LLVMGetOperand(u, i) }
}

pub fn set_operand(u: LLVMValueRef, i: u32, v: LLVMValueRef) {
    // SAFETY: i < num_operands(u); the verifier checks the types in tests.
    unsafe { LLVMSetOperand(u, i, v) }
}

/// The user of each use of `v`, in use-list order.
pub fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    // SAFETY: walks a live value's use list without changing it.
    let mut u = unsafe { LLVMGetFirstUse(v) };
    while !u.is_null() {
        // SAFETY: `u` is a live use of `v`.
        out.push(unsafe { LLVMGetUser(u) });
        // SAFETY: as above.
        u = unsafe { LLVMGetNextUse(u) };
    }
    out
}

/// RAUW for any value (inkwell has it per value kind only).
pub fn replace_all_uses_with(old: LLVMValueRef, new: LLVMValueRef) {
    // SAFETY: both live and of the same type (callers guarantee).
    unsafe { LLVMReplaceAllUsesWith(old, new) }
}

pub fn successors(term: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    // SAFETY: a terminator; indices below its successor count.
    (0..unsafe { LLVMGetNumSuccessors(term) }).map(|i| unsafe { LLVMGetSuccessor(term, i) }).collect()
}

pub fn set_successor(term: LLVMValueRef, i: u32, b: LLVMBasicBlockRef) {
    // SAFETY: a terminator, i below its successor count.
    unsafe { LLVMSetSuccessor(term, i, b) }
}

/// Case value `i` (1-based, as successors) of a `switch`.
pub fn switch_case_value(sw: LLVMValueRef, i: u32) -> LLVMValueRef {
    // SAFETY: a switch, 0 < i < its successor count.
    unsafe { LLVMGetSwitchCaseValue(sw, i) }
}

pub fn in_bounds(gep: LLVMValueRef) -> bool {
    // SAFETY: a GEP instruction or constant expression.
    unsafe { LLVMIsInBounds(gep) != 0 }
}

pub fn gep_source_type(gep: LLVMValueRef) -> LLVMTypeRef {
    // SAFETY: a GEP instruction or constant expression.
    unsafe { LLVMGetGEPSourceElementType(gep) }
}

/// File of an instruction's debug location (inkwell reads line and column only).
pub fn debug_loc_file(i: LLVMValueRef) -> String {
    let mut len = 0;
    // SAFETY: an instruction with a debug location (the caller checked).
    let p = unsafe { LLVMGetDebugLocFilename(i, &mut len) };
    copy_text(p, len as usize)
}

pub fn set_discard_value_names(c: LLVMContextRef, discard: bool) {
    // SAFETY: live context; a flag read when values are named.
    unsafe { LLVMContextSetDiscardValueNames(c, discard as i32) }
}

/// Byte offset of field `field` of struct type `t` under the module's data layout.
pub fn field_offset(m: LLVMModuleRef, t: LLVMTypeRef, field: u32) -> u64 {
    // SAFETY: live module, a sized struct type and one of its field indices (callers check).
    unsafe { llvm_sys::target::LLVMOffsetOfElement(llvm_sys::target::LLVMGetModuleDataLayout(m), t, field) }
}

/// ABI size of `t` under the module's data layout (without copying the layout, as
/// inkwell's `TargetData` would).
pub fn abi_size(m: LLVMModuleRef, t: LLVMTypeRef) -> u64 {
    // SAFETY: live module and sized type; the layout is borrowed from the module.
    unsafe { llvm_sys::target::LLVMABISizeOfType(llvm_sys::target::LLVMGetModuleDataLayout(m), t) }
}

pub fn param_parent(arg: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: a live function argument.
    unsafe { LLVMGetParamParent(arg) }
}

pub fn set_data_layout(m: LLVMModuleRef, dl: &str) {
    let dl = std::ffi::CString::new(dl).expect("data layouts have no NUL");
    // SAFETY: live module; LLVM copies the string.
    unsafe { LLVMSetDataLayout(m, dl.as_ptr()) }
}

/// A deep copy (inkwell's `Module::clone` also verifies the module, which the host module
/// need not pass halfway through the pass, and costs a walk of it).
pub fn clone_module(m: LLVMModuleRef) -> LLVMModuleRef {
    // SAFETY: live module; the clone is new and owned by the caller.
    unsafe { LLVMCloneModule(m) }
}

/// Links `src` into `dst`; LLVM takes ownership of `src` (the caller must not dispose it).
pub fn link_modules(dst: LLVMModuleRef, src: LLVMModuleRef) -> Result<(), String> {
    // SAFETY: two live modules of one context; LLVMLinkModules2 consumes `src`.
    let failed = unsafe { llvm_sys::linker::LLVMLinkModules2(dst, src) };
    if failed != 0 {
        Err("module linking failed (see the messages above)".into())
    } else {
        Ok(())
    }
}

/// Runs a new-PM pipeline without a target machine (inkwell requires one; the host-side
/// cleanups are target independent). `f`: on one function only.
pub fn run_passes(m: LLVMModuleRef, f: Option<LLVMValueRef>, pipeline: &str) -> Result<(), String> {
    use llvm_sys::transforms::pass_builder::*;
    let p = std::ffi::CString::new(pipeline).expect("pipelines have no NUL");
    // SAFETY: fresh options, disposed below.
    let opts = unsafe { LLVMCreatePassBuilderOptions() };
    // SAFETY: live module or function definition; a null target machine is allowed.
    let err = unsafe {
        match f {
            Some(f) => LLVMRunPassesOnFunction(f, p.as_ptr(), std::ptr::null_mut(), opts),
            None => LLVMRunPasses(m, p.as_ptr(), std::ptr::null_mut(), opts),
        }
    };
    // SAFETY: created above, disposed once.
    unsafe { LLVMDisposePassBuilderOptions(opts) };
    if err.is_null() {
        return Ok(());
    }
    // SAFETY: an error object returned by LLVM, read and disposed once.
    let msg = unsafe { llvm_sys::error::LLVMGetErrorMessage(err) };
    // SAFETY: as above.
    let s = unsafe { CStr::from_ptr(msg) }.to_string_lossy().into_owned();
    // SAFETY: as above.
    unsafe { llvm_sys::error::LLVMDisposeErrorMessage(msg) };
    Err(s)
}

/// Unlinks an instruction from its block without deleting it (to re-insert it elsewhere).
/// inkwell's `remove_from_basic_block` does this too but then needs an insertion through a
/// builder; kept together with `insert_into_builder`.
pub fn insert_into_builder(b: LLVMBuilderRef, i: LLVMValueRef) {
    // SAFETY: `i` has no parent block (fresh clone or just removed); the builder is positioned.
    unsafe { LLVMInsertIntoBuilder(b, i) }
}

/// `freeze poison` of `t`: a placeholder instruction (the C API's builder has no other way
/// to make an instruction that constant folding leaves alone).
pub fn build_freeze_poison(b: LLVMBuilderRef, t: LLVMTypeRef) -> LLVMValueRef {
    // SAFETY: positioned builder; poison of a first-class type.
    unsafe { LLVMBuildFreeze(b, LLVMGetPoison(t), c"".as_ptr()) }
}

/// Marks the loop whose latch ends in `branch` with `!llvm.loop !{self, mustprogress,
/// unroll.count N}` (replacing Clang's node, which only says mustprogress).
pub fn set_loop_unroll_count(branch: LLVMValueRef, count: u32) {
    use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
    // SAFETY: `branch` is a live terminator; every node is built in its context, and the
    // temporary node is replaced (and so freed) by the self-reference before use.
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(branch));
        let string = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr() as *const c_char, s.len());
        let progress_ops = [string("llvm.loop.mustprogress")];
        let progress = LLVMMDNodeInContext2(ctx, progress_ops.as_ptr() as *mut _, 1);
        let n = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), u64::from(count), 0));
        let unroll_ops = [string("llvm.loop.unroll.count"), n];
        let unroll = LLVMMDNodeInContext2(ctx, unroll_ops.as_ptr() as *mut _, 2);
        let tmp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let ops = [tmp, progress, unroll];
        let node = LLVMMDNodeInContext2(ctx, ops.as_ptr() as *mut _, 3);
        LLVMMetadataReplaceAllUsesWith(tmp, node);
        let kind = "llvm.loop";
        let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const c_char, kind.len() as u32);
        LLVMSetMetadata(branch, id, LLVMMetadataAsValue(ctx, node));
    }
}

/// Drops a latch branch's `!llvm.loop` node.
pub fn clear_loop_metadata(branch: LLVMValueRef) {
    // SAFETY: `branch` is a live instruction; a null node removes the attachment.
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(branch));
        let kind = "llvm.loop";
        let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const c_char, kind.len() as u32);
        LLVMSetMetadata(branch, id, std::ptr::null_mut());
    }
}

// The C API reads debug records but cannot retarget or erase them; these two fix-ups are
// C++ (debuginfo.cpp, compiled by build.rs).
extern "C" {
    fn accc_di_fixup_outlined(old: LLVMValueRef, new: LLVMValueRef, line: u32, from: *const LLVMValueRef, to: *const LLVMValueRef, n: u32);
    fn accc_di_line_directives_only(m: LLVMModuleRef);
}

pub fn di_fixup_outlined(old: LLVMValueRef, new: LLVMValueRef, line: u32, from: &[LLVMValueRef], to: &[LLVMValueRef]) {
    assert_eq!(from.len(), to.len());
    // SAFETY: both functions are live definitions in one module; the arrays hold live values
    // and outlive the call, which does not keep them.
    unsafe { accc_di_fixup_outlined(old, new, line, from.as_ptr(), to.as_ptr(), from.len() as u32) }
}

pub fn di_line_directives_only(m: LLVMModuleRef) {
    // SAFETY: live module owned by the caller, not being iterated.
    unsafe { accc_di_line_directives_only(m) }
}

/// The operation of an `atomicrmw` instruction.
pub fn atomic_rmw_op(v: LLVMValueRef) -> llvm_sys::LLVMAtomicRMWBinOp {
    // SAFETY: a live `atomicrmw` instruction (callers check the opcode).
    unsafe { LLVMGetAtomicRMWBinOp(v) }
}

/// `atomicrmw op p, v monotonic` at the builder's position (inkwell's takes integers only;
/// `fadd`, `fmax` and `fmin` take floats).
pub fn build_atomic_rmw(b: LLVMBuilderRef, op: llvm_sys::LLVMAtomicRMWBinOp, p: LLVMValueRef, v: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: a positioned builder and live values of the types the operation takes (the
    // caller's invariant); monotonic is valid for every atomicrmw.
    unsafe { LLVMBuildAtomicRMW(b, op, p, v, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic, 0) }
}

/// The predicate of an `fcmp` instruction.
pub fn fcmp_predicate(v: LLVMValueRef) -> llvm_sys::LLVMRealPredicate {
    // SAFETY: a live `fcmp` instruction (callers check the opcode).
    unsafe { LLVMGetFCmpPredicate(v) }
}

/// The first index of an `extractvalue` or `insertvalue` instruction.
pub fn first_aggregate_index(v: LLVMValueRef) -> Option<u32> {
    // SAFETY: a live instruction; the indices are read only from `extractvalue` and
    // `insertvalue`, which have at least one (LLVM's verifier), and only that many.
    unsafe {
        let op = LLVMGetInstructionOpcode(v);
        if !matches!(op, LLVMOpcode::LLVMExtractValue | LLVMOpcode::LLVMInsertValue) || LLVMGetNumIndices(v) == 0 {
            return None;
        }
        Some(*LLVMGetIndices(v))
    }
}

/// Makes a load or store atomic (monotonic), e.g. the first read of a compare-and-swap loop.
pub fn set_monotonic(i: LLVMValueRef) {
    // SAFETY: a live load or store (the caller's invariant), whose ordering may be set.
    unsafe { LLVMSetOrdering(i, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic) }
}
