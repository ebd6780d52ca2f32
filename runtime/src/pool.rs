//! The pool of device blocks behind data clauses: a block freed by an exit is kept for the
//! next allocation of its size class, so a loop around `data copyin(a[0:n])` allocates
//! (`cuMemAlloc`, ~µs and a device synchronisation for `cuMemFree`) only in its first
//! iteration.
//!
//! Pure bookkeeping of block addresses (no CUDA, unit-tested); mem.rs allocates and frees.
//! Sizes are rounded up to a class ([`class_of`]): 512 bytes at least, then four classes per
//! power of two (at most 25% more than asked for) up to [`FINE_ABOVE`], above that whole
//! 2 MiB pages (what the driver hands out anyway). A block is reused only for its own class.
//! Blocks kept free are at most `limit` bytes together: giving back a block beyond it evicts
//! the blocks freed longest ago, which the caller frees. [`Pool::trim`] empties the pool (an
//! allocation that failed for lack of memory is retried after it; the program's end).
//!
//! Async safety is the caller's: a block reaches [`Pool::give_back`] only once no queue can
//! still use it (queue.rs defers the release of a block an async exit freed until the busy
//! streams have passed an event), so a block taken from the pool is idle.

use std::collections::BTreeMap;

/// A device address.
pub type Addr = u64;

/// The smallest class.
pub const MIN_CLASS: usize = 512;
/// Above this, classes are whole pages.
pub const FINE_ABOVE: usize = 64 << 20;
/// The page of large classes.
pub const PAGE: usize = 2 << 20;

/// The class (the block size allocated) of a request of `len` bytes; `None` when rounding
/// up overflows.
pub fn class_of(len: usize) -> Option<usize> {
    if len <= MIN_CLASS {
        return Some(MIN_CLASS);
    }
    if len > FINE_ABOVE {
        return len.checked_next_multiple_of(PAGE);
    }
    // len in (p/2, p]: classes 5p/8, 6p/8, 7p/8, p.
    let step = len.next_power_of_two() / 8;
    len.checked_next_multiple_of(step)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Live,
    /// Free since the `seq`-th give-back.
    Free(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    class: usize,
    state: State,
}

/// A block that the pool did not hand out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPooled;

#[derive(Debug)]
pub struct Pool {
    /// Every block the pool handed out, live or free.
    blocks: BTreeMap<Addr, Block>,
    /// Free blocks by (class, seq): the newest of a class is reused first.
    free: BTreeMap<(usize, u64), Addr>,
    /// Free blocks by seq: the oldest is evicted first.
    age: BTreeMap<u64, (usize, Addr)>,
    /// Bytes in free blocks, and their bound.
    cached: usize,
    limit: usize,
    seq: u64,
}

impl Pool {
    /// An empty pool keeping at most `limit` bytes of free blocks.
    pub const fn new(limit: usize) -> Pool {
        Pool { blocks: BTreeMap::new(), free: BTreeMap::new(), age: BTreeMap::new(), cached: 0, limit, seq: 0 }
    }

    /// A free block of `class`, now live.
    pub fn take(&mut self, class: usize) -> Option<Addr> {
        let (&(c, seq), &addr) = self.free.range((class, 0)..=(class, u64::MAX)).next_back()?;
        self.unfree(c, seq);
        self.blocks.insert(addr, Block { class, state: State::Live });
        Some(addr)
    }

    /// Records a block of `class` just allocated at `addr`, live.
    pub fn allocated(&mut self, addr: Addr, class: usize) {
        self.blocks.insert(addr, Block { class, state: State::Live });
    }

    /// Takes back live block `addr`: it is kept free for reuse; returns the blocks evicted to
    /// stay within the limit (possibly `addr` itself), which the caller frees.
    pub fn give_back(&mut self, addr: Addr) -> Result<Vec<Addr>, NotPooled> {
        let b = self.blocks.get_mut(&addr).filter(|b| b.state == State::Live).ok_or(NotPooled)?;
        self.seq += 1;
        b.state = State::Free(self.seq);
        let class = b.class;
        self.free.insert((class, self.seq), addr);
        self.age.insert(self.seq, (class, addr));
        self.cached += class;
        let mut evicted = Vec::new();
        while self.cached > self.limit {
            let Some((&seq, &(c, a))) = self.age.iter().next() else { break };
            self.unfree(c, seq);
            self.blocks.remove(&a);
            evicted.push(a);
        }
        Ok(evicted)
    }

    /// Removes every free block from the pool; the caller frees them.
    pub fn trim(&mut self) -> Vec<Addr> {
        let all: Vec<Addr> = self.age.values().map(|&(_, a)| a).collect();
        for a in &all {
            self.blocks.remove(a);
        }
        self.free.clear();
        self.age.clear();
        self.cached = 0;
        all
    }

    fn unfree(&mut self, class: usize, seq: u64) {
        self.free.remove(&(class, seq));
        self.age.remove(&seq);
        self.cached -= class;
    }

    /// Whether `addr` is a block of the pool (live or free).
    pub fn holds(&self, addr: Addr) -> bool {
        self.blocks.contains_key(&addr)
    }

    /// Bytes in free blocks.
    pub fn cached(&self) -> usize {
        self.cached
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(class_of(0), Some(512));
        assert_eq!(class_of(512), Some(512));
        assert_eq!(class_of(513), Some(640));
        assert_eq!(class_of(1024), Some(1024));
        assert_eq!(class_of(1025), Some(1280));
        assert_eq!(class_of(8000), Some(8192));
        assert_eq!(class_of(6000), Some(6144));
        assert_eq!(class_of(FINE_ABOVE), Some(FINE_ABOVE));
        assert_eq!(class_of(FINE_ABOVE + 1), Some(FINE_ABOVE + PAGE));
        assert_eq!(class_of(1 << 30), Some(1 << 30));
        assert_eq!(class_of(usize::MAX), None);
        // Never less than asked, never more than a quarter more (or a page).
        for len in (1..100_000).step_by(7).chain([3 << 20, 100 << 20, (1 << 30) + 1]) {
            let c = class_of(len).unwrap();
            assert!(c >= len && (c <= len + len / 4 || c == MIN_CLASS || c < len + PAGE), "{len} -> {c}");
        }
    }

    #[test]
    fn a_freed_block_is_reused_by_its_class_only() {
        let mut p = Pool::new(1 << 20);
        assert_eq!(p.take(8192), None);
        p.allocated(0x1000, 8192);
        assert_eq!(p.give_back(0x1000), Ok(vec![]));
        assert_eq!(p.cached(), 8192);
        assert_eq!(p.take(6144), None, "another class");
        assert_eq!(p.take(8192), Some(0x1000));
        assert_eq!(p.cached(), 0);
        assert_eq!(p.take(8192), None, "handed out once");
        assert!(p.holds(0x1000));
    }

    #[test]
    fn a_loop_of_regions_reuses_one_block() {
        let mut p = Pool::new(1 << 20);
        let mut allocations = 0;
        let mut next = 0x10_0000;
        for _ in 0..100 {
            let class = class_of(8000).unwrap();
            let a = p.take(class).unwrap_or_else(|| {
                allocations += 1;
                next += 0x1_0000;
                p.allocated(next, class);
                next
            });
            assert_eq!(p.give_back(a), Ok(vec![]));
        }
        assert_eq!(allocations, 1);
    }

    #[test]
    fn only_live_pool_blocks_come_back() {
        let mut p = Pool::new(1 << 20);
        assert_eq!(p.give_back(0x1000), Err(NotPooled), "never handed out (acc_malloc's)");
        p.allocated(0x1000, 512);
        p.give_back(0x1000).unwrap();
        assert_eq!(p.give_back(0x1000), Err(NotPooled), "already free");
    }

    #[test]
    fn the_newest_free_block_of_a_class_goes_first() {
        let mut p = Pool::new(1 << 20);
        for a in [0x1000, 0x2000, 0x3000] {
            p.allocated(a, 512);
        }
        for a in [0x2000, 0x1000, 0x3000] {
            p.give_back(a).unwrap();
        }
        assert_eq!(p.take(512), Some(0x3000));
        assert_eq!(p.take(512), Some(0x1000));
        assert_eq!(p.take(512), Some(0x2000));
    }

    #[test]
    fn beyond_the_limit_the_oldest_blocks_go() {
        let mut p = Pool::new(2048);
        for (a, c) in [(0x1000, 1024), (0x2000, 512), (0x3000, 1024), (0x4000, 512)] {
            p.allocated(a, c);
        }
        assert_eq!(p.give_back(0x1000), Ok(vec![]));
        assert_eq!(p.give_back(0x2000), Ok(vec![]));
        assert_eq!(p.give_back(0x3000), Ok(vec![0x1000]), "2560 bytes > 2048: the oldest goes");
        assert_eq!(p.cached(), 1536);
        assert!(!p.holds(0x1000));
        assert_eq!(p.give_back(0x4000), Ok(vec![]));
        assert_eq!(p.cached(), 2048);
        // A block larger than the whole limit is not kept at all.
        p.allocated(0x9000, 4096);
        assert_eq!(p.give_back(0x9000), Ok(vec![0x2000, 0x3000, 0x4000, 0x9000]));
        assert_eq!(p.cached(), 0);
    }

    #[test]
    fn trimming_empties_the_pool() {
        let mut p = Pool::new(1 << 20);
        for a in [0x1000, 0x2000, 0x3000] {
            p.allocated(a, 640);
        }
        p.give_back(0x1000).unwrap();
        p.give_back(0x3000).unwrap();
        let mut freed = p.trim();
        freed.sort();
        assert_eq!(freed, vec![0x1000, 0x3000]);
        assert_eq!((p.cached(), p.take(640)), (0, None));
        assert!(p.holds(0x2000), "live blocks stay the pool's");
        assert_eq!(p.give_back(0x2000), Ok(vec![]));
        assert_eq!(p.trim(), vec![0x2000]);
        assert!(p.trim().is_empty());
    }
}
