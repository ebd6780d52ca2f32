//! The device image embedded in the host object: every cubin built plus the PTX, in one
//! container the host runtime reads (runtime/src/image.rs; layout in docs/runtime-abi.md).
//!
//! Expects: one cubin per architecture asked for (`-gpu=cc80,cc90`) and the PTX of the
//! oldest plain one (ptx::portable_arch). Produces: the bytes of the container, entries in
//! the order the runtime tries them: cubins from the newest architecture down (a GPU takes
//! the newest cubin of its own major version), the PTX last (the driver compiles it for a
//! GPU newer than every cubin). Does not build a CUDA fatbinary: the CUDA 12.9 wheel accc
//! uses has no `fatbinary` tool, and this format needs nothing but cuModuleLoadData.
//!
//! Layout (little endian): magic `ACCIMG\x01\0`, u32 count, u32 0, then `count` entries of
//! { u32 kind (1 cubin, 2 PTX), u32 SM number (90 for sm_90 and sm_90a), u64 offset from the
//! start, u64 size }, then the payloads, each at a 16-byte aligned offset; the PTX ends in a
//! NUL, counted in its size.

pub const MAGIC: &[u8; 8] = b"ACCIMG\x01\0";
pub const KIND_CUBIN: u32 = 1;
pub const KIND_PTX: u32 = 2;
const HEADER: usize = 16;
const ENTRY: usize = 24;

/// The container for `cubins` (architecture, bytes) and `ptx` (built for `ptx_sm`).
pub fn pack(cubins: &[(String, Vec<u8>)], ptx: &str, ptx_sm: u32) -> Vec<u8> {
    let mut ordered: Vec<&(String, Vec<u8>)> = cubins.iter().collect();
    ordered.sort_by_key(|(arch, _)| std::cmp::Reverse(crate::ptx::sm_number(arch)));
    let mut ptx_bytes = ptx.as_bytes().to_vec();
    ptx_bytes.push(0);
    let mut entries: Vec<(u32, u32, &[u8])> = ordered.iter().map(|(a, b)| (KIND_CUBIN, crate::ptx::sm_number(a), b.as_slice())).collect();
    entries.push((KIND_PTX, ptx_sm, &ptx_bytes));

    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    let mut offset = align16(HEADER + ENTRY * entries.len());
    for (kind, sm, bytes) in &entries {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&sm.to_le_bytes());
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        offset = align16(offset + bytes.len());
    }
    for (_, _, bytes) in &entries {
        out.resize(align16(out.len()), 0);
        out.extend_from_slice(bytes);
    }
    out
}

fn align16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn u64_at(b: &[u8], at: usize) -> usize {
        u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
    }

    #[test]
    fn newest_cubin_first_ptx_last_aligned() {
        let img = pack(&[("sm_80".into(), vec![8; 5]), ("sm_90a".into(), vec![9; 3])], ".version 8.0", 80);
        assert_eq!(&img[..8], MAGIC);
        assert_eq!(u32_at(&img, 8), 3);
        let entry = |i: usize| (u32_at(&img, 16 + 24 * i), u32_at(&img, 20 + 24 * i), u64_at(&img, 24 + 24 * i), u64_at(&img, 32 + 24 * i));
        assert_eq!((entry(0).0, entry(0).1), (KIND_CUBIN, 90));
        assert_eq!((entry(1).0, entry(1).1), (KIND_CUBIN, 80));
        assert_eq!((entry(2).0, entry(2).1), (KIND_PTX, 80));
        for i in 0..3 {
            assert_eq!(entry(i).2 % 16, 0);
        }
        let (_, _, off, size) = entry(0);
        assert_eq!(&img[off..off + size], &[9, 9, 9]);
        let (_, _, off, size) = entry(2);
        assert_eq!(&img[off..off + size], b".version 8.0\0");
        assert_eq!(img.len(), off + size);
    }
}
