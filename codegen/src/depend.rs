//! Dependence tests on subscript descriptions: can two memory accesses of a loop touch the
//! same bytes in two different iterations of that loop (a loop-carried dependence)?
//!
//! Pure decisions, tested without IR. autopar.rs describes each access of a loop as a byte
//! offset from its base object, a polynomial (`Poly`) over atoms: the loop's own induction
//! variable (`LoopSpace::iv`), the induction variables of loops inside it (each with its
//! range, `LoopSpace::inner`), values that change inside the loop in a way the description
//! does not follow (`LoopSpace::varying`), and everything else, which is invariant in the
//! loop and so the same in both iterations compared (symbols: `n`, the outer loops'
//! induction variables).
//!
//! Two accesses of `size_a` and `size_b` bytes at offsets `c·x + r_a` and `c·x + r_b`
//! (the same coefficient `c` of the loop's variable `x`) overlap in iterations `x1 ≠ x2`
//! when `c·(x1 - x2)` lies in `[r_b - r_a - (size_a - 1), r_b - r_a + (size_b - 1)]` for
//! some values of the inner variables (each access has its own: inner loops run whole in
//! every iteration). The tests, each of which may prove independence:
//! - GCD: every non-constant term's coefficient is a multiple of `g`, and no overlap offset
//!   is congruent to the difference of the constants modulo `g` (`a[2*i]`, `a[2*i+1]`).
//! - Bounds (Banerjee's inequalities with exact inner ranges): with a constant `c`, no
//!   non-zero multiple of `c`, up to the loop's span, lies in that interval; with a symbolic
//!   `c` (a row length `n`), the interval lies strictly inside `(-c, c)` (`a[i*n + j]` with
//!   `0 <= j < n`): delinearisation by ranges.
//! - Exact strong SIV: with constant offsets the distance is `(r_b - r_a) / c`, reported.
//!
//! Deliberately not done: polynomials are compared as written (no facts such as `n > 0`
//! beyond what the ranges give), coefficients that differ between the two accesses are left
//! to the GCD test, and the direction of a dependence is not used (any carried dependence
//! keeps the loop sequential).

use std::collections::{BTreeMap, BTreeSet};

/// An atom of a polynomial: a value the caller numbered.
pub type Atom = u32;

/// A polynomial with integer coefficients over atoms: monomial (atoms in order, repeats for
/// powers) → coefficient, without zero coefficients. i128 so that products of 64-bit
/// constants do not overflow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Poly {
    terms: BTreeMap<Vec<Atom>, i128>,
}

impl Poly {
    pub fn zero() -> Poly {
        Poly::default()
    }
    pub fn constant(c: i128) -> Poly {
        let mut p = Poly::zero();
        p.add_term(Vec::new(), c);
        p
    }
    pub fn atom(a: Atom) -> Poly {
        let mut p = Poly::zero();
        p.add_term(vec![a], 1);
        p
    }
    fn add_term(&mut self, mono: Vec<Atom>, c: i128) {
        let e = self.terms.entry(mono).or_insert(0);
        *e += c;
        if *e == 0 {
            self.terms.retain(|_, c| *c != 0);
        }
    }
    pub fn add(&self, o: &Poly) -> Poly {
        let mut p = self.clone();
        for (m, c) in &o.terms {
            p.add_term(m.clone(), *c);
        }
        p
    }
    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.scale(-1))
    }
    pub fn scale(&self, k: i128) -> Poly {
        let mut p = Poly::zero();
        for (m, c) in &self.terms {
            p.add_term(m.clone(), c * k);
        }
        p
    }
    pub fn mul(&self, o: &Poly) -> Poly {
        let mut p = Poly::zero();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &o.terms {
                let mut m: Vec<Atom> = ma.iter().chain(mb).copied().collect();
                m.sort_unstable();
                p.add_term(m, ca * cb);
            }
        }
        p
    }
    /// The value when the polynomial has no atoms.
    pub fn as_constant(&self) -> Option<i128> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }
    /// Provably positive: a positive constant (nothing is assumed about the atoms).
    fn positive(&self) -> bool {
        self.as_constant().is_some_and(|c| c > 0)
    }
    /// Provably positive whenever the loop has two iterations (`span >= 1`): a positive
    /// constant, or, when the span is `±A + b` for one atom `A`, a polynomial linear in `A`
    /// that is positive at span 1 and does not decrease with the span.
    fn positive_given(&self, span: Option<&Poly>) -> bool {
        if self.positive() {
            return true;
        }
        let Some(span) = span else { return false };
        let b = span.constant_term();
        let span_terms: Vec<_> = span.terms.iter().filter(|(m, _)| !m.is_empty()).collect();
        let own_terms: Vec<_> = self.terms.iter().filter(|(m, _)| !m.is_empty()).collect();
        let ([(mono, k)], [(pm, p1)]) = (span_terms.as_slice(), own_terms.as_slice()) else {
            return false;
        };
        if mono.len() != 1 || pm != mono || k.abs() != 1 {
            return false;
        }
        // A = k (S - b): self = p1 k S + (p0 - p1 k b).
        let (alpha, beta) = (*p1 * *k, self.constant_term() - *p1 * *k * b);
        alpha >= 0 && alpha + beta > 0
    }
    pub fn atoms(&self) -> BTreeSet<Atom> {
        self.terms.keys().flatten().copied().collect()
    }
    fn constant_term(&self) -> i128 {
        self.terms.get(&Vec::new()).copied().unwrap_or(0)
    }
    /// `self = coefficient · x + rest`, `x` in neither part; None when `x` appears squared.
    fn split(&self, x: Atom) -> Option<(Poly, Poly)> {
        let (mut coef, mut rest) = (Poly::zero(), Poly::zero());
        for (m, c) in &self.terms {
            match m.iter().filter(|a| **a == x).count() {
                0 => rest.add_term(m.clone(), *c),
                1 => coef.add_term(m.iter().copied().filter(|a| *a != x).collect(), *c),
                _ => return None,
            }
        }
        Some((coef, rest))
    }
}

/// Inclusive range of an inner loop's induction variable, over symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: Poly,
    pub hi: Poly,
}

/// One memory access: `size` bytes at byte offset `offset` from its base object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscript {
    pub offset: Poly,
    pub size: u64,
}

/// The loop the question is about, and what its atoms are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopSpace {
    /// The loop's induction variable.
    pub iv: Atom,
    /// `max - min` of the induction variable, when known.
    pub span: Option<Poly>,
    /// The induction variable's range, when known.
    pub iv_range: Option<Range>,
    /// Induction variables of loops inside it, with their ranges.
    pub inner: BTreeMap<Atom, Range>,
    /// Atoms that change inside the loop with no known range.
    pub varying: BTreeSet<Atom>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No two different iterations touch a common byte.
    Independent,
    /// Two different iterations do (or may): with the distance in values of the induction
    /// variable when it is exact.
    Carried { distance: Option<i128> },
    /// The subscripts are not affine in a way the tests can use.
    Unknown,
}

/// Whether accesses `a` and `b` (of the same base object) may overlap in two different
/// iterations of the loop `space` describes.
pub fn carried(a: &Subscript, b: &Subscript, space: &LoopSpace) -> Verdict {
    if gcd_disproves(a, b) {
        return Verdict::Independent;
    }
    let varies = |p: &Poly| p.atoms().iter().any(|x| space.varying.contains(x));
    if varies(&a.offset) || varies(&b.offset) {
        return Verdict::Unknown;
    }
    let (Some((ca, ra)), Some((cb, rb))) = (a.offset.split(space.iv), b.offset.split(space.iv)) else {
        return Verdict::Unknown;
    };
    let inner_in = |p: &Poly| p.atoms().iter().any(|x| space.inner.contains_key(x));
    if ranges_apart(a, b, space) {
        return Verdict::Independent;
    }
    if ca != cb || inner_in(&ca) {
        return Verdict::Unknown;
    }
    let (Some((lo_a, hi_a)), Some((lo_b, hi_b))) = (bounds(&ra, space), bounds(&rb, space)) else {
        return Verdict::Unknown;
    };
    // The overlap condition: c·Δ ∈ [rmin, rmax], Δ = x1 - x2 ≠ 0.
    let (sa, sb) = (i128::from(a.size), i128::from(b.size));
    let rmin = lo_b.sub(&hi_a).sub(&Poly::constant(sa - 1));
    let rmax = hi_b.sub(&lo_a).add(&Poly::constant(sb - 1));
    // Exact only when no inner variable (which differs between the two accesses) remains.
    let distance = (!inner_in(&ra) && !inner_in(&rb)).then(|| rb.sub(&ra).as_constant()).flatten();
    match ca.as_constant() {
        // The same bytes in every iteration, unless the inner ranges keep them apart.
        Some(0) => {
            if rmin.positive_given(space.span.as_ref()) || rmax.scale(-1).positive_given(space.span.as_ref()) {
                Verdict::Independent
            } else {
                Verdict::Carried { distance: None }
            }
        }
        Some(c) => constant_coefficient(c, &rmin, &rmax, space.span.as_ref(), distance),
        None => {
            let positive = |p: Poly| p.positive_given(space.span.as_ref());
            let inside = |c: &Poly| positive(c.sub(&rmax)) && positive(c.add(&rmin));
            if inside(&ca) || inside(&ca.scale(-1)) {
                Verdict::Independent
            } else {
                Verdict::Unknown
            }
        }
    }
}

/// The bounds test for a constant coefficient `c` (the IV's stride in bytes).
fn constant_coefficient(c: i128, rmin: &Poly, rmax: &Poly, span: Option<&Poly>, distance: Option<i128>) -> Verdict {
    // c > 0: negate the interval otherwise.
    let (c, rmin, rmax, distance) = if c < 0 { (-c, rmax.scale(-1), rmin.scale(-1), distance.map(|d| -d)) } else { (c, rmin.clone(), rmax.clone(), distance) };
    // Δ ≥ 1: c·Δ ≤ rmax needs rmax ≥ c; c·Δ ≥ rmin needs rmin ≤ c·span.
    let positive = |p: Poly| p.positive_given(span);
    let above_impossible = positive(Poly::constant(c).sub(&rmax)) || span.is_some_and(|s| positive(rmin.sub(&s.scale(c))));
    // Δ ≤ -1: c·Δ ≥ rmin needs rmin ≤ -c; c·Δ ≤ rmax needs rmax ≥ -c·span.
    let below_impossible = positive(rmin.add(&Poly::constant(c))) || span.is_some_and(|s| positive(rmax.add(&s.scale(c)).scale(-1)));
    if above_impossible && below_impossible {
        return Verdict::Independent;
    }
    // A constant interval: the multiples of c in it, exactly.
    if let (Some(lo), Some(hi)) = (rmin.as_constant(), rmax.as_constant()) {
        let limit = span.and_then(Poly::as_constant).unwrap_or(i128::MAX);
        let above = div_ceil(lo, c).max(1) <= div_floor(hi, c).min(limit);
        let below = div_ceil(lo, c).max(-limit) <= div_floor(hi, c).min(-1);
        if !above && !below {
            return Verdict::Independent;
        }
    }
    let exact = distance.filter(|d| d % c == 0).map(|d| d / c).filter(|d| *d != 0);
    Verdict::Carried { distance: exact }
}

fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    -div_floor(-a, b)
}

/// Banerjee's test over every variable's range, the loop's own included: the byte ranges
/// the two accesses can reach over the whole loop do not meet (`a[j]` and `a[n - 1 - j]`
/// for `j < n / 2`, or a row and the mirrored previous row).
fn ranges_apart(a: &Subscript, b: &Subscript, space: &LoopSpace) -> bool {
    let Some(iv_range) = &space.iv_range else { return false };
    let mut all = space.clone();
    all.inner.insert(space.iv, iv_range.clone());
    let (Some((lo_a, hi_a)), Some((lo_b, hi_b))) = (bounds(&a.offset, &all), bounds(&b.offset, &all)) else {
        return false;
    };
    let (sa, sb) = (i128::from(a.size), i128::from(b.size));
    let span = space.span.as_ref();
    // a entirely below b, or entirely above.
    lo_b.sub(&hi_a).sub(&Poly::constant(sa - 1)).positive_given(span) || lo_a.sub(&hi_b).sub(&Poly::constant(sb - 1)).positive_given(span)
}

/// `[min, max]` of `r` over the inner variables' ranges; None when an inner variable has a
/// symbolic coefficient or appears in a product.
fn bounds(r: &Poly, space: &LoopSpace) -> Option<(Poly, Poly)> {
    let (mut lo, mut hi) = (Poly::zero(), Poly::zero());
    for (m, c) in &r.terms {
        let inner: Vec<&Atom> = m.iter().filter(|a| space.inner.contains_key(a)).collect();
        match inner.as_slice() {
            [] => {
                let t = Poly { terms: BTreeMap::from([(m.clone(), *c)]) };
                lo = lo.add(&t);
                hi = hi.add(&t);
            }
            [x] if m.len() == 1 => {
                let range = &space.inner[*x];
                let (l, h) = if *c > 0 { (&range.lo, &range.hi) } else { (&range.hi, &range.lo) };
                lo = lo.add(&l.scale(*c));
                hi = hi.add(&h.scale(*c));
            }
            _ => return None,
        }
    }
    Some((lo, hi))
}

/// The GCD test: every non-constant term of both offsets is a multiple of `g`, so the
/// offsets differ by the difference of their constants modulo `g`; the accesses overlap
/// only if some byte distance in `[-(size_a - 1), size_b - 1]` has that remainder.
fn gcd_disproves(a: &Subscript, b: &Subscript) -> bool {
    let g = a.offset.terms.iter().chain(&b.offset.terms).filter(|(m, _)| !m.is_empty()).fold(0i128, |g, (_, c)| gcd(g, c.abs()));
    if g == 0 {
        return false;
    }
    let d = a.offset.constant_term() - b.offset.constant_term();
    let (sa, sb) = (i128::from(a.size), i128::from(b.size));
    // Overlap: offset_a - offset_b ∈ [-(size_a - 1), size_b - 1].
    !(-(sa - 1)..=(sb - 1)).any(|e| (e - d).rem_euclid(g) == 0)
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: Atom = 0;
    const J: Atom = 1;
    const N: Atom = 2;
    const M: Atom = 3;

    fn c(v: i128) -> Poly {
        Poly::constant(v)
    }
    fn at(a: Atom) -> Poly {
        Poly::atom(a)
    }
    fn sub(offset: Poly) -> Subscript {
        Subscript { offset, size: 8 }
    }
    /// 8-byte elements: `8 * (index)`.
    fn el(index: Poly) -> Subscript {
        sub(index.scale(8))
    }
    fn space() -> LoopSpace {
        LoopSpace { iv: X, span: None, ..LoopSpace::default() }
    }

    #[test]
    fn polynomials() {
        let p = at(X).add(&c(1)).mul(&at(N)); // (x + 1) n
        assert_eq!(p.split(X), Some((at(N), at(N))));
        assert_eq!(p.sub(&p), Poly::zero());
        assert_eq!(c(3).as_constant(), Some(3));
        assert_eq!(at(X).mul(&at(X)).split(X), None);
    }

    #[test]
    fn same_element_in_each_iteration_is_independent() {
        // a[i] = a[i] + 1
        assert_eq!(carried(&el(at(X)), &el(at(X)), &space()), Verdict::Independent);
    }

    #[test]
    fn previous_element_is_carried_with_its_distance() {
        // a[i] = a[i-1] + 1
        assert_eq!(carried(&el(at(X)), &el(at(X).sub(&c(1))), &space()), Verdict::Carried { distance: Some(-1) });
        assert_eq!(carried(&el(at(X)), &el(at(X).add(&c(3))), &space()), Verdict::Carried { distance: Some(3) });
    }

    #[test]
    fn gcd_separates_even_and_odd_elements() {
        // a[2i] = a[2i+1]
        let even = el(at(X).scale(2));
        let odd = el(at(X).scale(2).add(&c(1)));
        assert_eq!(carried(&even, &odd, &space()), Verdict::Independent);
        // With a symbolic base offset that is a multiple too: a[2*(i+n)] vs a[2*(i+n)+1].
        let even = el(at(X).add(&at(N)).scale(2));
        let odd = el(at(X).add(&at(N)).scale(2).add(&c(1)));
        assert_eq!(carried(&even, &odd, &space()), Verdict::Independent);
    }

    #[test]
    fn invariant_location_is_carried() {
        // s = s + a[i]: the same 8 bytes in every iteration.
        assert_eq!(carried(&sub(c(0)), &sub(c(0)), &space()), Verdict::Carried { distance: None });
        assert_eq!(carried(&sub(at(N)), &sub(at(N)), &space()), Verdict::Carried { distance: None });
    }

    #[test]
    fn rows_of_a_constant_width_array() {
        // x[i][j] = x[i-1][j], rows of 33 doubles, j in [0, 32] (an inner loop).
        let mut s = space();
        s.inner.insert(J, Range { lo: c(0), hi: c(32) });
        let row = |d: i128| el(at(X).add(&c(d)).scale(33).add(&at(J)));
        assert_eq!(carried(&row(0), &row(-1), &s), Verdict::Carried { distance: None });
        assert_eq!(carried(&row(0), &row(0), &s), Verdict::Independent);
        // The j loop itself, i an invariant symbol (atom N here): x[i][j] and x[i-1][j] are
        // 33 elements apart, more than the j loop's span of 32.
        let mut sj = LoopSpace { iv: J, span: Some(c(32)), ..LoopSpace::default() };
        sj.inner.clear();
        let rowj = |d: i128| el(at(N).add(&c(d)).scale(33).add(&at(J)));
        assert_eq!(carried(&rowj(0), &rowj(-1), &sj), Verdict::Independent);
        // Without a known span the distance of 33 may be reached.
        sj.span = None;
        assert_eq!(carried(&rowj(0), &rowj(-1), &sj), Verdict::Carried { distance: Some(-33) });
    }

    #[test]
    fn rows_of_a_symbolic_width_delinearise() {
        // v[i*n + j] written, u... no: a[i*n + j] = a[(i-1)*n + j] + a[i*n + j - 1], 1 <= j <= n - 2.
        let mut s = space();
        s.inner.insert(J, Range { lo: c(1), hi: at(N).sub(&c(2)) });
        let at_ij = |di: i128, dj: i128| el(at(X).add(&c(di)).mul(&at(N)).add(&at(J)).add(&c(dj)));
        // Same row, neighbouring columns: never another row's element.
        assert_eq!(carried(&at_ij(0, 0), &at_ij(0, -1), &s), Verdict::Independent);
        assert_eq!(carried(&at_ij(0, 0), &at_ij(0, 1), &s), Verdict::Independent);
        // The row above: carried (not provable).
        assert_ne!(carried(&at_ij(0, 0), &at_ij(-1, 0), &s), Verdict::Independent);
        // j over the whole row plus one: the ranges overlap the next row.
        s.inner.insert(J, Range { lo: c(0), hi: at(N) });
        assert_ne!(carried(&at_ij(0, 0), &at_ij(0, 0), &s), Verdict::Independent);
        // The j loop of a[i*n + j] = a[i*n + j - 1]: carried with distance 1.
        let sj = LoopSpace { iv: J, span: None, ..LoopSpace::default() };
        let row = |dj: i128| el(at(N).mul(&at(M)).add(&at(J)).add(&c(dj)));
        assert_eq!(carried(&row(0), &row(-1), &sj), Verdict::Carried { distance: Some(-1) });
        // ... and a[i*n + j] = a[(i-1)*n + j] in the j loop (j < n, span n - 1): the row
        // above lies n elements away, more than the span.
        let sj = LoopSpace { iv: J, span: Some(at(N).sub(&c(1))), ..LoopSpace::default() };
        let up = |di: i128| el(at(M).add(&c(di)).mul(&at(N)).add(&at(J)));
        assert_eq!(carried(&up(0), &up(-1), &sj), Verdict::Independent);
    }

    #[test]
    fn varying_and_different_strides_are_unknown() {
        let mut s = space();
        s.varying.insert(M);
        // a[idx[i]]
        assert_eq!(carried(&el(at(M)), &el(at(X)), &s), Verdict::Unknown);
        // a[2i] and a[i]: different coefficients (the GCD test does not separate them).
        assert_eq!(carried(&el(at(X).scale(2)), &el(at(X)), &space()), Verdict::Unknown);
        // a[i*i]
        assert_eq!(carried(&el(at(X).mul(&at(X))), &el(at(X)), &space()), Verdict::Unknown);
    }

    #[test]
    fn mirrored_subscripts_are_apart() {
        // x[i][j] = x[i-1][40 - j] in the j loop (j in [0, 40], rows of 41, i a symbol): the
        // row above never meets the row written, whatever the mirrored column.
        let mut s = LoopSpace { iv: J, span: Some(c(40)), iv_range: Some(Range { lo: c(0), hi: c(40) }), ..LoopSpace::default() };
        let store = el(at(N).scale(41).add(&at(J)));
        let load = el(at(N).sub(&c(1)).scale(41).add(&c(40)).sub(&at(J)));
        assert_eq!(carried(&store, &load, &s), Verdict::Independent);
        // a[j] = a[40 - j]: the halves meet in the middle.
        assert_ne!(carried(&el(at(J)), &el(c(40).sub(&at(J))), &s), Verdict::Independent);
        // Without the loop's range nothing is known.
        s.iv_range = None;
        assert_eq!(carried(&store, &load, &s), Verdict::Unknown);
    }

    #[test]
    fn access_sizes_count() {
        // An 8-byte store at 8i and a 4-byte load at 8i + 4 (the upper half): same iteration.
        let load = Subscript { offset: at(X).scale(8).add(&c(4)), size: 4 };
        assert_eq!(carried(&el(at(X)), &load, &space()), Verdict::Independent);
        // A 16-byte access at 8i overlaps the next iteration's 8 bytes.
        let wide = Subscript { offset: at(X).scale(8), size: 16 };
        assert_eq!(carried(&wide, &el(at(X)), &space()), Verdict::Carried { distance: None });
    }

    #[test]
    fn floor_and_ceil() {
        assert_eq!((div_floor(-7, 2), div_ceil(-7, 2), div_floor(7, 2), div_ceil(7, 2)), (-4, -3, 3, 4));
    }
}
