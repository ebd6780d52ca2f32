//! Widens the 64-bit uses of a partitioned loop's induction variable.
//!
//! Expects: a loop rewritten by `partition`, whose C induction variable `iv` (an integer
//! narrower than i64) is the truncation of an exact i64 value `wide`, with every value the
//! loop runs with representable in `iv`'s type as a signed number (partition checks that
//! the loop compares `iv` signed, in its own type).
//! Produces: every `sext` to i64 of `iv`, or of an expression reaching `iv` through
//! `add nsw`/`sub nsw`/`mul nsw` (C's signed `int` arithmetic: `a[i * n + k]`), replaced by
//! the same arithmetic done in i64 on `wide` (`nsw` kept), its other operands sign-extended.
//! Sign extension distributes over arithmetic that does not overflow, so the value is the
//! same; the narrow instructions stay for their other users (later passes drop dead ones).
//!
//! Why: clang's own loops get this from IndVarSimplify, which widens the narrow recurrence
//! that partition replaces by an i64 index. Without it every access pays a 32-bit add and a
//! `mul.wide` per element, and LSR cannot turn the address into a pointer induction
//! variable: matmul_red's inner loop ran 13 instructions per multiply-add, 7 after.
//!
//! Does not: widen through `zext` (unsigned loops wrap by definition), `shl`, divisions,
//! or across phis; those uses keep the narrow value.

use crate::ir::{Builder, Opcode, Type, Value};
use std::collections::{HashMap, HashSet};

/// Rewrites the i64 `sext` users of the expressions over `iv` in terms of `wide`.
pub fn widen_sext_users<'ctx>(b: &Builder<'ctx>, iv: Value<'ctx>, wide: Value<'ctx>) {
    let derived = derived_values(iv);
    let mut w = Widener { b, i64t: wide.ty(), derived: derived.iter().copied().collect(), memo: HashMap::from([(iv, wide)]) };
    for v in derived {
        for user in v.users() {
            if user.opcode() == Some(Opcode::LLVMSExt) && user.ty() == w.i64t {
                user.replace_all_uses_with(w.widened(v));
                user.erase();
            }
        }
    }
}

/// `iv` and the `nsw` add/sub/mul instructions computed from it, transitively, each after
/// its operands.
fn derived_values<'ctx>(iv: Value<'ctx>) -> Vec<Value<'ctx>> {
    let mut seen = HashSet::from([iv]);
    let mut order = vec![iv];
    let mut i = 0;
    while i < order.len() {
        for u in order[i].users() {
            if is_nsw_arith(u) && seen.insert(u) {
                order.push(u);
            }
        }
        i += 1;
    }
    order
}

fn is_nsw_arith(v: Value) -> bool {
    matches!(v.opcode(), Some(Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul)) && v.has_nsw()
}

struct Widener<'a, 'ctx> {
    b: &'a Builder<'ctx>,
    i64t: Type<'ctx>,
    derived: HashSet<Value<'ctx>>,
    /// The i64 value of each derived value's `sext`, `iv`'s being `wide`.
    memo: HashMap<Value<'ctx>, Value<'ctx>>,
}

impl<'ctx> Widener<'_, 'ctx> {
    /// The i64 value of `sext(v)` for a derived `v`, built just before `v`: its operands
    /// dominate `v`, so it dominates every user of `v`.
    fn widened(&mut self, v: Value<'ctx>) -> Value<'ctx> {
        if let Some(w) = self.memo.get(&v) {
            return *w;
        }
        let x = self.operand(v, v.operand(0));
        let y = self.operand(v, v.operand(1));
        self.b.position_before(v);
        let w = match v.opcode() {
            Some(Opcode::LLVMAdd) => self.b.add_nsw(x, y),
            Some(Opcode::LLVMSub) => self.b.sub_nsw(x, y),
            Some(Opcode::LLVMMul) => self.b.mul_nsw(x, y),
            other => unreachable!("internal: {other:?} is not widened arithmetic"),
        };
        self.memo.insert(v, w);
        w
    }

    /// Operand `x` of derived `v`, in i64.
    fn operand(&mut self, v: Value<'ctx>, x: Value<'ctx>) -> Value<'ctx> {
        if self.derived.contains(&x) {
            return self.widened(x);
        }
        self.b.position_before(v);
        self.b.sext_or_trunc(x, self.i64t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Module, OwnedContext};

    /// `a[i * n + k]` over a narrow `k` that is trunc(%wide): the sext becomes i64
    /// arithmetic on %wide; the narrow add keeps its other user.
    const LOOP: &str = r#"
define void @f(ptr %a, i64 %wide, i32 %i, i32 %n) {
entry:
  %k = trunc i64 %wide to i32
  %row = mul nsw i32 %i, %n
  %idx = add nsw i32 %row, %k
  %x = sext i32 %idx to i64
  %p = getelementptr inbounds double, ptr %a, i64 %x
  store double 0.0, ptr %p
  %u = add i32 %k, 1
  %y = sext i32 %u to i64
  %q = getelementptr inbounds double, ptr %a, i64 %y
  store double 1.0, ptr %q
  %z = zext i32 %idx to i64
  %r = getelementptr inbounds double, ptr %a, i64 %z
  store double 2.0, ptr %r
  ret void
}
"#;

    #[test]
    fn sext_of_nsw_arithmetic_is_done_in_i64() {
        let owned = OwnedContext::new();
        let module = owned.context().parse_ir(LOOP, "loop.ll").expect("LOOP parses");
        let m: Module = module.handle();
        let f = m.function("f").expect("f");
        let k = f.entry_block().instructions()[0];
        let wide = f.params()[1];
        let b = owned.context().builder();
        widen_sext_users(&b, k, wide);
        m.verify().expect("verifies");
        let text = f.to_string();
        assert!(text.contains("add nsw i64 %"), "{text}");
        assert!(text.contains("sext i32 %row to i64"), "{text}");
        // No longer a sext of the narrow index; the wrapping add and the zext keep theirs.
        assert!(!text.contains("sext i32 %idx"), "{text}");
        assert!(text.contains("sext i32 %u to i64"), "{text}");
        assert!(text.contains("zext i32 %idx to i64"), "{text}");
    }
}
