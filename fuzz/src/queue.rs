//! Asynchronous queues and the dynamic data lifetime: `async` groups, `exit data ...
//! finalize`, `update ... if_present` and the `acc_*` data routines.
//!
//! - `async`: one to three compute regions (and `update`s) on queue `q` in 1..3, then
//!   `wait(q)`, `wait` or `acc_wait(q)` before any host code. Later regions of a group may
//!   read what earlier ones wrote (queue order); a group's last region may go on another
//!   queue with `wait(q)` on its directive, and the group then ends with `wait` (all). The
//!   data model treats a group as synchronous, which it is once the wait has returned.
//! - `finalize`: `enter data` of an absent array two or three times (maybe a region in
//!   between), then `exit data copyout|delete(x) finalize` (or `acc_*_finalize`): the count
//!   drops to zero at once.
//! - `ifpresent`: `update self|device(x) if_present` on present data (a transfer) or absent
//!   data (nothing happens).
//! - `api`: `acc_copyin` / `acc_create` / `acc_copyout` / `acc_delete` / `acc_update_device`
//!   / `acc_update_self` spell `enter data` / `exit data` / `update` (data.rs), and
//!   `FZ_PRESENT(p, n, want)` prints 1 when `acc_is_present` agrees with the model (always 1
//!   on the host device, where memory is shared, and in the plain C build).

use crate::data::Clause;
use crate::features::Feature;
use crate::skeleton::Gen;
use crate::writer::W;

/// The program header's part for the `acc_*` routines: `openacc.h` under `_OPENACC`, plain
/// C stand-ins (the sequential meaning) otherwise.
pub const API_PRELUDE: &str = "#ifdef _OPENACC
#include <openacc.h>
#define FZ_PRESENT(p, n, want) ((acc_is_present((p), (n)) != 0) == (want) || acc_get_device_type() == acc_device_host)
#else
#define acc_copyin(p, n) ((void)(n), (void *)(p))
#define acc_create(p, n) ((void)(n), (void *)(p))
#define acc_copyout(p, n) ((void)(p), (void)(n))
#define acc_delete(p, n) ((void)(p), (void)(n))
#define acc_copyout_finalize(p, n) ((void)(p), (void)(n))
#define acc_delete_finalize(p, n) ((void)(p), (void)(n))
#define acc_update_device(p, n) ((void)(p), (void)(n))
#define acc_update_self(p, n) ((void)(p), (void)(n))
#define acc_wait(q) ((void)(q))
#define FZ_PRESENT(p, n, want) ((void)(p), (void)(n), 1)
#endif
";

impl Gen<'_> {
    /// `(pointer, bytes)` arguments of an `acc_*` routine for the whole array `a`.
    pub fn api_args(&self, a: usize) -> (String, String) {
        let arr = &self.arrays[a];
        match arr.storage {
            crate::model::Storage::Heap => (
                arr.name.clone(),
                format!("sizeof({}) * {}", arr.elem.c(), arr.len_text()),
            ),
            crate::model::Storage::Local => (arr.name.clone(), format!("sizeof {}", arr.name)),
        }
    }

    /// Whether to spell the next data operation with an `acc_*` routine.
    pub fn use_api(&mut self) -> bool {
        self.opts.has(Feature::Api) && !self.in_async && self.rng.chance(30)
    }

    /// `acc_NAME(p, n);` for array `a`.
    pub fn api_call(&mut self, w: &mut W, name: &str, a: usize) {
        self.mark(Feature::Api);
        let (p, n) = self.api_args(a);
        w.line(format!("{name}({p}, {n});"));
    }

    /// Sometimes prints whether `acc_is_present` agrees with the model for `a`.
    pub fn maybe_present_check(&mut self, w: &mut W, a: usize) {
        if !self.opts.has(Feature::Api) || !self.rng.chance(40) {
            return;
        }
        self.mark(Feature::Api);
        let (p, n) = self.api_args(a);
        let want = i32::from(self.state[a].present());
        w.line(format!(
            "printf(\"present {} %d\\n\", FZ_PRESENT({p}, {n}, {want}));",
            self.arrays[a].name
        ));
    }

    /// An `async` group (see the module doc).
    pub fn async_group(&mut self, w: &mut W) {
        self.mark(Feature::Async);
        let q = self.rng.range(1, 3);
        // The acc_* routines are synchronous: not inside a group whose queue may still run.
        self.in_async = true;
        let n = *self.rng.pick(&[1, 1, 1, 2, 2, 3]).min(&(13 - self.regions as i64)).max(&1);
        let other = n > 1 && self.rng.chance(30);
        for r in 0..n {
            let mut tmp = W::new(w.ind);
            let (cl, used) = self.parallel_region(&mut tmp, None, None);
            self.apply_compute(&cl, &used, None);
            let (qq, wait) = if other && r == n - 1 {
                (q % 3 + 1, format!(" wait({q})"))
            } else {
                (q, String::new())
            };
            w.append(&asyncify(&tmp, qq, &wait));
        }
        // Sometimes an update on the queue before the wait.
        let present: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| self.state[a].present() && self.state[a].dev_ok && !self.state[a].host_ok)
            .collect();
        if self.opts.has(Feature::Update) && !other && !present.is_empty() && self.rng.chance(50) {
            let a = *self.rng.pick(&present);
            let mut tmp = W::new(w.ind);
            self.update_self(&mut tmp, a);
            w.append(&asyncify(&tmp, q, ""));
        }
        self.in_async = false;
        if other {
            w.line("#pragma acc wait");
        } else if self.opts.has(Feature::Api) && self.rng.chance(30) {
            self.mark(Feature::Api);
            w.line(format!("acc_wait({q});"));
        } else if self.rng.chance(50) {
            w.line(format!("#pragma acc wait({q})"));
        } else {
            w.line("#pragma acc wait");
        }
    }

    /// `enter data` two or three times, maybe a region, then `exit data ... finalize`.
    pub fn finalize_item(&mut self, w: &mut W) -> bool {
        let cands: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| !self.state[a].present() && !self.state[a].dead())
            .filter(|&a| self.pair.is_none_or(|(u, v)| a != u && a != v))
            .collect();
        let Some(&a) = self.rng_pick_opt(&cands) else {
            return false;
        };
        self.mark(Feature::Finalize);
        for _ in 0..self.rng.range(2, 3) {
            let c = if self.state[a].host_ok && self.rng.chance(70) {
                Clause::CopyIn
            } else {
                Clause::Create
            };
            if self.use_api() {
                let name = if c == Clause::CopyIn { "acc_copyin" } else { "acc_create" };
                self.api_call(w, name, a);
            } else {
                let text = self.clause_text(&[(a, c)]);
                w.line(format!("#pragma acc enter data {text}"));
            }
            self.enter(a, c);
            self.maybe_present_check(w, a);
        }
        if self.rng.chance(15) && self.regions < 12 {
            let (cl, used) = self.parallel_region(w, None, None);
            self.apply_compute(&cl, &used, None);
        }
        let st = self.state[a];
        let copyout = if st.dev_ok && !st.host_ok {
            true
        } else if st.host_ok && !st.dev_ok {
            false
        } else {
            st.host_ok && self.rng.chance(50)
        };
        let c = if copyout { Clause::CopyOut } else { Clause::Delete };
        if self.use_api() {
            let name = if copyout { "acc_copyout_finalize" } else { "acc_delete_finalize" };
            self.api_call(w, name, a);
        } else {
            let text = self.clause_text(&[(a, c)]);
            w.line(format!("#pragma acc exit data {text} finalize"));
        }
        while self.state[a].count > 1 {
            self.state[a].count -= 1;
        }
        self.exit(a, c);
        self.maybe_present_check(w, a);
        true
    }

    /// `update self|device(x) if_present` on a present or an absent array.
    pub fn ifpresent_item(&mut self, w: &mut W) -> bool {
        let ids: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| !self.state[a].dead())
            .collect();
        let Some(&a) = self.rng_pick_opt(&ids) else {
            return false;
        };
        self.mark(Feature::IfPresent);
        let st = self.state[a];
        let sec = self.section(a);
        let dir = if !st.present() {
            *self.rng.pick(&["self", "host", "device"])
        } else if st.dev_ok && (!st.host_ok || self.rng.chance(50)) {
            self.state[a].host_ok = true;
            "self"
        } else if st.host_ok {
            self.state[a].dev_ok = true;
            "device"
        } else {
            return false;
        };
        w.line(format!("#pragma acc update {dir}({sec}) if_present"));
        true
    }
}

/// The region text with ` async(q)` (and `wait`) on every construct and update directive.
fn asyncify(tmp: &W, q: i64, wait: &str) -> W {
    let mut out = W::new(tmp.ind);
    for line in tmp.s.lines() {
        let t = line.trim_start();
        let is_dir = ["parallel", "kernels", "serial", "update"]
            .iter()
            .any(|k| t.starts_with(&format!("#pragma acc {k}")));
        if is_dir {
            out.s.push_str(&format!("{line} async({q}){wait}\n"));
        } else {
            out.s.push_str(line);
            out.s.push('\n');
        }
    }
    out
}
