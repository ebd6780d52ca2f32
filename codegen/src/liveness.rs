//! Whether a local scalar variable's value flows into or out of a compute region.
//!
//! Expects: a host function in memory form (locals in allocas, as Clang emits it before
//! `sroa`), where a variable is read by `load` from its alloca and written by `store` to it.
//! Produces facts for `capture::classify`: a variable the region always writes before it
//! reads it (not live in) and whose value after the region nobody reads (not live out) can
//! be private to each device thread without any program noticing, which is what a loop
//! counter or temporary declared before a `kernels` region needs (implicitly `copy`, it
//! would otherwise be one memory cell shared by every thread). Changes nothing.
//!
//! The search (`read_before_write`) is a pure function over a successor graph; the IR side
//! only classifies each block's first access to the variable. Any use other than a plain
//! load or store (a call, a GEP, a stored address, a data clause marker) counts as a read
//! (a `private` clause marker as nothing), and a variable whose address escapes is never
//! reported dead.

use crate::ir::{Block, Opcode, Value};

/// The first access to a variable in (part of) a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Nothing,
}

/// Whether a path from the start point reads the variable before writing it. `rest` is the
/// first access after the start point in block `start`, `first[n]` the first access in
/// block `n`; a path ends (without a read) on entering a block for which `stop` holds.
pub fn read_before_write(succ: &[Vec<usize>], first: &[Access], start: usize, rest: Access, stop: &dyn Fn(usize) -> bool) -> bool {
    match rest {
        Access::Read => return true,
        Access::Write => return false,
        Access::Nothing => {}
    }
    let mut seen = vec![false; succ.len()];
    let mut stack: Vec<usize> = succ[start].clone();
    while let Some(n) = stack.pop() {
        if seen[n] || stop(n) {
            continue;
        }
        seen[n] = true;
        match first[n] {
            Access::Read => return true,
            Access::Write => {}
            Access::Nothing => stack.extend(&succ[n]),
        }
    }
    false
}

/// First access to variable `x` among `insts`, in order.
pub fn first_access<'ctx>(insts: &[Value<'ctx>], x: Value<'ctx>) -> Access {
    for i in insts {
        let ops = i.operands();
        if !ops.contains(&x) {
            continue;
        }
        return match i.opcode() {
            Some(Opcode::LLVMStore) if ops[1] == x && ops[0] != x => Access::Write,
            Some(Opcode::LLVMCall) if i.called_name().is_some_and(|n| n.starts_with("llvm.lifetime")) => continue,
            // A loop's `private(x)` names the variable without reading it.
            Some(Opcode::LLVMCall) if is_private_clause(*i) => continue,
            _ => Access::Read,
        };
    }
    Access::Nothing
}

fn is_private_clause<'ctx>(call: Value<'ctx>) -> bool {
    call.called_name().as_deref() == Some(crate::contract::CLAUSE) && call.call_arg(1).const_string().as_deref() == Some(acc_directives::Clause::Private.name())
}

/// First access to `x` in block `b`.
pub fn block_access<'ctx>(b: Block<'ctx>, x: Value<'ctx>) -> Access {
    first_access(&b.instructions(), x)
}

/// Whether `x` (an alloca) is only ever loaded from, stored to (as the address), named in a
/// marker call or given to lifetime intrinsics: nothing else can read it behind the
/// analysis' back.
pub fn address_is_private<'ctx>(x: Value<'ctx>) -> bool {
    x.users().iter().all(|u| match u.opcode() {
        Some(Opcode::LLVMLoad) => true,
        Some(Opcode::LLVMStore) => u.operand(1) == x && u.operand(0) != x,
        Some(Opcode::LLVMCall) => u.called_name().is_some_and(|n| n.starts_with("llvm.lifetime") || n.starts_with("__acc_")),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Access::*;

    fn never(_: usize) -> bool {
        false
    }

    #[test]
    fn straight_line() {
        // 0 -> 1 -> 2
        let succ = vec![vec![1], vec![2], vec![]];
        assert!(read_before_write(&succ, &[Nothing, Nothing, Read], 0, Nothing, &never));
        assert!(!read_before_write(&succ, &[Nothing, Write, Read], 0, Nothing, &never));
        assert!(read_before_write(&succ, &[Nothing, Write, Read], 0, Read, &never), "read right after the start");
        assert!(!read_before_write(&succ, &[Nothing, Nothing, Read], 0, Write, &never), "written right after the start");
    }

    #[test]
    fn a_loop_whose_init_writes_first() {
        // for (idx = 0; idx <= i; idx++): 0 (init: write) -> 1 (cond: read) -> 2 (body) -> 3 (inc) -> 1; 1 -> 4
        let succ = vec![vec![1], vec![2, 4], vec![3], vec![1], vec![]];
        let first = [Write, Read, Nothing, Read, Nothing];
        assert!(!read_before_write(&succ, &first, 0, Write, &never), "not live into the loop");
        // After the loop (block 4) and with nothing reading it later: not live out.
        assert!(!read_before_write(&succ, &first, 4, Nothing, &never));
    }

    #[test]
    fn one_path_reads() {
        // 0 -> 1 | 2 ; 1 writes, 2 reads
        let succ = vec![vec![1, 2], vec![3], vec![3], vec![]];
        assert!(read_before_write(&succ, &[Nothing, Write, Read, Nothing], 0, Nothing, &never));
        assert!(!read_before_write(&succ, &[Nothing, Write, Write, Read], 0, Nothing, &never));
    }

    #[test]
    fn stopped_paths_do_not_read() {
        // 0 -> 1 -> 2 (reads), stop at 2: the region ends before the read.
        let succ = vec![vec![1], vec![2], vec![]];
        assert!(!read_before_write(&succ, &[Nothing, Nothing, Read], 0, Nothing, &|n| n == 2));
    }

    #[test]
    fn back_edges_reach_the_start_again() {
        // The region (block 1) sits in a host loop: 0 -> 1 -> 2 -> 1, 2 -> 3. Block 1 reads
        // before writing, so its value after the region (block 2) is read by the next trip.
        let succ = vec![vec![1], vec![2], vec![1, 3], vec![]];
        assert!(read_before_write(&succ, &[Nothing, Read, Nothing, Nothing], 2, Nothing, &never));
        assert!(!read_before_write(&succ, &[Nothing, Write, Nothing, Nothing], 2, Nothing, &never));
    }
}
