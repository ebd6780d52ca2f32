//! Command-line parsing (gcc/clang style, by hand: `-I dir` and `-Idir`, `-O2`, `-Wl,...`).
//!
//! Flags are sorted by where they go: preprocessing (`-I -D -U -include -M...`),
//! language (`-std=`, `-f...`, `-m...`: every clang step), warnings (validation only: the
//! validation step is the single place user diagnostics come from), code generation
//! (`-O -g`), and linking (`-l -L -Wl, -shared ...`).
//!
//! Why not clap (which `accfuzz`, a command line of our own design, uses): accc's command
//! line is GCC's, made for `CC=accc make` and CMake, and it does not fit clap's model.
//! - Long flags take one dash (`-save-temps`, `-emit-llvm`, `-static-libaccrt`, `-pthread`,
//!   `-include file`, `-MF file`); clap reads `-save-temps` as the short flags `-s -a -v ...`.
//! - Values join their flag at any length (`-O2`, `-lm`, `-Idir`, `-DN=3`, `-MFfile`,
//!   `-isystemdir`, `-Wl,-rpath,x`), and whole families pass through by prefix (`-f...`,
//!   `-m...`, `-W...`, `-g...`) to the steps they belong to; clap knows joined values for
//!   one-letter flags only, and rejects flags it was not told about.
//! - Order is meaning: `-x c a -x none b` sets the language of the inputs after it, and
//!   `-l`, `-Wl,` and linker inputs reach the link in command-line order; clap groups
//!   values per argument.
//! - `-###` is no name clap accepts, and errors must read as GCC's (`argument to '-o' is
//!   missing`, `invalid optimization level '-O9'`), which build systems' compiler checks see.

use crate::error::{DriverError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `-E`: preprocess only (to stdout or -o).
    Preprocess,
    /// `-S`: assembly (or LLVM IR text with -emit-llvm).
    Assemble,
    /// `-c`: object (or bitcode with -emit-llvm).
    Compile,
    /// Compile and link.
    Link,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A C source file (`.c`, or any name after `-x c`).
    C(String),
    /// Preprocessed C (`.i`, or after `-x cpp-output`), e.g. what `accc -E` wrote (ccache
    /// compiles those): rewritten and compiled like C, not preprocessed again.
    CppOutput(String),
    /// LLVM IR (`.ll`, `.bc`, or after `-x ir`), e.g. an `accc -emit-llvm` dump: it carries
    /// the contract already, so it is compiled with the pass and not rewritten.
    Ir(String),
    /// Assembly, assembled by clang: `.s` (`-x assembler`) or `.S` (`-x assembler-with-cpp`,
    /// `cpp` set: clang preprocesses it first).
    Asm { path: String, cpp: bool },
    /// Anything handed to the linker as is (`.o`, `.a`, `.so`, ...).
    Linker(String),
}

impl Input {
    pub fn path(&self) -> &str {
        match self {
            Input::C(p) | Input::CppOutput(p) | Input::Ir(p) | Input::Linker(p) => p,
            Input::Asm { path, .. } => path,
        }
    }

    /// True for inputs that a compile step turns into an output (all but linker inputs).
    pub fn is_compiled(&self) -> bool {
        !matches!(self, Input::Linker(_))
    }
}

/// The language `-x` forces on the inputs after it (`-x none`: None, by extension again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    C,
    CppOutput,
    Ir,
    Asm,
    AsmCpp,
}

fn parse_lang(name: &str) -> Result<Option<Lang>> {
    match name {
        "none" => Ok(None),
        "c" => Ok(Some(Lang::C)),
        "cpp-output" => Ok(Some(Lang::CppOutput)),
        "ir" => Ok(Some(Lang::Ir)),
        "assembler" => Ok(Some(Lang::Asm)),
        "assembler-with-cpp" => Ok(Some(Lang::AsmCpp)),
        other => Err(DriverError::User(format!(
            "language '{}' is not supported (-x accepts c, cpp-output, ir, assembler, assembler-with-cpp, none)",
            other
        ))),
    }
}

fn input_of_lang(path: &str, lang: Lang) -> Input {
    let path = path.to_string();
    match lang {
        Lang::C => Input::C(path),
        Lang::CppOutput => Input::CppOutput(path),
        Lang::Ir => Input::Ir(path),
        Lang::Asm => Input::Asm { path, cpp: false },
        Lang::AsmCpp => Input::Asm { path, cpp: true },
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Run,
    Help,
    Version,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub action: Action,
    pub mode: Mode,
    pub emit_llvm: bool,
    pub inputs: Vec<Input>,
    pub output: Option<String>,
    /// `-O2` etc. (last one wins); None means clang's default (-O0).
    pub opt: Option<String>,
    pub debug: Vec<String>,
    /// `-I -D -U -include -isystem -nostdinc ...`: validation and preprocessing.
    pub pp: Vec<String>,
    /// `-nostdinc` or `-nobuiltininc`: the compiler's own headers are off, accc's
    /// `openacc.h` among them (`-nostdlibinc` keeps them, as clang's do).
    pub no_builtin_includes: bool,
    /// `-M -MM -MD -MMD -MF -MT -MQ -MP -MG`: preprocessing only (see [`dep_flags`]).
    pub deps: Vec<String>,
    /// `-std= -f... -m... -pthread`: every clang step (those that also matter when linking,
    /// like `-fsanitize=`, are in `link` too).
    pub lang: Vec<String>,
    /// `-W... -w -pedantic`: validation only.
    pub warn: Vec<String>,
    /// `-Wa,...`: compile step.
    pub asm: Vec<String>,
    /// `-l -L -Wl, -shared -static ...` in command-line order.
    pub link: Vec<String>,
    /// `-static-libaccrt`: link `libaccrt-static.a` instead of `-laccrt` (`libaccrt.so`).
    pub static_libaccrt: bool,
    pub gpu_arch: String,
    pub save_temps: bool,
    pub verbose: bool,
    /// `-###`: print the commands, run none (the rewrite between them is named, not done).
    pub dry_run: bool,
    /// `-Minfo`, `-Minfo=accel` or `=all`: the compile report on stderr (codegen report.rs).
    pub info: bool,
    /// `-Minfo=json`: the compile report as JSON, `<output>.accinfo.json` per input.
    pub info_json: bool,
}

pub const DEFAULT_GPU_ARCH: &str = "sm_90";

/// What `--gpu-arch` and `-gpu=` accept (the pass's codegen/src/ptx.rs ARCHS: each builds).
const KNOWN_ARCHS: &[&str] = &[
    "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80",
    "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_101", "sm_101a",
    "sm_103", "sm_103a", "sm_120", "sm_120a", "sm_121", "sm_121a",
];

fn check_arch(arch: &str) -> Result<String> {
    if KNOWN_ARCHS.contains(&arch) {
        Ok(arch.to_string())
    } else {
        Err(DriverError::User(format!(
            "unknown GPU architecture '{}' (expected one of: {})",
            arch,
            KNOWN_ARCHS.join(", ")
        )))
    }
}

/// `--gpu-arch=sm_80[,sm_90...]`: one cubin per architecture, passed on as `sm_80,sm_90`.
fn gpu_arch_list(spec: &str) -> Result<String> {
    let archs = spec.split(',').map(check_arch).collect::<Result<Vec<_>>>()?;
    Ok(archs.join(","))
}

/// NVHPC's `-gpu=cc90[,cc80a...]`: every ccXX names an architecture to build for.
fn nvhpc_gpu(spec: &str) -> Result<String> {
    let mut archs = Vec::new();
    for item in spec.split(',') {
        match item.strip_prefix("cc") {
            Some(num) if !num.is_empty() && num.chars().all(|c| c.is_ascii_alphanumeric()) => {
                archs.push(check_arch(&format!("sm_{}", num))?);
            }
            _ => {
                return Err(DriverError::User(format!(
                    "unsupported -gpu= sub-option '{}' (only ccXX is supported)",
                    item
                )))
            }
        }
    }
    if archs.is_empty() {
        return Err(DriverError::User("-gpu= needs a ccXX value".into()));
    }
    Ok(archs.join(","))
}

/// NVHPC's `-Minfo[=a,b,...]`: `accel` (and `all`, and no value) turn the compile report
/// on, `json` its JSON form. NVHPC's other kinds (`loop`, `inline`, `vect`, ...) report on
/// host optimisations accc leaves to clang: accepted, with a warning that says so, so that
/// build files written for NVHPC work unchanged.
fn minfo(o: &mut Options, spec: &str) {
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item {
            "accel" | "all" => o.info = true,
            "json" => o.info_json = true,
            other => crate::error::eprint_line(format!(
                "accc: warning: -Minfo={other} is not reported (accc reports only -Minfo=accel and -Minfo=json)"
            )),
        }
    }
}

fn classify_input(path: &str) -> Result<Input> {
    let ext = std::path::Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "c" => Ok(Input::C(path.to_string())),
        "ll" | "bc" => Ok(Input::Ir(path.to_string())),
        "s" => Ok(Input::Asm { path: path.to_string(), cpp: false }),
        "S" | "sx" => Ok(Input::Asm { path: path.to_string(), cpp: true }),
        "cc" | "cpp" | "cxx" | "C" | "c++" | "cu" | "m" | "mm" => Err(DriverError::User(format!(
            "'{}': only C sources are supported (C++, CUDA and Objective-C are not)",
            path
        ))),
        "i" => Ok(Input::CppOutput(path.to_string())),
        "h" => Err(DriverError::User(format!(
            "'{}': a header is not compiled on its own (accc makes no precompiled headers; -x c compiles it as C)",
            path
        ))),
        _ => Ok(Input::Linker(path.to_string())),
    }
}

/// Flags that take their value as the next argument (or joined).
const PP_WITH_ARG: &[&str] = &["-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-iprefix", "-isysroot"];
const DEPS_WITH_ARG: &[&str] = &["-MF", "-MT", "-MQ"];

pub fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options {
        action: Action::Run,
        mode: Mode::Link,
        emit_llvm: false,
        inputs: vec![],
        output: None,
        opt: None,
        debug: vec![],
        pp: vec![],
        no_builtin_includes: false,
        deps: vec![],
        lang: vec![],
        warn: vec![],
        asm: vec![],
        link: vec![],
        static_libaccrt: false,
        gpu_arch: DEFAULT_GPU_ARCH.to_string(),
        save_temps: false,
        verbose: false,
        dry_run: false,
        info: false,
        info_json: false,
    };
    let mut forced: Option<Lang> = None;
    let mut i = 0;
    let missing = |f: &str| DriverError::User(format!("argument to '{}' is missing (expected 1 value)", f));
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        // A flag with a value, joined (`-Idir`) or separate (`-I dir`).
        let mut value = |flag: &str| -> Result<Option<String>> {
            if a == flag {
                let v = args.get(i).cloned().ok_or_else(|| missing(flag))?;
                i += 1;
                Ok(Some(v))
            } else if let Some(v) = a.strip_prefix(flag) {
                Ok(Some(v.to_string()))
            } else {
                Ok(None)
            }
        };
        if !a.starts_with('-') || a == "-" {
            if a == "-" {
                return Err(DriverError::User("reading the source from standard input is not supported".into()));
            }
            o.inputs.push(match forced {
                Some(lang) => input_of_lang(a, lang),
                None => classify_input(a)?,
            });
            continue;
        }
        match a {
            "-c" => o.mode = Mode::Compile,
            "-S" => o.mode = Mode::Assemble,
            "-E" => o.mode = Mode::Preprocess,
            "-emit-llvm" => o.emit_llvm = true,
            "-v" => o.verbose = true,
            "-###" => {
                o.verbose = true;
                o.dry_run = true;
            }
            "--version" | "-version" | "-V" => o.action = Action::Version,
            "--help" | "-help" | "-h" => o.action = Action::Help,
            "-acc" | "-fopenacc" | "-acc=gpu" => {}
            "-save-temps" | "-save-temps=cwd" | "-save-temps=obj" => o.save_temps = true,
            "-static-libaccrt" => o.static_libaccrt = true,
            "-o" => o.output = Some(args.get(i).cloned().ok_or_else(|| missing("-o"))?).inspect(|_| i += 1),
            "-pthread" => {
                o.lang.push(a.into());
                o.link.push(a.into());
            }
            "-w" | "-pedantic" | "-pedantic-errors" | "-ansi" => o.warn.push(a.into()),
            "-shared" | "-static" | "-rdynamic" | "-no-pie" | "-pie" | "-nostdlib" | "-nodefaultlibs" | "-s" => {
                o.link.push(a.into())
            }
            "-Xlinker" => {
                let v = args.get(i).cloned().ok_or_else(|| missing("-Xlinker"))?;
                i += 1;
                o.link.push("-Xlinker".into());
                o.link.push(v);
            }
            "-x" => {
                let v = args.get(i).cloned().ok_or_else(|| missing("-x"))?;
                i += 1;
                forced = parse_lang(&v)?;
            }
            "-coverage" | "--coverage" | "-static-libgcc" | "-static-libsan" | "-shared-libsan" => {
                o.lang.push(a.into());
                o.link.push(a.into());
            }
            "-M" | "-MM" | "-MD" | "-MMD" | "-MP" | "-MG" => o.deps.push(a.into()),
            "-nostdinc" | "-nobuiltininc" | "-nostdlibinc" => {
                o.no_builtin_includes |= a != "-nostdlibinc";
                o.pp.push(a.into());
            }
            _ => {
                if a.starts_with("-O") {
                    let lvl = &a[2..];
                    if !matches!(lvl, "" | "0" | "1" | "2" | "3" | "s" | "z" | "fast" | "g") {
                        return Err(DriverError::User(format!("invalid optimization level '{}'", a)));
                    }
                    o.opt = Some(a.to_string());
                } else if let Some(v) = a.strip_prefix("--gpu-arch=") {
                    o.gpu_arch = gpu_arch_list(v)?;
                } else if a == "-Minfo" || a.starts_with("-Minfo=") {
                    minfo(&mut o, a.strip_prefix("-Minfo=").unwrap_or("accel"));
                } else if let Some(v) = a.strip_prefix("-gpu=") {
                    o.gpu_arch = nvhpc_gpu(v)?;
                } else if a.starts_with("-g") {
                    o.debug.push(a.into());
                } else if a.starts_with("-std=") {
                    o.lang.push(a.into());
                } else if let Some(f) = PP_WITH_ARG.iter().find(|f| a.starts_with(**f)) {
                    let v = value(f)?.unwrap_or_default();
                    o.pp.push(f.to_string());
                    o.pp.push(v);
                } else if let Some(f) = DEPS_WITH_ARG.iter().find(|f| a.starts_with(**f)) {
                    let v = value(f)?.unwrap_or_default();
                    o.deps.push(f.to_string());
                    o.deps.push(v);
                } else if a.starts_with("-Wl,") {
                    o.link.push(a.into());
                } else if a.starts_with("-Wa,") {
                    o.asm.push(a.into());
                } else if a.starts_with("-Wp,") {
                    o.pp.push(a.into());
                } else if a.starts_with("-W") {
                    o.warn.push(a.into());
                } else if is_lto(a) {
                    return Err(DriverError::User(format!(
                        "{} is not supported (acc-offload must see each translation unit's IR before \
                         it is linked; build without -flto)",
                        a
                    )));
                } else if a.starts_with("-f") || a.starts_with("-m") {
                    o.lang.push(a.into());
                    if is_link_time(a) {
                        o.link.push(a.into());
                    }
                } else if let Some(v) = a.strip_prefix("-l") {
                    let v = if v.is_empty() { value("-l")?.unwrap_or_default() } else { v.to_string() };
                    o.link.push(format!("-l{}", v));
                } else if let Some(v) = a.strip_prefix("-L") {
                    let v = if v.is_empty() { value("-L")?.unwrap_or_default() } else { v.to_string() };
                    o.link.push(format!("-L{}", v));
                } else {
                    return Err(DriverError::User(format!("unknown argument: '{}'", a)));
                }
            }
        }
    }
    if o.action != Action::Run {
        return Ok(o);
    }
    if o.inputs.is_empty() {
        return Err(DriverError::User("no input files".into()));
    }
    // `-M`/`-MM` imply `-E` (clang): the dependencies are the output, nothing is compiled.
    if o.deps.iter().any(|d| d == "-M" || d == "-MM") {
        o.mode = Mode::Preprocess;
    }
    let compiled = o.inputs.iter().filter(|x| x.is_compiled()).count();
    if o.mode != Mode::Link {
        // As clang and GCC do: a warning, and the file is left alone.
        for p in o.inputs.iter().filter(|x| !x.is_compiled()) {
            crate::error::eprint_line(format!("accc: warning: '{}': linker input unused (nothing is linked with -c, -S, -E or -M)", p.path()));
        }
        o.inputs.retain(Input::is_compiled);
        if let Some(bad) = o.inputs.iter().find(|x| !handled_in_mode(x, o.mode)) {
            return Err(DriverError::User(format!("'{}': input unused with -S/-E", bad.path())));
        }
        if compiled > 1 && o.output.is_some() && o.mode != Mode::Preprocess {
            return Err(DriverError::User("cannot specify -o when generating multiple output files".into()));
        }
    }
    if o.emit_llvm && o.mode == Mode::Link {
        return Err(DriverError::User("-emit-llvm needs -c or -S (accc cannot link LLVM IR)".into()));
    }
    Ok(o)
}

/// Whether a compile-only mode does something with the input: assembly cannot become
/// assembly (-S), and IR cannot be preprocessed (-E).
fn handled_in_mode(input: &Input, mode: Mode) -> bool {
    !matches!((input, mode), (Input::Asm { .. }, Mode::Assemble) | (Input::Ir(_), Mode::Preprocess))
}

/// `-flto`, `-flto=thin|full|auto|N`: the pass runs at the start of each compile's pipeline
/// and must see the whole module there, which LTO defers to link time.
fn is_lto(flag: &str) -> bool {
    flag == "-flto" || flag.starts_with("-flto=")
}

/// `-f` flags that also change what the link step does (runtimes and libraries it adds).
fn is_link_time(flag: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "-fsanitize", "-fno-sanitize", "-fopenmp", "-fno-openmp", "-fprofile-", "-fcoverage-",
        "-fuse-ld=", "-fxray-", "-fcs-profile-",
    ];
    PREFIXES.iter().any(|p| flag.starts_with(p))
}

/// The value of the last `-o`-style dependency flag `name` (`-MF`), if given.
fn last_dep_value<'a>(deps: &'a [String], name: &str) -> Option<&'a str> {
    deps.windows(2).rev().find(|w| w[0] == name).map(|w| w[1].as_str())
}

/// The dependency flags of the preprocessing step that compiles `src` (not for `-E`/`-M`,
/// where clang sees the user's `-o` itself). That step writes a scratch `.i`, so clang's
/// defaults would name it; these are the defaults clang derives from the real output:
/// the target is `-o`'s value or else `<stem>.o` (quoted like `-MQ`), and `-MD`/`-MMD`
/// without `-MF` write `-o`'s path with the extension `.d`, or else `<stem>.d`.
pub fn dep_flags(o: &Options, src: &str) -> Vec<String> {
    let mut flags = o.deps.clone();
    if !o.deps.iter().any(|d| d == "-MD" || d == "-MMD") {
        return flags;
    }
    let base = |ext: &str| {
        let p = std::path::Path::new(src).with_extension(ext);
        p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    };
    if last_dep_value(&o.deps, "-MF").is_none() {
        let file = match &o.output {
            Some(out) => std::path::Path::new(out).with_extension("d").to_string_lossy().into_owned(),
            None => base("d"),
        };
        flags.extend(["-MF".to_string(), file]);
    }
    if !o.deps.iter().any(|d| d == "-MT" || d == "-MQ") {
        flags.extend(["-MQ".to_string(), o.output.clone().unwrap_or_else(|| base("o"))]);
    }
    flags
}

pub const HELP: &str = "\
OVERVIEW: accc - OpenACC C compiler for NVIDIA GPUs (clang-22 + acc-offload)

USAGE: accc [options] file...

  Inputs: .c (C with OpenACC), .ll/.bc (contract IR, e.g. from -emit-llvm: compiled with
  the pass), .s/.S (assembled), anything else goes to the linker.
  -x c|ir|assembler|assembler-with-cpp|none
                      treat the inputs after it as this language (none: by extension)
  -c                  compile to an object file
  -S                  compile to host assembly (with -emit-llvm: the OpenACC contract IR)
  -E                  preprocess only
  -emit-llvm          with -S/-c: the contract IR/bitcode (__acc_* markers, before any LLVM
                      pass; opt -passes=acc-offload on it does what the compile does)
  -M -MM              print the make dependencies (to stdout, -o or -MF), compile nothing
  -MD -MMD -MF -MT -MQ -MP -MG
                      write dependencies while compiling, as clang does (default file:
                      -o's path with .d, else <stem>.d; default target: -o, else <stem>.o)
  -o <file>           output file (default a.out, <stem>.o, <stem>.s, <stem>.ll, <stem>.bc)
  -O0 -O1 -O2 -O3 -Os -Oz
                      optimisation level
  -g                  debug info at any -O: host code and each region's host fallback
                      (variables included); kernels get source lines (.loc, ptxas -lineinfo)
  -I -D -U -include -isystem -nostdinc -std=... -W... -f... -m... -M...
                      as for clang
  -l -L -Wl,... -shared -static -pthread
                      passed to the linker (-pthread, -fsanitize=, -fopenmp, -fprofile-*,
                      --coverage, -fuse-ld= also to the compile steps)
  -flto               not supported (the pass needs each translation unit before linking)
  -static-libaccrt    link the runtime statically (libaccrt-static.a); by default programs
                      use libaccrt.so, found through an rpath to accc's directory and
                      $ORIGIN (a folder of executables can carry it beside them)
  --gpu-arch=sm_XX[,sm_YY...]
                      GPU architectures (default sm_90; sm_50 ... sm_121, and the
                      arch-specific sm_90a, sm_100a, ...): one cubin each, plus the PTX
                      of the oldest, which newer GPUs compile at load time. NVHPC's
                      -gpu=ccXX[,ccYY...] is accepted too
  -Minfo[=accel|all|json[,...]]
                      the OpenACC compile report: per compute region its kernel, each loop's
                      schedule (or why it is sequential), reductions, data clauses and
                      implicit data attributes, and per kernel ptxas's registers and shared
                      memory (accel, all, or no value: on stderr; json: to
                      <output>.accinfo.json beside each object, <stem>.accinfo.json beside
                      the program when linking). NVHPC's other kinds are accepted, unreported
  -acc, -fopenacc     accepted; OpenACC is always on
  -save-temps         keep <stem>.i, <stem>.acc.i, <stem>.acc.ll and the pass's device files
  -v                  print each command before running it
  --version, --help

ENVIRONMENT: ACCC_LIBDIR overrides the directory of libacc_pass.so, libaccrt.so and
libaccrt-static.a (default: the directory of the accc executable).
";

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn p(s: &str) -> Result<Options> {
        parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn typical_compile() {
        let o = p("-O2 -g -Iinc -I inc2 -DN=3 -D M -UX -std=c11 -Wall -fPIC -march=native -c a.c -o a.o").unwrap();
        assert_eq!(o.mode, Mode::Compile);
        assert_eq!(o.opt.as_deref(), Some("-O2"));
        assert_eq!(o.debug, vec!["-g"]);
        assert_eq!(o.pp, vec!["-I", "inc", "-I", "inc2", "-D", "N=3", "-D", "M", "-U", "X"]);
        assert_eq!(o.lang, vec!["-std=c11", "-fPIC", "-march=native"]);
        assert_eq!(o.warn, vec!["-Wall"]);
        assert_eq!(o.inputs, vec![Input::C("a.c".into())]);
        assert_eq!(o.output.as_deref(), Some("a.o"));
        assert_eq!(o.gpu_arch, "sm_90");
    }

    #[test]
    fn link_inputs_and_libs() {
        let o = p("a.o b.c libx.a -o prog -lm -L /opt/lib -Wl,-rpath,/x -pthread").unwrap();
        assert_eq!(o.mode, Mode::Link);
        assert_eq!(
            o.inputs,
            vec![Input::Linker("a.o".into()), Input::C("b.c".into()), Input::Linker("libx.a".into())]
        );
        assert_eq!(o.link, vec!["-lm", "-L/opt/lib", "-Wl,-rpath,/x", "-pthread"]);
        assert!(!o.static_libaccrt);
        assert!(p("a.c -static-libaccrt").unwrap().static_libaccrt);
    }

    #[test]
    fn gpu_arch() {
        assert_eq!(p("--gpu-arch=sm_80 a.c").unwrap().gpu_arch, "sm_80");
        assert_eq!(p("-gpu=cc90 a.c").unwrap().gpu_arch, "sm_90");
        assert_eq!(p("-gpu=cc86 -acc a.c").unwrap().gpu_arch, "sm_86");
        assert!(p("--gpu-arch=sm_13 a.c").is_err());
        assert!(p("-gpu=managed a.c").is_err());
        assert_eq!(p("-gpu=cc80,cc90 a.c").unwrap().gpu_arch, "sm_80,sm_90");
        assert_eq!(p("-gpu=cc90a a.c").unwrap().gpu_arch, "sm_90a");
        assert_eq!(p("--gpu-arch=sm_100a,sm_120 a.c").unwrap().gpu_arch, "sm_100a,sm_120");
        assert!(p("--gpu-arch=sm_80,sm_13 a.c").is_err());
        assert!(p("-gpu=cc80, a.c").is_err());
    }

    #[test]
    fn minfo() {
        let o = p("-Minfo -c a.c").unwrap();
        assert!(o.info && !o.info_json);
        assert!(p("-Minfo=accel -c a.c").unwrap().info);
        assert!(p("-Minfo=all -c a.c").unwrap().info);
        let o = p("-Minfo=json -c a.c").unwrap();
        assert!(!o.info && o.info_json);
        let o = p("-Minfo=accel,json -c a.c").unwrap();
        assert!(o.info && o.info_json);
        let o = p("-Minfo=loop -c a.c").unwrap();
        assert!(!o.info && !o.info_json);
        assert!(!p("-c a.c").unwrap().info);
    }

    #[test]
    fn modes_and_misc() {
        let o = p("-emit-llvm -S foo.c -o foo.ll -save-temps -v").unwrap();
        assert!(o.emit_llvm && o.save_temps && o.verbose);
        assert_eq!(o.mode, Mode::Assemble);
        assert_eq!(p("--version").unwrap().action, Action::Version);
        assert_eq!(p("--help").unwrap().action, Action::Help);
        assert_eq!(p("-MD -MF a.d -c a.c").unwrap().deps, vec!["-MD", "-MF", "a.d"]);
        assert_eq!(p("-MM -c a.c").unwrap().mode, Mode::Preprocess);
        assert_eq!(p("-Os a.c").unwrap().opt.as_deref(), Some("-Os"));
    }

    /// Clang's defaults for the dependency file and target, from the real output.
    #[test]
    fn dependency_defaults() {
        let deps = |s: &str| {
            let o = p(s).unwrap();
            let src = o.inputs[0].path().to_string();
            dep_flags(&o, &src).join(" ")
        };
        assert_eq!(deps("-MD -c src/s.c -o dir/s.o"), "-MD -MF dir/s.d -MQ dir/s.o");
        assert_eq!(deps("-MMD -c src/s.c"), "-MMD -MF s.d -MQ s.o");
        assert_eq!(deps("-MD -S s.c"), "-MD -MF s.d -MQ s.o");
        assert_eq!(deps("-MD s.c -o prog"), "-MD -MF prog.d -MQ prog");
        assert_eq!(deps("-MD -MF x.d -MT t -c s.c -o s.o"), "-MD -MF x.d -MT t");
        assert_eq!(deps("-MMD -MQ $t -MP -c s.c -o s.o"), "-MMD -MQ $t -MP -MF s.d");
        assert_eq!(deps("-MF x.d -c s.c"), "-MF x.d");
    }

    #[test]
    fn languages_and_link_flags() {
        let o = p("-x c a.acc -x none b.c c.ll d.bc e.s f.S g.o -x ir h -x assembler-with-cpp i").unwrap();
        assert_eq!(
            o.inputs,
            vec![
                Input::C("a.acc".into()),
                Input::C("b.c".into()),
                Input::Ir("c.ll".into()),
                Input::Ir("d.bc".into()),
                Input::Asm { path: "e.s".into(), cpp: false },
                Input::Asm { path: "f.S".into(), cpp: true },
                Input::Linker("g.o".into()),
                Input::Ir("h".into()),
                Input::Asm { path: "i".into(), cpp: true },
            ]
        );
        let o = p("-fsanitize=address -fopenmp -fPIC -pthread --coverage -fuse-ld=lld a.c").unwrap();
        assert_eq!(o.link, vec!["-fsanitize=address", "-fopenmp", "-pthread", "--coverage", "-fuse-ld=lld"]);
        assert!(o.lang.contains(&"-fsanitize=address".to_string()) && o.lang.contains(&"-fPIC".to_string()));
        let lto = p("-flto=thin a.c").unwrap_err().to_string();
        assert!(lto.starts_with("accc: error: -flto=thin is not supported"), "{lto}");
        assert!(p("-x c++ a.c").is_err());
        assert!(p("-S a.s").is_err());
        assert!(p("-E a.ll").is_err());
        assert!(p("-c a.c b.s -o x.o").is_err());
    }

    #[test]
    fn unused_linker_inputs_dropped_preprocessed_c_compiled() {
        assert_eq!(p("-c a.c b.o").unwrap().inputs, vec![Input::C("a.c".into())]);
        assert_eq!(p("-c a.i").unwrap().inputs, vec![Input::CppOutput("a.i".into())]);
        assert_eq!(p("-c -x cpp-output a.txt").unwrap().inputs, vec![Input::CppOutput("a.txt".into())]);
    }

    #[test]
    fn errors() {
        assert!(p("").is_err());
        assert!(p("-c").is_err());
        assert!(p("a.c -o").is_err());
        assert!(p("-O9 a.c").is_err());
        assert!(p("--frobnicate a.c").is_err());
        assert!(p("a.cpp").is_err());
        assert!(p("-c a.c b.c -o x.o").is_err());
        assert!(p("-emit-llvm a.c").is_err());
        assert!(p("-c a.h").is_err());
        assert!(p("-I").is_err());
    }
}
