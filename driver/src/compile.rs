//! Process spawning: the only module that runs other programs. Each step builds a
//! `Command`, prints it with `-v`, runs it with inherited stdout/stderr (so clang's
//! diagnostics reach the user verbatim) and turns a failure into `DriverError::Tool`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{DriverError, Result};
use crate::flags::Options;

/// The clang used for every step: `$ACCC_CLANG`, else `clang-22` on PATH, else the Debian
/// LLVM 22 install.
pub fn clang() -> String {
    if let Ok(c) = std::env::var("ACCC_CLANG") {
        if !c.is_empty() {
            return c;
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("clang-22").is_file() {
                return "clang-22".into();
            }
        }
    }
    "/usr/lib/llvm-22/bin/clang".into()
}

/// Directory of `libacc_pass.so`, `libaccrt.so` and `libaccrt-static.a`: `$ACCC_LIBDIR` (made
/// absolute, since it also becomes the programs' rpath), else the directory of the real
/// (canonicalized) accc executable.
pub fn libdir() -> Result<PathBuf> {
    if let Some(d) = std::env::var_os("ACCC_LIBDIR") {
        if !d.is_empty() {
            let d = PathBuf::from(d);
            return Ok(std::path::absolute(&d).unwrap_or(d));
        }
    }
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| DriverError::Internal(format!("cannot locate the accc executable: {}", e)))?;
    Ok(exe.parent().map(Path::to_path_buf).unwrap_or_default())
}

/// Directory of accc's `openacc.h`: `<libdir>/include` (an install or a copied bundle), else
/// the source tree's `runtime/include` beside the build tree (`<libdir>` = `target/release`).
/// `None` when neither holds it: then no directory is added, and a program that includes
/// `<openacc.h>` gets clang's "file not found".
pub fn include_dir() -> Option<PathBuf> {
    let lib = libdir().ok()?;
    [lib.join("include"), lib.join("../../runtime/include")]
        .into_iter()
        .find(|d| d.join("openacc.h").is_file())
        .map(|d| d.canonicalize().unwrap_or(d))
}

/// The OpenACC version accc implements, for `_OPENACC` (OpenACC 3.3: November 2022). Clang 22
/// defines its own value (202506) under `-fopenacc`, which accc overrides.
pub const OPENACC_VERSION: u32 = 202211;

/// What every step that preprocesses user code adds: `_OPENACC` as accc's version (before
/// the user's `-D`/`-U`, so they still win), and after the user's include flags `openacc.h`'s
/// directory as a system directory (searched after the user's `-I` and `-isystem`; left out
/// under `-nostdinc`/`-nobuiltininc`, as a compiler's own headers are).
fn accc_macros() -> [String; 2] {
    ["-U_OPENACC".into(), format!("-D_OPENACC={OPENACC_VERSION}")]
}

fn accc_includes(o: &Options, dir: Option<&Path>) -> Vec<String> {
    match dir {
        Some(d) if !o.no_builtin_includes => vec!["-isystem".into(), d.to_string_lossy().into_owned()],
        _ => vec![],
    }
}

fn require(path: PathBuf, what: &str) -> Result<PathBuf> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(DriverError::User(format!(
            "{} not found at '{}' (build the workspace with 'cargo build --release', or set ACCC_LIBDIR)",
            what,
            path.display()
        )))
    }
}

pub fn plugin_path() -> Result<PathBuf> {
    require(libdir()?.join("libacc_pass.so"), "the acc-offload pass plugin libacc_pass.so")
}

/// The runtime the link step uses: `libaccrt.so` by default, `libaccrt-static.a` for
/// `-static-libaccrt` (cargo's `libaccrt.a` made small by scripts/build-static-runtime; one
/// older than `libaccrt.a` beside it would link an old runtime, so it is refused).
pub fn runtime_path(static_lib: bool) -> Result<PathBuf> {
    let dir = libdir()?;
    if !static_lib {
        return require(dir.join("libaccrt.so"), "the OpenACC runtime libaccrt.so");
    }
    let lib = require(dir.join("libaccrt-static.a"), "the static OpenACC runtime libaccrt-static.a (scripts/build-static-runtime makes it)")?;
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(made), Some(source)) = (modified(&lib), modified(&dir.join("libaccrt.a"))) {
        if made < source {
            return Err(DriverError::User(format!(
                "{} is older than the libaccrt.a it is made from: run scripts/build-static-runtime (or scripts/setup)",
                lib.display()
            )));
        }
    }
    Ok(lib)
}

/// Shell-quotes one word for `-v` output.
fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_=+/.,:@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A command line to run, with optional extra environment.
pub struct Step {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl Step {
    pub fn new(program: &str) -> Step {
        Step { program: program.to_string(), args: vec![], env: vec![] }
    }
    pub fn arg(&mut self, a: impl Into<String>) -> &mut Step {
        self.args.push(a.into());
        self
    }
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, a: I) -> &mut Step {
        self.args.extend(a.into_iter().map(Into::into));
        self
    }
    pub fn display(&self) -> String {
        let mut words: Vec<String> = self.env.iter().map(|(k, v)| format!("{}={}", k, quote(v))).collect();
        words.push(quote(&self.program));
        words.extend(self.args.iter().map(|a| quote(a)));
        words.join(" ")
    }
    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args).envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Runs the step; prints it first with `-v`, and only prints it with `-###`.
    pub fn run(&self, o: &Options) -> Result<()> {
        if o.verbose {
            crate::error::eprint_line(format!(" {}", self.display()));
        }
        if o.dry_run {
            return Ok(());
        }
        let status = self
            .command()
            .status()
            .map_err(|e| DriverError::User(format!("cannot run '{}': {}", self.program, e)))?;
        if status.success() {
            Ok(())
        } else {
            Err(DriverError::Tool { cmd: self.program.clone(), status: status.code() })
        }
    }

    /// Runs step 1 (`validate`) with its diagnostics filtered (validate.rs): clang's
    /// rejection of complex reduction variables, which accc supports, is dropped; a run
    /// whose only errors were those succeeds.
    pub fn run_validation(&self, o: &Options) -> Result<()> {
        use std::io::IsTerminal;
        if o.verbose {
            crate::error::eprint_line(format!(" {}", self.display()));
        }
        if o.dry_run {
            return Ok(());
        }
        let mut cmd = self.command();
        if std::io::stderr().is_terminal() {
            // Captured output would lose clang's colours.
            cmd.arg("-fcolor-diagnostics");
        }
        let out = cmd
            .stderr(std::process::Stdio::piped())
            .output()
            .map_err(|e| DriverError::User(format!("cannot run '{}': {}", self.program, e)))?;
        let (text, errors) = crate::validate::filter(&String::from_utf8_lossy(&out.stderr));
        eprint!("{text}");
        // Exit status 1 is clang's "errors reported"; anything else (a crash) stands.
        if out.status.success() || (out.status.code() == Some(1) && errors == 0) {
            Ok(())
        } else {
            Err(DriverError::Tool { cmd: self.program.clone(), status: out.status.code() })
        }
    }

    /// Starts the step without waiting, its stderr held until `Running::finish` (printed
    /// and not started, as `run`, with `-v` and `-###`).
    pub fn spawn_quiet(&self, o: &Options) -> Result<Running> {
        if o.verbose {
            crate::error::eprint_line(format!(" {}", self.display()));
        }
        if o.dry_run {
            return Ok(Running { program: self.program.clone(), child: None });
        }
        let child = self
            .command()
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| DriverError::User(format!("cannot run '{}': {}", self.program, e)))?;
        Ok(Running { program: self.program.clone(), child: Some(child) })
    }
}

/// A step running in the background with its stderr held back (`Step::spawn_quiet`).
pub struct Running {
    program: String,
    /// None under `-###`.
    child: Option<std::process::Child>,
}

impl Running {
    /// Waits for it; on failure its stderr is shown, as `Step::run` would have.
    pub fn finish(self) -> Result<()> {
        let Some(child) = self.child else { return Ok(()) };
        let out = child.wait_with_output().map_err(|e| DriverError::User(format!("cannot run '{}': {}", self.program, e)))?;
        if out.status.success() {
            return Ok(());
        }
        use std::io::Write;
        let _ = std::io::stderr().write_all(&out.stderr);
        Err(DriverError::Tool { cmd: self.program, status: out.status.code() })
    }
    /// Stops it: its result is not wanted.
    pub fn abandon(self) {
        if let Some(mut child) = self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Flags that keep clang's OpenACC support on but quiet about doing nothing at run time
/// (and about a `cache` section indexed by the loop variable, `a[i-1:3]`, which clang
/// says has no effect: accc's pass caches exactly those, codegen/src/cache.rs).
const OPENACC: [&str; 3] = ["-fopenacc", "-Wno-source-uses-openacc", "-Wno-openacc-cache-var-inside-loop"];

/// Step 1: `clang -fsyntax-only` — the user's diagnostics. `lang` (`c`, or `cpp-output` for
/// a `.i`) is given, so the input is C whatever its name (`accc -x c prog.acc`).
pub fn validate(o: &Options, src: &str, lang: &str) -> Step {
    let mut s = Step::new(&clang());
    s.arg("-fsyntax-only").args(OPENACC).arg("-Qunused-arguments").args(accc_macros());
    s.args(o.pp.iter().cloned()).args(accc_includes(o, include_dir().as_deref()));
    s.args(o.lang.iter().cloned()).args(o.warn.iter().cloned());
    s.args(["-x", lang, src]);
    s
}

/// Step 2: `clang -E`. `-fms-extensions` is there only because it makes clang expand macros
/// inside `#pragma acc` lines in the -E output (`copyin(x[0:N])` with `#define N 100`
/// becomes `x[0:100]`; without it `N` stays and the rewritten code would not compile).
/// Warnings are silenced here: step 1 already showed them. `deps` are the dependency
/// flags (`flags::dep_flags` when compiling: this step writes the user's `.d` file).
/// `lang` is `-x`'s value for the input (`c`, or `assembler-with-cpp` for `accc -E x.S`).
pub fn preprocess(o: &Options, src: &str, lang: &str, deps: &[String], out: Option<&Path>) -> Step {
    let mut s = Step::new(&clang());
    s.arg("-E").args(OPENACC).arg("-fms-extensions").arg("-Qunused-arguments").arg("-w").args(accc_macros());
    s.args(o.pp.iter().cloned()).args(accc_includes(o, include_dir().as_deref()));
    s.args(o.lang.iter().cloned()).args(deps.iter().cloned());
    s.args(["-x", lang, src]);
    if let Some(out) = out {
        s.arg("-o").arg(out.to_string_lossy());
    }
    s
}

/// What the compile step produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Object,
    Assembly,
    /// `-S -emit-llvm`: the contract IR, no plugin.
    IrText,
    /// `-c -emit-llvm`: contract bitcode, no plugin.
    IrBitcode,
}

/// What the compile step reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The rewritten `.acc.i` (preprocessed C).
    RewrittenC,
    /// LLVM IR (`.ll`/`.bc`) that already carries the contract.
    Ir,
}

/// Step 4: compile the rewritten `.acc.i` (or contract IR). `save_prefix` is the pass's
/// save-temps prefix (empty for none). Warnings are silenced: step 1 showed the user's, and
/// the marker code is ours. IR outputs (`-emit-llvm`) are the contract as the pass receives
/// it: Clang's IR before any LLVM pass (`-disable-llvm-passes`), with the `-O` level's
/// function attributes, so `opt -passes=acc-offload` on it does what the compile does.
/// `info_json`: where the pass writes the JSON compile report (`-Minfo=json`).
pub fn compile(o: &Options, input: &Path, source: Source, out: &Path, kind: Output, save_prefix: &str, info_json: Option<&Path>) -> Result<Step> {
    let mut s = Step::new(&clang());
    s.arg("-x").arg(match source {
        Source::RewrittenC => "cpp-output",
        Source::Ir => "ir",
    });
    match kind {
        Output::Object => s.arg("-c"),
        Output::Assembly => s.arg("-S"),
        Output::IrText => s.arg("-S").arg("-emit-llvm"),
        Output::IrBitcode => s.arg("-c").arg("-emit-llvm"),
    };
    if matches!(kind, Output::IrText | Output::IrBitcode) {
        s.args(["-Xclang", "-disable-llvm-passes"]);
    }
    s.args(o.opt.iter().cloned()).args(o.debug.iter().cloned());
    // Lifetime markers at every -O level (Clang emits them only when optimising, or for this
    // sanitizer option, which alone instruments nothing): they tell the pass where each
    // local is declared, so an array declared at function scope and used only in a compute
    // region is mapped (OpenACC 3.3 §2.6.2) instead of made private.
    s.arg("-Xclang").arg("-fsanitize-address-use-after-scope");
    s.args(o.lang.iter().cloned()).args(o.asm.iter().cloned());
    s.arg("-w").arg("-Qunused-arguments").arg("-fno-discard-value-names");
    if matches!(kind, Output::Object | Output::Assembly) {
        s.arg(format!("-fpass-plugin={}", plugin_path()?.display()));
        let mut options = format!("gpu-arch={};save-temps={}", o.gpu_arch, save_prefix);
        // The compile report (`-Minfo`): the pass prints it, or writes it as JSON.
        if o.info {
            options.push_str(";info");
        }
        if let Some(p) = info_json.filter(|_| o.info_json) {
            options.push_str(&format!(";info-json={}", p.display()));
        }
        s.env.push(("ACC_OFFLOAD_OPTIONS".into(), options));
    }
    s.arg(input.to_string_lossy()).arg("-o").arg(out.to_string_lossy());
    Ok(s)
}

/// Assembles a `.s`/`.S` input into an object (`cpp`: preprocess it first, with the
/// user's `-I -D` flags).
pub fn assemble(o: &Options, src: &str, cpp: bool, out: &Path) -> Step {
    let mut s = Step::new(&clang());
    s.arg("-c").arg("-Qunused-arguments");
    if cpp {
        s.args(o.pp.iter().cloned());
    }
    s.args(o.lang.iter().cloned()).args(o.asm.iter().cloned()).args(o.debug.iter().cloned());
    s.args(["-x", if cpp { "assembler-with-cpp" } else { "assembler" }, src]);
    s.arg("-o").arg(out.to_string_lossy());
    s
}

/// `-Wl,-rpath,<dir>` (two `-Xlinker` words when the directory holds a comma, which
/// `-Wl,` would split on). No shell runs the link, so `$ORIGIN` reaches the linker as is.
fn rpath(s: &mut Step, dir: &str) {
    if dir.contains(',') {
        s.args(["-Xlinker", "-rpath", "-Xlinker", dir]);
    } else {
        s.arg(format!("-Wl,-rpath,{}", dir));
    }
}

/// Step 5: link objects with the runtime. By default the program needs `libaccrt.so`
/// (`-L<libdir> -laccrt`) and finds it at run time through two rpaths: `<libdir>` (the
/// build or install tree, for programs run where they were built) and `$ORIGIN` (a folder
/// of executables carried elsewhere with libaccrt.so beside them). `-static-libaccrt`
/// links `libaccrt-static.a` and the system libraries a Rust staticlib needs.
pub fn link(o: &Options, objects: &[String], out: &str) -> Result<Step> {
    Ok(link_with(o, objects, out, &runtime_path(o.static_libaccrt)?))
}

/// [`link`] with the runtime library `rt` already found.
fn link_with(o: &Options, objects: &[String], out: &str, rt: &Path) -> Step {
    let mut s = Step::new(&clang());
    s.args(objects.iter().cloned()).arg("-o").arg(out);
    s.args(o.debug.iter().cloned());
    s.args(o.link.iter().cloned());
    if o.static_libaccrt {
        s.arg(rt.to_string_lossy());
        s.args(["-lpthread", "-ldl", "-lm", "-lrt"]);
    } else {
        let dir = rt.parent().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
        s.arg(format!("-L{}", dir)).arg("-laccrt");
        rpath(&mut s, &dir);
        rpath(&mut s, "$ORIGIN");
        // Programs that call libm on the host got it implicitly before; keep that.
        s.arg("-lm");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::parse;
    use pretty_assertions::assert_eq;

    fn opts(s: &str) -> Options {
        parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn validate_and_preprocess_lines() {
        let o = opts("-O2 -DN=4 -Iinc -std=c99 -Wall -MD -c t.c");
        let v = validate(&o, "t.c", "c");
        let inc = accc_includes(&o, include_dir().as_deref());
        let want: Vec<String> = ["-fsyntax-only", "-fopenacc", "-Wno-source-uses-openacc", "-Wno-openacc-cache-var-inside-loop", "-Qunused-arguments", "-U_OPENACC", "-D_OPENACC=202211", "-D", "N=4", "-I", "inc"]
            .into_iter()
            .map(String::from)
            .chain(inc)
            .chain(["-std=c99", "-Wall", "-x", "c", "t.c"].map(String::from))
            .collect();
        assert_eq!(v.args, want);
        let p = preprocess(&o, "t.c", "c", &crate::flags::dep_flags(&o, "t.c"), Some(Path::new("/tmp/x.i")));
        assert!(p.args.contains(&"-fms-extensions".to_string()));
        assert!(p.display().contains("-MD -MF t.d -MQ t.o -x c t.c"), "{}", p.display());
        assert!(!p.args.contains(&"-Wall".to_string()));
        assert_eq!(p.args[p.args.len() - 2..], ["-o".to_string(), "/tmp/x.i".to_string()]);
    }

    #[test]
    fn openacc_h_is_a_system_header_after_the_users() {
        let d = Path::new("/opt/accc/include");
        let o = opts("-Iinc -isystem sys -c t.c");
        assert_eq!(accc_includes(&o, Some(d)), ["-isystem", "/opt/accc/include"]);
        assert!(accc_includes(&o, None).is_empty());
        for off in ["-nostdinc", "-nobuiltininc"] {
            assert!(accc_includes(&opts(&format!("{off} -c t.c")), Some(d)).is_empty(), "{off}");
        }
        assert_eq!(accc_includes(&opts("-nostdlibinc -c t.c"), Some(d)).len(), 2);
        let p = preprocess(&opts("-nostdinc -UX -c t.c"), "t.c", "c", &[], None);
        let at = |f: &str| p.args.iter().position(|a| a == f).unwrap();
        assert!(at("-D_OPENACC=202211") < at("-nostdinc") && at("-nostdinc") < at("X"), "{}", p.display());
    }

    #[test]
    fn ir_compile_has_no_plugin() {
        let o = opts("-O1 -g -S -emit-llvm t.c");
        let c = compile(&o, Path::new("t.acc.i"), Source::RewrittenC, Path::new("t.ll"), Output::IrText, "", None).unwrap();
        assert!(c.args.iter().all(|a| !a.starts_with("-fpass-plugin")));
        assert!(c.env.is_empty());
        assert!(c.display().contains("-x cpp-output -S -emit-llvm -Xclang -disable-llvm-passes -O1 -g"));
    }

    #[test]
    fn minfo_reaches_the_pass() {
        let o = opts("-Minfo=accel,json -c t.c");
        let Ok(c) = compile(&o, Path::new("t.acc.i"), Source::RewrittenC, Path::new("t.o"), Output::Object, "", Some(Path::new("t.accinfo.json"))) else {
            return; // no plugin built next to the test binary
        };
        assert_eq!(c.env, vec![("ACC_OFFLOAD_OPTIONS".to_string(), "gpu-arch=sm_90;save-temps=;info;info-json=t.accinfo.json".to_string())]);
    }

    #[test]
    fn assembly_inputs() {
        let o = opts("-DX=1 -c t.S");
        let a = assemble(&o, "t.S", true, Path::new("t.o"));
        assert!(a.display().ends_with("-D X=1 -x assembler-with-cpp t.S -o t.o"), "{}", a.display());
        let a = assemble(&o, "t.s", false, Path::new("t.o"));
        assert!(a.display().ends_with("-Qunused-arguments -x assembler t.s -o t.o"), "{}", a.display());
    }

    #[test]
    fn link_shared_by_default_static_on_request() {
        let d = "/opt/accc/lib";
        let so = Path::new("/opt/accc/lib/libaccrt.so");
        let l = link_with(&opts("a.o -lfoo -o prog"), &["a.o".into()], "prog", so);
        let rest: Vec<String> = vec![format!("-L{d}"), "-laccrt".into(), format!("-Wl,-rpath,{d}"), "-Wl,-rpath,$ORIGIN".into(), "-lm".into()];
        assert_eq!(l.args[..4], ["a.o", "-o", "prog", "-lfoo"]);
        assert_eq!(l.args[4..], rest[..]);
        assert!(l.display().ends_with("'-Wl,-rpath,$ORIGIN' -lm"));

        let a = Path::new("/opt/accc/lib/libaccrt-static.a");
        let l = link_with(&opts("a.o -static-libaccrt -o prog"), &["a.o".into()], "prog", a);
        assert_eq!(l.args[3..], [format!("{d}/libaccrt-static.a"), "-lpthread".into(), "-ldl".into(), "-lm".into(), "-lrt".into()]);
        assert!(l.args.iter().all(|a| !a.contains("rpath")));

        let mut s = Step::new("clang");
        rpath(&mut s, "/a,b");
        assert_eq!(s.args, ["-Xlinker", "-rpath", "-Xlinker", "/a,b"]);
    }

    #[test]
    fn quoting() {
        let mut s = Step::new("clang-22");
        s.arg("a b").arg("it's");
        s.env.push(("X".into(), "gpu-arch=sm_90;save-temps=".into()));
        assert_eq!(s.display(), "X='gpu-arch=sm_90;save-temps=' clang-22 'a b' 'it'\\''s'");
    }
}
