//! Human-readable summaries: the `print-acc-regions` printer (what the contract reader
//! saw) and the compile report (`accc -Minfo=accel`, `ACCC_INFO=1`; `-Minfo=json`).
//!
//! The report says what the pass did, per compute region, in NVHPC's `-Minfo=accel`
//! layout: the kernel and its launch, each `loop` directive's schedule with the hardware
//! index it runs over (mapping.rs: gang `blockIdx.x`, worker `threadIdx.y`, vector
//! `threadIdx.x`) or why it stayed sequential, each reduction's span and strategy
//! (reduction.rs), the data clauses and the data attributes the compiler chose for
//! variables no clause names (capture.rs), and per kernel and architecture what ptxas
//! says it uses (registers, shared memory, stack) and its read-only cache loads
//! (`ld.global.nc`). `Report::build` gathers everything but the usage while the pass
//! runs; `Report::emit` completes it once the image is built (image_job.rs), so that the
//! output is in source order whatever the image thread's timing. Text goes to stderr;
//! JSON (one document per translation unit) to the file `info-json` names.

use crate::contract::{Clause, ComputeKind, DataKind, Directive, TilePart};
use crate::device::KernelPlan;
use crate::error::{AccError, Loc, Result};
use crate::autopar::Verdict;
use crate::mapping::{Levels, LoopKind};
use crate::options::Options;
use crate::outline::Outlined;
use crate::ptx::Usage;
use serde_json::{json, Value as Json};
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
        Clause::Tile(part, sizes) => format!("{}({})", if *part == TilePart::Tiles { "tile" } else { "tile.element" }, sizes_text(sizes)),
        Clause::Default(s) => format!("default({s})"),
        Clause::Cache { var, readonly } => format!("cache({}{})", if *readonly { "readonly: " } else { "" }, var.text),
        other => {
            let dbg = format!("{other:?}");
            dbg.split('(').next().unwrap_or(&dbg).to_lowercase()
        }
    }
}

/// One `loop` directive (or a combined construct's loop) as the report shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopNote {
    pub loc: Loc,
    /// What the directive said (clauses).
    pub kind: LoopKind,
    /// The levels the loop got (mapping::assign_levels).
    pub assigned: Levels,
    /// The levels its iterations are spread over (mapping::effective_levels).
    pub effective: Levels,
    pub collapse: u32,
    /// A loop set of a tiled nest (driver/src/tile.rs) and its sizes, innermost loop first.
    pub tile: Option<(TilePart, Vec<u64>)>,
    /// `gang(dim: d)`: the grid dimension of its gang level (1 without the argument).
    pub gang_dim: u8,
    /// What the dependence analysis found (autopar.rs), for `auto` loops and loops of
    /// `kernels` without a clause.
    pub proof: Option<crate::autopar::Verdict>,
    /// Inside a loop no directive names (mapping::LoopDesc::in_plain_loop).
    pub in_plain_loop: bool,
    /// A plain `for` of `kernels` the rewriter left unmarked (driver/src/implicit.rs), and
    /// why: it runs sequentially inside the code around it.
    pub unmarked: Option<String>,
}

/// A data clause of the construct, or an attribute the compiler chose (`implicit`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataNote {
    pub clause: String,
    pub item: String,
    pub implicit: bool,
    /// Bytes mapped, for an implicit copy or present of a whole variable.
    pub bytes: Option<u64>,
    pub why: Option<String>,
}

/// One compute region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionNote {
    pub function: String,
    pub loc: Loc,
    /// `parallel loop`, `kernels`, ...
    pub construct: String,
    pub compute: ComputeKind,
    pub kernel: String,
    /// How the gang count is chosen.
    pub gangs: String,
    pub num_workers: String,
    pub vector_length: String,
    pub loops: Vec<LoopNote>,
    pub reductions: Vec<crate::reduction::Note>,
    /// Per item of each `cache` directive in the region: in shared memory or why not.
    pub caches: Vec<crate::cache::Note>,
    pub data: Vec<DataNote>,
}

/// The report of one translation unit, waiting for the kernels' usage.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub source: String,
    pub regions: Vec<RegionNote>,
    text: bool,
    json: Option<std::path::PathBuf>,
}

/// The names of the levels `l` holds, in gang, worker, vector order.
fn per_level(l: Levels, names: [&'static str; 3]) -> Vec<&'static str> {
    [l.gang, l.worker, l.vector].into_iter().zip(names).filter(|(on, _)| *on).map(|(_, n)| n).collect()
}

/// The hardware index a level runs over (mapping.rs); the gang level is the grid dimension
/// `gang_dim` (1 to 3).
pub fn dims(l: Levels, gang_dim: u8) -> Vec<&'static str> {
    let block = match gang_dim {
        2 => "blockIdx.y",
        3 => "blockIdx.z",
        _ => "blockIdx.x",
    };
    per_level(l, [block, "threadIdx.y", "threadIdx.x"])
}

fn level_names(l: Levels) -> Vec<&'static str> {
    per_level(l, ["gang", "worker", "vector"])
}

/// Why a loop runs sequentially (None: it is partitioned); `proof` is what the dependence
/// analysis found for it.
pub fn seq_reason(kind: LoopKind, compute: ComputeKind, assigned: Levels, proof: Option<&Verdict>) -> Option<String> {
    if !assigned.is_seq() {
        return None;
    }
    let what = match (kind, compute) {
        (LoopKind::Seq, _) => return Some("seq clause".into()),
        (_, ComputeKind::Serial) => return Some("serial construct: one thread runs the region".into()),
        (_, ComputeKind::KernelsSequential) => return Some("code of a kernels construct outside its loop nests: one thread runs it".into()),
        (LoopKind::Auto, _) => "auto loop",
        (LoopKind::Unspecified, ComputeKind::Kernels) => "kernels loop without independent",
        (LoopKind::Implicit, ComputeKind::Kernels) => "implicit loop",
        _ => "",
    };
    Some(match proof {
        Some(Verdict::Sequential(why)) if !what.is_empty() => format!("{what}, not proved parallel: {why}"),
        _ => "no level left: the enclosing loops, or the loops inside, use gang, worker and vector".into(),
    })
}

/// Why loop `l` of a region of kind `compute` runs sequentially (None: it is partitioned):
/// [`seq_reason`], and for an implicit loop (a plain `for` of `kernels`) what makes it one.
pub fn loop_seq_reason(l: &LoopNote, compute: ComputeKind) -> Option<String> {
    if let Some(why) = &l.unmarked {
        return Some(format!("implicit loop, not parallelised: {why}"));
    }
    let why = seq_reason(l.kind, compute, l.assigned, l.proof.as_ref())?;
    Some(if l.kind == LoopKind::Implicit && !why.starts_with("implicit loop") { format!("implicit loop: {why}") } else { why })
}

/// The note on a loop the dependence analysis proved parallel.
fn proof_line(l: &LoopNote) -> Option<String> {
    let what = if l.kind == LoopKind::Implicit { "implicit loop (no loop directive) is parallelizable" } else { "loop is parallelizable" };
    match (&l.proof, l.assigned.is_seq()) {
        (Some(Verdict::Independent), false) => Some(format!("{what}: accc proved its iterations independent (no loop-carried dependence)")),
        _ => None,
    }
}

/// Why a loop is spread over more levels than it was given (mapping::effective_levels).
pub fn widened_reason(assigned: Levels, effective: Levels) -> Option<String> {
    if assigned == effective || assigned.is_seq() {
        return None;
    }
    let extra = Levels { gang: false, worker: effective.worker && !assigned.worker, vector: effective.vector && !assigned.vector };
    let why = if extra.vector {
        "no partitioned loop inside it takes the finer levels"
    } else {
        "no worker loop around this vector loop spreads it over the workers"
    };
    Some(format!("also over {}: {why}", level_names(extra).join(", ")))
}

fn sizes_text(sizes: &[u64]) -> String {
    sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(",")
}

/// What a loop set of a tiled nest is: `tiled by tile(32,8): the 2 tile loops (tiles of 8 x
/// 32 iterations, outermost loop first)`.
pub fn tile_line(part: TilePart, sizes: &[u64]) -> String {
    let n = sizes.len();
    let shape = sizes.iter().rev().map(|s| s.to_string()).collect::<Vec<_>>().join(" x ");
    let what = match (part, n) {
        (TilePart::Tiles, 1) => "the tile loop".to_string(),
        (TilePart::Tiles, _) => format!("the {n} tile loops"),
        (TilePart::Elements, 1) => "the element loop".to_string(),
        (TilePart::Elements, _) => format!("the {n} element loops"),
    };
    format!("tiled by tile({}): {what} (tiles of {shape} iterations, outermost loop first)", sizes_text(sizes))
}

/// `#pragma acc loop gang, vector /* blockIdx.x threadIdx.x */`, and further lines when the
/// loop was widened or is a loop set of a tiled nest.
pub fn loop_lines(l: &LoopNote, compute: ComputeKind) -> Vec<String> {
    let collapse = if l.collapse > 1 { format!(" collapse({})", l.collapse) } else { String::new() };
    let names: Vec<String> = level_names(l.effective)
        .into_iter()
        .map(|n| if n == "gang" && l.gang_dim > 1 { format!("gang(dim: {})", l.gang_dim) } else { n.to_string() })
        .collect();
    let mut out = match loop_seq_reason(l, compute) {
        Some(why) => vec![format!("#pragma acc loop seq{collapse} /* sequential: {why} */")],
        None => {
            let mut out = vec![format!("#pragma acc loop {}{collapse} /* {} */", names.join(", "), dims(l.effective, l.gang_dim).join(" "))];
            out.extend(proof_line(l));
            if l.in_plain_loop && l.proof.is_some() && !l.effective.gang {
                out.push("no gang level: the loop is inside a loop without a directive (while, for, goto), and gangs cannot wait for each other between that loop's iterations".into());
            }
            if let Some(w) = widened_reason(l.assigned, l.effective) {
                out.push(format!("{} assigned; {w}", level_names(l.assigned).join(", ")));
            }
            out
        }
    };
    if let Some((part, sizes)) = &l.tile {
        out.push(tile_line(*part, sizes));
    }
    out
}

fn data_kind_name(k: DataKind) -> &'static str {
    match k {
        DataKind::Copy => "copy",
        DataKind::CopyIn => "copyin",
        DataKind::CopyOut => "copyout",
        DataKind::Create => "create",
        DataKind::Present => "present",
        DataKind::NoCreate => "no_create",
        DataKind::Delete => "delete",
        DataKind::DevicePtr => "deviceptr",
        DataKind::CopyOutZero => "copyout(zero:)",
        DataKind::CreateZero => "create(zero:)",
    }
}

fn data_text(d: &DataNote) -> String {
    let clause = match d.clause.strip_suffix("(zero:)") {
        Some(c) => format!("{c}(zero:{})", d.item),
        None => format!("{}({})", d.clause, d.item),
    };
    let mut s = format!("Generating {}{clause}", if d.implicit { "implicit " } else { "" });
    if let Some(b) = d.bytes {
        let _ = write!(s, " [{b} bytes]");
    }
    if let Some(w) = &d.why {
        let _ = write!(s, ": {w}");
    }
    s
}

fn usage_text(u: &Usage) -> String {
    let smem = if u.relocatable { " (relocatable cubin: .shared arrays are placed at load time, not counted)" } else { "" };
    let mut s = format!("Kernel {} for {}: {} registers, {} bytes shared memory{smem}, {} bytes stack", u.kernel, u.arch, u.registers, u.shared_bytes, u.stack_bytes);
    if u.spill_stores + u.spill_loads > 0 {
        let _ = write!(s, " ({} bytes spill stores, {} bytes spill loads)", u.spill_stores, u.spill_loads);
    }
    match u.nc_loads {
        0 => s.push_str(", no ld.global.nc (read-only cache) loads"),
        n => {
            let _ = write!(s, ", {n} ld.global.nc (read-only cache) loads");
        }
    }
    s
}

/// The lines of a source position: bare when in the report's source file, else `file:line`.
fn line_of(loc: &Loc, source: &str) -> String {
    if loc.file == source {
        loc.line.to_string()
    } else {
        format!("{}:{}", loc.file, loc.line)
    }
}

/// The text report: per function (`file: function:`), its regions in source order.
pub fn render_text(source: &str, regions: &[RegionNote], usage: &[Usage]) -> String {
    let mut s = String::new();
    let mut current: Option<&str> = None;
    for r in regions {
        if current != Some(r.function.as_str()) {
            let _ = writeln!(s, "{}: {}:", r.loc.file, r.function);
            current = Some(&r.function);
        }
        let l = line_of(&r.loc, source);
        // NVHPC's indentation: the region's lines at width 7, its loops' at width 11.
        let pad = |depth: usize, line: &str, text: &str| if depth == 0 { format!("{line:>7}, {text}\n") } else { format!("{line:>11}, {text}\n") };
        s += &pad(0, &l, &format!("Generating NVIDIA GPU code: {} as kernel {}", r.construct, r.kernel));
        s += &pad(1, &l, &format!("launch: {}, num_workers {}, vector_length {}", r.gangs, r.num_workers, r.vector_length));
        if r.loops.iter().all(|l| l.unmarked.is_some()) {
            s += &pad(1, &l, "no loop directive: the region's code is not partitioned (one lane of each gang runs it)");
        }
        // Loops and reductions interleaved in source order (a reduction at its loop).
        let mut items: Vec<(&Loc, usize, String)> = Vec::new();
        for (i, lp) in r.loops.iter().enumerate() {
            for (j, text) in loop_lines(lp, r.compute).into_iter().enumerate() {
                items.push((&lp.loc, i * 4 + j.min(1), text));
            }
        }
        for red in &r.reductions {
            let order = r.loops.iter().position(|lp| lp.loc == red.loc).map_or(usize::MAX, |i| i * 4 + 2);
            let text = if red.span == "gangs" {
                format!("Generating {} across gangs: {}", red.clause, red.strategy)
            } else {
                format!("Generating {} over {}: {}", red.clause, red.span, red.strategy)
            };
            items.push((&red.loc, order, text));
        }
        for c in &r.caches {
            items.push((&c.loc, usize::MAX, c.text()));
        }
        items.sort_by_key(|(loc, order, _)| (loc.line, loc.col, *order));
        let mut last: Option<(u32, u32)> = None;
        for (loc, _, text) in items {
            let here = (loc.line, loc.col);
            // A second line about the same loop is indented under it.
            if last == Some(here) && !text.starts_with('#') && !text.starts_with("Generating") {
                let _ = writeln!(s, "{:>13}{text}", "");
            } else {
                s += &pad(1, &line_of(loc, source), &text);
            }
            last = Some(here);
        }
        for d in &r.data {
            s += &pad(0, &l, &data_text(d));
        }
        for u in usage.iter().filter(|u| u.kernel == r.kernel) {
            s += &pad(0, &l, &usage_text(u));
        }
    }
    s
}

fn loc_json(loc: &Loc) -> Json {
    json!({ "file": loc.file, "line": loc.line, "column": loc.col })
}

/// The JSON report (`-Minfo=json`): `{"version": 1, "source", "regions": [...]}`, each
/// region with its `loops`, `reductions`, `data` and per-architecture `usage`.
pub fn render_json(source: &str, regions: &[RegionNote], usage: &[Usage]) -> Json {
    let regions: Vec<Json> = regions
        .iter()
        .map(|r| {
            let loops: Vec<Json> = r
                .loops
                .iter()
                .map(|l| {
                    let seq = loop_seq_reason(l, r.compute);
                    json!({
                        "location": loc_json(&l.loc),
                        "schedule": if seq.is_some() { vec!["seq"] } else { level_names(l.effective) },
                        "assigned": level_names(l.assigned),
                        "hardware": dims(l.effective, l.gang_dim),
                        "collapse": l.collapse,
                        "sequential_reason": seq,
                        "inside_plain_loop": l.in_plain_loop,
                        "widened": widened_reason(l.assigned, l.effective),
                        "tile": l.tile.as_ref().map(|(part, sizes)| json!({
                            "loops": if *part == TilePart::Tiles { "tile" } else { "element" },
                            "sizes": sizes,
                        })),
                        "proved_independent": l.proof.as_ref().map(|p| *p == Verdict::Independent),
                        "implicit": l.kind == LoopKind::Implicit,
                    })
                })
                .collect();
            let reductions: Vec<Json> = r
                .reductions
                .iter()
                .map(|x| json!({ "location": loc_json(&x.loc), "clause": x.clause, "span": x.span, "strategy": x.strategy }))
                .collect();
            let data: Vec<Json> = r
                .data
                .iter()
                .map(|d| json!({ "clause": d.clause, "item": d.item, "implicit": d.implicit, "bytes": d.bytes, "reason": d.why }))
                .collect();
            let caches: Vec<Json> = r
                .caches
                .iter()
                .map(|c| match &c.outcome {
                    crate::cache::Outcome::Shared { rows, width, elem_bytes, copies, per_thread, loads, checked } => json!({
                        "location": loc_json(&c.loc), "item": c.item, "placement": "shared",
                        "rows": rows, "width": width, "element_bytes": elem_bytes, "copies": copies, "bytes": rows * width * elem_bytes * copies,
                        "iterations_per_thread": per_thread, "loads": loads, "checked_loads": checked,
                    }),
                    crate::cache::Outcome::Global(why) => json!({ "location": loc_json(&c.loc), "item": c.item, "placement": "global", "reason": why }),
                })
                .collect();
            let usage: Vec<Json> = usage
                .iter()
                .filter(|u| u.kernel == r.kernel)
                .map(|u| {
                    json!({
                        "arch": u.arch,
                        "registers": u.registers,
                        "shared_memory_bytes": u.shared_bytes,
                        "stack_bytes": u.stack_bytes,
                        "spill_store_bytes": u.spill_stores,
                        "spill_load_bytes": u.spill_loads,
                        "ld_global_nc": u.nc_loads,
                        "relocatable": u.relocatable,
                    })
                })
                .collect();
            json!({
                "function": r.function,
                "location": loc_json(&r.loc),
                "construct": r.construct,
                "kernel": r.kernel,
                "launch": { "gangs": r.gangs, "num_workers": r.num_workers, "vector_length": r.vector_length },
                "loops": loops,
                "reductions": reductions,
                "caches": caches,
                "data": data,
                "usage": usage,
            })
        })
        .collect();
    json!({ "version": 1, "source": source, "regions": regions })
}

impl Report {
    /// The report of the regions `acc-offload` outlined (None: no report asked for).
    /// `unmarked`: per function, the plain `for` loops of `kernels` the rewriter left
    /// unmarked (`implicit.seq`), each reported in the region of that function that starts
    /// last before it.
    pub fn build<'ctx>(regions: &[Outlined<'ctx>], plans: &[KernelPlan], opts: &Options, source: &str, unmarked: &[(String, Loc, String)]) -> Option<Report> {
        if !opts.report() {
            return None;
        }
        let mut notes: Vec<RegionNote> = regions.iter().zip(plans).map(|(r, p)| region_note(r, p)).collect();
        attach_unmarked(&mut notes, unmarked);
        // Source order, each function's regions together.
        let first: std::collections::HashMap<String, (String, u32)> = notes.iter().rev().map(|n| (n.function.clone(), (n.loc.file.clone(), n.loc.line))).collect();
        notes.sort_by(|a, b| (&first[&a.function], &a.function, a.loc.line, a.loc.col).cmp(&(&first[&b.function], &b.function, b.loc.line, b.loc.col)));
        // The user's file (the regions' positions), not the scratch file clang compiled.
        let source = notes.first().map_or(source.to_string(), |n| n.loc.file.clone());
        Some(Report { source, regions: notes, text: opts.info, json: opts.info_json.clone() })
    }

    /// For a module without compute regions: the JSON report, empty, so that a tool finds
    /// one document per translation unit (the text report says nothing).
    pub fn empty<'ctx>(m: crate::ir::Module<'ctx>, opts: &Options) -> Result<()> {
        match &opts.info_json {
            Some(path) => Report { source: m.source_file_name(), regions: Vec::new(), text: false, json: Some(path.clone()) }.emit(&[]),
            None => Ok(()),
        }
    }

    /// Prints the text report and writes the JSON one, with the kernels' usage.
    pub fn emit(&self, usage: &[Usage]) -> Result<()> {
        if self.text {
            use std::io::Write;
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(render_text(&self.source, &self.regions, usage).as_bytes());
        }
        if let Some(path) = &self.json {
            let mut text = serde_json::to_string_pretty(&render_json(&self.source, &self.regions, usage)).map_err(|e| AccError::internal(format!("the compile report does not serialise: {e}")))?;
            text.push('\n');
            std::fs::write(path, text).map_err(|e| AccError::internal(format!("cannot write the compile report {}: {e}", path.display())))?;
        }
        Ok(())
    }
}

/// On a launch of one gang the across-gangs combine has one partial: say so rather than
/// "per-gang partials" (a `kernels loop reduction` that stayed sequential, `serial`).
fn one_gang_reductions(one_gang: bool, notes: &[crate::reduction::Note]) -> Vec<crate::reduction::Note> {
    notes
        .iter()
        .map(|n| {
            let mut n = n.clone();
            if one_gang && n.span == "gangs" {
                n.span = "one gang".into();
                n.strategy = "the kernel runs one gang: its result is combined into the variable once".into();
            }
            n
        })
        .collect()
}

/// Adds each unmarked loop (function, position, reason) to the region of its function whose
/// position is the last at or before it (else the function's first region).
pub fn attach_unmarked(notes: &mut [RegionNote], unmarked: &[(String, Loc, String)]) {
    for (function, loc, why) in unmarked {
        let key = |n: &RegionNote| (n.loc.line, n.loc.col);
        let same = notes.iter().enumerate().filter(|(_, n)| &n.function == function && n.loc.file == loc.file);
        let before = same.clone().filter(|(_, n)| key(n) <= (loc.line, loc.col)).max_by_key(|(_, n)| key(n)).map(|(i, _)| i);
        let Some(i) = before.or_else(|| same.min_by_key(|(_, n)| key(n)).map(|(i, _)| i)) else { continue };
        notes[i].loops.push(LoopNote {
            loc: loc.clone(),
            kind: LoopKind::Implicit,
            assigned: Levels::NONE,
            effective: Levels::NONE,
            collapse: 1,
            tile: None,
            gang_dim: 1,
            proof: None,
            unmarked: Some(why.clone()),
            in_plain_loop: false,
        });
    }
}

fn region_note<'ctx>(r: &Outlined<'ctx>, p: &KernelPlan) -> RegionNote {
    let d = &r.directive;
    let find = |f: &dyn Fn(&Clause<'ctx>) -> bool| d.clauses.iter().any(f);
    let num_gangs = find(&|c| matches!(c, Clause::NumGangs(_)));
    let one_gang = r.compute.is_sequential() || (!num_gangs && !p.loops.iter().any(|l| l.assigned.gang));
    let gangs = if r.compute.is_sequential() {
        "one gang".to_string()
    } else if find(&|c| matches!(c, Clause::NumGangs(v) if v.len() > 1)) {
        "num_gangs from the clause (a grid of several gang dimensions)".to_string()
    } else if num_gangs {
        "num_gangs from the clause".to_string()
    } else if one_gang {
        "one gang (no gang loop, no num_gangs)".to_string()
    } else if p.gang_dims.iter().any(|d| *d > 1) {
        let used: Vec<String> = (1..=3u8).filter(|d| p.gang_dims.contains(d)).map(|d| d.to_string()).collect();
        format!("gangs in dimensions {} of the grid, enough for each gang loop's iterations", used.join(" and "))
    } else if let Some(g) = &p.gang_trips[0] {
        match g.per_thread {
            1 => "gangs enough for the gang loop's iterations".to_string(),
            n => format!("gangs enough for the gang loop's iterations, {n} per thread (cache windows)"),
        }
    } else {
        "gangs chosen by the runtime".to_string()
    };
    // A constant clause value is shown (a tiled nest's vector_length is the driver's choice).
    let size = |given: Option<&crate::ir::Value<'ctx>>, default: i64| match given {
        Some(v) => v.const_int_value().map_or_else(|| "from the clause".to_string(), |n| n.to_string()),
        None => default.to_string(),
    };
    let mut data: Vec<DataNote> = d
        .clauses
        .iter()
        .filter_map(|c| match c {
            Clause::Data(k, v) if crate::private_copies::is_implied_copyin(&r.copies, *k, v) => Some(DataNote {
                clause: data_kind_name(*k).into(),
                item: v.text.clone(),
                implicit: true,
                bytes: None,
                why: Some("the data firstprivate copies are filled from".into()),
            }),
            Clause::Data(k, v) => Some(DataNote { clause: data_kind_name(*k).into(), item: v.text.clone(), implicit: false, bytes: None, why: None }),
            _ => None,
        })
        .collect();
    for (i, c) in r.captures.iter().enumerate() {
        if let Some((clause, why)) = c.implicit {
            if !crate::capture::is_user_variable_name(&c.name) {
                continue;
            }
            if let Some((_, b)) = p.inferred.iter().find(|(k, _)| *k == i) {
                if b.is_nothing() {
                    data.push(DataNote {
                        clause: "no_create".into(),
                        item: c.name.clone(),
                        implicit: true,
                        bytes: None,
                        why: Some("pointer with no data clause that the region never dereferences: its value is passed as is when its target is absent".into()),
                    });
                    continue;
                }
                data.push(DataNote {
                    clause: if b.written { "copy" } else { "copyin" }.into(),
                    item: format!("{}[bounded by its subscripts]", c.name),
                    implicit: true,
                    bytes: None,
                    why: Some("pointer with no data clause: the bytes the region's loads and stores reach, from the least to the greatest (computed at launch from the loop bounds), unless present".into()),
                });
                continue;
            }
            let bytes = (matches!(c.passing, crate::capture::Passing::Implicit(_)) && c.size.is_none()).then_some(c.bytes);
            data.push(DataNote { clause: clause.into(), item: c.name.clone(), implicit: true, bytes, why: Some(why.into()) });
        }
    }
    for (c, level) in r.copies.iter().zip(&p.private_levels).filter(|(_, l)| **l != crate::private_copies::CopyLevel::Local) {
        let (item, bytes) = match &c.source {
            // The reduction's own report line says what its copies are.
            crate::private_copies::Source::ReductionView(_) => continue,
            crate::private_copies::Source::Section(x) | crate::private_copies::Source::Member(x) => (x.text.clone(), None),
            crate::private_copies::Source::Whole(b) => (c.name.clone(), b.const_int_value().map(|b| b as u64)),
        };
        let clause = if c.initialised { "firstprivate" } else { "private" };
        data.push(DataNote { clause: clause.into(), item, implicit: false, bytes, why: Some(crate::private_copies::describe(*level, c.initialised).into()) });
    }
    for text in &r.in_loop {
        let why = "a copy per iteration of the loop, made where the iteration starts (its bounds are computed in the region): on the thread's stack, or the device heap when a finer loop's lanes share it".to_string();
        data.push(DataNote { clause: "private".into(), item: text.clone(), implicit: false, bytes: None, why: Some(why) });
    }
    for h in &p.heap_arrays {
        let whose = match h.place {
            crate::privatize::Placement::PerWorker => "worker",
            crate::privatize::Placement::PerThread => {
                let why = format!(
                    "a thread's own array whose size the region computes: on its stack up to {} bytes, else from the device heap, allocated where it is declared and freed at the end of its scope",
                    crate::privatize::THREAD_STACK_ARRAY_BYTES
                );
                data.push(DataNote { clause: "private".into(), item: h.name.clone(), implicit: true, bytes: None, why: Some(why) });
                continue;
            }
            _ => "gang",
        };
        let why = if h.sized_in_region {
            format!("an array whose size the region computes, shared by a {whose}'s lanes: a copy per {whose} from the device heap, allocated where it is declared and freed at the end of its scope")
        } else {
            format!("an array shared by a {whose}'s lanes, over shared memory's budget ({} KiB per kernel): a copy per {whose} from the device heap, allocated when the gang starts", crate::privatize::SHARED_LIMIT / 1024)
        };
        data.push(DataNote { clause: "private".into(), item: h.name.clone(), implicit: true, bytes: None, why: Some(why) });
    }
    let reductions = one_gang_reductions(one_gang, &p.reductions);
    RegionNote {
        function: d.function.name(),
        loc: d.loc.clone(),
        construct: d.name.clone(),
        compute: r.compute,
        kernel: p.name.clone(),
        gangs,
        num_workers: size(d.clauses.iter().find_map(|c| if let Clause::NumWorkers(v) = c { Some(v) } else { None }), p.shape.num_workers),
        vector_length: size(d.clauses.iter().find_map(|c| if let Clause::VectorLength(v) = c { Some(v) } else { None }), p.shape.vector_length),
        loops: p.loops.clone(),
        reductions,
        caches: p.caches.clone(),
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const G: Levels = Levels { gang: true, worker: false, vector: false };
    const GV: Levels = Levels { gang: true, worker: false, vector: true };
    const GWV: Levels = Levels { gang: true, worker: true, vector: true };
    const V: Levels = Levels { gang: false, worker: false, vector: true };
    const WV: Levels = Levels { gang: false, worker: true, vector: true };

    fn lp(line: u32, kind: LoopKind, assigned: Levels, effective: Levels) -> LoopNote {
        LoopNote { loc: Loc { file: "t.c".into(), line, col: 9 }, kind, assigned, effective, collapse: 1, tile: None, gang_dim: 1, proof: None, unmarked: None, in_plain_loop: false }
    }

    #[test]
    fn implicit_loops_say_so() {
        let p = ComputeKind::Kernels;
        let mut proved = lp(3, LoopKind::Implicit, G, G);
        proved.proof = Some(Verdict::Independent);
        assert_eq!(loop_lines(&proved, p)[1], "implicit loop (no loop directive) is parallelizable: accc proved its iterations independent (no loop-carried dependence)");
        let mut kept = lp(4, LoopKind::Implicit, Levels::NONE, Levels::NONE);
        kept.proof = Some(Verdict::Sequential("'x' written in one iteration is read in another".into()));
        assert_eq!(loop_lines(&kept, p), vec!["#pragma acc loop seq /* sequential: implicit loop, not proved parallel: 'x' written in one iteration is read in another */"]);
        assert_eq!(
            loop_seq_reason(&lp(5, LoopKind::Implicit, Levels::NONE, Levels::NONE), ComputeKind::KernelsSequential).unwrap(),
            "implicit loop: code of a kernels construct outside its loop nests: one thread runs it"
        );
        // Unmarked loops join the region of their function that starts last before them.
        let region = |line: u32, function: &str| RegionNote {
            function: function.into(),
            loc: Loc { file: "t.c".into(), line, col: 9 },
            construct: "kernels".into(),
            compute: p,
            kernel: format!("{function}_l{line}"),
            gangs: String::new(),
            num_workers: String::new(),
            vector_length: String::new(),
            loops: vec![],
            reductions: vec![],
            caches: vec![],
            data: vec![],
        };
        let mut notes = vec![region(2, "f"), region(10, "f"), region(20, "g")];
        let at = |line: u32| Loc { file: "t.c".into(), line, col: 5 };
        attach_unmarked(&mut notes, &[("f".into(), at(12), "a 'break' leaves it early".into()), ("f".into(), at(5), "why".into()), ("g".into(), at(1), "before".into())]);
        assert_eq!(notes.iter().map(|n| n.loops.len()).collect::<Vec<_>>(), [1, 1, 1]);
        assert_eq!(loop_lines(&notes[1].loops[0], p), vec!["#pragma acc loop seq /* sequential: implicit loop, not parallelised: a 'break' leaves it early */"]);
        assert_eq!(notes[2].loops[0].loc.line, 1, "before every region of its function: the first one");
    }

    #[test]
    fn schedules_and_reasons() {
        assert_eq!(dims(GWV, 1), vec!["blockIdx.x", "threadIdx.y", "threadIdx.x"]);
        assert_eq!(dims(G, 2), vec!["blockIdx.y"]);
        assert_eq!(dims(GV, 3), vec!["blockIdx.z", "threadIdx.x"]);
        let dim2 = LoopNote { gang_dim: 2, ..lp(3, LoopKind::Explicit(G), G, G) };
        assert_eq!(loop_lines(&dim2, ComputeKind::Parallel), vec!["#pragma acc loop gang(dim: 2) /* blockIdx.y */"]);
        let p = ComputeKind::Parallel;
        assert_eq!(loop_lines(&lp(3, LoopKind::Explicit(G), G, G), p), vec!["#pragma acc loop gang /* blockIdx.x */"]);
        assert_eq!(
            loop_lines(&lp(3, LoopKind::Unspecified, GV, GWV), p),
            vec!["#pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */", "gang, vector assigned; also over worker: no worker loop around this vector loop spreads it over the workers"]
        );
        assert_eq!(loop_lines(&lp(3, LoopKind::Explicit(V), V, WV), p)[1], "vector assigned; also over worker: no worker loop around this vector loop spreads it over the workers");
        assert_eq!(loop_lines(&lp(3, LoopKind::Explicit(G), G, GWV), p)[1], "gang assigned; also over worker, vector: no partitioned loop inside it takes the finer levels");
        assert_eq!(loop_lines(&lp(3, LoopKind::Seq, Levels::NONE, Levels::NONE), p), vec!["#pragma acc loop seq /* sequential: seq clause */"]);
        let kept = Verdict::Sequential("'a' written in one iteration is read in another (dependence distance 1)".into());
        assert_eq!(
            seq_reason(LoopKind::Unspecified, ComputeKind::Kernels, Levels::NONE, Some(&kept)).unwrap(),
            "kernels loop without independent, not proved parallel: 'a' written in one iteration is read in another (dependence distance 1)"
        );
        assert!(seq_reason(LoopKind::Auto, p, Levels::NONE, Some(&kept)).unwrap().starts_with("auto loop, not proved parallel: 'a' written"));
        // Proved, but every level is taken by the loops around it.
        assert!(seq_reason(LoopKind::Auto, p, Levels::NONE, Some(&Verdict::Independent)).unwrap().starts_with("no level left"));
        assert!(seq_reason(LoopKind::Explicit(G), ComputeKind::Serial, Levels::NONE, None).unwrap().starts_with("serial construct"));
        assert!(seq_reason(LoopKind::Auto, ComputeKind::Serial, Levels::NONE, None).unwrap().starts_with("serial construct"));
        assert!(seq_reason(LoopKind::Independent, p, Levels::NONE, None).unwrap().starts_with("no level left"));
        assert_eq!(seq_reason(LoopKind::Independent, ComputeKind::Kernels, G, None), None);
        // A proved loop says so under its schedule.
        let mut proved = lp(3, LoopKind::Unspecified, GV, GWV);
        proved.proof = Some(Verdict::Independent);
        assert_eq!(loop_lines(&proved, ComputeKind::Kernels)[1], "loop is parallelizable: accc proved its iterations independent (no loop-carried dependence)");
        let mut c = lp(3, LoopKind::Explicit(GV), GV, GWV);
        c.collapse = 2;
        assert!(loop_lines(&c, p)[0].starts_with("#pragma acc loop gang, worker, vector collapse(2) /*"));
    }

    #[test]
    fn tiled_loop_sets_say_so() {
        let p = ComputeKind::Parallel;
        let mut t = lp(3, LoopKind::Unspecified, G, G);
        t.collapse = 2;
        t.tile = Some((TilePart::Tiles, vec![32, 8]));
        assert_eq!(
            loop_lines(&t, p),
            vec![
                "#pragma acc loop gang collapse(2) /* blockIdx.x */".to_string(),
                "tiled by tile(32,8): the 2 tile loops (tiles of 8 x 32 iterations, outermost loop first)".to_string(),
            ]
        );
        assert_eq!(tile_line(TilePart::Elements, &[256]), "tiled by tile(256): the element loop (tiles of 256 iterations, outermost loop first)");
        // A sequential tiled nest still says it was tiled.
        let mut s = lp(3, LoopKind::Seq, Levels::NONE, Levels::NONE);
        s.tile = Some((TilePart::Elements, vec![4]));
        assert_eq!(loop_lines(&s, p)[1], "tiled by tile(4): the element loop (tiles of 4 iterations, outermost loop first)");
        let mut r = region();
        r.loops[0].tile = Some((TilePart::Tiles, vec![5, 3]));
        let j = render_json("t.c", &[r], &[]);
        assert_eq!(j["regions"][0]["loops"][0]["tile"], json!({"loops": "tile", "sizes": [5, 3]}));
        assert_eq!(j["regions"][0]["loops"][1]["tile"], Json::Null);
    }

    fn region() -> RegionNote {
        RegionNote {
            function: "sum".into(),
            loc: Loc { file: "t.c".into(), line: 4, col: 9 },
            construct: "parallel loop".into(),
            compute: ComputeKind::Parallel,
            kernel: "sum_l4".into(),
            gangs: "gangs enough for the gang loop's iterations".into(),
            num_workers: "1".into(),
            vector_length: "256".into(),
            loops: vec![lp(4, LoopKind::Unspecified, GV, GWV), lp(6, LoopKind::Seq, Levels::NONE, Levels::NONE)],
            reductions: vec![crate::reduction::Note { loc: Loc { file: "t.c".into(), line: 4, col: 9 }, clause: "reduction(+:s)".into(), span: "gangs".into(), strategy: "last gang".into() }],
            caches: vec![],
            data: vec![
                DataNote { clause: "copyin".into(), item: "a[0:n]".into(), implicit: false, bytes: None, why: None },
                DataNote { clause: "copy".into(), item: "s".into(), implicit: true, bytes: Some(8), why: Some("reduction".into()) },
            ],
        }
    }

    #[test]
    fn text_layout() {
        let u = Usage { kernel: "sum_l4".into(), arch: "sm_90".into(), registers: 31, shared_bytes: 800, nc_loads: 2, ..Usage::default() };
        let want = "\
t.c: sum:
      4, Generating NVIDIA GPU code: parallel loop as kernel sum_l4
          4, launch: gangs enough for the gang loop's iterations, num_workers 1, vector_length 256
          4, #pragma acc loop gang, worker, vector /* blockIdx.x threadIdx.y threadIdx.x */
             gang, vector assigned; also over worker: no worker loop around this vector loop spreads it over the workers
          4, Generating reduction(+:s) across gangs: last gang
          6, #pragma acc loop seq /* sequential: seq clause */
      4, Generating copyin(a[0:n])
      4, Generating implicit copy(s) [8 bytes]: reduction
      4, Kernel sum_l4 for sm_90: 31 registers, 800 bytes shared memory, 0 bytes stack, 2 ld.global.nc (read-only cache) loads
";
        assert_eq!(render_text("t.c", &[region()], &[u]), want);
    }

    #[test]
    fn json_keys() {
        let j = render_json("t.c", &[region()], &[]);
        assert_eq!(j["version"], 1);
        let r = &j["regions"][0];
        assert_eq!(r["kernel"], "sum_l4");
        assert_eq!(r["loops"][0]["hardware"], json!(["blockIdx.x", "threadIdx.y", "threadIdx.x"]));
        assert_eq!(r["loops"][1]["schedule"], json!(["seq"]));
        assert_eq!(r["loops"][1]["sequential_reason"], "seq clause");
        assert_eq!(r["data"][1]["implicit"], true);
        assert_eq!(r["reductions"][0]["span"], "gangs");
        assert_eq!(r["usage"], json!([]));
    }
}
