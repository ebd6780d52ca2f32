//! Reduction regions (`reduce`): `reduction(op:x)` clauses in every position accc supports,
//! with every operator and reduction type, whose results are exact in any combining order.
//!
//! One item is one compute region over a nest of loops (level 0 over `NI`, inner levels over
//! `NJ`/`NK`/`NP`) whose bodies update reduction variables:
//!
//!  - region variables (scalars or small arrays `T hist[K]`, some named `hist[0:kn]` with a
//!    run-time `kn`: accc reduces those with atomic updates, or, when an update reads the
//!    element through a temporary first, with private copies of run-time size), declared
//!    before the region,
//!    named in the clause of level 0 (and of the construct for `parallel reduction(..)`),
//!    either on every inner level too or only there (OpenUH-style placement: inner
//!    `loop worker/vector` update the variable without a clause), printed after the region;
//!  - gang-local variables, declared in the gang body, reduced by an inner `loop worker /
//!    vector / worker vector` (clause on that level, maybe on the levels below it too) and
//!    stored to a gang-indexed element of a program array after the inner loop.
//!
//! Positions: `parallel loop gang [worker] [vector]` (combined), `parallel reduction(op:x)
//! { loop gang reduction(op:x) }`, `serial loop reduction`, `kernels [loop] independent
//! reduction`. Operators `+ * max min & | ^ && ||` over char .. unsigned long long, float,
//! double.
//!
//! Exactness: every update statement runs at most `n` times (the product of the trip counts
//! of the loops around it), so a `+` term bounded by `(limit - |init|) / n` never overflows
//! a signed type in any order (unsigned types wrap, which is associative too); float and
//! double sums hold small integers or multiples of 0.5 well below 2^24; `*` factors are 1,
//! -1 and 2, where 2 is taken only at one iteration tuple per statement (so at most a few
//! doublings); bitwise terms are masked non-negative values; `max`/`min` are exact. Float
//! terms come from integer conversions, never -0.0. The code outside the loops in a
//! `parallel` region never touches a reduction variable (every gang would run it).

use crate::expr::{Ctx, Part, Var, E};
use crate::features::Feature;
use crate::model::{Elem, Ext};
use crate::nest::{emit_construct, join_words};
use crate::skeleton::Gen;
use crate::writer::W;

/// Update statement `s` of element `x` (of C type `t`) with the element first read into a
/// temporary that the statement then reads instead (its target stays `x`): `x += e;` becomes
/// `{ t rd_ = x; x = rd_ + e; }`, `x = f(x);` `{ t rd_ = x; x = f(rd_); }`, `if (c(x)) x = e;`
/// `{ t rd_ = x; if (c(rd_)) x = e; }`. The same result in any order of iterations.
fn via_temporary(s: &str, x: &str, t: &str) -> String {
    let body = if let Some(rest) = s.strip_prefix(&format!("{x} = ")) {
        format!("{x} = {}", rest.replace(x, "rd_"))
    } else if let Some(rest) = s.strip_prefix("if (") {
        let (cond, tail) = rest.rsplit_once(&format!(") {x} = ")).expect("if (c) x = e;");
        format!("if ({}) {x} = {tail}", cond.replace(x, "rd_"))
    } else {
        let (op, term) = ["+=", "*=", "&=", "|=", "^="]
            .iter()
            .find_map(|op| s.strip_prefix(&format!("{x} {op} ")).map(|term| (&op[..1], term)))
            .expect("a compound assignment");
        format!("{x} = rd_ {op} {term}")
    };
    format!("{{ {t} rd_ = {x}; {body} }}")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
    Xor,
    LAnd,
    LOr,
}

pub const OPS: [Op; 9] = [
    Op::Add,
    Op::Mul,
    Op::Max,
    Op::Min,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::LAnd,
    Op::LOr,
];

impl Op {
    pub fn sym(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Mul => "*",
            Op::Max => "max",
            Op::Min => "min",
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "^",
            Op::LAnd => "&&",
            Op::LOr => "||",
        }
    }

    fn bitwise(self) -> bool {
        matches!(self, Op::And | Op::Or | Op::Xor | Op::LAnd | Op::LOr)
    }
}

/// Type of a reduction variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RTy {
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LLong,
    ULLong,
    Float,
    Double,
}

pub const RTYS: [RTy; 13] = [
    RTy::Char,
    RTy::SChar,
    RTy::UChar,
    RTy::Short,
    RTy::UShort,
    RTy::Int,
    RTy::UInt,
    RTy::Long,
    RTy::ULong,
    RTy::LLong,
    RTy::ULLong,
    RTy::Float,
    RTy::Double,
];

impl RTy {
    pub fn c(self) -> &'static str {
        match self {
            RTy::Char => "char",
            RTy::SChar => "signed char",
            RTy::UChar => "unsigned char",
            RTy::Short => "short",
            RTy::UShort => "unsigned short",
            RTy::Int => "int",
            RTy::UInt => "unsigned int",
            RTy::Long => "long",
            RTy::ULong => "unsigned long",
            RTy::LLong => "long long",
            RTy::ULLong => "unsigned long long",
            RTy::Float => "float",
            RTy::Double => "double",
        }
    }

    fn float(self) -> bool {
        matches!(self, RTy::Float | RTy::Double)
    }

    fn unsigned(self) -> bool {
        matches!(
            self,
            RTy::UChar | RTy::UShort | RTy::UInt | RTy::ULong | RTy::ULLong
        )
    }

    /// Plain `char` (signedness is the implementation's): only values 0..=127.
    fn nonneg(self) -> bool {
        self == RTy::Char
    }

    /// Largest magnitude a value (and every partial result) may have.
    fn limit(self) -> i64 {
        match self {
            RTy::Char | RTy::SChar => 127,
            RTy::UChar => 255,
            RTy::Short => 32767,
            RTy::UShort => 65535,
            RTy::Int => 1 << 30,
            RTy::UInt => 1 << 31,
            RTy::Float => 1 << 22,
            RTy::Double => 1 << 48,
            _ => 1 << 50,
        }
    }

    /// Mask for bitwise terms (a non-negative value of the type).
    fn mask(self) -> i64 {
        self.limit().min(1023)
    }

    fn lit(self, v: i64, half: bool) -> String {
        match self {
            RTy::Float => format!("{v}.{}f", if half { 5 } else { 0 }),
            RTy::Double => format!("{v}.{}", if half { 5 } else { 0 }),
            _ => v.to_string(),
        }
    }
}

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// Declared before the region; clause on level 0 (and on the construct).
    Region,
    /// Declared in the level-0 body; clause on level 1; stored after the level-1 loop.
    Gang,
}

#[derive(Clone, Debug)]
struct RVar {
    name: String,
    ty: RTy,
    op: Op,
    init: i64,
    half: bool,
    /// Array reduction variable `T name[k]`; `whole`: clause names the whole array.
    k: Option<i64>,
    whole: bool,
    /// The clause's section is `name[0:kn]` with `int kn = k` (bounds only known at run
    /// time: accc updates the elements atomically).
    runtime: Option<String>,
    owner: Owner,
    /// Update statements per iteration of each level.
    counts: Vec<u8>,
    /// Bound of one `+` term.
    budget: i64,
}

impl RVar {
    /// Does this variable's clause appear on level `l`?
    fn clause_at(&self, l: usize, every: bool) -> bool {
        match self.owner {
            Owner::Region => l == 0 || every,
            Owner::Gang => l == 1 || (l > 1 && every),
        }
    }

    fn item(&self) -> String {
        match (self.k, &self.runtime) {
            (Some(_), Some(kn)) => format!("{}[0:{kn}]", self.name),
            (Some(k), None) if !self.whole => format!("{}[0:{k}]", self.name),
            _ => self.name.clone(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pos {
    Combined,
    Construct,
    Serial,
    Kernels,
}

struct Level {
    ext: Ext,
    /// Loop directive words (`gang vector`, `independent`); empty: a plain sequential loop.
    dir: String,
}

/// `reduction(op:a, b) reduction(op2:c)` for the variables given.
fn clause_text(vars: &[&RVar], merge: bool) -> String {
    let mut out: Vec<(Op, Vec<String>)> = Vec::new();
    for v in vars {
        match out.iter_mut().find(|(o, _)| merge && *o == v.op) {
            Some((_, items)) => items.push(v.item()),
            None => out.push((v.op, vec![v.item()])),
        }
    }
    out.iter()
        .map(|(o, items)| format!("reduction({}:{})", o.sym(), items.join(", ")))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Gen<'_> {
    /// One reduction region (see the module doc).
    pub fn reduce_region(&mut self, w: &mut W) {
        self.mark(Feature::Reduce);
        let nest = self.opts.has(Feature::Nest);
        let mut cx = self.device_ctx(None);
        let pos = match self.rng.weighted(&[
            8,
            3,
            2,
            if self.opts.has(Feature::Kernels) {
                2
            } else {
                0
            },
        ]) {
            0 => Pos::Combined,
            1 => Pos::Construct,
            2 => Pos::Serial,
            _ => Pos::Kernels,
        };
        // Gang-local variables stored to an array whose dimension 0 is the gang index.
        let dests: Vec<usize> = (0..self.arrays.len())
            .filter(|&a| cx.arrays[a].writable && cx.arrays[a].arr.dims[0] == Ext::I)
            .collect();
        let gang_local = pos != Pos::Serial && nest && !dests.is_empty() && self.rng.chance(35);
        // The nest's levels.
        let mut levels = Vec::new();
        let inner_ext = |g: &mut Gen| *g.rng.pick(&[Ext::J, Ext::J, Ext::K, Ext::P]);
        match pos {
            Pos::Combined | Pos::Construct => {
                let d0 = if gang_local {
                    *self.rng.pick(&["gang", "gang", "gang worker"])
                } else {
                    ["gang", "gang worker", "gang vector", "gang worker vector"]
                        [self.rng.weighted(&[5, 2, 3, 2])]
                };
                levels.push(Level {
                    ext: Ext::I,
                    dir: d0.into(),
                });
                let inner: Vec<&str> = if !nest || (!gang_local && self.rng.chance(40)) {
                    vec![]
                } else if d0 == "gang" {
                    self.rng
                        .pick(&[
                            vec!["worker"],
                            vec!["vector"],
                            vec!["vector"],
                            vec!["worker vector"],
                            vec!["worker", "vector"],
                        ])
                        .clone()
                } else if d0 == "gang worker" {
                    vec!["vector"]
                } else {
                    vec![]
                };
                for d in inner {
                    let ext = inner_ext(self);
                    levels.push(Level { ext, dir: d.into() });
                }
            }
            Pos::Serial => {
                levels.push(Level {
                    ext: Ext::I,
                    dir: String::new(),
                });
                if self.rng.chance(40) {
                    let ext = inner_ext(self);
                    levels.push(Level {
                        ext,
                        dir: String::new(),
                    });
                }
            }
            Pos::Kernels => {
                levels.push(Level {
                    ext: Ext::I,
                    dir: "independent".into(),
                });
                if nest && (gang_local || self.rng.chance(40)) {
                    let ext = inner_ext(self);
                    levels.push(Level {
                        ext,
                        dir: "independent".into(),
                    });
                }
            }
        }
        if levels.len() > 1 && !levels[1].dir.is_empty() {
            self.mark(Feature::Nest);
        }
        let gang_local = gang_local && levels.len() > 1;
        // Clauses on every level, or only the outer one (OpenUH-style; parallel nests only).
        let every = match pos {
            Pos::Kernels => true,
            Pos::Serial => false,
            _ => self.rng.chance(60),
        };
        let sizes: Vec<i64> = levels.iter().map(|l| self.sizes.of(l.ext)).collect();

        // The variables.
        let mut vars: Vec<RVar> = Vec::new();
        let nregion = if gang_local {
            *self.rng.pick(&[0, 0, 0, 1])
        } else {
            *self.rng.pick(&[1, 1, 1, 1, 2, 2, 3])
        };
        let ngang = if gang_local {
            *self.rng.pick(&[1, 1, 1, 2, 3])
        } else {
            0
        };
        for n in 0..nregion + ngang {
            let owner = if n < nregion {
                Owner::Region
            } else {
                Owner::Gang
            };
            let array = owner == Owner::Region && self.rng.chance(15);
            let v = self.rvar(owner, array, &sizes);
            vars.push(v);
        }

        // The loops, body first.
        let ind = w.ind;
        let construct_body =
            matches!(pos, Pos::Construct) || (pos == Pos::Kernels && self.rng.chance(50));
        let mut body = W::new(if construct_body { ind + 1 } else { ind });
        let dest = if gang_local {
            Some(*self.rng.pick(&dests))
        } else {
            None
        };
        let merge = self.rng.chance(50);
        let (loop_words, text) =
            self.red_level(&mut cx, &body, &levels, 0, &vars, every, merge, dest, pos);
        for v in vars.iter().filter(|v| v.owner == Owner::Region) {
            if let (Some(k), Some(kn)) = (v.k, &v.runtime) {
                w.line(format!("int {kn} = {k};"));
            }
            match v.k {
                Some(k) => {
                    let inits: Vec<String> = (0..k)
                        .map(|_| v.ty.lit(self.init_value(v.ty, v.op), v.half))
                        .collect();
                    w.line(format!(
                        "{} {}[{k}] = {{{}}};",
                        v.ty.c(),
                        v.name,
                        inits.join(", ")
                    ));
                }
                None => w.line(format!(
                    "{} {} = {};",
                    v.ty.c(),
                    v.name,
                    v.ty.lit(v.init, v.half)
                )),
            }
        }
        let clauses = self.compute_clauses(w, &cx.used, None);
        let dc = self.clause_text(&clauses);
        let region_vars: Vec<&RVar> = vars.iter().filter(|v| v.owner == Owner::Region).collect();
        let cons_red = clause_text(&region_vars, merge);
        let any_worker = levels.iter().any(|l| l.dir.contains("worker"));
        match pos {
            Pos::Combined => {
                let launch = self.launch_clauses(any_worker).join(" ");
                w.line(join_words(&[
                    "#pragma acc parallel loop",
                    &loop_words,
                    &launch,
                    &dc,
                ]));
                w.append(&text);
            }
            Pos::Construct => {
                let launch = self.launch_clauses(any_worker).join(" ");
                body.line(join_words(&["#pragma acc loop", &loop_words]));
                body.append(&text);
                emit_construct(
                    w,
                    "parallel",
                    false,
                    "",
                    &join_words(&[&cons_red, &launch, &dc]),
                    &body,
                );
            }
            Pos::Serial => {
                w.line(join_words(&["#pragma acc serial loop", &loop_words, &dc]));
                w.append(&text);
            }
            Pos::Kernels => {
                self.mark(Feature::Kernels);
                if construct_body {
                    body.line(join_words(&["#pragma acc loop", &loop_words]));
                    body.append(&text);
                    emit_construct(w, "kernels", false, "", &dc, &body);
                } else {
                    w.line(join_words(&["#pragma acc kernels loop", &loop_words, &dc]));
                    w.append(&text);
                }
            }
        }
        self.regions += 1;
        self.apply_compute(&clauses, &cx.used, None);
        // The results (checked through the output and the checksum).
        for v in vars.iter().filter(|v| v.owner == Owner::Region) {
            let put = |x: &str| {
                if v.ty.float() {
                    format!("fz_put_d((double){x});")
                } else {
                    format!("fz_put_i((long){x});")
                }
            };
            w.line(format!(
                "printf(\"{} ({} {})\");",
                v.name,
                v.ty.c(),
                v.op.sym()
            ));
            match v.k {
                Some(k) => {
                    let e = self.fresh("e");
                    w.line(format!(
                        "for (int {e} = 0; {e} < {k}; {e}++) {}",
                        put(&format!("{}[{e}]", v.name))
                    ));
                }
                None => w.line(put(&v.name)),
            }
            w.line("printf(\"\\n\");");
        }
    }

    /// A starting value: nonzero, fitting the type and the operator.
    fn init_value(&mut self, ty: RTy, op: Op) -> i64 {
        let nonneg = ty.nonneg() || ty.unsigned();
        let v = match op {
            Op::Add => self.rng.range(1, 20),
            Op::Mul => self.rng.range(1, 7),
            Op::Max | Op::Min => self.rng.range(1, 120.min(ty.limit())),
            Op::And => ty.mask() - self.rng.range(0, 3) * (ty.mask() / 4 + 1) / 2,
            Op::Or | Op::Xor => self.rng.range(1, ty.mask()),
            Op::LAnd => self.rng.range(1, 3),
            Op::LOr => self.rng.range(0, 1),
        };
        if !nonneg
            && matches!(op, Op::Add | Op::Mul | Op::Max | Op::Min | Op::LAnd)
            && self.rng.chance(40)
        {
            -v
        } else {
            v
        }
    }

    fn rvar(&mut self, owner: Owner, array: bool, sizes: &[i64]) -> RVar {
        let op = if array {
            *self.rng.pick(&[
                Op::Add,
                Op::Add,
                Op::Add,
                Op::Add,
                Op::Max,
                Op::Min,
                Op::Or,
                Op::Xor,
                Op::Mul,
            ])
        } else {
            *self.rng.pick(&OPS)
        };
        let m = sizes.len() - 1;
        let mut counts = vec![0u8; m + 1];
        counts[m] = if op == Op::Mul {
            1
        } else {
            self.rng.range(1, 2) as u8
        };
        for c in counts.iter_mut().take(m) {
            if self.rng.chance(15) {
                *c = 1;
            }
        }
        // Upper bound of the number of updates in one reduction.
        let from = if owner == Owner::Gang { 1 } else { 0 };
        let n: i64 = counts
            .iter()
            .enumerate()
            .map(|(l, &c)| c as i64 * (from..=l).map(|x| sizes[x]).product::<i64>())
            .sum::<i64>()
            .max(1);
        let mut ty = loop {
            let ty = RTYS[self.rng.weighted(&[2, 2, 2, 2, 2, 6, 3, 5, 2, 2, 2, 3, 5])];
            if !(op.bitwise() && ty.float()) {
                break ty;
            }
        };
        let mut init = self.init_value(ty, op);
        if op == Op::Add && ty.limit() < 1000 {
            init = init.signum() * self.rng.range(1, 3);
        }
        let mut budget = (ty.limit() - init.abs()) / n;
        if op == Op::Add && ty.unsigned() {
            // Unsigned sums wrap: defined and associative, so any order gives the same.
            budget = budget.max(*self.rng.pick(&[1, 7, 999]));
        }
        if op == Op::Add && budget < 1 {
            ty = if ty.float() {
                RTy::Double
            } else {
                *self.rng.pick(&[RTy::Int, RTy::Long, RTy::ULLong])
            };
            init = self.init_value(ty, op);
            budget = (ty.limit() - init.abs()) / n;
        }
        let half = ty.float() && matches!(op, Op::Add | Op::Max | Op::Min) && self.rng.chance(40);
        let k = if array {
            Some(*self.rng.pick(&[1i64, 2, 3, 4, 5, 8]))
        } else {
            None
        };
        // Some region arrays get bounds known only at run time.
        let runtime = (array && owner == Owner::Region && self.rng.chance(35)).then(|| self.fresh("kn"));
        RVar {
            runtime,
            name: self.fresh(if array { "hist" } else { "r" }),
            ty,
            op,
            init,
            half,
            k,
            whole: self.rng.chance(40),
            owner,
            counts,
            budget: budget.clamp(1, 1 << 20),
        }
    }

    /// Level `l` of the nest: returns the loop's directive words (level 0) and its text.
    #[allow(clippy::too_many_arguments)]
    fn red_level(
        &mut self,
        cx: &mut Ctx,
        out: &W,
        levels: &[Level],
        l: usize,
        vars: &[RVar],
        every: bool,
        merge: bool,
        dest: Option<usize>,
        pos: Pos,
    ) -> (String, W) {
        let lv = &levels[l];
        let mut w = W::new(out.ind);
        let name = self.new_var(lv.ext);
        let r = self.range(lv.ext, false);
        let partitioned = !lv.dir.is_empty() || (l == 0 && pos == Pos::Serial);
        let mine: Vec<&RVar> = vars.iter().filter(|v| v.clause_at(l, every)).collect();
        let red = if partitioned && (l == 0 || !lv.dir.is_empty()) {
            clause_text(&mine, merge)
        } else {
            String::new()
        };
        let words = join_words(&[&lv.dir, &red]);
        if l > 0 && !lv.dir.is_empty() {
            w.line(join_words(&["#pragma acc loop", &words]));
        }
        let h = if partitioned {
            self.pheader(&name, &r)
        } else {
            Self::header(&name, &r)
        };
        w.open(h);
        let writes = match dest {
            Some(d) if l == 0 => [d].into(),
            _ => Default::default(),
        };
        cx.part.push(Part {
            var: name.clone(),
            ext: lv.ext,
            writes,
        });
        cx.vars.push(Var {
            name: name.clone(),
            ext: Some(lv.ext),
            max: r.hi - 1,
        });
        // Gang-local declarations.
        if l == 0 {
            for v in vars.iter().filter(|v| v.owner == Owner::Gang) {
                w.line(format!(
                    "{} {} = {};",
                    v.ty.c(),
                    v.name,
                    v.ty.lit(v.init, v.half)
                ));
            }
        }
        let loopvars: Vec<(String, i64)> = cx
            .vars
            .iter()
            .rev()
            .take(l + 1)
            .map(|v| (v.name.clone(), v.max))
            .collect();
        let here: Vec<RVar> = vars.iter().filter(|v| v.counts[l] > 0).cloned().collect();
        let inner_first = l < levels.len() - 1 && self.rng.chance(30);
        let mut stmts = Vec::new();
        for v in &here {
            for _ in 0..v.counts[l] {
                // A gang-local variable's updates in the gang body come before the inner loop.
                let s = self.update(cx, v, &loopvars);
                stmts.push((v.owner, s));
            }
        }
        if l + 1 < levels.len() {
            let before: Vec<&String> = stmts
                .iter()
                .filter(|(o, _)| !inner_first || *o == Owner::Gang)
                .map(|(_, s)| s)
                .collect();
            for s in &before {
                w.line(s.as_str());
            }
            let (_, inner) = self.red_level(cx, &w, levels, l + 1, vars, every, merge, dest, pos);
            w.append(&inner);
            if inner_first {
                for (o, s) in &stmts {
                    if *o != Owner::Gang {
                        w.line(s);
                    }
                }
            }
        } else {
            for (_, s) in &stmts {
                w.line(s);
            }
        }
        if l == 0 {
            if let Some(d) = dest {
                for v in vars.iter().filter(|v| v.owner == Owner::Gang) {
                    let idx = self.write_indices(cx, d, 0);
                    let arr = cx.arrays[d].arr.clone();
                    let val = if v.ty.float() {
                        format!("(long)({} * 2) % 997", v.name)
                    } else {
                        format!("{} % 997", v.name)
                    };
                    w.line(format!("{} = ({})({val});", arr.access(&idx), arr.elem.c()));
                    cx.note(d, true, true);
                }
            }
        }
        cx.part.pop();
        cx.vars.pop();
        w.close();
        (words, w)
    }

    /// A value of at most `b` in magnitude, as a `long` expression (`nonneg`: 0..=b).
    pub(crate) fn bounded(&mut self, cx: &mut Ctx, b: i64, nonneg: bool) -> String {
        let e: E = self.value(cx, Elem::Long, 2);
        if nonneg {
            let mut mask = 1i64;
            while mask * 2 - 1 <= b {
                mask *= 2;
            }
            let mask = mask - 1;
            format!("({} & {})", e.text, Elem::Long.lit(mask.max(0)))
        } else if e.bound > b {
            format!("({} % {})", e.text, Elem::Long.lit(b + 1))
        } else {
            e.text
        }
    }

    /// One update statement of `v` (its element for an array).
    fn update(&mut self, cx: &mut Ctx, v: &RVar, loopvars: &[(String, i64)]) -> String {
        let x = match v.k {
            None => v.name.clone(),
            Some(k) => {
                let idx = match self.rng.below(4) {
                    0 => self.rng.range(0, k - 1).to_string(),
                    1 => format!(
                        "{} % {k}",
                        loopvars[self.rng.below(loopvars.len() as u64) as usize].0
                    ),
                    2 => format!("{k} - 1 - {} % {k}", loopvars[0].0),
                    _ => {
                        let e = self.value(cx, Elem::Long, 0);
                        format!("(int)((({} % {k}) + {k}) % {k})", e.text)
                    }
                };
                format!("{}[{idx}]", v.name)
            }
        };
        let t = v.ty.c();
        let form = self.rng.below(3);
        let s = self.update_statement(cx, v, loopvars, &x, form);
        // An array with run-time bounds read through a temporary: the region reads an
        // element other than in an update, which accc reduces with private copies of
        // run-time size instead of atomics (codegen/src/reduction.rs `View`).
        if v.runtime.is_some() && self.rng.chance(30) {
            via_temporary(&s, &x, t)
        } else {
            s
        }
    }

    fn update_statement(&mut self, cx: &mut Ctx, v: &RVar, loopvars: &[(String, i64)], x: &str, form: u64) -> String {
        let t = v.ty.c();
        match v.op {
            Op::Add => {
                let e = self.bounded(cx, v.budget, v.ty.nonneg());
                let term = if v.ty.float() && self.rng.chance(50) {
                    let h = if v.ty == RTy::Float { "0.5f" } else { "0.5" };
                    format!("({t})({e}) * {h}")
                } else {
                    format!("({t})({e})")
                };
                match form {
                    0 => format!("{x} += {term};"),
                    1 => format!("{x} = {x} + {term};"),
                    _ => format!("{x} = {term} + {x};"),
                }
            }
            Op::Mul => {
                let c2: Vec<String> = loopvars
                    .iter()
                    .map(|(n, max)| format!("{n} == {}", self.rng.range(0, *max)))
                    .collect();
                let c2 = c2.join(" && ");
                let neg = self.cond(cx, 1);
                let (two, m1, one) = match v.ty {
                    RTy::Float => ("2.0f", "-1.0f", "1.0f"),
                    RTy::Double => ("2.0", "-1.0", "1.0"),
                    _ => ("2", "-1", "1"),
                };
                let f = if v.ty.nonneg() {
                    format!("({c2} ? {two} : {one})")
                } else {
                    format!("({c2} ? {two} : ({neg} ? {m1} : {one}))")
                };
                match form {
                    0 => format!("{x} *= {f};"),
                    1 => format!("{x} = {x} * {f};"),
                    _ => format!("{x} = {f} * {x};"),
                }
            }
            Op::Max | Op::Min => {
                let e = self.bounded(cx, v.ty.limit(), v.ty.nonneg());
                let term = if v.half && self.rng.chance(50) {
                    let h = if v.ty == RTy::Float { "0.5f" } else { "0.5" };
                    format!("(({t})({e}) * {h})")
                } else {
                    format!("(({t})({e}))")
                };
                let (gt, lt) = if v.op == Op::Max {
                    (">", "<")
                } else {
                    ("<", ">")
                };
                match form {
                    0 => format!("{x} = {x} {gt} {term} ? {x} : {term};"),
                    1 => format!("if ({term} {gt} {x}) {x} = {term};"),
                    _ => format!("{x} = {term} {lt} {x} ? {x} : {term};"),
                }
            }
            Op::And | Op::Or | Op::Xor => {
                let mask = v.ty.mask();
                let e = self.value(cx, Elem::Long, 2);
                let term = match v.op {
                    Op::And => {
                        let forced = self.rng.range(0, mask) & self.rng.range(0, mask);
                        format!("({t})(({} & {mask}L) | {forced}L)", e.text)
                    }
                    Op::Or => {
                        let m = *self.rng.pick(&[1i64, 3, 7, 16, 96, mask]);
                        format!("({t})({} & {}L)", e.text, m.min(mask))
                    }
                    _ => format!("({t})({} & {mask}L)", e.text),
                };
                let s = v.op.sym();
                match form {
                    0 => format!("{x} {s}= {term};"),
                    1 => format!("{x} = {x} {s} {term};"),
                    _ => format!("{x} = {term} {s} {x};"),
                }
            }
            Op::LAnd | Op::LOr => {
                let c = if self.rng.chance(50) {
                    self.cond(cx, 1)
                } else {
                    // Mostly true for &&, mostly false for ||.
                    let (e, c) = if self.rng.chance(50) {
                        let (n, max) =
                            loopvars[self.rng.below(loopvars.len() as u64) as usize].clone();
                        (n, self.rng.range(0, max + 2))
                    } else {
                        (self.value(cx, Elem::Long, 1).text, self.rng.range(-20, 20))
                    };
                    if v.op == Op::LAnd {
                        format!("({e} != {c})")
                    } else {
                        format!("({e} == {c})")
                    }
                };
                let s = v.op.sym();
                match form {
                    0 | 1 => format!("{x} = {x} {s} {c};"),
                    _ => format!("{x} = {c} {s} {x};"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::via_temporary;

    #[test]
    fn updates_read_the_element_through_a_temporary() {
        assert_eq!(via_temporary("h[i % 3] += (int)(j);", "h[i % 3]", "int"), "{ int rd_ = h[i % 3]; h[i % 3] = rd_ + (int)(j); }");
        assert_eq!(via_temporary("h[2] = h[2] > ((long)(a) * 2) ? h[2] : ((long)(a) * 2);", "h[2]", "long"), "{ long rd_ = h[2]; h[2] = rd_ > ((long)(a) * 2) ? rd_ : ((long)(a) * 2); }");
        assert_eq!(via_temporary("if (((int)(x) ) < h[0]) h[0] = ((int)(x) );", "h[0]", "int"), "{ int rd_ = h[0]; if (((int)(x) ) < rd_) h[0] = ((int)(x) ); }");
    }
}
