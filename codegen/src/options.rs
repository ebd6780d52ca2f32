//! Pass options: `acc-offload<gpu-arch=sm_80;save-temps=/tmp/x;opt=2>` in opt, or the
//! `ACC_OFFLOAD_OPTIONS` environment variable (how `accc` configures the pass inside clang).
//! Pass parameters override the environment.

use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `sm_90` etc.: one cubin each (`gpu-arch=sm_80,sm_90`), never empty.
    pub gpu_archs: Vec<String>,
    /// Prefix for `-save-temps` files: `<prefix>.device.ll`, `.ptx`, `.cubin`.
    pub save_temps: Option<PathBuf>,
    /// Device optimisation level 0..3.
    pub opt_level: u8,
    /// Directory with `bin/ptxas` and `nvvm/libdevice/libdevice.10.bc`.
    pub cuda_dir: PathBuf,
    /// Single-lane guards, broadcasts and syncs (guard.rs). Off only to check that tests
    /// catch their absence (`no-sync`, or `ACCC_DEBUG_NO_SYNC=1`): the kernels are wrong then.
    pub sync: bool,
    /// The compile report on stderr (`info`: `accc -Minfo=accel`, or `ACCC_INFO=1`;
    /// report.rs).
    pub info: bool,
    /// The compile report as JSON, written to this file (`info-json=PATH`: `accc -Minfo=json`).
    pub info_json: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            gpu_archs: vec!["sm_90".into()],
            save_temps: None,
            opt_level: 3,
            cuda_dir: default_cuda_dir(),
            sync: true,
            info: false,
            info_json: None,
        }
    }
}

/// The nvcc wheel that `scripts/setup` installs into the repository's `.toolchain/`.
fn default_cuda_dir() -> PathBuf {
    if let Ok(d) = std::env::var("ACCC_CUDA_DIR") {
        return PathBuf::from(d);
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.toolchain/cuda/nvidia/cuda_nvcc"))
}

impl Options {
    /// Environment first, then the pass parameters.
    pub fn from_env_and_params(params: &str) -> Result<Options, String> {
        let mut o = Options::default();
        if let Ok(env) = std::env::var("ACC_OFFLOAD_OPTIONS") {
            o.apply(&env)?;
        }
        if std::env::var_os("ACCC_DEBUG_NO_SYNC").is_some_and(|v| v == "1") {
            o.sync = false;
        }
        if std::env::var_os("ACCC_INFO").is_some_and(|v| !v.is_empty() && v != "0") {
            o.info = true;
        }
        o.apply(params)?;
        Ok(o)
    }

    /// The options as `acc-offload<...>` parameters that give this pass run again (without
    /// save-temps and the default CUDA directory).
    pub fn as_params(&self) -> String {
        let mut p = vec![format!("gpu-arch={}", self.gpu_archs.join("+"))];
        if self.opt_level != Options::default().opt_level {
            p.push(format!("opt={}", self.opt_level));
        }
        if self.cuda_dir != default_cuda_dir() {
            p.push(format!("cuda-dir={}", self.cuda_dir.display()));
        }
        if !self.sync {
            p.push("no-sync".into());
        }
        p.join(";")
    }

    /// Whether a compile report is asked for (text or JSON).
    pub fn report(&self) -> bool {
        self.info || self.info_json.is_some()
    }

    pub fn apply(&mut self, text: &str) -> Result<(), String> {
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').unwrap_or((item, ""));
            match k {
                "gpu-arch" => self.gpu_archs = parse_archs(v)?,
                "save-temps" => self.save_temps = (!v.is_empty()).then(|| PathBuf::from(v)),
                "opt" => {
                    self.opt_level = v.parse().ok().filter(|l| *l <= 3).ok_or(format!("bad opt level '{v}'"))?
                }
                "cuda-dir" => self.cuda_dir = PathBuf::from(v),
                "no-sync" => self.sync = false,
                "info" => self.info = true,
                "info-json" => self.info_json = (!v.is_empty()).then(|| PathBuf::from(v)),
                _ => return Err(format!("unknown acc-offload option '{k}'")),
            }
        }
        Ok(())
    }
}

/// Accepts a list of `sm_90`, `sm_90a`, ... (or `cc90`, `cc90a` as NVHPC spells them),
/// separated by `,` or `+` (`+` inside `opt -passes='acc-offload<gpu-arch=sm_80+sm_90>'`,
/// whose parser splits pipelines at commas), each one that ptx::ARCHS lists; duplicates
/// are dropped.
pub fn parse_archs(v: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for item in v.split([',', '+']).map(str::trim) {
        let arch = parse_arch(item)?;
        if !out.contains(&arch) {
            out.push(arch);
        }
    }
    Ok(out)
}

/// One architecture: `sm_90`, `sm_100a`, `cc90`, `cc90a`.
pub fn parse_arch(v: &str) -> Result<String, String> {
    let arch = match v.strip_prefix("cc") {
        Some(rest) => format!("sm_{rest}"),
        None => v.to_string(),
    };
    match crate::ptx::ptx_isa(&arch) {
        Some(_) => Ok(arch),
        None => Err(format!(
            "unknown GPU architecture '{v}' (expected one of: {})",
            crate::ptx::ARCHS.iter().map(|(a, _)| *a).collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    #[test]
    fn params_round_trip() {
        let mut o = Options::default();
        o.apply("gpu-arch=sm_80,sm_90a;opt=1;no-sync;save-temps=/tmp/x").unwrap();
        assert_eq!(o.as_params(), "gpu-arch=sm_80+sm_90a;opt=1;no-sync");
        let mut again = Options::default();
        again.apply(&o.as_params()).unwrap();
        assert_eq!(again, Options { save_temps: None, ..o });
        assert_eq!(Options::default().as_params(), "gpu-arch=sm_90");
    }
    #[test]
    fn parses_params() {
        let mut o = Options::default();
        o.apply("gpu-arch=cc80;save-temps=/tmp/x;opt=1").unwrap();
        assert!(!o.report());
        o.apply("info;info-json=/tmp/t.accinfo.json").unwrap();
        assert!(o.info && o.report());
        assert_eq!(o.info_json, Some(PathBuf::from("/tmp/t.accinfo.json")));
        assert_eq!(o.gpu_archs, vec!["sm_80"]);
        assert_eq!(o.save_temps, Some(PathBuf::from("/tmp/x")));
        assert_eq!(o.opt_level, 1);
        assert!(o.apply("bogus=1").is_err());
        assert!(parse_arch("sm_x").is_err());
        assert!(parse_arch("").is_err());
        assert_eq!(parse_archs("cc90a,sm_100a,cc120,sm_120").unwrap(), vec!["sm_90a", "sm_100a", "sm_120"]);
        assert_eq!(parse_archs("sm_80, sm_90").unwrap(), vec!["sm_80", "sm_90"]);
        let e = parse_archs("sm_80,sm_77").unwrap_err();
        assert!(e.contains("'sm_77'") && e.contains("sm_100a"), "{e}");
    }
}
