//! `accfuzz`: a differential fuzzer for accc. `generate(seed, features)` returns one random
//! OpenACC C program whose sequential meaning (a plain C build, pragmas ignored) is the
//! expected output; accc's build must print exactly the same on every device.
//!
//! Modules: `rng` (PRNG), `features` (what may be generated), `model` (types, extents,
//! arrays), `writer` (indented text), `expr` (values and race-free accesses), `nest`
//! (compute regions and loop nests), `reduce` (reduction regions), `atomic` (atomic regions),
//! `routine` (routine functions and their calls), `queue` (async groups, finalize, if_present,
//! `acc_*` routines), `data` (data directives and the host/device state),
//! `skeleton` (the program around them). docs/fuzzer.md describes the design.

pub mod atomic;
pub mod data;
pub mod expr;
pub mod features;
pub mod model;
pub mod nest;
pub mod queue;
pub mod reduce;
pub mod rng;
pub mod routine;
pub mod skeleton;
pub mod writer;

pub use features::{Feature, Features};

/// A generated program and the features it contains.
pub struct Program {
    pub text: String,
    pub used: Features,
}

/// Attempts per seed: a program lacking some requested feature is regenerated from a derived
/// seed (deterministically) and the attempt covering the most features is kept.
const ATTEMPTS: u64 = 6;

/// The program for `seed` with the given features (deterministic).
pub fn generate(seed: u64, features: &Features) -> Program {
    generate_with(seed, features, false)
}

/// `reverse`: the same program with every partitioned loop (gang, worker, vector,
/// independent) run in the opposite order. Its plain C build must print exactly what the
/// normal one prints; a difference means the generator produced a race.
pub fn generate_with(seed: u64, features: &Features, reverse: bool) -> Program {
    let mut best: Option<Program> = None;
    for attempt in 0..ATTEMPTS {
        let mut g = skeleton::Gen::new(
            seed.wrapping_add(attempt.wrapping_mul(0x5851_F42D_4C95_7F2D)),
            features,
        );
        g.reverse = reverse;
        let text = g.program(seed);
        let p = Program { text, used: g.used };
        let score = p.used.intersect(features).len();
        if score == features.len() {
            return p;
        }
        if best
            .as_ref()
            .is_none_or(|b| b.used.intersect(features).len() < score)
        {
            best = Some(p);
        }
    }
    best.expect("at least one attempt")
}
