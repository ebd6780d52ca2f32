//! `accc`: the OpenACC C compiler driver.
//!
//! Per C input: validate with clang (the user's diagnostics) while preprocessing (`clang
//! -E`, at the same time: both only read the source) → rewrite every `#pragma acc` into `__acc_*` marker calls (docs/ir-contract.md) →
//! compile the rewritten text with the `acc-offload` pass plugin (or, for `-emit-llvm`,
//! without it, giving the contract IR). Then link the objects with the runtime (`libaccrt.so`,
//! or `libaccrt-static.a` with `-static-libaccrt`).

mod atomic;
mod compile;
mod error;
mod flags;
mod implicit;
mod operand;
mod pragma;
mod rewrite;
mod routine;
mod stmt;
mod tile;
mod tokenize;
mod validate;

use std::path::{Path, PathBuf};

use compile::{Output, Source};
use error::{eprint_line, print_out, DriverError, Result};
use flags::{Action, Input, Mode, Options};

/// The scratch directory of one run: a fresh `$TMPDIR/accc-XXXXXX` (random name, created by
/// us alone), removed when dropped, so on every way out of `run`: success, errors, panics.
fn scratch_dir() -> Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix("accc-").tempdir().map_err(|e| {
        DriverError::Internal(format!("cannot create a temporary directory in {}: {}", std::env::temp_dir().display(), e))
    })
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

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).map_err(|e| DriverError::User(format!("cannot write '{}': {}", path.display(), e)))
}

/// Largest source file the rewriter reads for columns (a bigger one falls back to the
/// preprocessed text's columns).
const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Reads a file the preprocessor opened, for the rewriter's columns and clause texts: a
/// regular file only (never a device or FIFO), at most [`MAX_SOURCE_BYTES`], as same-length
/// UTF-8 so that columns are byte columns, as in clang's diagnostics.
fn read_source(name: &str) -> Option<String> {
    let meta = std::fs::metadata(name).ok()?;
    if !meta.is_file() || meta.len() > MAX_SOURCE_BYTES {
        return None;
    }
    let bytes = std::fs::read(name).ok()?;
    Some(tokenize::same_length_utf8(&bytes).into_owned())
}

/// Where one compile writes its outputs: the output file, what it is, and the directory
/// of `-save-temps` files.
struct Target<'a> {
    out: &'a str,
    kind: Output,
    save_dir: &'a Path,
    /// Where the JSON compile report goes (`-Minfo=json`).
    info_json: Option<PathBuf>,
}

/// Runs steps 1–4 for one C source (`preprocessed`: a `.i`, which step 2 leaves alone).
fn compile_c(o: &Options, src: &str, preprocessed: bool, scratch: &Path, index: usize, t: &Target) -> Result<()> {
    let st = stem(src);
    let ipp = if preprocessed {
        compile::validate(o, src, "cpp-output").run_validation(o)?;
        if o.dry_run {
            Vec::new()
        } else {
            std::fs::read(src).map_err(|e| DriverError::User(format!("cannot read '{}': {}", src, e)))?
        }
    } else {
        validate_and_preprocess(o, src, scratch, index, t)?
    };
    let acc_i_path = if o.save_temps { t.save_dir.join(format!("{st}.acc.i")) } else { scratch.join(format!("{index}-{st}.acc.i")) };
    if o.dry_run {
        eprint_line(format!("accc: {src}: OpenACC directives would be rewritten into {}", acc_i_path.display()));
        return compile_contract(o, &acc_i_path, Source::RewrittenC, &st, t);
    }
    let rewritten = rewrite::rewrite(&ipp, &mut read_source).map_err(DriverError::Unsupported)?;
    write_file(&acc_i_path, &rewritten.text)?;
    if o.verbose {
        eprint_line(format!(
            "accc: {}: {} OpenACC directive(s) rewritten into {}",
            src,
            rewritten.directives,
            acc_i_path.display()
        ));
    }
    compile_contract(o, &acc_i_path, Source::RewrittenC, &st, t)
}

/// Steps 1 and 2: the user's diagnostics, and the preprocessed source (also written to
/// `<stem>.i` with `-save-temps`). Both only read the source, so they run at once. The
/// dependency file goes to scratch first, so that a program with errors leaves none.
fn validate_and_preprocess(o: &Options, src: &str, scratch: &Path, index: usize, t: &Target) -> Result<Vec<u8>> {
    let st = stem(src);
    let i_path = if o.save_temps { t.save_dir.join(format!("{st}.i")) } else { scratch.join(format!("{index}-{st}.i")) };
    let mut deps = flags::dep_flags(o, src);
    let dep_file = redirect_dep_file(&mut deps, &scratch.join(format!("{index}-{st}.d")));
    let preprocessing = compile::preprocess(o, src, "c", &deps, Some(&i_path)).spawn_quiet(o)?;
    if let Err(e) = compile::validate(o, src, "c").run_validation(o) {
        preprocessing.abandon();
        return Err(e);
    }
    preprocessing.finish()?;
    if o.dry_run {
        return Ok(Vec::new());
    }
    if let Some((scratch_d, user_d)) = dep_file {
        std::fs::copy(&scratch_d, &user_d).map_err(|e| DriverError::User(format!("cannot write '{}': {}", user_d, e)))?;
    }
    std::fs::read(&i_path).map_err(|e| DriverError::Internal(format!("cannot read '{}': {}", i_path.display(), e)))
}

/// Points the last `-MF` of `deps` at `scratch`; returns (scratch, the user's file).
fn redirect_dep_file(deps: &mut [String], scratch: &Path) -> Option<(PathBuf, String)> {
    let at = deps.iter().rposition(|d| d == "-MF")? + 1;
    let user = std::mem::replace(deps.get_mut(at)?, scratch.to_string_lossy().into_owned());
    Some((scratch.to_path_buf(), user))
}

/// Compiles contract code (a rewritten `.acc.i` or IR) to the target; with `-save-temps`
/// first dumps `<stem>.acc.ll`, the contract IR exactly as the pass receives it.
fn compile_contract(o: &Options, input: &Path, source: Source, st: &str, t: &Target) -> Result<()> {
    let prefix = if o.save_temps { t.save_dir.join(st).to_string_lossy().into_owned() } else { String::new() };
    if o.save_temps && source == Source::RewrittenC && t.kind != Output::IrText {
        let ll = t.save_dir.join(format!("{st}.acc.ll"));
        compile::compile(o, input, source, &ll, Output::IrText, "", None)?.run(o)?;
    }
    compile::compile(o, input, source, Path::new(t.out), t.kind, &prefix, t.info_json.as_deref())?.run(o)
}

/// Compiles one input of any compiled kind to the target.
fn compile_input(o: &Options, input: &Input, scratch: &Path, index: usize, t: &Target) -> Result<()> {
    match input {
        Input::C(src) => compile_c(o, src, false, scratch, index, t),
        Input::CppOutput(src) => compile_c(o, src, true, scratch, index, t),
        Input::Ir(path) => compile_contract(o, Path::new(path), Source::Ir, &stem(path), t),
        Input::Asm { path, cpp } => compile::assemble(o, path, *cpp, Path::new(t.out)).run(o),
        Input::Linker(p) => Err(DriverError::Internal(format!("'{}' is not compiled", p))),
    }
}

fn check_exists(o: &Options) -> Result<()> {
    for input in &o.inputs {
        let p = input.path();
        if !Path::new(p).exists() {
            return Err(DriverError::User(format!("no such file or directory: '{}'", p)));
        }
    }
    Ok(())
}

/// `-E`, `-M`, `-MM`: clang preprocesses (or lists dependencies) with the user's `-o`,
/// so its own defaults for the dependency target and file apply.
fn preprocess_only(o: &Options) -> Result<()> {
    let out = o.output.as_deref().filter(|p| *p != "-").map(Path::new);
    for input in &o.inputs {
        let lang = match input {
            Input::C(_) => "c",
            Input::CppOutput(_) => "cpp-output",
            Input::Asm { cpp: true, .. } => "assembler-with-cpp",
            Input::Asm { cpp: false, .. } => "assembler",
            Input::Ir(_) | Input::Linker(_) => continue,
        };
        compile::preprocess(o, input.path(), lang, &o.deps, out).run(o)?;
    }
    Ok(())
}

/// `-c`/`-S`: one output per input, named by `-o` or after the input.
fn compile_only(o: &Options, scratch: &Path) -> Result<()> {
    let (kind, ext) = match (o.mode, o.emit_llvm) {
        (Mode::Assemble, true) => (Output::IrText, "ll"),
        (Mode::Assemble, false) => (Output::Assembly, "s"),
        (_, true) => (Output::IrBitcode, "bc"),
        (_, false) => (Output::Object, "o"),
    };
    for (k, input) in o.inputs.iter().enumerate() {
        let out = o.output.clone().unwrap_or_else(|| format!("{}.{}", stem(input.path()), ext));
        let save_dir = dir_of(&out);
        // Beside the object: `t.o` → `t.accinfo.json`.
        let info_json = Some(Path::new(&out).with_extension("accinfo.json"));
        compile_input(o, input, scratch, k, &Target { out: &out, kind, save_dir: &save_dir, info_json })?;
    }
    Ok(())
}

/// Compiles every source input to an object, then links them with the runtime.
fn compile_and_link(o: &Options, scratch: &Path) -> Result<()> {
    let out = o.output.clone().unwrap_or_else(|| "a.out".into());
    let save_dir = dir_of(&out);
    let mut objects = Vec::new();
    for (k, input) in o.inputs.iter().enumerate() {
        if let Input::Linker(p) = input {
            objects.push(p.clone());
            continue;
        }
        let st = stem(input.path());
        let obj = if o.save_temps { save_dir.join(format!("{st}.o")) } else { scratch.join(format!("{k}-{st}.o")) };
        let obj = obj.to_string_lossy().into_owned();
        // Beside the program (the object is a scratch file): `<stem>.accinfo.json`.
        let info_json = Some(save_dir.join(format!("{st}.accinfo.json")));
        compile_input(o, input, scratch, k, &Target { out: &obj, kind: Output::Object, save_dir: &save_dir, info_json })?;
        objects.push(obj);
    }
    compile::link(o, &objects, &out)?.run(o)
}

fn run(args: &[String]) -> Result<()> {
    let o = flags::parse(args)?;
    match o.action {
        Action::Help => {
            print_out(flags::HELP);
            return Ok(());
        }
        Action::Version => {
            print_out(&format!(
                "accc version {} (OpenACC C compiler for NVIDIA GPUs; default --gpu-arch={})\nfront end: {}\n",
                env!("CARGO_PKG_VERSION"),
                flags::DEFAULT_GPU_ARCH,
                compile::clang()
            ));
            return Ok(());
        }
        Action::Run => {}
    }
    check_exists(&o)?;
    if o.mode == Mode::Preprocess {
        return preprocess_only(&o);
    }
    let scratch = scratch_dir()?;
    if o.mode == Mode::Link {
        compile_and_link(&o, scratch.path())
    } else {
        compile_only(&o, scratch.path())
    }
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        eprint_line(format!("accc: error: internal compiler error (this is a bug in accc, please report it): {}", info));
    }));
    // Arguments are handled as text; a file name that is not UTF-8 would otherwise turn into
    // another (nonexistent) name.
    let args: Vec<String> = match std::env::args_os().skip(1).map(|a| a.into_string()).collect() {
        Ok(args) => args,
        Err(bad) => {
            eprint_line(format!(
                "accc: error: argument '{}' is not valid UTF-8 (accc takes file names and flags in UTF-8)",
                bad.to_string_lossy()
            ));
            std::process::exit(1);
        }
    };
    let code = match std::panic::catch_unwind(|| run(&args)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            eprint_line(e);
            1
        }
        Err(_) => 1,
    };
    std::process::exit(code);
}
