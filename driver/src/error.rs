//! Typed errors of the driver. Every failure path ends in one of these; `main` prints it
//! (`accc: error: ...` or a compiler-style `file:line:col: error: ...`) and exits 1.

use std::fmt;
use std::io::Write;

/// Writes one line to stderr and ignores failures: with stderr a closed pipe
/// (`accc -c bad.c 2>&1 | head -1`) `eprintln!` would panic, and a panic while reporting
/// ends in SIGABRT. accc still exits 1 when it has an error to report.
pub fn eprint_line(line: impl fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "{}", line);
}

/// Writes to stdout and ignores failures (`accc --help | head -1`), like [`eprint_line`].
pub fn print_out(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The source position diagnostics point at, the one the pass uses too.
pub use acc_directives::Loc;

/// One diagnostic produced by the rewriter for a source construct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diag {
    pub loc: Loc,
    pub message: String,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.loc, self.message)
    }
}

impl Diag {
    /// The canonical rejection: `OpenACC 'NAME' is not supported yet`.
    pub fn unsupported(loc: Loc, name: &str) -> Diag {
        Diag { loc, message: format!("OpenACC '{}' is not supported yet", name) }
    }
}

#[derive(Debug)]
pub enum DriverError {
    /// A mistake on the command line or in the environment (missing file, bad flag).
    User(String),
    /// Source constructs that accc rejects (all of them for one file, in source order).
    Unsupported(Vec<Diag>),
    /// A spawned tool failed; its own diagnostics were already shown to the user.
    Tool { cmd: String, status: Option<i32> },
    /// A bug or an unexpected I/O failure inside accc.
    Internal(String),
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::User(m) => write!(f, "accc: error: {}", m),
            DriverError::Unsupported(diags) => {
                let mut first = true;
                for d in diags {
                    if !first {
                        writeln!(f)?;
                    }
                    first = false;
                    write!(f, "{}", d)?;
                }
                Ok(())
            }
            DriverError::Tool { cmd, status } => match status {
                Some(s) => write!(f, "accc: error: {} command failed with exit code {} (use -v to see invocation)", cmd, s),
                None => write!(f, "accc: error: {} command terminated by a signal (use -v to see invocation)", cmd),
            },
            DriverError::Internal(m) => write!(f, "accc: error: internal error: {}", m),
        }
    }
}

impl std::error::Error for DriverError {}

pub type Result<T> = std::result::Result<T, DriverError>;
