//! `ACC_NOTIFY` (NVHPC style): bit 1 (value 1) prints one line per kernel launch, bit 2
//! (value 2) one line per data transfer. Read once; a non-integer value means 0.

use std::io::Write;
use std::sync::OnceLock;

fn level() -> u32 {
    static LEVEL: OnceLock<u32> = OnceLock::new();
    *LEVEL.get_or_init(|| parse(std::env::var("ACC_NOTIFY").ok().as_deref()))
}

/// The notification bits of an `ACC_NOTIFY` value.
pub fn parse(value: Option<&str>) -> u32 {
    value
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(0)
}

pub fn launches() -> bool {
    level() & 1 != 0
}

pub fn transfers() -> bool {
    level() & 2 != 0
}

/// Print one notification line to stderr.
pub fn line(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "accc: {msg}");
}

/// " on device N" when the process has more than one device of its type, else nothing.
pub fn on_device() -> String {
    match crate::device::count_in_use() {
        Some(n) if n > 1 => format!(" on device {}", crate::device::device_num()),
        _ => String::new(),
    }
}

/// Report a host→device (`upload`) or device→host (`download`) copy when enabled.
pub fn transfer(direction: &str, text: &str, bytes: usize) {
    if transfers() {
        line(&format!("{direction} {text} {bytes} bytes{}", on_device()));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn parse() {
        assert_eq!(super::parse(None), 0);
        assert_eq!(super::parse(Some("1")), 1);
        assert_eq!(super::parse(Some(" 3 ")), 3);
        assert_eq!(super::parse(Some("yes")), 0);
    }
}
