//! The present table: which host byte ranges have a device copy (OpenACC 3.3 §2.6.6), with
//! the two reference counters of §2.6.7 and the attachment counters of §2.6.8.
//!
//! Pure bookkeeping with no CUDA dependency, so it is unit-tested on any machine. Entries
//! are keyed by host start address in a `BTreeMap` and never overlap. Each entry counts
//! structured references (data regions, compute-construct data clauses) and dynamic ones
//! (`enter data`/`exit data`, `acc_copyin`/`acc_delete`/...) apart: a range stays present
//! while either count is non-zero, so `exit data delete(a)` inside `data copy(a)` leaves
//! the region's copy in place (its dynamic count is already zero: no action). Releasing a
//! counter that is zero is no action either; `finalize` sets the dynamic count to zero.
//! A range mapped by `acc_map_data` keeps a dynamic count of at least one until
//! [`PresentTable::unmap`], so no exit ever frees it (its memory belongs to the program).
//!
//! An item inside a present range (a sub-range) counts on that range's entry; an item that
//! overlaps a range without lying inside it is [`PartiallyPresent`], which callers report.
//!
//! Zero-length items (`x[0:0]`) allocate nothing and create no entry; they are counted in
//! a side table so that `deviceptr` of such an address (when no real entry contains it)
//! can return null instead of reporting the data as missing.
//!
//! Lookups cost O(log n) in the number of present ranges, so programs that map thousands of
//! buffers pay no more per clause or launch: host addresses are found by a `BTreeMap` range
//! query (the last entry starting at or before the address, which alone can contain it,
//! since entries never overlap), device addresses (`acc_hostptr`, `acc_free`'s check) by a
//! second index of the entries by device start. Device ranges do not overlap either (each is
//! its own allocation), unless the program maps one device block twice with `acc_map_data`;
//! from then on a device lookup that misses the nearest range walks back further.
//!
//! What this module does not do: allocate, copy or free (data.rs does, from what the
//! calls here return), or decide what a clause means.

use std::collections::{BTreeMap, BTreeSet};

/// Which reference counter an operation uses (§2.6.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// Data constructs and data clauses on compute constructs.
    Structured,
    /// `enter data`, `exit data` and the data routines (`acc_copyin`, ...).
    Dynamic,
}

/// The two reference counts of a present range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Refs {
    pub structured: u64,
    pub dynamic: u64,
}

impl Refs {
    /// One reference of kind `c`.
    pub fn one(c: Counter) -> Refs {
        let mut r = Refs::default();
        *r.get_mut(c) += 1;
        r
    }

    fn get_mut(&mut self, c: Counter) -> &mut u64 {
        match c {
            Counter::Structured => &mut self.structured,
            Counter::Dynamic => &mut self.dynamic,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.structured == 0 && self.dynamic == 0
    }

    /// Drops one reference of kind `c` (all of them with `finalize`), never below `floor`.
    /// False when there was none above `floor` to drop (no action).
    fn drop_ref(&mut self, c: Counter, finalize: bool, floor: u64) -> bool {
        let n = self.get_mut(c);
        if *n <= floor {
            return false;
        }
        *n = if finalize { floor } else { *n - 1 };
        true
    }
}

/// One present range `[start, end)` with its device copy at `dev`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub start: usize,
    pub end: usize,
    pub dev: u64,
    pub refs: Refs,
    /// Made by `acc_map_data`: the program owns the device memory; only `acc_unmap_data`
    /// removes the entry, and nothing frees it.
    pub mapped: bool,
}

impl Entry {
    /// Device address of host address `addr` (which must be in `[start, end]`).
    pub fn translate(&self, addr: usize) -> u64 {
        self.dev + (addr - self.start) as u64
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A range that overlaps a present entry without being contained in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartiallyPresent {
    pub entry: Entry,
}

/// Result of looking up a host range.
pub type Found = Result<Option<Entry>, PartiallyPresent>;

/// What releasing a reference did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Released {
    /// The counter was already zero (or at a mapped range's floor): no action.
    NotHeld,
    /// A reference was dropped and the range stays present.
    Kept,
    /// That was the last reference: the entry, now removed from the table (with its
    /// attachments), whose device copy the caller copies out and frees.
    Last(Entry),
}

/// Why `acc_unmap_data` cannot unmap an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnmapError {
    NotPresent,
    /// Present, but not as a range that `acc_map_data` mapped starting at that address.
    NotMapped(Entry),
    /// Mapped, but a data construct still holds it (structured count > 0).
    StructuredHeld(Entry),
}

#[derive(Debug, Default)]
pub struct PresentTable {
    entries: BTreeMap<usize, Entry>,
    /// Reference counts of zero-length items, by host address.
    empty: BTreeMap<usize, Refs>,
    /// Attachment counters (§2.6.8), by the host address of the attached pointer.
    attached: BTreeMap<usize, u64>,
    /// The entries by (device start, host start): device → host lookups.
    by_dev: BTreeSet<(u64, usize)>,
    /// Whether two entries' device ranges have ever overlapped (`acc_map_data` of one device
    /// block twice): device lookups then look past the nearest range.
    dev_overlap: bool,
}

impl PresentTable {
    pub const fn new() -> Self {
        PresentTable {
            entries: BTreeMap::new(),
            empty: BTreeMap::new(),
            attached: BTreeMap::new(),
            by_dev: BTreeSet::new(),
            dev_overlap: false,
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

    /// Add a new entry holding one reference of kind `c`. No byte of the range may be
    /// present.
    pub fn insert(&mut self, start: usize, len: usize, dev: u64, c: Counter) -> Result<Entry, PartiallyPresent> {
        self.add(start, len, dev, Refs::one(c), false)
    }

    /// `acc_map_data`: a new entry for device memory the program allocated, with a dynamic
    /// count of one that no exit drops. No byte of the range may be present.
    pub fn map(&mut self, start: usize, len: usize, dev: u64) -> Result<Entry, PartiallyPresent> {
        self.add(start, len, dev, Refs::one(Counter::Dynamic), true)
    }

    fn add(&mut self, start: usize, len: usize, dev: u64, refs: Refs, mapped: bool) -> Result<Entry, PartiallyPresent> {
        match self.find(start, len) {
            Ok(None) => {}
            Ok(Some(entry)) | Err(PartiallyPresent { entry }) => return Err(PartiallyPresent { entry }),
        }
        let e = Entry { start, end: start + len, dev, refs, mapped };
        self.dev_overlap |= self.overlaps_on_device(dev, len);
        self.entries.insert(start, e);
        self.by_dev.insert((dev, start));
        Ok(e)
    }

    /// Add one reference of kind `c` to the entry starting at `start`.
    pub fn retain(&mut self, start: usize, c: Counter) {
        if let Some(e) = self.entries.get_mut(&start) {
            *e.refs.get_mut(c) += 1;
        }
    }

    /// Drop one reference of kind `c` (with `finalize`, the whole dynamic count) of the
    /// entry starting at `start`.
    pub fn release(&mut self, start: usize, c: Counter, finalize: bool) -> Released {
        let Some(e) = self.entries.get_mut(&start) else { return Released::NotHeld };
        let floor = u64::from(e.mapped && c == Counter::Dynamic);
        if !e.refs.drop_ref(c, finalize, floor) {
            return Released::NotHeld;
        }
        if !e.refs.is_zero() || e.mapped {
            return Released::Kept;
        }
        let e = *e;
        self.remove(e.start);
        Released::Last(e)
    }

    /// `acc_unmap_data(start)`: removes the mapped entry starting at `start` (its memory
    /// stays the program's).
    pub fn unmap(&mut self, start: usize) -> Result<Entry, UnmapError> {
        let e = self.lookup(start).ok_or(UnmapError::NotPresent)?;
        if !e.mapped || e.start != start {
            return Err(UnmapError::NotMapped(e));
        }
        if e.refs.structured > 0 {
            return Err(UnmapError::StructuredHeld(e));
        }
        self.remove(start);
        Ok(e)
    }

    /// Whether device range `[dev, dev+len)` overlaps a present entry's device range.
    fn overlaps_on_device(&self, dev: u64, len: usize) -> bool {
        let end_of = |&(d, h): &(u64, usize)| d.saturating_add(self.entries[&h].len() as u64);
        let before = self.by_dev.range(..=(dev, usize::MAX)).next_back().is_some_and(|b| end_of(b) > dev);
        let after = self.by_dev.range((dev, usize::MAX)..).next().is_some_and(|&(d, _)| d < dev.saturating_add(len as u64));
        before || after
    }

    /// Removes the entry at `start` and the attachments of pointers inside it.
    fn remove(&mut self, start: usize) {
        if let Some(e) = self.entries.remove(&start) {
            self.by_dev.remove(&(e.dev, e.start));
            let inside: Vec<usize> = self.attached.range(e.start..e.end).map(|(a, _)| *a).collect();
            for a in inside {
                self.attached.remove(&a);
            }
        }
    }

    /// The entry containing host address `addr` (strictly: one past the end is outside).
    pub fn lookup(&self, addr: usize) -> Option<Entry> {
        let (_, e) = self.entries.range(..=addr).next_back()?;
        (addr < e.end).then_some(*e)
    }

    /// The host address whose device copy is at device address `dev` (strictly inside an
    /// entry's device range).
    pub fn host_of(&self, dev: u64) -> Option<usize> {
        // The nearest device range starting at or before `dev`; only it can hold `dev` while
        // device ranges do not overlap.
        let below = self.by_dev.range(..=(dev, usize::MAX)).rev().take(if self.dev_overlap { usize::MAX } else { 1 });
        below
            .map(|(_, h)| &self.entries[h])
            .find(|e| dev - e.dev < e.len() as u64)
            .map(|e| e.start + (dev - e.dev) as usize)
    }

    /// Whether a range the runtime allocated (not mapped) has its device copy at `dev`.
    pub fn holds_device(&self, dev: u64) -> bool {
        self.by_dev.range((dev, 0)..=(dev, usize::MAX)).any(|(_, h)| !self.entries[h].mapped)
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
    pub fn enter_empty(&mut self, addr: usize, c: Counter) {
        *self.empty.entry(addr).or_default().get_mut(c) += 1;
    }

    /// Drop one zero-length item at `addr` (nothing when there is none).
    pub fn exit_empty(&mut self, addr: usize, c: Counter, finalize: bool) {
        if let Some(r) = self.empty.get_mut(&addr) {
            r.drop_ref(c, finalize, 0);
            if r.is_zero() {
                self.empty.remove(&addr);
            }
        }
    }

    /// Whether a zero-length item at `addr` is currently entered.
    pub fn has_empty(&self, addr: usize) -> bool {
        self.empty.contains_key(&addr)
    }

    /// Count one attachment of the pointer stored at host address `ptr`; true when it is
    /// the first (the caller then writes the target's device address into the pointer's
    /// device copy).
    pub fn attach(&mut self, ptr: usize) -> bool {
        let n = self.attached.entry(ptr).or_insert(0);
        *n += 1;
        *n == 1
    }

    /// Drop one attachment (all of them with `finalize`) of the pointer at `ptr`; true when
    /// that was the last (the caller then restores the host value in the device copy).
    /// False when it is not attached.
    pub fn detach(&mut self, ptr: usize, finalize: bool) -> bool {
        let Some(n) = self.attached.get_mut(&ptr) else { return false };
        *n = if finalize { 0 } else { *n - 1 };
        if *n == 0 {
            self.attached.remove(&ptr);
            return true;
        }
        false
    }

    /// The attached pointers whose host address lies in `[start, end)`.
    pub fn attached_in(&self, start: usize, end: usize) -> Vec<usize> {
        self.attached.range(start..end).map(|(a, _)| *a).collect()
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
    use super::Counter::{Dynamic, Structured};
    use super::*;

    fn refs(structured: u64, dynamic: u64) -> Refs {
        Refs { structured, dynamic }
    }

    #[test]
    fn insert_and_find() {
        let mut t = PresentTable::new();
        assert_eq!(t.find(1000, 100), Ok(None));
        let e = t.insert(1000, 100, 0x9000, Structured).unwrap();
        assert_eq!(e, Entry { start: 1000, end: 1100, dev: 0x9000, refs: refs(1, 0), mapped: false });
        assert_eq!(t.find(1000, 100), Ok(Some(e)));
        assert_eq!(t.find(1010, 10), Ok(Some(e)), "sub-range is present");
        assert_eq!(t.find(1099, 1), Ok(Some(e)));
        assert_eq!(t.find(1100, 4), Ok(None), "range right after the entry");
        assert_eq!(t.find(900, 100), Ok(None), "range right before the entry");
        assert_eq!(t.insert(2000, 8, 1, Dynamic).unwrap().refs, refs(0, 1));
    }

    #[test]
    fn one_counter_of_each_kind() {
        let mut t = PresentTable::new();
        t.insert(1000, 8, 1, Structured).unwrap();
        t.retain(1000, Structured);
        assert_eq!(t.release(1000, Structured, false), Released::Kept);
        assert_eq!(t.len(), 1);
        let Released::Last(last) = t.release(1000, Structured, false) else { panic!("last") };
        assert_eq!((last.start, last.end, last.refs), (1000, 1008, refs(0, 0)));
        assert!(t.is_empty());
        assert_eq!(t.release(1000, Structured, false), Released::NotHeld, "releasing an absent entry is harmless");
    }

    #[test]
    fn exit_data_inside_a_data_region_does_not_end_it() {
        // data copy(a) { exit data delete(a) }: the dynamic count is zero, no action.
        let mut t = PresentTable::new();
        t.insert(1000, 8, 1, Structured).unwrap();
        assert_eq!(t.release(1000, Dynamic, false), Released::NotHeld);
        assert_eq!(t.release(1000, Dynamic, true), Released::NotHeld, "finalize too");
        assert_eq!(t.lookup(1000).unwrap().refs, refs(1, 0));
        assert!(matches!(t.release(1000, Structured, false), Released::Last(_)));
    }

    #[test]
    fn copyout_while_a_data_region_holds_it_only_decrements() {
        // enter data copyin(a); data copy(a) { exit data copyout(a) }: no copy-out or
        // free at the exit data; the region's end is the last reference.
        let mut t = PresentTable::new();
        t.insert(1000, 8, 1, Dynamic).unwrap();
        t.retain(1000, Structured);
        assert_eq!(t.release(1000, Dynamic, false), Released::Kept);
        assert_eq!(t.lookup(1000).unwrap().refs, refs(1, 0));
        assert!(matches!(t.release(1000, Structured, false), Released::Last(_)));
    }

    #[test]
    fn enter_twice_exit_once_and_finalize() {
        let mut t = PresentTable::new();
        t.insert(1000, 8, 1, Dynamic).unwrap();
        t.retain(1000, Dynamic);
        t.retain(1000, Dynamic);
        assert_eq!(t.release(1000, Dynamic, false), Released::Kept);
        assert_eq!(t.lookup(1000).unwrap().refs, refs(0, 2));
        t.retain(1000, Structured);
        assert_eq!(t.release(1000, Dynamic, true), Released::Kept, "finalize leaves the structured reference");
        assert_eq!(t.lookup(1000).unwrap().refs, refs(1, 0));
        assert!(matches!(t.release(1000, Structured, false), Released::Last(_)));
        t.insert(1000, 8, 1, Dynamic).unwrap();
        t.retain(1000, Dynamic);
        assert!(matches!(t.release(1000, Dynamic, true), Released::Last(_)), "finalize drops every dynamic reference");
    }

    #[test]
    fn sub_ranges_count_on_the_enclosing_entry() {
        let mut t = PresentTable::new();
        let e = t.insert(1000, 100, 0x5000, Dynamic).unwrap();
        // data copy(a[10:20]) inside enter data copyin(a[0:100]).
        assert_eq!(t.find(1010, 20), Ok(Some(e)));
        t.retain(1000, Structured);
        assert_eq!(t.release(1000, Structured, false), Released::Kept);
        // exit data copyout(a[10:20]): the last reference; the whole entry goes.
        let Released::Last(last) = t.release(t.find(1010, 20).unwrap().unwrap().start, Dynamic, false) else {
            panic!("last")
        };
        assert_eq!((last.start, last.end, last.translate(1010)), (1000, 1100, 0x500a));
        assert_eq!(t.find(1010, 20), Ok(None));
    }

    #[test]
    fn lookup_inside_and_one_past_end() {
        let mut t = PresentTable::new();
        t.insert(1000, 100, 0x5000, Structured).unwrap();
        assert_eq!(t.translate(1000), Some(0x5000));
        assert_eq!(t.translate(1050), Some(0x5032));
        assert_eq!(t.translate(1100), Some(0x5064), "one past the end");
        assert_eq!(t.translate(1101), None);
        assert_eq!(t.translate(999), None);
        assert_eq!(t.lookup(1099).map(|e| e.start), Some(1000));
        assert_eq!(t.lookup(1100), None, "lookup is strict");
        assert_eq!(t.host_of(0x5000), Some(1000));
        assert_eq!(t.host_of(0x5063), Some(1099));
        assert_eq!(t.host_of(0x5064), None);
        assert_eq!(t.host_of(0x4fff), None);
        // An adjacent range starting where the first ends takes precedence.
        t.insert(1100, 10, 0x8000, Structured).unwrap();
        assert_eq!(t.translate(1100), Some(0x8000));
        assert_eq!(t.translate(1110), Some(0x800a));
        assert_eq!(t.host_of(0x8009), Some(1109));
        assert!(t.holds_device(0x8000));
        assert!(!t.holds_device(0x8001));
    }

    #[test]
    fn partial_overlap_is_an_error() {
        let mut t = PresentTable::new();
        let e = t.insert(1000, 100, 1, Structured).unwrap();
        assert_eq!(t.find(990, 20), Err(PartiallyPresent { entry: e }), "overlaps the start");
        assert_eq!(t.find(1090, 20), Err(PartiallyPresent { entry: e }), "overlaps the end");
        assert_eq!(t.find(900, 300), Err(PartiallyPresent { entry: e }), "contains the entry");
        assert!(t.insert(1050, 100, 2, Structured).is_err());
        assert!(t.insert(1000, 10, 2, Dynamic).is_err(), "already present");
        assert!(t.map(1099, 2, 2).is_err());
        assert_eq!(t.len(), 1);
        t.insert(1100, 100, 3, Structured).unwrap();
        t.insert(800, 200, 4, Dynamic).unwrap();
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn mapped_ranges_stay_until_unmapped() {
        let mut t = PresentTable::new();
        let e = t.map(1000, 64, 0x7000).unwrap();
        assert_eq!((e.refs, e.mapped), (refs(0, 1), true));
        assert!(!t.holds_device(0x7000), "the program's memory");
        // exit data delete / acc_delete / finalize never free it.
        assert_eq!(t.release(1000, Dynamic, false), Released::NotHeld);
        assert_eq!(t.release(1000, Dynamic, true), Released::NotHeld);
        t.retain(1000, Dynamic);
        assert_eq!(t.release(1000, Dynamic, true), Released::Kept);
        assert_eq!(t.lookup(1000).unwrap().refs, refs(0, 1));
        // A data construct holds it: unmapping is an error until the region ends.
        t.retain(1000, Structured);
        assert!(matches!(t.unmap(1000), Err(UnmapError::StructuredHeld(_))));
        assert_eq!(t.release(1000, Structured, false), Released::Kept);
        assert!(matches!(t.unmap(1010), Err(UnmapError::NotMapped(_))), "not the mapped address");
        assert_eq!(t.unmap(1000).map(|e| e.dev), Ok(0x7000));
        assert_eq!(t.unmap(1000), Err(UnmapError::NotPresent));
        t.insert(2000, 8, 1, Dynamic).unwrap();
        assert!(matches!(t.unmap(2000), Err(UnmapError::NotMapped(_))), "copied in, not mapped");
    }

    #[test]
    fn attachments_count_and_go_with_their_entry() {
        let mut t = PresentTable::new();
        t.insert(1000, 64, 0x7000, Dynamic).unwrap();
        assert!(t.attach(1008));
        assert!(!t.attach(1008));
        assert!(!t.detach(1008, false));
        assert!(t.detach(1008, false));
        assert!(!t.detach(1008, false), "not attached");
        assert!(t.attach(1016));
        assert!(!t.attach(1016));
        assert!(t.detach(1016, true), "finalize detaches at once");
        assert!(t.attach(1024));
        assert!(t.attach(1100), "outside the entry (the table does not check presence)");
        assert_eq!(t.attached_in(1000, 1064), vec![1024]);
        assert!(matches!(t.release(1000, Dynamic, false), Released::Last(_)));
        assert_eq!(t.attached_in(1000, 1064), Vec::<usize>::new());
        assert!(t.attach(1024), "freeing the entry dropped its attachments");
    }

    #[test]
    fn pointers_translate_by_their_current_value() {
        let mut t = PresentTable::new();
        // copy(u[0:25], v[0:25]) with 4-byte elements.
        t.insert(1000, 100, 0x5000, Structured).unwrap();
        t.insert(3000, 100, 0x9000, Structured).unwrap();
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
        t.insert(1000, 40, 0x5000, Structured).unwrap();
        assert_eq!(t.translate_pointer(980, 1000), Ok(Some(0x5000 - 20)));
        assert_eq!(t.translate_pointer(980, 0), Err(()), "no clause item to fall back on");
        assert_eq!(t.translate_pointer(980, 2000), Err(()), "clause item not present");
        assert_eq!(t.translate_pointer(5000, 1000), Ok(Some(0x5000 + 4000)), "after the section");
        // A zero-length clause item maps to null.
        t.enter_empty(7000, Structured);
        assert_eq!(t.translate_pointer(6980, 7000), Ok(None));
        assert_eq!(t.translate_pointer(7000, 0), Ok(None));
    }

    /// A deterministic shuffle (SplitMix64) of `0..n`.
    fn shuffled(n: usize, seed: u64) -> Vec<usize> {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            v.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        v
    }

    #[test]
    fn thousands_of_buffers() {
        // 5000 buffers of 100 + 8 * (i % 7) bytes, 4 KiB apart on the host, mapped in a
        // scrambled order to device blocks in yet another order; every lookup, by host or
        // by device address, finds its own buffer, and none finds a freed one.
        const N: usize = 5000;
        let host = |i: usize| 0x10_0000 + i * 4096;
        let len = |i: usize| 100 + 8 * (i % 7);
        let dev_slot = shuffled(N, 2);
        let dev = |i: usize| 0x7000_0000 + dev_slot[i] as u64 * 1024;
        let mut t = PresentTable::new();
        for i in shuffled(N, 1) {
            let c = if i % 2 == 0 { Structured } else { Dynamic };
            t.insert(host(i), len(i), dev(i), c).unwrap();
        }
        assert_eq!(t.len(), N);
        let check = |t: &PresentTable, i: usize, present: bool| {
            let (h, l, d) = (host(i), len(i), dev(i));
            if present {
                assert_eq!(t.find(h + 8, l - 8).map(|e| e.map(|e| e.start)), Ok(Some(h)), "buffer {i}");
                assert_eq!(t.translate(h + l), Some(d + l as u64), "one past the end of {i}");
                assert_eq!(t.lookup(h + l - 1).map(|e| e.dev), Some(d));
                assert_eq!(t.host_of(d + 5), Some(h + 5));
                assert_eq!(t.host_of(d + l as u64), None, "past the device copy of {i}");
                assert!(t.holds_device(d) && !t.holds_device(d + 1));
            } else {
                assert_eq!(t.find(h, l), Ok(None), "freed buffer {i}");
                assert_eq!(t.lookup(h), None);
                assert_eq!(t.host_of(d), None);
                assert!(!t.holds_device(d));
            }
            // The gap after every buffer is not present.
            assert_eq!(t.find(h + l + 1, 8), Ok(None));
            assert_eq!(t.find(h + l - 4, 8).is_err(), present, "overlaps the end of {i}");
        };
        for i in 0..N {
            check(&t, i, true);
        }
        // Release every third buffer (its last reference).
        for i in (0..N).step_by(3) {
            let c = if i % 2 == 0 { Structured } else { Dynamic };
            assert!(matches!(t.release(host(i), c, false), Released::Last(_)));
        }
        for i in 0..N {
            check(&t, i, i % 3 != 0);
        }
        assert_eq!(t.len(), N - N.div_ceil(3));
    }

    #[test]
    fn device_lookups_with_a_device_block_mapped_twice() {
        // acc_map_data of overlapping parts of one device block: the device index still
        // finds every host address.
        let mut t = PresentTable::new();
        t.map(1000, 100, 0x5000).unwrap();
        t.insert(5000, 8, 0x9000, Structured).unwrap();
        assert!(!t.dev_overlap);
        t.map(3000, 20, 0x5010).unwrap();
        assert!(t.dev_overlap);
        assert_eq!(t.host_of(0x5000), Some(1000));
        assert_eq!(t.host_of(0x5050), Some(1080), "past the second mapping, inside the first");
        assert!(matches!(t.host_of(0x5012), Some(1018) | Some(3002)));
        assert_eq!(t.host_of(0x9004), Some(5004));
        assert_eq!(t.host_of(0x5064), None);
        assert!(!t.holds_device(0x5010), "mapped, the program's memory");
        assert!(t.holds_device(0x9000));
    }

    #[test]
    fn zero_length() {
        let mut t = PresentTable::new();
        assert!(!t.has_empty(500));
        t.enter_empty(500, Structured);
        t.enter_empty(500, Dynamic);
        t.enter_empty(500, Dynamic);
        assert!(t.has_empty(500));
        assert!(t.is_empty(), "zero-length items create no entry");
        assert_eq!(t.translate(500), None);
        t.exit_empty(500, Dynamic, true);
        assert!(t.has_empty(500), "the structured reference is left");
        t.exit_empty(500, Dynamic, false);
        assert!(t.has_empty(500), "no dynamic reference to drop");
        t.exit_empty(500, Structured, false);
        assert!(!t.has_empty(500));
        t.exit_empty(500, Structured, false);
        // A zero-length address inside a real entry translates through that entry.
        t.insert(400, 200, 0x100, Structured).unwrap();
        assert_eq!(t.translate(500), Some(0x164));
    }
}
