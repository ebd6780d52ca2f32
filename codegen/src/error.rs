//! Typed errors whose variants say whose fault it is.
//!
//! `User` and `Unsupported` point at the user's source (`file:line:col: error: ...`);
//! `Internal` is a bug in accc and says how to reproduce it.

use std::fmt;

/// A source position from the contract (`__acc_begin`'s file, line, col), the driver's too.
pub use acc_directives::Loc;

#[derive(Debug)]
pub enum AccError {
    /// The input program is wrong (or the hand-written contract IR is malformed).
    User { loc: Loc, msg: String },
    /// Valid OpenACC this compiler does not lower yet.
    Unsupported { loc: Loc, what: String },
    /// The pass was invoked wrongly (a bad `acc-offload<...>` option or
    /// `ACC_OFFLOAD_OPTIONS`): no source location to point at.
    Usage { msg: String },
    /// A bug in accc.
    Internal { msg: String },
}

impl AccError {
    pub fn user(loc: &Loc, msg: impl Into<String>) -> Self {
        AccError::User { loc: loc.clone(), msg: msg.into() }
    }
    pub fn unsupported(loc: &Loc, what: impl Into<String>) -> Self {
        AccError::Unsupported { loc: loc.clone(), what: what.into() }
    }
    pub fn internal(msg: impl Into<String>) -> Self {
        AccError::Internal { msg: msg.into() }
    }
    pub fn from_panic(p: Box<dyn std::any::Any + Send>) -> Self {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        AccError::internal(format!("panic in acc-offload: {msg}"))
    }
}

impl fmt::Display for AccError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccError::User { loc, msg } => write!(f, "{loc}: error: {msg}"),
            AccError::Unsupported { loc, what } => write!(f, "{loc}: error: OpenACC {what} is not supported yet"),
            AccError::Usage { msg } => write!(f, "error: acc-offload: {msg}"),
            AccError::Internal { msg } => {
                let (plugin, options) = reproduce_context();
                write!(
                    f,
                    "error: internal compiler error in acc-offload (this is a bug in accc, please report it): {msg}\n\
                     note: reproduce with: accc <the same flags> -emit-llvm -S <file.c> -o t.ll && \
                     opt-22 -load-pass-plugin={plugin} -passes='acc-offload<{options}>' t.ll -S -o /dev/null"
                )
            }
        }
    }
}

pub type Result<T> = std::result::Result<T, AccError>;

/// What an internal error's "reproduce with" line names: the plugin's path and the pass
/// options in effect (which, inside clang, came from `ACC_OFFLOAD_OPTIONS`).
static REPRODUCE: std::sync::Mutex<(String, String)> = std::sync::Mutex::new((String::new(), String::new()));

/// Records where the plugin was loaded from (pass/src/lib.rs, on every entry).
pub fn set_reproduce_plugin(path: &str) {
    REPRODUCE.lock().unwrap_or_else(|e| e.into_inner()).0 = path.to_string();
}

/// Records the options of the running pass (`Options::as_params`).
pub fn set_reproduce_options(params: &str) {
    REPRODUCE.lock().unwrap_or_else(|e| e.into_inner()).1 = params.to_string();
}

fn reproduce_context() -> (String, String) {
    let (plugin, options) = REPRODUCE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let plugin = if plugin.is_empty() { "<accc's lib directory>/libacc_pass.so".to_string() } else { plugin };
    let options = if options.is_empty() { "gpu-arch=sm_90".to_string() } else { options };
    (plugin, options)
}

/// A diagnostic that does not stop the compile (`file:line:col: warning: ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub loc: Loc,
    pub msg: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning: {}", self.loc, self.msg)
    }
}

/// Prints a warning on stderr at once (the compile goes on; errors are returned instead).
pub fn warn(w: &Warning) {
    eprintln!("{w}");
}

/// Keeps Rust's default panic message off the user's terminal; `catch_unwind` at the FFI
/// boundary turns a panic into an `Internal` error instead.
pub fn silence_panic_output() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}
