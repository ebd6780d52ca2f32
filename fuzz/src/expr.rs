//! Expressions and the access rules that keep every generated region race-free and UB-free.
//!
//! Values: every expression carries a bound on its magnitude; an operation whose result
//! could pass its type's limit first reduces an operand with `% 1000` (Csmith-style "safe
//! operands"), so there is no signed overflow and doubles stay exact integers. Every leaf
//! is converted to the expression's type, so the C type of each subexpression is that type.
//! Divisors and moduli are positive constants; shifts are right shifts by constants.
//!
//! Accesses: a region's partitioned loops form a stack of scopes (`Ctx::part`), each with
//! its loop variable and the set of arrays its body may write (planned before the body is
//! generated). Dimension `d` of an array lines up with scope `base + d`. An array is
//!
//!  - written only where it is in the write set of every scope from `base` down to the
//!    innermost one, at exactly those scopes' variables (free dimensions below that are
//!    sequential in the writing iteration);
//!  - read at exactly scope `s`'s variable in every dimension whose scope writes it, and at
//!    any in-range index elsewhere. So no iteration of a partitioned loop reads or writes an
//!    element another iteration of the same loop writes; reading what an earlier sibling
//!    loop (or single code) wrote at other indices is allowed: the loops are ordered.
//!
//! Indices are in range by construction: loop variables of the matching extent, `N-1-v`,
//! `(v + c) % N`, constants, or `((x % N) + N) % N` of a small data value.

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use crate::features::Feature;
use crate::model::{par, Array, Elem, Ext};
use crate::skeleton::Gen;

/// Arrays written by a region are reduced into `[-VMAX, VMAX]` before every store.
pub const VMAX: i64 = 999;

/// A generated expression: C text, its C type and a bound on its magnitude.
#[derive(Clone, Debug)]
pub struct E {
    pub text: String,
    pub ty: Elem,
    pub bound: i64,
}

/// A loop variable in scope: values in `0..=max`; `ext` when it ranges within that extent.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ext: Option<Ext>,
    pub max: i64,
}

/// A scalar in scope. Writable only at the partition depth `owner` where it was declared
/// (scalars declared in a gang body are per gang iteration, in a vector body per lane).
#[derive(Clone, Debug)]
pub struct Scalar {
    pub name: String,
    pub elem: Elem,
    pub bound: i64,
    pub owner: usize,
    /// False for a private variable not yet assigned in this iteration.
    pub ready: bool,
}

/// One partitioned loop (or one loop of a collapsed nest).
#[derive(Clone, Debug)]
pub struct Part {
    pub var: String,
    pub ext: Ext,
    pub writes: BTreeSet<usize>,
}

/// An array visible to the code being generated. Program arrays come first (local id ==
/// program id); private arrays follow, with `base` = the partition depth that owns them.
#[derive(Clone, Debug)]
pub struct AInfo {
    pub arr: Array,
    pub base: usize,
    pub readable: bool,
    pub writable: bool,
    pub prog: Option<usize>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Use {
    pub read: bool,
    pub write: bool,
}

/// Everything the generator knows at one point of a region (or of host code).
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    pub arrays: Vec<AInfo>,
    pub vars: Vec<Var>,
    pub scalars: Vec<Scalar>,
    pub part: Vec<Part>,
    /// Program arrays the code uses (for data clauses and state updates).
    pub used: BTreeMap<usize, Use>,
    /// Arrays written by earlier loops: reads prefer them (communication).
    pub recent: Vec<usize>,
    /// Code every gang runs redundantly (a `parallel` body outside gang loops): no stores
    /// to arrays.
    pub redundant: bool,
}

impl Ctx {
    pub fn note(&mut self, a: usize, read: bool, write: bool) {
        if let Some(p) = self.arrays[a].prog {
            let u = self.used.entry(p).or_default();
            u.read |= read;
            u.write |= write;
        }
    }

    /// May `a` be stored to here (see the module doc)?
    pub fn can_write(&self, a: usize) -> bool {
        let ai = &self.arrays[a];
        if !ai.writable || (self.redundant && ai.prog.is_some()) || self.part.len() < ai.base {
            return false;
        }
        (ai.base..self.part.len())
            .all(|s| s - ai.base < ai.arr.dims.len() && self.part[s].writes.contains(&a))
    }

    /// May `a` be in the write set of a new partitioned loop over `ext` pushed here?
    pub fn eligible(&self, a: usize, ext: Ext) -> bool {
        let ai = &self.arrays[a];
        let s = self.part.len();
        if !ai.writable || s < ai.base {
            return false;
        }
        let d = s - ai.base;
        d < ai.arr.dims.len()
            && ai.arr.dims[d] == ext
            && (s == ai.base || self.part[s - 1].writes.contains(&a))
    }

    pub fn var_names(&self) -> impl Iterator<Item = &str> {
        self.vars.iter().map(|v| v.name.as_str())
    }
}

impl Gen<'_> {
    /// A value of type `ty`, at most `depth` operators deep.
    pub fn value(&mut self, cx: &mut Ctx, ty: Elem, depth: u32) -> E {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(cx, ty, depth);
        }
        let d = depth - 1;
        let lim = ty.limit();
        if ty == Elem::Double {
            match self.rng.weighted(&[3, 2, 3, 1, 1, 1]) {
                0 => self.binop(cx, ty, d, "+"),
                1 => self.binop(cx, ty, d, "-"),
                2 => self.binop(cx, ty, d, "*"),
                3 => {
                    let a = self.value(cx, ty, d);
                    E {
                        text: format!("(-{})", par(&a.text)),
                        ty,
                        bound: a.bound,
                    }
                }
                4 => self.ternary(cx, ty, d),
                _ => {
                    let a = self.value(cx, ty, d);
                    let m = *self.rng.pick(&[7, 10, 97, 1000]);
                    E {
                        text: format!("(double)((long)({}) % {m})", a.text),
                        ty,
                        bound: m - 1,
                    }
                }
            }
        } else {
            match self.rng.weighted(&[3, 2, 3, 1, 1, 1, 1, 1, 1, 1, 1]) {
                0 => self.binop(cx, ty, d, "+"),
                1 => self.binop(cx, ty, d, "-"),
                2 => self.binop(cx, ty, d, "*"),
                3 => {
                    let a = self.value(cx, ty, d);
                    let c = *self.rng.pick(&[2i64, 3, 5, 7, 16]);
                    E {
                        text: format!("({} / {})", a.text, ty.lit(c)),
                        ty,
                        bound: a.bound / c,
                    }
                }
                4 => {
                    let a = self.value(cx, ty, d);
                    let c = *self.rng.pick(&[3i64, 7, 10, 97, 1000]);
                    E {
                        text: format!("({} % {})", a.text, ty.lit(c)),
                        ty,
                        bound: c - 1,
                    }
                }
                5 => {
                    let a = self.value(cx, ty, d);
                    let m = *self.rng.pick(&[1i64, 7, 255, 1023]);
                    E {
                        text: format!("({} & {})", a.text, ty.lit(m)),
                        ty,
                        bound: m,
                    }
                }
                6 => {
                    let a = self.value(cx, ty, d);
                    let b = self.value(cx, ty, d);
                    let bound = 2 * a.bound.max(b.bound) + 1;
                    if bound > lim {
                        let a = self.wrap(a);
                        let b = self.wrap(b);
                        E {
                            text: format!("({} ^ {})", a.text, b.text),
                            ty,
                            bound: 2047,
                        }
                    } else {
                        E {
                            text: format!("({} ^ {})", a.text, b.text),
                            ty,
                            bound,
                        }
                    }
                }
                7 => {
                    let a = self.value(cx, ty, d);
                    let s = self.rng.range(1, 3);
                    E {
                        text: format!("({} >> {s})", a.text),
                        ty,
                        bound: a.bound,
                    }
                }
                8 => {
                    let a = self.value(cx, ty, d);
                    E {
                        text: format!("(-{})", par(&a.text)),
                        ty,
                        bound: a.bound,
                    }
                }
                9 => self.ternary(cx, ty, d),
                _ => {
                    let c = self.cond(cx, d);
                    let text = if ty == Elem::Int {
                        c
                    } else {
                        format!("({})({c})", ty.c())
                    };
                    E { text, ty, bound: 1 }
                }
            }
        }
    }

    fn binop(&mut self, cx: &mut Ctx, ty: Elem, d: u32, op: &str) -> E {
        let lim = ty.limit();
        let mut a = self.value(cx, ty, d);
        let mut b = self.value(cx, ty, d);
        let bound = |a: &E, b: &E| -> Option<i64> {
            let r = if op == "*" {
                a.bound.checked_mul(b.bound)
            } else {
                a.bound.checked_add(b.bound)
            };
            r.filter(|&r| r <= lim)
        };
        if bound(&a, &b).is_none() {
            if a.bound >= b.bound {
                a = self.wrap(a)
            } else {
                b = self.wrap(b)
            }
        }
        if bound(&a, &b).is_none() {
            a = self.wrap(a);
            b = self.wrap(b);
        }
        let bound = bound(&a, &b).expect("operands reduced below the limit");
        E {
            text: format!("({} {op} {})", a.text, b.text),
            ty,
            bound,
        }
    }

    fn ternary(&mut self, cx: &mut Ctx, ty: Elem, d: u32) -> E {
        let c = self.cond(cx, d);
        let a = self.value(cx, ty, d);
        let b = self.value(cx, ty, d);
        E {
            text: format!("({c} ? {} : {})", a.text, b.text),
            ty,
            bound: a.bound.max(b.bound),
        }
    }

    /// A condition (C `int` 0/1).
    pub fn cond(&mut self, cx: &mut Ctx, d: u32) -> String {
        let ty = *self.rng.pick(&[Elem::Int, Elem::Long, Elem::Double]);
        let a = self.value(cx, ty, d.min(1));
        if ty != Elem::Double && self.rng.chance(25) {
            return format!("(({} & {}) == {})", a.text, ty.lit(1), ty.lit(0));
        }
        let b = self.value(cx, ty, d.min(1));
        let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
        format!("({} {op} {})", a.text, b.text)
    }

    /// `e` reduced into `[-VMAX, VMAX]` (exact for doubles holding integers).
    pub fn wrap(&mut self, e: E) -> E {
        let m = *self.rng.pick(&[1000i64, 997, 512]);
        let text = match e.ty {
            Elem::Double => format!("(double)((long)({}) % {m})", e.text),
            ty => format!("({} % {})", e.text, ty.lit(m)),
        };
        E {
            text,
            ty: e.ty,
            bound: m - 1,
        }
    }

    /// `e` reduced if it could exceed what an array element may hold.
    pub fn fit_store(&mut self, e: E) -> E {
        if e.bound > VMAX {
            self.wrap(e)
        } else {
            e
        }
    }

    /// `e` converted to `ty` (exact: all values are small integers).
    pub fn conv(e: E, ty: Elem) -> E {
        if e.ty == ty {
            return e;
        }
        E {
            text: format!("({}){}", ty.c(), par(&e.text)),
            ty,
            bound: e.bound,
        }
    }

    fn leaf(&mut self, cx: &mut Ctx, ty: Elem, depth: u32) -> E {
        for _ in 0..8 {
            let ready: Vec<usize> = (0..cx.scalars.len())
                .filter(|&s| cx.scalars[s].ready)
                .collect();
            let k = self.rng.weighted(&[
                2,
                if cx.vars.is_empty() { 0 } else { 3 },
                if ready.is_empty() { 0 } else { 2 },
                6,
            ]);
            match k {
                0 => {
                    let v = self.rng.range(-9, 30);
                    return E {
                        text: ty.lit(v),
                        ty,
                        bound: v.abs(),
                    };
                }
                1 => {
                    let v = self.rng.pick(&cx.vars).clone();
                    return Self::conv(
                        E {
                            text: v.name,
                            ty: Elem::Int,
                            bound: v.max,
                        },
                        ty,
                    );
                }
                2 => {
                    let s = cx.scalars[*self.rng.pick(&ready)].clone();
                    let e = E {
                        text: s.name,
                        ty: s.elem,
                        bound: s.bound,
                    };
                    // A narrowing conversion only of values that fit.
                    let e = if e.bound > ty.limit() {
                        self.wrap(e)
                    } else {
                        e
                    };
                    return Self::conv(e, ty);
                }
                _ => {
                    if let Some(a) = self.pick_read(cx) {
                        if let Some(idx) = self.read_indices(cx, a, depth.min(1)) {
                            cx.note(a, true, false);
                            let ai = &cx.arrays[a];
                            let e = E {
                                text: ai.arr.access(&idx),
                                ty: ai.arr.elem,
                                bound: VMAX,
                            };
                            return Self::conv(e, ty);
                        }
                    }
                }
            }
        }
        E {
            text: ty.lit(1),
            ty,
            bound: 1,
        }
    }

    /// An array to read, preferring ones written by earlier loops.
    fn pick_read(&mut self, cx: &Ctx) -> Option<usize> {
        let recent: Vec<usize> = cx
            .recent
            .iter()
            .copied()
            .filter(|&a| a < cx.arrays.len() && cx.arrays[a].readable)
            .collect();
        if !recent.is_empty() && self.rng.chance(50) {
            return Some(*self.rng.pick(&recent));
        }
        let all: Vec<usize> = (0..cx.arrays.len())
            .filter(|&a| cx.arrays[a].readable)
            .collect();
        if all.is_empty() {
            None
        } else {
            Some(*self.rng.pick(&all))
        }
    }

    /// Indices for reading `a` here, or `None` when the rules forbid reading it.
    pub fn read_indices(&mut self, cx: &mut Ctx, a: usize, depth: u32) -> Option<Vec<String>> {
        let ai = cx.arrays[a].clone();
        if !ai.readable {
            return None;
        }
        let written_here = cx.part.len() > ai.base && cx.part[ai.base].writes.contains(&a);
        let mut idx = Vec::new();
        let mut free = false;
        for (d, &ext) in ai.arr.dims.iter().enumerate() {
            let s = ai.base + d;
            if s < cx.part.len() && cx.part[s].writes.contains(&a) {
                idx.push(cx.part[s].var.clone());
            } else {
                free = true;
                if written_here && !self.opts.has(Feature::Comm) {
                    return None;
                }
                idx.push(self.index(cx, ext, depth));
            }
        }
        if written_here && free {
            self.mark(Feature::Comm);
        }
        Some(idx)
    }

    /// Indices for storing to `a` here (caller checked `can_write`).
    pub fn write_indices(&mut self, cx: &mut Ctx, a: usize, depth: u32) -> Vec<String> {
        let ai = cx.arrays[a].clone();
        let mut idx = Vec::new();
        for (d, &ext) in ai.arr.dims.iter().enumerate() {
            let s = ai.base + d;
            if s < cx.part.len() {
                idx.push(cx.part[s].var.clone());
            } else {
                idx.push(self.index(cx, ext, depth));
            }
        }
        idx
    }

    /// Any in-range index into a dimension of extent `ext`.
    pub fn index(&mut self, cx: &mut Ctx, ext: Ext, depth: u32) -> String {
        let n = self.sizes.of(ext);
        let same: Vec<Var> = cx
            .vars
            .iter()
            .filter(|v| v.ext == Some(ext))
            .cloned()
            .collect();
        let k = self.rng.weighted(&[
            2,
            if same.is_empty() { 0 } else { 5 },
            if cx.vars.is_empty() { 0 } else { 3 },
            if depth > 0 { 1 } else { 0 },
        ]);
        match k {
            0 => self.rng.range(0, n - 1).to_string(),
            1 => {
                let v = self.rng.pick(&same).name.clone();
                match self.rng.below(3) {
                    0 => v,
                    1 => format!("{} - 1 - {v}", ext.mac()),
                    _ => format!("({v} + {}) % {}", self.rng.range(1, n.max(2)), ext.mac()),
                }
            }
            2 => {
                let v = self.rng.pick(&cx.vars).name.clone();
                let m = self.rng.range(1, 3);
                let c = self.rng.range(0, 9);
                if m == 1 {
                    format!("({v} + {c}) % {}", ext.mac())
                } else {
                    format!("({v} * {m} + {c}) % {}", ext.mac())
                }
            }
            _ => {
                // Data-dependent: ((x % N) + N) % N of an element (|x| <= VMAX).
                let e = self.leaf(cx, Elem::Long, 0);
                format!("(int)((({} % {m}) + {m}) % {m})", e.text, m = ext.mac())
            }
        }
    }

    /// `a[idx] = value;`, sometimes read-modify-write (which shows a store that ran twice).
    pub fn store(&mut self, cx: &mut Ctx, a: usize) -> String {
        let idx = self.write_indices(cx, a, 1);
        let arr = cx.arrays[a].arr.clone();
        let lhs = arr.access(&idx);
        let ty = arr.elem;
        let v = self.value(cx, ty, 3);
        let v = if self.rng.chance(40) {
            let old = E {
                text: lhs.clone(),
                ty,
                bound: VMAX,
            };
            let c = self.rng.range(2, 5);
            let mul = E {
                text: format!("({} * {})", old.text, ty.lit(c)),
                ty,
                bound: VMAX * c,
            };
            let v = self.fit_store(v);
            E {
                text: format!("({} + {})", mul.text, v.text),
                ty,
                bound: mul.bound + v.bound,
            }
        } else {
            v
        };
        cx.note(a, true, true);
        let v = self.fit_store(v);
        format!("{lhs} = {};", strip_par(&v.text))
    }
}

/// `(x)` -> `x` when the parentheses enclose the whole text.
pub fn strip_par(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'(' || b[b.len() - 1] != b')' {
        return s;
    }
    let mut depth = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 && i != b.len() - 1 {
                    return s;
                }
            }
            _ => {}
        }
    }
    &s[1..s.len() - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn strip_outer_parens_only() {
        assert_eq!(strip_par("(a + b)"), "a + b");
        assert_eq!(strip_par("(a) + (b)"), "(a) + (b)");
        assert_eq!(strip_par("(double)(x)"), "(double)(x)");
        assert_eq!(strip_par("x"), "x");
    }
}
