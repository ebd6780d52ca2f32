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
/// The relocatable device code of the routines a file exports (codegen/src/routine.rs).
pub const KIND_LIBRARY_CUBIN: u32 = 3;
pub const KIND_LIBRARY_PTX: u32 = 4;
/// Header flag: the kernels' cubins and PTX are relocatable and call routines of other
/// files: they are linked with every registered library before loading.
pub const FLAG_LINK: u32 = 1;

/// Images of the program that hold routine libraries (`__accrt_register_routines`, at
/// program start): address and size.
static LIBRARIES: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());

/// Records an image with routine libraries (kinds 3 and 4).
pub fn register_library(image: *const c_void, size: usize) {
    if image.is_null() || size == 0 {
        return;
    }
    LIBRARIES.lock().unwrap_or_else(|e| e.into_inner()).push((image as usize, size));
}

/// The header flags of a container image (0 for anything else).
pub fn flags(bytes: &[u8]) -> u32 {
    match (bytes.get(..8), bytes.get(12..16)) {
        (Some(m), Some(f)) if m == MAGIC => u32::from_le_bytes(f.try_into().expect("4 bytes")),
        _ => 0,
    }
}

/// What to link with kernel entry `kernel` (kind and SM number) from one library's entries:
/// its cubin of the same SM number for a cubin (else its PTX, which the driver compiles for
/// the GPU the cubin is for), its PTX for PTX. None: the library has nothing that fits.
pub fn library_entry(kernel: (u32, u32), library: &[Entry]) -> Option<Entry> {
    let ptx = library.iter().find(|e| e.kind == KIND_LIBRARY_PTX).copied();
    match kernel.0 {
        KIND_CUBIN => library.iter().find(|e| e.kind == KIND_LIBRARY_CUBIN && e.sm == kernel.1).copied().or(ptx),
        _ => ptx,
    }
}

/// Links kernel entry `e` of `bytes` with every registered library and loads the result.
fn link_entry(bytes: &[u8], e: &Entry) -> Result<Handle, (CuError, String)> {
    let libraries: Vec<(usize, usize)> = LIBRARIES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut inputs: Vec<(bool, &[u8])> = vec![(e.kind == KIND_PTX, &bytes[e.offset..e.offset + e.size])];
    for (addr, size) in libraries {
        // SAFETY: registered images are constants the compiler embedded, of that size,
        // alive for the whole program.
        let lib = unsafe { std::slice::from_raw_parts(addr as *const u8, size) };
        let Some(entries) = parse(lib) else { continue };
        if let Some(l) = library_entry((e.kind, e.sm), &entries) {
            inputs.push((l.kind == KIND_LIBRARY_PTX, &lib[l.offset..l.offset + l.size]));
        }
    }
    cuda::link_and_load(&inputs)
}

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

/// Whether a cubin for `cubin_sm` runs on a GPU of `device_sm`: the same major version and a
/// minor version no newer than the GPU's (SASS is not forward compatible across majors).
pub fn cubin_runs_on(cubin_sm: u32, device_sm: u32) -> bool {
    cubin_sm / 10 == device_sm / 10 && cubin_sm % 10 <= device_sm % 10
}

/// Loads the best module of `image` for the current GPU (`device_sm`, its SM number): the
/// first entry the driver takes, skipping cubins that cannot run on it (asking the driver
/// would only fail, and show up as an API error under compute-sanitizer).
///
/// # Safety
/// `image` must point to `size` readable bytes embedded by the compiler.
pub unsafe fn load(image: *const c_void, size: usize, device_sm: u32) -> Result<Handle, CuError> {
    // SAFETY: guaranteed by the caller.
    let bytes = unsafe { std::slice::from_raw_parts(image as *const u8, size) };
    let Some(entries) = parse(bytes) else {
        // SAFETY: a plain cubin or NUL-terminated PTX, complete (caller's guarantee).
        return unsafe { cuda::module_load_data(image) };
    };
    let mut last = None;
    let mut link_log = String::new();
    let link = flags(bytes) & FLAG_LINK != 0;
    let fits = |e: &&Entry| e.kind == KIND_PTX || (e.kind == KIND_CUBIN && cubin_runs_on(e.sm, device_sm));
    let any_fits = entries.iter().any(|e| fits(&e));
    for e in entries.iter().filter(|e| matches!(e.kind, KIND_CUBIN | KIND_PTX) && (!any_fits || fits(e))) {
        let loaded = if link {
            link_entry(bytes, e).map_err(|(err, log)| {
                if !log.is_empty() {
                    link_log = log;
                }
                err
            })
        } else {
            // SAFETY: `parse` checked the entry lies inside the image; the compiler wrote a
            // complete cubin or NUL-terminated PTX there.
            unsafe { cuda::module_load_data(bytes[e.offset..].as_ptr() as *const c_void) }
        };
        match loaded {
            Ok(m) => return Ok(m),
            Err(err) => last = Some(err),
        }
    }
    if !link_log.is_empty() {
        crate::diag::runtime_error(&format!(
            "linking the kernels with the routines of the program's other files failed (is every routine they call defined, with its 'routine' directive, in a file of the program?):\n{link_log}"
        ));
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

    #[test]
    fn cubins_run_within_their_major_version() {
        assert!(cubin_runs_on(90, 90));
        assert!(cubin_runs_on(80, 86));
        assert!(!cubin_runs_on(86, 80), "a newer minor needs a newer GPU");
        assert!(!cubin_runs_on(80, 90), "SASS does not carry across majors");
        assert!(!cubin_runs_on(90, 100));
    }

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
    fn libraries_match_the_kernels_entry() {
        let e = |kind, sm| Entry { kind, sm, offset: 0, size: 1 };
        let lib = [e(KIND_LIBRARY_CUBIN, 90), e(KIND_LIBRARY_CUBIN, 80), e(KIND_LIBRARY_PTX, 80)];
        assert_eq!(library_entry((KIND_CUBIN, 80), &lib), Some(e(KIND_LIBRARY_CUBIN, 80)));
        assert_eq!(library_entry((KIND_CUBIN, 100), &lib), Some(e(KIND_LIBRARY_PTX, 80)));
        assert_eq!(library_entry((KIND_PTX, 80), &lib), Some(e(KIND_LIBRARY_PTX, 80)));
        assert_eq!(library_entry((KIND_PTX, 80), &lib[..2]), None);
        let mut img = container(&[(KIND_CUBIN, 90, b"abc")]);
        assert_eq!(flags(&img), 0);
        img[12] = 1;
        assert_eq!(flags(&img), FLAG_LINK);
        assert_eq!(flags(b"\x7fELF............"), 0);
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
