//! How each value a compute region captures from its host function reaches the kernel.
//!
//! A pure decision (`classify`) over facts the outliner gathers (`CaptureFacts`), following
//! OpenACC 3.3 §2.5.14 and §2.6.2 (implicit data attributes): scalars are firstprivate in
//! `parallel`/`serial`; in `kernels` a scalar the region writes is `copy`; arrays and
//! structs are `copy` (or `present` under `default(present)`); variables named in a data
//! clause are used where the clause put them, except a pointer variable in a `deviceptr`
//! clause, whose value (a device address) the kernel gets by value. C scoping gives one more rule: storage that is
//! only used inside the region, its lifetime markers included (accc makes Clang emit them at
//! every -O level), was declared inside it and is simply private; an array declared at
//! function scope and used only in the region is mapped like any other (§2.6.2). The loop
//! variable of a loop associated with a loop construct is predetermined private (§2.6.1),
//! even when declared before the region (`int idx; ... for (idx = 0; ...)`). And a scalar
//! a `kernels` region writes, whose value neither flows in nor out of the region
//! (liveness.rs), is private to each thread instead of one shared `copy` cell: no correct
//! program can tell the difference, and threads no longer race on it.

use crate::contract::{ComputeKind, DataKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// An SSA value that is not a pointer (an integer or float computed before the region).
    ScalarValue,
    /// An SSA pointer value: a host address that must be translated for the device.
    PointerValue,
    /// A variable's storage (`alloca` or global): `scalar` for int/float/pointer variables.
    Variable { scalar: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaptureFacts {
    pub storage: Storage,
    pub compute: ComputeKind,
    /// The variable appears (whole) in a data clause of this construct or an enclosing one.
    pub in_data_clause: bool,
    /// A pointer variable whose target appears in such a data clause (`copy(a[0:n])` with
    /// `float *a`): the variable has a data clause as far as `default(none)` is concerned,
    /// and is passed as a pointer variable without one (the pointer is translated).
    pub pointee_in_data_clause: bool,
    pub private_clause: bool,
    pub firstprivate_clause: bool,
    /// The variable is named in a `deviceptr` clause (of this construct or an enclosing
    /// data construct): a pointer holding a device address, which the kernel needs by value.
    pub deviceptr_clause: bool,
    /// Named in a `reduction` clause that spans gangs: on the compute construct, or on a
    /// loop with the gang level. The result must reach the variable itself, so it is `copy`
    /// (OpenACC 3.3 §2.5.15, §2.9.11) unless a data clause already places it.
    pub gang_reduction: bool,
    /// Used nowhere outside the region (so declared inside it, by C scoping).
    pub region_local: bool,
    /// The region stores to it (or lets a call do so).
    pub written: bool,
    /// The loop variable of a loop associated with a loop construct in the region.
    pub loop_variable: bool,
    /// The region may read the value it has on entry (unknown: true).
    pub live_in: bool,
    /// The host may read the value the region leaves in it (unknown: true).
    pub live_out: bool,
    pub default_present: bool,
    pub default_none: bool,
}

/// How a capture is passed, on the host fallback path and to the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passing {
    /// Passed as is (host) / as is (device).
    Value,
    /// A host address: passed as is on the host, translated through the present table for
    /// the device.
    Translate,
    /// A variable (scalar, array or struct) passed by value and copied into a private slot
    /// in the kernel.
    FirstPrivate,
    /// Fresh, uninitialised private storage in the kernel; nothing is passed.
    Private,
    /// A copy in the launch's private area (private_copies.rs): a `private` or
    /// `firstprivate` section of a pointer variable (`private(p[0:n])`: the pointer becomes
    /// the copy's), or a firstprivate variable too large for a kernel parameter. The
    /// variable is not passed; `initialised` (firstprivate) copies start as the data.
    PrivateCopy { initialised: bool },
    /// A variable's address, mapped implicitly around the launch with this kind, then
    /// translated.
    Implicit(DataKind),
}

impl Passing {
    /// The capture is a parameter of the outlined function (private storage is not).
    pub fn is_parameter(self) -> bool {
        !matches!(self, Passing::Private | Passing::PrivateCopy { .. })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaptureError {
    /// `default(none)` and the variable has no explicit data attribute.
    NeedsExplicitClause,
}

pub fn classify(f: CaptureFacts) -> Result<Passing, CaptureError> {
    match f.storage {
        Storage::ScalarValue => Ok(Passing::Value),
        Storage::PointerValue => Ok(Passing::Translate),
        Storage::Variable { scalar } => {
            if f.private_clause || f.region_local {
                return Ok(Passing::Private);
            }
            if f.firstprivate_clause {
                // Arrays and structs too: passed by value as a kernel parameter of their type
                // (PTX `.param .b8 name[size]`), copied into the thread's slot.
                return Ok(Passing::FirstPrivate);
            }
            if f.deviceptr_clause && scalar {
                // Its value is already a device address (host_stub passes it untranslated);
                // the variable's own (host) storage is never the kernel's to read.
                return Ok(Passing::FirstPrivate);
            }
            if f.in_data_clause {
                return Ok(Passing::Translate);
            }
            if f.gang_reduction {
                return Ok(Passing::Implicit(if f.default_present { DataKind::Present } else { DataKind::Copy }));
            }
            if f.loop_variable && scalar {
                // Predetermined private; a loop without an init keeps the value it starts from.
                return Ok(if f.live_in { Passing::FirstPrivate } else { Passing::Private });
            }
            if f.default_none && !f.pointee_in_data_clause {
                return Err(CaptureError::NeedsExplicitClause);
            }
            let copy_kind = if f.default_present { DataKind::Present } else { DataKind::Copy };
            match (scalar, f.compute) {
                (true, k) if k.has_kernels_data_rules() && f.written && (f.live_in || f.live_out) => Ok(Passing::Implicit(DataKind::Copy)),
                (true, k) if k.has_kernels_data_rules() && f.written => Ok(Passing::Private),
                (true, _) => Ok(Passing::FirstPrivate),
                (false, _) => Ok(Passing::Implicit(copy_kind)),
            }
        }
    }
}

/// The region stores to a scalar that is implicitly firstprivate (a `parallel` or `serial`
/// construct, no clause names it, not a loop variable) and the host may read it afterwards:
/// the store reaches only the kernel's copy, which is almost always a mistake (a missing
/// `copy`), so the outliner warns. `kernels` makes such a scalar `copy` instead.
pub fn loses_write(f: &CaptureFacts, passing: Passing) -> bool {
    passing == Passing::FirstPrivate
        && !f.compute.has_kernels_data_rules()
        && !f.firstprivate_clause
        && !f.deviceptr_clause
        && !f.loop_variable
        && f.written
        && f.live_out
}

/// A captured pointer value the kernel gets translated although no data clause names it or
/// its target (nor `deviceptr`, nor `firstprivate`): the pointer whose target §2.6.2 only
/// requires to be present.
pub fn translated_without_clause(f: &CaptureFacts, passing: Passing) -> bool {
    let translated = matches!(passing, Passing::FirstPrivate | Passing::Translate);
    translated && !f.in_data_clause && !f.pointee_in_data_clause && !f.deviceptr_clause && !f.firstprivate_clause && !f.loop_variable
}

/// A name the user can have written: a C identifier. Clang's own allocas carry names with
/// dots (`cleanup.dest.slot`, which every `goto`/`break`/`continue` out of a scope stores
/// to, `agg.tmp`, `ref.tmp`); warnings about them would name nothing in the source.
pub fn is_user_variable_name(name: &str) -> bool {
    let mut cs = name.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$' || !c.is_ascii())
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || !c.is_ascii())
}

/// The data attribute the compiler gave a capture that no clause names, and why, for the
/// compile report (report.rs): None when a clause of the program decided it or the storage
/// was declared inside the region. `pointer`: the captured value, or the variable's value,
/// is a pointer (passed by value, it is translated to a device address at launch).
pub fn implicit_attribute(f: &CaptureFacts, passing: Passing, pointer: bool) -> Option<(&'static str, &'static str)> {
    let pointer_why = if f.pointee_in_data_clause {
        "pointer into a data clause item: its value is translated to the device copy"
    } else {
        "pointer: its value is translated to the device address of what it points to, which must be present"
    };
    match passing {
        Passing::Implicit(DataKind::Present) => Some(("present", "default(present)")),
        Passing::Implicit(_) if f.gang_reduction => Some(("copy", "reduction across gangs: the result goes to the variable itself")),
        Passing::Implicit(_) if matches!(f.storage, Storage::Variable { scalar: true }) => {
            Some(("copy", "scalar written in a kernels region whose value enters or leaves it"))
        }
        Passing::Implicit(_) => Some(("copy", "array or struct used in the region without a data clause")),
        Passing::FirstPrivate if f.firstprivate_clause || f.deviceptr_clause => None,
        Passing::FirstPrivate if f.loop_variable => Some(("firstprivate", "loop variable of an acc loop, its value on entry read")),
        Passing::FirstPrivate if pointer => Some(("firstprivate", pointer_why)),
        Passing::FirstPrivate => Some(("firstprivate", "scalar used in the region without a data clause")),
        Passing::Private if f.private_clause || f.region_local => None,
        Passing::Private if f.loop_variable => Some(("private", "loop variable of an acc loop")),
        Passing::Private => Some(("private", "scalar written in a kernels region whose value neither enters nor leaves it")),
        Passing::Translate if f.storage == Storage::PointerValue && !f.in_data_clause => Some(("firstprivate", pointer_why)),
        Passing::Translate | Passing::Value | Passing::PrivateCopy { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implicit_attributes_for_the_report() {
        let p = ComputeKind::Parallel;
        let k = ComputeKind::Kernels;
        let arr = var(false, p);
        assert_eq!(implicit_attribute(&arr, classify(arr).unwrap(), false).map(|a| a.0), Some("copy"));
        let n = var(true, p);
        assert_eq!(implicit_attribute(&n, classify(n).unwrap(), false), Some(("firstprivate", "scalar used in the region without a data clause")));
        assert_eq!(implicit_attribute(&n, classify(n).unwrap(), true).map(|a| a.0), Some("firstprivate"));
        let named = CaptureFacts { firstprivate_clause: true, ..n };
        assert_eq!(implicit_attribute(&named, classify(named).unwrap(), false), None);
        let mapped = CaptureFacts { in_data_clause: true, ..arr };
        assert_eq!(implicit_attribute(&mapped, classify(mapped).unwrap(), false), None);
        let local = CaptureFacts { region_local: true, ..arr };
        assert_eq!(implicit_attribute(&local, classify(local).unwrap(), false), None);
        let written = CaptureFacts { written: true, ..var(true, k) };
        assert_eq!(implicit_attribute(&written, classify(written).unwrap(), false).map(|a| a.0), Some("copy"));
        let dead = CaptureFacts { live_in: false, live_out: false, ..written };
        assert_eq!(implicit_attribute(&dead, classify(dead).unwrap(), false).map(|a| a.0), Some("private"));
        let red = CaptureFacts { gang_reduction: true, ..n };
        assert_eq!(implicit_attribute(&red, classify(red).unwrap(), false).map(|a| a.1), Some("reduction across gangs: the result goes to the variable itself"));
        let present = CaptureFacts { default_present: true, ..arr };
        assert_eq!(implicit_attribute(&present, classify(present).unwrap(), false), Some(("present", "default(present)")));
    }

    fn var(scalar: bool, compute: ComputeKind) -> CaptureFacts {
        CaptureFacts {
            storage: Storage::Variable { scalar },
            compute,
            in_data_clause: false,
            pointee_in_data_clause: false,
            private_clause: false,
            firstprivate_clause: false,
            deviceptr_clause: false,
            gang_reduction: false,
            region_local: false,
            written: false,
            loop_variable: false,
            live_in: true,
            live_out: true,
            default_present: false,
            default_none: false,
        }
    }

    #[test]
    fn gang_reductions_reach_the_variable() {
        let red = CaptureFacts { gang_reduction: true, written: true, ..var(true, ComputeKind::Parallel) };
        assert_eq!(classify(red), Ok(Passing::Implicit(DataKind::Copy)));
        assert_eq!(classify(CaptureFacts { default_present: true, ..red }), Ok(Passing::Implicit(DataKind::Present)));
        assert_eq!(classify(CaptureFacts { in_data_clause: true, ..red }), Ok(Passing::Translate));
        // default(none): the reduction clause is the variable's data attribute.
        assert_eq!(classify(CaptureFacts { default_none: true, ..red }), Ok(Passing::Implicit(DataKind::Copy)));
        // Declared inside the region, or private: each gang keeps its own result.
        assert_eq!(classify(CaptureFacts { region_local: true, ..red }), Ok(Passing::Private));
        assert!(!loses_write(&red, Passing::Implicit(DataKind::Copy)));
    }

    #[test]
    fn loop_variables_are_private() {
        for compute in [ComputeKind::Parallel, ComputeKind::Kernels, ComputeKind::Serial] {
            let iv = CaptureFacts { loop_variable: true, written: true, live_in: false, ..var(true, compute) };
            assert_eq!(classify(iv), Ok(Passing::Private));
            // Even when the host reads it afterwards (it keeps its value there), or under
            // default(none).
            assert_eq!(classify(CaptureFacts { default_none: true, ..iv }), Ok(Passing::Private));
            // A loop without an init starts from the variable's value.
            assert_eq!(classify(CaptureFacts { live_in: true, ..iv }), Ok(Passing::FirstPrivate));
        }
        let mapped = CaptureFacts { loop_variable: true, in_data_clause: true, ..var(true, ComputeKind::Kernels) };
        assert_eq!(classify(mapped), Ok(Passing::Translate));
    }

    #[test]
    fn dead_kernels_temporaries_are_private() {
        let t = CaptureFacts { written: true, live_in: false, live_out: false, ..var(true, ComputeKind::Kernels) };
        assert_eq!(classify(t), Ok(Passing::Private));
        assert_eq!(classify(CaptureFacts { live_out: true, ..t }), Ok(Passing::Implicit(DataKind::Copy)));
        assert_eq!(classify(CaptureFacts { live_in: true, ..t }), Ok(Passing::Implicit(DataKind::Copy)));
        // Arrays are not privatised by liveness (a store writes one element).
        assert_eq!(classify(CaptureFacts { written: true, live_in: false, live_out: false, ..var(false, ComputeKind::Kernels) }), Ok(Passing::Implicit(DataKind::Copy)));
    }

    #[test]
    fn scalars_are_firstprivate_in_parallel() {
        assert_eq!(classify(var(true, ComputeKind::Parallel)), Ok(Passing::FirstPrivate));
        assert_eq!(classify(CaptureFacts { written: true, ..var(true, ComputeKind::Parallel) }), Ok(Passing::FirstPrivate));
    }

    #[test]
    fn written_scalars_are_copied_in_kernels() {
        let f = CaptureFacts { written: true, ..var(true, ComputeKind::Kernels) };
        assert_eq!(classify(f), Ok(Passing::Implicit(DataKind::Copy)));
        assert_eq!(classify(var(true, ComputeKind::Kernels)), Ok(Passing::FirstPrivate));
    }

    #[test]
    fn arrays_are_copied_or_present() {
        assert_eq!(classify(var(false, ComputeKind::Parallel)), Ok(Passing::Implicit(DataKind::Copy)));
        let f = CaptureFacts { default_present: true, ..var(false, ComputeKind::Serial) };
        assert_eq!(classify(f), Ok(Passing::Implicit(DataKind::Present)));
    }

    #[test]
    fn clauses_and_scoping_win() {
        let local = CaptureFacts { region_local: true, ..var(false, ComputeKind::Parallel) };
        assert_eq!(classify(local), Ok(Passing::Private));
        let mapped = CaptureFacts { in_data_clause: true, ..var(true, ComputeKind::Parallel) };
        assert_eq!(classify(mapped), Ok(Passing::Translate));
        let none = CaptureFacts { default_none: true, ..var(true, ComputeKind::Parallel) };
        assert_eq!(classify(none), Err(CaptureError::NeedsExplicitClause));
        // `copy(a[0:n])` names the pointer `a`: default(none) is satisfied and the pointer
        // is passed as without default(none).
        let section = CaptureFacts { pointee_in_data_clause: true, ..none };
        assert_eq!(classify(section), Ok(Passing::FirstPrivate));
        let fp = CaptureFacts { firstprivate_clause: true, ..var(false, ComputeKind::Parallel) };
        assert_eq!(classify(fp), Ok(Passing::FirstPrivate));
    }

    #[test]
    fn deviceptr_pointers_go_by_value() {
        // `deviceptr(p)` also puts p in a data clause; the kernel gets p's value, not the
        // host address of the variable p.
        let p = CaptureFacts { deviceptr_clause: true, in_data_clause: true, ..var(true, ComputeKind::Parallel) };
        assert_eq!(classify(p), Ok(Passing::FirstPrivate));
        assert_eq!(classify(CaptureFacts { default_none: true, ..p }), Ok(Passing::FirstPrivate));
        assert_eq!(classify(CaptureFacts { compute: ComputeKind::Kernels, written: true, ..p }), Ok(Passing::FirstPrivate));
        assert!(!loses_write(&CaptureFacts { written: true, ..p }, Passing::FirstPrivate));
    }

    #[test]
    fn lost_writes_of_implicit_firstprivates() {
        let lost = |f: CaptureFacts| classify(f).is_ok_and(|p| loses_write(&f, p));
        for compute in [ComputeKind::Parallel, ComputeKind::Serial] {
            let sum = CaptureFacts { written: true, ..var(true, compute) };
            assert!(lost(sum));
            // Read only, dead after the region, or handled by a clause: nothing to say.
            assert!(!lost(CaptureFacts { written: false, ..sum }));
            assert!(!lost(CaptureFacts { live_out: false, ..sum }));
            assert!(!lost(CaptureFacts { firstprivate_clause: true, ..sum }));
            assert!(!lost(CaptureFacts { in_data_clause: true, ..sum }));
            assert!(!lost(CaptureFacts { private_clause: true, ..sum }));
            assert!(!lost(CaptureFacts { region_local: true, ..sum }));
            assert!(!lost(CaptureFacts { loop_variable: true, ..sum }));
        }
        // kernels copies a written scalar back.
        for compute in [ComputeKind::Kernels, ComputeKind::KernelsSequential] {
            assert!(!lost(CaptureFacts { written: true, ..var(true, compute) }));
        }
    }

    #[test]
    fn user_variable_names() {
        assert!(is_user_variable_name("sum"));
        assert!(is_user_variable_name("_x1"));
        assert!(!is_user_variable_name("cleanup.dest.slot"));
        assert!(!is_user_variable_name("agg.tmp"));
        assert!(!is_user_variable_name(""));
        assert!(!is_user_variable_name("1x"));
    }

    #[test]
    fn ssa_values() {
        let mut f = var(true, ComputeKind::Parallel);
        f.storage = Storage::ScalarValue;
        assert_eq!(classify(f), Ok(Passing::Value));
        f.storage = Storage::PointerValue;
        assert_eq!(classify(f), Ok(Passing::Translate));
    }
}
