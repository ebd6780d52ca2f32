//! Compute regions: `parallel` / `parallel loop` with gang > worker > vector (and seq)
//! nests, `kernels` regions with `loop independent` nests and dependent loops, and fills.
//!
//! A region is generated body-first (into its own `W`): loop nests are planned scope by
//! scope — a partitioned loop chooses the arrays its body may write (a subset of its
//! parent's that have a dimension of the loop's extent at that depth) before its body is
//! generated, so the access rules of `expr` see every write of the loop. The construct's
//! data clauses are chosen afterwards from what the body used (`data::compute_clauses`).
//! Two gang loops in one `parallel` region never touch each other's arrays (gangs do not
//! synchronise between them).

use std::collections::{BTreeMap, BTreeSet};

use crate::data::Clause;
use crate::expr::{AInfo, Ctx, Part, Scalar, Use, Var, VMAX};
use crate::features::Feature;
use crate::model::{Array, Elem, Ext, Storage};
use crate::skeleton::Gen;
use crate::writer::W;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Parallel,
    Kernels,
}

/// Which partitioned child loops a body may still contain.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inner {
    pub worker: bool,
    pub vector: bool,
    /// `loop independent` levels left (kernels).
    pub indep: u8,
}

impl Inner {
    fn any(&self) -> bool {
        self.worker || self.vector || self.indep > 0
    }
}

/// A loop's range: `lo..hi`, maybe run downwards or with step 2.
pub(crate) struct Range {
    pub lo: i64,
    pub hi: i64,
    pub hi_text: String,
    pub down: bool,
    pub step2: bool,
}

/// Something to initialise at the top of a loop body (private variables).
enum Init {
    Scalar(usize),
    Array(usize),
}

/// A compute construct's data clauses and what its body used (applied by the caller, once
/// per execution).
pub type RegionUse = (Vec<(usize, Clause)>, BTreeMap<usize, Use>);

/// A generated loop: its directive clauses and its text (header and body).
pub struct LoopOut {
    pub clauses: String,
    pub text: W,
}

impl Gen<'_> {
    /// Context for device code: program arrays readable/writable per the data state.
    /// A device context whose program arrays the item only reads (it writes arrays of its own).
    pub fn read_only_device_ctx(&self) -> Ctx {
        let mut cx = self.device_ctx(None);
        for a in cx.arrays.iter_mut() {
            a.writable = false;
        }
        cx
    }

    pub fn device_ctx(&self, only: Option<&[usize]>) -> Ctx {
        let mut cx = Ctx::default();
        for (a, arr) in self.arrays.iter().enumerate() {
            let ok = self.dev_readable(a) && only.is_none_or(|o| o.contains(&a));
            cx.arrays.push(AInfo {
                arr: arr.clone(),
                base: 0,
                readable: ok,
                writable: ok,
                prog: Some(a),
            });
        }
        for p in &self.params {
            cx.scalars.push(Scalar {
                owner: usize::MAX,
                ..p.clone()
            });
        }
        cx.vars = self.outer_vars.clone();
        cx
    }

    pub(crate) fn range(&mut self, ext: Ext, simple: bool) -> Range {
        let n = self.sizes.of(ext);
        let shapes = self.opts.has(Feature::Shapes) && !simple;
        let (mut lo, mut hi) = (0, n);
        if shapes && n >= 2 && self.rng.chance(15) {
            if self.rng.chance(50) {
                lo = 1
            } else {
                hi = n - 1
            }
            self.mark(Feature::Shapes);
        }
        let base = if shapes && self.rng.chance(40) {
            ext.var()
        } else {
            ext.mac()
        };
        let hi_text = if hi == n {
            base.to_string()
        } else {
            format!("{base} - 1")
        };
        let down = shapes && self.rng.chance(10);
        let step2 = shapes && !down && self.rng.chance(6);
        if down || step2 {
            self.mark(Feature::Shapes);
        }
        Range {
            lo,
            hi,
            hi_text,
            down,
            step2,
        }
    }

    /// Header of a partitioned loop: in `reverse` mode it runs the same iterations in the
    /// opposite order (a race-free loop gives the same result; `accfuzz gen --reverse`).
    pub(crate) fn pheader(&self, name: &str, r: &Range) -> String {
        if !self.reverse {
            return Self::header(name, r);
        }
        if r.step2 {
            let start = r.lo + (r.hi - 1 - r.lo) / 2 * 2;
            format!(
                "for (int {name} = {start}; {name} >= {}; {name} -= 2)",
                r.lo
            )
        } else if r.down {
            format!(
                "for (int {name} = {}; {name} < {}; {name}++)",
                r.lo, r.hi_text
            )
        } else {
            format!(
                "for (int {name} = {} - 1; {name} >= {}; {name}--)",
                r.hi_text, r.lo
            )
        }
    }

    pub(crate) fn header(name: &str, r: &Range) -> String {
        if r.down {
            format!(
                "for (int {name} = {} - 1; {name} >= {}; {name}--)",
                r.hi_text, r.lo
            )
        } else if r.step2 {
            format!(
                "for (int {name} = {}; {name} < {}; {name} += 2)",
                r.lo, r.hi_text
            )
        } else {
            format!(
                "for (int {name} = {}; {name} < {}; {name}++)",
                r.lo, r.hi_text
            )
        }
    }

    pub(crate) fn new_var(&mut self, ext: Ext) -> String {
        self.fresh(ext.letter())
    }

    /// Opens in `body` a loop over dimension I (an item's gang loop; its directive written
    /// by the caller before) and lets the expressions of `cx` use its variable; returns it.
    pub(crate) fn open_i_loop(&mut self, body: &mut crate::writer::W, cx: &mut crate::expr::Ctx) -> String {
        let gi = self.new_var(Ext::I);
        let gr = self.range(Ext::I, false);
        body.open(self.pheader(&gi, &gr));
        cx.vars.push(crate::expr::Var { name: gi.clone(), ext: Some(Ext::I), max: gr.hi - 1 });
        gi
    }

    pub(crate) fn launch_clauses(&mut self, worker: bool) -> Vec<String> {
        let mut v = Vec::new();
        if !self.opts.has(Feature::Launch) {
            return v;
        }
        if self.rng.chance(40) {
            v.push(format!(
                "num_gangs({})",
                self.rng.pick(&[1, 2, 3, 5, 7, 13, 33, 64])
            ));
        }
        if worker && self.rng.chance(50) || self.rng.chance(10) {
            v.push(format!("num_workers({})", self.rng.pick(&[1, 2, 3, 4, 7])));
        }
        if self.rng.chance(40) {
            v.push(format!(
                "vector_length({})",
                self.rng.pick(&[1, 7, 32, 33, 64, 96, 128])
            ));
        }
        if !v.is_empty() {
            self.mark(Feature::Launch);
        }
        v
    }

    /// `firstprivate(c0, ...)` for parameters the text uses.
    fn firstprivate(&mut self, text: &str) -> Option<String> {
        if !self.opts.has(Feature::FirstPrivate) || !self.rng.chance(60) {
            return None;
        }
        let used: Vec<String> = self
            .params
            .iter()
            .map(|p| p.name.clone())
            .filter(|n| uses_name(text, n))
            .collect();
        if used.is_empty() {
            return None;
        }
        self.mark(Feature::FirstPrivate);
        Some(format!("firstprivate({})", used.join(", ")))
    }

    /// Arrays a gang loop may write: alive on the device, dimension 0 is `I`.
    fn gang_candidates(&self, cx: &Ctx) -> Vec<usize> {
        (0..self.arrays.len())
            .filter(|&a| cx.arrays[a].writable && cx.arrays[a].arr.dims[0] == Ext::I)
            .collect()
    }

    fn plan(&mut self, cands: &mut Vec<usize>, lo: usize, hi: usize) -> BTreeSet<usize> {
        self.rng.shuffle(cands);
        let n = (self.rng.range(lo as i64, hi as i64) as usize).min(cands.len());
        cands.drain(..n).collect()
    }

    /// A `parallel` region. `only` restricts the arrays it may use; `must_write` is planned
    /// into the first gang loop's writes (and is the only array written when `only` is set).
    pub fn parallel_region(
        &mut self,
        w: &mut W,
        only: Option<&[usize]>,
        must_write: Option<usize>,
    ) -> RegionUse {
        let mut cx = self.device_ctx(only);
        if let (Some(_), Some(mw)) = (only, must_write) {
            for a in 0..self.arrays.len() {
                cx.arrays[a].writable = a == mw;
            }
        }
        let combined = self.rng.chance(50);
        let ind = w.ind;
        let mut decls = Vec::new();
        let mut cands = self.gang_candidates(&cx);
        if let Some(mw) = must_write {
            cands.retain(|&a| a != mw);
        }
        let mut plans = vec![self.plan(&mut cands, 2, 4)];
        if let Some(mw) = must_write {
            plans[0].insert(mw);
        }
        if !combined && self.rng.chance(20) && !cands.is_empty() {
            plans.push(self.plan(&mut cands, 1, 2));
        }
        let mut body = W::new(if combined { ind } else { ind + 1 });
        if !combined && self.rng.chance(40) {
            // Every gang runs this code, in no order relative to the other gangs' loops:
            // it must not read what any gang loop of the region writes (a race).
            let readable: Vec<bool> = cx.arrays.iter().map(|a| a.readable).collect();
            for &a in plans.iter().flatten() {
                cx.arrays[a].readable = false;
            }
            cx.redundant = true;
            let n = self.rng.range(1, 2);
            for _ in 0..n {
                let line = self.scalar_decl(&mut cx);
                body.line(line);
            }
            cx.redundant = false;
            for (a, r) in cx.arrays.iter_mut().zip(readable) {
                a.readable = r;
            }
        }
        let mut loop_clauses = String::new();
        let mut any_worker = false;
        for g in 0..plans.len() {
            let saved: Vec<(bool, bool)> =
                cx.arrays.iter().map(|a| (a.readable, a.writable)).collect();
            for (h, other) in plans.iter().enumerate() {
                if h != g {
                    for &a in other {
                        cx.arrays[a].readable = false;
                        cx.arrays[a].writable = false;
                    }
                }
            }
            let lo = self.gang_loop(
                &mut cx,
                body.ind,
                plans[g].clone(),
                Mode::Parallel,
                &mut decls,
            );
            any_worker |= lo.clauses.contains("worker") || lo.text.s.contains("loop worker");
            for (a, s) in saved.into_iter().enumerate() {
                cx.arrays[a].readable = s.0;
                cx.arrays[a].writable = s.1;
            }
            if combined {
                loop_clauses = lo.clauses;
            } else {
                body.line(format!("#pragma acc loop {}", lo.clauses).trim_end());
            }
            body.append(&lo.text);
        }
        for d in decls {
            w.line(d);
        }
        let clauses = self.compute_clauses(w, &cx.used, None);
        let mut all = self.launch_clauses(any_worker);
        all.extend(self.firstprivate(&body.s));
        let dc = self.clause_text(&clauses);
        if !dc.is_empty() {
            all.push(dc);
        }
        let tail = all.join(" ");
        emit_construct(w, "parallel", combined, &loop_clauses, &tail, &body);
        self.regions += 1;
        (clauses, cx.used)
    }

    /// A `kernels` region (or `kernels loop`).
    pub fn kernels_region(&mut self, w: &mut W) {
        self.mark(Feature::Kernels);
        let mut cx = self.device_ctx(None);
        let ind = w.ind;
        let mut decls = Vec::new();
        let combined = self.rng.chance(25);
        let mut body = W::new(if combined { ind } else { ind + 1 });
        let mut loop_clauses = String::new();
        if combined {
            let mut cands = self.gang_candidates(&cx);
            let plan = self.plan(&mut cands, 1, 3);
            let lo = self.gang_loop(&mut cx, ind, plan, Mode::Kernels, &mut decls);
            loop_clauses = lo.clauses;
            body.append(&lo.text);
        } else {
            let n = self.rng.range(2, 4);
            let mut nests = 0;
            for it in 0..n {
                let k = if it == n - 1 && nests == 0 {
                    0
                } else {
                    self.rng.weighted(&[5, 2, 2, 2])
                };
                match k {
                    0 => {
                        let mut cands = self.gang_candidates(&cx);
                        if cands.is_empty() {
                            continue;
                        }
                        let plan = self.plan(&mut cands, 1, 2);
                        let lo = self.gang_loop(&mut cx, body.ind, plan, Mode::Kernels, &mut decls);
                        body.line(format!("#pragma acc loop {}", lo.clauses));
                        body.append(&lo.text);
                        nests += 1;
                    }
                    1 => {
                        let writable: Vec<usize> = (0..self.arrays.len())
                            .filter(|&a| cx.can_write(a))
                            .collect();
                        if let Some(&a) = self.rng_pick_opt(&writable) {
                            let s = self.store(&mut cx, a);
                            body.line(s);
                        }
                    }
                    2 => {
                        let line = self.scalar_decl(&mut cx);
                        body.line(line);
                    }
                    _ => {
                        self.scan(&mut cx, &mut body, Mode::Kernels, true);
                    }
                }
            }
        }
        for d in decls {
            w.line(d);
        }
        let clauses = self.compute_clauses(w, &cx.used, None);
        let dc = self.clause_text(&clauses);
        emit_construct(w, "kernels", combined, &loop_clauses, &dc, &body);
        self.regions += 1;
        self.apply_compute(&clauses, &cx.used, None);
    }

    /// A region that overwrites every element of `target` without reading it.
    pub fn fill_region(&mut self, w: &mut W, target: usize) {
        let mut cx = self.device_ctx(None);
        cx.arrays[target].readable = false;
        cx.arrays[target].writable = true;
        for a in 0..self.arrays.len() {
            if a != target {
                cx.arrays[a].writable = false;
            }
        }
        let dims = self.arrays[target].dims.clone();
        let nest = self.opts.has(Feature::Nest);
        let collapse = dims.len() >= 2 && self.opts.has(Feature::Collapse) && self.rng.chance(25);
        let ind = w.ind;
        let mut text = W::new(ind);
        let mut names = Vec::new();
        let levels: Vec<Option<&str>> = match (dims.len(), nest) {
            (1, _) => vec![Some("gang vector")],
            (2, true) => vec![Some("gang"), Some("vector")],
            (3, true) => vec![Some("gang"), Some("worker"), Some("vector")],
            (_, false) => vec![Some("gang"), None, None],
            _ => unreachable!(),
        };
        let head = if collapse {
            let lv = if self.rng.chance(50) { "gang" } else { "gang vector" };
            // The same tightly nested loops tiled instead (the rng is asked only with `tile`
            // on, so other feature sets generate what they did before).
            if self.opts.has(Feature::Tile) && self.rng.chance(50) {
                self.mark(Feature::Tile);
                format!("{lv} {}", self.tile_clause(dims.len()))
            } else {
                self.mark(Feature::Collapse);
                format!("{lv} collapse({})", dims.len())
            }
        } else {
            levels[0].unwrap().to_string()
        };
        for (d, &ext) in dims.iter().enumerate() {
            let name = self.new_var(ext);
            if d > 0 && !collapse {
                if let Some(lv) = levels[d] {
                    text.line(format!("#pragma acc loop {lv}"));
                    self.mark(Feature::Nest);
                }
            }
            let r = Range {
                lo: 0,
                hi: self.sizes.of(ext),
                hi_text: ext.mac().to_string(),
                down: false,
                step2: false,
            };
            if collapse && d + 1 < dims.len() {
                text.line(self.pheader(&name, &r));
                text.ind += 1;
            } else {
                text.open(self.pheader(&name, &r));
            }
            // Every dimension is a scope writing only the target (sequential ones too).
            cx.part.push(Part {
                var: name.clone(),
                ext,
                writes: [target].into(),
            });
            cx.vars.push(Var {
                name: name.clone(),
                ext: Some(ext),
                max: r.hi - 1,
            });
            names.push(name);
        }
        if self.rng.chance(40) {
            let l = self.scalar_decl(&mut cx);
            text.line(l);
        }
        let ty = self.arrays[target].elem;
        let v = self.value(&mut cx, ty, 3);
        let v = self.fit_store(v);
        let lhs = self.arrays[target].access(&names);
        text.line(format!("{lhs} = {};", crate::expr::strip_par(&v.text)));
        cx.note(target, false, true);
        if collapse {
            text.close();
            text.ind -= dims.len() - 1;
        } else {
            for _ in &dims {
                text.close();
            }
        }
        let clauses = self.compute_clauses(w, &cx.used, Some(target));
        let mut all = self.launch_clauses(dims.len() == 3);
        let dc = self.clause_text(&clauses);
        if !dc.is_empty() {
            all.push(dc);
        }
        w.line(join_words(&[
            "#pragma acc parallel loop",
            &head,
            &all.join(" "),
        ]));
        w.append(&text);
        self.regions += 1;
        self.apply_compute(&clauses, &cx.used, Some(target));
    }

    /// `tile(s1, ..., sn)` for n tightly nested loops: sizes that divide the extents or not,
    /// larger than them or not, and `*`.
    fn tile_clause(&mut self, n: usize) -> String {
        const SIZES: [&str; 9] = ["*", "1", "2", "3", "4", "5", "8", "16", "32"];
        let sizes: Vec<&str> = (0..n).map(|_| *self.rng.pick(&SIZES)).collect();
        format!("tile({})", sizes.join(", "))
    }

    /// The outermost loop of a nest (gang level in `parallel`, `independent` in `kernels`).
    pub fn gang_loop(
        &mut self,
        cx: &mut Ctx,
        ind: usize,
        plan: BTreeSet<usize>,
        mode: Mode,
        decls: &mut Vec<String>,
    ) -> LoopOut {
        let nest = self.opts.has(Feature::Nest);
        let mut inner = Inner::default();
        let mut lv;
        match mode {
            Mode::Parallel => {
                let k = if nest {
                    self.rng.weighted(&[60, 15, 10, 4, 11])
                } else {
                    2 + self.rng.weighted(&[10, 3, 10])
                };
                lv = [
                    "gang",
                    "gang worker",
                    "gang vector",
                    "gang worker vector",
                    "",
                ][k]
                    .to_string();
                if nest {
                    inner.worker = k == 0;
                    inner.vector = k <= 1;
                }
            }
            Mode::Kernels => {
                lv = "independent".to_string();
                if nest {
                    inner.indep = 2;
                }
            }
        }
        let mut exts = vec![Ext::I];
        if self.opts.has(Feature::Collapse)
            && self.rng.chance(20)
            && (mode == Mode::Kernels || !lv.is_empty())
        {
            let has3 = plan.iter().any(|&a| cx.arrays[a].arr.dims.len() == 3);
            if has3 && self.rng.chance(60) {
                exts.push(Ext::K);
                inner.worker = false;
                inner.indep = inner.indep.min(1);
            } else {
                exts.push(*self.rng.pick(&[Ext::J, Ext::K]));
                inner = Inner::default();
            }
            // The two tightly nested loops tiled instead (asked only with `tile` on).
            if self.opts.has(Feature::Tile) && self.rng.chance(40) {
                self.mark(Feature::Tile);
                lv = format!("{lv} {}", self.tile_clause(2)).trim().to_string();
            } else {
                lv = format!("{lv} collapse(2)").trim().to_string();
                self.mark(Feature::Collapse);
            }
        }
        let save = (cx.scalars.len(), cx.vars.len(), cx.arrays.len());
        let mut text = W::new(ind);
        let mut writes = plan;
        let mut inits = Vec::new();
        let mut privs = Vec::new();
        for (n, &ext) in exts.iter().enumerate() {
            let name = self.new_var(ext);
            let r = self.range(ext, exts.len() > 1);
            if n > 0 {
                writes.retain(|&a| cx.eligible(a, ext));
            }
            cx.part.push(Part {
                var: name.clone(),
                ext,
                writes: writes.clone(),
            });
            cx.vars.push(Var {
                name: name.clone(),
                ext: Some(ext),
                max: r.hi - 1,
            });
            if n + 1 == exts.len() {
                text.open(self.pheader(&name, &r));
            } else {
                text.line(self.pheader(&name, &r));
                text.ind += 1;
            }
        }
        // Initialising private variables above inner loops is single code.
        let single_ok = !inner.any() || self.opts.has(Feature::Single);
        if mode == Mode::Parallel
            && single_ok
            && self.opts.has(Feature::Private)
            && self.rng.chance(35)
        {
            self.private_vars(cx, &mut privs, &mut inits, decls, true);
        }
        let b = self.body(cx, text.ind, inner, mode, inits);
        text.append(&b);
        text.close();
        text.ind -= exts.len() - 1;
        for _ in &exts {
            cx.part.pop();
        }
        cx.scalars.truncate(save.0);
        cx.vars.truncate(save.1);
        cx.arrays.truncate(save.2);
        if !privs.is_empty() {
            lv = join_words(&[&lv, &format!("private({})", privs.join(", "))]);
        }
        LoopOut { clauses: lv, text }
    }

    /// Declares private variables of a loop (in `decls`: before the construct when
    /// `outside`, else in the enclosing loop body; named in its `private(...)`); each is
    /// assigned / filled at the top of the loop body.
    fn private_vars(
        &mut self,
        cx: &mut Ctx,
        privs: &mut Vec<String>,
        inits: &mut Vec<Init>,
        decls: &mut Vec<String>,
        outside: bool,
    ) {
        self.mark(Feature::Private);
        let depth = cx.part.len();
        if self.rng.chance(60) {
            let name = self.fresh("ps");
            let elem = *self.rng.pick(&[Elem::Int, Elem::Long, Elem::Double]);
            decls.push(format!("{} {name};", elem.c()));
            privs.push(name.clone());
            cx.scalars.push(Scalar {
                name,
                elem,
                bound: VMAX,
                owner: depth,
                ready: false,
            });
            inits.push(Init::Scalar(cx.scalars.len() - 1));
        }
        if privs.is_empty() || self.rng.chance(50) {
            let name = self.fresh("pa");
            let elem = *self.rng.pick(&[Elem::Int, Elem::Long, Elem::Double]);
            if outside && self.rng.chance(35) {
                // A section of a pointer (allocated on the host, before the construct): the clause privatises the memory it points to
                // (each gang, worker or thread its copy in the launch's private area).
                decls.push(format!("{0} *{name} = ({0} *)malloc(sizeof({0}) * NP);", elem.c()));
                privs.push(format!("{name}[0:NP]"));
            } else {
                decls.push(format!("{} {name}[NP];", elem.c()));
                privs.push(name.clone());
            }
            let arr = Array {
                name,
                elem,
                storage: Storage::Local,
                dims: vec![Ext::P],
            };
            cx.arrays.push(AInfo {
                arr,
                base: depth,
                readable: false,
                writable: true,
                prog: None,
            });
            inits.push(Init::Array(cx.arrays.len() - 1));
        }
    }

    /// A loop body: single statements, child loops, seq loops.
    fn body(&mut self, cx: &mut Ctx, ind: usize, inner: Inner, mode: Mode, inits: Vec<Init>) -> W {
        let mut w = W::new(ind);
        let save = (cx.scalars.len(), cx.vars.len(), cx.arrays.len());
        let has_inner = inner.any();
        // In-body private array (implicitly private): declared here, filled first.
        let mut inits = inits;
        if self.opts.has(Feature::Private)
            && (!has_inner || self.opts.has(Feature::Single))
            && self.rng.chance(12)
        {
            self.mark(Feature::Private);
            let name = self.fresh("pb");
            let elem = *self.rng.pick(&[Elem::Int, Elem::Long, Elem::Double]);
            w.line(format!("{} {name}[NP];", elem.c()));
            let arr = Array {
                name,
                elem,
                storage: Storage::Local,
                dims: vec![Ext::P],
            };
            cx.arrays.push(AInfo {
                arr,
                base: cx.part.len(),
                readable: false,
                writable: true,
                prog: None,
            });
            inits.push(Init::Array(cx.arrays.len() - 1));
        }
        for init in inits {
            match init {
                Init::Scalar(s) => {
                    let ty = cx.scalars[s].elem;
                    let v = self.value(cx, ty, 2);
                    let v = self.fit_store(v);
                    w.line(format!(
                        "{} = {};",
                        cx.scalars[s].name,
                        crate::expr::strip_par(&v.text)
                    ));
                    cx.scalars[s].ready = true;
                }
                Init::Array(a) => self.fill_private(cx, &mut w, a, inner, mode),
            }
        }
        let single_ok = !has_inner || self.opts.has(Feature::Single);
        let n = if has_inner {
            self.rng.range(1, 4)
        } else {
            self.rng.range(1, 3)
        };
        let mut child = false;
        let mut stored = false;
        for _ in 0..n {
            let k = self.rng.weighted(&[
                if has_inner { 6 } else { 0 },
                if single_ok { 2 } else { 0 },
                if single_ok { 4 } else { 0 },
                if single_ok { 1 } else { 0 },
                if single_ok { 1 } else { 0 },
                if has_inner { 1 } else { 0 },
                1,
                if single_ok { 1 } else { 0 },
            ]);
            if has_inner && [1, 2, 3, 4, 7].contains(&k) {
                self.mark(Feature::Single);
            }
            match k {
                0 => {
                    if let Some(c) = self.child(cx, ind, inner, mode) {
                        w.append(&c);
                        child = true;
                    }
                }
                1 => {
                    let l = self.scalar_decl(cx);
                    w.line(l);
                }
                2 => stored |= self.store_any(cx, &mut w),
                3 => stored |= self.seq_acc(cx, &mut w),
                4 => stored |= self.scan(cx, &mut w, mode, false),
                5 => {
                    // A seq loop around more of the same body (children inside).
                    let ext = *self.rng.pick(&[Ext::K, Ext::P]);
                    let name = self.fresh("q");
                    if self.rng.chance(60) {
                        w.line("#pragma acc loop seq");
                    }
                    w.open(format!(
                        "for (int {name} = 0; {name} < {}; {name}++)",
                        ext.mac()
                    ));
                    cx.vars.push(Var {
                        name,
                        ext: Some(ext),
                        max: self.sizes.of(ext) - 1,
                    });
                    let b = self.body(cx, w.ind, inner, mode, Vec::new());
                    cx.vars.pop();
                    w.append(&b);
                    w.close();
                    child = true;
                }
                6 => {
                    let c = self.cond(cx, 1);
                    w.open(format!("if {c}"));
                    let b = self.body(cx, w.ind, inner, mode, Vec::new());
                    w.append(&b);
                    w.close();
                    child = true;
                    stored = true;
                }
                _ => {
                    // Update a scalar of this level.
                    let mine: Vec<usize> = (0..cx.scalars.len())
                        .filter(|&s| cx.scalars[s].owner == cx.part.len() && cx.scalars[s].ready)
                        .collect();
                    if let Some(&s) = self.rng_pick_opt(&mine) {
                        let sc = cx.scalars[s].clone();
                        let v = self.value(cx, sc.elem, 2);
                        let v = self.wrap(v);
                        let cur = crate::expr::E {
                            text: sc.name.clone(),
                            ty: sc.elem,
                            bound: sc.bound,
                        };
                        let cur = if cur.bound > 1 << 20 {
                            self.wrap(cur)
                        } else {
                            cur
                        };
                        let m = self.rng.range(2, 5);
                        let e = crate::expr::E {
                            text: format!("({} * {} + {})", cur.text, sc.elem.lit(m), v.text),
                            ty: sc.elem,
                            bound: cur.bound * m + v.bound,
                        };
                        let e = self.wrap(e);
                        w.line(format!(
                            "{} = {};",
                            sc.name,
                            crate::expr::strip_par(&e.text)
                        ));
                        cx.scalars[s].bound = sc.bound.max(e.bound);
                    }
                }
            }
        }
        if has_inner && !child {
            if let Some(c) = self.child(cx, ind, inner, mode) {
                w.append(&c);
                stored = true;
            }
        }
        if !stored && !child && single_ok {
            self.store_any(cx, &mut w);
        }
        cx.scalars.truncate(save.0);
        cx.vars.truncate(save.1);
        cx.arrays.truncate(save.2);
        w
    }

    /// Fills a private array fully (by a vector loop or sequentially), then makes it readable.
    fn fill_private(&mut self, cx: &mut Ctx, w: &mut W, a: usize, inner: Inner, mode: Mode) {
        let name = self.fresh("x");
        let by_vector = mode == Mode::Parallel
            && inner.vector
            && self.opts.has(Feature::Comm)
            && self.rng.chance(60);
        if by_vector {
            w.line("#pragma acc loop vector");
            cx.part.push(Part {
                var: name.clone(),
                ext: Ext::P,
                writes: [a].into(),
            });
        } else if inner.any() {
            self.mark(Feature::Single);
        }
        let r = Range {
            lo: 0,
            hi: self.sizes.p,
            hi_text: "NP".into(),
            down: false,
            step2: false,
        };
        let h = if by_vector {
            self.pheader(&name, &r)
        } else {
            Self::header(&name, &r)
        };
        w.open(h);
        cx.vars.push(Var {
            name: name.clone(),
            ext: Some(Ext::P),
            max: self.sizes.p - 1,
        });
        let ty = cx.arrays[a].arr.elem;
        let v = self.value(cx, ty, 2);
        let v = self.fit_store(v);
        let idx = name.clone();
        w.line(format!(
            "{} = {};",
            cx.arrays[a].arr.access(&[idx]),
            crate::expr::strip_par(&v.text)
        ));
        cx.vars.pop();
        if by_vector {
            cx.part.pop();
            cx.recent.push(a);
        }
        w.close();
        cx.arrays[a].readable = true;
    }

    /// A partitioned child loop (worker / vector / worker vector / independent).
    fn child(&mut self, cx: &mut Ctx, ind: usize, inner: Inner, mode: Mode) -> Option<W> {
        // (pragma, extents, next inner)
        let mut opts: Vec<(String, usize, Inner)> = Vec::new();
        match mode {
            Mode::Kernels => {
                if inner.indep > 0 {
                    opts.push((
                        "independent".into(),
                        1,
                        Inner {
                            indep: inner.indep - 1,
                            ..Inner::default()
                        },
                    ));
                }
            }
            Mode::Parallel => {
                if inner.worker {
                    opts.push((
                        "worker".into(),
                        1,
                        Inner {
                            vector: inner.vector,
                            ..Inner::default()
                        },
                    ));
                    opts.push((
                        "worker".into(),
                        1,
                        Inner {
                            vector: inner.vector,
                            ..Inner::default()
                        },
                    ));
                    if inner.vector {
                        opts.push(("worker vector".into(), 1, Inner::default()));
                    }
                }
                if inner.vector {
                    opts.push(("vector".into(), 1, Inner::default()));
                    opts.push(("vector".into(), 1, Inner::default()));
                    if self.opts.has(Feature::Collapse) {
                        opts.push(("vector collapse(2)".into(), 2, Inner::default()));
                    }
                }
            }
        }
        if opts.is_empty() {
            return None;
        }
        let (mut lv, nloops, next) = self.rng.pick(&opts).clone();
        // Extents with something to write.
        let all: Vec<usize> = (0..cx.arrays.len()).collect();
        let exts: Vec<Vec<Ext>> = if nloops == 2 {
            vec![vec![Ext::K, Ext::J]]
        } else {
            [Ext::J, Ext::K, Ext::P].iter().map(|&e| vec![e]).collect()
        };
        let mut viable: Vec<(Vec<Ext>, Vec<usize>)> = Vec::new();
        for ex in exts {
            let first: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&a| cx.eligible(a, ex[0]))
                .collect();
            let ok: Vec<usize> = if ex.len() == 2 {
                first
                    .into_iter()
                    .filter(|&a| {
                        let ai = &cx.arrays[a];
                        let d = cx.part.len() + 1 - ai.base;
                        d < ai.arr.dims.len() && ai.arr.dims[d] == ex[1]
                    })
                    .collect()
            } else {
                first
            };
            if !ok.is_empty() {
                viable.push((ex, ok));
            }
        }
        if viable.is_empty() {
            return None;
        }
        let (ex, mut cands) = self.rng.pick(&viable).clone();
        let writes = self.plan(&mut cands, 1, 2);
        if nloops == 2 {
            self.mark(Feature::Collapse);
        }
        self.mark(Feature::Nest);
        let mut w = W::new(ind);
        let save = (cx.scalars.len(), cx.vars.len(), cx.arrays.len());
        let mut inits = Vec::new();
        let mut privs = Vec::new();
        let mut decls = Vec::new();
        let mut headers = Vec::new();
        for &e in &ex {
            let name = self.new_var(e);
            let r = self.range(e, nloops > 1);
            cx.part.push(Part {
                var: name.clone(),
                ext: e,
                writes: writes.clone(),
            });
            cx.vars.push(Var {
                name: name.clone(),
                ext: Some(e),
                max: r.hi - 1,
            });
            headers.push(self.pheader(&name, &r));
        }
        if mode == Mode::Parallel
            && lv.contains("vector")
            && self.opts.has(Feature::Private)
            && self.rng.chance(20)
        {
            self.private_vars(cx, &mut privs, &mut inits, &mut decls, false);
        }
        if !privs.is_empty() {
            // Private variables of an inner loop are declared at the top of the enclosing
            // body (still outside the loop, so the clause is what makes them private).
            for d in &decls {
                w.line(d);
            }
            lv = format!("{lv} private({})", privs.join(", "));
        }
        w.line(format!("#pragma acc loop {lv}"));
        let last = headers.len() - 1;
        for (n, h) in headers.iter().enumerate() {
            if n == last {
                w.open(h);
            } else {
                w.line(h);
                w.ind += 1;
            }
        }
        let b = self.body(cx, w.ind, next, mode, inits);
        w.append(&b);
        w.close();
        w.ind -= last;
        for _ in &ex {
            cx.part.pop();
        }
        cx.scalars.truncate(save.0);
        cx.vars.truncate(save.1);
        cx.arrays.truncate(save.2);
        cx.recent.extend(writes.iter().copied());
        Some(w)
    }

    /// `T sN = value;` at the current level.
    pub fn scalar_decl(&mut self, cx: &mut Ctx) -> String {
        let elem = *self
            .rng
            .pick(&[Elem::Int, Elem::Long, Elem::Long, Elem::Double]);
        let v = self.value(cx, elem, 3);
        let name = self.fresh("s");
        let line = format!("{} {name} = {};", elem.c(), crate::expr::strip_par(&v.text));
        cx.scalars.push(Scalar {
            name,
            elem,
            bound: v.bound,
            owner: cx.part.len(),
            ready: true,
        });
        line
    }

    /// A store to some array writable here; false if there is none.
    fn store_any(&mut self, cx: &mut Ctx, w: &mut W) -> bool {
        let writable: Vec<usize> = (0..cx.arrays.len()).filter(|&a| cx.can_write(a)).collect();
        // Prefer arrays the innermost loop owns (its own elements).
        let own: Vec<usize> = match cx.part.last() {
            Some(p) => writable
                .iter()
                .copied()
                .filter(|a| p.writes.contains(a))
                .collect(),
            None => Vec::new(),
        };
        let pool = if !own.is_empty() && self.rng.chance(70) {
            own
        } else {
            writable
        };
        match self.rng_pick_opt(&pool) {
            Some(&a) => {
                let s = self.store(cx, a);
                w.line(s);
                true
            }
            None => false,
        }
    }

    /// `acc = v; for (q ...) acc = (acc * 3 + e) % 1000;` then maybe a store of it.
    fn seq_acc(&mut self, cx: &mut Ctx, w: &mut W) -> bool {
        let elem = *self.rng.pick(&[Elem::Int, Elem::Long, Elem::Double]);
        let name = self.fresh("acc");
        let init = self.value(cx, elem, 1);
        let init = self.fit_store(init);
        w.line(format!(
            "{} {name} = {};",
            elem.c(),
            crate::expr::strip_par(&init.text)
        ));
        let ext = *self.rng.pick(&[Ext::J, Ext::K, Ext::P]);
        let q = self.fresh("q");
        if self.rng.chance(50) {
            w.line("#pragma acc loop seq");
        }
        w.open(format!("for (int {q} = 0; {q} < {}; {q}++)", ext.mac()));
        cx.vars.push(Var {
            name: q,
            ext: Some(ext),
            max: self.sizes.of(ext) - 1,
        });
        let e = self.value(cx, elem, 2);
        let e = self.fit_store(e);
        let sum = crate::expr::E {
            text: format!("({name} * {} + {})", elem.lit(3), e.text),
            ty: elem,
            bound: VMAX * 3 + e.bound,
        };
        let sum = self.wrap(sum);
        w.line(format!("{name} = {};", crate::expr::strip_par(&sum.text)));
        cx.vars.pop();
        w.close();
        cx.scalars.push(Scalar {
            name,
            elem,
            bound: VMAX,
            owner: cx.part.len(),
            ready: true,
        });
        self.store_any(cx, w)
    }

    /// A dependent loop: `x[..][q] = (x[..][q] + x[..][q - 1] * c) % 1000` over the first
    /// dimension this level owns sequentially. `top`: directly in a kernels region (a
    /// `loop` without `independent`).
    pub fn scan(&mut self, cx: &mut Ctx, w: &mut W, mode: Mode, top: bool) -> bool {
        let depth = cx.part.len();
        let cands: Vec<usize> = (0..cx.arrays.len())
            .filter(|&a| {
                let ai = &cx.arrays[a];
                cx.can_write(a) && cx.arrays[a].readable && depth >= ai.base && {
                    let d = depth - ai.base;
                    d < ai.arr.dims.len() && self.sizes.of(ai.arr.dims[d]) >= 2
                }
            })
            .collect();
        let Some(&a) = self.rng_pick_opt(&cands) else {
            return false;
        };
        let ai = cx.arrays[a].clone();
        let d = depth - ai.base;
        let ext = ai.arr.dims[d];
        let q = self.fresh("q");
        let mut idx = Vec::new();
        for (e, &x) in ai.arr.dims.iter().enumerate() {
            if e < d {
                idx.push(cx.part[ai.base + e].var.clone());
            } else if e == d {
                idx.push(q.clone());
            } else {
                idx.push(self.rng.range(0, self.sizes.of(x) - 1).to_string());
            }
        }
        let mut prev = idx.clone();
        prev[d] = format!("{q} - 1");
        let cur = ai.arr.access(&idx);
        let before = ai.arr.access(&prev);
        if top && mode == Mode::Kernels {
            w.line(*self.rng.pick(&[
                "#pragma acc loop",
                "#pragma acc loop",
                "#pragma acc loop seq",
            ]));
        } else if self.rng.chance(40) {
            w.line("#pragma acc loop seq");
        }
        w.open(format!("for (int {q} = 1; {q} < {}; {q}++)", ext.mac()));
        let c = self.rng.range(1, 3);
        let ty = ai.arr.elem;
        let e = crate::expr::E {
            text: format!("({cur} + {before} * {})", ty.lit(c)),
            ty,
            bound: VMAX * (c + 1),
        };
        let e = self.wrap(e);
        w.line(format!("{cur} = {};", crate::expr::strip_par(&e.text)));
        w.close();
        cx.note(a, true, true);
        true
    }

    pub fn rng_pick_opt<'a, T>(&mut self, xs: &'a [T]) -> Option<&'a T> {
        if xs.is_empty() {
            None
        } else {
            Some(self.rng.pick(xs))
        }
    }
}

/// Does `text` use the identifier `name`?
pub fn uses_name(text: &str, name: &str) -> bool {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(p) = text[from..].find(name) {
        let s = from + p;
        let e = s + name.len();
        if (s == 0 || !ident(b[s - 1])) && (e == b.len() || !ident(b[e])) {
            return true;
        }
        from = s + 1;
    }
    false
}

/// `#pragma acc NAME loop LOOP CLAUSES` + the loop, or `#pragma acc NAME CLAUSES { body }`.
pub(crate) fn emit_construct(w: &mut W, name: &str, combined: bool, loop_clauses: &str, clauses: &str, body: &W) {
    if combined {
        w.line(join_words(&[&format!("#pragma acc {name} loop"), loop_clauses, clauses]));
        w.append(body);
    } else {
        w.line(join_words(&[&format!("#pragma acc {name}"), clauses]));
        w.line("{");
        w.append(body);
        w.line("}");
    }
}

pub(crate) fn join_words(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn name_use_is_whole_word() {
        assert!(uses_name("x = c0 + 1;", "c0"));
        assert!(!uses_name("x = c01 + ac0;", "c0"));
        assert!(uses_name("c0", "c0"));
        assert_eq!(
            join_words(&["#pragma acc parallel loop", "", " gang ", "copy(a)"]),
            "#pragma acc parallel loop gang copy(a)"
        );
    }
}
