//! The rows. Placement follows OpenACC 3.3 (and agrees with clang 22's validation, which
//! rejects a misplaced clause before accc sees it).

use crate::Clause as C;
use crate::Directive as D;
use crate::{ClauseSpec, DirectiveSpec, Form, Operands};

const fn directive(directive: D, name: &'static str, form: Form, supported: bool) -> DirectiveSpec {
    DirectiveSpec { directive, name, form, combines: &[], supported, rewritten: false }
}

/// A directive the driver lowers into C itself (no markers in the contract).
const fn rewritten(directive: D, name: &'static str) -> DirectiveSpec {
    DirectiveSpec { directive, name, form: Form::Region, combines: &[], supported: true, rewritten: true }
}

const fn combined(directive: D, name: &'static str, parts: &'static [D]) -> DirectiveSpec {
    DirectiveSpec { directive, name, form: Form::Region, combines: parts, supported: true, rewritten: false }
}

pub static DIRECTIVES: &[DirectiveSpec] = &[
    directive(D::Parallel, "parallel", Form::Region, true),
    directive(D::Kernels, "kernels", Form::Region, true),
    directive(D::Serial, "serial", Form::Region, true),
    combined(D::ParallelLoop, "parallel loop", &[D::Parallel, D::Loop]),
    combined(D::KernelsLoop, "kernels loop", &[D::Kernels, D::Loop]),
    combined(D::SerialLoop, "serial loop", &[D::Serial, D::Loop]),
    directive(D::Loop, "loop", Form::Region, true),
    directive(D::Data, "data", Form::Region, true),
    directive(D::EnterData, "enter data", Form::Standalone, true),
    directive(D::ExitData, "exit data", Form::Standalone, true),
    directive(D::Update, "update", Form::Standalone, true),
    directive(D::HostData, "host_data", Form::Region, true),
    directive(D::Wait, "wait", Form::Standalone, true),
    directive(D::Init, "init", Form::Standalone, true),
    directive(D::Shutdown, "shutdown", Form::Standalone, true),
    directive(D::Set, "set", Form::Standalone, true),
    rewritten(D::Atomic, "atomic"),
    rewritten(D::AtomicRead, "atomic read"),
    rewritten(D::AtomicWrite, "atomic write"),
    rewritten(D::AtomicUpdate, "atomic update"),
    rewritten(D::AtomicCapture, "atomic capture"),
    directive(D::Cache, "cache", Form::Standalone, true),
    directive(D::Routine, "routine", Form::Declarative, true),
    directive(D::Declare, "declare", Form::Declarative, true),
];

/// A clause accc lowers.
const fn lowered(clause: C, name: &'static str, on: &'static [D], operands: Operands) -> ClauseSpec {
    ClauseSpec { clause, name, on, operands, modifiers: &[], supported: true }
}

impl ClauseSpec {
    const fn with_modifiers(self, modifiers: &'static [&'static str]) -> ClauseSpec {
        ClauseSpec { modifiers, ..self }
    }
}

const COMPUTE: &[D] = &[D::Parallel, D::Kernels, D::Serial];
const CREATE_ON: &[D] = &[D::Parallel, D::Kernels, D::Serial, D::Data, D::EnterData, D::Declare];
const COPYOUT_ON: &[D] = &[D::Parallel, D::Kernels, D::Serial, D::Data, D::ExitData, D::Declare];

pub static CLAUSES: &[ClauseSpec] = &[
    // Data clauses.
    lowered(C::Copy, "copy", &[D::Parallel, D::Kernels, D::Serial, D::Data, D::Declare], Operands::Var),
    lowered(C::CopyIn, "copyin", &[D::Parallel, D::Kernels, D::Serial, D::Data, D::EnterData, D::Declare], Operands::Var)
        .with_modifiers(&["readonly"]),
    lowered(C::CopyOut, "copyout", COPYOUT_ON, Operands::Var).with_modifiers(&["zero"]),
    lowered(C::Create, "create", CREATE_ON, Operands::Var).with_modifiers(&["zero"]),
    // `create(zero: x)`, `copyout(zero: x)` in the contract: the device copy starts zeroed.
    lowered(C::CreateZero, "create.zero", CREATE_ON, Operands::Var),
    lowered(C::CopyOutZero, "copyout.zero", COPYOUT_ON, Operands::Var),
    lowered(C::NoCreate, "no_create", &[D::Parallel, D::Kernels, D::Serial, D::Data], Operands::Var),
    lowered(C::Present, "present", &[D::Parallel, D::Kernels, D::Serial, D::Data, D::Declare], Operands::Var),
    lowered(C::DevicePtr, "deviceptr", &[D::Parallel, D::Kernels, D::Serial, D::Data, D::Declare], Operands::Var),
    // `attach(p)`/`detach(p)`: the address of the pointer (also written by the rewriter after
    // a data clause item whose section is based on a struct member or an element).
    lowered(C::Attach, "attach", &[D::Parallel, D::Kernels, D::Serial, D::Data, D::EnterData], Operands::Var),
    lowered(C::Delete, "delete", &[D::ExitData], Operands::Var),
    lowered(C::Detach, "detach", &[D::ExitData], Operands::Var),
    // `self` on a compute construct is a condition (`self` alone: 1, written by the
    // rewriter); on `update` it is `host`.
    lowered(C::Self_, "self", COMPUTE, Operands::Condition),
    lowered(C::Self_, "self", &[D::Update], Operands::Var),
    lowered(C::Host, "host", &[D::Update], Operands::Var),
    lowered(C::Device, "device", &[D::Update], Operands::Var),
    lowered(C::Private, "private", &[D::Parallel, D::Serial, D::Loop], Operands::Var),
    lowered(C::FirstPrivate, "firstprivate", &[D::Parallel, D::Serial], Operands::Var),
    lowered(C::Reduction, "reduction", &[D::Parallel, D::Serial, D::Loop], Operands::OpAndVar),
    // Launch sizes and conditions.
    lowered(C::NumGangs, "num_gangs", &[D::Parallel, D::Kernels], Operands::OneToThreeInts),
    lowered(C::NumWorkers, "num_workers", &[D::Parallel, D::Kernels], Operands::Int),
    lowered(C::VectorLength, "vector_length", &[D::Parallel, D::Kernels], Operands::Int),
    lowered(
        C::If,
        "if",
        &[
            D::Parallel, D::Kernels, D::Serial, D::Data, D::EnterData, D::ExitData, D::Update, D::HostData,
            D::Wait, D::Init, D::Shutdown, D::Set, D::Atomic, D::AtomicRead, D::AtomicWrite,
            D::AtomicUpdate, D::AtomicCapture,
        ],
        Operands::Condition,
    ),
    // Async queues. `async` without an argument is `async(acc_async_noval)`. A `wait`
    // clause without a list waits for every queue; on the `wait` directive the clause
    // carries the directive's own list (`wait(1, 2)`), which `queues:` may introduce.
    lowered(
        C::Async,
        "async",
        &[D::Parallel, D::Kernels, D::Serial, D::Data, D::EnterData, D::ExitData, D::Update, D::Wait],
        Operands::OptionalInt,
    ),
    lowered(
        C::Wait,
        "wait",
        &[D::Parallel, D::Kernels, D::Serial, D::Data, D::EnterData, D::ExitData, D::Update, D::Wait],
        Operands::Ints,
    )
    .with_modifiers(&["queues"]),
    // `wait(devnum: d: q, ...)`: the queues are device d's (of the current device type).
    lowered(
        C::WaitDevnum,
        "wait.devnum",
        &[D::Parallel, D::Kernels, D::Serial, D::Data, D::EnterData, D::ExitData, D::Update, D::Wait],
        Operands::Ints,
    ),
    lowered(C::Default, "default", &[D::Parallel, D::Kernels, D::Serial, D::Data], Operands::DefaultKind),
    // Loop schedule. `gang(num: n, dim: d, static: s)` is `gang` plus one clause per
    // argument, spelled `gang.num`, `gang.dim` and `gang.static` (`static: *` is -1).
    lowered(C::Gang, "gang", &[D::Loop, D::Routine], Operands::None),
    lowered(C::GangNum, "gang.num", &[D::Loop], Operands::Int),
    lowered(C::GangDim, "gang.dim", &[D::Loop, D::Routine], Operands::Int),
    lowered(C::GangStatic, "gang.static", &[D::Loop], Operands::IntOrStar),
    lowered(C::Worker, "worker", &[D::Loop, D::Routine], Operands::OptionalInt).with_modifiers(&["num"]),
    lowered(C::Vector, "vector", &[D::Loop, D::Routine], Operands::OptionalInt).with_modifiers(&["length"]),
    lowered(C::Seq, "seq", &[D::Loop, D::Routine], Operands::None),
    lowered(C::Independent, "independent", &[D::Loop], Operands::None),
    lowered(C::Auto, "auto", &[D::Loop], Operands::None),
    // `collapse(force: n)`: the modifier is dropped (the nest is collapsed the same way;
    // code between the loops then runs once per iteration of the collapsed space).
    lowered(C::Collapse, "collapse", &[D::Loop], Operands::ConstInt).with_modifiers(&["force"]),
    // `tile(s1, ..., sn)`: the rewriter splits the n loops into n tile loops and n element
    // loops itself (driver/src/tile.rs), each set a collapsed `loop` directive; in the
    // contract `tile` marks the tile loops' directive and `tile.element` the element loops',
    // both with the sizes used (innermost loop first), which the pass reports.
    lowered(C::Tile, "tile", &[D::Loop], Operands::TileSizes),
    lowered(C::TileElement, "tile.element", &[D::Loop], Operands::TileSizes),
    // The `cache` directive's list (`cache(a[i-1:3])`), one call per item, every dimension's
    // `lower, length, extent` after the text (none need be whole: codegen/src/cache.rs).
    lowered(C::Cache, "cache", &[D::Cache], Operands::Var).with_modifiers(&["readonly"]),
    lowered(C::CacheReadonly, "cache.readonly", &[D::Cache], Operands::Var),
    // Data directive modifiers.
    lowered(C::Finalize, "finalize", &[D::ExitData], Operands::None),
    lowered(C::IfPresent, "if_present", &[D::Update, D::HostData], Operands::None),
    // host_data: each item's uses inside the construct see its device address.
    lowered(C::UseDevice, "use_device", &[D::HostData], Operands::Var),
    // declare: a device-only allocation (as create), and a global mapped only by data clauses.
    lowered(C::DeviceResident, "device_resident", &[D::Declare], Operands::Var),
    lowered(C::Link, "link", &[D::Declare], Operands::Var),
    // device_type: on init/shutdown/set it names the device type to act on; elsewhere it
    // starts a per-device-type clause set, which the rewriter selects for NVIDIA (the sets'
    // clauses that apply are written as ordinary clauses; `device_type` never reaches the
    // contract there).
    lowered(C::DeviceType, "device_type", &[D::Init, D::Shutdown, D::Set], Operands::Names),
    lowered(C::DeviceType, "device_type", &[D::Parallel, D::Kernels, D::Serial, D::Data, D::Loop, D::Update, D::Routine], Operands::Names),
    // routine: the name device code calls instead; no host version; the function itself.
    lowered(C::Bind, "bind", &[D::Routine], Operands::Name),
    lowered(C::NoHost, "nohost", &[D::Routine], Operands::None),
    lowered(C::RoutineFunction, "routine.function", &[D::Routine], Operands::Function),
    // The rewriter's marks of the plain `for` loops of `kernels` (driver/src/implicit.rs).
    lowered(C::Implicit, "implicit", &[D::Loop], Operands::None),
    lowered(C::ImplicitSeq, "implicit.seq", &[D::Kernels, D::KernelsLoop], Operands::Note),
    lowered(C::DefaultAsync, "default_async", &[D::Set], Operands::Int),
    lowered(C::DeviceNum, "device_num", &[D::Init, D::Shutdown, D::Set], Operands::Int),
];

/// Item modifiers that change what a clause does, and the contract-only clause each item
/// so modified becomes (`create(zero: a)` is `create.zero`). Other accepted modifiers are
/// hints the rewriter drops.
pub static MODIFIED: &[(C, &str, C)] = &[
    (C::Create, "zero", C::CreateZero),
    (C::CopyOut, "zero", C::CopyOutZero),
    (C::Cache, "readonly", C::CacheReadonly),
];

/// Deprecated and short spellings, and the clause each stands for.
pub static ALIASES: &[(&str, C)] = &[
    ("pcopy", C::Copy),
    ("present_or_copy", C::Copy),
    ("pcopyin", C::CopyIn),
    ("present_or_copyin", C::CopyIn),
    ("pcopyout", C::CopyOut),
    ("present_or_copyout", C::CopyOut),
    ("pcreate", C::Create),
    ("present_or_create", C::Create),
    ("dtype", C::DeviceType),
];
