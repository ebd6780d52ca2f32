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

/// The PTX ISA version with `atom.cas.b128` at system scope (LLVM gives monotonic
/// atomics `.relaxed.sys`; 8.3 has the instruction only at narrower scopes).
const WIDE_CAS_ISA: u32 = 84;

/// Whether a function of `m` has a compare-and-swap wider than 64 bits.
fn has_wide_cas(m: crate::ir::Module<'_>) -> bool {
    m.functions().into_iter().flat_map(|f| f.blocks()).flat_map(|b| b.instructions()).any(|i| {
        i.opcode() == Some(llvm_sys::LLVMOpcode::LLVMAtomicCmpXchg) && i.operand(1).ty().is_int() && i.operand(1).ty().int_width() > 64
    })
}

/// An NVPTX target machine for one `sm_XX` (inkwell's).
pub struct Nvptx {
    tm: TargetMachine,
}

impl Nvptx {
    pub fn new(arch: &str, opt_level: u8) -> Result<Nvptx> {
        Self::with_isa(arch, opt_level, 0)
    }

    /// The target machine for code generation of `module`: a module with a 128-bit
    /// compare-and-swap (atomic_reduction.rs, a `double _Complex` product) needs PTX 8.4 (for its `.sys` scope) and
    /// sm_90, where `atom.cas.b128` first exists.
    pub fn for_module(arch: &str, opt_level: u8, module: crate::ir::Module<'_>) -> Result<Nvptx> {
        if !has_wide_cas(module) {
            return Self::new(arch, opt_level);
        }
        if sm_number(arch) < 90 {
            return Err(AccError::user(
                &crate::error::Loc::default(),
                format!("a 'double _Complex' array reduction with '*' updates its elements with a 128-bit compare-and-swap, which GPU architecture {arch} lacks (sm_90 or newer has it): build for sm_90 or newer, or give the reduction constant bounds"),
            ));
        }
        Self::with_isa(arch, opt_level, WIDE_CAS_ISA)
    }

    fn with_isa(arch: &str, opt_level: u8, min_isa: u32) -> Result<Nvptx> {
        // Registration is idempotent.
        Target::initialize_nvptx(&InitializationConfig { asm_parser: false, disassembler: false, ..Default::default() });
        let triple = TargetTriple::create(TRIPLE);
        let isa = ptx_isa(arch).ok_or_else(|| AccError::internal(format!("no PTX version known for GPU architecture '{arch}'")))?.max(min_isa);
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
        // ptxas miscompiles some of what LLVM emits; ptx_fixups.rs rewrites it first.
        Ok(crate::ptx_fixups::work_around_ptxas(&String::from_utf8_lossy(buf.as_slice())))
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
/// functions it declares `.extern`. `verbose`: `-v`, whose per-kernel resource lines
/// (`parse_usage`) come back as the second value (empty otherwise); ptxas then compiles the
/// kernels on one thread, so that each kernel's lines stay together.
pub fn assemble(ptx: &str, arch: &str, cuda_dir: &Path, keep: Option<&Path>, line_info: bool, relocatable: bool, verbose: bool) -> Result<(Vec<u8>, String)> {
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
    let mut flags: Vec<&str> = vec![if verbose { "-v" } else { "--split-compile=0" }];
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
    let cubin = std::fs::read(&cubin_path).map_err(|e| AccError::internal(format!("cannot read {}: {e}", cubin_path.display())))?;
    let log = if verbose { String::from_utf8_lossy(&out.stderr).into_owned() } else { String::new() };
    Ok((cubin, log))
}

/// What ptxas says one kernel uses (`ptxas -v`), and how many read-only cache loads its
/// PTX has (`count_nc_loads`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub kernel: String,
    pub arch: String,
    pub registers: u32,
    pub shared_bytes: u64,
    pub stack_bytes: u64,
    pub spill_stores: u64,
    pub spill_loads: u64,
    pub nc_loads: u32,
    /// Assembled with `-c` (a relocatable cubin): the module's `.shared` arrays are placed
    /// when the image is linked at load time, so `shared_bytes` leaves them out.
    pub relocatable: bool,
}

/// Reads `ptxas -v`'s lines per entry function: `Compiling entry function 'k' for 'sm_90'`,
/// then `N bytes stack frame, N bytes spill stores, N bytes spill loads` and `Used N
/// registers, used N barriers, N bytes smem` (the smem part only when there is some;
/// `cmem[...]` and other parts are skipped). Device functions (`Function properties for`
/// without a `Compiling entry function` of their own) are not kernels and are skipped.
pub fn parse_usage(log: &str) -> Vec<Usage> {
    let mut out: Vec<Usage> = Vec::new();
    let mut current: Option<usize> = None;
    let number = |word: &str| word.trim().parse::<u64>().ok();
    for line in log.lines() {
        let text = line.trim_start_matches("ptxas info").trim_start_matches(|c: char| c == ' ' || c == ':').trim();
        if let Some(rest) = text.strip_prefix("Compiling entry function '") {
            let mut parts = rest.split('\'');
            let kernel = parts.next().unwrap_or("").to_string();
            let arch = parts.nth(1).unwrap_or("").to_string();
            out.push(Usage { kernel, arch, ..Usage::default() });
            current = Some(out.len() - 1);
        } else if let Some(rest) = text.strip_prefix("Function properties for ") {
            // Properties of the entry being compiled, or of a device function: only the
            // former counts.
            current = current.filter(|&i| out[i].kernel == rest.trim());
        } else if let Some(u) = current.map(|i| &mut out[i]) {
            for part in text.split(',').map(str::trim) {
                let (n, what) = part.trim_start_matches("Used ").trim_start_matches("used ").split_once(' ').unwrap_or(("", ""));
                let Some(n) = number(n) else { continue };
                match what.trim() {
                    "registers" => u.registers = n as u32,
                    "bytes smem" => u.shared_bytes = n,
                    "bytes stack frame" => u.stack_bytes = n,
                    "bytes spill stores" => u.spill_stores = n,
                    "bytes spill loads" => u.spill_loads = n,
                    _ => {}
                }
            }
        }
    }
    out
}

/// Per `.entry` of a PTX text: how many `ld.global.nc` (read-only data cache) loads its
/// body has. Loads in `.func`s it calls are not counted (the kernels' code is inlined).
pub fn count_nc_loads(ptx: &str) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut in_entry = false;
    for line in ptx.lines() {
        let t = line.trim_start();
        let decl = t.trim_start_matches(".visible ").trim_start_matches(".weak ").trim_start_matches(".extern ");
        if let Some(rest) = decl.strip_prefix(".entry ") {
            let name = rest.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or("");
            out.push((name.to_string(), 0));
            in_entry = true;
        } else if decl.starts_with(".func ") {
            in_entry = false;
        } else if in_entry && t.starts_with("ld.global.nc") {
            if let Some(last) = out.last_mut() {
                last.1 += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// As ptxas 12.9 prints it with `-v` (smem only when used; a device function's
    /// properties in between).
    const LOG: &str = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'saxpy_l14' for 'sm_90'
ptxas info    : Function properties for saxpy_l14
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 18 registers, used 0 barriers
ptxas info    : Compile time = 4.469 ms
ptxas info    : Function properties for __acc_helper
    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Compiling entry function 'gang_sum_l4' for 'sm_90'
ptxas info    : Function properties for gang_sum_l4
    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 31 registers, used 1 barriers, 800 bytes smem, 368 bytes cmem[0]
ptxas info    : Compile time = 38.289 ms
";

    #[test]
    fn reads_ptxas_verbose_output() {
        let u = parse_usage(LOG);
        assert_eq!(
            u,
            vec![
                Usage { kernel: "saxpy_l14".into(), arch: "sm_90".into(), registers: 18, ..Usage::default() },
                Usage {
                    kernel: "gang_sum_l4".into(),
                    arch: "sm_90".into(),
                    registers: 31,
                    shared_bytes: 800,
                    stack_bytes: 24,
                    spill_stores: 8,
                    spill_loads: 12,
                    nc_loads: 0,
                    relocatable: false
                },
            ]
        );
        assert!(parse_usage("").is_empty());
        assert!(parse_usage("ptxas info    : 0 bytes gmem\n").is_empty());
    }

    #[test]
    fn counts_read_only_loads_per_entry() {
        let ptx = ".visible .entry k1(\n\t.param .u64 k1_param_0\n)\n{\n\tld.global.nc.b32 %r1, [%rd1];\n\tld.global.b32 %r2, [%rd2];\n\tld.global.nc.v2.f64 {%fd1, %fd2}, [%rd3];\n}\n.func helper()\n{\n\tld.global.nc.b32 %r1, [%rd1];\n}\n.visible .entry k2()\n{\n\tret;\n}\n";
        assert_eq!(count_nc_loads(ptx), vec![("k1".to_string(), 2), ("k2".to_string(), 0)]);
    }
}
