//! C math in device code: every C99 `math.h` and `complex.h` function reaches a device
//! implementation (libdevice's `__nv_*`, or `runtime-ir/libm.c` for what libdevice lacks).
//!
//! Expects: the device module after every device-semantics transformation (the emulator's
//! copy is taken before this: on the host the real libm runs), before libdevice is linked
//! (`device::resolve_external_calls` maps the C names this leaves to `__nv_*`). Produces:
//! 1. `runtime-ir/libm.c`'s functions (complex.h: `cexp`, `cabs`, ..., the complex
//!    multiply/divide helpers `__muldc3`/`__divdc3`/`__mulsc3`/`__divsc3` Clang calls for
//!    `z * w` and `z / w`; math.h functions libdevice has no entry for: `lround`, `lrint`,
//!    `scalbln` and their float forms) linked in with weak linkage, so that a program's own
//!    definition of such a name wins and unused ones are deleted by the `-O3` pipeline.
//!    The file is compiled by `build.rs` for the host target, so its signatures are the
//!    host ABI's, the ABI the cloned device module calls them with (`float complex` is
//!    `<2 x float>` on x86-64).
//! 2. Calls to math intrinsics that the NVPTX back end cannot select (it aborts with
//!    "Cannot select" or "unsupported library call operation": `llvm.sin`, `llvm.pow`,
//!    `llvm.lround`, `llvm.modf`, `llvm.frexp`, `llvm.sincos`, ...; Clang emits them for
//!    functions that never set `errno`, or for all of them under `-fno-math-errno`)
//!    become calls to the C functions they stand for; intrinsics returning two results
//!    (`{ frac, int } @llvm.modf`) become the C call with out-parameters in the kernel's
//!    stack (generic address space, what libdevice's pointer parameters are), the struct
//!    rebuilt from the loads.
//!
//! Does not handle vector forms of the intrinsics (`llvm.sin.v2f64`: nothing generates
//! them before the device pipeline), `long double` (rejected earlier by devcheck.rs), or
//! `lround` on targets where `long` is 32 bits. Special cases of complex.h (Annex G: signed
//! zeros, infinities in one part) follow the textbook formulas in libm.c, not glibc's.

use crate::error::{AccError, Result};
use crate::ir::{Module, Value};
use llvm_sys::LLVMLinkage;

const LIBM_BC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libm.bc"));

/// Intrinsics of one argument or two (same type) that NVPTX cannot select; the C function
/// has the intrinsic's name (`llvm.sin.f64` is `sin`, `llvm.sin.f32` is `sinf`).
const PLAIN: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "exp2", "exp10", "log", "log2",
    "log10", "pow",
];

/// How one intrinsic is replaced by a C function.
#[derive(Debug, PartialEq, Eq)]
pub enum Lowering {
    /// A C function with the intrinsic's signature.
    Same(String),
    /// `{ a, b } @llvm.X(x)` → `a = X(x, &b)`: `modf`, `frexp`.
    OneOut(String),
    /// `{ s, c } @llvm.sincos(x)` → `sincos(x, &s, &c)`.
    TwoOut(String),
}

/// The C replacement of intrinsic `name`, if the NVPTX back end cannot select it.
pub fn lowering(name: &str) -> Option<Lowering> {
    let rest = name.strip_prefix("llvm.")?;
    let (op, ty) = rest.split_once('.')?;
    let f = match ty {
        "f64" | "i64.f64" | "f64.i32" => "",
        "f32" | "i64.f32" | "f32.i32" => "f",
        _ => return None,
    };
    let plain_ty = matches!(ty, "f64" | "f32");
    match op {
        _ if plain_ty && PLAIN.contains(&op) => Some(Lowering::Same(format!("{op}{f}"))),
        // `long` is 64 bits (LP64), so `lround` is `llround`, which libdevice has.
        "lround" | "llround" if ty.starts_with("i64.") => Some(Lowering::Same(format!("llround{f}"))),
        "lrint" | "llrint" if ty.starts_with("i64.") => Some(Lowering::Same(format!("llrint{f}"))),
        "modf" if plain_ty => Some(Lowering::OneOut(format!("modf{f}"))),
        "frexp" if ty.ends_with(".i32") => Some(Lowering::OneOut(format!("frexp{f}"))),
        "sincos" if plain_ty => Some(Lowering::TwoOut(format!("sincos{f}"))),
        _ => None,
    }
}

/// Links libm.c's functions into `dev` (weak: a definition in the program wins), if the
/// device code calls any function it has no body for besides LLVM intrinsics and the
/// device runtime's (parsing libm.c costs more than compiling a small kernel). Run after
/// `lower_intrinsics`, which turns intrinsics into such calls.
pub fn link_libm<'ctx>(dev: Module<'ctx>) -> Result<()> {
    let calls_library = dev.functions().into_iter().any(|f| {
        let name = f.name();
        f.is_declaration() && !f.users().is_empty() && !name.starts_with("llvm.") && !crate::devrt::ALL.contains(&name.as_str())
    });
    if !calls_library {
        return Ok(());
    }
    link_host_c(dev, LIBM_BC, "runtime-ir/libm.c", LLVMLinkage::LLVMWeakAnyLinkage)?;
    // libm.c's own intrinsic calls, the same way.
    lower_intrinsics(dev);
    Ok(())
}

/// Links one of runtime-ir's C files (`bitcode`, built for the host ABI by build.rs) into
/// `dev`: with the device module's triple and layout, without the host CPU's attributes, its
/// definitions with `linkage`. libm.c's and reduce.c's way into device code.
pub fn link_host_c<'ctx>(dev: Module<'ctx>, bitcode: &[u8], file: &str, linkage: LLVMLinkage) -> Result<()> {
    let lib = dev.context().parse_bitcode(bitcode, file).map_err(|e| AccError::internal(format!("{file} does not parse: {e}")))?;
    lib.handle().set_triple(&dev.triple());
    lib.handle().set_data_layout(&dev.data_layout());
    for f in lib.handle().functions() {
        // Compiled for the host: its CPU and features mean nothing to the NVPTX back end.
        for attr in ["target-cpu", "target-features", "tune-cpu"] {
            f.remove_fn_string_attr(attr);
        }
        if !f.is_declaration() {
            f.remove_fn_enum_attr("uwtable");
            f.set_linkage(linkage);
        }
    }
    dev.link(lib).map_err(AccError::internal)
}

/// Replaces every call to an intrinsic in `lowering`'s table by its C function.
pub fn lower_intrinsics<'ctx>(dev: Module<'ctx>) {
    for f in dev.functions() {
        if !f.is_declaration() {
            continue;
        }
        match lowering(&f.name()) {
            Some(Lowering::Same(c)) => {
                let decl = dev.get_or_add_function(&c, f.function_type());
                f.replace_all_uses_with(decl);
            }
            Some(Lowering::OneOut(c)) => rewrite_calls(dev, f, &c, 1),
            Some(Lowering::TwoOut(c)) => rewrite_calls(dev, f, &c, 2),
            None => {}
        }
    }
}

/// `%r = call { A, B } @intrinsic(x)` → out-parameter slots, `call @c(x, slots...)`, `%r`
/// rebuilt from the call's result (with one slot) and the slots' values.
fn rewrite_calls<'ctx>(dev: Module<'ctx>, intrinsic: Value<'ctx>, c: &str, slots: usize) {
    let ctx = dev.context();
    let b = ctx.builder();
    let fields = intrinsic.function_type().contained_types()[0].contained_types();
    let arg_ty = intrinsic.function_type().contained_types()[1];
    let ret = if slots == 1 { fields[0] } else { ctx.void() };
    let mut params = vec![arg_ty];
    params.extend(std::iter::repeat_n(ctx.ptr(), slots));
    let decl = dev.get_or_add_function(c, ctx.fn_type(ret, &params, false));
    for call in intrinsic.users().into_iter().filter(|u| u.is_call()) {
        let f = call.parent_function();
        b.position_before(f.entry_block().first_instruction().expect("entry has a terminator"));
        let out_fields = &fields[2 - slots..];
        let slot_vals: Vec<Value> = out_fields.iter().map(|t| b.alloca(*t, "acc.libm.out")).collect();
        b.position_before(call);
        let mut args = vec![call.call_arg(0)];
        args.extend(&slot_vals);
        let r = b.call(decl, &args, "");
        let mut agg = call.ty().undef();
        let mut i = 0;
        if slots == 1 {
            agg = b.insert_value(agg, r, 0);
            i = 1;
        }
        for (slot, t) in slot_vals.iter().zip(out_fields) {
            agg = b.insert_value(agg, b.load(*t, *slot, ""), i);
            i += 1;
        }
        call.replace_all_uses_with(agg);
        call.erase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn unselectable_intrinsics_become_c_calls() {
        assert_eq!(lowering("llvm.sin.f64"), Some(Lowering::Same("sin".into())));
        assert_eq!(lowering("llvm.pow.f32"), Some(Lowering::Same("powf".into())));
        assert_eq!(lowering("llvm.lround.i64.f64"), Some(Lowering::Same("llround".into())));
        assert_eq!(lowering("llvm.lrint.i64.f32"), Some(Lowering::Same("llrintf".into())));
        assert_eq!(lowering("llvm.modf.f64"), Some(Lowering::OneOut("modf".into())));
        assert_eq!(lowering("llvm.frexp.f32.i32"), Some(Lowering::OneOut("frexpf".into())));
        assert_eq!(lowering("llvm.sincos.f64"), Some(Lowering::TwoOut("sincos".into())));
    }

    #[test]
    fn selectable_or_unknown_intrinsics_stay() {
        for n in ["llvm.sqrt.f64", "llvm.fabs.f32", "llvm.floor.f64", "llvm.fma.f64", "llvm.ldexp.f64.i32", "llvm.sin.v2f64", "llvm.lround.i32.f32", "sin"] {
            assert_eq!(lowering(n), None, "{n}");
        }
    }
}
