//! Routine regions (`routine`): file-scope `#pragma acc routine seq|vector|worker` functions
//! (written before `main`, collected in `Gen::funcs`) called from partitioned loops.
//!
//! A `seq` routine computes a bounded value from its arguments (and may sum a row of a
//! program array passed as a pointer, or call an earlier `seq` routine); it is called from a
//! `loop vector`/`worker` body or from a gang body, and the caller stores the result to its
//! own element of the region's output array `long rt[NI][NX]`. A `vector` / `worker`
//! routine holds a `loop vector` / `loop worker` over one row of the output array and is
//! called once per gang iteration with that gang's row (`rt[i]`): no two calls touch the
//! same element. The output array is printed after the region.

use crate::expr::{Ctx, Var};
use crate::features::Feature;
use crate::model::{Ext, Storage};
use crate::nest::join_words;
use crate::skeleton::Gen;
use crate::writer::W;

impl Gen<'_> {
    /// One routine region (see the module doc).
    pub fn routine_region(&mut self, w: &mut W) {
        self.mark(Feature::Routine);
        let mut cx = self.read_only_device_ctx();
        let ext = *self.rng.pick(&[Ext::J, Ext::J, Ext::K]);
        let out = self.fresh("rt");
        let m = ext.mac();
        w.line(format!("long {out}[NI][{m}];"));
        w.line(format!(
            "for (int q = 0; q < NI * {m}; q++) {out}[q / {m}][q % {m}] = q % 13;"
        ));
        let seq = self.seq_routine(&mut cx);
        let kind = *self.rng.pick(&["seq", "seq", "vector", "worker"]);
        let mut body = W::new(w.ind);
        let gi = self.open_i_loop(&mut body, &mut cx);
        let mut loop_words = "gang".to_string();
        let worker;
        if kind == "seq" {
            let inner = if self.opts.has(Feature::Nest) {
                *self.rng.pick(&["", "vector", "worker", "worker vector"])
            } else {
                ""
            };
            worker = inner.contains("worker");
            if inner.is_empty() {
                if self.rng.chance(50) {
                    loop_words = "gang vector".into();
                }
                let call = self.seq_call(&mut cx, &seq);
                body.line(format!("{out}[{gi}][{gi} % {m}] = {call};"));
            } else {
                self.mark(Feature::Nest);
                let vi = self.new_var(ext);
                let vr = self.range(ext, false);
                body.line(format!("#pragma acc loop {inner}"));
                body.open(self.pheader(&vi, &vr));
                cx.vars.push(Var {
                    name: vi.clone(),
                    ext: Some(ext),
                    max: vr.hi - 1,
                });
                let call = self.seq_call(&mut cx, &seq);
                body.line(format!("{out}[{gi}][{vi}] = {call};"));
                body.close();
            }
        } else {
            worker = kind == "worker";
            let f = self.row_routine(kind, &seq);
            let s = self.bounded(&mut cx, 999, false);
            body.line(format!("{f}({out}[{gi}], {m}, {s});"));
        }
        body.close();
        let clauses = self.compute_clauses(w, &cx.used, None);
        let dc = self.clause_text(&clauses);
        let launch = self.launch_clauses(worker).join(" ");
        w.line(join_words(&[
            &format!("#pragma acc parallel loop {loop_words}"),
            &launch,
            &format!("copy({out})"),
            &dc,
        ]));
        w.append(&body);
        self.regions += 1;
        self.apply_compute(&clauses, &cx.used, None);
        let z = self.fresh("z");
        w.line(format!("printf(\"{out}\\n\");"));
        w.line(format!(
            "for (int {z} = 0; {z} < NI * {m}; {z}++) fz_put_i({out}[{z} / {m}][{z} % {m}]);"
        ));
        w.line("printf(\"\\n\");");
    }

    /// A `routine seq` function `long rsN(long a, long b[, const T *p, int n])`; returns
    /// its name and whether it takes a row pointer.
    pub(crate) fn seq_routine(&mut self, cx: &Ctx) -> (String, Option<usize>) {
        let name = self.fresh("rs");
        let rows: Vec<usize> = (0..cx.arrays.len())
            .filter(|&a| cx.arrays[a].readable && cx.arrays[a].arr.dims.len() >= 2)
            .collect();
        let row = if !rows.is_empty() && self.rng.chance(50) {
            Some(*self.rng.pick(&rows))
        } else {
            None
        };
        let mut f = W::new(0);
        f.line("#pragma acc routine seq");
        let (m1, m2) = (self.rng.range(1, 9), self.rng.range(1, 9));
        match row {
            Some(a) => {
                let t = self.arrays[a].elem.c();
                f.open(format!(
                    "static long {name}(long a, long b, const {t} *p, int n)"
                ));
                f.line(format!("long s = a % 1000 * {m1} - b % 1000;"));
                f.line(format!("for (int q = 0; q < n; q++) s += (long)p[q] % {m2};"));
            }
            None => {
                f.open(format!("static long {name}(long a, long b)"));
                f.line(format!("long s = a % 1000 * {m1} + b % 1000 * {m2};"));
            }
        }
        if let Some(prev) = self.last_seq.clone() {
            if self.rng.chance(40) {
                f.line(format!("s += {prev}(s % 1000, a % 1000);"));
            }
        }
        f.line("return s % 1000;");
        f.close();
        self.funcs.push_str(&f.s);
        if row.is_none() {
            self.last_seq = Some(name.clone());
        }
        (name, row)
    }

    /// A call of the seq routine with bounded arguments.
    pub(crate) fn seq_call(&mut self, cx: &mut Ctx, f: &(String, Option<usize>)) -> String {
        let a = self.bounded(cx, 999, false);
        let b = self.bounded(cx, 999, false);
        match f.1 {
            Some(arr) => {
                let ar = &self.arrays[arr];
                let i = cx.vars[0].name.clone();
                let n = ar.dims.last().unwrap().mac();
                let ptr = match ar.storage {
                    Storage::Heap => format!(
                        "{} + (long)({}) * {}",
                        ar.name,
                        i,
                        ar.dims[1..].iter().map(|d| d.mac()).collect::<Vec<_>>().join(" * ")
                    ),
                    Storage::Local if ar.dims.len() == 2 => format!("{}[{i}]", ar.name),
                    Storage::Local => format!("{}[{i}][0]", ar.name),
                };
                cx.note(arr, true, false);
                format!("{}({a}, {b}, {ptr}, {n})", f.0)
            }
            None => format!("{}({a}, {b})", f.0),
        }
    }

    /// A `routine vector|worker` function over one row: `void rvN(long *row, int m, long s)`.
    fn row_routine(&mut self, kind: &str, seq: &(String, Option<usize>)) -> String {
        let name = self.fresh("rv");
        let mut f = W::new(0);
        f.line(format!("#pragma acc routine {kind}"));
        f.open(format!("static void {name}(long *row, int m, long s)"));
        let k = self.rng.range(2, 9);
        if self.rng.chance(30) {
            f.line("s = s % 100 + 1;");
        }
        f.line(format!("#pragma acc loop {kind}"));
        let val = match seq.1 {
            None if self.rng.chance(50) => format!("{}(row[j], s + j)", seq.0),
            _ => format!("(row[j] * {k} + s + j) % 1000"),
        };
        f.line(format!("for (int j = 0; j < m; j++) row[j] = {val};"));
        f.close();
        self.funcs.push_str(&f.s);
        name
    }
}
