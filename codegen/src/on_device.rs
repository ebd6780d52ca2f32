//! `acc_on_device` in device code (OpenACC 3.3 §3.2.18), folded where the kernel runs.
//!
//! Expects: the device module after outlining (kernels and the functions they call), with
//! calls to the runtime routine `acc_on_device(acc_device_t)` declared as openacc.h declares
//! it. Produces: each call replaced by `t == acc_device_not_host || t == acc_device_nvidia`
//! (a constant when `t` is one, which is the usual case), because code in a kernel runs on
//! the NVIDIA device, or on the emulator standing in for it, whose copy of the kernels is
//! taken after this step. Does not: touch host code (the host fallback of a region calls the
//! runtime routine, which answers for the host), or fold other runtime routines (a call to
//! one still needs a device version).

use crate::ir::{IntPred, Module};

/// `acc_device_not_host` and `acc_device_nvidia` in openacc.h.
const ON_DEVICE_TYPES: [u64; 2] = [3, 4];

/// Whether `acc_on_device(t)` is true in device code, for a constant `t`.
pub fn answer(t: i64) -> bool {
    ON_DEVICE_TYPES.contains(&(t as u64))
}

/// Replaces every call to `acc_on_device` in `dev`.
pub fn fold<'ctx>(dev: Module<'ctx>) {
    let Some(f) = dev.function("acc_on_device") else { return };
    let ctx = dev.context();
    let b = ctx.builder();
    for call in f.users() {
        if !call.is_call() || call.call_arg_count() != 1 {
            continue;
        }
        b.position_before(call);
        let t = call.call_arg(0);
        let ty = t.ty();
        let [a, c] = ON_DEVICE_TYPES.map(|k| b.icmp(IntPred::LLVMIntEQ, t, ty.const_int(k)));
        let yes = b.or(a, c);
        let result = b.zext_or_trunc(yes, call.ty());
        call.replace_all_uses_with(result);
        call.erase();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn device_code_is_on_the_nvidia_device() {
        assert!(super::answer(4), "acc_device_nvidia");
        assert!(super::answer(3), "acc_device_not_host");
        assert!(!super::answer(2), "acc_device_host");
        assert!(!super::answer(0), "acc_device_none");
    }
}
