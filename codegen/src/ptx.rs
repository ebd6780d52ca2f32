//! The last two stages: device `.ll` → `.ptx` (LLVM's NVPTX back end, in-process) and
//! `.ptx` → `.cubin` (ptxas from the CUDA nvcc wheel).
//!
//! Architecture invariant: besides the driver, this is the only place that spawns a
//! process (ptxas). A failing ptxas is reported with the exact command to reproduce it.

use crate::error::{AccError, Result};
use crate::ir::Module;
use llvm_sys::target_machine::*;
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// The GPU architectures accc builds for (what `accc --gpu-arch` advertises), with the PTX
/// ISA version each is built with: 8.0 (the oldest this code generator emits), or the first
/// version LLVM 22's NVPTX back end and CUDA 12.9's ptxas know the architecture in (sm_100:
/// PTX 8.6, sm_120: 8.7, sm_103 and sm_121: 8.8; 12.9's ptxas takes up to 8.8). The `a`
/// variants run only on exactly that GPU and use its architecture-specific instructions.
pub const ARCHS: &[(&str, u32)] = &[
    ("sm_50", 80), ("sm_52", 80), ("sm_53", 80), ("sm_60", 80), ("sm_61", 80), ("sm_62", 80),
    ("sm_70", 80), ("sm_72", 80), ("sm_75", 80), ("sm_80", 80), ("sm_86", 80), ("sm_87", 80),
    ("sm_89", 80), ("sm_90", 80), ("sm_90a", 80), ("sm_100", 86), ("sm_100a", 86), ("sm_101", 86),
    ("sm_101a", 86), ("sm_103", 88), ("sm_103a", 88), ("sm_120", 87), ("sm_120a", 87), ("sm_121", 88),
    ("sm_121a", 88),
];

/// The PTX ISA version (`80` is 8.0) to build `arch` with, if accc supports it.
pub fn ptx_isa(arch: &str) -> Option<u32> {
    ARCHS.iter().find(|(a, _)| *a == arch).map(|(_, v)| *v)
}

/// The SM number of `sm_90a` (90), for ordering architectures.
pub fn sm_number(arch: &str) -> u32 {
    arch.trim_start_matches("sm_").trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap_or(0)
}

/// The architecture whose PTX is embedded for GPUs newer than every cubin: the oldest one
/// asked for, without its `a` suffix (architecture-specific PTX runs only on that very GPU;
/// plain PTX is compiled by the driver for any later one).
pub fn portable_arch(archs: &[String]) -> String {
    let oldest = archs.iter().min_by_key(|a| sm_number(a)).map(String::as_str).unwrap_or("sm_90");
    oldest.trim_end_matches('a').to_string()
}

/// An NVPTX target machine for one `sm_XX`.
pub struct Nvptx {
    tm: LLVMTargetMachineRef,
}

impl Drop for Nvptx {
    fn drop(&mut self) {
        // SAFETY: created in `new`, disposed once.
        unsafe { LLVMDisposeTargetMachine(self.tm) }
    }
}

impl Nvptx {
    pub fn new(arch: &str, opt_level: u8) -> Result<Nvptx> {
        // SAFETY: target registration is idempotent; all strings are NUL-terminated and
        // copied by LLVM; the error message is freed after reading.
        unsafe {
            llvm_sys::target::LLVMInitializeNVPTXTargetInfo();
            llvm_sys::target::LLVMInitializeNVPTXTarget();
            llvm_sys::target::LLVMInitializeNVPTXTargetMC();
            llvm_sys::target::LLVMInitializeNVPTXAsmPrinter();
            let triple = CString::new(TRIPLE).expect("no NUL");
            let isa = ptx_isa(arch).ok_or_else(|| AccError::internal(format!("no PTX version known for GPU architecture '{arch}'")))?;
            let cpu = CString::new(arch).map_err(|_| AccError::internal("bad arch"))?;
            let features = CString::new(format!("+ptx{isa}")).expect("no NUL");
            let mut target = std::ptr::null_mut();
            let mut err = std::ptr::null_mut();
            if LLVMGetTargetFromTriple(triple.as_ptr(), &mut target, &mut err) != 0 {
                let msg = CStr::from_ptr(err).to_string_lossy().into_owned();
                llvm_sys::core::LLVMDisposeMessage(err);
                return Err(AccError::internal(format!("the NVPTX target is not available in this LLVM: {msg}")));
            }
            let level = match opt_level {
                0 => LLVMCodeGenOptLevel::LLVMCodeGenLevelNone,
                1 => LLVMCodeGenOptLevel::LLVMCodeGenLevelLess,
                2 => LLVMCodeGenOptLevel::LLVMCodeGenLevelDefault,
                _ => LLVMCodeGenOptLevel::LLVMCodeGenLevelAggressive,
            };
            let tm = LLVMCreateTargetMachine(
                target,
                triple.as_ptr(),
                cpu.as_ptr(),
                features.as_ptr(),
                level,
                LLVMRelocMode::LLVMRelocDefault,
                LLVMCodeModel::LLVMCodeModelDefault,
            );
            Ok(Nvptx { tm })
        }
    }

    pub fn raw(&self) -> LLVMTargetMachineRef {
        self.tm
    }

    pub fn data_layout(&self) -> String {
        // SAFETY: the layout is created from the live target machine and disposed here.
        unsafe {
            let dl = LLVMCreateTargetDataLayout(self.tm);
            let s = llvm_sys::target::LLVMCopyStringRepOfTargetData(dl);
            let out = CStr::from_ptr(s).to_string_lossy().into_owned();
            llvm_sys::core::LLVMDisposeMessage(s);
            llvm_sys::target::LLVMDisposeTargetData(dl);
            out
        }
    }

    /// Emits PTX text for a verified device module.
    pub fn emit_ptx(&self, m: Module) -> Result<String> {
        let mut buf = std::ptr::null_mut();
        let mut err = std::ptr::null_mut();
        // SAFETY: live module and target machine; the buffer and message are freed here.
        unsafe {
            if LLVMTargetMachineEmitToMemoryBuffer(self.tm, m.0, LLVMCodeGenFileType::LLVMAssemblyFile, &mut err, &mut buf) != 0 {
                let msg = CStr::from_ptr(err).to_string_lossy().into_owned();
                llvm_sys::core::LLVMDisposeMessage(err);
                return Err(AccError::internal(format!("the NVPTX back end failed: {msg}")));
            }
            let start = llvm_sys::core::LLVMGetBufferStart(buf) as *const u8;
            let len = llvm_sys::core::LLVMGetBufferSize(buf);
            let text = String::from_utf8_lossy(std::slice::from_raw_parts(start, len)).into_owned();
            llvm_sys::core::LLVMDisposeMemoryBuffer(buf);
            Ok(text)
        }
    }
}

pub fn ptxas_path(cuda_dir: &Path) -> PathBuf {
    if let Ok(p) = std::env::var("ACCC_PTXAS") {
        return PathBuf::from(p);
    }
    cuda_dir.join("bin/ptxas")
}

pub fn libdevice_path(cuda_dir: &Path) -> PathBuf {
    cuda_dir.join("nvvm/libdevice/libdevice.10.bc")
}

/// Assembles PTX into a cubin with ptxas, in a scratch directory of its own (a fresh
/// `$TMPDIR/accc-XXXXXX`, removed on every way out but one). `keep` is where the PTX is kept
/// for the user (with -save-temps); otherwise it goes to the scratch directory. A failing
/// ptxas keeps the scratch directory, with the PTX in it, so that the printed command
/// reproduces the failure. `line_info`: the PTX has `.loc` directives, which ptxas keeps in
/// the cubin with `-lineinfo` (`-g` would also turn its optimisations off).
pub fn assemble(ptx: &str, arch: &str, cuda_dir: &Path, keep: Option<&Path>, line_info: bool) -> Result<Vec<u8>> {
    let ptxas = ptxas_path(cuda_dir);
    if !ptxas.exists() {
        return Err(AccError::internal(format!(
            "ptxas not found at {} (run scripts/setup, or set ACCC_PTXAS)",
            ptxas.display()
        )));
    }
    let scratch = tempfile::Builder::new().prefix("accc-").tempdir().map_err(|e| {
        AccError::internal(format!("cannot create a temporary directory in {}: {e}", std::env::temp_dir().display()))
    })?;
    let dir = scratch.path();
    let ptx_path = match keep {
        Some(p) => p.to_path_buf(),
        None => dir.join("kernels.ptx"),
    };
    std::fs::write(&ptx_path, ptx).map_err(|e| AccError::internal(format!("cannot write {}: {e}", ptx_path.display())))?;
    let cubin_path = dir.join("kernels.cubin");
    // --split-compile=0: ptxas optimises the kernels on as many threads as there are cores
    // (the cubin is the same; at 50 small kernels on 2 cores its time halves).
    let flags: &[&str] = if line_info { &["--split-compile=0", "-lineinfo"] } else { &["--split-compile=0"] };
    let out = std::process::Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .args(flags)
        .arg(&ptx_path)
        .arg("-o")
        .arg(&cubin_path)
        .output()
        .map_err(|e| AccError::internal(format!("cannot run {}: {e}", ptxas.display())))?;
    if !out.status.success() {
        // Keep the scratch directory, the PTX in it, so that the command below reproduces
        // the failure.
        let kept = scratch.keep().join("kernels.ptx");
        if keep.is_some() {
            let _ = std::fs::copy(&ptx_path, &kept);
        }
        return Err(AccError::internal(format!(
            "ptxas failed on the generated PTX:\n{}\nreproduce with: {} -arch={arch} {}{} -o {}",
            String::from_utf8_lossy(&out.stderr).trim_end(),
            ptxas.display(),
            flags.iter().map(|f| format!("{f} ")).collect::<String>(),
            kept.display(),
            cubin_path.display()
        )));
    }
    std::fs::read(&cubin_path).map_err(|e| AccError::internal(format!("cannot read {}: {e}", cubin_path.display())))
}
