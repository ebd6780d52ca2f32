//! `accc`: the OpenACC C compiler driver.
//!
//! Per C input: validate with clang (the user's diagnostics) → preprocess (`clang -E`) →
//! rewrite every `#pragma acc` into `__acc_*` marker calls (docs/ir-contract.md) →
//! compile the rewritten text with the `acc-offload` pass plugin (or, for `-emit-llvm`,
//! without it, giving the contract IR). Then link the objects with the runtime (`libaccrt.so`,
//! or `libaccrt.a` with `-static-libaccrt`).

mod compile;
mod error;
mod flags;
mod operand;
mod pragma;
mod rewrite;
mod stmt;
mod tokenize;

use std::path::{Path, PathBuf};

use compile::Output;
use error::{DriverError, Result};
use flags::{Action, Input, Mode, Options};

/// A scratch directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let p = std::env::temp_dir().join(format!("accc-{}-{}", std::process::id(), nanos));
        std::fs::create_dir_all(&p)
            .map_err(|e| DriverError::Internal(format!("cannot create temporary directory {}: {}", p.display(), e)))?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn stem(path: &str) -> String {
    Path::new(path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into())
}

/// The directory an output goes to ("." for a bare name or stdout).
fn dir_of(path: &str) -> PathBuf {
    match Path::new(path).parent() {
        Some(p) if !p.as_os_str().is_empty() && path != "-" => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| DriverError::User(format!("cannot write '{}': {}", path.display(), e)))
}

/// Runs steps 1–4 for one C source; `out` is the file the compile step writes.
fn compile_c(o: &Options, src: &str, scratch: &Path, index: usize, out: &str, kind: Output, save_dir: &Path) -> Result<()> {
    let st = stem(src);
    compile::validate(o, src).run(o.verbose)?;

    let (i_path, acc_i_path) = if o.save_temps {
        (save_dir.join(format!("{st}.i")), save_dir.join(format!("{st}.acc.i")))
    } else {
        (scratch.join(format!("{index}-{st}.i")), scratch.join(format!("{index}-{st}.acc.i")))
    };
    compile::preprocess(o, src, Some(&i_path)).run(o.verbose)?;
    let ipp = std::fs::read(&i_path)
        .map_err(|e| DriverError::Internal(format!("cannot read '{}': {}", i_path.display(), e)))?;
    let ipp = String::from_utf8_lossy(&ipp);

    let rewritten = rewrite::rewrite(&ipp, &mut |name: &str| std::fs::read_to_string(name).ok())
        .map_err(DriverError::Unsupported)?;
    write_file(&acc_i_path, &rewritten.text)?;
    if o.verbose {
        eprintln!("accc: {}: {} OpenACC directive(s) rewritten into {}", src, rewritten.directives, acc_i_path.display());
    }

    let prefix = if o.save_temps { save_dir.join(&st).to_string_lossy().into_owned() } else { String::new() };
    if o.save_temps && kind != Output::IrText {
        // The contract IR exactly as the pass receives it (pipeline start): no LLVM passes.
        let ll = save_dir.join(format!("{st}.acc.ll"));
        let mut dump = compile::compile(o, &acc_i_path, &ll, Output::IrText, "")?;
        dump.arg("-Xclang").arg("-disable-llvm-passes");
        dump.run(o.verbose)?;
    }
    compile::compile(o, &acc_i_path, Path::new(out), kind, &prefix)?.run(o.verbose)
}

fn check_exists(o: &Options) -> Result<()> {
    for input in &o.inputs {
        let p = match input {
            Input::C(p) | Input::Linker(p) => p,
        };
        if !Path::new(p).exists() {
            return Err(DriverError::User(format!("no such file or directory: '{}'", p)));
        }
    }
    Ok(())
}

fn run(args: &[String]) -> Result<()> {
    let o = flags::parse(args)?;
    match o.action {
        Action::Help => {
            print!("{}", flags::HELP);
            return Ok(());
        }
        Action::Version => {
            println!(
                "accc version {} (OpenACC C compiler for NVIDIA GPUs; default --gpu-arch={})",
                env!("CARGO_PKG_VERSION"),
                flags::DEFAULT_GPU_ARCH
            );
            println!("front end: {}", compile::clang());
            return Ok(());
        }
        Action::Run => {}
    }
    check_exists(&o)?;

    if o.mode == Mode::Preprocess {
        for input in &o.inputs {
            if let Input::C(src) = input {
                let out = o.output.as_deref().filter(|p| *p != "-").map(Path::new);
                compile::preprocess(&o, src, out).run(o.verbose)?;
            }
        }
        return Ok(());
    }

    let scratch = TempDir::new()?;
    if o.mode != Mode::Link {
        let (kind, ext) = match (o.mode, o.emit_llvm) {
            (Mode::Assemble, true) => (Output::IrText, "ll"),
            (Mode::Assemble, false) => (Output::Assembly, "s"),
            (_, true) => (Output::IrBitcode, "bc"),
            (_, false) => (Output::Object, "o"),
        };
        for (k, input) in o.inputs.iter().enumerate() {
            if let Input::C(src) = input {
                let out = o.output.clone().unwrap_or_else(|| format!("{}.{}", stem(src), ext));
                compile_c(&o, src, &scratch.0, k, &out, kind, &dir_of(&out))?;
            }
        }
        return Ok(());
    }

    let out = o.output.clone().unwrap_or_else(|| "a.out".into());
    let save_dir = dir_of(&out);
    let mut objects = Vec::new();
    for (k, input) in o.inputs.iter().enumerate() {
        match input {
            Input::C(src) => {
                let obj = if o.save_temps {
                    save_dir.join(format!("{}.o", stem(src)))
                } else {
                    scratch.0.join(format!("{}-{}.o", k, stem(src)))
                };
                let obj = obj.to_string_lossy().into_owned();
                compile_c(&o, src, &scratch.0, k, &obj, Output::Object, &save_dir)?;
                objects.push(obj);
            }
            Input::Linker(p) => objects.push(p.clone()),
        }
    }
    compile::link(&o, &objects, &out)?.run(o.verbose)
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("accc: error: internal compiler error (this is a bug in accc, please report it): {}", info);
    }));
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let code = match std::panic::catch_unwind(|| run(&args)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            eprintln!("{}", e);
            1
        }
        Err(_) => 1,
    };
    std::process::exit(code);
}
