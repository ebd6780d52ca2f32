//! Atomic regions (`atomic`): `#pragma acc atomic update|read|write|capture` in every form
//! of OpenACC 3.3 §2.12 inside a `parallel loop gang` nest (gang body, inner `loop worker`,
//! `vector` or `worker vector`), on shared scalars and histogram elements `at[(..) % K]`.
//!
//! Exactness in any order: each target has one operation class that commutes with itself
//! (integer `+ - & | ^`, `max`/`min` via `?:`, double `+` of small integers, or the exchange
//! with one value every thread writes). A target whose old or new value is captured applies
//! the same constant in every statement (`+d`, `&m`, `|m`, `^m`, `= s`), so the multiset of
//! captured values does not depend on the order; captured values are only summed into another
//! `+` target. `atomic read` reads a scalar no thread writes; `atomic write` stores a value
//! every thread computes alike. Variables declared in a loop body (thread-private) also get
//! atomic updates and captures, which are then ordinary sequential code.

use crate::expr::{Ctx, Var};
use crate::features::Feature;
use crate::model::Ext;
use crate::nest::join_words;
use crate::skeleton::Gen;
use crate::writer::W;

/// A counter's C type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AT {
    Int,
    Long,
    Unsigned,
    Double,
}

impl AT {
    fn c(self) -> &'static str {
        match self {
            AT::Int => "int",
            AT::Long => "long",
            AT::Unsigned => "unsigned",
            AT::Double => "double",
        }
    }

    fn lit(self, v: i64) -> String {
        match self {
            AT::Double => format!("({v}.0)"),
            AT::Unsigned => format!("{}u", v.max(0)),
            AT::Long => format!("({v}L)"),
            AT::Int => format!("({v})"),
        }
    }
}

/// What a target's statements do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    And,
    Or,
    Xor,
    Max,
    Min,
    /// Exchange with one value (`x = s` from every thread).
    Swap,
}

/// One shared atomic location: a scalar or a histogram `name[k]`.
#[derive(Clone, Debug)]
struct Target {
    name: String,
    ty: AT,
    op: Op,
    k: Option<i64>,
    /// The constant every statement applies (captured targets: every statement captures),
    /// else None.
    cst: Option<i64>,
    /// A captured target other than `+` captures the new value (else the old one).
    new_value: bool,
    init: i64,
}

impl Gen<'_> {
    /// One atomic region (see the module doc).
    pub fn atomic_region(&mut self, w: &mut W) {
        self.mark(Feature::Atomic);
        let mut cx = self.read_only_device_ctx();
        let nest = self.opts.has(Feature::Nest);
        let inner = if nest {
            *self
                .rng
                .pick(&["", "vector", "vector", "worker", "worker vector"])
        } else {
            ""
        };
        if !inner.is_empty() {
            self.mark(Feature::Nest);
        }
        // Sometimes a `routine seq` whose calls give operands (routine.rs).
        if self.opts.has(Feature::Routine) && self.rng.chance(70) {
            self.mark(Feature::Routine);
            let f = self.seq_routine(&cx);
            self.atomic_seq = Some(f);
        }
        // The targets; the last one collects captured values.
        let mut targets = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let t = self.target(false);
            targets.push(t);
        }
        let cap = self.rng.chance(60);
        if cap {
            for _ in 0..self.rng.range(1, 2) {
                let t = self.target(true);
                targets.push(t);
            }
        }
        let sum = Target {
            name: self.fresh("at"),
            ty: AT::Long,
            op: Op::Add,
            k: None,
            cst: None,
            new_value: false,
            init: self.rng.range(-50, 50),
        };
        let ro = self.fresh("at");
        let ro_v = self.rng.range(-20, 20);
        let wr = self.fresh("at");
        let wr_ty = *self.rng.pick(&[AT::Int, AT::Long, AT::Double]);
        for t in targets.iter().chain([&sum]) {
            match t.k {
                Some(k) => {
                    let inits: Vec<String> = (0..k).map(|q| t.ty.lit(t.init + q)).collect();
                    w.line(format!("{} {}[{k}] = {{{}}};", t.ty.c(), t.name, inits.join(", ")));
                }
                None => w.line(format!("{} {} = {};", t.ty.c(), t.name, t.ty.lit(t.init))),
            }
        }
        w.line(format!("int {ro} = {ro_v};"));
        let pvar = self.fresh("apv");
        w.line(format!("double {pvar};"));
        w.line(format!("{} {wr} = {};", wr_ty.c(), wr_ty.lit(0)));

        // The nest, body first.
        let mut body = W::new(w.ind);
        self.open_i_loop(&mut body, &mut cx);
        let gang_stmts = if inner.is_empty() {
            self.rng.range(1, 4)
        } else {
            self.rng.range(0, 1)
        };
        self.statements(&mut cx, &mut body, &targets, &sum, &ro, &wr, wr_ty, &pvar, gang_stmts);
        if !inner.is_empty() {
            let ext = *self.rng.pick(&[Ext::J, Ext::J, Ext::K]);
            let vi = self.new_var(ext);
            let vr = self.range(ext, false);
            body.line(format!("#pragma acc loop {inner}"));
            body.open(self.pheader(&vi, &vr));
            cx.vars.push(Var {
                name: vi,
                ext: Some(ext),
                max: vr.hi - 1,
            });
            let n = self.rng.range(1, 3);
            self.statements(&mut cx, &mut body, &targets, &sum, &ro, &wr, wr_ty, &pvar, n);
            body.close();
            cx.vars.pop();
            if self.rng.chance(30) {
                self.statements(&mut cx, &mut body, &targets, &sum, &ro, &wr, wr_ty, &pvar, 1);
            }
        }
        body.close();

        let clauses = self.compute_clauses(w, &cx.used, None);
        let dc = self.clause_text(&clauses);
        let mut names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
        names.push(sum.name.clone());
        names.push(wr.clone());
        let launch = self.launch_clauses(inner.contains("worker")).join(" ");
        w.line(join_words(&[
            "#pragma acc parallel loop gang",
            &launch,
            &format!("copy({})", names.join(", ")),
            &format!("copyin({ro}) private({pvar})"),
            &dc,
        ]));
        w.append(&body);
        self.regions += 1;
        self.atomic_seq = None;
        self.apply_compute(&clauses, &cx.used, None);
        for t in targets.iter().chain([&sum]) {
            let put = |x: &str| match t.ty {
                AT::Double => format!("fz_put_d({x});"),
                _ => format!("fz_put_i((long){x});"),
            };
            w.line(format!("printf(\"{} ({} {:?})\");", t.name, t.ty.c(), t.op));
            match t.k {
                Some(k) => {
                    let e = self.fresh("e");
                    w.line(format!(
                        "for (int {e} = 0; {e} < {k}; {e}++) {}",
                        put(&format!("{}[{e}]", t.name))
                    ));
                }
                None => w.line(put(&t.name)),
            }
            w.line("printf(\"\\n\");");
        }
        w.line(format!("printf(\"{wr} (write)\");"));
        w.line(match wr_ty {
            AT::Double => format!("fz_put_d({wr});"),
            _ => format!("fz_put_i((long){wr});"),
        });
        w.line("printf(\"\\n\");");
    }

    fn target(&mut self, captured: bool) -> Target {
        let ty = *self.rng.pick(&[AT::Int, AT::Long, AT::Unsigned, AT::Double]);
        let ops: &[Op] = match (ty, captured) {
            (AT::Double, false) => &[Op::Add, Op::Add, Op::Max, Op::Min],
            (AT::Double, true) => &[Op::Add, Op::Swap],
            (_, false) => &[Op::Add, Op::Add, Op::And, Op::Or, Op::Xor, Op::Max, Op::Min],
            (_, true) => &[Op::Add, Op::Add, Op::And, Op::Or, Op::Xor, Op::Swap],
        };
        let op = *self.rng.pick(ops);
        let cst = if captured {
            Some(match op {
                Op::Add => *self.rng.pick(&[1, 1, -1, 2, 3, -5]),
                Op::And => *self.rng.pick(&[0x3f5, 0x7fe, 0x1f0]),
                Op::Or | Op::Xor => *self.rng.pick(&[1, 6, 0x40, 0x111]),
                _ => self.rng.range(-30, 30),
            })
        } else {
            None
        };
        let init = match op {
            Op::And => self.rng.range(0x100, 0xfff),
            Op::Or | Op::Xor => self.rng.range(0, 0xff),
            _ if ty == AT::Unsigned => self.rng.range(0, 100),
            _ => self.rng.range(-100, 100),
        };
        let k = if self.rng.chance(50) {
            Some(*self.rng.pick(&[2, 3, 5, 7, 16]))
        } else {
            None
        };
        let new_value = op != Op::Swap && self.rng.chance(50);
        Target {
            name: self.fresh("at"),
            ty,
            op,
            k,
            cst,
            new_value,
            init,
        }
    }

    /// `n` atomic statements in the current body.
    #[allow(clippy::too_many_arguments)]
    fn statements(
        &mut self,
        cx: &mut Ctx,
        w: &mut W,
        targets: &[Target],
        sum: &Target,
        ro: &str,
        wr: &str,
        wr_ty: AT,
        pvar: &str,
        n: i64,
    ) {
        for _ in 0..n {
            match self.rng.weighted(&[8, 1, 1, 2]) {
                0 => {
                    let t = self.rng.pick(targets).clone();
                    let x = self.location(cx, &t);
                    if t.cst.is_some() {
                        self.capture_stmt(w, &t, &x, sum);
                    } else {
                        let s = self.update_stmt(cx, &t, &x);
                        w.line(format!("#pragma acc atomic{}", self.update_word()));
                        w.line(s);
                    }
                }
                1 => {
                    let r = self.fresh("ar");
                    w.line(format!("int {r};"));
                    w.line("#pragma acc atomic read");
                    w.line(format!("{r} = {ro};"));
                    w.line("#pragma acc atomic update");
                    w.line(format!("{} += (long){r};", sum.name));
                }
                2 => {
                    let c = self.rng.pick(&["c0", "c1", "c2"]).to_string();
                    w.line("#pragma acc atomic write");
                    w.line(format!("{wr} = ({})({c} + 3);", wr_ty.c()));
                }
                _ => {
                    let pv = if cx.vars.len() == 1 { Some(pvar) } else { None };
                    self.private_stmts(cx, w, sum, pv)
                }
            }
        }
    }

    /// ` update` or nothing (an `atomic` with no clause is an update).
    fn update_word(&mut self) -> &'static str {
        if self.rng.chance(70) {
            " update"
        } else {
            ""
        }
    }

    /// The target's scalar or a data-dependent histogram element.
    fn location(&mut self, cx: &mut Ctx, t: &Target) -> String {
        let Some(k) = t.k else {
            return t.name.clone();
        };
        let vars: Vec<String> = cx.var_names().map(String::from).collect();
        let idx = match self.rng.below(4) {
            0 => self.rng.range(0, k - 1).to_string(),
            1 => format!("{} % {k}", self.rng.pick(&vars)),
            2 => {
                let a = self.rng.pick(&vars).clone();
                let b = self.rng.pick(&vars).clone();
                format!("({a} * 7 + {b}) % {k}")
            }
            _ => {
                let e = self.value(cx, crate::model::Elem::Long, 1);
                format!("(int)((({} % {k}) + {k}) % {k})", e.text)
            }
        };
        format!("{}[{idx}]", t.name)
    }

    /// A value for an update of `t`: `(T)(e)` with |e| <= 999 (non-negative where needed).
    fn operand(&mut self, cx: &mut Ctx, t: &Target) -> String {
        let nonneg = t.ty == AT::Unsigned || matches!(t.op, Op::And | Op::Or | Op::Xor);
        let b = if matches!(t.op, Op::And | Op::Or | Op::Xor) { 255 } else { 999 };
        let e = match self.atomic_seq.clone() {
            // A `routine seq` call (|result| <= 999) as the operand.
            Some(f) if self.rng.chance(40) => {
                let call = self.seq_call(cx, &f);
                if nonneg {
                    format!("({call} & {b})")
                } else {
                    call
                }
            }
            _ => self.bounded(cx, b, nonneg),
        };
        let e = if t.op == Op::And {
            format!("({e} | 0x300)")
        } else {
            e
        };
        format!("({})({e})", t.ty.c())
    }

    /// A non-capture update of `t` at `x`.
    fn update_stmt(&mut self, cx: &mut Ctx, t: &Target, x: &str) -> String {
        let e = self.operand(cx, t);
        let f = self.rng.below(3);
        match t.op {
            Op::Add => match self.rng.below(8) {
                0 => format!("{x}++;"),
                1 => format!("--{x};"),
                2 => format!("{x}--;"),
                3 => format!("++{x};"),
                4 => format!("{x} -= {e};"),
                5 => format!("{x} = {x} - {e};"),
                6 => format!("{x} = {e} + {x};"),
                _ => match f {
                    0 => format!("{x} += {e};"),
                    _ => format!("{x} = {x} + {e};"),
                },
            },
            Op::And | Op::Or | Op::Xor => {
                let s = match t.op {
                    Op::And => "&",
                    Op::Or => "|",
                    _ => "^",
                };
                match f {
                    0 => format!("{x} {s}= {e};"),
                    1 => format!("{x} = {x} {s} {e};"),
                    _ => format!("{x} = {e} {s} {x};"),
                }
            }
            Op::Max => match f {
                0 => format!("{x} = {x} < {e} ? {e} : {x};"),
                1 => format!("{x} = {e} > {x} ? {e} : {x};"),
                _ => format!("{x} = {x} >= {e} ? {x} : {e};"),
            },
            Op::Min => match f {
                0 => format!("{x} = {x} > {e} ? {e} : {x};"),
                1 => format!("{x} = {e} < {x} ? {e} : {x};"),
                _ => format!("{x} = {x} <= {e} ? {x} : {e};"),
            },
            Op::Swap => unreachable!("swap targets are captured"),
        }
    }

    /// The same constant change of a captured target, in one of its spellings.
    fn cst_update(&mut self, t: &Target, x: &str) -> String {
        let c = t.cst.expect("captured target");
        let ct = t.ty.c();
        match t.op {
            Op::Add => match (c, self.rng.below(4)) {
                (1, 0) => format!("{x}++"),
                (1, 1) => format!("++{x}"),
                (-1, 0) => format!("{x}--"),
                (-1, 1) => format!("--{x}"),
                (_, 2) if c < 0 => format!("{x} -= ({ct}){}", -c),
                (_, 3) => format!("{x} = {x} + ({ct})({c})"),
                _ => format!("{x} += ({ct})({c})"),
            },
            Op::And | Op::Or | Op::Xor => {
                let s = match t.op {
                    Op::And => "&",
                    Op::Or => "|",
                    _ => "^",
                };
                if self.rng.chance(60) {
                    format!("{x} {s}= ({ct}){c}")
                } else {
                    format!("{x} = {x} {s} ({ct}){c}")
                }
            }
            Op::Swap => format!("{x} = {}", t.ty.lit(c)),
            _ => unreachable!("not a captured operation"),
        }
    }

    /// An `atomic capture` of a captured target (every statement on it captures); the
    /// captured value is summed into `sum`. For `+` any mix of old and new values sums to
    /// the same in every order; for the other operations a target captures always the old
    /// value or always the new one (`Target::new_value`), so the multiset is fixed.
    fn capture_stmt(&mut self, w: &mut W, t: &Target, x: &str, sum: &Target) {
        let v = self.fresh("av");
        let ct = t.ty.c();
        let upd = self.cst_update(t, x);
        let simple = !upd.contains(" = ");
        // The expression form `v = upd` captures the new value (the old one for x++ / x--,
        // which only `+` targets use).
        let new_value = match t.op {
            Op::Add => self.rng.chance(50),
            _ => t.new_value,
        };
        w.line(format!("{ct} {v};"));
        w.line("#pragma acc atomic capture");
        if simple && (t.op == Op::Add || new_value) && self.rng.chance(50) {
            w.line(format!("{v} = {upd};"));
        } else {
            w.open("");
            if new_value {
                w.line(format!("{upd};"));
                w.line(format!("{v} = {x};"));
            } else {
                w.line(format!("{v} = {x};"));
                w.line(format!("{upd};"));
            }
            w.close();
        }
        w.line("#pragma acc atomic update");
        w.line(format!("{} += (long){v};", sum.name));
    }

    /// A thread-private variable updated and captured atomically, then summed into `sum`:
    /// a local of the body, or at gang level sometimes the gang loop's `private(apv)`
    /// (`pv`). Operations without a native atomic (max/min through `?:`, `*`) are
    /// compare-and-swap loops in accc's IR.
    fn private_stmts(&mut self, cx: &mut Ctx, w: &mut W, sum: &Target, pv: Option<&str>) {
        let v = self.fresh("av");
        let (p, ty) = match pv {
            Some(name) if self.rng.chance(60) => (name.to_string(), AT::Double),
            _ => (self.fresh("ap"), *self.rng.pick(&[AT::Int, AT::Long, AT::Double])),
        };
        let ct = ty.c();
        let e0 = self.bounded(cx, 999, false);
        let e1 = self.bounded(cx, 999, false);
        if pv == Some(p.as_str()) {
            w.line(format!("{p} = ({ct})({e0});"));
        } else {
            w.line(format!("{ct} {p} = ({ct})({e0});"));
        }
        w.line(format!("{ct} {v};"));
        w.line(format!("#pragma acc atomic{}", self.update_word()));
        w.line(match self.rng.below(4) {
            0 => format!("{p} += ({ct})({e1});"),
            1 => format!("{p} = {p} < ({ct})({e1}) ? ({ct})({e1}) : {p};"),
            2 => format!("{p} = ({ct})({e1}) < {p} ? ({ct})({e1}) : {p};"),
            _ => format!("{p} = {p} * ({ct})2;"),
        });
        w.line("#pragma acc atomic capture");
        match self.rng.below(3) {
            0 => w.line(format!("{v} = {p}++;")),
            1 => {
                w.open("");
                w.line(format!("{v} = {p};"));
                w.line(format!("{p} = {p} + ({ct})3;"));
                w.close();
            }
            _ => {
                w.open("");
                w.line(format!("{p} = {p} * ({ct})(-1);"));
                w.line(format!("{v} = {p};"));
                w.close();
            }
        }
        w.line("#pragma acc atomic update");
        w.line(format!("{} += (long){v} + (long){p};", sum.name));
    }
}
