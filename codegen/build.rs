//! Two build steps for the codegen crate:
//! - the debug-info fix-ups (debuginfo.cpp) that LLVM's C API cannot express, compiled
//!   against LLVM 22's headers; src/ir.rs is their only caller;
//! - `runtime-ir/reduce.c` (the reduction helpers, src/reduction.rs), `runtime-ir/private.c`
//!   (private copies of run-time size, src/private_copies.rs) and
//!   `runtime-ir/libm.c` (device versions of the math.h/complex.h functions libdevice lacks,
//!   see src/devmath.rs) compiled to LLVM IR for the host target: the device module is a
//!   clone of the host module, so these definitions must have the host ABI's signatures.
//!   Scalar code only (no vectoriser, no unwind tables): the NVPTX back end takes the IR once
//!   its x86 attributes are stripped. No type-based alias tags (`-fno-strict-aliasing`): the
//!   helpers touch the user's variables through their own C types.
use std::process::Command;

fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    build_debuginfo(&prefix);
    build_device_c(&prefix, "libm");
    build_device_c(&prefix, "reduce");
    build_device_c(&prefix, "private");
}

fn build_debuginfo(prefix: &str) {
    println!("cargo:rerun-if-changed=debuginfo.cpp");
    cc::Build::new()
        .cpp(true)
        .file("debuginfo.cpp")
        .include(format!("{prefix}/include"))
        .flag("-std=c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag("-Wno-unused-parameter")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .compile("acc_codegen_debuginfo");
    println!("cargo:rustc-link-search=native={prefix}/lib");
    println!("cargo:rustc-link-lib=dylib=LLVM-22");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}

/// `runtime-ir/<name>.c` to `$OUT_DIR/<name>.bc`, LLVM IR for the host target.
fn build_device_c(prefix: &str, name: &str) {
    let clang = std::env::var("ACCC_CLANG").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| format!("{prefix}/bin/clang"));
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(format!("{name}.bc"));
    let src = format!("{}/../runtime-ir/{name}.c", env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-env-changed=ACCC_CLANG");
    let status = Command::new(&clang)
        .args(["-target", &target, "-O2", "-c", "-emit-llvm", "-fmath-errno", "-fno-vectorize", "-fno-slp-vectorize"])
        .args(["-fno-unwind-tables", "-fno-asynchronous-unwind-tables", "-fno-stack-protector", "-Wall", "-Werror"])
        // These functions read and write the user's variables, whose C types may differ from
        // theirs (a `long` reduced by the `long long` helper): type-based alias tags would
        // let the optimiser assume the two never alias (a reduction kept a stale value).
        .arg("-fno-strict-aliasing")
        // reduce.c's 16-byte compare-and-swap (`double _Complex`) as an instruction, not a
        // libatomic call: the device module is retargeted, and the emulator lowers it.
        .args(target.starts_with("x86_64").then_some("-mcx16"))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {clang} to build {src}: {e}"));
    assert!(status.success(), "{clang} failed on {src}");
}
