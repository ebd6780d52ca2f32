//! Which parallelism level each loop of a compute region gets, and the default launch shape.
//!
//! Pure decisions over a description of the loop nest (`LoopDesc`), tested without IR.
//! Levels follow the OpenUH mapping (shared/seeds/nested-loop-transformation-openuh-ccpe.txt):
//! gang → blockIdx.x, worker → threadIdx.y, vector → threadIdx.x; every partitioned loop
//! strides by the number of threads at its levels, so any trip count runs on any launch.
//! A `gang(dim: d)` loop's gang level is grid dimension d (blockIdx.y, .z); gang loops nest
//! by decreasing dimension (OpenACC 3.3 §2.9.2), and `grid_shape` says how the host sizes
//! each dimension.
//!
//! Loops without a level clause: in `parallel`, an `independent` (implicit) loop gets the
//! outermost free level(s): the outermost gets gang (and vector too when it is alone), the
//! innermost vector, one in between worker. `auto` loops and loops in `kernels` without
//! `independent` get levels the same way once autopar.rs has proved their iterations
//! independent (`LoopDesc::proven`), as NVHPC maps `kernels`; a proven loop inside a
//! sequential loop of the same kernel (a `seq` or unproven one, or a loop no directive names:
//! `while`, a cycle made by `goto`) gets no gang level (gangs cannot wait for each other
//! between the outer loop's iterations, which the dependence that keeps the outer loop
//! sequential may need), only worker and vector. Unproven ones, and everything in `serial`,
//! run sequentially.

use crate::contract::ComputeKind;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Levels {
    pub gang: bool,
    pub worker: bool,
    pub vector: bool,
}

impl Levels {
    pub const NONE: Levels = Levels { gang: false, worker: false, vector: false };
    pub fn is_seq(self) -> bool {
        self == Levels::NONE
    }
    pub fn union(self, o: Levels) -> Levels {
        Levels { gang: self.gang || o.gang, worker: self.worker || o.worker, vector: self.vector || o.vector }
    }
    /// The innermost level used (0 none, 1 gang, 2 worker, 3 vector).
    fn depth(self) -> u8 {
        if self.vector {
            3
        } else if self.worker {
            2
        } else if self.gang {
            1
        } else {
            0
        }
    }
    pub fn describe(self) -> String {
        use acc_directives::Clause;
        let mut v = Vec::new();
        if self.gang {
            v.push(Clause::Gang.name());
        }
        if self.worker {
            v.push(Clause::Worker.name());
        }
        if self.vector {
            v.push(Clause::Vector.name());
        }
        if v.is_empty() {
            Clause::Seq.name().into()
        } else {
            v.join(" ")
        }
    }
}

/// What the directive says about one loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// gang/worker/vector clauses given.
    Explicit(Levels),
    Seq,
    Auto,
    Independent,
    /// No clause: independent in `parallel`, auto in `kernels`.
    Unspecified,
    /// No directive: a plain `for` of `kernels` the rewriter marked (driver/src/implicit.rs),
    /// decided like `Unspecified` there.
    Implicit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopDesc {
    pub kind: LoopKind,
    /// Index of the enclosing acc loop in the same region, if any.
    pub parent: Option<usize>,
    /// `gang(dim: d)`: the gang dimension the loop is partitioned over when it gets the gang
    /// level (1 without the argument, and for a gang level the compiler assigns).
    pub gang_dim: u8,
    /// autopar.rs proved the iterations independent (meaningful for `auto` loops and loops
    /// of `kernels` without a clause).
    pub proven: bool,
    /// The loop runs inside a loop of the kernel that no `loop` directive names (a `while`,
    /// a `for` without a directive, a cycle made by `goto`): a sequential loop as far as the
    /// gang level goes, like an enclosing `seq` loop.
    pub in_plain_loop: bool,
}

/// Whether the levels of a loop of this kind in this construct depend on a proof that its
/// iterations are independent (autopar.rs).
pub fn needs_proof(compute: ComputeKind, kind: LoopKind) -> bool {
    match kind {
        LoopKind::Auto => !compute.is_sequential(),
        LoopKind::Unspecified | LoopKind::Implicit => compute == ComputeKind::Kernels,
        _ => false,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MappingError {
    /// A loop uses a level that an enclosing loop already uses, or an outer level.
    BadNesting { loop_index: usize, levels: Levels, outer: Levels },
    /// A gang loop inside a gang loop whose dimension is not higher (OpenACC 3.3 §2.9.2: a
    /// `gang(dim: d)` loop may contain only gang loops of a lower dimension).
    BadGangDim { loop_index: usize, dim: u8, outer_dim: u8 },
}

/// Assigns levels to every loop (`loops` are in program order, parents before children).
pub fn assign_levels(compute: ComputeKind, loops: &[LoopDesc]) -> Result<Vec<Levels>, MappingError> {
    let n = loops.len();
    let by_proof = |i: usize| needs_proof(compute, loops[i].kind);
    let assignable = |i: usize| match loops[i].kind {
        LoopKind::Independent => !compute.is_sequential(),
        LoopKind::Unspecified if compute == ComputeKind::Parallel => true,
        _ => by_proof(i) && loops[i].proven,
    };
    // Levels used explicitly anywhere below loop i.
    fn below(i: usize, loops: &[LoopDesc]) -> Levels {
        let mut acc = Levels::NONE;
        for j in 0..loops.len() {
            if loops[j].parent == Some(i) {
                if let LoopKind::Explicit(l) = loops[j].kind {
                    acc = acc.union(l);
                }
                acc = acc.union(below(j, loops));
            }
        }
        acc
    }
    fn assignable_below(i: usize, loops: &[LoopDesc], assignable: &dyn Fn(usize) -> bool) -> bool {
        (0..loops.len()).any(|j| loops[j].parent == Some(i) && (assignable(j) || assignable_below(j, loops, assignable)))
    }
    let mut out = vec![Levels::NONE; n];
    for i in 0..n {
        let outer = enclosing(i, loops, &out);
        let under_sequential = {
            let mut p = loops[i].parent;
            let mut seq = loops[i].in_plain_loop;
            while let Some(j) = p {
                seq |= out[j].is_seq();
                p = loops[j].parent;
            }
            seq
        };
        let gang_allowed = !(by_proof(i) && under_sequential);
        let levels = match loops[i].kind {
            LoopKind::Explicit(_) if compute.is_sequential() => Levels::NONE,
            LoopKind::Explicit(l) => l,
            _ if assignable(i) => {
                let inner = below(i, loops);
                let inner_shallowest = if inner.gang { 1 } else if inner.worker { 2 } else if inner.vector { 3 } else { 4 };
                // A level is free when it is inside every enclosing level and outside every
                // level used below.
                let ok = |depth: u8| outer.depth() < depth && depth < inner_shallowest && (depth != 1 || gang_allowed);
                if assignable_below(i, loops, &assignable) {
                    // Leave the vector level to the innermost assignable loop.
                    if ok(1) {
                        Levels { gang: true, ..Levels::NONE }
                    } else if ok(2) {
                        Levels { worker: true, ..Levels::NONE }
                    } else {
                        Levels::NONE
                    }
                } else {
                    let l = Levels { gang: ok(1), worker: false, vector: ok(3) };
                    if l.is_seq() && ok(2) {
                        Levels { worker: true, ..Levels::NONE }
                    } else {
                        l
                    }
                }
            }
            _ => Levels::NONE,
        };
        // Nesting rule: a loop's levels must all be inner to every enclosing loop's levels,
        // but for gang loops of decreasing dimensions inside gang-only loops.
        if !levels.is_seq() {
            let shallowest = if levels.gang { 1 } else if levels.worker { 2 } else { 3 };
            let outer_gang_only = outer.gang && !outer.worker && !outer.vector;
            if levels.gang && outer_gang_only {
                let outer_dim = enclosing_gang_dim(i, loops, &out).expect("an enclosing loop has the gang level");
                if loops[i].gang_dim >= outer_dim {
                    return Err(MappingError::BadGangDim { loop_index: i, dim: loops[i].gang_dim, outer_dim });
                }
            } else if shallowest <= outer.depth() {
                return Err(MappingError::BadNesting { loop_index: i, levels, outer });
            }
        }
        out[i] = levels;
    }
    Ok(out)
}

/// The lowest gang dimension of the gang loops enclosing loop i (None: no gang loop).
fn enclosing_gang_dim(i: usize, loops: &[LoopDesc], assigned: &[Levels]) -> Option<u8> {
    let mut dim = None;
    let mut p = loops[i].parent;
    while let Some(j) = p {
        if assigned[j].gang {
            dim = Some(dim.map_or(loops[j].gang_dim, |d: u8| d.min(loops[j].gang_dim)));
        }
        p = loops[j].parent;
    }
    dim
}

fn enclosing(i: usize, loops: &[LoopDesc], assigned: &[Levels]) -> Levels {
    let mut acc = Levels::NONE;
    let mut p = loops[i].parent;
    while let Some(j) = p {
        acc = acc.union(assigned[j]);
        p = loops[j].parent;
    }
    acc
}

/// The levels each loop is partitioned over, from the levels it was given (`assigned`):
/// a vector loop that no enclosing loop spreads over workers takes the worker level too,
/// and a partitioned loop with no partitioned loop inside takes every finer level. Both
/// keep the program's meaning (the iterations are independent) while no thread runs
/// worker-single or vector-single code that a lane of another worker repeats or waits for.
///
/// A loop of `pinned` (a gang loop whose iterations write memory its gang shares:
/// `privatize::writes_gang_memory`) keeps its gang level alone.
pub fn effective_levels(assigned: &[Levels], parents: &[Option<usize>], pinned: &[bool]) -> Vec<Levels> {
    let ancestors = |i: usize| {
        let mut acc = Levels::NONE;
        let mut p = parents[i];
        while let Some(j) = p {
            acc = acc.union(assigned[j]);
            p = parents[j];
        }
        acc
    };
    let has_partitioned_descendant = |i: usize| {
        (0..assigned.len()).any(|j| {
            let mut p = parents[j];
            while let Some(a) = p {
                if a == i {
                    return !assigned[j].is_seq();
                }
                p = parents[a];
            }
            false
        })
    };
    (0..assigned.len())
        .map(|i| {
            let mut l = assigned[i];
            if l.is_seq() {
                return l;
            }
            if l.vector && !ancestors(i).worker {
                l.worker = true;
            }
            let pinned_gang_loop = l.gang && pinned.get(i) == Some(&true);
            if !has_partitioned_descendant(i) && !pinned_gang_loop {
                l.worker |= l.gang;
                l.vector = true;
            }
            l
        })
        .collect()
}

/// Default launch shape for a kernel given the levels its loops use; clauses override.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub num_workers: i64,
    pub vector_length: i64,
}

pub fn default_shape(compute: ComputeKind, used: &[Levels]) -> LaunchShape {
    if compute.is_sequential() {
        return LaunchShape { num_workers: 1, vector_length: 1 };
    }
    let worker = used.iter().any(|l| l.worker);
    let vector = used.iter().any(|l| l.vector);
    match (worker, vector) {
        (true, true) => LaunchShape { num_workers: 4, vector_length: 32 },
        (true, false) => LaunchShape { num_workers: 8, vector_length: 1 },
        (false, true) => LaunchShape { num_workers: 1, vector_length: 256 },
        (false, false) => LaunchShape { num_workers: 1, vector_length: 1 },
    }
}

/// Where the host takes the gang count of one grid dimension from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GangCount {
    /// Value i of the `num_gangs` clause (or a `kernels` loop's `gang(num:)`).
    Clause(usize),
    /// The trip count of the first loop partitioned over the dimension (the runtime's
    /// default when the host cannot compute it).
    Trip,
    One,
}

/// The grid's shape (gang dimensions 1, 2, 3): a sequential construct, and a region without
/// `num_gangs` and without gang loops, run one gang; `num_gangs` gives its values, the
/// dimensions it leaves out being 1 (OpenACC 3.3 §2.5.10); otherwise each dimension that a
/// gang loop is partitioned over (`gang_dims`, those loops' `dim:`) is sized by that loop's
/// trip count and the others are 1, so no gang repeats another's work.
pub fn grid_shape(sequential: bool, clause_values: usize, gang_dims: &[u8]) -> [GangCount; 3] {
    let mut shape = [GangCount::One; 3];
    if sequential {
        return shape;
    }
    for (d, s) in shape.iter_mut().enumerate() {
        if clause_values > 0 {
            if d < clause_values {
                *s = GangCount::Clause(d);
            }
        } else if gang_dims.contains(&(d as u8 + 1)) {
            *s = GangCount::Trip;
        }
    }
    shape
}

#[cfg(test)]
mod tests {
    use super::*;
    use ComputeKind::*;
    use LoopKind::*;

    const G: Levels = Levels { gang: true, worker: false, vector: false };
    const W: Levels = Levels { gang: false, worker: true, vector: false };
    const V: Levels = Levels { gang: false, worker: false, vector: true };
    const GV: Levels = Levels { gang: true, worker: false, vector: true };

    const WV: Levels = Levels { gang: false, worker: true, vector: true };
    const GWV: Levels = Levels { gang: true, worker: true, vector: true };

    #[test]
    fn effective_levels_spread_vector_loops_over_workers() {
        // gang { vector; vector }: each vector loop also spreads over workers.
        assert_eq!(effective_levels(&[G, V, V], &[None, Some(0), Some(0)], &[]), vec![G, WV, WV]);
        // gang { worker { vector } }: unchanged.
        assert_eq!(effective_levels(&[G, W, V], &[None, Some(0), Some(1)], &[]), vec![G, W, V]);
        // gang { worker { seq } }: the innermost partitioned loop takes the vector level.
        assert_eq!(effective_levels(&[G, W, Levels::NONE], &[None, Some(0), Some(1)], &[]), vec![G, WV, Levels::NONE]);
        // A lone gang loop takes everything; a gang vector one gets workers.
        assert_eq!(effective_levels(&[G], &[None], &[]), vec![GWV]);
        // ... unless its iterations write memory the gang shares.
        assert_eq!(effective_levels(&[G], &[None], &[true]), vec![G]);
        assert_eq!(effective_levels(&[GV], &[None], &[]), vec![GWV]);
        // seq loops stay sequential; a gang loop with a partitioned loop under a seq loop keeps its level.
        assert_eq!(effective_levels(&[G, Levels::NONE, V], &[None, Some(0), Some(1)], &[]), vec![G, Levels::NONE, WV]);
    }

    fn l(kind: LoopKind, parent: Option<usize>) -> LoopDesc {
        LoopDesc { kind, parent, gang_dim: 1, proven: false, in_plain_loop: false }
    }
    fn gang_dim(d: u8, parent: Option<usize>) -> LoopDesc {
        LoopDesc { kind: Explicit(G), parent, gang_dim: d, proven: false, in_plain_loop: false }
    }

    #[test]
    fn gang_loops_nest_by_decreasing_dimension() {
        // gang(dim: 3) { gang(dim: 2) { gang(dim: 1) { vector } } }
        let r = assign_levels(Parallel, &[gang_dim(3, None), gang_dim(2, Some(0)), gang_dim(1, Some(1)), l(Explicit(V), Some(2))]).unwrap();
        assert_eq!(r, vec![G, G, G, V]);
        // gang(dim: 2) { unspecified }: the inner loop gets the thread levels, not a gang dimension.
        assert_eq!(assign_levels(Parallel, &[gang_dim(2, None), l(Unspecified, Some(0))]).unwrap(), vec![G, V]);
        // Same or higher dimension inside: an error naming both dimensions.
        let e = assign_levels(Parallel, &[gang_dim(2, None), gang_dim(2, Some(0))]).unwrap_err();
        assert_eq!(e, MappingError::BadGangDim { loop_index: 1, dim: 2, outer_dim: 2 });
        let e = assign_levels(Parallel, &[gang_dim(3, None), gang_dim(1, Some(0)), gang_dim(2, Some(1))]).unwrap_err();
        assert_eq!(e, MappingError::BadGangDim { loop_index: 2, dim: 2, outer_dim: 1 });
        // A gang loop inside a worker loop stays a nesting error whatever its dimension.
        let e = assign_levels(Parallel, &[l(Explicit(GWV), None), gang_dim(1, Some(0))]).unwrap_err();
        assert!(matches!(e, MappingError::BadNesting { loop_index: 1, .. }));
    }

    #[test]
    fn grid_shapes() {
        use GangCount::*;
        // No clause: the dimensions gang loops use, sized by their trip counts.
        assert_eq!(grid_shape(false, 0, &[1]), [Trip, One, One]);
        assert_eq!(grid_shape(false, 0, &[2, 1]), [Trip, Trip, One]);
        assert_eq!(grid_shape(false, 0, &[2]), [One, Trip, One]);
        assert_eq!(grid_shape(false, 0, &[3, 1]), [Trip, One, Trip]);
        assert_eq!(grid_shape(false, 0, &[]), [One, One, One]);
        // num_gangs: its values, the dimensions it leaves out are 1 (OpenACC 3.3 §2.5.10).
        assert_eq!(grid_shape(false, 2, &[3, 2, 1]), [Clause(0), Clause(1), One]);
        assert_eq!(grid_shape(false, 1, &[2]), [Clause(0), One, One]);
        assert_eq!(grid_shape(false, 3, &[]), [Clause(0), Clause(1), Clause(2)]);
        // serial and the sequential parts of kernels: one gang.
        assert_eq!(grid_shape(true, 2, &[1]), [One, One, One]);
    }

        
    fn proven(kind: LoopKind, parent: Option<usize>) -> LoopDesc {
        LoopDesc { kind, parent, gang_dim: 1, proven: true, in_plain_loop: false }
    }

    #[test]
    fn proven_loops_map_like_independent_ones() {
        // kernels: one proven loop gets gang and vector; a proven nest gang, then vector.
        assert_eq!(assign_levels(Kernels, &[proven(Unspecified, None)]).unwrap(), vec![GV]);
        assert_eq!(assign_levels(Kernels, &[proven(Unspecified, None), proven(Unspecified, Some(0))]).unwrap(), vec![G, V]);
        // auto anywhere but serial.
        assert_eq!(assign_levels(Parallel, &[proven(Auto, None)]).unwrap(), vec![GV]);
        assert_eq!(assign_levels(Kernels, &[l(Auto, None), proven(Auto, Some(0))]).unwrap(), vec![Levels::NONE, V], "no gang under a sequential loop");
        // Two proved loops inside a `while` of a kernels region: they communicate through
        // memory between the while's iterations, which gangs cannot wait for.
        let in_while = LoopDesc { in_plain_loop: true, ..proven(Unspecified, None) };
        assert_eq!(assign_levels(Kernels, &[in_while.clone(), in_while]).unwrap(), vec![V, V], "no gang inside a plain loop");
        assert_eq!(assign_levels(Serial, &[proven(Auto, None)]).unwrap(), vec![Levels::NONE]);
        // A proven outer loop over an unproven inner one: the outer takes everything.
        assert_eq!(assign_levels(Kernels, &[proven(Unspecified, None), l(Unspecified, Some(0))]).unwrap(), vec![GV, Levels::NONE]);
        // Under a sequential kernels loop: worker and vector only, in a three-deep nest too.
        let r = assign_levels(Kernels, &[l(Unspecified, None), proven(Unspecified, Some(0)), proven(Unspecified, Some(1))]).unwrap();
        assert_eq!(r, vec![Levels::NONE, W, V]);
        // An explicit independent loop under a sequential one keeps the gang level (the user said so).
        assert_eq!(assign_levels(Kernels, &[l(Unspecified, None), l(Independent, Some(0))]).unwrap(), vec![Levels::NONE, GV]);
        // needs_proof
        assert!(needs_proof(Kernels, Unspecified) && needs_proof(Parallel, Auto) && needs_proof(Kernels, Auto));
        assert!(!needs_proof(Parallel, Unspecified) && !needs_proof(Serial, Auto) && !needs_proof(Kernels, Independent));
        assert!(needs_proof(Kernels, Implicit) && !needs_proof(KernelsSequential, Implicit));
        // Implicit loops map as kernels loops without a clause: a proven nest gang, then vector.
        assert_eq!(assign_levels(Kernels, &[proven(Implicit, None), proven(Implicit, Some(0))]).unwrap(), vec![G, V]);
        assert_eq!(assign_levels(Kernels, &[proven(Implicit, None), l(Implicit, Some(0))]).unwrap(), vec![GV, Levels::NONE]);
    }

    #[test]
    fn single_loop_gets_gang_vector() {
        assert_eq!(assign_levels(Parallel, &[l(Unspecified, None)]).unwrap(), vec![GV]);
    }

    #[test]
    fn double_nest_gets_gang_then_vector() {
        let r = assign_levels(Parallel, &[l(Unspecified, None), l(Unspecified, Some(0))]).unwrap();
        assert_eq!(r, vec![G, V]);
    }

    #[test]
    fn triple_nest_gets_gang_worker_vector() {
        let r = assign_levels(Parallel, &[l(Unspecified, None), l(Unspecified, Some(0)), l(Unspecified, Some(1))]).unwrap();
        assert_eq!(r, vec![G, W, V]);
    }

    #[test]
    fn explicit_levels_are_kept_and_auto_fills_the_rest() {
        let r = assign_levels(Parallel, &[l(Explicit(G), None), l(Unspecified, Some(0))]).unwrap();
        assert_eq!(r, vec![G, V]);
        let r = assign_levels(Parallel, &[l(Unspecified, None), l(Explicit(V), Some(0))]).unwrap();
        assert_eq!(r, vec![G, V]);
    }

    #[test]
    fn conservative_cases_run_sequentially() {
        assert_eq!(assign_levels(Kernels, &[l(Unspecified, None)]).unwrap(), vec![Levels::NONE]);
        assert_eq!(assign_levels(Parallel, &[l(Auto, None)]).unwrap(), vec![Levels::NONE]);
        assert_eq!(assign_levels(Serial, &[l(Explicit(G), None)]).unwrap(), vec![Levels::NONE]);
        assert_eq!(assign_levels(Kernels, &[l(Independent, None)]).unwrap(), vec![GV]);
        assert_eq!(assign_levels(Parallel, &[l(Seq, None), l(Unspecified, Some(0))]).unwrap(), vec![Levels::NONE, GV]);
    }

    #[test]
    fn bad_nesting_is_reported() {
        let e = assign_levels(Parallel, &[l(Explicit(V), None), l(Explicit(G), Some(0))]).unwrap_err();
        assert!(matches!(e, MappingError::BadNesting { loop_index: 1, .. }));
    }

    #[test]
    fn shapes() {
        assert_eq!(default_shape(Parallel, &[GV]), LaunchShape { num_workers: 1, vector_length: 256 });
        assert_eq!(default_shape(Parallel, &[G, W, V]), LaunchShape { num_workers: 4, vector_length: 32 });
        assert_eq!(default_shape(Serial, &[GV]), LaunchShape { num_workers: 1, vector_length: 1 });
    }
}
