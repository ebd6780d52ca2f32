//! Globals of `declare` directives at file scope (OpenACC 3.3 §2.13): present on the device
//! for the whole program.
//!
//! Each translation unit registers its declared globals from a constructor
//! (`__accrt_declare`), before `main` runs and so usually before the program has chosen its
//! device (`acc_set_device_type`, `ACC_DEVICE_TYPE`). Registering only records the global;
//! data.rs maps every recorded one the first time it takes a device's present table with
//! the device selected ([`registered_since`]; each device maps them all): a device copy is allocated and, for `copyin`, filled with
//! the global's initial value (an image of its static initialiser the compiler passes, or
//! zeros), so what the program writes to it before its first OpenACC operation does not
//! reach the device (for a global defined in another file, the compiler passes the global
//! itself: its value at that first operation). The mapping holds one structured reference
//! that nothing releases, so data clauses and `exit data` of the global count on top of it
//! and never free it; the memory lives until the process ends. A global registered twice
//! (declared in two files) is mapped once (each registration holds a reference).
//!
//! A section through pointer rows (`declare copyin(rows_g[0:4][0:8])`) maps its row pointers
//! and each row as a data clause would (rows.rs), from what the global points to at that
//! first operation: rows the program allocates later are not mapped.
//!
//! Not here: the present table and the copies (data.rs); with regions running on the host
//! nothing is ever mapped (the host's memory is the device's).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One declared global (or a section of it): its host range and what to put in its device
/// copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub host: usize,
    pub bytes: usize,
    /// What the device copy starts with.
    pub fill: Fill,
    /// The directive's position and the item as written, for messages.
    pub loc: String,
    pub text: String,
    /// For a section through pointer rows (`rows_g[0:4][0:8]` of `double *rows_g[4]`), its
    /// levels: mapped by rows.rs from the row pointers the global holds at the first use
    /// (not its initial value), outside the present table's lock.
    pub rows: Vec<crate::rows::Level>,
}

/// The initial contents of a declared global's device copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// `create`, `device_resident`: nothing (unspecified).
    Nothing,
    /// `copyin` of a global whose initial value is all zero bytes.
    Zeros,
    /// `copyin`: the bytes at this host address (the initial value's image, or the global).
    From(usize),
}

/// Every global registered so far, in registration order (each device maps them all).
static REGISTERED: Mutex<Vec<Declared>> = Mutex::new(Vec::new());
/// `REGISTERED.len()`: a present table compares its count with this on every access,
/// without taking a second lock.
static COUNT: AtomicUsize = AtomicUsize::new(0);

/// Records a declared global; every device maps it at the next use of its present table.
pub fn register(d: Declared) {
    let mut r = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    r.push(d);
    COUNT.store(r.len(), Ordering::Release);
}

/// Whether any range was registered after the first `seen` (a cheap check before
/// [`registered_since`]).
pub fn any_since(seen: usize) -> bool {
    COUNT.load(Ordering::Acquire) > seen
}

/// The globals registered after the first `*seen` (usually none: one atomic load), in the
/// order to map them ([`in_mapping_order`]); `*seen` becomes the number registered.
pub fn registered_since(seen: &mut usize) -> Vec<Declared> {
    if COUNT.load(Ordering::Acquire) <= *seen {
        return Vec::new();
    }
    let r = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    let new = r[(*seen).min(r.len())..].to_vec();
    *seen = r.len();
    in_mapping_order(new)
}

/// Registration order, except that a `copyin` from the global itself (a file that only
/// declares an `extern` global) comes after the others: when the file that defines the
/// global registers it too, its image of the initial value fills the device copy, whichever
/// constructor ran first.
pub fn in_mapping_order(mut ds: Vec<Declared>) -> Vec<Declared> {
    ds.sort_by_key(|d| d.fill == Fill::From(d.host));
    ds
}

/// What mapping a declared range means given what the present table holds there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mapping {
    /// Nothing is present: allocate (and for copyin upload) and hold it.
    New,
    /// Exactly this range is present already (a second file declared the same global):
    /// hold a reference.
    Already,
    /// Another range overlaps it: an error.
    Overlap,
}

/// Decides what to do with declared range `[start, start+len)` given the present range
/// containing or overlapping it (`found`: Ok(None) when none, Err when only partly).
pub fn mapping(start: usize, len: usize, found: Result<Option<(usize, usize)>, ()>) -> Mapping {
    match found {
        Ok(None) => Mapping::New,
        Ok(Some((s, e))) if s == start && e == start + len => Mapping::Already,
        _ => Mapping::Overlap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_globals_are_taken_once() {
        let d = Declared { host: 0x1000, bytes: 8, fill: Fill::Nothing, loc: "t.c:1:9".into(), text: "g".into(), rows: Vec::new() };
        let mut first = 0;
        let mut second = 0;
        register(d.clone());
        register(Declared { host: 0x2000, ..d.clone() });
        let taken = registered_since(&mut first);
        assert_eq!(taken.len(), 2);
        assert_eq!(taken[0], d);
        assert!(registered_since(&mut first).is_empty());
        // Another device's table maps the same globals.
        assert_eq!(registered_since(&mut second), taken);
    }

    #[test]
    fn initial_value_images_first() {
        let d = |host, fill| Declared { host, bytes: 4, fill, loc: String::new(), text: String::new(), rows: Vec::new() };
        let order = in_mapping_order(vec![d(0x10, Fill::From(0x10)), d(0x20, Fill::Nothing), d(0x10, Fill::From(0x99)), d(0x30, Fill::Zeros)]);
        let fills: Vec<Fill> = order.iter().map(|d| d.fill).collect();
        assert_eq!(fills, [Fill::Nothing, Fill::From(0x99), Fill::Zeros, Fill::From(0x10)]);
    }

    #[test]
    fn mapping_decisions() {
        assert_eq!(mapping(0x1000, 16, Ok(None)), Mapping::New);
        assert_eq!(mapping(0x1000, 16, Ok(Some((0x1000, 0x1010)))), Mapping::Already);
        // Inside a larger range (a data region of the enclosing array came first), or
        // partly present: the declared global cannot get its own device copy.
        assert_eq!(mapping(0x1004, 4, Ok(Some((0x1000, 0x1010)))), Mapping::Overlap);
        assert_eq!(mapping(0x1000, 16, Err(())), Mapping::Overlap);
    }
}
