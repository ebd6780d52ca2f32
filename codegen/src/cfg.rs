//! Control-flow facts: dominators, post-dominators and natural loops.
//!
//! The algorithms work on a plain graph (`Graph`: successor lists over block indices) so
//! they are unit-tested without IR; `FunctionCfg` binds one to an LLVM function's blocks.
//! Computed on demand and never cached across IR changes.

use crate::ir::{Block, Value};
use std::collections::{BTreeSet, HashMap};

/// Successor lists; node 0 is the entry.
#[derive(Clone, Debug)]
pub struct Graph {
    pub succ: Vec<Vec<usize>>,
}

impl Graph {
    pub fn preds(&self) -> Vec<Vec<usize>> {
        let mut p = vec![Vec::new(); self.succ.len()];
        for (n, ss) in self.succ.iter().enumerate() {
            for &s in ss {
                p[s].push(n);
            }
        }
        p
    }

    fn reverse_postorder(&self, root: usize, succ: &[Vec<usize>]) -> Vec<usize> {
        let mut seen = vec![false; succ.len()];
        let mut post = Vec::new();
        let mut stack = vec![(root, 0usize)];
        seen[root] = true;
        while let Some((n, i)) = stack.pop() {
            if i < succ[n].len() {
                stack.push((n, i + 1));
                let s = succ[n][i];
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(n);
            }
        }
        post.reverse();
        post
    }

    /// Immediate dominators from `root` over `succ` (Cooper, Harvey & Kennedy).
    /// Unreachable nodes get `None`.
    fn idoms_over(&self, root: usize, succ: &[Vec<usize>]) -> Vec<Option<usize>> {
        let n = succ.len();
        let mut preds = vec![Vec::new(); n];
        for (a, ss) in succ.iter().enumerate() {
            for &b in ss {
                preds[b].push(a);
            }
        }
        let rpo = self.reverse_postorder(root, succ);
        let mut order = vec![usize::MAX; n];
        for (i, &b) in rpo.iter().enumerate() {
            order[b] = i;
        }
        let mut idom: Vec<Option<usize>> = vec![None; n];
        idom[root] = Some(root);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<usize> = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(mut a) => {
                            let mut c = p;
                            while a != c {
                                while order[a] > order[c] {
                                    a = idom[a].unwrap();
                                }
                                while order[c] > order[a] {
                                    c = idom[c].unwrap();
                                }
                            }
                            a
                        }
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        idom
    }

    pub fn idoms(&self) -> Vec<Option<usize>> {
        self.idoms_over(0, &self.succ)
    }

    /// Post-dominator tree: dominators of the reversed graph from a virtual exit node
    /// (index `len`) that every exit (no successors) flows to.
    pub fn post_idoms(&self) -> Vec<Option<usize>> {
        let exits: Vec<bool> = self.succ.iter().map(|s| s.is_empty()).collect();
        self.post_idoms_with_exits(&exits)
    }

    /// Post-dominator tree where only the nodes marked in `exits` flow to the virtual exit.
    /// A node without successors that is not an exit is a dead end (a bare `unreachable`):
    /// no execution gets there, so paths into it do not count as leaving.
    pub fn post_idoms_with_exits(&self, exits: &[bool]) -> Vec<Option<usize>> {
        let n = self.succ.len();
        let mut rev = vec![Vec::new(); n + 1];
        for (a, ss) in self.succ.iter().enumerate() {
            for &b in ss {
                rev[b].push(a);
            }
            if exits[a] {
                rev[n].push(a);
            }
        }
        self.idoms_over(n, &rev)
    }
}

pub fn tree_dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    }
}

/// A natural loop: a header and the blocks of all its back edges' bodies.
#[derive(Clone, Debug, PartialEq)]
pub struct NaturalLoop {
    pub header: usize,
    pub latches: Vec<usize>,
    pub body: BTreeSet<usize>,
}

/// All natural loops (one per header, back edges merged).
pub fn natural_loops(g: &Graph, idom: &[Option<usize>]) -> Vec<NaturalLoop> {
    let preds = g.preds();
    let mut by_header: HashMap<usize, NaturalLoop> = HashMap::new();
    for (a, ss) in g.succ.iter().enumerate() {
        for &h in ss {
            if idom[a].is_some() && tree_dominates(idom, h, a) {
                let l = by_header.entry(h).or_insert_with(|| NaturalLoop { header: h, latches: vec![], body: BTreeSet::from([h]) });
                l.latches.push(a);
                let mut work = vec![a];
                while let Some(x) = work.pop() {
                    if l.body.insert(x) {
                        work.extend(preds[x].iter().copied());
                    }
                }
            }
        }
    }
    let mut v: Vec<_> = by_header.into_values().collect();
    v.sort_by_key(|l| l.header);
    v
}

/// A block that is nothing but `unreachable` (a call to a noreturn function before it, such
/// as `exit()`, still makes the block an exit).
fn is_bare_unreachable<'ctx>(b: Block<'ctx>) -> bool {
    let is = b.instructions();
    is.len() == 1 && is[0].opcode() == Some(llvm_sys::LLVMOpcode::LLVMUnreachable)
}

/// A graph bound to one function's blocks.
pub struct FunctionCfg<'ctx> {
    pub blocks: Vec<Block<'ctx>>,
    pub index: HashMap<Block<'ctx>, usize>,
    pub graph: Graph,
    pub idom: Vec<Option<usize>>,
    pub post_idom: Vec<Option<usize>>,
}

impl<'ctx> FunctionCfg<'ctx> {
    pub fn new(f: Value<'ctx>) -> FunctionCfg<'ctx> {
        let blocks = f.blocks();
        let index: HashMap<Block, usize> = blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let succ = blocks.iter().map(|b| b.successors().iter().map(|s| index[s]).collect()).collect();
        let graph = Graph { succ };
        let idom = graph.idoms();
        // Clang ends the cleanup switch of a scope left by `goto`/`continue` with a default
        // edge to a block holding only `unreachable`: not a way out of a region.
        let exits: Vec<bool> = blocks.iter().map(|b| b.successors().is_empty() && !is_bare_unreachable(*b)).collect();
        let post_idom = graph.post_idoms_with_exits(&exits);
        FunctionCfg { blocks, index, graph, idom, post_idom }
    }

    /// The function whose blocks these are.
    pub fn function(&self) -> Value<'ctx> {
        self.blocks[0].parent()
    }

    /// The blocks that branch to `b`.
    pub fn predecessors(&self, b: Block<'ctx>) -> Vec<Block<'ctx>> {
        let i = self.index[&b];
        self.blocks.iter().enumerate().filter(|(j, _)| self.graph.succ[*j].contains(&i)).map(|(_, p)| *p).collect()
    }

    pub fn dominates(&self, a: Block<'ctx>, b: Block<'ctx>) -> bool {
        tree_dominates(&self.idom, self.index[&a], self.index[&b])
    }

    pub fn post_dominates(&self, a: Block<'ctx>, b: Block<'ctx>) -> bool {
        tree_dominates(&self.post_idom, self.index[&a], self.index[&b])
    }

    /// `a` comes before `b` (or is `b`) in their common block.
    pub fn same_block_before(a: Value<'ctx>, b: Value<'ctx>) -> bool {
        let mut cur = Some(a);
        while let Some(i) = cur {
            if i == b {
                return true;
            }
            cur = i.next_instruction();
        }
        false
    }

    /// Instruction `a` dominates instruction `b` (a == b counts).
    pub fn dominates_inst(&self, a: Value<'ctx>, b: Value<'ctx>) -> bool {
        let (ba, bb) = (a.parent_block(), b.parent_block());
        if ba == bb {
            Self::same_block_before(a, b)
        } else {
            self.dominates(ba, bb)
        }
    }

    pub fn post_dominates_inst(&self, a: Value<'ctx>, b: Value<'ctx>) -> bool {
        let (ba, bb) = (a.parent_block(), b.parent_block());
        if ba == bb {
            Self::same_block_before(b, a)
        } else {
            self.post_dominates(ba, bb)
        }
    }

    pub fn loops(&self) -> Vec<NaturalLoop> {
        natural_loops(&self.graph, &self.idom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 0 -> 1 -> 2 -> 1 (loop), 1 -> 3
    fn simple_loop() -> Graph {
        Graph { succ: vec![vec![1], vec![2, 3], vec![1], vec![]] }
    }

    #[test]
    fn dominators_of_a_loop() {
        let g = simple_loop();
        let idom = g.idoms();
        assert_eq!(idom, vec![Some(0), Some(0), Some(1), Some(1)]);
        assert!(tree_dominates(&idom, 1, 2));
        assert!(!tree_dominates(&idom, 2, 3));
        let pdom = g.post_idoms();
        assert!(tree_dominates(&pdom, 3, 0));
        assert!(tree_dominates(&pdom, 1, 2));
    }

    #[test]
    fn finds_nested_loops() {
        // 0 -> 1 (outer hdr) -> 2 (inner hdr) -> 3 -> 2 ; 2 -> 4 -> 1 ; 1 -> 5
        let g = Graph { succ: vec![vec![1], vec![2, 5], vec![3, 4], vec![2], vec![1], vec![]] };
        let loops = natural_loops(&g, &g.idoms());
        assert_eq!(loops.len(), 2);
        assert_eq!(loops[0].header, 1);
        assert_eq!(loops[0].body, BTreeSet::from([1, 2, 3, 4]));
        assert_eq!(loops[1].body, BTreeSet::from([2, 3]));
    }

    #[test]
    fn dead_ends_do_not_leave() {
        // 0 -> 1 -> {2, 3 (dead end)}; 2 -> 4 (exit). As for a cleanup switch whose default
        // is `unreachable`: 2 post-dominates 1 only when 3 is not an exit.
        let g = Graph { succ: vec![vec![1], vec![2, 3], vec![4], vec![], vec![]] };
        assert!(!tree_dominates(&g.post_idoms(), 2, 1));
        let pdom = g.post_idoms_with_exits(&[false, false, false, false, true]);
        assert!(tree_dominates(&pdom, 2, 1));
        assert!(tree_dominates(&pdom, 4, 0));
    }

    #[test]
    fn diamond_post_dominance() {
        let g = Graph { succ: vec![vec![1, 2], vec![3], vec![3], vec![]] };
        let pdom = g.post_idoms();
        assert!(tree_dominates(&pdom, 3, 0));
        assert!(!tree_dominates(&pdom, 1, 0));
    }
}
