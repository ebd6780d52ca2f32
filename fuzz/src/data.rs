//! Data directives and the data state that makes every program's result independent of
//! where its regions run.
//!
//! The sequential program (one memory) is the truth. For each array the generator tracks
//! the present count and whether the host copy and the device copy hold the true value
//! (`host_ok`, `dev_ok`). Device code only reads arrays whose device copy is true (an
//! `update device` is emitted first when only the host copy is), host code only reads true
//! host copies (after an `update self` if needed), copy-outs only happen from a true device
//! copy (else an `update device` first), and an array whose true value is lost (`create`d,
//! written on the device, freed without copy-out) is "dead": never read again until fully
//! overwritten, and not printed. Transfers follow OpenACC's counts: only the first entry
//! copies in and only the exit that drops the count to zero copies out.

use std::collections::BTreeMap;

use crate::expr::Use;
use crate::features::Feature;
use crate::skeleton::Gen;
use crate::writer::W;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clause {
    Copy,
    CopyIn,
    CopyOut,
    Create,
    Present,
    NoCreate,
    Delete,
    /// No clause: a local array referenced in a compute region (implicit copy / present).
    Implicit,
}

impl Clause {
    pub fn name(self) -> &'static str {
        match self {
            Clause::Copy => "copy",
            Clause::CopyIn => "copyin",
            Clause::CopyOut => "copyout",
            Clause::Create => "create",
            Clause::Present => "present",
            Clause::NoCreate => "no_create",
            Clause::Delete => "delete",
            Clause::Implicit => "",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayState {
    pub count: u32,
    pub host_ok: bool,
    pub dev_ok: bool,
}

impl ArrayState {
    pub fn present(&self) -> bool {
        self.count > 0
    }

    pub fn dead(&self) -> bool {
        !self.host_ok && (!self.present() || !self.dev_ok)
    }
}

impl Gen<'_> {
    /// Could device code read `a` (possibly after an `update device`)?
    pub fn dev_readable(&self, a: usize) -> bool {
        let st = self.state[a];
        if st.present() {
            st.dev_ok || (self.opts.has(Feature::Update) && st.host_ok)
        } else {
            st.host_ok
        }
    }

    /// Could host code read `a` (possibly after an `update self`)?
    pub fn host_readable(&self, a: usize) -> bool {
        let st = self.state[a];
        st.host_ok || (self.opts.has(Feature::Update) && st.present() && st.dev_ok)
    }

    pub fn update_device(&mut self, w: &mut W, a: usize) {
        assert!(
            self.state[a].present() && self.state[a].host_ok,
            "update device of {}",
            self.arrays[a].name
        );
        if self.use_api() {
            self.api_call(w, "acc_update_device", a);
        } else {
            let sec = self.section(a);
            w.line(format!("#pragma acc update device({sec})"));
        }
        self.state[a].dev_ok = true;
        self.mark(Feature::Update);
    }

    pub fn update_self(&mut self, w: &mut W, a: usize) {
        assert!(
            self.state[a].present() && self.state[a].dev_ok,
            "update self of {}",
            self.arrays[a].name
        );
        if self.use_api() {
            self.api_call(w, "acc_update_self", a);
        } else {
            let sec = self.section(a);
            let kw = if self.rng.chance(70) { "self" } else { "host" };
            w.line(format!("#pragma acc update {kw}({sec})"));
        }
        self.state[a].host_ok = true;
        self.mark(Feature::Update);
    }

    /// Before device code that reads (or partly writes) `a`.
    pub fn ensure_dev(&mut self, w: &mut W, a: usize) {
        if self.state[a].present() && !self.state[a].dev_ok {
            self.update_device(w, a);
        }
    }

    /// Before host code that reads (or partly writes) `a`.
    pub fn ensure_host(&mut self, w: &mut W, a: usize) {
        if !self.state[a].host_ok {
            self.update_self(w, a);
        }
    }

    pub fn section(&mut self, a: usize) -> String {
        let short = self.rng.chance(60);
        self.arrays[a].section(short)
    }

    /// State change at a construct's entry for `a` in `clause`.
    pub fn enter(&mut self, a: usize, clause: Clause) {
        let st = &mut self.state[a];
        if st.count == 0 {
            match clause {
                Clause::Copy | Clause::CopyIn | Clause::Implicit => st.dev_ok = st.host_ok,
                Clause::CopyOut | Clause::Create => st.dev_ok = false,
                Clause::Present | Clause::NoCreate | Clause::Delete => {
                    panic!("{} on absent {}", clause.name(), self.arrays[a].name)
                }
            }
        }
        st.count += 1;
    }

    /// State change at a construct's exit for `a` in `clause`.
    pub fn exit(&mut self, a: usize, clause: Clause) {
        let st = &mut self.state[a];
        assert!(st.count > 0, "exit of absent {}", self.arrays[a].name);
        st.count -= 1;
        if st.count == 0 {
            if matches!(clause, Clause::Copy | Clause::CopyOut | Clause::Implicit) {
                st.host_ok = st.dev_ok;
            }
            st.dev_ok = false;
        }
    }

    /// `copy(a[0:N], b) copyin(c)`: clauses grouped by kind, in first-use order.
    pub fn clause_text(&mut self, list: &[(usize, Clause)]) -> String {
        let mut out: Vec<(Clause, Vec<String>)> = Vec::new();
        for &(a, c) in list {
            if c == Clause::Implicit {
                continue;
            }
            let sec = self.section(a);
            match out.iter_mut().find(|(k, _)| *k == c) {
                Some((_, v)) => v.push(sec),
                None => out.push((c, vec![sec])),
            }
        }
        out.iter()
            .map(|(c, v)| format!("{}({})", c.name(), v.join(", ")))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Data clauses of a compute construct for the arrays its body uses; emits the
    /// `update device`s it needs first. `covers` is an array the region overwrites fully
    /// before any read (a fill), which needs no valid device copy.
    pub fn compute_clauses(
        &mut self,
        w: &mut W,
        used: &BTreeMap<usize, Use>,
        covers: Option<usize>,
    ) -> Vec<(usize, Clause)> {
        let mut list = Vec::new();
        for (&a, u) in used {
            let local = self.arrays[a].storage == crate::model::Storage::Local;
            let st = self.state[a];
            let clause = if st.present() {
                if Some(a) != covers && !st.dev_ok {
                    self.update_device(w, a);
                }
                let mut opts = vec![
                    Clause::Present,
                    Clause::Present,
                    Clause::Copy,
                    Clause::CopyIn,
                ];
                opts.extend([Clause::CopyOut, Clause::Create, Clause::NoCreate]);
                // No clause: a local array is copied implicitly (here: present); a malloc'ed
                // one is reached through its pointer, whose implicit copy accc bounds by the
                // subscripts (implicit_bounds.rs) or which it translates: either way only
                // counted, and a range bounded beyond the present array would fail the
                // program ("partially present").
                opts.extend([Clause::Implicit, Clause::Implicit]);
                *self.rng.pick(&opts)
            } else if Some(a) == covers && !u.read {
                *self
                    .rng
                    .pick(&[Clause::CopyOut, Clause::CopyOut, Clause::Copy])
            } else if local && self.rng.chance(30) {
                Clause::Implicit
            } else if u.write {
                Clause::Copy
            } else {
                *self
                    .rng
                    .pick(&[Clause::CopyIn, Clause::CopyIn, Clause::Copy])
            };
            list.push((a, clause));
        }
        list
    }

    /// State change of a compute construct: entry clauses, the body's writes, exit clauses.
    pub fn apply_compute(
        &mut self,
        clauses: &[(usize, Clause)],
        used: &BTreeMap<usize, Use>,
        covers: Option<usize>,
    ) {
        for &(a, c) in clauses {
            self.enter(a, c);
        }
        self.apply_body(used, covers);
        for &(a, c) in clauses {
            self.exit(a, c);
        }
    }

    /// The body's effect while everything it uses is present.
    pub fn apply_body(&mut self, used: &BTreeMap<usize, Use>, covers: Option<usize>) {
        for (&a, u) in used {
            let st = &mut self.state[a];
            assert!(
                st.present(),
                "{} used in a region but absent",
                self.arrays[a].name
            );
            assert!(
                st.dev_ok || (Some(a) == covers && !u.read),
                "{} read on the device while stale",
                self.arrays[a].name
            );
            if u.write {
                st.dev_ok = true;
                st.host_ok = false;
            }
        }
    }

    /// Writes `#pragma acc data <list> {`, enters its clauses and returns the pointer-swap
    /// parity at entry (for `exit_list` at the region's end).
    pub fn open_data_region(&mut self, w: &mut W, list: &[(usize, Clause)]) -> bool {
        let text = self.clause_text(list);
        w.line(format!("#pragma acc data {text}"));
        w.open("");
        for &(a, c) in list {
            self.enter(a, c);
        }
        self.swapped
    }

    /// `#pragma acc data ... { items }`.
    pub fn data_region(&mut self, w: &mut W, depth: u32) {
        self.mark(Feature::Data);
        let ids = self.pick_arrays(1, 4);
        let mut list = Vec::new();
        for a in ids {
            let st = self.state[a];
            let c = if st.present() {
                *self.rng.pick(&[
                    Clause::Copy,
                    Clause::CopyIn,
                    Clause::CopyOut,
                    Clause::Create,
                    Clause::Present,
                    Clause::NoCreate,
                ])
            } else if st.dead() {
                *self.rng.pick(&[Clause::Create, Clause::CopyOut])
            } else {
                [
                    Clause::Copy,
                    Clause::CopyIn,
                    Clause::CopyOut,
                    Clause::Create,
                ][self.rng.weighted(&[4, 3, 1, 2])]
            };
            list.push((a, c));
        }
        let swapped_at_entry = self.open_data_region(w, &list);
        self.list(w, depth + 1);
        let list = self.exit_list(&list, swapped_at_entry);
        self.fix_exit(w, &list);
        w.close();
        for &(a, c) in &list {
            self.exit(a, c);
        }
    }

    /// Before an exit that frees arrays: make the copy that survives the true one.
    fn fix_exit(&mut self, w: &mut W, list: &[(usize, Clause)]) {
        let upd = self.opts.has(Feature::Update);
        for &(a, c) in list {
            let st = self.state[a];
            if st.count != 1 {
                continue;
            }
            match c {
                Clause::Copy | Clause::CopyOut if !st.dev_ok && st.host_ok && upd => {
                    self.update_device(w, a)
                }
                Clause::CopyIn
                | Clause::Create
                | Clause::Present
                | Clause::NoCreate
                | Clause::Delete
                    if !st.host_ok && st.dev_ok && upd =>
                {
                    self.update_self(w, a)
                }
                _ => {}
            }
        }
    }

    /// `#pragma acc enter data ...`; returns the arrays for the matching `exit data`.
    pub fn enter_data(&mut self, w: &mut W) -> Vec<usize> {
        self.mark(Feature::EnterExit);
        let ids = self.pick_arrays(1, 3);
        let mut list = Vec::new();
        for a in ids {
            let st = self.state[a];
            let c = if st.host_ok && (st.present() || self.rng.chance(70)) {
                Clause::CopyIn
            } else {
                Clause::Create
            };
            list.push((a, c));
        }
        if self.use_api() {
            for &(a, c) in &list {
                let name = if c == Clause::CopyIn { "acc_copyin" } else { "acc_create" };
                self.api_call(w, name, a);
            }
        } else {
            let text = self.clause_text(&list);
            w.line(format!("#pragma acc enter data {text}"));
        }
        for &(a, c) in &list {
            self.enter(a, c);
            self.maybe_present_check(w, a);
        }
        list.iter().map(|&(a, _)| a).collect()
    }

    /// `#pragma acc exit data ...` for arrays of an earlier `enter data`.
    pub fn exit_data(&mut self, w: &mut W, ids: &[usize]) {
        let upd = self.opts.has(Feature::Update);
        let mut list = Vec::new();
        for &a in ids {
            let st = self.state[a];
            let c = if st.count > 1 {
                *self.rng.pick(&[Clause::CopyOut, Clause::Delete])
            } else if st.dev_ok && !st.host_ok {
                if upd && self.rng.chance(30) {
                    self.update_self(w, a);
                    Clause::Delete
                } else {
                    Clause::CopyOut
                }
            } else if st.host_ok && !st.dev_ok {
                if upd && self.rng.chance(30) {
                    self.update_device(w, a);
                    Clause::CopyOut
                } else {
                    Clause::Delete
                }
            } else if st.host_ok {
                *self.rng.pick(&[Clause::CopyOut, Clause::Delete])
            } else {
                Clause::Delete
            };
            list.push((a, c));
        }
        if self.use_api() {
            for &(a, c) in &list {
                let name = if c == Clause::CopyOut { "acc_copyout" } else { "acc_delete" };
                self.api_call(w, name, a);
            }
        } else {
            let text = self.clause_text(&list);
            w.line(format!("#pragma acc exit data {text}"));
        }
        for &(a, c) in &list {
            self.exit(a, c);
            self.maybe_present_check(w, a);
        }
    }

    /// A voluntary `update` of a present array.
    pub fn update_item(&mut self, w: &mut W) -> bool {
        let present: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| self.state[a].present() && !self.state[a].dead())
            .collect();
        if present.is_empty() {
            return false;
        }
        let a = *self.rng.pick(&present);
        let st = self.state[a];
        if st.dev_ok && (!st.host_ok || self.rng.chance(50)) {
            self.update_self(w, a);
        } else {
            self.update_device(w, a);
        }
        true
    }

    /// `lo..=hi` distinct arrays, alive ones preferred.
    fn pick_arrays(&mut self, lo: i64, hi: i64) -> Vec<usize> {
        let mut ids: Vec<usize> = (0..self.arrays.len()).collect();
        self.rng.shuffle(&mut ids);
        let n = self.rng.range(lo, hi) as usize;
        let (mut alive, dead): (Vec<usize>, Vec<usize>) =
            ids.into_iter().partition(|&a| !self.state[a].dead());
        if self.rng.chance(20) {
            alive.extend(dead);
        }
        alive.truncate(n);
        alive
    }
}
