//! Rewrites of the emitted PTX that keep ptxas from miscompiling it (docs/ptxas-bugs/).
//!
//! Expects: PTX text from LLVM's NVPTX back end (one instruction per line). Produces: the same
//! PTX with the operands of some commutative instructions swapped; nothing else changes, so
//! every rewrite is right whatever ptxas does with it.
//!
//! max-neg-bool: ptxas 12.9 and the 580 driver's JIT, at optimisation levels 1 to 4, drop the
//! negation in `max.s32 %d, %a, %n` (`%n` a `neg.s32` result) when `%d` feeds another
//! `max.s32` with a `selp` 0/1 operand; with the negated operand first the same kernel is
//! right. Every integer `min`/`max` whose second operand is a `neg` result and whose first
//! is not gets its operands swapped.
//!
//! What it deliberately does not do: follow registers across functions (the set of `neg`
//! results starts afresh at each `.entry`/`.func`), or rewrite anything it does not parse.

/// `ptx` with the rewrites of the module doc.
pub fn work_around_ptxas(ptx: &str) -> String {
    let mut negated: Vec<String> = Vec::new();
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let body = line.trim_start();
        if body.starts_with(".visible .entry") || body.starts_with(".entry") || body.contains(".func ") {
            negated.clear();
        }
        if let Some(dest) = neg_destination(body) {
            negated.push(dest.to_string());
        }
        match swapped_min_max(line, &negated) {
            Some(rewritten) => out.push_str(&rewritten),
            None => out.push_str(line),
        }
    }
    out
}

/// The register an integer `neg` writes (`neg.s32 %r33, %r32;` → `%r33`).
fn neg_destination(body: &str) -> Option<&str> {
    let rest = ["neg.s16", "neg.s32", "neg.s64"].iter().find_map(|op| body.strip_prefix(op))?;
    let dest = rest.trim_start().split(',').next()?.trim();
    dest.starts_with('%').then_some(dest)
}

/// `line` with its operands swapped when it is an integer `min`/`max` whose second operand
/// is in `negated` and whose first is not.
fn swapped_min_max(line: &str, negated: &[String]) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let body = line.trim_start();
    let op_end = body.find(char::is_whitespace)?;
    let (op, after) = body.split_at(op_end);
    let rest = after.trim_start();
    let gap = &after[..after.len() - rest.len()];
    let integer = ["s16", "u16", "s32", "u32", "s64", "u64"];
    let is_min_max = op.split_once('.').is_some_and(|(name, ty)| (name == "max" || name == "min") && integer.contains(&ty));
    if !is_min_max {
        return None;
    }
    let (operands, tail) = rest.split_once(';')?;
    let parts: Vec<&str> = operands.split(',').map(str::trim).collect();
    let [d, a, b] = parts[..] else { return None };
    let is_negated = |r: &str| negated.iter().any(|n| n == r);
    if !is_negated(b) || is_negated(a) {
        return None;
    }
    Some(format!("{indent}{op}{gap}{d}, {b}, {a};{tail}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negated_second_operand_of_max_comes_first() {
        let ptx = "\tneg.s32 \t%r33, %r32;\n\tmax.s32 \t%r34, %r59, %r33;\n\tmax.s32 \t%r59, %r34, %r37;\n";
        assert_eq!(work_around_ptxas(ptx), "\tneg.s32 \t%r33, %r32;\n\tmax.s32 \t%r34, %r33, %r59;\n\tmax.s32 \t%r59, %r34, %r37;\n");
    }

    #[test]
    fn other_instructions_and_orders_are_left_alone() {
        // Already first, both negated, a float max, an add, and another function's register.
        let ptx = concat!(
            ".visible .entry k(\n\tneg.s64 \t%rd2, %rd1;\n\tmin.u64 \t%rd3, %rd2, %rd4;\n",
            "\tneg.s32 \t%r1, %r0;\n\tneg.s32 \t%r2, %r0;\n\tmax.s32 \t%r3, %r1, %r2;\n",
            "\tmax.f32 \t%f1, %f2, %f3;\n\tadd.s32 \t%r4, %r5, %r1;\n",
            ".visible .entry j(\n\tmax.s32 \t%r6, %r7, %r1;\n",
        );
        assert_eq!(work_around_ptxas(ptx), ptx);
        // min.s64 with a negated second operand: swapped, spacing kept.
        assert_eq!(work_around_ptxas("\tneg.s64 \t%rd9, %rd8;\n\tmin.s64 \t%rd7, %rd6, %rd9; // x\n"), "\tneg.s64 \t%rd9, %rd8;\n\tmin.s64 \t%rd7, %rd9, %rd6; // x\n");
    }
}
