//! Sections through pointer rows (OpenACC 3.3 §2.7.1, §2.7.2, §2.6.8): `copyin(p[0:n][0:m])`
//! with `double **p`, `q[0:n][0:m][0:k]` with `int ***q`, `s->rows[0:n][0:m]`
//! (`__accrt_data_enter_rows`, `__accrt_data_exit_rows`, `__accrt_update_device_rows`,
//! `__accrt_update_self_rows`, docs/runtime-abi.md).
//!
//! Expects: the item's first level as an ordinary range (the row pointers `p[0:n]`: every 8
//! bytes of it is a pointer), then one [`Level`] per dimension whose rows are pointers:
//! each pointer of the level before points to a row of which `[lower, lower + length)`
//! (elements of `elem_size` bytes) belongs to the item. Produces, as NVHPC does:
//! - entry: the first level is entered with the clause's kind and counter (data.rs), then,
//!   level by level in pre-order, each row is entered with the same kind and counter and its
//!   pointer attached (the device copy of `p[i]` points at the row's device copy, or for a
//!   row section that starts later, `p[i][1:m]`, the same distance before it; attach
//!   counts, §2.7.2). A row level of pointers that `create`/`copyout` allocates is
//!   zero-filled, so the device copies of the pointers a null row leaves alone are null;
//! - exit: in post-order, each pointer is detached (its device copy gets the host value back
//!   at the last detach; `finalize` drops every attachment) and its row exited (copied back
//!   for `copy`/`copyout`, freed when both counts are zero), then the first level, whose
//!   copy-out then brings home host pointers only;
//! - update: only the data rows (the last level) are copied: copying the pointer levels
//!   would overwrite the attached device pointers with host addresses (or the reverse).
//!
//! Rows are found through the host pointers as they are at the call: a null pointer is
//! skipped (nothing mapped, its device copy left as it is), and a structured region's exit
//! reads the pointers again (changing `p[i]` on the host inside `data copy(p[0:n][0:m])`
//! makes the exit miss the old row). The row walk ([`walk`]) is pure over a pointer reader,
//! unit-tested; everything else is data.rs's per-item operations.
//!
//! The attach and detach writes are synchronous, as every attach action's (docs/runtime-abi.md),
//! and batched: one copy per run of adjacent pointers of one present range
//! (`data::write_pointers`), so a pointer array whose rows are all new costs one copy.

use std::ffi::c_void;

use crate::data::{self, Item, Kind, Site};
use crate::device;
use crate::present::Counter;
use crate::queue::Queue;

/// One pointer-row dimension of a section: `[lower:length]` of rows of `elem_size`-byte
/// elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    pub lower: i64,
    pub length: i64,
    pub elem_size: i64,
}

/// A row reached through a pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Host address of the pointer that points to the row.
    pub slot: usize,
    /// The row's part in the item: host start and byte count.
    pub start: usize,
    pub bytes: usize,
    /// 0 for the rows the first level points to.
    pub depth: usize,
    /// Which pointer of each level led here, counted from the start of that level's part
    /// (`[2][0]`: the first pointer of the row the third pointer of the first level points to).
    pub path: Vec<usize>,
}

/// Visit each row before the rows it points to (entry, update) or after them (exit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Pre,
    Post,
}

/// Bytes of a pointer.
const PTR: usize = std::mem::size_of::<*mut c_void>();

/// Every row of a section whose first level is the host range `first` (start, bytes) and
/// whose pointer-row dimensions are `levels`, in `order`, each pointer read by `read` (a
/// null pointer is skipped with everything below it). An error says which level's bounds
/// are invalid (a negative length, a row beyond the address space).
pub fn walk(first: (usize, usize), levels: &[Level], read: &dyn Fn(usize) -> usize, order: Order, visit: &mut dyn FnMut(&Row)) -> Result<(), String> {
    for (i, l) in levels.iter().enumerate() {
        if l.length < 0 || l.elem_size <= 0 {
            return Err(format!("dimension {} has a negative length ({})", i + 2, l.length));
        }
    }
    walk_level(first, levels, 0, &mut Vec::new(), read, order, visit)
}

fn walk_level(
    (start, bytes): (usize, usize),
    levels: &[Level],
    depth: usize,
    path: &mut Vec<usize>,
    read: &dyn Fn(usize) -> usize,
    order: Order,
    visit: &mut dyn FnMut(&Row),
) -> Result<(), String> {
    let Some(level) = levels.get(depth) else { return Ok(()) };
    for k in 0..bytes / PTR {
        let slot = start + k * PTR;
        let target = read(slot);
        if target == 0 {
            continue;
        }
        let range = row_range(target, level).ok_or_else(|| format!("the row at pointer {k} of dimension {} lies beyond the address space", depth + 2))?;
        path.push(k);
        let row = Row { slot, start: range.0, bytes: range.1, depth, path: path.clone() };
        if order == Order::Pre {
            visit(&row);
        }
        walk_level(range, levels, depth + 1, path, read, order, visit)?;
        if order == Order::Post {
            visit(&row);
        }
        path.pop();
    }
    Ok(())
}

/// The host range `[target + lower*elem_size, + length*elem_size)` of one row, if it fits.
fn row_range(target: usize, l: &Level) -> Option<(usize, usize)> {
    let offset = l.lower.checked_mul(l.elem_size)?;
    let start = (target as i64).checked_add(offset)?;
    let bytes = usize::try_from(l.length.checked_mul(l.elem_size)?).ok()?;
    let start = usize::try_from(start).ok()?;
    start.checked_add(bytes)?;
    Some((start, bytes))
}

/// "p[0:n][0:m], row [3]" for messages about one row.
fn row_text(text: &str, row: &Row) -> String {
    let path: String = row.path.iter().map(|k| format!("[{k}]")).collect();
    format!("{text}, row {path}")
}

/// Walks the rows of `first`'s section on the host, reading the program's pointers; an
/// invalid bound is an error at the item's directive.
fn each_row(first: &Item, levels: &[Level], order: Order, visit: &mut dyn FnMut(&Row)) {
    let start = first.host as usize;
    let Ok(bytes) = usize::try_from(first.bytes) else {
        first.fail(&format!("{}: the row pointers have a negative length ({} bytes)", text_of(first), first.bytes))
    };
    // SAFETY: every slot read lies in the item's first level or in a row a pointer of the
    // level before points to: host memory the program names in the clause, so readable.
    let read = |slot: usize| unsafe { (slot as *const usize).read_unaligned() };
    if let Err(why) = walk((start, bytes), levels, &read, order, visit) {
        first.fail(&format!("{}: {why}", text_of(first)))
    }
}

fn text_of<'a>(it: &Item<'a>) -> &'a str {
    match it.site {
        Site::Clause { text, .. } => text,
        Site::Routine(r) => r,
    }
}

fn loc_of<'a>(it: &Item<'a>) -> &'a str {
    match it.site {
        Site::Clause { loc, .. } => loc,
        Site::Routine(r) => r,
    }
}

/// Runs `f` on the data item of `row` (its text naming the row).
fn with_row<R>(first: &Item, row: &Row, f: impl FnOnce(&Item) -> R) -> R {
    let text = row_text(text_of(first), row);
    f(&Item { host: row.start as *mut c_void, bytes: row.bytes as i64, site: Site::Clause { loc: loc_of(first), text: &text } })
}

/// Entry of a section through pointer rows: the first level, then every row, each pointer
/// attached once its row is present. `zero`: `create(zero:)`/`copyout(zero:)` (the data rows);
/// new pointer levels of `create`/`copyout` are zero-filled either way.
pub fn enter(first: &Item, levels: &[Level], kind: Kind, c: Counter, zero: bool, q: Queue) {
    if device::target().is_none() {
        return;
    }
    let pointers_zero = zero || matches!(kind, Kind::Create | Kind::Copyout);
    data::enter(first, kind, c, pointers_zero, q);
    let last = levels.len().saturating_sub(1);
    let mut writes = Vec::new();
    each_row(first, levels, Order::Pre, &mut |row| {
        with_row(first, row, |it| {
            data::enter(it, kind, c, if row.depth == last { zero } else { pointers_zero }, q);
            // SAFETY: the slot is a pointer in the program's host memory (each_row). A row
            // section that starts after the row (`p[i][1:m]`) is reached from `p[i]` by the
            // same distance on the device.
            writes.extend(unsafe { data::attach_action(row.slot as *mut *mut c_void, row.start, it.site) })
        })
    });
    // One copy per run of adjacent newly attached pointers (a whole pointer array at once),
    // before the directive goes on.
    data::write_pointers(writes, first.site);
}

/// Exit of a section through pointer rows: each pointer detached and its row exited, the
/// rows below a pointer first, then the first level. The detach writes into a row's device
/// copy are done (together) before that row's exit may copy it out.
pub fn exit(first: &Item, levels: &[Level], kind: Kind, c: Counter, finalize: bool, q: Queue) {
    if device::target().is_none() {
        return;
    }
    let last = levels.len().saturating_sub(1);
    let mut pending = Vec::new();
    each_row(first, levels, Order::Post, &mut |row| {
        with_row(first, row, |it| {
            // SAFETY: the slot is a pointer in the program's host memory (each_row).
            pending.extend(unsafe { data::detach_action(row.slot as *mut *mut c_void, finalize, it.site) });
            if row.depth < last {
                // This row holds the pointers its rows' detaches wrote host values for.
                data::write_pointers(std::mem::take(&mut pending), it.site);
            }
            data::exit(it, kind, c, finalize, q)
        })
    });
    data::write_pointers(pending, first.site);
    data::exit(first, kind, c, finalize, q);
}

/// `update device`/`update self` of a section through pointer rows: its data rows (the last
/// level); the pointer levels keep their attached device pointers.
pub fn update(first: &Item, levels: &[Level], to_device: bool, if_present: bool, q: Queue) {
    if device::target().is_none() {
        return;
    }
    let last = levels.len().saturating_sub(1);
    each_row(first, levels, Order::Pre, &mut |row| {
        if row.depth == last {
            with_row(first, row, |it| data::update(it, to_device, if_present, q))
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A fake host memory of pointers: slot address -> value (absent: null).
    fn reader(mem: &HashMap<usize, usize>) -> impl Fn(usize) -> usize + '_ {
        move |a| mem.get(&a).copied().unwrap_or(0)
    }

    fn rows(first: (usize, usize), levels: &[Level], mem: &HashMap<usize, usize>, order: Order) -> Vec<Row> {
        let mut out = Vec::new();
        walk(first, levels, &reader(mem), order, &mut |r| out.push(r.clone())).unwrap();
        out
    }

    #[test]
    fn two_levels_map_each_row_through_its_pointer() {
        // double **p: p[1:2][3:4] of rows at 0x1000 and 0x2000 (p[1], p[2] at 0x108, 0x110).
        let mem = HashMap::from([(0x108, 0x1000), (0x110, 0x2000)]);
        let levels = [Level { lower: 3, length: 4, elem_size: 8 }];
        let r = rows((0x108, 16), &levels, &mem, Order::Pre);
        assert_eq!(
            r,
            vec![
                Row { slot: 0x108, start: 0x1018, bytes: 32, depth: 0, path: vec![0] },
                Row { slot: 0x110, start: 0x2018, bytes: 32, depth: 0, path: vec![1] },
            ]
        );
        assert_eq!(row_text("p[1:2][3:4]", &r[1]), "p[1:2][3:4], row [1]");
    }

    #[test]
    fn three_levels_in_pre_and_post_order() {
        // int ***q: q[0:2][0:2][0:5]; q[0] -> 0x100 (pointers to 0x1000, 0x2000), q[1] -> 0x200
        // (pointers to 0x3000 and null).
        let mem = HashMap::from([(0x10, 0x100), (0x18, 0x200), (0x100, 0x1000), (0x108, 0x2000), (0x200, 0x3000)]);
        let levels = [Level { lower: 0, length: 2, elem_size: 8 }, Level { lower: 0, length: 5, elem_size: 4 }];
        let pre: Vec<(usize, usize)> = rows((0x10, 16), &levels, &mem, Order::Pre).iter().map(|r| (r.slot, r.depth)).collect();
        assert_eq!(pre, vec![(0x10, 0), (0x100, 1), (0x108, 1), (0x18, 0), (0x200, 1)], "a null pointer (0x208) is skipped");
        let post: Vec<(usize, usize)> = rows((0x10, 16), &levels, &mem, Order::Post).iter().map(|r| (r.slot, r.depth)).collect();
        assert_eq!(post, vec![(0x100, 1), (0x108, 1), (0x10, 0), (0x200, 1), (0x18, 0)], "rows below a pointer first");
        let leaf = rows((0x10, 16), &levels, &mem, Order::Pre).into_iter().find(|r| r.slot == 0x108).unwrap();
        assert_eq!((leaf.start, leaf.bytes, leaf.path), (0x2000, 20, vec![0, 1]));
    }

    #[test]
    fn array_rows_of_pointers_count_every_pointer() {
        // double *a[2][3]: a[0:2][0:3][0:1], the first level is 48 bytes of 6 pointers.
        let mem: HashMap<usize, usize> = (0..6).map(|k| (0x40 + 8 * k, 0x1000 * (k + 1))).collect();
        let levels = [Level { lower: 0, length: 1, elem_size: 8 }];
        assert_eq!(rows((0x40, 48), &levels, &mem, Order::Pre).len(), 6);
    }

    #[test]
    fn invalid_bounds_are_errors() {
        let mem = HashMap::from([(0x10, 0x1000)]);
        let neg = [Level { lower: 0, length: -1, elem_size: 8 }];
        let e = walk((0x10, 8), &neg, &reader(&mem), Order::Pre, &mut |_| {}).unwrap_err();
        assert!(e.contains("dimension 2 has a negative length (-1)"), "{e}");
        let huge = [Level { lower: i64::MAX / 4, length: 1, elem_size: 8 }];
        assert!(walk((0x10, 8), &huge, &reader(&mem), Order::Pre, &mut |_| {}).is_err());
        // Zero-length rows are rows (their pointers are attached when present), of no bytes.
        let empty = [Level { lower: 0, length: 0, elem_size: 8 }];
        assert_eq!(rows((0x10, 8), &empty, &mem, Order::Pre)[0].bytes, 0);
    }
}
