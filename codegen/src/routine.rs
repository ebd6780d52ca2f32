//! `#pragma acc routine` (OpenACC 3.3 §2.15): functions with a device version.
//!
//! Expects: the directives as read (contract.rs), `routine` ones among them: each names its
//! function by a `routine.function` operand and sits in a holder function of its own
//! (`acc::ROUTINE_HOLDER`, the rewriter's) or in a function body (`routine(f)` there).
//! Produces: one [`Routine`] per function (several directives for one function merge;
//! different levels or binds are errors at the later directive), and a module without the
//! routine markers or their holders.
//!
//! What each routine means elsewhere:
//! - every function defined in the file that a compute region calls is already cloned into
//!   the device module (an implicit `seq` routine, device.rs); a `routine` directive adds
//!   the function's level (`gang`/`worker`/`vector`: device.rs inlines such a routine into
//!   each kernel that calls it, so the `loop` directives in its body are partitioned at the
//!   caller's launch, `inline_level_routines`), its `bind` name (device code calls that name
//!   instead), `nohost` (below) and, for a function with external linkage defined here, an
//!   exported device version that other files' kernels may call (docs/ir-contract.md,
//!   "Routines across files");
//! - a routine only declared here is an external device function: the kernels that call it
//!   are linked with the other files' exported routines (GPU: at load time, runtime
//!   image.rs; emulator: by the system linker, through [`emulator_name`]).
//! - `nohost`: the host version is not compiled: a definition here gets internal linkage
//!   (so nothing outside sees a host symbol, and it goes away when no host code here calls
//!   it); a host call of a `nohost` routine not defined here (the fallback of a compute
//!   region) calls a stub that stops the program with a message (`__accrt_no_host_version`),
//!   so that the program links without a host version.

use crate::contract::{Clause, Directive, DirectiveKind};
use crate::error::{AccError, Loc, Result};
use crate::ir::{Module, Value};
use acc_directives as acc;
use llvm_sys::LLVMLinkage;

/// The parallelism a routine may use (its level clause).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Seq,
    Vector,
    Worker,
    Gang,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Seq => "seq",
            Level::Vector => "vector",
            Level::Worker => "worker",
            Level::Gang => "gang",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Routine<'ctx> {
    /// The host module's function.
    pub function: Value<'ctx>,
    pub name: String,
    pub level: Level,
    pub bind: Option<String>,
    pub nohost: bool,
    /// Defined here with external linkage and not bound: other files' kernels may call its
    /// device version.
    pub exported: bool,
    /// The first directive's position.
    pub loc: Loc,
    /// `gang(dim: d)`: the highest gang dimension its loops may use (1 without it).
    pub gang_dim: u8,
}

impl Routine<'_> {
    /// The name device code calls.
    pub fn device_name(&self) -> &str {
        self.bind.as_deref().unwrap_or(&self.name)
    }
}

/// The emulator's copy of routine `name` as other files call it: a symbol of its own, so
/// that the host version `name` and the emulated device version link side by side.
pub fn emulator_name(name: &str) -> String {
    format!("__accemu.routine.{name}")
}

/// The one level of a directive's clauses. Clang requires at least one and rejects
/// conflicting ones in C source; hand-written contract IR may have neither.
pub fn level_of(levels: &[Level]) -> std::result::Result<Level, String> {
    match levels {
        [l] => Ok(*l),
        [] => Err("OpenACC 'routine' needs one of 'seq', 'vector', 'worker' or 'gang'".into()),
        [a, b, ..] => Err(format!("OpenACC 'routine' takes one of 'seq', 'vector', 'worker' or 'gang', not both '{}' and '{}'", a.name(), b.name())),
    }
}

/// What an earlier directive said of a function and what a later one says must agree
/// (OpenACC 3.3 §2.15.1: the same level; clang checks that two binds do not meet).
pub fn merge(name: &str, old: (Level, Option<&str>), new: (Level, Option<&str>)) -> std::result::Result<(), String> {
    if old.0 != new.0 {
        return Err(format!(
            "OpenACC 'routine' for '{name}' says '{}' but an earlier one says '{}': the directives of one function must give the same level",
            new.0.name(),
            old.0.name()
        ));
    }
    match (old.1, new.1) {
        (Some(a), Some(b)) if a != b => Err(format!("OpenACC 'routine' for '{name}' binds '{b}' but an earlier one binds '{a}'")),
        _ => Ok(()),
    }
}

/// The routines of the module's `routine` directives, in the order of their first directive.
pub fn collect<'ctx>(directives: &[Directive<'ctx>]) -> Result<Vec<Routine<'ctx>>> {
    let mut out: Vec<Routine> = Vec::new();
    for d in directives.iter().filter(|d| d.kind == DirectiveKind::Routine) {
        let mut levels = Vec::new();
        let mut bind = None;
        let mut nohost = false;
        let mut function = None;
        let mut gang_dim = 1;
        for c in &d.clauses {
            match c {
                Clause::GangDim(n) => gang_dim = *n,
                Clause::Seq => levels.push(Level::Seq),
                Clause::Vector(_) => levels.push(Level::Vector),
                Clause::Worker(_) => levels.push(Level::Worker),
                Clause::Gang => levels.push(Level::Gang),
                Clause::Bind(n) => bind = Some(n.clone()),
                Clause::NoHost => nohost = true,
                Clause::RoutineFunction(f) => function = Some(crate::outline::strip(*f)),
                _ => {}
            }
        }
        let level = level_of(&levels).map_err(|m| AccError::user(&d.loc, m))?;
        let Some(f) = function.filter(|f| f.is_function()) else {
            return Err(AccError::user(&d.loc, "OpenACC 'routine' must name a function"));
        };
        let name = f.name();
        if let Some(bind) = &bind {
            if bind.is_empty() || bind == &name {
                return Err(AccError::user(&d.loc, format!("OpenACC 'routine' for '{name}': 'bind' must name another function")));
            }
        }
        match out.iter_mut().find(|r| r.function == f) {
            Some(r) => {
                merge(&name, (r.level, r.bind.as_deref()), (level, bind.as_deref())).map_err(|m| AccError::user(&d.loc, m))?;
                r.exported &= bind.is_none();
                r.bind = r.bind.take().or(bind);
                r.nohost |= nohost;
                r.gang_dim = r.gang_dim.max(gang_dim);
            }
            None => {
                let exported = !f.is_declaration() && f.linkage() == LLVMLinkage::LLVMExternalLinkage && bind.is_none();
                out.push(Routine { function: f, name, level, bind, nohost, exported, loc: d.loc.clone(), gang_dim })
            }
        }
    }
    Ok(out)
}

/// The gang loops of a `routine gang(dim: d)` use dimensions up to d (OpenACC 3.3 §2.15.1; a
/// gang routine without `dim:` is dimension 1); `directives` are the module's.
pub fn check_gang_dims<'ctx>(routines: &[Routine<'ctx>], directives: &[Directive<'ctx>]) -> Result<()> {
    for r in routines.iter().filter(|r| r.level == Level::Gang) {
        for d in directives.iter().filter(|d| d.kind == DirectiveKind::Loop && d.function == r.function && d.has(|c| matches!(c, Clause::Gang))) {
            let dim = d.clauses.iter().find_map(|c| if let Clause::GangDim(n) = c { Some(*n) } else { None }).unwrap_or(1);
            if dim > r.gang_dim {
                return Err(AccError::user(
                    &d.loc,
                    format!("this loop is 'gang(dim: {dim})' but routine '{}' is 'gang(dim: {})': a gang routine's loops use gang dimensions up to its own", r.name, r.gang_dim),
                ));
            }
        }
    }
    Ok(())
}

/// The names of the routines whose device versions this file exports.
pub fn exported(routines: &[Routine<'_>]) -> Vec<String> {
    routines.iter().filter(|r| r.exported).map(|r| r.name.clone()).collect()
}

/// Of `exported` (in host module `m`), the routines whose device code uses no writable
/// global (`globals::needs_declare`): another file's kernel could not give them the device
/// copy of a global (declared ones reach device code through a slot that the kernels of
/// the defining file fill, globals.rs), so those stay unexported, and a call from another
/// file fails to link (the emulator's `__accemu.routine.<name>`, the GPU linker's log).
pub fn exportable<'ctx>(m: Module<'ctx>, exported: &[String]) -> Vec<String> {
    let mut with_globals = std::collections::HashSet::new();
    for g in m.globals() {
        if crate::globals::needs_declare(&g.name(), g.is_global_constant(), g.has_initializer()) {
            with_globals.extend(crate::globals::user_functions(g));
        }
    }
    exported
        .iter()
        .filter(|n| m.function(n).is_some_and(|f| crate::globals::reachable(f).is_disjoint(&with_globals)))
        .cloned()
        .collect()
}

/// Erases the `routine` directives' markers, and their holder functions.
pub fn erase_directives<'ctx>(m: Module<'ctx>, directives: &[Directive<'ctx>]) {
    for d in directives.iter().filter(|d| d.kind == DirectiveKind::Routine) {
        for c in &d.clause_calls {
            c.erase();
        }
        d.begin.erase();
        d.end.erase();
    }
    for f in m.functions() {
        if f.name().starts_with(acc::ROUTINE_HOLDER) && f.users().is_empty() {
            f.erase_function();
        }
    }
}

/// `nohost` in the host module (module doc). Runs after the device module was cloned from
/// it, so every use of the function left is host code (the emulator's copies call
/// [`emulator_name`]s or internal copies).
pub fn lower_nohost<'ctx>(m: Module<'ctx>, routines: &[Routine<'ctx>]) {
    for r in routines.iter().filter(|r| r.nohost) {
        let f = r.function;
        if !f.is_declaration() {
            f.set_linkage(LLVMLinkage::LLVMInternalLinkage);
            continue;
        }
        if f.users().is_empty() {
            continue;
        }
        f.replace_all_uses_with(no_host_stub(m, r));
    }
}

/// `T name.acc.nohost(...) { __accrt_no_host_version("name", "file:line:col"); unreachable }`.
fn no_host_stub<'ctx>(m: Module<'ctx>, r: &Routine<'ctx>) -> Value<'ctx> {
    let ctx = m.context();
    let stub = m.get_or_add_function(&format!("{}.acc.nohost", r.name), r.function.function_type());
    stub.set_linkage(LLVMLinkage::LLVMInternalLinkage);
    let report = m.get_or_add_function("__accrt_no_host_version", ctx.fn_type(ctx.void(), &[ctx.ptr(), ctx.ptr()], false));
    let b = ctx.builder();
    b.position_at_end(ctx.append_block(stub, "entry"));
    let name = b.global_string(&r.name, "acc.nohost.name");
    let loc = b.global_string(&r.loc.to_string(), "acc.nohost.loc");
    b.call(report, &[name, loc], "");
    b.unreachable();
    stub
}

/// `bind(name)`: device code calls `name` instead of the routine (in the device module).
pub fn bind_device_calls<'ctx>(dev: Module<'ctx>, routines: &[Routine<'ctx>]) {
    for r in routines {
        let (Some(bound), Some(f)) = (&r.bind, dev.function(&r.name)) else { continue };
        if f.users().is_empty() {
            continue;
        }
        let g = dev.get_or_add_function(bound, f.function_type());
        f.replace_all_uses_with(g);
    }
}

/// Inlines every call of a `gang`, `worker` or `vector` routine into the kernels (`kernels`,
/// of `regions`), one call at a time, so that the `loop` directives of its body become loops
/// of the kernel: the kernel's loop mapping partitions them at the caller's launch, nested
/// in the loop around the call, and `guard` makes the body's code outside them run as the
/// caller's mode requires (OpenACC 3.3 §2.15.1: a `vector` routine is called by all lanes of
/// a worker together, a `worker` routine by all workers of a gang). Each inlined copy gets
/// marker ids of its own. A routine that calls itself cannot be inlined: an error at the
/// compute construct. One only declared here (defined in another file) stays a call of that
/// file's exported device version, whose loops run sequentially: a warning says so.
/// Calls of gang/worker/vector routines inlined into one kernel at most.
const MAX_INLINED: usize = 2000;

/// Ok(true) when it inlined a call.
pub fn inline_level_routines<'ctx>(dev: Module<'ctx>, kernels: &[Value<'ctx>], routines: &[Routine<'ctx>], regions: &[crate::outline::Outlined<'ctx>]) -> Result<bool> {
    let levelled: Vec<(&Routine, Value)> = routines.iter().filter(|r| r.level != Level::Seq).filter_map(|r| dev.function(r.device_name()).map(|f| (r, f))).collect();
    if levelled.is_empty() {
        return Ok(false);
    }
    let mut inlined = false;
    let mut next_id = max_marker_id(dev) + 1;
    let mut warned: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (k, region) in kernels.iter().zip(regions) {
        // Calls of level routines defined in another file stay calls (of that file's device
        // version, whose loops run sequentially): skipped by the search below.
        let mut external: std::collections::HashSet<Value<'ctx>> = std::collections::HashSet::new();
        // One inlining per call in the kernel, nested routines included; routines that call
        // each other in a cycle would go on for ever.
        for round in 0.. {
            let call = k
                .blocks()
                .into_iter()
                .flat_map(|b| b.instructions())
                .find(|i| !external.contains(i) && i.called_function().is_some_and(|f| levelled.iter().any(|(_, g)| *g == f)));
            let Some(call) = call else { break };
            if round == MAX_INLINED {
                return Err(AccError::user(&region.directive.loc, format!("more than {MAX_INLINED} calls of gang, worker or vector routines in this compute region: do some of them call each other recursively?")));
            }
            let callee = call.called_function().expect("found as a call");
            let (r, _) = levelled.iter().find(|(_, g)| *g == callee).expect("found among them");
            if callee.is_declaration() {
                // The defining file exports a device version whose worker and vector loops
                // run sequentially (that parallelism needs the caller's launch, which that
                // file never sees) and whose gang loops are spread over the gangs
                // ([`spread_gang_loops`]: every gang calls a gang routine from gang-redundant
                // code): called by one thread of each gang or worker (guard.rs) where the
                // caller runs single.
                external.insert(call);
                if warned.insert(format!("{}:{}", region.directive.loc, r.name)) {
                    let how = match r.level {
                        Level::Gang => "its gang loops are spread over the gangs, each gang's share run by one thread",
                        _ => "its loops run sequentially here",
                    };
                    crate::error::warn(&crate::error::Warning {
                        loc: region.directive.loc.clone(),
                        msg: format!(
                            "'{}' is a '{}' routine defined in another file: {how} (accc partitions a routine's loops at the caller's launch only when the routine is defined in the calling file)",
                            r.name,
                            r.level.name()
                        ),
                    });
                }
                continue;
            }
            if calls_itself(callee) {
                return Err(AccError::user(&r.loc, format!("'{}' is a '{}' routine that calls itself: gang, worker and vector routines cannot be recursive", r.name, r.level.name())));
            }
            renumber_markers(callee, &mut next_id);
            call.add_call_fn_enum_attr("alwaysinline");
            dev.run_passes("always-inline", None).map_err(AccError::internal)?;
            if call_still_there(*k, call) {
                return Err(AccError::internal(format!("the call of routine '{}' could not be inlined", r.name)));
            }
            inlined = true;
        }
    }
    Ok(inlined)
}

/// The exported device version of each `gang` routine defined here (`exported`): its gang
/// loops spread over the gangs of the caller's grid (partition.rs, gang level only), its
/// other loops sequential. Every gang calls a gang routine from gang-redundant code, one
/// thread of it (guard.rs), so each gang runs its share of the iterations. Run after the
/// kernels of this file have inlined their calls (which partition the loops at every level
/// with the kernel's launch), before the markers go.
pub fn spread_gang_loops<'ctx>(dev: Module<'ctx>, routines: &[Routine<'ctx>], exported: &[String]) -> Result<()> {
    use crate::mapping::Levels;
    for r in routines.iter().filter(|r| r.level == Level::Gang && exported.iter().any(|e| e == r.device_name())) {
        let Some(f) = dev.function(r.device_name()).filter(|f| !f.is_declaration()) else { continue };
        let loops = crate::contract::read_kernel(f)?;
        // A gang loop that reduces stays whole in every gang: its partial results would need
        // combining across gangs, which only a kernel's own reductions do.
        let reducing = |d: &&Directive<'ctx>| d.has(|c| matches!(c, Clause::Reduction(_)));
        if let Some(d) = loops.iter().filter(|d| d.has(|c| matches!(c, Clause::Gang))).find(reducing) {
            crate::error::warn(&crate::error::Warning {
                loc: d.loc.clone(),
                msg: format!("this gang loop of routine '{}' has a reduction: a kernel of another file that calls the routine runs the loop whole in every gang (right when its body only reduces)", r.name),
            });
        }
        let plans: Vec<crate::partition::LoopPlan> = loops
            .iter()
            .filter(|d| d.has(|c| matches!(c, Clause::Gang)) && !reducing(d))
            .map(|d| crate::partition::LoopPlan {
                begin: d.begin,
                end: d.end,
                loc: d.loc.clone(),
                levels: Levels { gang: true, worker: false, vector: false },
                collapse: d.clauses.iter().find_map(|c| if let Clause::Collapse(n) = c { Some(*n) } else { None }).unwrap_or(1),
                unroll: false,
                gang_static: None,
                gang_dim: d.clauses.iter().find_map(|c| if let Clause::GangDim(g) = c { Some(*g) } else { None }).unwrap_or(1),
            })
            .collect();
        if plans.is_empty() {
            continue;
        }
        for d in &loops {
            crate::contract::erase_clause_calls(d);
        }
        f.run_function_passes("sroa,instsimplify").map_err(AccError::internal)?;
        crate::partition::partition_kernel(dev, f, &plans)?;
    }
    Ok(())
}

fn calls_itself<'ctx>(f: Value<'ctx>) -> bool {
    f.blocks().into_iter().flat_map(|b| b.instructions()).any(|i| i.called_function() == Some(f))
}

fn call_still_there<'ctx>(k: Value<'ctx>, call: Value<'ctx>) -> bool {
    k.blocks().into_iter().flat_map(|b| b.instructions()).any(|i| i == call)
}

/// The largest directive id of the module's marker calls.
fn max_marker_id<'ctx>(m: Module<'ctx>) -> u32 {
    [crate::contract::BEGIN, crate::contract::CLAUSE, crate::contract::END]
        .iter()
        .filter_map(|n| m.function(n))
        .flat_map(|f| f.users())
        .filter(|u| u.is_call())
        .filter_map(|u| u.call_arg(0).const_int_value())
        .max()
        .unwrap_or(0)
        .max(0) as u32
}

/// Gives the directives in `f` fresh ids (from `next`), so that each inlined copy of `f`
/// has ids no other directive of the module has.
fn renumber_markers<'ctx>(f: Value<'ctx>, next: &mut u32) {
    let mut fresh: std::collections::HashMap<i64, u32> = std::collections::HashMap::new();
    let i32t = f.ty().context().i32();
    for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
        let is_marker = i.called_name().is_some_and(|n| [crate::contract::BEGIN, crate::contract::CLAUSE, crate::contract::END].contains(&n.as_str()));
        let Some(old) = is_marker.then(|| i.call_arg(0).const_int_value()).flatten() else { continue };
        let id = *fresh.entry(old).or_insert_with(|| {
            *next += 1;
            *next - 1
        });
        i.set_operand(0, i32t.const_int(u64::from(id)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_level_per_directive() {
        assert_eq!(level_of(&[Level::Vector]), Ok(Level::Vector));
        assert!(level_of(&[]).unwrap_err().contains("needs one of"));
        assert!(level_of(&[Level::Seq, Level::Gang]).unwrap_err().contains("not both 'seq' and 'gang'"));
    }

    #[test]
    fn directives_of_one_function_agree() {
        assert_eq!(merge("f", (Level::Seq, None), (Level::Seq, Some("g"))), Ok(()));
        assert_eq!(merge("f", (Level::Seq, Some("g")), (Level::Seq, None)), Ok(()));
        assert!(merge("f", (Level::Seq, None), (Level::Vector, None)).unwrap_err().contains("says 'vector' but an earlier one says 'seq'"));
        assert!(merge("f", (Level::Seq, Some("g")), (Level::Seq, Some("h"))).unwrap_err().contains("binds 'h'"));
    }

    #[test]
    fn emulator_names_do_not_clash_with_c() {
        assert_eq!(emulator_name("f"), "__accemu.routine.f");
    }
}
