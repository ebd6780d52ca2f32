//! Phase timing of the pass (`ACCC_TIME=1`): one stderr line per phase with its wall time,
//! so compile-time regressions can be located without a profiler (bench/compile-time).

use std::time::Instant;

/// Prints `accc-time: NAME: MS ms` when dropped, if `ACCC_TIME` is set.
pub struct Phase {
    name: &'static str,
    start: Option<Instant>,
}

/// Starts timing phase `name`.
pub fn phase(name: &'static str) -> Phase {
    let on = std::env::var_os("ACCC_TIME").is_some_and(|v| !v.is_empty() && v != "0");
    Phase { name, start: on.then(Instant::now) }
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(t) = self.start {
            eprintln!("accc-time: {}: {:.1} ms", self.name, t.elapsed().as_secs_f64() * 1e3);
        }
    }
}
