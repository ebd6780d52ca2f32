//! Data clauses (OpenACC 3.3 §2.7) and the data routines' table operations (§3.2) on top of
//! the present table: allocation, copies and reference counting for
//! `__accrt_data_enter/exit`, `update`, `deviceptr`, `host_data use_device`, and `acc_copyin`, `acc_map_data`,
//! `acc_attach`, ... (api/memory.rs).
//!
//! Every operation names its reference counter ([`Counter`]): structured for data
//! constructs and compute constructs, dynamic for `enter/exit data` and the routines.
//! Enter: COPY/COPYIN allocate and upload when absent; CREATE/COPYOUT allocate; PRESENT
//! requires presence; NO_CREATE only counts an already present item; DEVICEPTR does
//! nothing. When the item is present, every kind but DEVICEPTR adds a reference of its
//! counter. Exit: every kind but DEVICEPTR drops a reference of its counter (`finalize`:
//! the whole dynamic count); when both counts of the range reach zero, COPY/COPYOUT
//! download the item, then the device copy is freed. A counter that is already zero is no
//! action (`exit data copyout` of data only a data region holds), as is the exit of an
//! absent item. Zero-length items allocate and copy nothing. The table lock is held
//! across the copies, so concurrent callers are serialised.
//!
//! Every operation runs on an async queue ([`Queue`], queue.rs; `Queue::Sync` for the
//! synchronous forms): the table changes at once, in program order, and the copies are
//! enqueued on the queue (on the GPU its stream; elsewhere they are done at once); a device
//! copy an exit frees is released only when no queue can still use it (`mem::release`).
//!
//! Errors name where the item came from ([`Site`]): a clause item as written and its source
//! position, or the routine. With regions running on the host (no device), every operation
//! here is a no-op and device addresses are host addresses (a shared-memory device).
//!
//! Not here: what the C routines' arguments mean (api/), device memory (mem.rs).

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use crate::present::{Counter, PartiallyPresent, PresentTable, Released, UnmapError};
use crate::queue::Queue;
use crate::{declare, device, diag, mem, notify, profile};

/// The `kind` argument of `__accrt_data_enter/exit`, without its flag bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Copy,
    Copyin,
    Copyout,
    Create,
    Present,
    NoCreate,
    Delete,
    Deviceptr,
}

/// `kind` flag: the item comes from `enter data`/`exit data` (the dynamic counter).
pub const FLAG_DYNAMIC: i32 = 0x100;
/// `kind` flag: `exit data ... finalize` (the dynamic count drops to zero).
pub const FLAG_FINALIZE: i32 = 0x200;
/// `flags` of `__accrt_update_device/self`: `update ... if_present` (absent data is skipped).
pub const FLAG_IF_PRESENT: i32 = 0x400;
/// `kind` flag: `create(zero: ...)`/`copyout(zero: ...)`: a device copy this entry allocates
/// is zero-filled.
pub const FLAG_ZERO: i32 = 0x800;

/// A decoded `kind` argument: the clause, its counter, whether it finalizes and whether an
/// allocation is zero-filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clause {
    pub kind: Kind,
    pub counter: Counter,
    pub finalize: bool,
    pub zero: bool,
}

impl Kind {
    /// Decodes the ABI's `kind` (clause number in the low byte, `FLAG_*` bits above). An
    /// unknown value is a compiler bug (a panic, reported as an internal error).
    pub fn from_abi(kind: i32) -> Clause {
        const KINDS: [Kind; 8] = [
            Kind::Copy,
            Kind::Copyin,
            Kind::Copyout,
            Kind::Create,
            Kind::Present,
            Kind::NoCreate,
            Kind::Delete,
            Kind::Deviceptr,
        ];
        let flags = kind & !0xff;
        assert!(flags & !(FLAG_DYNAMIC | FLAG_FINALIZE | FLAG_ZERO) == 0, "unknown data clause flags {kind:#x}");
        let k = match KINDS.get((kind & 0xff) as usize) {
            Some(k) => *k,
            None => panic!("unknown data clause kind {kind}"),
        };
        let counter = if flags & FLAG_DYNAMIC != 0 { Counter::Dynamic } else { Counter::Structured };
        Clause { kind: k, counter, finalize: flags & FLAG_FINALIZE != 0, zero: flags & FLAG_ZERO != 0 }
    }

    pub fn clause(self) -> &'static str {
        match self {
            Kind::Copy => "COPY",
            Kind::Copyin => "COPYIN",
            Kind::Copyout => "COPYOUT",
            Kind::Create => "CREATE",
            Kind::Present => "PRESENT",
            Kind::NoCreate => "NO_CREATE",
            Kind::Delete => "DELETE",
            Kind::Deviceptr => "DEVICEPTR",
        }
    }
}

/// Where a data item comes from, for messages.
#[derive(Debug, Clone, Copy)]
pub enum Site<'a> {
    /// A clause item: its directive's position ("file:line:col") and its text as written.
    Clause { loc: &'a str, text: &'a str },
    /// A runtime routine (`acc_copyin`, ...), by name.
    Routine(&'a str),
}

/// One data item: a host byte range and where it comes from.
pub struct Item<'a> {
    pub host: *mut c_void,
    pub bytes: i64,
    pub site: Site<'a>,
}

impl Item<'_> {
    fn addr(&self) -> usize {
        self.host as usize
    }

    /// The item's length; a negative one is a user error.
    fn len(&self) -> usize {
        usize::try_from(self.bytes)
            .unwrap_or_else(|_| self.fail(&format!("negative length ({} bytes) of data item {}", self.bytes, self.describe())))
    }

    /// "a[0:n] (host 0x1000..0x1190, 400 bytes)" or, for a routine, "host 0x1000..0x1190
    /// (400 bytes)".
    fn describe(&self) -> String {
        let end = self.addr().wrapping_add(self.bytes.max(0) as usize);
        let range = format!("host {:#x}..{:#x}", self.addr(), end);
        match self.site {
            Site::Clause { text, .. } => format!("{text} ({range}, {} bytes)", self.bytes),
            Site::Routine(_) => format!("{range} ({} bytes)", self.bytes),
        }
    }

    /// "data in PRESENT clause" / "data in acc_update_self".
    fn data_in(&self, clause: &str) -> String {
        match self.site {
            Site::Clause { .. } => format!("data in {clause} clause"),
            Site::Routine(r) => format!("data in {r}"),
        }
    }

    /// Reports a user error at the item's site and exits.
    pub fn fail(&self, msg: &str) -> ! {
        match self.site {
            Site::Clause { loc, .. } => diag::user_error(loc, msg),
            Site::Routine(_) => diag::runtime_error(msg),
        }
    }

    fn partially_present(&self, clause: &str, p: PartiallyPresent) -> ! {
        self.fail(&format!(
            "{} is only partially present on the device: {} overlaps the present range {:#x}..{:#x}",
            self.data_in(clause),
            self.describe(),
            p.entry.start,
            p.entry.end
        ))
    }

    fn not_present(&self, clause: &str) -> ! {
        self.fail(&format!("{} was not found on the device: {}", self.data_in(clause), self.describe()))
    }

    fn error_context(&self) -> String {
        match self.site {
            Site::Clause { loc, text } => format!(" for {text} at {loc}"),
            Site::Routine(r) => format!(" in {r}"),
        }
    }
}

/// One device's present table, and how many of the globals registered by file-scope
/// `declare` directives (declare.rs) it has mapped.
struct DeviceTable {
    table: PresentTable,
    declared: usize,
}

impl std::ops::Deref for DeviceTable {
    type Target = PresentTable;
    fn deref(&self) -> &PresentTable {
        &self.table
    }
}

impl std::ops::DerefMut for DeviceTable {
    fn deref_mut(&mut self) -> &mut PresentTable {
        &mut self.table
    }
}

/// The calling thread's device's present table, with the globals of file-scope `declare`
/// directives registered so far mapped once a device is selected (declare.rs).
fn table() -> MutexGuard<'static, DeviceTable> {
    static TABLES: device::PerDevice<Mutex<DeviceTable>> =
        device::PerDevice::new(|| Mutex::new(DeviceTable { table: PresentTable::new(), declared: 0 }));
    let lock = || TABLES.get().lock().unwrap_or_else(|e| e.into_inner());
    let mut t = lock();
    // (`declare` registrations are rare: most calls find none new.)
    if declare::any_since(t.declared) && matches!(device::selected(), Some(Some(_))) {
        let mut seen = t.declared;
        let (rows, plain): (Vec<_>, Vec<_>) = declare::registered_since(&mut seen).into_iter().partition(|d| !d.rows.is_empty());
        for d in &plain {
            map_declared(&mut t, d);
        }
        t.declared = seen;
        if !rows.is_empty() {
            // Sections through pointer rows enter as data clauses do (rows.rs), which take
            // this lock for each row: without it held (`declared` is already past them, so
            // those entries do not map them again).
            drop(t);
            for d in &rows {
                map_declared_rows(d);
            }
            t = lock();
        }
    }
    t
}

/// Maps a declared section through pointer rows for the rest of the program (declare.rs):
/// the row pointers and each row, on the structured counter that no exit drops.
fn map_declared_rows(d: &declare::Declared) {
    let item = Item { host: d.host as *mut c_void, bytes: d.bytes as i64, site: Site::Clause { loc: &d.loc, text: &d.text } };
    // (`create(zero:)` registers as a copyin of zeros: a create whose data rows start zeroed.)
    let (kind, zero) = match d.fill {
        declare::Fill::Nothing => (Kind::Create, false),
        declare::Fill::Zeros => (Kind::Create, true),
        declare::Fill::From(_) => (Kind::Copyin, false),
    };
    crate::rows::enter(&item, &d.rows, kind, Counter::Structured, zero, Queue::Sync);
}

/// Maps one declared global for the rest of the program: one structured reference that no
/// exit drops (declare.rs).
fn map_declared(t: &mut PresentTable, d: &declare::Declared) {
    let item = Item { host: d.host as *mut c_void, bytes: d.bytes as i64, site: Site::Clause { loc: &d.loc, text: &d.text } };
    if d.bytes == 0 {
        return;
    }
    let found = t.find(d.host, d.bytes);
    match declare::mapping(d.host, d.bytes, found.map(|e| e.map(|e| (e.start, e.end))).map_err(|_| ())) {
        declare::Mapping::New => {
            let dev = mem::alloc(d.bytes, &item.error_context());
            // On the synchronous queue: done before this returns (the zeros are a temporary),
            // and so before any queue's work that comes after this first use of the table.
            match d.fill {
                declare::Fill::Nothing => {}
                declare::Fill::Zeros => {
                    let zeros = vec![0u8; d.bytes];
                    upload(&Item { host: zeros.as_ptr() as *mut c_void, ..item }, dev, d.bytes, Queue::Sync);
                }
                declare::Fill::From(from) => upload(&Item { host: from as *mut c_void, ..item }, dev, d.bytes, Queue::Sync),
            }
            if let Err(p) = t.insert(d.host, d.bytes, dev, Counter::Structured) {
                item.partially_present("DECLARE", p)
            }
        }
        declare::Mapping::Already => t.retain(d.host, Counter::Structured),
        declare::Mapping::Overlap => item.fail(&format!(
            "declared global {} overlaps data already present on the device; a global in a file-scope 'declare' gets a device copy of its own",
            item.describe()
        )),
    }
}

fn text_of<'a>(item: &Item<'a>) -> &'a str {
    match item.site {
        Site::Clause { text, .. } => text,
        Site::Routine(r) => r,
    }
}

fn upload(item: &Item, dev: mem::DevPtr, len: usize, q: Queue) {
    notify::transfer("upload", text_of(item), len);
    let timer = profile::start_on(q);
    // SAFETY: the caller passes a host range it may read (the clause's array section, or a
    // routine's argument); `dev` lies in a device allocation covering that range, which is
    // released only after the queue's work (mem::release).
    unsafe { mem::copy_to_device_on(q, dev, item.host, len, &item.error_context()) }
    profile::transferred(timer, &item.site, profile::Dir::ToDevice, len);
}

fn download(item: &Item, dev: mem::DevPtr, len: usize, q: Queue) {
    notify::transfer("download", text_of(item), len);
    let timer = profile::start_on(q);
    // SAFETY: the caller passes a host range it may write until the queue's work is done
    // (OpenACC: the program waits before it touches the data); `dev` lies in a device
    // allocation covering that range, released only after the queue's work.
    unsafe { mem::copy_from_device_on(q, item.host, dev, len, &item.error_context()) }
    profile::transferred(timer, &item.site, profile::Dir::FromDevice, len);
}

/// Entry of one data item with reference counter `c`, its upload on queue `q`; a device copy
/// it allocates is zero-filled with `zero` (`create(zero:)`, `copyout(zero:)`). Returns the
/// device address of the item's start when it is present afterwards (on the host: the host
/// address; a zero-length item, an absent `no_create` one and `deviceptr`: null).
pub fn enter(item: &Item, kind: Kind, c: Counter, zero: bool, q: Queue) -> *mut c_void {
    if device::target().is_none() {
        return item.host;
    }
    if kind == Kind::Deviceptr {
        return std::ptr::null_mut();
    }
    let len = item.len();
    let mut t = table();
    if len == 0 {
        t.enter_empty(item.addr(), c);
        return std::ptr::null_mut();
    }
    let dev = match t.find(item.addr(), len) {
        Err(p) => item.partially_present(kind.clause(), p),
        Ok(Some(e)) => {
            t.retain(e.start, c);
            e.translate(item.addr())
        }
        Ok(None) => match kind {
            Kind::Present => item.not_present(kind.clause()),
            Kind::NoCreate => return std::ptr::null_mut(),
            Kind::Copy | Kind::Copyin | Kind::Create | Kind::Copyout => {
                let dev = mem::alloc(len, &item.error_context());
                if matches!(kind, Kind::Copy | Kind::Copyin) {
                    upload(item, dev, len, q);
                } else if zero {
                    // SAFETY: `dev` is the new allocation of `len` bytes. Synchronous: done
                    // before any queue's later work uses it.
                    unsafe { mem::zero(dev, len, &item.error_context()) }
                }
                if let Err(p) = t.insert(item.addr(), len, dev, c) {
                    item.partially_present(kind.clause(), p)
                }
                dev
            }
            Kind::Delete | Kind::Deviceptr => panic!("{} clause used on data entry", kind.clause()),
        },
    };
    dev as *mut c_void
}

/// Exit of one data item with reference counter `c` (`finalize`: all dynamic references),
/// its download on queue `q`.
pub fn exit(item: &Item, kind: Kind, c: Counter, finalize: bool, q: Queue) {
    if device::target().is_none() || kind == Kind::Deviceptr {
        return;
    }
    let len = item.len();
    let mut t = table();
    if len == 0 {
        t.exit_empty(item.addr(), c, finalize);
        return;
    }
    match t.find(item.addr(), len) {
        Err(p) => item.partially_present(kind.clause(), p),
        Ok(None) => {}
        Ok(Some(e)) => {
            let attached = t.attached_in(e.start, e.end);
            if let Released::Last(last) = t.release(e.start, c, finalize) {
                if matches!(kind, Kind::Copy | Kind::Copyout) {
                    restore_host_pointers(&last, &attached, item);
                    download(item, last.translate(item.addr()), len, q);
                }
                mem::release(last.dev, &item.error_context());
            }
        }
    }
}

/// `update device` (`to_device`) or `update self` of a present item, on queue `q`; absent
/// data is an error, or skipped with `if_present`.
pub fn update(item: &Item, to_device: bool, if_present: bool, q: Queue) {
    if device::target().is_none() {
        return;
    }
    let len = item.len();
    if len == 0 {
        return;
    }
    let t = table();
    let clause = if to_device { "UPDATE DEVICE" } else { "UPDATE SELF" };
    match t.find(item.addr(), len) {
        Err(p) => item.partially_present(clause, p),
        Ok(None) if if_present => {}
        Ok(None) => item.not_present(clause),
        Ok(Some(e)) if to_device => upload(item, e.translate(item.addr()), len, q),
        Ok(Some(e)) => download(item, e.translate(item.addr()), len, q),
    }
}

fn not_in_region(loc: &str, text: &str, host: *mut c_void) -> ! {
    diag::user_error(
        loc,
        &format!(
            "'{text}' (host address {:#x}) is used in a compute region but is not present on the device; \
             add it to a data clause (e.g. copyin({text}[0:n]))",
            host as usize
        ),
    )
}

/// The device address of host address `host` when it lies in (or one past) a present range;
/// null when only a zero-length item (`x[0:0]`, which has no device copy) holds it; `None`
/// when it is not present. `host` non-null, a device selected.
fn present_device_addr(host: *mut c_void) -> Option<*mut c_void> {
    let t = table();
    match t.translate(host as usize) {
        Some(dev) => Some(dev as *mut c_void),
        None if t.has_empty(host as usize) => Some(std::ptr::null_mut()),
        None => None,
    }
}

/// Device address of a host address used in a compute region.
pub fn deviceptr(host: *mut c_void, loc: &str, text: &str) -> *mut c_void {
    if host.is_null() || device::target().is_none() {
        return host;
    }
    present_device_addr(host).unwrap_or_else(|| not_in_region(loc, text, host))
}

/// Device address of host address `host` for `host_data use_device` (OpenACC 3.3 §2.8.1):
/// inside (or one past the end of) a present range, its device copy; null stays null, and
/// so does an address only a zero-length item holds. Not present: with `if_present` the host
/// address itself, else an error naming the item and the construct. With regions running on
/// the host, the host address (the device shares the host's memory).
pub fn use_device_addr(host: *mut c_void, if_present: bool, loc: &str, text: &str) -> *mut c_void {
    if host.is_null() || device::target().is_none() {
        return host;
    }
    match present_device_addr(host) {
        Some(dev) => dev,
        None if if_present => host,
        None => diag::user_error(
            loc,
            &format!(
                "'{text}' (host address {:#x}) in a use_device clause is not present on the device; \
                 map it with a data construct or enter data first, or add if_present",
                host as usize
            ),
        ),
    }
}

/// Device address of pointer `host` used in a compute region (`__accrt_translate`): through
/// the present table by its current value, else relative to the data clause item
/// `fallback` it was named in (see [`PresentTable::translate_pointer`]). Neither present:
/// an error, or with `no_create` (the item came from a `no_create` clause) the host
/// address itself.
pub fn translate(host: *mut c_void, fallback: *mut c_void, no_create: bool, loc: &str, text: &str) -> *mut c_void {
    if host.is_null() || device::target().is_none() {
        return host;
    }
    let t = table();
    match t.translate_pointer(host as usize, fallback as usize) {
        Ok(Some(dev)) => dev as *mut c_void,
        Ok(None) => std::ptr::null_mut(),
        Err(()) if no_create => host,
        Err(()) => not_in_region(loc, text, host),
    }
}

/// `acc_is_present`: whether all of `[host, host+len)` (`len > 0`) lies in one present range.
pub fn is_present(host: *mut c_void, len: usize) -> bool {
    device::target().is_none() || matches!(table().find(host as usize, len), Ok(Some(_)))
}

/// `acc_deviceptr`: the device address of a present host address, else null.
pub fn device_address(host: *mut c_void) -> *mut c_void {
    if host.is_null() || device::target().is_none() {
        return host;
    }
    table().lookup(host as usize).map_or(std::ptr::null_mut(), |e| e.translate(host as usize) as *mut c_void)
}

/// `acc_hostptr`: the host address whose device copy is at `dev`, else null.
pub fn host_address(dev: *mut c_void) -> *mut c_void {
    if dev.is_null() || device::target().is_none() {
        return dev;
    }
    table().host_of(dev as u64).map_or(std::ptr::null_mut(), |h| h as *mut c_void)
}

/// Whether device address `dev` is the device copy of present data that the runtime
/// allocated (not a range `acc_map_data` mapped), which only the runtime may free.
pub fn holds_device_block(dev: mem::DevPtr) -> bool {
    table().holds_device(dev)
}

/// The device address of all of a present item (`acc_memcpy_d2d`'s arguments); absent or
/// partly present data is an error.
pub fn present_range(item: &Item) -> mem::DevPtr {
    if device::target().is_none() {
        return item.host as mem::DevPtr;
    }
    let len = item.len().max(1);
    match table().find(item.addr(), len) {
        Ok(Some(e)) => e.translate(item.addr()),
        Ok(None) => item.not_present("the argument of"),
        Err(p) => item.partially_present("the argument of", p),
    }
}

/// `acc_map_data`: maps the program's device memory at `dev` to the item's host range.
/// Data of which any byte is already present is an error.
pub fn map(item: &Item, dev: mem::DevPtr) {
    if device::target().is_none() {
        return;
    }
    let len = item.len();
    if let Err(p) = table().map(item.addr(), len, dev) {
        item.fail(&format!(
            "{} is already present on the device: {} overlaps the present range {:#x}..{:#x}",
            item.data_in(""),
            item.describe(),
            p.entry.start,
            p.entry.end
        ))
    }
}

/// `acc_unmap_data`: removes a mapping `acc_map_data` made at exactly this host address.
pub fn unmap(host: *mut c_void, routine: &str) {
    if device::target().is_none() {
        return;
    }
    let at = host as usize;
    let why = match table().unmap(at) {
        Ok(_) => return,
        Err(UnmapError::NotPresent) => format!("host address {at:#x} is not present on the device"),
        Err(UnmapError::NotMapped(e)) => format!(
            "host address {at:#x} was not mapped by acc_map_data (it lies in the present range {:#x}..{:#x}{})",
            e.start,
            e.end,
            if e.mapped { ", mapped at its start" } else { ", made by a data clause or routine" }
        ),
        Err(UnmapError::StructuredHeld(e)) => format!(
            "host address {at:#x} is still used by {} data construct(s) or compute construct(s)",
            e.refs.structured
        ),
    };
    diag::runtime_error(&format!("{routine}: {why}"))
}

/// Why trailing dimension `number` (`[lower:length]` of rows of `extent` elements) of section
/// `text` makes it not contiguous; None when it is whole.
pub fn dim_error(text: &str, number: i32, lower: i64, length: i64, extent: i64) -> Option<String> {
    (lower != 0 || length != extent).then(|| {
        format!(
            "'{text}' is not contiguous: dimension {number} takes [{lower}:{length}] of rows of {extent} elements, \
             so the parts of the rows lie apart in memory; accc maps contiguous sections only: every dimension after the first must be whole ([0:{extent}] or [:])"
        )
    })
}

/// Before the device copy of `entry` is copied out for the last time: each pointer still
/// attached in it (`attached`, taken before the release dropped them) gets its host value
/// back on the device, so the copy-out does not bring device addresses home.
fn restore_host_pointers(entry: &crate::present::Entry, attached: &[usize], site: &Item) {
    let writes = attached
        .iter()
        .map(|&ptr| {
            // SAFETY: an attached pointer lies in present host memory the program mapped, so
            // it is readable.
            let host_value = unsafe { (ptr as *const u64).read_unaligned() };
            PointerWrite { range: entry.start, dev: entry.translate(ptr), value: host_value }
        })
        .collect();
    write_pointers(writes, site.site);
}

/// The entry holding all 8 bytes of the pointer at host address `ptr`, if present.
fn pointer_entry(t: &PresentTable, it: &Item) -> Option<crate::present::Entry> {
    match t.find(it.addr(), std::mem::size_of::<*mut c_void>()) {
        Ok(e) => e,
        Err(p) => it.fail(&format!(
            "the pointer {} is only partially present on the device (present range {:#x}..{:#x})",
            it.describe(),
            p.entry.start,
            p.entry.end
        )),
    }
}

/// A device pointer write an attach or detach action decided: `value` into the device copy
/// at `dev`, which lies in the device copy of the present range starting at host `range`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointerWrite {
    pub range: usize,
    pub dev: mem::DevPtr,
    pub value: u64,
}

/// The writes of `writes` grouped into runs of adjacent slots of one present range (each
/// run one copy: its device start and values), in device address order. Pure.
pub fn pointer_runs(mut writes: Vec<PointerWrite>) -> Vec<(mem::DevPtr, Vec<u64>)> {
    writes.sort_by_key(|w| (w.range, w.dev));
    let mut runs: Vec<(usize, mem::DevPtr, Vec<u64>)> = Vec::new();
    for w in writes {
        match runs.last_mut() {
            Some((range, start, values)) if *range == w.range && *start + 8 * values.len() as mem::DevPtr == w.dev => values.push(w.value),
            _ => runs.push((w.range, w.dev, vec![w.value])),
        }
    }
    runs.into_iter().map(|(_, dev, values)| (dev, values)).collect()
}

/// Does `writes` (synchronously: one copy per run of adjacent slots, [`pointer_runs`]).
pub fn write_pointers(writes: Vec<PointerWrite>, site: Site) {
    let it = Item { host: std::ptr::null_mut(), bytes: 0, site };
    for (dev, values) in pointer_runs(writes) {
        // SAFETY: `values` is live; the run lies in one present range's device copy (slots
        // of 8 bytes inside it, found by the attach or detach lookups), which stays
        // allocated while the caller holds the pointers' attachments.
        unsafe { mem::copy_to_device(dev, values.as_ptr().cast(), 8 * values.len(), &it.error_context()) }
    }
}

/// The attach action (OpenACC 3.3 §2.7.2; `attach` clauses, the attach action of data clause
/// items based on a struct member, `acc_attach`): when the pointer stored at `ptr` and its
/// target are present, its device copy is made to point at the target's device copy (at
/// the first attachment; later ones only count); otherwise no action. Synchronous.
///
/// # Safety
/// `ptr` must be readable for one pointer.
pub unsafe fn attach(ptr: *mut *mut c_void, site: Site) {
    // SAFETY: forwarded caller guarantee.
    if let Some(w) = unsafe { attach_action(ptr, 0, site) } {
        write_pointers(vec![w], site)
    }
}

/// The counting of [`attach`] for a pointer whose target may lie before the mapped part of
/// its row (a row section `p[i][1:m]`, rows.rs): when the target is not present but
/// `fallback` (the start of the mapped part, 0: none) is, the device copy is to point the
/// same distance before `fallback`'s device address as the host pointer does before
/// `fallback`. Returns the device write to do (at the first attachment), which the caller
/// does with [`write_pointers`] before any kernel or copy-out may see the pointer.
///
/// # Safety
/// `ptr` must be readable for one pointer.
pub unsafe fn attach_action(ptr: *mut *mut c_void, fallback: usize, site: Site) -> Option<PointerWrite> {
    if device::target().is_none() || ptr.is_null() {
        return None;
    }
    let it = Item { host: ptr.cast(), bytes: 8, site };
    let mut t = table();
    let pe = pointer_entry(&t, &it)?;
    // SAFETY: readable (caller's guarantee).
    let target = unsafe { ptr.read_unaligned() } as usize;
    if target == 0 {
        return None;
    }
    let Ok(Some(dev_target)) = t.translate_pointer(target, fallback) else { return None };
    if !t.attach(ptr as usize) {
        return None;
    }
    notify::transfer("attach", text_of(&it), 8);
    Some(PointerWrite { range: pe.start, dev: pe.translate(ptr as usize), value: dev_target })
}

/// The detach action (`detach` clauses, the detach action at the exit of an item that was
/// attached, `acc_detach`; `finalize`: `exit data ... finalize`, `acc_detach_finalize`):
/// drops an attachment of the pointer at `ptr` (all of them with `finalize`); at the last,
/// its device copy gets the host pointer's value back. Not attached: no action. Synchronous.
///
/// # Safety
/// `ptr` must be readable for one pointer.
pub unsafe fn detach(ptr: *mut *mut c_void, finalize: bool, site: Site) {
    // SAFETY: forwarded caller guarantee.
    if let Some(w) = unsafe { detach_action(ptr, finalize, site) } {
        write_pointers(vec![w], site)
    }
}

/// The counting of [`detach`]; returns the device write to do at the last detachment (the
/// host value), which the caller does with [`write_pointers`] before the range holding the
/// pointer is copied out.
///
/// # Safety
/// `ptr` must be readable for one pointer.
pub unsafe fn detach_action(ptr: *mut *mut c_void, finalize: bool, site: Site) -> Option<PointerWrite> {
    if device::target().is_none() || ptr.is_null() {
        return None;
    }
    let it = Item { host: ptr.cast(), bytes: 8, site };
    let mut t = table();
    let pe = pointer_entry(&t, &it)?;
    if !t.detach(ptr as usize, finalize) {
        return None;
    }
    // SAFETY: readable (caller's guarantee).
    let host_value = unsafe { ptr.read_unaligned() } as u64;
    notify::transfer("detach", text_of(&it), 8);
    Some(PointerWrite { range: pe.start, dev: pe.translate(ptr as usize), value: host_value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_and_flags() {
        let c = Kind::from_abi(1);
        assert_eq!(c, Clause { kind: Kind::Copyin, counter: Counter::Structured, finalize: false, zero: false });
        let c = Kind::from_abi(6 | FLAG_DYNAMIC | FLAG_FINALIZE);
        assert_eq!(c, Clause { kind: Kind::Delete, counter: Counter::Dynamic, finalize: true, zero: false });
        let c = Kind::from_abi(3 | FLAG_DYNAMIC | FLAG_ZERO);
        assert_eq!(c, Clause { kind: Kind::Create, counter: Counter::Dynamic, finalize: false, zero: true });
        assert_eq!(Kind::from_abi(2 | FLAG_DYNAMIC).counter, Counter::Dynamic);
    }

    #[test]
    #[should_panic(expected = "unknown data clause flags")]
    fn unknown_flags_are_a_compiler_bug() {
        Kind::from_abi(1 | FLAG_IF_PRESENT);
    }

    #[test]
    fn only_whole_trailing_dimensions_pass() {
        assert_eq!(dim_error("a[0:n][0:m]", 2, 0, 7, 7), None);
        let e = dim_error("a[0:n][0:m]", 2, 0, 3, 7).unwrap();
        assert!(e.starts_with("'a[0:n][0:m]' is not contiguous: dimension 2 takes [0:3] of rows of 7 elements"), "{e}");
        assert!(dim_error("a[0:n][1:m]", 3, 1, 6, 7).is_some());
    }

    #[test]
    fn pointer_writes_coalesce_within_one_range() {
        let w = |range, dev, value| PointerWrite { range, dev, value };
        // Out of order, adjacent in range 0x100; a gap; another range right after (a
        // separate allocation: never one copy with the first).
        let runs = pointer_runs(vec![w(0x100, 0x5008, 2), w(0x100, 0x5000, 1), w(0x100, 0x5018, 4), w(0x900, 0x5020, 5)]);
        assert_eq!(runs, vec![(0x5000, vec![1, 2]), (0x5018, vec![4]), (0x5020, vec![5])]);
        assert!(pointer_runs(Vec::new()).is_empty());
    }

    #[test]
    fn items_describe_their_range() {
        let it = Item { host: 0x1000 as *mut c_void, bytes: 400, site: Site::Clause { loc: "t.c:1:2", text: "a[0:n]" } };
        assert_eq!(it.describe(), "a[0:n] (host 0x1000..0x1190, 400 bytes)");
        assert_eq!(it.data_in("PRESENT"), "data in PRESENT clause");
        let it = Item { host: 0x1000 as *mut c_void, bytes: 8, site: Site::Routine("acc_update_self") };
        assert_eq!(it.describe(), "host 0x1000..0x1008 (8 bytes)");
        assert_eq!(it.data_in("UPDATE SELF"), "data in acc_update_self");
    }
}
