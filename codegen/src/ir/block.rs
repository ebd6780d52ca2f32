//! Basic blocks: walking, moving, splitting; phi edges.

use super::{raw, Block, Context, Value};
use inkwell::values::BasicValue;

impl<'ctx> Block<'ctx> {
    pub fn parent(self) -> Value<'ctx> {
        Value::of(self.0.get_parent().expect("blocks the pass walks are in a function"))
    }
    pub fn name(self) -> String {
        self.0.get_name().to_string_lossy().into_owned()
    }
    pub fn instructions(self) -> Vec<Value<'ctx>> {
        self.0.get_instructions().map(Value::of).collect()
    }
    pub fn first_instruction(self) -> Option<Value<'ctx>> {
        self.0.get_first_instruction().map(Value::of)
    }
    pub fn terminator(self) -> Option<Value<'ctx>> {
        self.0.get_terminator().map(Value::of)
    }
    pub fn successors(self) -> Vec<Block<'ctx>> {
        self.terminator().map(|t| t.successors()).unwrap_or_default()
    }
    pub fn first_non_phi(self) -> Option<Value<'ctx>> {
        self.instructions().into_iter().find(|i| !i.is_phi())
    }
    /// Moves this block (from any function) to just after `after`.
    pub fn move_after(self, after: Block<'ctx>) {
        self.0.move_after(after.0).expect("both blocks are in functions")
    }
    /// Deletes a block without remaining predecessors or uses.
    pub fn erase(self) {
        // SAFETY: the callers drop every handle into the block (its instructions included)
        // before erasing it, and nothing branches to it any more.
        unsafe { self.0.delete() }.expect("the block is in a function")
    }
    /// Splits before `at`: instructions from `at` on move to a new block that follows; this
    /// block ends with `br new`. Phis in successors are updated to name the new block.
    pub fn split_before(self, ctx: Context<'ctx>, at: Value<'ctx>, name: &str) -> Block<'ctx> {
        let new = ctx.append_block(self.parent(), name);
        new.move_after(self);
        let mut to_move = Vec::new();
        let mut cur = Some(at);
        while let Some(i) = cur {
            to_move.push(i);
            cur = i.next_instruction();
        }
        let b = ctx.builder();
        b.position_at_end(new);
        for i in &to_move {
            // Keeps the instruction's identity and uses: it is unlinked, then appended to `new`.
            i.inst().remove_from_basic_block();
            raw::insert_into_builder(b.0.as_mut_ptr(), i.raw());
        }
        // Successor phis that named `self` now come from `new`.
        for succ in new.successors() {
            for phi in succ.instructions().into_iter().take_while(|i| i.is_phi()) {
                rewrite_phi_edges(phi, |blk| Some(if blk == self { new } else { blk }));
            }
        }
        b.position_at_end(self);
        b.br(new);
        new
    }

    /// Opens a branch before `at`: splits there (`join`: `at` on) and appends an empty block
    /// `name` to the function; this block is left without a terminator, for the caller's
    /// branch to the new block or the join. Returns (the new block, the join).
    pub fn open_branch_before(self, ctx: Context<'ctx>, at: Value<'ctx>, name: &str, join_name: &str) -> (Block<'ctx>, Block<'ctx>) {
        let join = self.split_before(ctx, at, join_name);
        let new = ctx.append_block(self.parent(), name);
        self.terminator().expect("a split block ends with a branch").erase();
        (new, join)
    }
}

impl<'ctx> Value<'ctx> {
    /// A phi's incoming (value, block) pairs.
    pub fn incoming(self) -> Vec<(Value<'ctx>, Block<'ctx>)> {
        self.phi_node().get_incomings().map(|(v, b)| (Value::of(v), Block(b))).collect()
    }
    pub fn add_incoming(self, v: Value<'ctx>, b: Block<'ctx>) {
        self.phi_node().add_incoming(&[(&v.basic() as &dyn BasicValue<'ctx>, b.0)])
    }
}

/// Rewrites the incoming edges of `phi`: `edge(b)` is the block that an edge from `b` comes
/// from now, or None to drop the edge. Returns the phi, which is a new one when its edges
/// changed: PHINode's setIncomingBlock and removeIncomingValue have no C API (so none in
/// inkwell), so the phi is rebuilt in place (same position, type and name).
pub fn rewrite_phi_edges<'ctx>(phi: Value<'ctx>, edge: impl Fn(Block<'ctx>) -> Option<Block<'ctx>>) -> Value<'ctx> {
    let old = phi.incoming();
    let new: Vec<(Value, Block)> = old.iter().filter_map(|&(v, b)| Some((v, edge(b)?))).collect();
    if new == old {
        return phi;
    }
    let b = phi.ty().context().builder();
    b.position_before(phi);
    let newphi = b.phi(phi.ty(), "");
    for &(v, blk) in &new {
        newphi.add_incoming(v, blk);
    }
    let name = phi.name();
    phi.replace_all_uses_with(newphi);
    phi.erase();
    newphi.set_name(&name);
    newphi
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::OwnedContext;

    const DIAMOND: &str = "define i32 @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %x = phi i32 [ 1, %a ], [ 2, %b ]
  ret i32 %x
}
";

    fn edges(phi: Value) -> Vec<(Option<i64>, String)> {
        phi.incoming().into_iter().map(|(v, b)| (v.const_int_value(), b.name())).collect()
    }

    #[test]
    fn phi_edges_are_retargeted_and_dropped() {
        let owned = OwnedContext::new();
        let module = owned.context().parse_ir(DIAMOND, "diamond.ll").expect("parses");
        let m = module.handle();
        let f = m.function("f").expect("f");
        let [_, a, b, join] = f.blocks()[..] else { panic!("four blocks") };
        let phi = join.first_instruction().expect("phi");
        assert_eq!(rewrite_phi_edges(phi, Some), phi, "unchanged edges keep the phi");
        // split_before retargets the edge from a block to its second half.
        let a2 = a.split_before(owned.context(), a.terminator().expect("br"), "a2");
        let phi = join.first_instruction().expect("phi");
        assert_eq!(edges(phi), [(Some(1), "a2".to_string()), (Some(2), "b".to_string())]);
        m.verify().expect("valid after the split");
        // `b` no longer reaches `join`: its edge is dropped; the phi keeps its place and name.
        b.terminator().expect("br").set_successor(0, a2);
        let phi = rewrite_phi_edges(phi, |blk| (blk != b).then_some(blk));
        assert_eq!((edges(phi), phi.name()), (vec![(Some(1), "a2".to_string())], "x".to_string()));
        assert_eq!(join.first_instruction(), Some(phi));
        m.verify().expect("valid after the edge is dropped");
    }
}
