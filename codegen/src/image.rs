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
//! Layout (little endian): magic `ACCIMG\x01\0`, u32 count, u32 flags, then `count` entries
//! of { u32 kind (1 cubin, 2 PTX, 3 routine library cubin, 4 routine library PTX), u32 SM
//! number (90 for sm_90 and sm_90a), u64 offset from the start, u64 size }, then the
//! payloads, each at a 16-byte aligned offset; a PTX ends in a NUL, counted in its size.
//! Flags: `FLAG_LINK` (the kernels' cubins are relocatable and call routines of other files:
//! the runtime links them with every registered library before loading). Kinds 3 and 4 are
//! the relocatable device code of the routines the file exports (routine.rs), which the
//! runtime links into the kernels of images flagged `FLAG_LINK`; an image with them is
//! registered at program start (`__accrt_register_routines`, docs/runtime-abi.md).

pub const MAGIC: &[u8; 8] = b"ACCIMG\x01\0";
pub const KIND_CUBIN: u32 = 1;
pub const KIND_PTX: u32 = 2;
pub const KIND_LIBRARY_CUBIN: u32 = 3;
pub const KIND_LIBRARY_PTX: u32 = 4;
pub const FLAG_LINK: u32 = 1;

/// What an image holds: the kernels' cubins and PTX (empty when the file has no compute
/// construct), the exported routines' (empty when it exports none).
pub struct Parts<'a> {
    pub cubins: &'a [(String, Vec<u8>)],
    pub ptx: &'a str,
    pub library: &'a [(String, Vec<u8>)],
    pub library_ptx: &'a str,
    pub ptx_sm: u32,
    pub link: bool,
}

/// The container for `parts`: the kernels' entries in the order `pack` gives them, then the
/// library's in the same order.
pub fn pack_parts(p: &Parts) -> Vec<u8> {
    let mut entries: Vec<(u32, u32, Vec<u8>)> = Vec::new();
    let mut add = |cubins: &[(String, Vec<u8>)], ptx: &str, kinds: (u32, u32)| {
        let mut ordered: Vec<&(String, Vec<u8>)> = cubins.iter().collect();
        ordered.sort_by_key(|(arch, _)| std::cmp::Reverse(crate::ptx::sm_number(arch)));
        entries.extend(ordered.iter().map(|(a, b)| (kinds.0, crate::ptx::sm_number(a), b.clone())));
        if !ptx.is_empty() {
            let mut bytes = ptx.as_bytes().to_vec();
            bytes.push(0);
            entries.push((kinds.1, p.ptx_sm, bytes));
        }
    };
    add(p.cubins, p.ptx, (KIND_CUBIN, KIND_PTX));
    add(p.library, p.library_ptx, (KIND_LIBRARY_CUBIN, KIND_LIBRARY_PTX));
    let refs: Vec<(u32, u32, &[u8])> = entries.iter().map(|(k, s, b)| (*k, *s, b.as_slice())).collect();
    container(&refs, if p.link { FLAG_LINK } else { 0 })
}
const HEADER: usize = 16;
const ENTRY: usize = 24;

/// The container for `cubins` (architecture, bytes) and `ptx` (built for `ptx_sm`).
pub fn pack(cubins: &[(String, Vec<u8>)], ptx: &str, ptx_sm: u32) -> Vec<u8> {
    pack_parts(&Parts { cubins, ptx, library: &[], library_ptx: "", ptx_sm, link: false })
}

fn container(entries: &[(u32, u32, &[u8])], flags: u32) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    let mut offset = align16(HEADER + ENTRY * entries.len());
    for (kind, sm, bytes) in entries {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&sm.to_le_bytes());
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        offset = align16(offset + bytes.len());
    }
    for (_, _, bytes) in entries {
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

    #[test]
    fn parts_keep_kernels_first_and_flag_linking() {
        let k = [("sm_80".to_string(), vec![1u8; 3])];
        let lib = [("sm_80".to_string(), vec![2u8; 2]), ("sm_90".to_string(), vec![3u8; 2])];
        let img = pack_parts(&Parts { cubins: &k, ptx: "k", library: &lib, library_ptx: "l", ptx_sm: 80, link: true });
        assert_eq!(u32_at(&img, 8), 5);
        assert_eq!(u32_at(&img, 12), FLAG_LINK);
        let kinds: Vec<(u32, u32)> = (0..5).map(|i| (u32_at(&img, 16 + 24 * i), u32_at(&img, 20 + 24 * i))).collect();
        assert_eq!(kinds, [(KIND_CUBIN, 80), (KIND_PTX, 80), (KIND_LIBRARY_CUBIN, 90), (KIND_LIBRARY_CUBIN, 80), (KIND_LIBRARY_PTX, 80)]);
        // A file with routines only: the library alone, not flagged.
        let img = pack_parts(&Parts { cubins: &[], ptx: "", library: &lib, library_ptx: "l", ptx_sm: 80, link: false });
        assert_eq!((u32_at(&img, 8), u32_at(&img, 12), u32_at(&img, 16)), (3, 0, KIND_LIBRARY_CUBIN));
    }
}
