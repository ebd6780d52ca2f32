//! The device image the compiler embeds (codegen/src/image.rs, docs/runtime-abi.md): every
//! cubin built (`-gpu=cc80,cc90`) and the PTX, tried in order until the driver loads one.
//!
//! A cubin runs only on GPUs of its own major architecture (`sm_90a`: only that GPU), so a
//! GPU newer than every cubin gets `CUDA_ERROR_NO_BINARY_FOR_GPU` (or `..._INVALID_IMAGE`)
//! for all of them and then the PTX, which the driver compiles for it. An image without the
//! container's magic is one plain cubin or PTX (objects built before the container).
//! `parse` is pure and unit-tested; `load` calls the driver.

use std::ffi::c_void;

use crate::cuda::{self, CuError, Handle};

pub const MAGIC: &[u8; 8] = b"ACCIMG\x01\0";
pub const KIND_CUBIN: u32 = 1;
pub const KIND_PTX: u32 = 2;

/// One entry of the container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: u32,
    pub sm: u32,
    pub offset: usize,
    pub size: usize,
}

/// The entries of a container image, in the order to try them; `None` if `bytes` is not one
/// (a plain cubin or PTX) or is malformed (an entry outside the image).
pub fn parse(bytes: &[u8]) -> Option<Vec<Entry>> {
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let u64_at = |at: usize| bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize);
    if bytes.get(..8)? != MAGIC {
        return None;
    }
    let count = u32_at(8)? as usize;
    (0..count)
        .map(|i| {
            let at = 16 + 24 * i;
            let e = Entry { kind: u32_at(at)?, sm: u32_at(at + 4)?, offset: u64_at(at + 8)?, size: u64_at(at + 16)? };
            (e.offset.checked_add(e.size)? <= bytes.len()).then_some(e)
        })
        .collect()
}

/// Loads the best module of `image` for the current GPU: the first entry the driver takes.
///
/// # Safety
/// `image` must point to `size` readable bytes embedded by the compiler.
pub unsafe fn load(image: *const c_void, size: usize) -> Result<Handle, CuError> {
    // SAFETY: guaranteed by the caller.
    let bytes = unsafe { std::slice::from_raw_parts(image as *const u8, size) };
    let Some(entries) = parse(bytes) else {
        // SAFETY: a plain cubin or NUL-terminated PTX, complete (caller's guarantee).
        return unsafe { cuda::module_load_data(image) };
    };
    let mut last = None;
    for e in entries.iter().filter(|e| matches!(e.kind, KIND_CUBIN | KIND_PTX)) {
        // SAFETY: `parse` checked the entry lies inside the image; the compiler wrote a
        // complete cubin or NUL-terminated PTX there.
        match unsafe { cuda::module_load_data(bytes[e.offset..].as_ptr() as *const c_void) } {
            Ok(m) => return Ok(m),
            Err(err) => last = Some(err),
        }
    }
    let err = last.unwrap_or(CuError { call: "cuModuleLoadData", code: CUDA_ERROR_NO_BINARY_FOR_GPU });
    crate::diag::runtime_error(&format!("{} (last: {} {})", describe_failure(&entries), err.call, err.describe()))
}

/// Why no entry loaded, in the user's terms: what the program was compiled for.
fn describe_failure(entries: &[Entry]) -> String {
    let names: Vec<String> = entries
        .iter()
        .filter_map(|e| match e.kind {
            KIND_CUBIN => Some(format!("sm_{} (cubin)", e.sm)),
            KIND_PTX => Some(format!("compute_{} (PTX)", e.sm)),
            _ => None,
        })
        .collect();
    format!(
        "no code in this program runs on this GPU; it was compiled for {} (rebuild with -gpu=ccXY for this GPU's compute capability, or an older one: PTX runs on newer GPUs)",
        names.join(", ")
    )
}

const CUDA_ERROR_NO_BINARY_FOR_GPU: i32 = 209;

#[cfg(test)]
mod tests {
    use super::*;

    fn container(entries: &[(u32, u32, &[u8])]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        let mut offset = 16 + 24 * entries.len();
        for (k, sm, b) in entries {
            out.extend_from_slice(&k.to_le_bytes());
            out.extend_from_slice(&sm.to_le_bytes());
            out.extend_from_slice(&(offset as u64).to_le_bytes());
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            offset += b.len();
        }
        for (_, _, b) in entries {
            out.extend_from_slice(b);
        }
        out
    }

    #[test]
    fn failure_names_what_was_built() {
        let e = |kind, sm| Entry { kind, sm, offset: 0, size: 1 };
        let msg = describe_failure(&[e(KIND_CUBIN, 100), e(KIND_PTX, 100)]);
        assert!(msg.contains("compiled for sm_100 (cubin), compute_100 (PTX)"), "{msg}");
    }

    #[test]
    fn reads_entries_in_order() {
        let img = container(&[(KIND_CUBIN, 90, b"abc"), (KIND_PTX, 80, b"ptx\0")]);
        let e = parse(&img).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].kind, e[0].sm, &img[e[0].offset..e[0].offset + e[0].size]), (KIND_CUBIN, 90, &b"abc"[..]));
        assert_eq!((e[1].kind, e[1].sm, &img[e[1].offset..e[1].offset + e[1].size]), (KIND_PTX, 80, &b"ptx\0"[..]));
    }

    #[test]
    fn plain_or_broken_images_are_not_containers() {
        assert_eq!(parse(b"\x7fELF...."), None);
        assert_eq!(parse(b"ACC"), None);
        let mut img = container(&[(KIND_CUBIN, 90, b"abc")]);
        img.truncate(img.len() - 1);
        assert_eq!(parse(&img), None, "an entry past the end");
    }
}
