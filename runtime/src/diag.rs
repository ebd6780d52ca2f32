//! Diagnostics: the single exit path of the runtime.
//!
//! Every failure ends in [`fatal`], which prints one message to stderr and exits with
//! status 1. User errors are reported at the source position of the directive
//! (`file:line:col: error: ...`), CUDA/runtime failures as `accc runtime: error: ...`.
//! A Rust panic (a bug in the runtime) never reaches the user as a panic: [`guard`] wraps
//! every `extern "C"` entry point and turns it into an "internal error" message.

use std::ffi::{c_char, CStr};
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

static EXITING_ON_ERROR: AtomicBool = AtomicBool::new(false);

/// Whether [`fatal`] is ending the program (the exit handlers then report nothing more).
pub fn exiting_on_error() -> bool {
    EXITING_ON_ERROR.load(Ordering::Relaxed)
}

/// Print `msg` to stderr and exit the program with status 1.
pub fn fatal(msg: &str) -> ! {
    EXITING_ON_ERROR.store(true, Ordering::Relaxed);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{msg}");
    let _ = err.flush();
    // `exit` runs the C atexit handlers, so the program's buffered stdout is flushed.
    std::process::exit(1)
}

/// A user error at the directive position `loc` ("file:line:col").
pub fn user_error(loc: &str, msg: &str) -> ! {
    fatal(&format!("{loc}: error: {msg}"))
}

thread_local! {
    /// The position of the directive whose runtime work is running on this thread, while
    /// a directive reuses a runtime routine ([`at_directive`]).
    static AT_DIRECTIVE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` (a directive's work done by runtime routines) so that its errors are reported at
/// directive position `loc` as user errors rather than as the routines' own.
pub fn at_directive<R>(loc: &str, f: impl FnOnce() -> R) -> R {
    let saved = AT_DIRECTIVE.with(|d| d.replace(Some(loc.to_string())));
    let r = f();
    AT_DIRECTIVE.with(|d| *d.borrow_mut() = saved);
    r
}

/// A failure of the runtime environment (CUDA driver, configuration), or of a routine the
/// program called (inside [`at_directive`]: at the directive).
pub fn runtime_error(msg: &str) -> ! {
    if let Some(loc) = AT_DIRECTIVE.with(|d| d.borrow().clone()) {
        user_error(&loc, msg)
    }
    fatal(&format!("accc runtime: error: {msg}"))
}

/// Run one `extern "C"` entry point; a panic inside prints an internal-error message
/// (through the panic hook installed here) and exits with status 1.
pub fn guard<T>(f: impl FnOnce() -> T) -> T {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        panic::set_hook(Box::new(|info| {
            let _ = writeln!(
                std::io::stderr(),
                "accc runtime: internal error (a bug in accc, please report): {info}"
            );
        }))
    });
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            EXITING_ON_ERROR.store(true, Ordering::Relaxed);
            let _ = std::io::stderr().flush();
            std::process::exit(1)
        }
    }
}

/// Borrow a C string from the generated code, `default` when it is null.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string that outlives the result.
pub unsafe fn cstr<'a>(p: *const c_char, default: &'a str) -> std::borrow::Cow<'a, str> {
    if p.is_null() {
        return default.into();
    }
    // SAFETY: non-null and NUL-terminated (caller's guarantee).
    let s = unsafe { CStr::from_ptr(p) };
    // The compiler's strings are UTF-8 (source text): `to_str` checks that on its fast path
    // (every clause item of every construct passes here); only other bytes need the lossy
    // copy.
    match s.to_str() {
        Ok(s) => s.into(),
        Err(_) => s.to_string_lossy(),
    }
}
