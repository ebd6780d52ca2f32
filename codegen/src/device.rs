//! Builds the device module: kernels, loop mapping, device runtime, libdevice, PTX, cubin.
//!
//! Expects: the host module after outlining (outline.rs), where each outlined function still
//! carries its `loop` markers. Produces: a cubin holding one `ptx_kernel` per compute region
//! (same name as the outlined host function) and, per kernel, a `KernelPlan` telling the
//! host stub the launch shape and how to size the grid. Works on a clone of the host module
//! (`LLVMCloneModule`), so the host module is not touched here. Side effects outside
//! partitioned loops are made single-lane by `guard`; reductions get private copies, trees
//! and the last-gang combine (`reduction`, before SSA construction).

use crate::contract::{self, Clause, Directive, DirectiveKind};
use crate::error::{AccError, Loc, Result};
use crate::expr::{extract, Expr};
use crate::image_job::ImageJob;
use crate::ir::{Module, OwnedContext, OwnedModule, Value};
use std::collections::HashMap;
use crate::mapping::{assign_levels, default_shape, LaunchShape, Levels, LoopDesc, LoopKind};
use crate::options::Options;
use crate::outline::Outlined;
use crate::partition::{partition_kernel, LoopPlan};
use crate::ptx::{self, Nvptx};
use crate::routine::Routine;
use llvm_sys::LLVMLinkage;

/// The NVPTX kernel calling convention (`ptx_kernel`).
const PTX_KERNEL_CC: u32 = 71;

const DEVICE_RUNTIME: &str = include_str!("../../runtime-ir/nvptx.ll");

/// What the host stub needs to know about one kernel.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    pub name: String,
    pub shape: LaunchShape,
    /// Per gang dimension (1 to 3), the first loop partitioned over it: what sizes the grid.
    pub gang_trips: [Option<GangTrip>; 3],
    /// The gang dimensions (`gang(dim:)`) of the kernel's gang loops, in loop order.
    pub gang_dims: Vec<u8>,
    /// Gang dimensions (bit d-1) the kernel runs one gang in (reduction.rs `row_reduction_dims`).
    pub single_gang_dims: u8,
    /// Per loop: source position, what the directive said and the levels it got (also for
    /// the compile report).
    pub loops: Vec<crate::report::LoopNote>,
    /// The kernel synchronises the vector lanes of a worker (`__acc_sync_worker`).
    pub worker_sync: bool,
    /// Variables the kernel combines across gangs (the runtime's scratch, reduction.rs).
    pub reduce_vars: u64,
    /// The gang count is the compiler's choice (no `num_gangs`), so the runtime may cap it
    /// to one wave: the last gang of a reduction then combines fewer partials.
    pub cap_gangs: bool,
    /// Per reduction, what the compile report says.
    pub reductions: Vec<crate::reduction::Note>,
    /// The kernel stores the device address of a `declare link` global in the global's
    /// device slot (globals.rs), which every kernel reaching the global shares.
    pub link_slot: bool,
    /// Per `cache` item, what the compile report says (cache.rs).
    pub caches: Vec<crate::cache::Note>,
    /// Per private copy of run-time size (`Outlined::copies`), whose executors have one
    /// (private_copies.rs): the host stub lays out the launch's private area by them.
    pub private_levels: Vec<crate::private_copies::CopyLevel>,
    /// Per such copy, how many copies each of its executors has (1; a reduction's room:
    /// as many as reduction.rs made, 0 when it made none).
    pub private_multiples: Vec<u64>,
    /// Pointers no data clause covers whose targets the kernel reaches within bounds it
    /// could compute (implicit_bounds.rs): (capture index, the bytes), each an implicit
    /// `copy` of the host stub.
    pub inferred: Vec<(usize, crate::implicit_bounds::Bounds)>,
    /// Private arrays that lanes share on the device heap (privatize.rs).
    pub heap_arrays: Vec<crate::privatize::HeapArray>,
}

/// A loop spread over the gangs of one dimension, as the host stub sizes the grid for it.
#[derive(Clone, Debug)]
pub struct GangTrip {
    /// Its trip count, over the kernel's parameters.
    pub trip: Expr,
    /// Its levels: a gang takes an iteration per worker and lane (of those it has) per round.
    pub levels: Levels,
    /// Iterations each thread runs per round (`cache` windows, cache.rs), 1 otherwise.
    pub per_thread: u64,
}

/// `accrt_kernel.flags` bit: the kernel uses worker-scope synchronisation, so the runtime
/// launches it with workers of one warp (vector length 32) and at most 15 workers.
pub const FLAG_WORKER_SYNC: u64 = 1;
/// `accrt_kernel.flags` bit: the runtime may lower the gang count to one wave.
pub const FLAG_CAP_GANGS: u64 = 2;
/// `accrt_kernel.flags` bit: the kernel sets a `declare link` global's device slot, so the
/// runtime lets no other kernel run beside it (an async launch waits for it).
pub const FLAG_LINK_SLOT: u64 = 4;
/// `accrt_kernel.flags` bit: the kernel allocates arrays from the device heap (`malloc` in
/// device code), so the runtime makes the heap large enough before its first launch.
pub const FLAG_DEVICE_HEAP: u64 = 8;

impl KernelPlan {
    pub fn flags(&self) -> u64 {
        let mut f = 0;
        if self.worker_sync {
            f |= FLAG_WORKER_SYNC;
        }
        // Reductions combine fewer partials; private copies take less memory.
        let copies = self.private_levels.iter().zip(&self.private_multiples).any(|(l, m)| *l != crate::private_copies::CopyLevel::Local && *m > 0);
        if self.cap_gangs && (self.reduce_vars > 0 || copies) {
            f |= FLAG_CAP_GANGS;
        }
        if self.link_slot {
            f |= FLAG_LINK_SLOT;
        }
        if !self.heap_arrays.is_empty() {
            f |= FLAG_DEVICE_HEAP;
        }
        f
    }
}

pub struct DeviceOutput<'ctx> {
    /// The embedded image (one cubin per architecture plus the PTX, image.rs), being built
    /// on a thread of its own (image_job.rs).
    pub image: ImageJob,
    pub plans: Vec<KernelPlan>,
    /// Per kernel, its emulator entry in the host module (emulator.rs).
    pub emulator_entries: Vec<Value<'ctx>>,
}

/// `declared`: the names of the globals of file-scope declares (globals.rs); `linked`: those
/// of them that are `link` items.
/// `routines`: the module's `routine` directives (routine.rs); those it exports are built
/// into the image too, as a library other files' kernels link with.
pub fn build<'ctx>(
    host: Module<'ctx>,
    regions: &[Outlined<'ctx>],
    opts: &Options,
    declared: &[String],
    linked: &[String],
    routines: &[Routine<'ctx>],
) -> Result<DeviceOutput<'ctx>> {
    // Optimised once, for the oldest architecture asked for; each cubin is then generated
    // from that IR.
    let target = Nvptx::new(&ptx::portable_arch(&opts.gpu_archs), opts.opt_level)?;
    let exported = crate::routine::exportable(host, &crate::routine::exported(routines));
    let dev = host.clone_module();
    let result = build_in(dev.handle(), regions, opts, &target, declared, linked, routines, &exported);
    drop(dev);
    let (bitcode, plans, emu) = result?;
    let names: Vec<String> = plans.iter().map(|p| p.name.clone()).collect();
    let image = ImageJob::spawn(bitcode, opts.clone(), ImageParts { kernels: names.clone(), exported: exported.clone() });
    let _t = crate::timing::phase("emulator copy");
    let external: Vec<String> = routines.iter().map(|r| r.device_name().to_string()).collect();
    let emulator_entries = crate::emulator::link_into_host(host, emu, &names, &exported, &external)?;
    Ok(DeviceOutput { image, plans, emulator_entries })
}

/// The roots of the image's two parts: the kernels (the module a launch loads) and the
/// routines this file exports (a relocatable library other files' kernels link with).
#[derive(Clone, Debug, Default)]
pub struct ImageParts {
    pub kernels: Vec<String>,
    pub exported: Vec<String>,
}

/// The prepared device module as bitcode, the kernel plans and the emulator's copy of the
/// device module (taken after every device-semantics transformation, before anything
/// NVPTX-specific).
#[allow(clippy::too_many_arguments)]
fn build_in<'ctx>(
    dev: Module<'ctx>,
    regions: &[Outlined<'ctx>],
    opts: &Options,
    target: &Nvptx,
    declared: &[String],
    linked: &[String],
    routines: &[Routine<'ctx>],
    exported: &[String],
) -> Result<(Vec<u8>, Vec<KernelPlan>, OwnedModule<'ctx>)> {
    let kernels: Vec<Value> = regions
        .iter()
        .map(|r| dev.function(&r.func.name()).ok_or_else(|| AccError::internal("outlined function missing in the device clone")))
        .collect::<Result<_>>()?;
    let roots: Vec<Value> = exported.iter().filter_map(|n| dev.function(n)).collect();
    retarget(dev, &kernels, &roots, target);
    crate::routine::bind_device_calls(dev, routines);
    // Only the kernels, the exported routines and what they call survive.
    dev.run_passes("globaldce", None).map_err(AccError::internal)?;
    // Loops of an inlined routine may have reductions that the region's clauses do not show.
    let inlined = crate::routine::inline_level_routines(dev, &kernels, routines, regions)?;
    crate::on_device::fold(dev);
    // (A loop's copy through pointer rows made in the kernel calls one too.)
    if regions.iter().any(|r| !r.copies.is_empty()) || dev.function(crate::private_copies::ROWS_FN).is_some() {
        crate::private_copies::link_helpers(dev)?;
    }
    crate::devcheck::device_module(dev, &kernels, regions)?;
    crate::globals::redirect_declared(dev, declared);
    crate::globals::patch_tables(dev, declared, &kernels, regions)?;
    crate::globals::check(dev, &kernels, regions, declared)?;

    let t = crate::timing::phase("plan kernels");
    let reductions = inlined || regions.iter().any(|r| r.scratch_param);
    if reductions {
        crate::reduction::link_helpers(dev)?;
    }
    let mut plans = Vec::new();
    // Made at the first loop that needs a proof, before that kernel changes (autopar.rs).
    let mut analysis = None;
    for (r, k) in regions.iter().zip(&kernels) {
        plans.push(plan_kernel(dev, r, *k, opts, &mut analysis)?);
    }
    if reductions {
        crate::reduction::drop_unused_helpers(dev)?;
    }
    crate::routine::spread_gang_loops(dev, routines, exported)?;
    // After the kernels' transformations, so that no guard makes the stores single-lane.
    let link_slots = crate::globals::bind_declared(dev, &kernels, regions, linked);
    for (plan, link_slot) in plans.iter_mut().zip(link_slots) {
        plan.link_slot = link_slot;
    }
    drop(t);
    contract::erase_markers(dev);
    let emu = dev.clone_module();
    let bitcode = prepare_nvptx(dev, &kernels, &roots, regions, opts, routines)?;
    Ok((bitcode, plans, emu))
}

/// The NVPTX-specific steps that can fail on the user's code: libdevice and the NVPTX device
/// runtime linked in, calls without a device version reported. Returns the module as
/// bitcode for `compile_image`, which runs on a thread of its own.
fn prepare_nvptx<'ctx>(
    dev: Module<'ctx>,
    kernels: &[Value<'ctx>],
    roots: &[Value<'ctx>],
    regions: &[Outlined<'ctx>],
    opts: &Options,
    routines: &[Routine<'ctx>],
) -> Result<Vec<u8>> {
    let _t = crate::timing::phase("link device libraries");
    // ptxas keeps line information only without optimising less (-lineinfo, not -g), so
    // kernels carry line directives, as clang's CUDA device code does at -O1 and above.
    dev.debug_info_to_line_directives();
    crate::devmath::lower_intrinsics(dev);
    crate::devmath::link_libm(dev)?;
    crate::device_libc::lower_printf(dev);
    resolve_external_calls(dev, kernels, opts, regions, routines)?;
    link_device_runtime(dev)?;
    let names: Vec<String> = kernels.iter().chain(roots).map(|k| k.name()).collect();
    internalize_all_but(dev, &names);
    dev.add_module_flag_i32("nvvm-reflect-ftz", 0);
    // What the kernels do not use (most of libdevice) is not worth carrying over.
    dev.run_passes("globaldce", None).map_err(AccError::internal)?;
    Ok(dev.to_bitcode())
}

/// The image from `prepare_nvptx`'s bitcode: per part (`parts`), `-O3` (or the `-O` level
/// asked for), PTX and a cubin per architecture. The kernels' part is relocatable (and the
/// image flagged to be linked at load time) only when its code calls a function it does not
/// define: a routine of another file. Runs in a context of its own, so it may run on any
/// thread.
pub fn compile_image(bitcode: &[u8], opts: &Options, parts: &ImageParts) -> Result<Image> {
    let owned = OwnedContext::new();
    let dev_owned = owned.context().parse_bitcode(bitcode, "device").map_err(AccError::internal)?;
    let keep = |ext: &str| opts.save_temps.as_ref().map(|p| std::path::PathBuf::from(format!("{}.{ext}", p.display())));
    let mut kernels = (Vec::new(), String::new(), Vec::new());
    let mut link = false;
    let mut source = Some(dev_owned);
    if !parts.kernels.is_empty() {
        // Without exported routines the module holds only the kernels' code already.
        let part = match parts.exported.is_empty() {
            true => source.take().expect("not taken yet"),
            false => {
                let part = source.as_ref().expect("not taken yet").handle().clone_module();
                internalize_all_but(part.handle(), &parts.kernels);
                part.handle().run_passes("globaldce", None).map_err(AccError::internal)?;
                part
            }
        };
        (kernels, link) = build_part(part, opts, false, &keep)?;
    }
    let mut library = (Vec::new(), String::new(), Vec::new());
    if let Some(part) = source.filter(|_| !parts.exported.is_empty()) {
        internalize_all_but(part.handle(), &parts.exported);
        part.handle().run_passes("globaldce", None).map_err(AccError::internal)?;
        let keep_library = |ext: &str| keep(&format!("routines.{ext}"));
        library = build_part(part, opts, true, &keep_library)?.0;
    }
    let portable = ptx::sm_number(&ptx::portable_arch(&opts.gpu_archs));
    let bytes = crate::image::pack_parts(&crate::image::Parts { cubins: &kernels.0, ptx: &kernels.1, library: &library.0, library_ptx: &library.1, ptx_sm: portable, link });
    Ok(Image { bytes, usage: kernels.2 })
}

/// The device image and, when a compile report is asked for (`Options::report`), what each
/// kernel uses per architecture (ptx.rs: `ptxas -v`, read-only cache loads in its PTX).
#[derive(Clone, Debug, Default)]
pub struct Image {
    pub bytes: Vec<u8>,
    pub usage: Vec<ptx::Usage>,
}

/// A part's cubins per architecture, its portable PTX and its kernels' resource usage.
type Built = (Vec<(String, Vec<u8>)>, String, Vec<ptx::Usage>);

/// Whether module `m` calls a function it neither defines nor gets from LLVM: an external
/// routine (device.rs allows no other).
fn calls_external<'ctx>(m: Module<'ctx>) -> bool {
    m.functions().into_iter().any(|f| f.is_declaration() && !f.users().is_empty() && !f.name().starts_with("llvm."))
}

/// One part of the image: the module optimised, its cubins and its portable PTX, and whether
/// they are relocatable (`ptxas -c`): always for a `library`, else when the optimised code
/// still calls a function it does not define (decided after the pipeline: before it,
/// libdevice's `__nvvm_reflect` is such a call, which NVVMReflect folds away).
fn build_part(part: OwnedModule<'_>, opts: &Options, library: bool, keep: &dyn Fn(&str) -> Option<std::path::PathBuf>) -> Result<(Built, bool)> {
    let dev = part.handle();
    let target = Nvptx::new(&ptx::portable_arch(&opts.gpu_archs), opts.opt_level)?;
    let pipeline = format!("default<O{}>", opts.opt_level.max(1));
    let t = crate::timing::phase("device pipeline");
    // Atomics on thread-private memory (private_atomics.rs): before the pipeline, which then
    // promotes the variable, and after it for those that inlining exposed.
    crate::private_atomics::lower(dev);
    dev.run_passes(&pipeline, Some(target.machine())).map_err(AccError::internal)?;
    if crate::private_atomics::lower(dev) {
        dev.run_passes("sroa,instcombine,simplifycfg", Some(target.machine())).map_err(AccError::internal)?;
    }
    drop(t);
    dev.verify().map_err(|e| AccError::internal(format!("the device module does not verify: {e}")))?;
    align_local_aggregates(dev);
    if let Some(p) = keep("device.ll") {
        write(&p, &dev.print_to_string())?;
    }
    let relocatable = library || calls_external(dev);
    // The module goes with `part`.
    Ok((generate(&part, opts, relocatable, keep)?, relocatable))
}

/// Gives every local array or struct of at least 16 bytes a 16-byte alignment. LLVM 22's
/// NVPTX code generation (its load/store vectorizer) joins two 8-byte stores to a local
/// array into one `st.local.v2.b64` that it marks 16-byte aligned without raising the
/// array's own alignment of 8, so the store faults with a misaligned address whenever the
/// pair sits at an offset that is 8 mod 16 (fuzzer seed 801: a gang-private `long[5]`, on
/// the H100). With the array aligned, the mark is true.
fn align_local_aggregates<'ctx>(dev: Module<'ctx>) {
    use llvm_sys::LLVMTypeKind::{LLVMArrayTypeKind, LLVMStructTypeKind};
    for f in dev.functions() {
        for blk in f.blocks() {
            for i in blk.instructions().into_iter().filter(|i| i.is_alloca()) {
                let ty = i.allocated_type();
                if matches!(ty.kind(), LLVMArrayTypeKind | LLVMStructTypeKind) && ty.store_size(dev) >= 16 && i.alignment() < 16 {
                    i.set_alignment(16);
                }
            }
        }
    }
}

/// PTX and a cubin per architecture, and the portable PTX, packed into the image. With
/// `-save-temps` and one architecture: `<prefix>.ptx` and `.cubin`; with several, also
/// `<prefix>.sm_XX.ptx` and `.sm_XX.cubin` each (`<prefix>.ptx` is the embedded PTX).
fn generate(dev_owned: &OwnedModule<'_>, opts: &Options, relocatable: bool, keep: &dyn Fn(&str) -> Option<std::path::PathBuf>) -> Result<Built> {
    let dev = dev_owned.handle();
    let portable = ptx::portable_arch(&opts.gpu_archs);
    let several = opts.gpu_archs.len() > 1;
    let mut cubins = Vec::new();
    let mut portable_ptx = None;
    let mut usage = Vec::new();
    let line_info = dev.has_debug_info();
    for arch in &opts.gpu_archs {
        let t = crate::timing::phase("emit ptx");
        // Code generation changes the IR: it gets a copy unless nothing else is built from it.
        let last_use = !several && *arch == portable;
        let ptx_text = if last_use { Nvptx::for_module(arch, opts.opt_level, dev)?.emit_ptx(&dev_owned)? } else { emit_for(dev, arch, opts)? };
        drop(t);
        let ptx_keep = if several { keep(&format!("{arch}.ptx")) } else { keep("ptx") };
        let _t = crate::timing::phase("ptxas");
        let (cubin, log) = ptx::assemble(&ptx_text, arch, &opts.cuda_dir, ptx_keep.as_deref(), line_info, relocatable, opts.report())?;
        if opts.report() {
            let nc = ptx::count_nc_loads(&ptx_text);
            for mut u in ptx::parse_usage(&log) {
                u.nc_loads = nc.iter().find(|(k, _)| *k == u.kernel).map_or(0, |(_, n)| *n);
                u.relocatable = relocatable;
                usage.push(u);
            }
        }
        if let Some(p) = if several { keep(&format!("{arch}.cubin")) } else { keep("cubin") } {
            std::fs::write(&p, &cubin).map_err(|e| AccError::internal(format!("cannot write {}: {e}", p.display())))?;
        }
        if *arch == portable {
            portable_ptx = Some(ptx_text);
        }
        cubins.push((arch.clone(), cubin));
    }
    // The PTX of an `a` architecture runs only on that GPU: the portable one is built apart.
    let portable_ptx = match portable_ptx {
        Some(p) => p,
        None => emit_for(dev, &portable, opts)?,
    };
    if several {
        if let Some(p) = keep("ptx") {
            write(&p, &portable_ptx)?;
        }
    }
    Ok((cubins, portable_ptx, usage))
}

/// PTX for `arch` from a copy of the optimised module (code generation changes the IR).
fn emit_for<'ctx>(dev: Module<'ctx>, arch: &str, opts: &Options) -> Result<String> {
    let target = Nvptx::for_module(arch, opts.opt_level, dev)?;
    target.emit_ptx(&dev.clone_module())
}

fn write(p: &std::path::Path, text: &str) -> Result<()> {
    std::fs::write(p, text).map_err(|e| AccError::internal(format!("cannot write {}: {e}", p.display())))
}

/// Retargets the clone to NVPTX: kernels get the kernel calling convention and external
/// linkage; everything else becomes internal so that only what kernels use survives.
fn retarget<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], roots: &[Value<'ctx>], target: &Nvptx) {
    for name in ["llvm.global_ctors", "llvm.global_dtors", "llvm.used", "llvm.compiler.used"] {
        if let Some(g) = dev.global(name) {
            g.erase_global();
        }
    }
    dev.set_triple(ptx::TRIPLE);
    dev.set_data_layout(&target.data_layout());
    for f in dev.functions() {
        for attr in ["target-cpu", "target-features", "tune-cpu"] {
            f.remove_fn_string_attr(attr);
        }
        if f.is_declaration() {
            continue;
        }
        f.remove_fn_enum_attr("optnone");
        f.remove_fn_enum_attr("noinline");
        f.remove_fn_enum_attr("uwtable");
        if kernels.contains(&f) {
            f.set_linkage(LLVMLinkage::LLVMExternalLinkage);
            f.set_call_conv(PTX_KERNEL_CC);
        } else if roots.contains(&f) {
            f.set_linkage(LLVMLinkage::LLVMExternalLinkage);
        } else {
            f.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        }
    }
    for g in dev.globals() {
        if g.has_initializer() {
            g.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        }
    }
}

/// Reads the kernel's loop directives, decides their levels, brings the kernel into SSA form
/// and partitions its loops.
fn plan_kernel<'ctx>(dev: Module<'ctx>, r: &Outlined<'ctx>, k: Value<'ctx>, opts: &Options, analysis: &mut Option<crate::autopar::Analysis<'ctx>>) -> Result<KernelPlan> {
    let (loops, caches): (Vec<Directive>, Vec<Directive>) = contract::read_kernel(k)?
        .into_iter()
        .filter(|d| matches!(d.kind, DirectiveKind::Loop | DirectiveKind::Cache))
        .partition(|d| d.kind == DirectiveKind::Loop);
    // `gang(num: n)` sizes the launch of the kernels part its loop becomes (kernels.rs): a
    // loop directive still inside a kernel is not the top of a loop nest of `kernels`.
    if let Some(d) = loops.iter().find(|d| d.has(|c| matches!(c, Clause::GangNum(_)))) {
        return Err(AccError::user(
            &d.loc,
            "gang(num:) sizes a kernel: it is only allowed on a loop of a 'kernels' construct that is the top of a loop nest (each becomes a kernel of its own)",
        ));
    }
    check_loop_sizes(r, &loops)?;
    let all = loop_sources(&r.directive, &loops);
    let mut descs = describe(&all, &r.directive, &crate::cfg::FunctionCfg::new(k));
    let proofs = prove_loops(dev, r, k, &all, &descs, analysis)?;
    let inferred = infer_pointer_bounds(dev, r, k, analysis)?;
    for ((d, _, _), p) in descs.iter_mut().zip(&proofs) {
        d.proven = *p == Some(crate::autopar::Verdict::Independent);
    }
    // `gang(static: s)` per loop, in the order of `descs`: a loop directive's chunk size is
    // the operand of its clause call, which stays until the loop is partitioned (its value
    // may be computed in the kernel); a combined construct's is a kernel parameter (outline.rs
    // passes it).
    let statics: Vec<Option<StaticChunk>> = all
        .iter()
        .map(|s| match s {
            LoopSource::Combined => r.directive.clauses.iter().find_map(|c| match c {
                Clause::GangStatic(Some(v)) if v.const_int_value().is_some() => Some(StaticChunk::Value(*v)),
                Clause::GangStatic(Some(v)) => r.value_in(k, *v).map(StaticChunk::Value),
                _ => None,
            }),
            LoopSource::Directive(d) => d.clauses.iter().find_map(|c| match c {
                Clause::GangStatic(Some(v)) if v.const_int_value().is_some() => Some(StaticChunk::Value(*v)),
                Clause::GangStatic(Some(v)) => {
                    d.clause_calls.iter().find(|call| call.call_arg_count() == 3 && call.call_arg(2) == *v).map(|call| StaticChunk::ClauseCall(*call))
                }
                _ => None,
            }),
        })
        .collect();
    // The tile marks of a tiled nest's two loop sets, for the report.
    let tiles: Vec<Option<(crate::contract::TilePart, Vec<u64>)>> = all
        .iter()
        .map(|s| {
            let clauses = match s {
                LoopSource::Combined => &r.directive.clauses,
                LoopSource::Directive(d) => &d.clauses,
            };
            clauses.iter().find_map(|c| if let Clause::Tile(part, sizes) = c { Some((*part, sizes.clone())) } else { None })
        })
        .collect();
    let levels = assign_levels(r.compute, &descs.iter().map(|(d, _, _)| d.clone()).collect::<Vec<_>>()).map_err(|e| match e {
        crate::mapping::MappingError::BadNesting { loop_index, levels, outer } => AccError::user(
            &descs[loop_index].2,
            format!(
                "this loop is '{}' but it is nested in a '{}' loop: gang loops must enclose worker loops, which enclose vector loops",
                levels.describe(),
                outer.describe()
            ),
        ),
        crate::mapping::MappingError::BadGangDim { loop_index, dim, outer_dim } => AccError::user(
            &descs[loop_index].2,
            format!(
                "this loop is 'gang(dim: {dim})' but it is nested in a 'gang(dim: {outer_dim})' loop: a gang loop may contain only gang loops of a lower dimension"
            ),
        ),
    })?;
    let parents: Vec<Option<usize>> = descs.iter().map(|(d, _, _)| d.parent).collect();
    // A loop's iterations run on the finest level it is spread over (a gang loop with no
    // partitioned loop inside also takes the workers and lanes), and its private arrays need
    // one copy per such executor.
    // ... unless it writes memory its gang shares (a copy of the construct's that is the
    // gang's: on a combined construct it follows the loop's executors instead).
    let combined = matches!(r.directive.kind, DirectiveKind::Compute { combined_loop: true, .. });
    let gang_copies: Vec<Value> = k
        .entry_block()
        .instructions()
        .into_iter()
        .filter(|i| i.called_name().as_deref() == Some(crate::private_copies::COPY_FN))
        .zip(&r.copies)
        .filter(|(_, c)| !combined && !matches!(c.origin, crate::private_copies::Origin::Loop(_)) && !matches!(c.source, crate::private_copies::Source::ReductionView(_)))
        .map(|(call, _)| call)
        .collect();
    let pinned: Vec<bool> = all
        .iter()
        .zip(&levels)
        .map(|(s, lv)| {
            lv.gang
                && match s {
                    LoopSource::Combined => crate::privatize::writes_gang_memory(k, &|_| true, &gang_copies),
                    LoopSource::Directive(d) => {
                        let region = crate::reduction::Region::new(d.begin, d.end);
                        crate::privatize::writes_gang_memory(k, &|i| region.contains(i), &gang_copies)
                    }
                }
        })
        .collect();
    let effective = crate::mapping::effective_levels(&levels, &parents, &pinned);
    mark_private_clauses(k, r, &loops, &effective);
    // A private copy of a sequential loop belongs to whoever runs it: the loops around it.
    let mut coverage = effective.clone();
    for i in 0..coverage.len() {
        if let Some(p) = parents[i].filter(|p| *p < i) {
            coverage[i] = coverage[i].union(coverage[p]);
        }
    }
    let mut private_levels = crate::private_copies::set_levels(k, &r.directive, &r.copies, &loops, &coverage);
    // Clause calls of loops hold pointers (private(&t)) that would keep variables in memory;
    // a chunk size's call stays until the loop is partitioned, to keep its value alive.
    let kept: Vec<Value> = statics.iter().filter_map(|s| if let Some(StaticChunk::ClauseCall(c)) = s { Some(*c) } else { None }).collect();
    for d in &loops {
        for c in d.clause_calls.iter().filter(|c| !kept.contains(c)) {
            c.erase();
        }
    }
    // The combined loop gets begin/end markers of its own: the region's entry and exit.
    let (cb, ce) = combined_markers(dev, k, &r.directive)?;
    let (red, views_used) = reductions(dev, r, k, &loops, &descs, &effective, (cb, ce))?;
    // A reduction's room holds as many copies per thread as reduction.rs made; one it did
    // not use takes no bytes (its call stays, for the calls' order; the optimiser drops it).
    let mut private_multiples = vec![1u64; r.copies.len()];
    for (i, used) in views_used {
        private_multiples[i] = used;
        if used == 0 {
            private_levels[i] = crate::private_copies::CopyLevel::Local;
        }
    }
    k.run_function_passes("sroa,instsimplify").map_err(AccError::internal)?;
    let mut plans = Vec::new();
    let mut report = Vec::new();
    for (((((desc, collapse, loc), lv), eff), gang_static), tile) in descs.iter().zip(&levels).zip(&effective).zip(&statics).zip(&tiles) {
        let proof = proofs[report.len()].clone();
        report.push(crate::report::LoopNote {
            loc: loc.clone(),
            kind: desc.kind,
            assigned: *lv,
            effective: *eff,
            collapse: *collapse,
            tile: tile.clone(),
            gang_dim: desc.gang_dim,
            proof,
            in_plain_loop: desc.in_plain_loop,
            unmarked: None,
        });
        let lv = eff;
        let (begin, end) = match plans.len() {
            0 if cb.is_some() => (cb.unwrap(), ce.unwrap()),
            i => {
                let d = &loops[i - cb.is_some() as usize];
                (d.begin, d.end)
            }
        };
        let unroll = red.accumulating.contains(&plans.len());
        // A static chunk only schedules a loop spread over the gangs.
        let gang_static = gang_static.filter(|_| lv.gang).map(|s| match s {
            StaticChunk::Value(v) => v,
            // After SSA construction: the call's operand is the value the loop starts with.
            StaticChunk::ClauseCall(c) => c.call_arg(2),
        });
        plans.push(LoopPlan { begin, end, loc: loc.clone(), levels: *lv, collapse: *collapse, unroll, gang_static, gang_dim: desc.gang_dim });
    }
    let parts = partition_kernel(dev, k, &plans)?;
    for c in kept {
        c.erase();
    }
    // A loop spread over the vector lanes (a lone gang or worker loop, mapping.rs) needs
    // lanes in the default launch, or it runs on blocks of one thread per worker.
    let lanes: Vec<Levels> = levels.iter().zip(&effective).map(|(a, e)| Levels { vector: a.vector || e.vector, ..*a }).collect();
    let shape = default_shape(r.compute, &lanes);
    let placed = crate::privatize::place_arrays(dev, k, &parts.headers, &r.directive.loc)?;
    let by_uses: Vec<crate::privatize::AreaPlacement> = r.copies.iter().map(crate::privatize::AreaPlacement::of).collect();
    crate::privatize::place_area_copies(k, &parts.headers, &by_uses, &mut private_levels);
    // Lanes share a gang's or a worker's copies as they share private arrays in shared memory.
    let shared_copies = private_levels.iter().any(|l| matches!(l, crate::private_copies::CopyLevel::Gang | crate::private_copies::CopyLevel::Worker));
    // After the private arrays (a hint takes the shared memory they leave), before guard
    // (the cache markers are calls it would otherwise make single-lane).
    let tiles = crate::cache::Limits { threads: block_threads(r, shape), shared_bytes: crate::privatize::SHARED_LIMIT.saturating_sub(placed.bytes), sync: opts.sync };
    let cached = crate::cache::apply(dev, k, &caches, &parts.windows, tiles);
    let worker_sync = red.worker_sync | placed.per_worker | cached.per_worker | (opts.sync && crate::guard::guard_kernel(dev, k, &parts.headers, placed.shared || shared_copies));
    let gang_trips = parts.gang_trips.map(|t| {
        t.and_then(|(total, levels)| {
            let per_thread = cached.gang_loops.iter().find(|(v, _)| *v == total).map_or(1, |(_, p)| *p);
            extract(total, k).map(|trip| GangTrip { trip, levels, per_thread })
        })
    });
    let caches = cached.notes;
    let gang_dims: Vec<u8> = descs.iter().zip(&levels).filter(|(_, lv)| lv.gang).map(|((d, _, _), _)| d.gang_dim).collect();
    let cap_gangs = !r.directive.has(|c| matches!(c, Clause::NumGangs(_)));
    // A row reduction keeps its dimension to one gang (reduction.rs: the row's gangs cannot
    // combine their copies in the middle of the kernel), which num_gangs then cannot size:
    // the launch has one gang there, and the compile says so. (Clang rejects the clearer
    // cases: a gang loop's reduction under a num_gangs of several values.)
    if let Some(Clause::NumGangs(values)) = r.directive.clauses.iter().find(|c| matches!(c, Clause::NumGangs(_))) {
        for (d, v) in values.iter().enumerate() {
            if red.single_gang_dims & (1 << d) != 0 && v.const_int_value() != Some(1) {
                crate::error::warn(&crate::error::Warning {
                    loc: r.directive.loc.clone(),
                    msg: format!(
                        "'num_gangs' for gang dimension {} is not used: a gang(dim: {}) loop nested in a gang loop of a higher dimension reduces a variable private to that loop's iteration, so accc runs it on one gang of dimension {} (the row's gangs could not combine their partial results in the middle of the kernel)",
                        d + 1,
                        d + 1,
                        d + 1
                    ),
                });
            }
        }
    }
    Ok(KernelPlan { name: k.name(), shape, gang_trips, gang_dims, single_gang_dims: red.single_gang_dims, loops: report, worker_sync, reduce_vars: red.gang_vars, cap_gangs, reductions: red.report, link_slot: false, caches, private_levels, private_multiples, inferred, heap_arrays: placed.heap })
}

/// The most threads a block of the region's kernel can have: its constant `num_workers` and
/// `vector_length` (the default shape's where a clause is absent; the vector rounded up to a
/// warp), at most the hardware's 1024. The runtime only ever launches fewer (clamping;
/// workers of one warp keep the product), so a tile this wide holds every block's union.
fn block_threads<'ctx>(r: &Outlined<'ctx>, shape: LaunchShape) -> u64 {
    let size = |found: Option<Value<'ctx>>, default: u64| match found {
        None => Some(default),
        Some(v) => v.const_int_value().and_then(|n| u64::try_from(n).ok()),
    };
    let workers = r.directive.clauses.iter().find_map(|c| if let Clause::NumWorkers(v) = c { Some(*v) } else { None });
    let lanes = r.directive.clauses.iter().find_map(|c| if let Clause::VectorLength(v) = c { Some(*v) } else { None });
    let (workers, lanes) = (size(workers, shape.num_workers as u64), size(lanes, shape.vector_length as u64));
    // A kernel flagged for worker syncs gets workers of a whole warp (launch.rs,
    // `adjust_for_kernel`): a vector under 32 lanes grows to 32.
    match (workers, lanes) {
        (Some(w), Some(l)) => (w.saturating_mul(l.max(1).div_ceil(32) * 32)).clamp(1, crate::cache::MAX_BLOCK_THREADS),
        _ => crate::cache::MAX_BLOCK_THREADS,
    }
}

/// The bounds of the pointers `r` translates without a data clause (Capture::unmapped_pointer),
/// by capture index; those implicit_bounds.rs cannot bound are left out (their targets must
/// be present, as before).
fn infer_pointer_bounds<'ctx>(
    dev: Module<'ctx>,
    r: &Outlined<'ctx>,
    k: Value<'ctx>,
    analysis: &mut Option<crate::autopar::Analysis<'ctx>>,
) -> Result<Vec<(usize, crate::implicit_bounds::Bounds)>> {
    // Kernel parameter j is the j-th capture passed as a parameter (host_stub.rs).
    let wanted: Vec<(usize, usize)> = r
        .captures
        .iter()
        .enumerate()
        .filter(|(_, c)| c.passing.is_parameter())
        .enumerate()
        .filter(|(_, (_, c))| c.unmapped_pointer)
        .map(|(param, (capture, _))| (capture, param))
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    if analysis.is_none() {
        *analysis = Some(crate::autopar::Analysis::new(dev)?);
    }
    let a = analysis.as_ref().expect("made above");
    let params: Vec<usize> = wanted.iter().map(|(_, p)| *p).collect();
    let bounds = a.pointer_bounds(&k.name(), &params);
    Ok(wanted.iter().zip(bounds).filter_map(|((capture, _), b)| b.map(|b| (*capture, b))).collect())
}

/// Per loop (in `describe`'s order), what the dependence analysis found, for the loops whose
/// levels need a proof (mapping::needs_proof); None for the others. A loop with a
/// `reduction` clause is not analysed: its variable is updated in every iteration, which
/// only the reduction machinery makes parallel, and which levels get a gang-wide combine is
/// decided before outlining from the clauses alone (reduction::gang_level_items).
fn prove_loops<'ctx>(
    dev: Module<'ctx>,
    r: &Outlined<'ctx>,
    k: Value<'ctx>,
    all: &[LoopSource<'ctx, '_>],
    descs: &[(LoopDesc, u32, Loc)],
    analysis: &mut Option<crate::autopar::Analysis<'ctx>>,
) -> Result<Vec<Option<crate::autopar::Verdict>>> {
    use crate::autopar::{Analysis, Verdict};
    let has_reduction: Vec<bool> = all
        .iter()
        .map(|s| {
            let clauses = match s {
                LoopSource::Combined => &r.directive.clauses,
                LoopSource::Directive(d) => &d.clauses,
            };
            clauses.iter().any(|c| matches!(c, Clause::Reduction(_)))
        })
        .collect();
    let needs: Vec<bool> = descs.iter().map(|(d, _, _)| crate::mapping::needs_proof(r.compute, d.kind)).collect();
    let asked: Vec<bool> = needs.iter().zip(&has_reduction).map(|(n, red)| *n && !red).collect();
    let mut out = if asked.iter().any(|a| *a) {
        if analysis.is_none() {
            *analysis = Some(Analysis::new(dev)?);
        }
        let collapse: Vec<u32> = descs.iter().map(|(_, c, _)| *c).collect();
        let a = analysis.as_ref().expect("made above");
        a.loops(r, &k.name(), &crate::autopar::loop_ids(all), &asked, &collapse)?
    } else {
        vec![None; descs.len()]
    };
    for (i, v) in out.iter_mut().enumerate() {
        if needs[i] && has_reduction[i] {
            *v = Some(Verdict::Sequential("it has a reduction clause, which accc applies to analysed loops only with independent: write 'loop independent reduction(...)'".into()));
        }
    }
    Ok(out)
}

/// The kernel's reductions (reduction.rs): the construct's items and each loop's, with the
/// kernel's pointers to their variables.
fn reductions<'ctx>(
    dev: Module<'ctx>,
    r: &Outlined<'ctx>,
    k: Value<'ctx>,
    loops: &[Directive<'ctx>],
    descs: &[(LoopDesc, u32, Loc)],
    effective: &[Levels],
    combined: (Option<Value<'ctx>>, Option<Value<'ctx>>),
) -> Result<(crate::reduction::Summary, Vec<(usize, u64)>)> {
    use crate::contract::Reduction;
    // The construct's clauses name host values: find what they became in the kernel. A
    // variable the region does not use was not captured: its reduction changes nothing.
    // A section of a pointer variable (`p[0:n]`) names the pointer loaded from it: the
    // kernel loads it from what the variable became (reduction.rs makes one load of it).
    let in_kernel = |x: &Reduction<'ctx>| -> Option<Reduction<'ctx>> {
        let host = crate::outline::strip(x.var.base);
        let mut y = x.clone();
        if let Some(v) = r.value_in(k, host) {
            y.var.base = v;
            return Some(y);
        }
        // An element (`s[q]`, `c[1]`): its address rebuilt in the kernel from what the
        // array and the index became.
        if host.opcode() == Some(crate::ir::Opcode::LLVMGetElementPtr) {
            let before = k.entry_block().terminator().expect("the entry block has a terminator");
            y.var.base = crate::element_address::materialize(host, &|v| r.value_in(k, v), before)?;
            return Some(y);
        }
        let slot = (host.opcode() == Some(crate::ir::Opcode::LLVMLoad)).then(|| crate::outline::strip(host.operand(0)))?;
        let v = r.value_in(k, slot)?;
        let b = dev.context().builder();
        b.position_before(k.entry_block().terminator().expect("the entry block has a terminator"));
        y.var.base = b.load(host.ty(), v, &format!("{}.acc.red.base", slot.name()));
        Some(y)
    };
    let of = |cl: &[Clause<'ctx>]| -> Vec<Reduction<'ctx>> { cl.iter().filter_map(|c| if let Clause::Reduction(x) = c { Some(x.clone()) } else { None }).collect() };
    let privates = |cl: &[Clause<'ctx>]| -> Vec<Value<'ctx>> { cl.iter().filter_map(|c| if let Clause::Private(x) = c { Some(x.base) } else { None }).collect() };
    let construct: Vec<Reduction> = of(&r.directive.clauses).iter().filter_map(in_kernel).collect();
    // Room the outlined function has for private copies of run-time size, per reduced
    // variable (private_copies.rs `reduction_view`).
    let views = view_copies(k, r);
    // Items without constant bounds, over a part of each row, or too large for private
    // copies are updated in place with atomics (atomic_reduction.rs; a large one only when
    // the region just updates it), the construct's anywhere in the kernel, a loop's inside
    // the loop; the rest get private copies (reduction.rs), and so do the items of a
    // variable without constant bounds that some region uses other than by updating it,
    // when the kernel has room for them (`views`): of run-time size, in the private area.
    let mut atomic_plans: Vec<AtomicItem<'ctx>> = Vec::new();
    let mut viewed: Vec<(Value<'ctx>, String, Loc)> = Vec::new();
    let mut local: Vec<(Reduction<'ctx>, usize)> = Vec::new();
    let mut atomics = |items: Vec<Reduction<'ctx>>, inside: &dyn Fn(crate::ir::Value<'ctx>) -> bool, partitioned: bool, loc: &Loc, span: &str, owner: Option<usize>| -> Result<Vec<Reduction<'ctx>>> {
        use crate::reduction::Placement;
        let mut kept = Vec::new();
        for x in items {
            let placement = crate::reduction::placement(&x);
            let var = crate::private_copies::reduced_variable(&x.var);
            if placement == Placement::Copies || viewed.iter().any(|(v, _, _)| *v == var) {
                kept.push(x);
                continue;
            }
            let storage = crate::reduction::key_of(k, x.var.base);
            match crate::atomic_reduction::plan(k, storage, &x, inside, partitioned, loc) {
                Ok(p) => {
                    let why = match placement {
                        _ if !x.var.rows.is_empty() => "its rows are pointers, not one range of elements",
                        _ if !x.var.dims.is_empty() => "a part of each row, not one range of elements",
                        Placement::AtomicsNeeded => "its bounds are only known at run time",
                        _ => "a private copy would take over 1 KiB per thread",
                    };
                    let strategy = match (storage.is_alloca(), partitioned) {
                        (false, _) => format!("{} ({why})", crate::atomic_reduction::STRATEGY),
                        (true, true) => format!("atomic updates of its elements where the loop's threads share it ({why}; an array private to an enclosing level)"),
                        (true, false) => "its updates as written (one thread runs the loop over its own copy of the array)".to_string(),
                    };
                    let note = crate::reduction::Note { loc: loc.clone(), clause: format!("reduction({}:{})", x.op.symbol(), x.var.text), span: span.into(), strategy };
                    atomic_plans.push(AtomicItem { var, plan: p, note, item: x, owner });
                }
                Err(_) if placement == Placement::AtomicsNeeded && views.contains_key(&var) && !storage.is_alloca() => {
                    viewed.push((var, x.var.text.clone(), loc.clone()));
                    kept.push(x);
                }
                // A loop's item with no room (its bounds are computed in the region, or it is
                // an array of the region's own, which has no room: the lanes that share it
                // combine into it): copies made where the loop begins.
                Err(_) if placement == Placement::AtomicsNeeded && owner.is_some() => {
                    local.push((x.clone(), owner.unwrap_or_default()));
                    kept.push(x);
                }
                Err(e) if placement == Placement::AtomicsNeeded => return Err(e),
                // A large array the region uses otherwise: private copies, as large as it.
                Err(_) => kept.push(x),
            }
        }
        Ok(kept)
    };
    let mut construct = atomics(construct, &|_| true, true, &r.directive.loc, "the compute region", None)?;
    let mut inputs = Vec::new();
    if let (Some(b), Some(e)) = combined {
        inputs.push(crate::reduction::LoopInput {
            begin: b,
            end: e,
            loc: r.directive.loc.clone(),
            levels: effective[0],
            parent: None,
            items: construct.clone(),
            private: privates(&r.directive.clauses).into_iter().filter_map(|p| r.value_in(k, crate::outline::strip(p))).collect(),
            gang_dim: descs[0].0.gang_dim,
        });
    }
    let first = inputs.len();
    for (i, d) in loops.iter().enumerate() {
        let region = crate::reduction::Region::new(d.begin, d.end);
        let lv = effective[first + i];
        let items = atomics(of(&d.clauses), &|v| region.contains(v), lv.gang || lv.worker || lv.vector, &d.loc, &lv.describe(), Some(inputs.len()))?;
        inputs.push(crate::reduction::LoopInput {
            begin: d.begin,
            end: d.end,
            loc: d.loc.clone(),
            levels: effective[first + i],
            parent: descs[first + i].0.parent,
            items,
            private: privates(&d.clauses),
            gang_dim: descs[first + i].0.gang_dim,
        });
    }
    let (atomic_plans, atomic_notes) = return_viewed(atomic_plans, &viewed, &mut construct, &mut inputs, combined.0.is_some());
    let mut view_keys = crate::reduction::Views { rooms: view_keys(k, &viewed, &views, &construct, &inputs)?, in_loops: HashMap::new() };
    for (x, owner) in &local {
        view_keys.in_loops.insert((crate::reduction::key_of(k, x.var.base), *owner), local_view(dev, x, inputs[*owner].begin));
    }
    crate::atomic_reduction::apply(dev, &atomic_plans);
    let mut out = crate::reduction::rewrite_kernel(dev, k, &construct, &r.directive.loc, &inputs, &view_keys)?;
    out.report.extend(atomic_notes);
    let used = views.values().map(|v| (v.copy, v.view.used.get())).collect();
    // Helpers take the copies' addresses: until they are inlined (the device pipeline) the
    // copies stay in memory, which is what `guard` expects of private storage.
    Ok((out, used))
}

/// An item planned as atomics (atomic_reduction.rs): its variable in the kernel, the plan,
/// the report's line, and the item with its list (the construct's, or `inputs`' index).
struct AtomicItem<'ctx> {
    var: Value<'ctx>,
    plan: crate::atomic_reduction::Planned<'ctx>,
    note: crate::reduction::Note,
    item: crate::contract::Reduction<'ctx>,
    owner: Option<usize>,
}

/// A variable with private copies somewhere (`viewed`) has them everywhere in the kernel:
/// its items planned as atomics before its first copies were found go back to their lists
/// (a construct's item to the combined loop's too). Returns the plans and report lines left.
fn return_viewed<'ctx>(
    planned: Vec<AtomicItem<'ctx>>,
    viewed: &[(Value<'ctx>, String, Loc)],
    construct: &mut Vec<crate::contract::Reduction<'ctx>>,
    inputs: &mut [crate::reduction::LoopInput<'ctx>],
    combined: bool,
) -> (Vec<crate::atomic_reduction::Planned<'ctx>>, Vec<crate::reduction::Note>) {
    let mut plans = Vec::new();
    let mut notes = Vec::new();
    for a in planned {
        if !viewed.iter().any(|(v, _, _)| *v == a.var) {
            plans.push(a.plan);
            notes.push(a.note);
            continue;
        }
        match a.owner {
            None => {
                if combined {
                    inputs[0].items.push(a.item.clone());
                }
                construct.push(a.item);
            }
            Some(i) => inputs[i].items.push(a.item),
        }
    }
    (plans, notes)
}

/// The copies of run-time size each item of a `viewed` variable takes, by the item's key
/// (reduction.rs `key_of`). One section per variable: its room was sized for one clause's.
fn view_keys<'ctx>(
    k: Value<'ctx>,
    viewed: &[(Value<'ctx>, String, Loc)],
    views: &HashMap<Value<'ctx>, ViewRoom<'ctx>>,
    construct: &[crate::contract::Reduction<'ctx>],
    inputs: &[crate::reduction::LoopInput<'ctx>],
) -> Result<HashMap<Value<'ctx>, crate::reduction::View<'ctx>>> {
    for (var, text, loc) in viewed {
        let room = &views[var];
        if *text != room.text {
            return Err(AccError::unsupported(
                loc,
                format!("the array reduction '{text}' without constant bounds, of a variable another clause reduces as '{}', in a region that reads its elements (accc gives such a variable private copies of one section)", room.text),
            ));
        }
    }
    let mut keys = HashMap::new();
    for x in construct.iter().chain(inputs.iter().flat_map(|i| i.items.iter())) {
        let var = crate::private_copies::reduced_variable(&x.var);
        if viewed.iter().any(|(v, _, _)| *v == var) {
            keys.insert(crate::reduction::key_of(k, x.var.base), views[&var].view.clone());
        }
    }
    Ok(keys)
}

/// The copies of a loop's run-time-bounded item with no room in the private area (its
/// bounds are computed in the region): made where the loop begins (reduction.rs
/// `View::local_copy`), from the bounds the clause computed, converted after them (the
/// driver's clause operands are computed between the loop's begin marker `begin` and its
/// clause calls).
fn local_view<'ctx>(dev: Module<'ctx>, x: &crate::contract::Reduction<'ctx>, begin: Value<'ctx>) -> crate::reduction::View<'ctx> {
    let ctx = dev.context();
    let i64t = ctx.i64();
    let b = ctx.builder();
    let v = &x.var;
    let bounds: Vec<Value<'ctx>> = [v.length, v.lower, v.elem_size]
        .into_iter()
        .chain(v.dims.iter().flat_map(|d| [d.lower, d.length, d.extent]))
        .chain(v.rows.iter().flat_map(|r| [r.lower, r.length]))
        .collect();
    let at = crate::reduction::after_definitions(begin, &bounds);
    let anchor = at.next_instruction().expect("a loop's begin marker is followed by its loop");
    b.position_before(anchor);
    let layout = crate::private_copies::ViewLayout::of(v);
    let args = crate::private_copies::view_args(&b, v);
    let lo_bytes = b.binop(crate::ir::Opcode::LLVMMul, b.sext_or_trunc(v.lower, i64t), b.sext_or_trunc(v.elem_size, i64t));
    let shape = crate::reduction::ViewShape::of(layout, args[0], &args[1..]);
    crate::reduction::View { made: crate::reduction::Made::AtLoop(anchor), count: args[0], lo_bytes, shape, used: std::rc::Rc::new(std::cell::Cell::new(0)) }
}

/// The room a kernel has for a reduction's private copies of run-time size
/// (`Source::ReductionView`), by the variable it is for (what it is in the kernel: the
/// clauses' items name that).
struct ViewRoom<'ctx> {
    /// Its index in `Outlined::copies`.
    copy: usize,
    /// The section the room is sized for, as the clause wrote it.
    text: String,
    view: crate::reduction::View<'ctx>,
}

fn view_copies<'ctx>(k: Value<'ctx>, r: &Outlined<'ctx>) -> HashMap<Value<'ctx>, ViewRoom<'ctx>> {
    let calls = k.entry_block().instructions().into_iter().filter(|i| i.called_name().as_deref() == Some(crate::private_copies::COPY_FN));
    calls
        .zip(&r.copies)
        .enumerate()
        .filter_map(|(copy, (call, c))| match &c.source {
            crate::private_copies::Source::ReductionView(x) => {
                use crate::private_copies::ViewLayout;
                use crate::reduction::ViewShape;
                let layout = ViewLayout::of(x);
                let (lo_bytes, count, extras) = crate::private_copies::view_params(k, call, layout.extras())?;
                let shape = ViewShape::of(layout, count, &extras);
                let view = crate::reduction::View { made: crate::reduction::Made::Room(call), count, lo_bytes, shape, used: std::rc::Rc::new(std::cell::Cell::new(0)) };
                Some((r.value_in(k, c.value)?, ViewRoom { copy, text: x.text.clone(), view }))
            }
            _ => None,
        })
        .collect()
}

/// `worker(num: n)` and `vector(length: n)` size the kernel a `kernels` loop nest becomes
/// (kernels.rs takes the top loop's value, a constant of a loop inside it, or the one inner
/// loop's value computed again before the construct, which then sized the launch): a value
/// only known inside the kernel cannot (a warning: the launch goes without it), two
/// different constants would leave one unused (an error), and outside `kernels` the
/// construct's `num_workers`/`vector_length` size the launch.
fn check_loop_sizes<'ctx>(r: &Outlined<'ctx>, loops: &[Directive<'ctx>]) -> Result<()> {
    let in_kernels = r.compute == crate::contract::ComputeKind::Kernels;
    type Pick<'ctx> = fn(&Clause<'ctx>) -> Option<Value<'ctx>>;
    for (name, pick, sized) in [
        ("worker(num:)", (|c: &Clause<'ctx>| if let Clause::Worker(Some(v)) = c { Some(*v) } else { None }) as Pick<'ctx>, (|c: &Clause<'ctx>| matches!(c, Clause::NumWorkers(_))) as fn(&Clause<'ctx>) -> bool),
        ("vector(length:)", |c: &Clause<'ctx>| if let Clause::Vector(Some(v)) = c { Some(*v) } else { None }, |c: &Clause<'ctx>| matches!(c, Clause::VectorLength(_))),
    ] {
        let top = r.directive.clauses.iter().find_map(pick);
        let mut chosen: Option<(i64, Loc)> = top.and_then(|v| v.const_int_value()).map(|n| (n, r.directive.loc.clone()));
        let givers = loops.iter().filter(|d| d.clauses.iter().any(|c| pick(c).is_some())).count();
        for d in loops {
            let Some(v) = d.clauses.iter().find_map(pick) else { continue };
            if !in_kernels {
                return Err(AccError::user(&d.loc, format!("{name} sizes the kernel of a 'kernels' loop nest; here the compute construct's launch clauses do")));
            }
            let Some(n) = v.const_int_value() else {
                // The nest's only value, computed again before the construct: it sized the launch.
                if top.is_none() && givers == 1 && r.directive.has(sized) {
                    continue;
                }
                // A size is a request, not a meaning: the kernel runs right with any count.
                crate::error::warn(&crate::error::Warning {
                    loc: d.loc.clone(),
                    msg: format!("{name} of this loop is computed inside the kernels construct (or beside another loop's value), too late to size the kernel its loop nest becomes: the kernel's launch does not use it (compute it before the construct, or give it on the loop that tops the nest)"),
                });
                continue;
            };
            match &chosen {
                Some((m, at)) if *m != n => {
                    return Err(AccError::user(&d.loc, format!("{name} of this loop ({n}) differs from the one at {at} ({m}): the loops of one kernels loop nest are one kernel, of one size")));
                }
                Some(_) => {}
                None => chosen = Some((n, d.loc.clone())),
            }
        }
    }
    Ok(())
}

/// Where a loop's `gang(static: s)` chunk size comes from in the kernel.
#[derive(Clone, Copy, Debug)]
enum StaticChunk<'ctx> {
    /// A constant, or the kernel parameter a combined construct's value became.
    Value(Value<'ctx>),
    /// The loop directive's `gang.static` clause call, whose operand is the value.
    ClauseCall(Value<'ctx>),
}

/// Names each array of an explicit `private` clause after the level of its construct
/// (privatize.rs reads the names once SSA construction has run): on a loop, the loop's
/// levels; on a `parallel` construct, the gang.
fn mark_private_clauses<'ctx>(k: Value<'ctx>, r: &Outlined<'ctx>, loops: &[Directive<'ctx>], levels: &[Levels]) {
    use crate::privatize::{suffix_for, GANG_SUFFIX};
    let combined = matches!(r.directive.kind, DirectiveKind::Compute { combined_loop: true, .. });
    let mark = |a: Value<'ctx>, suffix: &str| {
        if a.is_alloca() && !a.allocated_type().is_scalar() && !a.name().ends_with(suffix) {
            a.set_name(&format!("{}{suffix}", a.name()));
        }
    };
    let region_suffix = if combined { suffix_for(levels[0]) } else { GANG_SUFFIX };
    for c in r.captures.iter().filter(|c| c.passing == crate::capture::Passing::Private) {
        let named = r.directive.has(|cl| matches!(cl, Clause::Private(x) if crate::outline::strip(x.base) == c.value));
        if !named || r.compute != crate::contract::ComputeKind::Parallel {
            continue;
        }
        let slot = format!("{}.private", c.name);
        if let Some(a) = k.entry_block().instructions().into_iter().find(|i| i.is_alloca() && i.name() == slot) {
            mark(a, region_suffix);
        }
    }
    let first_directive = usize::from(combined);
    for (d, lv) in loops.iter().zip(&levels[first_directive..]) {
        for c in &d.clauses {
            if let Clause::Private(x) = c {
                mark(crate::outline::strip(x.base), suffix_for(*lv));
            }
        }
    }
}

/// The loops of compute region `region` in program order: a combined construct's loop part
/// (the loop right after the region entry) first, then its `loop` directives.
pub(crate) fn loop_sources<'ctx, 'a>(region: &Directive<'ctx>, loops: &'a [Directive<'ctx>]) -> Vec<LoopSource<'ctx, 'a>> {
    let mut all = Vec::new();
    if let DirectiveKind::Compute { combined_loop: true, .. } = region.kind {
        all.push(LoopSource::Combined);
    }
    all.extend(loops.iter().map(LoopSource::Directive));
    all
}

pub(crate) enum LoopSource<'ctx, 'a> {
    Combined,
    Directive(&'a Directive<'ctx>),
}

/// Loop descriptions (kind, parent), collapse counts and locations, in program order.
/// `cfg` is the function holding the loops (the host function or the kernel).
pub(crate) fn describe<'ctx>(all: &[LoopSource<'ctx, '_>], region: &Directive<'ctx>, cfg: &crate::cfg::FunctionCfg<'ctx>) -> Vec<(LoopDesc, u32, Loc)> {
    let clauses_of = |s: &LoopSource<'ctx, '_>| -> Vec<Clause> {
        match s {
            LoopSource::Combined => region.clauses.clone(),
            LoopSource::Directive(d) => d.clauses.clone(),
        }
    };
    let natural = cfg.loops();
    let mut out: Vec<(LoopDesc, u32, Loc)> = Vec::new();
    for (i, s) in all.iter().enumerate() {
        let cl = clauses_of(s);
        let has = |f: &dyn Fn(&Clause<'ctx>) -> bool| cl.iter().any(f);
        let explicit = Levels {
            gang: has(&|c| matches!(c, Clause::Gang)),
            worker: has(&|c| matches!(c, Clause::Worker(_))),
            vector: has(&|c| matches!(c, Clause::Vector(_))),
        };
        let gang_dim = cl.iter().find_map(|c| if let Clause::GangDim(d) = c { Some(*d) } else { None }).unwrap_or(1);
        let kind = if has(&|c| matches!(c, Clause::Implicit)) {
            LoopKind::Implicit
        } else if has(&|c| matches!(c, Clause::Seq)) {
            LoopKind::Seq
        } else if !explicit.is_seq() {
            LoopKind::Explicit(explicit)
        } else if has(&|c| matches!(c, Clause::Auto)) {
            LoopKind::Auto
        } else if has(&|c| matches!(c, Clause::Independent)) {
            LoopKind::Independent
        } else {
            LoopKind::Unspecified
        };
        let collapse = cl.iter().find_map(|c| if let Clause::Collapse(n) = c { Some(*n) } else { None }).unwrap_or(1);
        // Parent: the innermost earlier loop whose markers enclose this one.
        let parent = (0..i).rev().find(|&j| match (&all[j], s) {
            (LoopSource::Combined, _) => true,
            (LoopSource::Directive(o), LoopSource::Directive(d)) => {
                contract::encloses(cfg, (o.begin, o.end), (d.begin, d.end))
            }
            _ => false,
        });
        let loc = match s {
            LoopSource::Combined => region.loc.clone(),
            LoopSource::Directive(d) => d.loc.clone(),
        };
        // More natural loops around the directive than its enclosing directives' loops (each
        // as many as it collapses): a loop no directive names encloses it.
        let in_plain_loop = match s {
            LoopSource::Combined => false,
            LoopSource::Directive(d) => {
                let at = cfg.index[&d.begin.parent_block()];
                let around = natural.iter().filter(|l| l.body.contains(&at)).count();
                let mut named = 0;
                let mut p = parent;
                while let Some(j) = p {
                    named += out[j].1 as usize;
                    p = out[j].0.parent;
                }
                around > named
            }
        };
        out.push((LoopDesc { kind, parent, gang_dim, proven: false, in_plain_loop }, collapse, loc));
    }
    out
}

/// Gives the combined construct's loop the same begin/end markers a `loop` directive has:
/// a begin at the kernel entry and an end before each return.
pub(crate) fn combined_markers<'ctx>(dev: Module<'ctx>, k: Value<'ctx>, d: &Directive<'ctx>) -> Result<(Option<Value<'ctx>>, Option<Value<'ctx>>)> {
    let DirectiveKind::Compute { combined_loop: true, .. } = d.kind else {
        return Ok((None, None));
    };
    let ctx = dev.context();
    let i32t = ctx.i32();
    let ptr = ctx.ptr();
    let begin_fn = dev.get_or_add_function(contract::BEGIN, ctx.fn_type(ctx.void(), &[i32t, ptr, ptr, i32t, i32t], false));
    let end_fn = dev.get_or_add_function(contract::END, ctx.fn_type(ctx.void(), &[i32t], false));
    let b = ctx.builder();
    let entry = k.entry_block();
    b.position_before(entry.terminator().expect("entry has a terminator"));
    let null = ptr.const_null();
    let id = i32t.const_int(0);
    let begin = b.call(begin_fn, &[id, null, null, id, id], "");
    let ret = k.blocks().into_iter().find(|blk| blk.name() == "acc.ret").ok_or_else(|| AccError::internal("kernel without acc.ret"))?;
    b.position_before(ret.first_instruction().expect("acc.ret has a ret"));
    let end = b.call(end_fn, &[id], "");
    Ok((Some(begin), Some(end)))
}

/// Calls to functions without a body: LLVM intrinsics and the C library's system calls
/// (device_libc.rs) stay, C math functions become libdevice's `__nv_*`, anything else
/// cannot run on the device.
fn resolve_external_calls<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], opts: &Options, regions: &[Outlined<'ctx>], routines: &[Routine<'ctx>]) -> Result<()> {
    let mut needs_libdevice = false;
    let mut libdevice: Option<OwnedModule> = None;
    for f in dev.functions() {
        if !f.is_declaration() || f.users().is_empty() {
            continue;
        }
        let name = f.name();
        if name.starts_with("llvm.") || crate::devrt::ALL.contains(&name.as_str()) || crate::device_libc::is_device_libc(&name) {
            continue;
        }
        // A routine of another file (or a bound name): linked at load time (image.rs).
        if routines.iter().any(|r| r.device_name() == name) {
            continue;
        }
        if libdevice.is_none() {
            let path = ptx::libdevice_path(&opts.cuda_dir);
            libdevice = Some(dev.context().read_bitcode(&path).map_err(|e| AccError::internal(format!("cannot load libdevice: {e} (run scripts/setup)")))?);
        }
        let ld = libdevice.as_ref().expect("loaded above").handle();
        let nv = format!("__nv_{name}");
        match ld.function(&nv) {
            Some(_) => {
                let decl = dev.get_or_add_function(&nv, f.function_type());
                f.replace_all_uses_with(decl);
                needs_libdevice = true;
            }
            None => {
                let loc = kernels
                    .iter()
                    .zip(regions)
                    .find(|(k, _)| f.users().iter().any(|u| u.is_instruction() && u.parent_function() == **k))
                    .map(|(_, r)| r.directive.loc.clone())
                    .unwrap_or_default();
                return Err(AccError::user(
                    &loc,
                    format!("function '{name}' is called in a compute region but has no device version: it is not defined in this file, so it needs an OpenACC 'routine' directive (e.g. '#pragma acc routine seq' before its declaration, in a header the defining file includes too)"),
                ));
            }
        }
    }
    if let Some(ld) = libdevice {
        if needs_libdevice {
            dev.link(ld).map_err(AccError::internal)?;
        }
    }
    Ok(())
}

fn link_device_runtime<'ctx>(dev: Module<'ctx>) -> Result<()> {
    let rt = dev.context().parse_ir(DEVICE_RUNTIME, "runtime-ir/nvptx.ll").map_err(|e| AccError::internal(format!("runtime-ir does not parse: {e}")))?;
    dev.link(rt).map_err(AccError::internal)
}

fn internalize_all_but<'ctx>(dev: Module<'ctx>, names: &[String]) {
    for f in dev.functions() {
        if !f.is_declaration() && !names.contains(&f.name()) {
            f.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        }
    }
    for g in dev.globals() {
        if g.has_initializer() {
            g.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        }
    }
}
