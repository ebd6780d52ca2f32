//! Data clauses (OpenACC 3.3 §2.7) on top of the present table: allocation, copies and
//! reference counting for `__accrt_data_enter/exit`, `update`, and `deviceptr`.
//!
//! Enter: COPY/COPYIN allocate and upload when absent; CREATE/COPYOUT allocate; PRESENT
//! requires presence; NO_CREATE only counts an already present item; DEVICEPTR does
//! nothing. When the item is present, every kind but DEVICEPTR adds a reference.
//! Exit: every kind but DEVICEPTR drops a reference of a present item; at zero
//! COPY/COPYOUT download the item, then the device copy is freed. Exit of an absent item
//! is a no-op (as for `exit data`). Zero-byte items allocate and copy nothing.
//! The table lock is held across the copies, so concurrent callers are serialised.

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use crate::present::{PartiallyPresent, PresentTable};
use crate::{device, diag, mem, notify};

/// The `kind` argument of `__accrt_data_enter/exit`.
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

impl Kind {
    pub fn from_abi(kind: i32) -> Kind {
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
        match usize::try_from(kind).ok().and_then(|k| KINDS.get(k)) {
            Some(k) => *k,
            None => panic!("unknown data clause kind {kind}"),
        }
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

/// One clause item as passed by the generated code.
pub struct Item<'a> {
    pub host: *mut c_void,
    pub bytes: i64,
    pub loc: &'a str,
    pub text: &'a str,
}

impl Item<'_> {
    fn addr(&self) -> usize {
        self.host as usize
    }

    /// The item's length; a negative one is a user error.
    fn len(&self) -> usize {
        usize::try_from(self.bytes).unwrap_or_else(|_| {
            diag::user_error(
                self.loc,
                &format!(
                    "negative length ({} bytes) of data item {}",
                    self.bytes, self.text
                ),
            )
        })
    }

    fn describe(&self) -> String {
        format!(
            "{} (host {:#x}, {} bytes)",
            self.text,
            self.addr(),
            self.bytes
        )
    }

    fn partially_present(&self, clause: &str, p: PartiallyPresent) -> ! {
        diag::user_error(
            self.loc,
            &format!(
                "data in {clause} clause is only partially present on the device: {} overlaps the present range {:#x}..{:#x}",
                self.describe(), p.entry.start, p.entry.end
            ),
        )
    }

    fn error_context(&self) -> String {
        format!(" for {} at {}", self.text, self.loc)
    }
}

fn table() -> MutexGuard<'static, PresentTable> {
    static TABLE: Mutex<PresentTable> = Mutex::new(PresentTable::new());
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

fn upload(item: &Item, dev: mem::DevPtr, len: usize) {
    notify::transfer("upload", item.text, len);
    // SAFETY: the generated code passes a host range it may read (the clause's array
    // section); `dev` lies in a device allocation covering that range.
    unsafe { mem::copy_to_device(dev, item.host, len, &item.error_context()) }
}

fn download(item: &Item, dev: mem::DevPtr, len: usize) {
    notify::transfer("download", item.text, len);
    // SAFETY: the generated code passes a host range it may write (the clause's array
    // section); `dev` lies in a device allocation covering that range.
    unsafe { mem::copy_from_device(item.host, dev, len, &item.error_context()) }
}

/// Entry of one data clause item.
pub fn enter(item: &Item, kind: Kind) {
    if device::target().is_none() || kind == Kind::Deviceptr {
        return;
    }
    let len = item.len();
    let mut t = table();
    if len == 0 {
        t.enter_empty(item.addr());
        return;
    }
    match t.find(item.addr(), len) {
        Err(p) => item.partially_present(kind.clause(), p),
        Ok(Some(e)) => t.retain(e.start),
        Ok(None) => match kind {
            Kind::Present => diag::user_error(
                item.loc,
                &format!(
                    "data in PRESENT clause was not found on the device: {}",
                    item.describe()
                ),
            ),
            Kind::NoCreate => {}
            Kind::Copy | Kind::Copyin | Kind::Create | Kind::Copyout => {
                let dev = mem::alloc(len, &item.error_context());
                if matches!(kind, Kind::Copy | Kind::Copyin) {
                    upload(item, dev, len);
                }
                if let Err(p) = t.insert(item.addr(), len, dev) {
                    item.partially_present(kind.clause(), p)
                }
            }
            Kind::Delete | Kind::Deviceptr => panic!("{} clause used on data entry", kind.clause()),
        },
    }
}

/// Exit of one data clause item.
pub fn exit(item: &Item, kind: Kind) {
    if device::target().is_none() || kind == Kind::Deviceptr {
        return;
    }
    let len = item.len();
    let mut t = table();
    if len == 0 {
        t.exit_empty(item.addr());
        return;
    }
    match t.find(item.addr(), len) {
        Err(p) => item.partially_present(kind.clause(), p),
        Ok(None) => {}
        Ok(Some(e)) => {
            if let Some(last) = t.release(e.start) {
                if matches!(kind, Kind::Copy | Kind::Copyout) {
                    download(item, last.translate(item.addr()), len);
                }
                mem::free(last.dev, &item.error_context());
            }
        }
    }
}

/// `update device` (`to_device`) or `update self` of a present item.
pub fn update(item: &Item, to_device: bool) {
    if device::target().is_none() {
        return;
    }
    let len = item.len();
    if len == 0 {
        return;
    }
    let t = table();
    let clause = if to_device {
        "UPDATE DEVICE"
    } else {
        "UPDATE SELF"
    };
    match t.find(item.addr(), len) {
        Err(p) => item.partially_present(clause, p),
        Ok(None) => diag::user_error(
            item.loc,
            &format!(
                "data in {clause} clause was not found on the device: {}",
                item.describe()
            ),
        ),
        Ok(Some(e)) if to_device => upload(item, e.translate(item.addr()), len),
        Ok(Some(e)) => download(item, e.translate(item.addr()), len),
    }
}

/// Device address of a host address used in a compute region.
pub fn deviceptr(host: *mut c_void, loc: &str, text: &str) -> *mut c_void {
    if host.is_null() || device::target().is_none() {
        return host;
    }
    let t = table();
    match t.translate(host as usize) {
        Some(dev) => dev as *mut c_void,
        // A zero-length item (`x[0:0]`) has no device copy: its device pointer is null.
        None if t.has_empty(host as usize) => std::ptr::null_mut(),
        None => diag::user_error(
            loc,
            &format!(
                "'{text}' (host address {:#x}) is used in a compute region but is not present on the device; \
                 add it to a data clause (e.g. copyin({text}[0:n]))",
                host as usize
            ),
        ),
    }
}

/// Device address of pointer `host` used in a compute region (`__accrt_translate`): through
/// the present table by its current value, else relative to the data clause item
/// `fallback` it was named in (see [`PresentTable::translate_pointer`]).
pub fn translate(host: *mut c_void, fallback: *mut c_void, loc: &str, text: &str) -> *mut c_void {
    if host.is_null() || device::target().is_none() {
        return host;
    }
    let t = table();
    match t.translate_pointer(host as usize, fallback as usize) {
        Ok(Some(dev)) => dev as *mut c_void,
        Ok(None) => std::ptr::null_mut(),
        Err(()) => diag::user_error(
            loc,
            &format!(
                "'{text}' (host address {:#x}) is used in a compute region but is not present on the device; \
                 add it to a data clause (e.g. copyin({text}[0:n]))",
                host as usize
            ),
        ),
    }
}
