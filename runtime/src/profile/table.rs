//! The numbers of the `ACC_TIME` summary and its text: per-region counters, keyed by the
//! directive's source position, and the table printed at exit.
//!
//! Pure (no clock, no CUDA): profile/mod.rs measures and feeds it. A region is everything
//! the runtime saw with one `loc` ("file:line:col"): the kernels of a compute construct,
//! the data clause items of a construct or data directive, and the copies they made. A
//! launch or a copy is counted when it happens; its time may come later (a CUDA event read
//! once its queue is done), so each counter also knows how many of its operations have a
//! time. Data routines (`acc_copyin`, ...) have no position: their copies are counted under
//! the routine's name, after every file.

use std::collections::BTreeMap;

use crate::launch::Size;

/// Which way a copy goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    ToDevice,
    FromDevice,
}

/// What a data clause item did at its directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Enter,
    Exit,
    Update,
}

/// Copies in one direction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfers {
    pub count: u64,
    pub bytes: u64,
    /// Copies whose time is known, and their total.
    pub timed: u64,
    pub ns: u64,
}

impl Transfers {
    fn add(&mut self, other: &Transfers) {
        self.count += other.count;
        self.bytes += other.bytes;
        self.timed += other.timed;
        self.ns += other.ns;
    }
}

/// The smallest and largest of the values seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span<T> {
    pub min: T,
    pub max: T,
}

impl<T: Ord + Copy> Span<T> {
    fn widen(span: &mut Option<Span<T>>, v: T) {
        *span = Some(match *span {
            None => Span { min: v, max: v },
            Some(s) => Span { min: s.min.min(v), max: s.max.max(v) },
        });
    }
}

/// The launches of one kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Launches {
    pub count: u64,
    /// Gangs (the grid).
    pub grid: Option<Span<u32>>,
    /// (vector length, workers): the block, as `ACC_NOTIFY` prints it.
    pub block: Option<Span<(u32, u32)>>,
    /// Launches whose time is known, their total, shortest and longest.
    pub timed: u64,
    pub ns: u64,
    pub ns_span: Option<Span<u64>>,
}

/// How often one clause item of a directive was entered, exited and updated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ItemOps {
    enters: u64,
    exits: u64,
    updates: u64,
}

/// Everything seen at one source position.
#[derive(Debug, Clone, Default)]
pub struct Region {
    /// The host function holding a compute construct (kernels know it; data items do not).
    function: Option<String>,
    kernels: BTreeMap<String, Launches>,
    items: BTreeMap<String, ItemOps>,
    to_device: Transfers,
    from_device: Transfers,
}

impl Region {
    /// How many times the directive ran: each clause item and each kernel runs once per
    /// visit (a `kernels` construct may launch several kernels).
    fn reached(&self) -> u64 {
        let items = self.items.values().map(|o| o.enters.max(o.exits).max(o.updates));
        let kernels = self.kernels.values().map(|l| l.count);
        items.chain(kernels).max().unwrap_or(0)
    }

    /// "compute region", "data region", "enter data", "exit data", "update", or "data" (copies
    /// only: a file-scope `declare`, a routine).
    fn kind(&self) -> &'static str {
        let sum = |f: fn(&ItemOps) -> u64| self.items.values().map(f).sum::<u64>();
        let (enters, exits, updates) = (sum(|o| o.enters), sum(|o| o.exits), sum(|o| o.updates));
        match () {
            _ if !self.kernels.is_empty() => "compute region",
            _ if enters > 0 && exits > 0 => "data region",
            _ if enters > 0 => "enter data",
            _ if exits > 0 => "exit data",
            _ if updates > 0 => "update",
            _ => "data",
        }
    }
}

/// A source position split for sorting: (file, line, column), or `None` for a routine name.
pub fn position(loc: &str) -> Option<(&str, u64, u64)> {
    let mut parts = loc.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, col))
}

/// All regions of the program run so far.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    regions: BTreeMap<String, Region>,
}

impl Profile {
    pub const fn new() -> Profile {
        Profile { regions: BTreeMap::new() }
    }

    fn region(&mut self, loc: &str) -> &mut Region {
        if !self.regions.contains_key(loc) {
            self.regions.insert(loc.to_string(), Region::default());
        }
        self.regions.get_mut(loc).expect("inserted above")
    }

    fn kernel(&mut self, loc: &str, kernel: &str) -> &mut Launches {
        let r = self.region(loc);
        if !r.kernels.contains_key(kernel) {
            r.kernels.insert(kernel.to_string(), Launches::default());
        }
        r.kernels.get_mut(kernel).expect("inserted above")
    }

    fn transfers(&mut self, loc: &str, dir: Dir) -> &mut Transfers {
        let r = self.region(loc);
        match dir {
            Dir::ToDevice => &mut r.to_device,
            Dir::FromDevice => &mut r.from_device,
        }
    }

    /// One launch of `kernel` (in host function `function`) at `loc` with `size`.
    pub fn launch(&mut self, loc: &str, function: &str, kernel: &str, size: Size) {
        let r = self.region(loc);
        if r.function.is_none() {
            r.function = Some(function.to_string());
        }
        let l = self.kernel(loc, kernel);
        l.count += 1;
        // A grid of several dimensions counts as its gangs in all.
        Span::widen(&mut l.grid, u32::try_from(size.total_gangs()).unwrap_or(u32::MAX));
        Span::widen(&mut l.block, (size.vector, size.workers));
    }

    /// The time of one launch of `kernel` at `loc` (counted by [`Profile::launch`]).
    pub fn kernel_time(&mut self, loc: &str, kernel: &str, ns: u64) {
        let l = self.kernel(loc, kernel);
        l.timed += 1;
        l.ns += ns;
        Span::widen(&mut l.ns_span, ns);
    }

    /// One copy of `bytes` at `loc`.
    pub fn transfer(&mut self, loc: &str, dir: Dir, bytes: u64) {
        let t = self.transfers(loc, dir);
        t.count += 1;
        t.bytes += bytes;
    }

    /// The time of one copy at `loc` (counted by [`Profile::transfer`]).
    pub fn transfer_time(&mut self, loc: &str, dir: Dir, ns: u64) {
        let t = self.transfers(loc, dir);
        t.timed += 1;
        t.ns += ns;
    }

    /// Clause item `text` of the directive at `loc` did `op`.
    pub fn directive(&mut self, loc: &str, text: &str, op: Op) {
        let r = self.region(loc);
        if !r.items.contains_key(text) {
            r.items.insert(text.to_string(), ItemOps::default());
        }
        let o = r.items.get_mut(text).expect("inserted above");
        match op {
            Op::Enter => o.enters += 1,
            Op::Exit => o.exits += 1,
            Op::Update => o.updates += 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// The summary's lines (without the `accc: ` prefix): a header, one line per region in
    /// source order (files by name, then line and column; routines last), each followed by
    /// its kernels and copies, then the totals.
    pub fn render(&self) -> Vec<String> {
        let mut regions: Vec<(&String, &Region)> = self.regions.iter().collect();
        regions.sort_by(|a, b| sort_key(a.0).cmp(&sort_key(b.0)));
        let mut out = vec!["ACC_TIME: time per region, in source order (microseconds)".to_string()];
        let mut all = Launches::default();
        let (mut to, mut from) = (Transfers::default(), Transfers::default());
        for (loc, r) in regions {
            out.push(region_line(loc, r));
            for (name, l) in &r.kernels {
                out.push(format!("    kernel {name}: {}", launches(l)));
                all.count += l.count;
                all.timed += l.timed;
                all.ns += l.ns;
            }
            for (label, t) in [("to device", &r.to_device), ("from device", &r.from_device)] {
                if t.count > 0 {
                    out.push(format!("    {label}: {}", transfers(t)));
                }
            }
            to.add(&r.to_device);
            from.add(&r.from_device);
        }
        out.push(format!("total: kernels: {} launch{}, {}", all.count, plural(all.count, "es"), timed(all.ns, all.timed, all.count)));
        out.push(format!("total: to device: {}", transfers(&to)));
        out.push(format!("total: from device: {}", transfers(&from)));
        out
    }
}

/// Sorting order of positions: files (by name, line, column), then routine names.
fn sort_key(loc: &str) -> (bool, &str, u64, u64, &str) {
    match position(loc) {
        Some((file, line, col)) => (false, file, line, col, loc),
        None => (true, loc, 0, 0, loc),
    }
}

fn plural(n: u64, suffix: &'static str) -> &'static str {
    if n == 1 {
        ""
    } else {
        suffix
    }
}

/// Nanoseconds as whole microseconds, rounded.
pub fn us(ns: u64) -> u64 {
    ns.saturating_add(500) / 1000
}

/// "123 us", or "123 us (2 of 3 timed)" when some operations have no time (a queue not
/// waited for before a failure, or no timing on this driver).
fn timed(ns: u64, timed: u64, count: u64) -> String {
    if timed == count {
        format!("{} us", us(ns))
    } else {
        format!("{} us ({timed} of {count} timed)", us(ns))
    }
}

/// "4" or "4..1024".
fn span<T: PartialEq>(s: &Span<T>, show: impl Fn(&T) -> String) -> String {
    if s.min == s.max {
        show(&s.min)
    } else {
        format!("{}..{}", show(&s.min), show(&s.max))
    }
}

/// "t.c:12:9: compute region in main, reached 3 times".
fn region_line(loc: &str, r: &Region) -> String {
    let mut line = format!("{loc}: {}", if position(loc).is_some() { r.kind() } else { "runtime routine" });
    if let Some(f) = &r.function {
        line += &format!(" in {f}");
    }
    match r.reached() {
        0 => line,
        n => format!("{line}, reached {n} time{}", plural(n, "s")),
    }
}

/// "3 launches, grid 4, block 256x1, 1200 us (min 390, max 420)".
fn launches(l: &Launches) -> String {
    let mut s = format!("{} launch{}", l.count, plural(l.count, "es"));
    if let Some(g) = &l.grid {
        s += &format!(", grid {}", span(g, |g| g.to_string()));
    }
    if let Some(b) = &l.block {
        s += &format!(", block {}", span(b, |(v, w)| format!("{v}x{w}")));
    }
    s += &format!(", {}", timed(l.ns, l.timed, l.count));
    if let Some(t) = l.ns_span.filter(|_| l.timed > 1) {
        s += &format!(" (min {}, max {})", us(t.min), us(t.max));
    }
    s
}

/// "3 copies, 24000 bytes, 12 us".
fn transfers(t: &Transfers) -> String {
    format!("{} cop{}, {} byte{}, {}", t.count, if t.count == 1 { "y" } else { "ies" }, t.bytes, plural(t.bytes, "s"), timed(t.ns, t.timed, t.count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(gangs: u32, workers: u32, vector: u32) -> Size {
        Size::new(gangs, workers, vector)
    }

    #[test]
    fn positions() {
        assert_eq!(position("t.c:12:9"), Some(("t.c", 12, 9)));
        assert_eq!(position("dir/a:b.c:3:1"), Some(("dir/a:b.c", 3, 1)));
        assert_eq!(position("acc_copyin"), None);
        assert_eq!(position("t.c:x:9"), None);
    }

    #[test]
    fn microseconds_round() {
        assert_eq!(us(0), 0);
        assert_eq!(us(499), 0);
        assert_eq!(us(500), 1);
        assert_eq!(us(1_234_567), 1235);
        assert_eq!(us(u64::MAX), u64::MAX / 1000);
    }

    /// A data region in a loop around a compute region, a second compute region with a
    /// clause of its own, an update, a routine's copy, in scrambled order.
    fn sample() -> Profile {
        let mut p = Profile::default();
        p.directive("t.c:20:9", "b[0:n]", Op::Update);
        p.transfer("t.c:20:9", Dir::FromDevice, 8000);
        p.transfer_time("t.c:20:9", Dir::FromDevice, 2_000);
        p.transfer("acc_copyin", Dir::ToDevice, 16);
        for it in 0..3u64 {
            p.directive("t.c:8:9", "a[0:n]", Op::Enter);
            p.directive("t.c:8:9", "b[0:n]", Op::Enter);
            p.transfer("t.c:8:9", Dir::ToDevice, 8000);
            p.transfer_time("t.c:8:9", Dir::ToDevice, 4_000);
            p.launch("t.c:10:9", "main", "main_l10", size(4, 1, 256));
            p.kernel_time("t.c:10:9", "main_l10", 100_000 + it * 10_000);
            p.directive("t.c:8:9", "b[0:n]", Op::Exit);
            p.directive("t.c:8:9", "a[0:n]", Op::Exit);
            p.transfer("t.c:8:9", Dir::FromDevice, 8000);
            p.transfer_time("t.c:8:9", Dir::FromDevice, 3_000);
        }
        p.directive("t.c:14:9", "b[0:n]", Op::Enter);
        p.launch("t.c:14:9", "main", "main_l14", size(4, 1, 32));
        p.launch("t.c:14:9", "main", "main_l14", size(1024, 2, 128));
        p.kernel_time("t.c:14:9", "main_l14", 7_000);
        p.directive("t.c:14:9", "b[0:n]", Op::Exit);
        p
    }

    #[test]
    fn regions_count_reaches_launches_and_bytes() {
        let p = sample();
        let r = &p.regions["t.c:8:9"];
        assert_eq!((r.reached(), r.kind()), (3, "data region"));
        assert_eq!(r.to_device, Transfers { count: 3, bytes: 24000, timed: 3, ns: 12_000 });
        let k = &p.regions["t.c:10:9"].kernels["main_l10"];
        assert_eq!((k.count, k.timed, k.ns), (3, 3, 330_000));
        assert_eq!(k.ns_span, Some(Span { min: 100_000, max: 120_000 }));
        assert_eq!(p.regions["t.c:10:9"].kind(), "compute region");
        let k = &p.regions["t.c:14:9"].kernels["main_l14"];
        assert_eq!(k.grid, Some(Span { min: 4, max: 1024 }));
        assert_eq!(k.block, Some(Span { min: (32, 1), max: (128, 2) }));
        assert_eq!(p.regions["t.c:14:9"].reached(), 2, "the kernel's launches count");
        assert_eq!(p.regions["t.c:20:9"].kind(), "update");
        assert_eq!(p.regions["acc_copyin"].reached(), 0);
    }

    #[test]
    fn directive_kinds() {
        let mut p = Profile::default();
        p.directive("e.c:1:1", "x", Op::Enter);
        p.directive("e.c:2:1", "x", Op::Exit);
        p.transfer("e.c:3:1", Dir::ToDevice, 4);
        assert_eq!(p.regions["e.c:1:1"].kind(), "enter data");
        assert_eq!(p.regions["e.c:2:1"].kind(), "exit data");
        assert_eq!(p.regions["e.c:3:1"].kind(), "data");
    }

    #[test]
    fn the_table() {
        let lines = sample().render();
        let expected = [
            "ACC_TIME: time per region, in source order (microseconds)",
            "t.c:8:9: data region, reached 3 times",
            "    to device: 3 copies, 24000 bytes, 12 us",
            "    from device: 3 copies, 24000 bytes, 9 us",
            "t.c:10:9: compute region in main, reached 3 times",
            "    kernel main_l10: 3 launches, grid 4, block 256x1, 330 us (min 100, max 120)",
            "t.c:14:9: compute region in main, reached 2 times",
            "    kernel main_l14: 2 launches, grid 4..1024, block 32x1..128x2, 7 us (1 of 2 timed)",
            "t.c:20:9: update, reached 1 time",
            "    from device: 1 copy, 8000 bytes, 2 us",
            "acc_copyin: runtime routine",
            "    to device: 1 copy, 16 bytes, 0 us (0 of 1 timed)",
            "total: kernels: 5 launches, 337 us (4 of 5 timed)",
            "total: to device: 4 copies, 24016 bytes, 12 us (3 of 4 timed)",
            "total: from device: 4 copies, 32000 bytes, 11 us",
        ];
        assert_eq!(lines, expected);
    }

    #[test]
    fn files_sort_by_name_then_number() {
        let mut p = Profile::default();
        for loc in ["b.c:2:1", "a.c:10:1", "a.c:9:5", "a.c:9:3", "acc_delete"] {
            p.transfer(loc, Dir::ToDevice, 1);
        }
        let order: Vec<String> = p.render().iter().filter(|l| !l.starts_with(' ') && !l.starts_with("total") && !l.starts_with("ACC")).map(|l| l.split(": ").next().unwrap().to_string()).collect();
        assert_eq!(order, ["a.c:9:3", "a.c:9:5", "a.c:10:1", "b.c:2:1", "acc_delete"]);
    }
}
