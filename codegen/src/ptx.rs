//! The last two stages: device `.ll` → `.ptx` (LLVM's NVPTX back end, in-process) and
//! `.ptx` → `.cubin` (ptxas from the CUDA nvcc wheel).
//!
//! Architecture invariant: besides the driver, this is the only place that spawns a
//! process (ptxas). A failing ptxas is reported with the exact command to reproduce it.

use crate::error::{AccError, Result};
use crate::ir::OwnedModule;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
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

/// An NVPTX target machine for one `sm_XX` (inkwell's).
pub struct Nvptx {
    tm: TargetMachine,
}

impl Nvptx {
    pub fn new(arch: &str, opt_level: u8) -> Result<Nvptx> {
        // Registration is idempotent.
        Target::initialize_nvptx(&InitializationConfig { asm_parser: false, disassembler: false, ..Default::default() });
        let triple = TargetTriple::create(TRIPLE);
        let isa = ptx_isa(arch).ok_or_else(|| AccError::internal(format!("no PTX version known for GPU architecture '{arch}'")))?;
        let target = Target::from_triple(&triple).map_err(|e| AccError::internal(format!("the NVPTX target is not available in this LLVM: {e}")))?;
        let level = match opt_level {
            0 => OptimizationLevel::None,
            1 => OptimizationLevel::Less,
            2 => OptimizationLevel::Default,
            _ => OptimizationLevel::Aggressive,
        };
        let tm = target
            .create_target_machine(&triple, arch, &format!("+ptx{isa}"), level, RelocMode::Default, CodeModel::Default)
            .ok_or_else(|| AccError::internal(format!("LLVM cannot make an NVPTX target machine for {arch}")))?;
        Ok(Nvptx { tm })
    }

    pub fn machine(&self) -> &TargetMachine {
        &self.tm
    }

    pub fn data_layout(&self) -> String {
        self.tm.get_target_data().get_data_layout().as_str().to_string_lossy().into_owned()
    }

    /// Emits PTX text for a verified device module (code generation changes the module:
    /// pass a copy).
    pub fn emit_ptx(&self, m: &OwnedModule<'_>) -> Result<String> {
        let buf = self
            .tm
            .write_to_memory_buffer(m.ink(), FileType::Assembly)
            .map_err(|e| AccError::internal(format!("the NVPTX back end failed: {e}")))?;
        Ok(String::from_utf8_lossy(buf.as_slice()).into_owned())
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
/// the cubin with `-lineinfo` (`-g` would also turn its optimisations off). `relocatable`:
/// `-c`, a cubin to link (routine.rs: calls between files' device code), which may call
/// functions it declares `.extern`.
pub fn assemble(ptx: &str, arch: &str, cuda_dir: &Path, keep: Option<&Path>, line_info: bool, relocatable: bool) -> Result<Vec<u8>> {
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
    let mut flags: Vec<&str> = vec!["--split-compile=0"];
    if line_info {
        flags.push("-lineinfo");
    }
    if relocatable {
        flags.push("-c");
    }
    let out = std::process::Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .args(&flags)
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
