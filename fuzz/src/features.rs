//! Feature flags: which constructs the generator may emit (`--features=LIST`).
//!
//! LIST is comma-separated names; `all` and `none` reset the set, `-name` removes one. A
//! list that starts with `-name` starts from the default set (e.g. `-kernels,-swap`).

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    /// gang > worker > vector loop nests (else only one partitioned level per region).
    Nest,
    /// Sibling partitioned loops that read elements other iterations of an earlier loop wrote.
    Comm,
    /// Worker-single / vector-single code: statements outside the inner partitioned loops.
    Single,
    /// Structured `data` regions.
    Data,
    /// `enter data` / `exit data`.
    EnterExit,
    /// `update device` / `update self` (with host-side changes between regions).
    Update,
    /// `private` scalars and arrays on gang and vector loops.
    Private,
    /// Explicit `firstprivate` scalars.
    FirstPrivate,
    /// Pointer swaps between sweeps inside a data region.
    Swap,
    /// `kernels` regions.
    Kernels,
    /// `collapse(2)` (and `collapse(3)` on fills).
    Collapse,
    /// Explicit `num_gangs` / `num_workers` / `vector_length`.
    Launch,
    /// Function-scope fixed-size arrays (else only malloc'ed arrays).
    Local,
    /// Loop shapes: partial ranges, decreasing loops, step 2, runtime bounds.
    Shapes,
    /// `reduction` clauses: every position, operator and type (exact in any order).
    Reduce,
    /// `tile(...)` instead of `collapse(n)` on some fills (sizes 1 to 32 and `*`).
    Tile,
    /// `atomic update|read|write|capture` on shared counters and histograms (atomic.rs).
    Atomic,
    /// `routine seq|vector|worker` functions called from partitioned loops (routine.rs).
    Routine,
    /// `async(q)` regions and updates with `wait(q)` / `wait` (queue.rs).
    Async,
    /// `exit data ... finalize` after repeated `enter data` (queue.rs).
    Finalize,
    /// `update self|device(...) if_present` on present and absent data (queue.rs).
    IfPresent,
    /// `acc_copyin`, `acc_copyout`, `acc_create`, `acc_delete`, `acc_update_device|self`,
    /// `acc_is_present` (queue.rs).
    Api,
}

pub const ALL: [Feature; 22] = [
    Feature::Nest,
    Feature::Comm,
    Feature::Single,
    Feature::Data,
    Feature::EnterExit,
    Feature::Update,
    Feature::Private,
    Feature::FirstPrivate,
    Feature::Swap,
    Feature::Kernels,
    Feature::Collapse,
    Feature::Launch,
    Feature::Local,
    Feature::Shapes,
    Feature::Reduce,
    Feature::Tile,
    Feature::Atomic,
    Feature::Routine,
    Feature::Async,
    Feature::Finalize,
    Feature::IfPresent,
    Feature::Api,
];

impl Feature {
    pub fn name(self) -> &'static str {
        match self {
            Feature::Nest => "nest",
            Feature::Comm => "comm",
            Feature::Single => "single",
            Feature::Data => "data",
            Feature::EnterExit => "enterexit",
            Feature::Update => "update",
            Feature::Private => "private",
            Feature::FirstPrivate => "firstprivate",
            Feature::Swap => "swap",
            Feature::Kernels => "kernels",
            Feature::Collapse => "collapse",
            Feature::Launch => "launch",
            Feature::Local => "local",
            Feature::Shapes => "shapes",
            Feature::Reduce => "reduce",
            Feature::Tile => "tile",
            Feature::Atomic => "atomic",
            Feature::Routine => "routine",
            Feature::Async => "async",
            Feature::Finalize => "finalize",
            Feature::IfPresent => "ifpresent",
            Feature::Api => "api",
        }
    }

    pub fn from_name(s: &str) -> Option<Feature> {
        ALL.iter().copied().find(|f| f.name() == s)
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features(u32);

impl Features {
    pub fn none() -> Features {
        Features(0)
    }

    pub fn all() -> Features {
        Features(ALL.iter().fold(0, |m, f| m | f.bit()))
    }

    /// What `accfuzz gen` uses without `--features`: every feature. (A construct that accc
    /// gets wrong on the host path would be removed here, with a comment naming the bug.)
    pub fn default_set() -> Features {
        Features::all()
    }

    pub fn has(&self, f: Feature) -> bool {
        self.0 & f.bit() != 0
    }

    pub fn insert(&mut self, f: Feature) {
        self.0 |= f.bit();
    }

    pub fn remove(&mut self, f: Feature) {
        self.0 &= !f.bit();
    }

    pub fn iter(&self) -> impl Iterator<Item = Feature> + '_ {
        ALL.iter().copied().filter(|f| self.has(*f))
    }

    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    pub fn is_subset(&self, other: &Features) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn intersect(&self, other: &Features) -> Features {
        Features(self.0 & other.0)
    }

    pub fn parse(list: &str) -> Result<Features, String> {
        let tokens: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        let mut set = match tokens.first() {
            Some(t) if t.starts_with('-') => Features::default_set(),
            _ => Features::none(),
        };
        for t in tokens {
            match t {
                "all" => set = Features::all(),
                "none" => set = Features::none(),
                _ => {
                    let (neg, name) = match t.strip_prefix('-') {
                        Some(n) => (true, n),
                        None => (false, t),
                    };
                    let f = Feature::from_name(name).ok_or_else(|| {
                        let names: Vec<&str> = ALL.iter().map(|f| f.name()).collect();
                        format!("unknown feature '{name}' (known: {})", names.join(","))
                    })?;
                    if neg {
                        set.remove(f)
                    } else {
                        set.insert(f)
                    }
                }
            }
        }
        Ok(set)
    }
}

impl fmt::Display for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(|x| x.name()).collect();
        if names.is_empty() {
            write!(f, "none")
        } else {
            write!(f, "{}", names.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_lists() {
        assert_eq!(Features::parse("all").unwrap(), Features::all());
        assert_eq!(Features::parse("").unwrap(), Features::none());
        let s = Features::parse("nest,comm").unwrap();
        assert!(s.has(Feature::Nest) && s.has(Feature::Comm) && s.len() == 2);
        let s = Features::parse("-kernels").unwrap();
        assert!(!s.has(Feature::Kernels) && s.len() == Features::default_set().len() - 1);
        assert!(Features::parse("nest,bogus").is_err());
        for f in ALL {
            assert_eq!(Feature::from_name(f.name()), Some(f));
        }
        assert_eq!(
            Features::parse(&Features::all().to_string()).unwrap(),
            Features::all()
        );
    }
}
