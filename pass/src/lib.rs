//! `libacc_pass.so`: the plugin that `opt-22 -load-pass-plugin` and `clang-22 -fpass-plugin`
//! load. The C++ shim (`shim.cpp`) registers the pass; this file holds the FFI entry points.
//! It turns every outcome into a return code and never lets a Rust panic cross into LLVM.

use acc_codegen::{finish_module, run_on_module, AccError, Mode};
use llvm_sys::prelude::LLVMModuleRef;
use std::ffi::{c_char, c_int, CStr};

/// `llvm::PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h, LLVM 22), returned by value.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_callbacks: *const std::ffi::c_void,
    pre_codegen_callback: *const std::ffi::c_void,
}

extern "C" {
    /// Defined in shim.cpp.
    fn acc_pass_plugin_info() -> PassPluginLibraryInfo;
    /// Defined in shim.cpp: where this library was loaded from ("" if unknown).
    fn acc_plugin_path() -> *const c_char;
}

/// The entry point `opt -load-pass-plugin` and `clang -fpass-plugin` look up.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    // SAFETY: a plain C++ function without preconditions returning static data.
    unsafe { acc_pass_plugin_info() }
}

/// Runs `acc-offload` (or its printer) on a module owned by opt/clang. `defer_image`: leave
/// the device image building for `acc_offload_finish` (inside clang).
/// Returns 0 when nothing changed, 1 when the module changed, 2 after reporting errors.
///
/// # Safety
/// `module` must be a live module and `options` a NUL-terminated string, both owned by the
/// caller for the duration of the call (the C++ shim guarantees this).
#[no_mangle]
pub unsafe extern "C" fn acc_offload_run(module: LLVMModuleRef, options: *const c_char, print_only: c_int, defer_image: c_int) -> c_int {
    // SAFETY: the shim passes a valid NUL-terminated string that outlives this call.
    let options = unsafe { CStr::from_ptr(options) }.to_string_lossy().into_owned();
    let mode = match (print_only != 0, defer_image != 0) {
        (true, _) => Mode::PrintRegions,
        (false, true) => Mode::OffloadDeferred,
        (false, false) => Mode::Offload,
    };
    // SAFETY: this function's contract, passed on.
    report(|| unsafe { run_on_module(module, &options, mode) })
}

/// `acc-offload-finish`: installs the device image `acc_offload_run` left building.
/// Returns as `acc_offload_run` does.
///
/// # Safety
/// `module` must be a live module owned by the caller for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn acc_offload_finish(module: LLVMModuleRef) -> c_int {
    // SAFETY: this function's contract, passed on.
    report(|| unsafe { finish_module(module) })
}

/// Runs `work`, printing its errors (a panic included) in the user's format.
fn report(work: impl FnOnce() -> Result<bool, Vec<AccError>> + std::panic::UnwindSafe) -> c_int {
    acc_codegen::silence_panic_output();
    // SAFETY: returns a NUL-terminated string owned by the dynamic loader (or a literal),
    // valid while the plugin stays loaded, which outlasts this call.
    let plugin = unsafe { CStr::from_ptr(acc_plugin_path()) }.to_string_lossy().into_owned();
    acc_codegen::error::set_reproduce_plugin(&plugin);
    match std::panic::catch_unwind(work) {
        Ok(Ok(changed)) => changed as c_int,
        Ok(Err(errors)) => {
            for e in &errors {
                eprintln!("{e}");
            }
            2
        }
        Err(panic) => {
            eprintln!("{}", AccError::from_panic(panic));
            2
        }
    }
}
