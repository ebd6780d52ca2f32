//! The C library calls that device code may make on the GPU: `malloc` and `free` (PTX system
//! calls: the CUDA driver's device heap, 8 MiB per device unless `ACC_DEVICE_HEAP_BYTES`
//! sets it, see runtime/src/device.rs) and `printf` (the `vprintf` system call, with the
//! arguments packed in a local buffer, as CUDA's `printf` is).
//!
//! Expects: the device module after the emulator's copy was taken (the emulator's copy calls
//! the host's C library itself) and before the external calls are resolved against
//! libdevice; `printf` calls as Clang emits them (variadic, the arguments already promoted
//! by C's default argument promotions). Produces: `malloc`/`free` calls unchanged (functions
//! only declared, which the NVPTX back end emits as `.extern .func` and ptxas resolves as
//! system calls), each `printf` call replaced by `vprintf(format, buffer)` where `buffer`
//! holds the arguments at their natural alignment (null without arguments) and the result
//! is vprintf's (the number of arguments, not of characters: as in CUDA).
//! Does not: other stdio (`puts`, `fprintf`, ...) or allocation (`calloc`, `realloc`), which
//! stay "no device version" errors; the output of kernels is printed when the kernel
//! finishes (the driver's buffer), not interleaved with the host's output.

use crate::ir::{Module, Value};

/// Library functions device code may call on the GPU (after [`lower_printf`], `vprintf`
/// instead of `printf`).
pub fn is_device_libc(name: &str) -> bool {
    matches!(name, "malloc" | "free" | "vprintf")
}

/// Rewrites every call of `printf` in `dev` into a call of `vprintf`.
pub fn lower_printf(dev: Module<'_>) {
    let Some(printf) = dev.function("printf") else { return };
    let ctx = dev.context();
    let calls: Vec<Value> = printf.users().into_iter().filter(|u| u.is_instruction() && u.called_name().as_deref() == Some("printf")).collect();
    if calls.is_empty() {
        return;
    }
    let vprintf = dev.get_or_add_function("vprintf", ctx.fn_type(ctx.i32(), &[ctx.ptr(), ctx.ptr()], false));
    let b = ctx.builder();
    for call in calls {
        // Operands: the format, the variadic arguments, then the callee.
        let n = call.num_operands() - 1;
        let format = call.operand(0);
        let args: Vec<Value> = (1..n).map(|i| call.operand(i)).collect();
        let buffer = if args.is_empty() {
            ctx.ptr().const_null()
        } else {
            let layout = ctx.struct_type(&args.iter().map(|a| a.ty()).collect::<Vec<_>>());
            // In the entry block: one buffer per call site, not one per loop iteration.
            let entry = call.parent_function().entry_block();
            b.position_before(entry.first_instruction().expect("an entry block has a terminator"));
            let buf = b.alloca(layout, "printf.args");
            b.position_before(call);
            let zero = ctx.i32().const_int(0);
            for (i, a) in args.iter().enumerate() {
                let field = b.gep(layout, buf, &[zero, ctx.i32().const_int(i as u64)], true);
                b.store(*a, field);
            }
            buf
        };
        b.position_before(call);
        let r = b.call(vprintf, &[format, buffer], "");
        call.replace_all_uses_with(r);
        call.erase();
    }
}
