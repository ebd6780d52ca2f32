//! The emulator's scheduling decisions, as pure functions: the order in which runnable
//! threads of a block run between synchronisation points (`ACCC_EMU_SCHEDULE`), and when a
//! synchronisation point releases its threads.

/// `ACCC_EMU_SCHEDULE`: forward (thread 0 first), reverse, or a seeded random order that
/// changes every round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    Forward,
    Reverse,
    Random(u64),
}

impl Schedule {
    /// Parses `forward`, `reverse`, `random` (seed 1) or `random:SEED`; unset is forward.
    pub fn parse(v: Option<&str>) -> Result<Schedule, String> {
        let v = v.map(str::trim).unwrap_or("");
        match v.to_ascii_lowercase().as_str() {
            "" | "forward" => Ok(Schedule::Forward),
            "reverse" => Ok(Schedule::Reverse),
            "random" => Ok(Schedule::Random(1)),
            s => match s.strip_prefix("random:").map(str::parse::<u64>) {
                Some(Ok(seed)) => Ok(Schedule::Random(seed)),
                _ => Err(format!("unknown ACCC_EMU_SCHEDULE '{v}' (expected forward, reverse or random:SEED)")),
            },
        }
    }

    pub fn describe(self) -> String {
        match self {
            Schedule::Forward => "forward".into(),
            Schedule::Reverse => "reverse".into(),
            Schedule::Random(s) => format!("random:{s}"),
        }
    }

    /// The order of threads 0..n in round `round` of block `gang`.
    pub fn order(self, n: usize, gang: u64, round: u64) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        match self {
            Schedule::Forward => {}
            Schedule::Reverse => v.reverse(),
            Schedule::Random(seed) => {
                let mut state = seed ^ gang.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ round.wrapping_mul(0xD1B5_4A32_D192_ED03);
                for i in (1..n).rev() {
                    let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
                    v.swap(i, j);
                }
            }
        }
        v
    }
}

impl Schedule {
    /// Whether a thread yields before a store to device memory, given a draw of its
    /// generator: under `random`, one store in four (between the load and the store of a
    /// read-modify-write, so two threads that update one element without an atomic lose an
    /// update, as on the GPU); never under `forward`/`reverse` (their interleaving stays the
    /// one at synchronisation points and shared-memory stores).
    pub fn yields_before_global_store(self, draw: &mut u64) -> bool {
        match self {
            Schedule::Random(_) => splitmix64(draw).is_multiple_of(4),
            _ => false,
        }
    }
}

pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Why a thread stopped: which threads a synchronisation point waits for (devrt's
/// `__acc_sync_gang/worker`, or the warp of a shuffle), or a yield after a shared-memory
/// store (ready again at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    Gang,
    Worker,
    /// The 32 consecutive threads (in linear order) of the caller's warp, fewer in a partial
    /// last warp: a step of a warp shuffle (`__acc_shfl_down/idx`).
    Warp,
    Yield,
}

/// Threads of a warp.
pub const WARP: usize = 32;

/// One emulated thread between resumptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Ready,
    Waiting(Wait),
    Done,
}

/// Releases every synchronisation point whose threads have all arrived: a gang sync when
/// every thread of the block waits at one, a worker sync when every vector lane of that
/// worker (threads `w*vector .. (w+1)*vector`) does, a warp step when every thread of that
/// warp (threads `32w .. min(32w+32, n)`) does. Returns whether anything was released;
/// `Err` describes a deadlock: nothing is ready, not every thread is done and no sync can
/// complete (a sync under control flow that differs between the threads it waits for).
pub fn release(states: &mut [State], vector: usize) -> Result<bool, String> {
    let vector = vector.max(1);
    let mut released = false;
    if !states.is_empty() && states.iter().all(|s| *s == State::Waiting(Wait::Gang)) {
        states.iter_mut().for_each(|s| *s = State::Ready);
        released = true;
    }
    for worker in states.chunks_mut(vector) {
        if worker.iter().all(|s| *s == State::Waiting(Wait::Worker)) {
            worker.iter_mut().for_each(|s| *s = State::Ready);
            released = true;
        }
    }
    for warp in states.chunks_mut(WARP) {
        if warp.iter().all(|s| *s == State::Waiting(Wait::Warp)) {
            warp.iter_mut().for_each(|s| *s = State::Ready);
            released = true;
        }
    }
    let stuck = !released && !states.contains(&State::Ready) && !states.iter().all(|s| *s == State::Done);
    if stuck {
        let count = |st: State| states.iter().filter(|s| **s == st).count();
        return Err(format!(
            "deadlock: {} thread(s) wait at a gang sync, {} at a worker sync, {} at a warp shuffle, {} finished; a synchronisation point is reached by only some of the threads it waits for",
            count(State::Waiting(Wait::Gang)),
            count(State::Waiting(Wait::Worker)),
            count(State::Waiting(Wait::Warp)),
            count(State::Done)
        ));
    }
    Ok(released)
}

#[cfg(test)]
mod tests {
    use super::*;
    use State::*;

    #[test]
    fn parse() {
        assert_eq!(Schedule::parse(None), Ok(Schedule::Forward));
        assert_eq!(Schedule::parse(Some("reverse")), Ok(Schedule::Reverse));
        assert_eq!(Schedule::parse(Some("random:42")), Ok(Schedule::Random(42)));
        assert_eq!(Schedule::parse(Some("random")), Ok(Schedule::Random(1)));
        assert!(Schedule::parse(Some("sideways")).is_err());
        assert!(Schedule::parse(Some("random:x")).is_err());
    }

    #[test]
    fn only_random_yields_before_global_stores() {
        let mut d = 5;
        assert!(!(0..64).any(|_| Schedule::Forward.yields_before_global_store(&mut d)));
        assert!(!(0..64).any(|_| Schedule::Reverse.yields_before_global_store(&mut d)));
        let n = (0..400).filter(|_| Schedule::Random(3).yields_before_global_store(&mut d)).count();
        assert!((50..150).contains(&n), "about one in four: {n}");
    }

    #[test]
    fn orders() {
        assert_eq!(Schedule::Forward.order(4, 0, 0), vec![0, 1, 2, 3]);
        assert_eq!(Schedule::Reverse.order(4, 0, 0), vec![3, 2, 1, 0]);
        let r = Schedule::Random(7).order(64, 3, 5);
        let mut sorted = r.clone();
        sorted.sort();
        assert_eq!(sorted, (0..64).collect::<Vec<_>>());
        assert_eq!(r, Schedule::Random(7).order(64, 3, 5), "deterministic");
        assert_ne!(r, Schedule::Random(7).order(64, 3, 6), "changes every round");
    }

    #[test]
    fn gang_sync_waits_for_every_thread() {
        let mut s = [Waiting(Wait::Gang), Ready, Waiting(Wait::Gang)];
        assert_eq!(release(&mut s, 1), Ok(false));
        let mut s = [Waiting(Wait::Gang); 3];
        assert_eq!(release(&mut s, 1), Ok(true));
        assert_eq!(s, [Ready; 3]);
    }

    #[test]
    fn worker_sync_waits_for_its_lanes_only() {
        // 2 workers x 2 lanes: worker 0 waits, worker 1 still runs.
        let mut s = [Waiting(Wait::Worker), Waiting(Wait::Worker), Ready, Waiting(Wait::Worker)];
        assert_eq!(release(&mut s, 2), Ok(true));
        assert_eq!(s, [Ready, Ready, Ready, Waiting(Wait::Worker)]);
    }

    #[test]
    fn warp_step_waits_for_its_warp_only() {
        // 64 threads: warp 0 all waiting, warp 1 has one thread still running.
        let mut s = [Waiting(Wait::Warp); 64];
        s[40] = Ready;
        assert_eq!(release(&mut s, 8), Ok(true));
        assert!(s[..32].iter().all(|x| *x == Ready));
        assert!(s[32..].iter().enumerate().all(|(i, x)| *x == if i == 8 { Ready } else { Waiting(Wait::Warp) }));
        // Warps are 32 linear threads whatever the vector length: a worker sync of
        // vector 16 does not release a warp step.
        let mut s = [Waiting(Wait::Warp); 16];
        s[15] = Waiting(Wait::Worker);
        assert!(release(&mut s, 16).is_err());
    }

    #[test]
    fn partial_last_warp() {
        // 40 threads: warp 1 has 8 threads, released when those 8 wait.
        let mut s = [Ready; 40];
        s[32..].iter_mut().for_each(|x| *x = Waiting(Wait::Warp));
        assert_eq!(release(&mut s, 40), Ok(true));
        assert_eq!(s, [Ready; 40]);
        // A block smaller than a warp is one partial warp.
        let mut s = [Waiting(Wait::Warp); 5];
        assert_eq!(release(&mut s, 1), Ok(true));
        assert_eq!(s, [Ready; 5]);
    }

    #[test]
    fn divergent_warp_step_is_a_deadlock() {
        let mut s = [Waiting(Wait::Warp); 32];
        s[3] = Done;
        let e = release(&mut s, 32).unwrap_err();
        assert!(e.contains("31 at a warp shuffle, 1 finished"), "{e}");
    }

    #[test]
    fn divergent_sync_is_a_deadlock() {
        let mut s = [Waiting(Wait::Gang), Done];
        assert!(release(&mut s, 1).unwrap_err().contains("deadlock"));
        let mut s = [Waiting(Wait::Gang), Waiting(Wait::Worker)];
        assert!(release(&mut s, 2).is_err());
        let mut s = [Done, Done];
        assert_eq!(release(&mut s, 1), Ok(false));
    }
}
