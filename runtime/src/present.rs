//! The present table: which host byte ranges have a device copy (OpenACC 3.3 §2.6.6).
//!
//! Pure bookkeeping with no CUDA dependency, so it is unit-tested on any machine. Entries
//! are keyed by host start address in a `BTreeMap` and never overlap. Each entry has ONE
//! reference count that combines the structured and dynamic counts of §2.6.7: the ABI
//! (`__accrt_data_enter/exit`) does not say whether an item comes from a data region or
//! from `enter/exit data`, so the runtime cannot keep them apart. Data stays on the device
//! until the combined count drops to zero, which is what correct programs observe.
//!
//! Zero-length items (`x[0:0]`) allocate nothing and create no entry; they are counted in
//! a side table so that `deviceptr` of such an address (when no real entry contains it)
//! can return null instead of reporting the data as missing.

use std::collections::BTreeMap;

/// One present range `[start, end)` with its device copy at `dev`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub start: usize,
    pub end: usize,
    pub dev: u64,
    pub refs: u64,
}

impl Entry {
    /// Device address of host address `addr` (which must be in `[start, end]`).
    pub fn translate(&self, addr: usize) -> u64 {
        self.dev + (addr - self.start) as u64
    }
}

/// A range that overlaps a present entry without being contained in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartiallyPresent {
    pub entry: Entry,
}

/// Result of looking up a host range.
pub type Found = Result<Option<Entry>, PartiallyPresent>;

#[derive(Debug, Default)]
pub struct PresentTable {
    entries: BTreeMap<usize, Entry>,
    /// Reference counts of zero-length items, by host address.
    empty: BTreeMap<usize, u64>,
}

impl PresentTable {
    pub const fn new() -> Self {
        PresentTable {
            entries: BTreeMap::new(),
            empty: BTreeMap::new(),
        }
    }

    /// The entry containing all of `[start, start+len)` (`len > 0`), `Ok(None)` when no
    /// byte of it is present, `Err` when it is only partly present.
    pub fn find(&self, start: usize, len: usize) -> Found {
        debug_assert!(len > 0);
        let end = start.saturating_add(len);
        if let Some((_, e)) = self.entries.range(..=start).next_back() {
            if e.end >= end {
                return Ok(Some(*e));
            }
            if e.end > start {
                return Err(PartiallyPresent { entry: *e });
            }
        }
        match self.entries.range(start..end).next() {
            Some((_, e)) => Err(PartiallyPresent { entry: *e }),
            None => Ok(None),
        }
    }

    /// Add a new entry with reference count 1. The range must not be present at all.
    pub fn insert(
        &mut self,
        start: usize,
        len: usize,
        dev: u64,
    ) -> Result<Entry, PartiallyPresent> {
        match self.find(start, len) {
            Ok(None) => {}
            Ok(Some(entry)) | Err(PartiallyPresent { entry }) => {
                return Err(PartiallyPresent { entry })
            }
        }
        let e = Entry {
            start,
            end: start + len,
            dev,
            refs: 1,
        };
        self.entries.insert(start, e);
        Ok(e)
    }

    /// Add one reference to the entry starting at `start`.
    pub fn retain(&mut self, start: usize) {
        if let Some(e) = self.entries.get_mut(&start) {
            e.refs += 1;
        }
    }

    /// Drop one reference to the entry starting at `start`; returns the entry, removed
    /// from the table, when that was the last reference.
    pub fn release(&mut self, start: usize) -> Option<Entry> {
        let e = self.entries.get_mut(&start)?;
        e.refs = e.refs.saturating_sub(1);
        if e.refs == 0 {
            self.entries.remove(&start)
        } else {
            None
        }
    }

    /// Device address of host address `addr`: inside a present range, or one past its
    /// end (pointer arithmetic). A range starting at `addr` wins over one ending there.
    pub fn translate(&self, addr: usize) -> Option<u64> {
        let (_, e) = self.entries.range(..=addr).next_back()?;
        (addr <= e.end).then(|| e.translate(addr))
    }

    /// Device address of a pointer used in a compute region (`__accrt_translate`): the
    /// pointer's own value when it lies in (or one past the end of) a present range, so a
    /// pointer reassigned on the host (`t = u; u = v; v = t;`) reaches the device copy of
    /// what it points to now; otherwise the same distance from the device copy of
    /// `fallback` (the start of the data clause item the pointer was named in, e.g. `y`
    /// with `copy(y[5:10])`, which points before the mapped section). A `fallback` of 0
    /// means there is none. `Err(())` when neither is present.
    pub fn translate_pointer(&self, addr: usize, fallback: usize) -> Result<Option<u64>, ()> {
        if addr == 0 {
            return Ok(None);
        }
        if let Some(dev) = self.translate(addr) {
            return Ok(Some(dev));
        }
        if fallback != 0 {
            if let Some(base) = self.translate(fallback) {
                let delta = (addr as i64).wrapping_sub(fallback as i64);
                return Ok(Some(base.wrapping_add_signed(delta)));
            }
        }
        // A zero-length item (`x[0:0]`) has no device copy: its device pointer is null.
        if self.has_empty(addr) || (fallback != 0 && self.has_empty(fallback)) {
            return Ok(None);
        }
        Err(())
    }

    /// Count one zero-length item at `addr`.
    pub fn enter_empty(&mut self, addr: usize) {
        *self.empty.entry(addr).or_insert(0) += 1;
    }

    /// Drop one zero-length item at `addr` (nothing when there is none).
    pub fn exit_empty(&mut self, addr: usize) {
        if let Some(n) = self.empty.get_mut(&addr) {
            *n -= 1;
            if *n == 0 {
                self.empty.remove(&addr);
            }
        }
    }

    /// Whether a zero-length item at `addr` is currently entered.
    pub fn has_empty(&self, addr: usize) -> bool {
        self.empty.contains_key(&addr)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_and_find() {
        let mut t = PresentTable::new();
        assert_eq!(t.find(1000, 100), Ok(None));
        let e = t.insert(1000, 100, 0x9000).unwrap();
        assert_eq!(
            e,
            Entry {
                start: 1000,
                end: 1100,
                dev: 0x9000,
                refs: 1
            }
        );
        assert_eq!(t.find(1000, 100), Ok(Some(e)));
        assert_eq!(t.find(1010, 10), Ok(Some(e)), "sub-range is present");
        assert_eq!(t.find(1099, 1), Ok(Some(e)));
        assert_eq!(t.find(1100, 4), Ok(None), "range right after the entry");
        assert_eq!(t.find(900, 100), Ok(None), "range right before the entry");
    }

    #[test]
    fn refcount() {
        let mut t = PresentTable::new();
        t.insert(1000, 8, 1).unwrap();
        t.retain(1000);
        assert_eq!(t.release(1000), None);
        assert_eq!(t.len(), 1);
        let last = t.release(1000).unwrap();
        assert_eq!((last.start, last.end, last.refs), (1000, 1008, 0));
        assert!(t.is_empty());
        assert_eq!(
            t.release(1000),
            None,
            "releasing an absent entry is harmless"
        );
    }

    #[test]
    fn lookup_inside_and_one_past_end() {
        let mut t = PresentTable::new();
        t.insert(1000, 100, 0x5000).unwrap();
        assert_eq!(t.translate(1000), Some(0x5000));
        assert_eq!(t.translate(1050), Some(0x5032));
        assert_eq!(t.translate(1100), Some(0x5064), "one past the end");
        assert_eq!(t.translate(1101), None);
        assert_eq!(t.translate(999), None);
        // An adjacent range starting where the first ends takes precedence.
        t.insert(1100, 10, 0x8000).unwrap();
        assert_eq!(t.translate(1100), Some(0x8000));
        assert_eq!(t.translate(1110), Some(0x800a));
    }

    #[test]
    fn partial_overlap_is_an_error() {
        let mut t = PresentTable::new();
        let e = t.insert(1000, 100, 1).unwrap();
        assert_eq!(
            t.find(990, 20),
            Err(PartiallyPresent { entry: e }),
            "overlaps the start"
        );
        assert_eq!(
            t.find(1090, 20),
            Err(PartiallyPresent { entry: e }),
            "overlaps the end"
        );
        assert_eq!(
            t.find(900, 300),
            Err(PartiallyPresent { entry: e }),
            "contains the entry"
        );
        assert!(t.insert(1050, 100, 2).is_err());
        assert!(t.insert(1000, 10, 2).is_err(), "already present");
        assert_eq!(t.len(), 1);
        t.insert(1100, 100, 3).unwrap();
        t.insert(800, 200, 4).unwrap();
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn pointers_translate_by_their_current_value() {
        let mut t = PresentTable::new();
        // copy(u[0:25], v[0:25]) with 4-byte elements.
        t.insert(1000, 100, 0x5000).unwrap();
        t.insert(3000, 100, 0x9000).unwrap();
        // Before the swap: u and v are their sections' starts.
        assert_eq!(t.translate_pointer(1000, 1000), Ok(Some(0x5000)));
        assert_eq!(t.translate_pointer(3000, 3000), Ok(Some(0x9000)));
        // After `t = u; u = v; v = t;` each reaches the buffer it points to now, not the
        // stale section start plus the host distance.
        assert_eq!(t.translate_pointer(3000, 1000), Ok(Some(0x9000)));
        assert_eq!(t.translate_pointer(1000, 3000), Ok(Some(0x5000)));
        assert_eq!(t.translate_pointer(3040, 1000), Ok(Some(0x9028)), "inside");
        assert_eq!(t.translate_pointer(1100, 3000), Ok(Some(0x5064)), "one past the end");
        // Null stays null, with or without a fallback.
        assert_eq!(t.translate_pointer(0, 1000), Ok(None));
        assert_eq!(t.translate_pointer(0, 0), Ok(None));
    }

    #[test]
    fn pointers_outside_every_range_use_their_clause_item() {
        let mut t = PresentTable::new();
        // copy(y[5:10]) with 4-byte elements and y = 980: the section is 1000..1040.
        t.insert(1000, 40, 0x5000).unwrap();
        assert_eq!(t.translate_pointer(980, 1000), Ok(Some(0x5000 - 20)));
        assert_eq!(t.translate_pointer(980, 0), Err(()), "no clause item to fall back on");
        assert_eq!(t.translate_pointer(980, 2000), Err(()), "clause item not present");
        assert_eq!(t.translate_pointer(5000, 1000), Ok(Some(0x5000 + 4000)), "after the section");
        // A zero-length clause item maps to null.
        t.enter_empty(7000);
        assert_eq!(t.translate_pointer(6980, 7000), Ok(None));
        assert_eq!(t.translate_pointer(7000, 0), Ok(None));
    }

    #[test]
    fn zero_length() {
        let mut t = PresentTable::new();
        assert!(!t.has_empty(500));
        t.enter_empty(500);
        t.enter_empty(500);
        assert!(t.has_empty(500));
        assert!(t.is_empty(), "zero-length items create no entry");
        assert_eq!(t.translate(500), None);
        t.exit_empty(500);
        assert!(t.has_empty(500));
        t.exit_empty(500);
        assert!(!t.has_empty(500));
        t.exit_empty(500);
        // A zero-length address inside a real entry translates through that entry.
        t.insert(400, 200, 0x100).unwrap();
        assert_eq!(t.translate(500), Some(0x164));
    }
}
