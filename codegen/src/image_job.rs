//! The device image built on a thread of its own, and put into the host module when done.
//!
//! Inside clang the host module goes on through the `-O` pipeline after `acc-offload`, and
//! the device image (`device::compile_image`: optimisation, PTX, ptxas) does not depend on
//! it: `ImageJob::spawn` builds it meanwhile on another core, in an LLVM context of its own
//! (a context is used by one thread at a time), from the device module's bitcode.
//!
//! Expects: a host module whose kernel descriptors (host_stub.rs: `{image, size, ...}`)
//! point at `placeholder`, an external declaration, with size 0. Produces, in `install`: the
//! image as the private constant `__acc_image`, every descriptor pointing at it with its size,
//! and no placeholder. When: at the end of `acc-offload` (`opt -passes=acc-offload`), or,
//! inside clang, at `acc-offload-finish` (`finish`), which the plugin runs at the optimiser's
//! last extension point: host optimisation and device compilation overlap, host code
//! generation does not (the image must be in the module before the object is written).
//!
//! Does not change what is built: the bytes are those a single-threaded build makes.

use crate::device::Image;
use crate::error::{AccError, Result};
use crate::ir::{Module, Value};
use crate::options::Options;
use std::sync::Mutex;
use std::thread::JoinHandle;

/// The name the descriptors' image pointer has until the image is installed.
pub const PLACEHOLDER: &str = "__acc_image.pending";

/// LLVM recurses deeply on big functions; a Rust thread's default 2 MiB stack is less
/// than the main thread's, so the device thread gets more (reserved, not committed).
const STACK_BYTES: usize = 64 << 20;

pub enum ImageJob {
    Running(JoinHandle<Result<Image>>),
    /// No thread could be started: built on the caller's thread instead.
    Done(Result<Image>),
}

impl ImageJob {
    /// Starts building the image from `device::prepare_nvptx`'s bitcode.
    pub fn spawn(bitcode: Vec<u8>, opts: Options, parts: crate::device::ImageParts) -> ImageJob {
        let thread = std::thread::Builder::new().name("acc-device".into()).stack_size(STACK_BYTES);
        let shared = std::sync::Arc::new((bitcode, opts, parts));
        let for_thread = shared.clone();
        match thread.spawn(move || crate::device::compile_image(&for_thread.0, &for_thread.1, &for_thread.2)) {
            Ok(handle) => ImageJob::Running(handle),
            Err(_) => ImageJob::Done(crate::device::compile_image(&shared.0, &shared.1, &shared.2)),
        }
    }

    /// The image, once built.
    pub fn wait(self) -> Result<Image> {
        let _t = crate::timing::phase("wait for the device image");
        match self {
            ImageJob::Running(handle) => handle.join().unwrap_or_else(|panic| Err(AccError::from_panic(panic))),
            ImageJob::Done(result) => result,
        }
    }
}

/// The declaration the descriptors point at until `install`.
pub fn placeholder<'ctx>(m: Module<'ctx>) -> Value<'ctx> {
    let ctx = m.context();
    m.global(PLACEHOLDER).unwrap_or_else(|| m.add_global(ctx.array_type(ctx.i8(), 0), PLACEHOLDER))
}

/// The name of the registration of a file's exported routines (`register_library`).
pub const LIBRARY: &str = "__acc_routines";

/// For a file that exports routines (routine.rs): a constructor that registers its image
/// with the runtime (`__accrt_register_routines`, docs/runtime-abi.md), whose kernels of
/// other files link with it. The registration is `{ptr image, i64 size}`, filled by
/// `install` as a kernel descriptor is (its name is returned, for `install`'s list).
pub fn register_library<'ctx>(m: Module<'ctx>) -> Result<String> {
    let text = format!(
        "@{PLACEHOLDER} = external global [0 x i8]\n\
         @{LIBRARY} = internal global {{ ptr, i64 }} {{ ptr @{PLACEHOLDER}, i64 0 }}\n\
         @llvm.global_ctors = appending global [1 x {{ i32, ptr, ptr }}] [{{ i32, ptr, ptr }} {{ i32 65535, ptr @{LIBRARY}.register, ptr null }}]\n\
         declare void @__accrt_register_routines(ptr)\n\
         define internal void @{LIBRARY}.register() nounwind {{\n  call void @__accrt_register_routines(ptr @{LIBRARY})\n  ret void\n}}\n"
    );
    let owned = m.context().parse_ir(&text, "routine registration").map_err(|e| AccError::internal(format!("the routine registration does not parse: {e}")))?;
    owned.handle().set_triple(&m.triple());
    owned.handle().set_data_layout(&m.data_layout());
    m.link(owned).map_err(AccError::internal)?;
    Ok(LIBRARY.to_string())
}

/// Puts the image into the module: the placeholder is replaced and each descriptor (by
/// name: host_stub::build's) gets the image's size. A descriptor or placeholder the
/// optimiser removed (its launch was dead code) is skipped.
pub fn install<'ctx>(m: Module<'ctx>, image: &[u8], descriptors: &[String]) {
    let Some(placeholder) = m.global(PLACEHOLDER) else {
        return;
    };
    let ctx = m.context();
    let global = crate::host_stub::embed_image(m, image);
    let size = ctx.i64().const_int(image.len() as u64);
    for name in descriptors {
        let Some(d) = m.global(name) else { continue };
        let Some(init) = d.initializer() else { continue };
        let mut fields = init.operands();
        if fields.len() > 1 && fields[0] == placeholder {
            fields[0] = global;
            fields[1] = size;
            d.set_initializer(ctx.const_struct(&fields));
        }
    }
    placeholder.replace_all_uses_with(global);
    placeholder.erase_global();
}

/// An image still being built for a module clang is optimising: the module's address, the
/// job, the descriptors to fill in and the compile report waiting for the kernels' usage.
struct Deferred {
    module: usize,
    job: ImageJob,
    descriptors: Vec<String>,
    report: Option<crate::report::Report>,
}

static DEFERRED: Mutex<Vec<Deferred>> = Mutex::new(Vec::new());

/// Leaves the job running; `finish(m)` installs its image (and emits `report`, which the
/// kernels' register and shared memory counts complete, then).
pub fn defer<'ctx>(m: Module<'ctx>, job: ImageJob, descriptors: Vec<String>, report: Option<crate::report::Report>) {
    let mut deferred = DEFERRED.lock().unwrap_or_else(|e| e.into_inner());
    deferred.push(Deferred { module: m.raw() as usize, job, descriptors, report });
}

/// Waits for `m`'s deferred image, if it has one, and installs it. Ok(false): none.
pub fn finish<'ctx>(m: Module<'ctx>) -> Result<bool> {
    let found = {
        let mut deferred = DEFERRED.lock().unwrap_or_else(|e| e.into_inner());
        let at = deferred.iter().position(|d| d.module == m.raw() as usize);
        at.map(|i| deferred.swap_remove(i))
    };
    let Some(Deferred { job, descriptors, report, .. }) = found else {
        return Ok(false);
    };
    let image = job.wait()?;
    if let Some(report) = report {
        report.emit(&image.usage)?;
    }
    install(m, &image.bytes, &descriptors);
    m.verify().map_err(|e| AccError::internal(format!("the host module does not verify after installing the device image: {e}")))?;
    Ok(true)
}
