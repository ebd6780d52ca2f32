//! Compiles `runtime-ir/libm.c` (device versions of the math.h/complex.h functions libdevice
//! lacks, see codegen/src/devmath.rs) to LLVM IR for the host target: the device module is
//! a clone of the host module, so these definitions must have the host ABI's signatures.
//! Scalar code only (no vectoriser, no unwind tables): the NVPTX back end takes the IR once
//! its x86 attributes are stripped.
use std::process::Command;

fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let clang = std::env::var("ACCC_CLANG").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| format!("{prefix}/bin/clang"));
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("libm.ll");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../runtime-ir/libm.c");
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-env-changed=ACCC_CLANG");
    let status = Command::new(&clang)
        .args(["-target", &target, "-O2", "-S", "-emit-llvm", "-fmath-errno", "-fno-vectorize", "-fno-slp-vectorize"])
        .args(["-fno-unwind-tables", "-fno-asynchronous-unwind-tables", "-fno-stack-protector", "-Wall", "-Werror"])
        .arg(src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {clang} to build runtime-ir/libm.c: {e}"));
    assert!(status.success(), "{clang} failed on runtime-ir/libm.c");
}
