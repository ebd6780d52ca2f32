//! Human-readable summaries: the `print-acc-regions` printer (what the contract reader
//! saw) and the per-kernel loop schedule (`ACCC_INFO=1`, the seed of an -Minfo report).

use crate::contract::{Clause, Directive};
use crate::device::KernelPlan;
use crate::outline::Outlined;
use std::fmt::Write;

pub fn describe<'ctx>(ds: &[Directive<'ctx>]) -> String {
    let mut s = String::new();
    for d in ds {
        let _ = writeln!(s, "{}: {} (id {}) in {}", d.loc, d.name, d.id, d.function.name());
        for c in &d.clauses {
            let _ = writeln!(s, "  {}", clause_text(c));
        }
    }
    s
}

fn clause_text<'ctx>(c: &Clause<'ctx>) -> String {
    match c {
        Clause::Data(k, v) => format!("{:?}({})", k, v.text).to_lowercase(),
        Clause::Attach(v) => format!("attach({})", v.text),
        Clause::Detach(v) => format!("detach({})", v.text),
        Clause::Update { to_device, var } => format!("{}({})", if *to_device { "device" } else { "self" }, var.text),
        Clause::Private(v) => format!("private({})", v.text),
        Clause::FirstPrivate(v) => format!("firstprivate({})", v.text),
        Clause::UseDevice(v) => format!("use_device({})", v.text),
        Clause::Link(v) => format!("link({})", v.text),
        Clause::Reduction(r) => format!("reduction({}:{})", r.op.symbol(), r.var.text),
        Clause::Collapse(n) => format!("collapse({n})"),
        Clause::Default(s) => format!("default({s})"),
        other => {
            let dbg = format!("{other:?}");
            dbg.split('(').next().unwrap_or(&dbg).to_lowercase()
        }
    }
}

pub fn plans<'ctx>(regions: &[Outlined<'ctx>], plans: &[KernelPlan]) -> String {
    let mut s = String::new();
    for (r, p) in regions.iter().zip(plans) {
        let _ = writeln!(
            s,
            "{}: {}: kernel {} (num_workers {} vector_length {} by default)",
            r.directive.loc, r.directive.name, p.name, p.shape.num_workers, p.shape.vector_length
        );
        for (loc, lv) in &p.loops {
            let _ = writeln!(s, "{loc}:   loop scheduled {}", lv.describe());
        }
        for line in &p.reductions {
            let _ = writeln!(s, "{line}");
        }
    }
    s
}
