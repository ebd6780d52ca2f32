//! Compiles the debug-info fix-ups (debuginfo.cpp) that LLVM's C API cannot express against
//! LLVM 22's headers; src/ir.rs is their only caller.
fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-changed=debuginfo.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
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
