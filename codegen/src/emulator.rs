//! Builds the emulator's copy of the device code and links it into the host module.
//!
//! Expects: the device module after every device-semantics transformation (partitioning,
//! guards, synchronisation) but before anything NVPTX-specific (libdevice, the NVPTX device
//! runtime, the NVPTX pipeline), and the host module it was cloned from. Produces, in the
//! host module, for each kernel `K` an internal function `__accemu.entry.K(ptr args)` that
//! unpacks the launch's argument array (`void *args[]`, as `cuLaunchKernel` takes it) and
//! calls the kernel body; the host runtime's emulator (runtime/src/emu/) calls it once per
//! emulated thread. Target-specific operations reach the emulator through the device
//! runtime interface: `runtime-ir/emulator.ll` implements it with calls into the host
//! runtime, as `runtime-ir/nvptx.ll` does with NVVM intrinsics. C math calls stay calls to
//! the C library. Shared memory (address space 3) stays ordinary memory with one instance,
//! which is right because the emulator runs one block at a time. Every store to shared memory
//! is followed by `__acc_emu_yield()`, a switch to the next fiber: threads of a block then
//! interleave at shared-memory stores, so two threads that race on a shared location (one
//! writes, the other reads or writes it with no synchronisation between) see each other's
//! values, as warps on the GPU do, instead of running one after the other between syncs;
//! atomic operations yield too, on any memory, so contended compare-and-swap loops retry.
//! Every other store that is not to the thread's own storage (an alloca) is preceded by
//! `__acc_emu_yield_global()`, which under the random schedule yields one time in four: a
//! read-modify-write of one element by several threads of a block without an atomic (a data
//! race) then loses updates, as on the GPU, instead of running whole between syncs.
//! Does not optimise the copy, and marks its functions `optnone` so that the host pipeline
//! does not either: the copy would otherwise double the host compile time.

use crate::error::{AccError, Result};
use crate::ir::{Module, OwnedModule, Value};
use llvm_sys::{LLVMLinkage, LLVMOpcode as Opcode};

const EMULATOR_RUNTIME: &str = include_str!("../../runtime-ir/emulator.ll");

/// The C calling convention.
const C_CC: u32 = 0;

/// Retargets `emu` (a clone of the device module, consumed) to the host, links it into
/// `host` and returns, per kernel name in `kernels`, the entry function in `host`.
/// Routines (routine.rs): each of `exported` (defined here) keeps an external symbol of its
/// own, `routine::emulator_name`, beside the host version; a call of one of `external` that
/// this module only declares calls that symbol, which another file's object defines.
pub fn link_into_host<'ctx>(host: Module<'ctx>, owned: OwnedModule<'ctx>, kernels: &[String], exported: &[String], external: &[String]) -> Result<Vec<Value<'ctx>>> {
    let emu = owned.handle();
    let mut exported_fns = Vec::new();
    for name in exported {
        if let Some(f) = emu.function(name).filter(|f| !f.is_declaration()) {
            f.set_name(&crate::routine::emulator_name(name));
            exported_fns.push(f);
        }
    }
    for name in external {
        if let Some(f) = emu.function(name).filter(|f| f.is_declaration() && !f.users().is_empty()) {
            f.set_name(&crate::routine::emulator_name(name));
        }
    }
    emu.set_triple(&host.triple());
    emu.set_data_layout(&host.data_layout());
    let rt = emu.context().parse_ir(EMULATOR_RUNTIME, "runtime-ir/emulator.ll").map_err(|e| AccError::internal(format!("runtime-ir/emulator.ll does not parse: {e}")))?;
    rt.handle().set_triple(&host.triple());
    rt.handle().set_data_layout(&host.data_layout());
    emu.link(rt).map_err(AccError::internal)?;
    insert_yields(emu)?;
    // (After the yields: the lowered store must not get one of its own before it.)
    lower_wide_cas(emu);
    let mut entries = Vec::new();
    for name in kernels {
        let k = emu.function(name).ok_or_else(|| AccError::internal(format!("kernel {name} missing in the emulator copy")))?;
        k.set_call_conv(C_CC);
        k.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        k.set_name(&format!("__accemu.kernel.{name}"));
        entries.push(entry_wrapper(emu, k, name));
    }
    for f in emu.functions() {
        if !f.is_declaration() && !entries.contains(&f) && !exported_fns.contains(&f) {
            f.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        }
        // Compile time: the copy would double the work of the host pipeline. Unoptimised
        // code computes the same results (the kernels are the same IR), only slower, which
        // the emulator's small test runs can afford. The device-runtime forwarders stay
        // `alwaysinline`.
        if !f.is_declaration() && !f.name().starts_with("__acc_") {
            f.add_fn_enum_attr("noinline");
            f.add_fn_enum_attr("optnone");
            // Loop hints (partition.rs asks for unrolling) would only make the host
            // pipeline warn that an optnone loop was not unrolled.
            for b in f.blocks() {
                if let Some(t) = b.terminator() {
                    t.clear_loop_metadata();
                }
            }
        }
    }
    for g in emu.globals() {
        if g.has_initializer() {
            g.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        }
    }
    let names: Vec<String> = entries.iter().map(|e| e.name()).collect();
    host.link(owned).map_err(AccError::internal)?;
    names
        .iter()
        .map(|n| {
            let f = host.function(n).ok_or_else(|| AccError::internal(format!("emulator entry {n} lost in linking")))?;
            f.set_linkage(LLVMLinkage::LLVMInternalLinkage);
            Ok(f)
        })
        .collect()
}

/// Replaces each compare-and-swap wider than 64 bits (atomic_reduction.rs: a `double
/// _Complex` element) with a load, a comparison and a store: x86-64 has it only with
/// `cmpxchg16b`, which clang's default CPU lacks (it would call libatomic), and the
/// emulator's threads are fibers of one OS thread that switch only at calls, so the three
/// are one step of the block.
fn lower_wide_cas(emu: Module<'_>) {
    let ctx = emu.context();
    let b = ctx.builder();
    for f in emu.functions().into_iter().filter(|f| !f.is_declaration()) {
        for i in f.blocks().into_iter().flat_map(|blk| blk.instructions()) {
            let wide = i.opcode() == Some(Opcode::LLVMAtomicCmpXchg) && i.operand(1).ty().is_int() && i.operand(1).ty().int_width() > 64;
            if !wide {
                continue;
            }
            let (p, expected, new) = (i.operand(0), i.operand(1), i.operand(2));
            b.position_before(i);
            let old = b.load(expected.ty(), p, "");
            let same = b.icmp(crate::ir::IntPred::LLVMIntEQ, old, expected);
            b.store(b.select(same, new, old), p);
            let pair = b.insert_value(i.ty().undef(), old, 0);
            let pair = b.insert_value(pair, same, 1);
            i.replace_all_uses_with(pair);
            i.erase();
        }
    }
}

/// Address space of shared memory in the device module.
const SHARED: u32 = 3;

/// Inserts `__acc_emu_yield()` after every store, atomic or compare-exchange whose address
/// is derived from a shared-memory global, and after every atomic operation (OpenACC
/// `atomic`, driver/src/atomic.rs) wherever its address points: threads of a block then
/// interleave between an atomic load and the compare-and-swap that follows it, so the
/// emulator runs the retries that contention causes on the GPU.
fn insert_yields<'ctx>(emu: Module<'ctx>) -> Result<()> {
    let f_yield = emu.function("__acc_emu_yield").ok_or_else(|| AccError::internal("runtime-ir/emulator.ll lacks __acc_emu_yield"))?;
    let f_yield_global = emu.function("__acc_emu_yield_global").ok_or_else(|| AccError::internal("runtime-ir/emulator.ll lacks __acc_emu_yield_global"))?;
    let ctx = emu.context();
    let b = ctx.builder();
    for f in emu.functions().into_iter().filter(|f| !f.is_declaration()) {
        for blk in f.blocks() {
            for i in blk.instructions() {
                let addr = match i.opcode() {
                    Some(Opcode::LLVMLoad) if i.is_atomic_access() => i.operand(0),
                    Some(Opcode::LLVMStore) => i.operand(1),
                    Some(Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => i.operand(0),
                    _ => continue,
                };
                if i.is_atomic_access() || points_into_shared(addr) {
                    let next = i.next_instruction().expect("a store is never a terminator");
                    b.position_before(next);
                    b.call(f_yield, &[], "");
                } else if i.opcode() == Some(Opcode::LLVMStore) && !crate::guard::is_private(addr) {
                    b.position_before(i);
                    b.call(f_yield_global, &[], "");
                }
            }
        }
    }
    Ok(())
}

/// Whether pointer `p` may be derived (through casts, GEPs, phis and selects) from a global
/// in shared memory.
fn points_into_shared<'ctx>(p: Value<'ctx>) -> bool {
    let mut work = vec![p];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if v.ty().address_space() == SHARED {
            return true;
        }
        match v.opcode() {
            Some(Opcode::LLVMGetElementPtr | Opcode::LLVMAddrSpaceCast | Opcode::LLVMBitCast) => work.push(v.operand(0)),
            Some(Opcode::LLVMSelect) => work.extend([v.operand(1), v.operand(2)]),
            Some(Opcode::LLVMPHI) => work.extend(v.incoming().into_iter().map(|(x, _)| x)),
            _ => {}
        }
    }
    false
}

/// `void __accemu.entry.K(ptr args) { K(*(T0*)args[0], *(T1*)args[1], ...); }`
fn entry_wrapper<'ctx>(m: Module<'ctx>, k: Value<'ctx>, name: &str) -> Value<'ctx> {
    let ctx = m.context();
    let ptr = ctx.ptr();
    let f = m.get_or_add_function(&format!("__accemu.entry.{name}"), ctx.fn_type(ctx.void(), &[ptr], false));
    f.add_fn_enum_attr("nounwind");
    let b = ctx.builder();
    b.position_at_end(ctx.append_block(f, "entry"));
    let args = f.params()[0];
    let vals: Vec<Value> = k
        .params()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let slot_ptr = b.gep(ptr, args, &[ctx.i64().const_int(i as u64)], true);
            let slot = b.load(ptr, slot_ptr, "");
            b.load(p.ty(), slot, "")
        })
        .collect();
    b.call(k, &vals, "");
    b.ret_void();
    f
}
