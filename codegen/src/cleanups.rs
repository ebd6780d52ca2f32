//! Takes out the edges of Clang's cleanup switches that no execution takes.
//!
//! Clang leaves a scope that has lifetime markers (accc asks for them at every -O level)
//! through one cleanup block per scope: a `goto`, `break` or `continue` stores a destination
//! number to `%cleanup.dest.slot` and branches there; the cleanup ends the lifetimes, loads
//! the number and `switch`es on it. The switch's default and some of its cases lead to
//! destinations further out (the function's own cleanup, its return, or `unreachable`), so
//! a `goto` that stays inside a compute region looks like a way out of it: the region's end
//! no longer post-dominates its begin and the outliner would pull the function's return
//! into the kernel.
//!
//! Expects: a host function as Clang emits it (memory form), before the contract is read.
//! Produces: the same function where each successor of a `switch` on a value loaded from a
//! slot that is only loaded from and stored to, and that none of the values the slot can
//! hold there selects, is retargeted to a new block holding only `unreachable` (one per
//! switch), which `cfg::FunctionCfg` does not count as an exit. The values come from a
//! forward propagation of the constants stored to the slot, each switch on it passing a
//! case's value to the case and the others to its default (`slot_values`). The program's
//! behaviour is unchanged. Does not touch a switch the slot reaches uninitialised or after
//! a non-constant store, a switch with a case value that is not a plain constant, or one
//! with a successor to retarget that starts with a phi.

use crate::ir::{Block, Module, Value};
use llvm_sys::LLVMOpcode;
use std::collections::{BTreeSet, HashSet};

/// What a block does to a slot: `None` when it does not store to it, else the value of its
/// last store (`Some(None)` when that is not a constant).
pub type SlotStore = Option<Option<i64>>;

/// Retargets the infeasible cleanup-switch edges of every function with a definition that
/// calls `marker` (`__acc_begin`). Returns whether anything changed.
pub fn prune<'ctx>(m: Module<'ctx>, marker: &str) -> bool {
    let Some(begin) = m.function(marker) else { return false };
    let mut changed = false;
    for f in m.functions() {
        let calls_marker = !f.is_declaration() && begin.users().iter().any(|u| u.is_instruction() && u.parent_function() == f);
        if calls_marker {
            changed |= prune_function(m, f);
        }
    }
    changed
}

fn prune_function<'ctx>(m: Module<'ctx>, f: Value<'ctx>) -> bool {
    let blocks = f.blocks();
    let index = |b: Block<'ctx>| blocks.iter().position(|x| *x == b).expect("a successor is a block of the function");
    let succ: Vec<Vec<usize>> = blocks.iter().map(|b| b.successors().into_iter().map(index).collect()).collect();
    let slots: Vec<Option<Value>> = blocks.iter().map(|b| switched_slot(*b)).collect();
    let mut changed = false;
    let mut done = HashSet::new();
    for slot in slots.iter().flatten() {
        if !done.insert(*slot) {
            continue;
        }
        let stores: Vec<SlotStore> = blocks.iter().map(|x| last_store(*x, *slot)).collect();
        let switches: Vec<Option<Vec<i64>>> = blocks
            .iter()
            .zip(&slots)
            .map(|(b, s)| match s {
                Some(x) if x == slot => b.terminator().and_then(|t| t.switch_case_values().into_iter().collect()),
                _ => None,
            })
            .collect();
        let values = slot_values(&succ, &stores, &switches);
        for (b, cases) in switches.iter().enumerate() {
            let (Some(cases), Some(vals), None) = (cases, &values[b], stores[b]) else { continue };
            if vals.is_empty() {
                continue;
            }
            changed |= retarget(m, f, blocks[b], &infeasible_successors(cases.len() + 1, cases, vals));
        }
    }
    changed
}

/// Points the switch ending `b` at a new `unreachable` block for successors `dead`. One
/// block per switch: a region outlined later takes its blocks with it, and a block shared
/// with another region would end up in two functions.
fn retarget<'ctx>(m: Module<'ctx>, f: Value<'ctx>, b: Block<'ctx>, dead: &[usize]) -> bool {
    let t = b.terminator().expect("a switch terminates its block");
    let targets = t.successors();
    if dead.is_empty() || dead.iter().any(|k| targets[*k].first_instruction().is_some_and(|i| i.is_phi())) {
        return false;
    }
    let ctx = m.context();
    let d = ctx.append_block(f, "acc.cleanup.unreachable");
    let bld = ctx.builder();
    bld.position_at_end(d);
    bld.unreachable();
    for k in dead {
        t.set_successor(*k as u32, d);
    }
    true
}

/// The values a slot may hold on entry to each block (`None`: unknown), by forward
/// propagation from the entry (node 0, where it is uninitialised). `stores[b]` is what
/// block `b` leaves in it; `switches[b]` the case values when `b` ends in a switch on it
/// (successor 0 the default, successor `k` case `k - 1`): only the value a case names
/// flows to its target, only the values no case names to the default.
pub fn slot_values(succ: &[Vec<usize>], stores: &[SlotStore], switches: &[Option<Vec<i64>>]) -> Vec<Option<BTreeSet<i64>>> {
    let n = succ.len();
    let mut values: Vec<Option<BTreeSet<i64>>> = vec![Some(BTreeSet::new()); n];
    if n == 0 {
        return values;
    }
    values[0] = None;
    let mut work = vec![0];
    while let Some(b) = work.pop() {
        let out = match stores[b] {
            Some(Some(c)) => Some(BTreeSet::from([c])),
            Some(None) => None,
            None => values[b].clone(),
        };
        for (k, &s) in succ[b].iter().enumerate() {
            let flows = match &switches[b] {
                Some(cases) if k == 0 => out.as_ref().map(|o| o.iter().filter(|v| !cases.contains(v)).copied().collect()),
                Some(cases) => match cases.get(k - 1) {
                    Some(c) if out.as_ref().is_none_or(|o| o.contains(c)) => Some(BTreeSet::from([*c])),
                    Some(_) => Some(BTreeSet::new()),
                    None => out.clone(),
                },
                None => out.clone(),
            };
            let merged = match (&values[s], &flows) {
                (None, _) | (_, None) => None,
                (Some(a), Some(f)) => Some(a.union(f).copied().collect()),
            };
            if merged != values[s] {
                values[s] = merged;
                work.push(s);
            }
        }
    }
    values
}

/// Successor indices of a switch with `n` successors (0 the default, `k` case `cases[k - 1]`)
/// that it cannot take when its operand is one of `values`.
pub fn infeasible_successors(n: usize, cases: &[i64], values: &BTreeSet<i64>) -> Vec<usize> {
    let default = values.iter().any(|v| !cases.contains(v));
    (0..n).filter(|&k| if k == 0 { !default } else { cases.get(k - 1).is_some_and(|c| !values.contains(c)) }).collect()
}

/// The alloca a block's `switch` reads through a load, when its address is only ever loaded
/// from and stored to (so its stores are all the values it holds).
fn switched_slot<'ctx>(b: Block<'ctx>) -> Option<Value<'ctx>> {
    let t = b.terminator()?;
    if t.opcode() != Some(LLVMOpcode::LLVMSwitch) {
        return None;
    }
    let cond = t.operand(0);
    if cond.opcode() != Some(LLVMOpcode::LLVMLoad) || !cond.operand(0).is_alloca() {
        return None;
    }
    let slot = cond.operand(0);
    let plain = slot.users().iter().all(|u| match u.opcode() {
        Some(LLVMOpcode::LLVMLoad) => true,
        Some(LLVMOpcode::LLVMStore) => u.operand(1) == slot && u.operand(0) != slot,
        _ => false,
    });
    plain.then_some(slot)
}

fn last_store<'ctx>(b: Block<'ctx>, slot: Value<'ctx>) -> SlotStore {
    b.instructions()
        .into_iter()
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMStore) && i.operand(1) == slot)
        .last()
        .map(|st| st.operand(0).const_int_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[i64]) -> Option<BTreeSet<i64>> {
        Some(v.iter().copied().collect())
    }

    /// Clang's shape for a `goto done` out of a loop whose body has a local, inside a region:
    /// 0 entry -> 1; 1 (store 0) -> 2 (inner cleanup switch: 0 -> 4, default -> 3);
    /// 5 (store 12) -> 2; 1 -> 5; 6 (store 9) -> 3;
    /// 3 (outer cleanup switch: 9 -> 7, 12 -> 7, default -> 8 the function's cleanup).
    fn cleanup_chain() -> (Vec<Vec<usize>>, Vec<SlotStore>, Vec<Option<Vec<i64>>>) {
        let succ = vec![vec![1, 6], vec![2, 5], vec![3, 4], vec![8, 7, 7], vec![], vec![2], vec![3], vec![], vec![]];
        let stores = vec![None, Some(Some(0)), None, None, None, Some(Some(12)), Some(Some(9)), None, None];
        let switches = vec![None, None, Some(vec![0]), Some(vec![9, 12]), None, None, None, None, None];
        (succ, stores, switches)
    }

    #[test]
    fn values_flow_through_cleanup_switches() {
        let (succ, stores, switches) = cleanup_chain();
        let v = slot_values(&succ, &stores, &switches);
        // 0 and 12 reach the inner switch; only 12 leaves by its default.
        assert_eq!(v[2], set(&[0, 12]));
        assert_eq!(v[4], set(&[0]));
        assert_eq!(v[3], set(&[9, 12]));
        // So the outer switch never takes its default (to the function's cleanup).
        assert_eq!(infeasible_successors(3, &[9, 12], v[3].as_ref().unwrap()), vec![0]);
        assert_eq!(v[8], set(&[]));
        // The inner switch takes both its edges.
        assert_eq!(infeasible_successors(2, &[0], v[2].as_ref().unwrap()), Vec::<usize>::new());
    }

    #[test]
    fn unknown_values_keep_every_edge() {
        // The slot uninitialised on the way (entry straight to the switch), or a
        // non-constant store.
        let succ = vec![vec![1], vec![2, 3], vec![], vec![]];
        let switches = vec![None, Some(vec![5]), None, None];
        let v = slot_values(&succ, &[None, None, None, None], &switches);
        assert_eq!(v[1], None);
        let v = slot_values(&succ, &[Some(None), None, None, None], &switches);
        assert_eq!(v[1], None);
        // A case still receives only its own value.
        assert_eq!(v[3], set(&[5]));
        assert_eq!(v[2], None);
    }

    #[test]
    fn a_value_no_case_names_keeps_the_default() {
        assert_eq!(infeasible_successors(3, &[9, 1], &BTreeSet::from([9, 4])), vec![2]);
    }
}
