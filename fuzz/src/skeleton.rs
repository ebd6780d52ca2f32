//! The program skeleton: sizes, arrays (malloc'ed and function-scope), their
//! initialisation, the sequence of top-level items (compute regions, host-side changes,
//! data regions, enter/exit data, pointer-swap sweeps) and the final print of every array.
//!
//! A program prints each live array row by row plus an FNV-1a checksum of all values; the
//! output of the plain C build (pragmas ignored) is the expected output.

use crate::data::{ArrayState, Clause};
use crate::expr::{AInfo, Ctx, Scalar, Var, VMAX};
use crate::features::{Feature, Features};
use crate::model::{Array, Elem, Ext, Sizes, Storage};
use crate::rng::Rng;
use crate::writer::W;

/// Compute regions per program at most (keeps compile and run times small).
const MAX_REGIONS: usize = 12;

/// The generator's state for one program.
pub struct Gen<'o> {
    pub rng: Rng,
    pub opts: &'o Features,
    pub sizes: Sizes,
    pub arrays: Vec<Array>,
    pub state: Vec<ArrayState>,
    /// Function-scope scalars ("parameters"): read-only in regions, changed between them.
    pub params: Vec<Scalar>,
    /// Extra loop variables visible in the next region (a sweep counter).
    pub outer_vars: Vec<Var>,
    /// Features this program actually contains.
    pub used: Features,
    pub regions: usize,
    /// Run partitioned loops backwards (self-check of race freedom).
    pub reverse: bool,
    counter: usize,
    swaps: usize,
    /// The two pointers swapped between sweeps (`u`, `v`).
    pub(crate) pair: Option<(usize, usize)>,
    /// Whether `u` and `v` point at each other's original buffer (an odd number of swaps so
    /// far). A structured construct releases at its exit the buffers it mapped at its entry
    /// (the clause addresses are evaluated once, as in GCC and NVHPC), so its exit list is
    /// translated by the swaps made inside it (`exit_list`).
    pub swapped: bool,
    /// File-scope functions (routines), written before `main`.
    pub funcs: String,
    /// The latest `routine seq` without a pointer argument (later routines may call it).
    pub last_seq: Option<String>,
    /// Inside an `async` group: data operations must not use the synchronous `acc_*` routines.
    pub in_async: bool,
    /// In an atomic region: a `routine seq` whose calls may be operands.
    pub atomic_seq: Option<(String, Option<usize>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Parallel,
    Kernels,
    HostMod,
    Data,
    Enter,
    Swap,
    Param,
    Update,
    Reduce,
    Atomic,
    Routine,
    Finalize,
    IfPresent,
}

impl<'o> Gen<'o> {
    pub fn new(seed: u64, opts: &'o Features) -> Gen<'o> {
        Gen {
            rng: Rng::new(seed),
            opts,
            sizes: Sizes {
                i: 1,
                j: 1,
                k: 1,
                p: 1,
            },
            arrays: Vec::new(),
            state: Vec::new(),
            params: Vec::new(),
            outer_vars: Vec::new(),
            used: Features::none(),
            regions: 0,
            reverse: false,
            counter: 0,
            swaps: 0,
            pair: None,
            swapped: false,
            funcs: String::new(),
            last_seq: None,
            in_async: false,
            atomic_seq: None,
        }
    }

    /// The arrays (by their current names) that a structured construct entered with `list`
    /// while the pair's parity was `swapped_at_entry` releases at its exit.
    pub fn exit_list(&self, list: &[(usize, Clause)], swapped_at_entry: bool) -> Vec<(usize, Clause)> {
        match self.pair {
            Some((u, v)) if swapped_at_entry != self.swapped => list
                .iter()
                .map(|&(a, c)| (if a == u { v } else if a == v { u } else { a }, c))
                .collect(),
            _ => list.to_vec(),
        }
    }

    pub fn mark(&mut self, f: Feature) {
        debug_assert!(self.opts.has(f), "generated disabled feature {}", f.name());
        self.used.insert(f);
    }

    /// A program-wide unique name.
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn choose_sizes(&mut self) {
        const IJ: [i64; 15] = [1, 2, 3, 5, 7, 8, 11, 13, 17, 31, 32, 33, 37, 64, 77];
        const K: [i64; 7] = [1, 2, 3, 4, 5, 7, 9];
        const P: [i64; 5] = [1, 2, 3, 5, 8];
        let i = *self.rng.pick(&IJ);
        let k = *self.rng.pick(&K);
        let mut j = *self.rng.pick(&IJ);
        while i * j * k > 12_000 {
            j = *self.rng.pick(&IJ[..10]);
        }
        let p = *self.rng.pick(&P);
        self.sizes = Sizes { i, j, k, p };
    }

    fn choose_arrays(&mut self) {
        use Ext::*;
        let mut shapes: Vec<Vec<Ext>> = vec![vec![I, J], vec![I], vec![I, K, J], vec![I, K]];
        let extra = self.rng.range(0, 3);
        for _ in 0..extra {
            shapes.push(
                self.rng
                    .pick(&[vec![I, J], vec![I, J], vec![I], vec![I, K], vec![I, K, J]])
                    .clone(),
            );
        }
        self.rng.shuffle(&mut shapes);
        for dims in shapes {
            let elem = *self.rng.pick(&[Elem::Int, Elem::Long, Elem::Double]);
            let local = self.opts.has(Feature::Local) && self.rng.chance(40);
            if local {
                self.mark(Feature::Local);
            }
            let n = self.arrays.len();
            let (name, storage) = if local {
                (format!("a{n}"), Storage::Local)
            } else {
                (format!("h{n}"), Storage::Heap)
            };
            self.arrays.push(Array {
                name,
                elem,
                storage,
                dims,
            });
        }
        if self.opts.has(Feature::Swap) {
            let dims = if self.rng.chance(70) {
                vec![I, J]
            } else {
                vec![I]
            };
            let u = self.arrays.len();
            for name in ["u", "v"] {
                self.arrays.push(Array {
                    name: name.into(),
                    elem: Elem::Double,
                    storage: Storage::Heap,
                    dims: dims.clone(),
                });
            }
            self.pair = Some((u, u + 1));
        }
        self.state = vec![
            ArrayState {
                count: 0,
                host_ok: true,
                dev_ok: false
            };
            self.arrays.len()
        ];
    }

    /// The whole program.
    pub fn program(&mut self, seed: u64) -> String {
        self.choose_sizes();
        self.choose_arrays();
        let mut w = W::new(0);
        w.line(format!("/* accfuzz gen {seed} --features={} */", self.opts));
        w.line("/* Race-free, deterministic OpenACC C; the plain C build (pragmas ignored) gives the expected output. */");
        w.line("/* contains: @USED@ */");
        for h in ["stdio.h", "stdlib.h", "string.h"] {
            w.line(format!("#include <{h}>"));
        }
        if self.opts.has(Feature::Api) {
            w.s.push_str(crate::queue::API_PRELUDE);
        }
        w.line("");
        for e in [Ext::I, Ext::J, Ext::K, Ext::P] {
            w.line(format!("#define {} {}", e.mac(), self.sizes.of(e)));
        }
        w.line("");
        w.line("static unsigned long long fz_hash = 1469598103934665603ULL;");
        w.line("static void fz_put_i(long v) {");
        w.line("  printf(\" %ld\", v);");
        w.line("  fz_hash = (fz_hash ^ (unsigned long long)v) * 1099511628211ULL;");
        w.line("}");
        w.line("static void fz_put_d(double v) {");
        w.line("  unsigned long long b;");
        w.line("  memcpy(&b, &v, sizeof b);");
        w.line("  printf(\" %.17g\", v);");
        w.line("  fz_hash = (fz_hash ^ b) * 1099511628211ULL;");
        w.line("}");
        w.line("");
        w.line("@FUNCS@");
        w.open("int main(void)");
        w.line("int ni = NI, nj = NJ, nk = NK, np = NP;");
        w.line("(void)ni, (void)nj, (void)nk, (void)np;");
        for (n, elem) in [Elem::Long, Elem::Int, Elem::Double]
            .into_iter()
            .enumerate()
        {
            let v = self.rng.range(0, 100);
            let name = format!("c{n}");
            let init = if elem == Elem::Double {
                format!("{v}.0")
            } else {
                v.to_string()
            };
            w.line(format!("{} {name} = {init};", elem.c()));
            self.params.push(Scalar {
                name,
                elem,
                bound: 100,
                owner: usize::MAX,
                ready: true,
            });
        }
        for a in self.arrays.clone() {
            let t = a.elem.c();
            match a.storage {
                Storage::Heap => w.line(format!(
                    "{t} *{} = ({t} *)malloc(sizeof({t}) * {});",
                    a.name,
                    a.len_text()
                )),
                Storage::Local => {
                    let dims: String = a.dims.iter().map(|d| format!("[{}]", d.mac())).collect();
                    w.line(format!("{t} {}{dims};", a.name));
                }
            }
        }
        if self.pair.is_some() {
            w.line("double *t;");
        }
        for a in self.arrays.clone() {
            let (m, c) = (self.rng.range(1, 97), self.rng.range(0, 1000));
            let names: Vec<String> = (0..a.dims.len()).map(|d| format!("x{d}")).collect();
            for (d, n) in names.iter().enumerate() {
                w.open(format!(
                    "for (int {n} = 0; {n} < {}; {n}++)",
                    a.dims[d].mac()
                ));
            }
            let mut flat = names[0].clone();
            for (d, n) in a.dims.iter().zip(&names).skip(1) {
                flat = format!("({flat}) * {} + {n}", d.mac());
            }
            w.line(format!(
                "{} = ({})((({flat}) * {m} + {c}) % 1001 - 500);",
                a.access(&names),
                a.elem.c()
            ));
            for _ in &names {
                w.close();
            }
        }
        w.line("");
        self.list(&mut w, 0);
        w.line("");
        self.print(&mut w);
        w.line("return 0;");
        w.close();
        w.s.replacen("@USED@", &self.used.to_string(), 1)
            .replacen("@FUNCS@\n", &self.funcs, 1)
    }

    /// A sequence of items in one scope; `enter data` items get their `exit data` in the
    /// same sequence.
    pub fn list(&mut self, w: &mut W, depth: u32) {
        let n = if depth == 0 {
            self.rng.range(3, 6)
        } else {
            self.rng.range(1, 3)
        } as usize;
        let mut forced = Vec::new();
        if depth == 0 {
            for (f, it) in [
                (Feature::Kernels, Item::Kernels),
                (Feature::Swap, Item::Swap),
                (Feature::Data, Item::Data),
                (Feature::EnterExit, Item::Enter),
                (Feature::Reduce, Item::Reduce),
                (Feature::Atomic, Item::Atomic),
                (Feature::Routine, Item::Routine),
                (Feature::Finalize, Item::Finalize),
                (Feature::IfPresent, Item::IfPresent),
            ] {
                if self.opts.has(f) {
                    forced.push(it);
                }
            }
            self.rng.shuffle(&mut forced);
        }
        let mut pending: Vec<Vec<usize>> = Vec::new();
        let mut step = 0;
        while (step < n || !forced.is_empty()) && self.regions < MAX_REGIONS {
            step += 1;
            if self.repair(w) {
                continue;
            }
            let item = if !forced.is_empty() && (self.rng.chance(40) || n <= step + forced.len()) {
                forced.pop().unwrap()
            } else {
                self.random_item(depth)
            };
            match item {
                // A plain region is sometimes the start of an async group (which costs no
                // more regions than the items it replaces: CI time).
                Item::Parallel if self.opts.has(Feature::Async) && self.rng.chance(35) => {
                    self.async_group(w)
                }
                Item::Parallel => {
                    let (cl, used) = self.parallel_region(w, None, None);
                    self.apply_compute(&cl, &used, None);
                }
                Item::Kernels => self.kernels_region(w),
                Item::HostMod => {
                    self.host_mod(w, None);
                }
                Item::Data => self.data_region(w, depth),
                Item::Enter => pending.push(self.enter_data(w)),
                Item::Swap => {
                    if !self.swap_item(w, depth) {
                        let (cl, used) = self.parallel_region(w, None, None);
                        self.apply_compute(&cl, &used, None);
                    }
                }
                Item::Param => self.param_mod(w),
                Item::Update => {
                    self.update_item(w);
                }
                Item::Reduce => self.reduce_region(w),
                Item::Atomic => self.atomic_region(w),
                // Skipped when an atomic region already called a routine (CI time).
                Item::Routine if self.used.has(Feature::Routine) => {}
                Item::Routine => self.routine_region(w),
                Item::Finalize => {
                    self.finalize_item(w);
                }
                Item::IfPresent => {
                    self.ifpresent_item(w);
                }
            }
            if !pending.is_empty() && self.rng.chance(35) {
                let k = self.rng.below(pending.len() as u64) as usize;
                let ids = pending.remove(k);
                self.exit_data(w, &ids);
            }
        }
        if depth == 0 && self.regions == 0 {
            let (cl, used) = self.parallel_region(w, None, None);
            self.apply_compute(&cl, &used, None);
        }
        for ids in pending {
            self.exit_data(w, &ids);
        }
    }

    fn random_item(&mut self, depth: u32) -> Item {
        let present = self.state.iter().any(|s| s.present());
        let o = self.opts;
        let items = [
            (Item::Parallel, 10),
            (Item::Kernels, if o.has(Feature::Kernels) { 2 } else { 0 }),
            (Item::HostMod, if present { 5 } else { 2 }),
            (
                Item::Data,
                if o.has(Feature::Data) && depth < 2 {
                    2
                } else {
                    0
                },
            ),
            (
                Item::Enter,
                if o.has(Feature::EnterExit) && depth < 3 {
                    2
                } else {
                    0
                },
            ),
            (
                Item::Swap,
                if o.has(Feature::Swap) && self.swaps < 2 && depth < 2 {
                    1
                } else {
                    0
                },
            ),
            (Item::Param, 1),
            (Item::Reduce, if o.has(Feature::Reduce) { 6 } else { 0 }),
            // Atomic and routine regions come once per program, from the forced items.
            (Item::Finalize, if o.has(Feature::Finalize) { 1 } else { 0 }),
            (Item::IfPresent, if o.has(Feature::IfPresent) { 1 } else { 0 }),
            (
                Item::Update,
                if o.has(Feature::Update) && present {
                    1
                } else {
                    0
                },
            ),
        ];
        let k = self
            .rng
            .weighted(&items.iter().map(|x| x.1).collect::<Vec<_>>());
        items[k].0
    }

    /// Half the time, overwrite an array no code may read yet (dead, or present with a
    /// stale device copy that no `update` may fix); true if it did.
    fn repair(&mut self, w: &mut W) -> bool {
        let needy: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| self.state[a].dead() || (self.state[a].present() && !self.dev_readable(a)))
            .collect();
        if needy.is_empty() || !self.rng.chance(50) {
            return false;
        }
        let a = *self.rng.pick(&needy);
        if self.state[a].present() || self.rng.chance(60) {
            self.fill_region(w, a);
        } else {
            self.host_mod(w, Some(a));
        }
        true
    }

    fn host_ctx(&self) -> Ctx {
        let mut cx = Ctx::default();
        for (a, arr) in self.arrays.iter().enumerate() {
            let ok = self.host_readable(a);
            cx.arrays.push(AInfo {
                arr: arr.clone(),
                base: 0,
                readable: ok,
                writable: true,
                prog: Some(a),
            });
        }
        cx.scalars = self.params.clone();
        cx
    }

    /// Host code that changes (part of) an array; `target` forces a full overwrite of it.
    fn host_mod(&mut self, w: &mut W, target: Option<usize>) -> bool {
        let mut cx = self.host_ctx();
        let full;
        let a = match target {
            Some(a) => {
                full = true;
                a
            }
            None => {
                let ok: Vec<usize> = (0..self.arrays.len())
                    .filter(|&a| self.host_readable(a))
                    .collect();
                let present: Vec<usize> = ok
                    .iter()
                    .copied()
                    .filter(|&a| self.state[a].present())
                    .collect();
                let pool = if !present.is_empty() && self.rng.chance(70) {
                    present
                } else {
                    ok
                };
                let Some(&a) = self.rng_pick_opt(&pool) else {
                    return false;
                };
                full = self.rng.chance(50);
                a
            }
        };
        if full {
            cx.arrays[a].readable = false;
        }
        let arr = self.arrays[a].clone();
        let mut body = W::new(w.ind);
        let mut names = Vec::new();
        for &ext in &arr.dims {
            let name = self.fresh("y");
            let n = self.sizes.of(ext);
            let (lo, hi) = if full || n < 3 {
                (0, n)
            } else {
                (self.rng.range(0, 1), n - self.rng.range(0, 1))
            };
            let hi_text = if hi == n {
                ext.mac().to_string()
            } else {
                format!("{} - 1", ext.mac())
            };
            body.open(format!(
                "for (int {name} = {lo}; {name} < {hi_text}; {name}++)"
            ));
            cx.vars.push(Var {
                name: name.clone(),
                ext: Some(ext),
                max: hi - 1,
            });
            names.push(name);
        }
        let lhs = arr.access(&names);
        let v = self.value(&mut cx, arr.elem, 3);
        let v = self.fit_store(v);
        let rhs = if !full && self.rng.chance(50) {
            let e = crate::expr::E {
                text: format!("({lhs} + {})", v.text),
                ty: arr.elem,
                bound: VMAX + v.bound,
            };
            self.fit_store(e).text
        } else {
            v.text
        };
        body.line(format!("{lhs} = {};", crate::expr::strip_par(&rhs)));
        for _ in &names {
            body.close();
        }
        let used: Vec<usize> = cx.used.keys().copied().collect();
        for u in used {
            if u != a {
                self.ensure_host(w, u);
            }
        }
        if !full {
            self.ensure_host(w, a);
        }
        w.append(&body);
        self.state[a].host_ok = true;
        if self.state[a].present() {
            self.state[a].dev_ok = false;
        }
        true
    }

    /// A host-side change of a parameter between regions.
    fn param_mod(&mut self, w: &mut W) {
        let p = self.rng.below(self.params.len() as u64) as usize;
        let name = self.params[p].name.clone();
        let (m, c) = (self.rng.range(2, 9), self.rng.range(0, 50));
        match self.params[p].elem {
            Elem::Double => w.line(format!(
                "{name} = (double)(((long){name} * {m} + {c}) % 101);"
            )),
            _ => w.line(format!("{name} = ({name} * {m} + {c}) % 101;")),
        }
    }

    /// `data copy(u, v) { for (sweeps) { parallel loop: v from u; t = u; u = v; v = t; } }`.
    /// Inside an enclosing `data` region (`depth > 0`) an odd number of sweeps is followed by
    /// a host swap back: that region releases at its exit the buffers it mapped at its entry,
    /// and a region that maps only one of `u` and `v` would otherwise leave the name that a
    /// pending `exit data` uses pointing at a buffer that is no longer present.
    fn swap_item(&mut self, w: &mut W, depth: u32) -> bool {
        let Some((u, v)) = self.pair else {
            return false;
        };
        // Equal present counts: swapping the pointers then swaps equal counts, so a pending
        // `exit data` of either name still finds its name present.
        if !self.dev_readable(u)
            || !self.dev_readable(v)
            || self.state[u].count != self.state[v].count
        {
            return false;
        }
        self.mark(Feature::Swap);
        self.swaps += 1;
        for a in [u, v] {
            self.ensure_dev(w, a);
        }
        let mut list = Vec::new();
        for a in [u, v] {
            let c = if self.state[a].present() && self.rng.chance(50) {
                Clause::Present
            } else {
                Clause::Copy
            };
            list.push((a, c));
        }
        let swapped_at_entry = self.open_data_region(w, &list);
        let sweeps = self.rng.range(1, 4);
        let sw = self.fresh("sw");
        w.open(format!("for (int {sw} = 0; {sw} < {sweeps}; {sw}++)"));
        self.outer_vars = vec![Var {
            name: sw,
            ext: None,
            max: sweeps - 1,
        }];
        let (cl, used) = self.parallel_region(w, Some(&[u, v]), Some(v));
        self.outer_vars.clear();
        w.line("t = u;");
        w.line("u = v;");
        w.line("v = t;");
        w.close();
        for _ in 0..sweeps {
            self.apply_compute(&cl, &used, None);
            self.state.swap(u, v);
            self.swapped = !self.swapped;
        }
        w.close();
        for (a, c) in self.exit_list(&list, swapped_at_entry) {
            self.exit(a, c);
        }
        if depth > 0 && self.swapped != swapped_at_entry {
            w.line("t = u;");
            w.line("u = v;");
            w.line("v = t;");
            self.state.swap(u, v);
            self.swapped = !self.swapped;
        }
        true
    }

    /// Prints every array whose value is known (row by row) and the checksum.
    fn print(&mut self, w: &mut W) {
        for a in 0..self.arrays.len() {
            let arr = self.arrays[a].clone();
            assert!(
                !self.state[a].present(),
                "{} still present at the end",
                arr.name
            );
            if !self.state[a].host_ok {
                w.line(format!(
                    "printf(\"{}: not checked (its value was discarded on the device)\\n\");",
                    arr.name
                ));
                continue;
            }
            let names: Vec<String> = (0..arr.dims.len()).map(|d| format!("z{d}")).collect();
            let put = if arr.elem == Elem::Double {
                "fz_put_d"
            } else {
                "fz_put_i"
            };
            let rows = arr.dims.len() - 1;
            let dims: String = arr.dims.iter().map(|d| format!("[{}]", d.mac())).collect();
            w.line(format!("printf(\"{}{dims}\\n\");", arr.name));
            for (d, n) in names.iter().enumerate() {
                w.open(format!(
                    "for (int {n} = 0; {n} < {}; {n}++)",
                    arr.dims[d].mac()
                ));
                if d + 1 == rows {
                    let fmt: String = names[..rows].iter().map(|_| "[%d]").collect();
                    w.line(format!("printf(\" {fmt}\", {});", names[..rows].join(", ")));
                }
            }
            w.line(format!("{put}({});", arr.access(&names)));
            w.close();
            if rows == 0 {
                w.line("printf(\"\\n\");");
            }
            for d in (0..rows).rev() {
                if d + 1 == rows {
                    w.line("printf(\"\\n\");");
                }
                w.close();
            }
        }
        w.line("printf(\"checksum %016llx\\n\", fz_hash);");
        for a in &self.arrays {
            if a.storage == Storage::Heap {
                w.line(format!("free({});", a.name));
            }
        }
    }
}
