//! `acc-codegen`: everything `acc-offload` does, as one pipeline over a host module.
//!
//! The stages, in order (each a module with its own contract in its `//!` doc):
//! 1. `cleanups`  drop the cleanup-switch edges no execution takes (a `goto` inside a
//!                region is not a way out); `contract` read and verify the OpenACC markers
//!                (docs/ir-contract.md); `sections` check multi-dimensional sections
//!                known only at run time;
//! 2. `outline`   move each compute region into a function of its own (host fallback);
//! 3. `device`    clone to an NVPTX module, map loops (`mapping`, `loops`, `partition`),
//!                make side effects outside them single-lane (`guard`), link `runtime-ir`
//!                and libdevice, optimise, emit PTX and a cubin (`ptx`); a copy taken
//!                before the NVPTX-specific steps becomes the emulator's (`emulator`);
//! 4. `host_stub` replace each region by the launch sequence; the image, built meanwhile on
//!                a thread of its own, goes in at the end (`image_job`; inside clang after
//!                the host optimisation pipeline);
//! 5. `data`      lower data regions, enter/exit data, update and wait (`host_data` is
//!                lowered right after reading, before step 2); `declare` its declares (a
//!                data region to every return; at file scope, registrations in a
//!                constructor);
//! 6. erase the markers.
//!
//! Decisions (`capture::classify`, `mapping::assign_levels`, `loops::trip_count`) are pure
//! functions with unit tests; IR manipulation goes through the handle layer in `ir`, the
//! only module with `unsafe` LLVM calls besides the target machine in `ptx`.

pub mod atomic_reduction;
pub mod cache;
pub mod capture;
pub mod cfg;
pub mod cleanups;
pub mod contract;
pub mod autopar;
pub mod data;
pub mod declare;
pub mod depend;
pub mod devcheck;
pub mod device_libc;
pub mod devmath;
pub mod device;
pub mod devrt;
pub mod element_address;
pub mod emulator;
pub mod error;
pub mod expr;
pub mod globals;
pub mod guard;
pub mod host_data;
pub mod host_stub;
pub mod implicit_bounds;
pub mod image;
pub mod image_job;
pub mod ir;
pub mod kernels;
pub mod liveness;
pub mod loops;
pub mod mapping;
pub mod on_device;
pub mod options;
pub mod outline;
pub mod partition;
pub mod private_atomics;
pub mod private_copies;
pub mod privatize;
pub mod reduction;
pub mod ptx;
pub mod ptx_fixups;
pub mod report;
pub mod routine;
pub mod rt;
pub mod sections;
pub mod timing;
pub mod widen;

pub use error::{silence_panic_output, AccError, Loc};

use contract::{Clause, DataKind, Directive, DirectiveKind, Var};
use ir::Module;
use llvm_sys::prelude::LLVMModuleRef;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Everything, the device image included, before returning.
    Offload,
    /// The device image is left building on a thread of its own; `finish_module` installs
    /// it (inside clang: at the optimiser's last extension point, image_job.rs).
    OffloadDeferred,
    /// `print-acc-regions`: print what the contract reader sees, change nothing.
    PrintRegions,
}

/// Runs the pass on a module owned by the caller. Ok(changed) or the errors to print.
///
/// # Safety
/// `m` must be a live module that nothing else uses during the call.
pub unsafe fn run_on_module(m: LLVMModuleRef, options: &str, mode: Mode) -> Result<bool, Vec<AccError>> {
    // SAFETY: the caller's contract.
    unsafe { ir::with_borrowed_module(m, |m| run(m, options, mode)) }.map_err(|e| vec![e])
}

fn run<'ctx>(m: Module<'ctx>, options: &str, mode: Mode) -> error::Result<bool> {
    let opts = options::Options::from_env_and_params(options).map_err(|msg| AccError::Usage { msg })?;
    error::set_reproduce_options(&opts.as_params());
    // Run as `clang -fpass-plugin` without `-fno-discard-value-names` (accc passes it), the
    // context drops names; the blocks and private slots this pass creates need theirs.
    m.context().set_discard_value_names(false);
    let t = timing::phase("read directives");
    // Before anything reads the control flow: a `goto` inside a region must not look like a
    // way out of it (cleanups.rs).
    let pruned = cleanups::prune(m, contract::BEGIN);
    let mut directives = contract::read_module(m)?;
    drop(t);
    if mode == Mode::PrintRegions {
        print!("{}", report::describe(&directives));
        use std::io::Write;
        let _ = std::io::stdout().flush();
        return Ok(pruned);
    }
    let had_markers = [contract::BEGIN, contract::CLAUSE, contract::END].iter().any(|n| m.function(n).is_some());
    // Routines first: they are declarations, and what the rest reads must not see them.
    let routines = routine::collect(&directives)?;
    routine::check_gang_dims(&routines, &directives)?;
    routine::erase_directives(m, &directives);
    directives.retain(|d| d.kind != DirectiveKind::Routine);
    contract::check_orphaned_loops(&directives, &routines.iter().map(|r| r.function).collect::<Vec<_>>())?;
    let exported = routine::exportable(m, &routine::exported(&routines));
    if directives.is_empty() && exported.is_empty() {
        report::Report::empty(m, &opts)?;
        routine::lower_nohost(m, &routines);
        contract::erase_markers(m);
        return Ok(had_markers);
    }
    // host_data first: a compute construct inside one captures the device addresses it
    // leaves. Its lowering changes the operands of the directives nested in it: read again.
    if directives.iter().any(|d| d.kind == DirectiveKind::HostData) {
        for d in directives.iter().filter(|d| d.kind == DirectiveKind::HostData) {
            host_data::lower(m, d)?;
        }
        directives = contract::read_module(m)?;
    }
    sections::emit_runtime_checks(m, &directives);
    declare::check_placement(&directives)?;
    let file_declared = declare::file_scope_items(&directives)?;
    let declared = declare::declared_globals(&file_declared);
    let linked = declare::linked_globals(&directives);
    // The plain loops of `kernels` the rewriter left unmarked: report lines only.
    let mut directives = directives;
    let unmarked = kernels::take_unmarked(&mut directives);
    let directives = kernels::split(m, directives);
    // Enclosing data regions and nested loops, decided before outlining changes the control
    // flow.
    let t = timing::phase("outline");
    let mut cfgs: HashMap<ir::Value, cfg::FunctionCfg> = HashMap::new();
    let nesting: Vec<(Vec<(DataKind, Var)>, Vec<Directive>)> = directives
        .iter()
        .map(|d| {
            let cfg = cfgs.entry(d.function).or_insert_with(|| cfg::FunctionCfg::new(d.function));
            (enclosing_data(d, &directives, cfg, &file_declared), nested_loops(d, &directives, cfg))
        })
        .collect();
    devcheck::thread_locals_in_regions(m, &directives, &cfgs)?;
    let mut regions = Vec::new();
    for (d, (enc, loops)) in directives.iter().zip(&nesting) {
        if d.kind.is_compute() {
            let r = outline::outline(m, d, enc, loops, &regions, &declared)?;
            regions.push(r);
        }
    }
    drop(t);
    let mut image = None;
    if !regions.is_empty() || !exported.is_empty() {
        let mut declared_names: Vec<String> = declared.iter().map(|g| g.name()).collect();
        declared_names.sort();
        let mut linked_names: Vec<String> = linked.iter().map(|g| g.name()).collect();
        linked_names.sort();
        let dev = device::build(m, &regions, &opts, &declared_names, &linked_names, &routines)?;
        let _t = timing::phase("host stubs");
        let placeholder = image_job::placeholder(m);
        let mut descriptors = Vec::new();
        for ((r, plan), entry) in regions.iter().zip(&dev.plans).zip(&dev.emulator_entries) {
            descriptors.push(host_stub::build(m, r, plan, placeholder, *entry)?);
        }
        if !exported.is_empty() {
            descriptors.push(image_job::register_library(m)?);
        }
        let report = report::Report::build(&regions, &dev.plans, &opts, &m.source_file_name(), &unmarked);
        image = Some((dev.image, descriptors, report));
    }
    // After the device module was cloned: only host code calls the host version.
    routine::lower_nohost(m, &routines);
    let t = timing::phase("data directives, verify");
    for d in &directives {
        if d.kind.is_host_directive() {
            data::lower(m, d)?;
        }
    }
    declare::lower(m, &directives)?;
    contract::erase_markers(m);
    match image {
        Some((job, descriptors, report)) if mode == Mode::OffloadDeferred => image_job::defer(m, job, descriptors, report),
        Some((job, descriptors, report)) => {
            let built = job.wait()?;
            if let Some(report) = report {
                report.emit(&built.usage)?;
            }
            image_job::install(m, &built.bytes, &descriptors)
        }
        None => report::Report::empty(m, &opts)?,
    }
    m.verify().map_err(|e| AccError::internal(format!("the host module does not verify after acc-offload: {e}")))?;
    drop(t);
    Ok(true)
}

/// `acc-offload-finish`: installs the image `Mode::OffloadDeferred` left building. Ok(changed).
///
/// # Safety
/// As `run_on_module`.
pub unsafe fn finish_module(m: LLVMModuleRef) -> Result<bool, Vec<AccError>> {
    // SAFETY: the caller's contract.
    unsafe { ir::with_borrowed_module(m, image_job::finish) }.map_err(|e| vec![e])
}

/// The `loop` directives inside compute region `d`.
fn nested_loops<'ctx>(d: &Directive<'ctx>, all: &[Directive<'ctx>], cfg: &cfg::FunctionCfg) -> Vec<Directive<'ctx>> {
    if !d.kind.is_compute() {
        return Vec::new();
    }
    all.iter()
        .filter(|o| o.kind == DirectiveKind::Loop && o.function == d.function)
        .filter(|o| contract::encloses(cfg, (d.begin, d.end), (o.begin, o.end)))
        .cloned()
        .collect()
}

/// Data clause items that hold around compute construct `d`: of the `data` regions around
/// it (same function), of the function's declares before it, and of the file-scope
/// declares (`file_declared`).
fn enclosing_data<'ctx>(d: &Directive<'ctx>, all: &[Directive<'ctx>], cfg: &cfg::FunctionCfg<'ctx>, file_declared: &[(DataKind, Var<'ctx>)]) -> Vec<(DataKind, Var<'ctx>)> {
    if !d.kind.is_compute() {
        return Vec::new();
    }
    let mut out: Vec<(DataKind, Var)> = all
        .iter()
        .filter(|o| o.kind == DirectiveKind::Data && o.function == d.function)
        .filter(|o| contract::encloses(cfg, (o.begin, o.end), (d.begin, d.end)))
        .flat_map(|o| o.clauses.iter().filter_map(|c| if let Clause::Data(k, v) = c { Some((*k, v.clone())) } else { None }))
        .collect();
    out.extend(declare::enclosing(d, all, cfg));
    out.extend(file_declared.iter().cloned());
    out
}
