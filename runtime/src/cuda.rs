//! The CUDA driver API, through `cudarc`'s raw bindings (`cudarc::driver::sys`), which load
//! the driver at run time with `dlopen` (`libcuda.so`, ..., `libcuda.so.1`), so that programs
//! start on machines without a GPU.
//!
//! This is the ONLY module that calls the CUDA driver. It exposes thin safe wrappers that
//! return `Result<_, CuError>`; callers decide how to report a failure
//! ([`CuError::fail`] names the call, the context and the CUDA error, and the asynchronous
//! kernels not waited for yet, whose failure a later call may be the first to see).
//!
//! cudarc panics where the driver library or one of its functions is missing (on the first
//! call that needs it), so [`load`] checks both first and reports them as an `Err`: no
//! wrapper here is called before `load` succeeded (device.rs).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

use cudarc::driver::sys::{self, CUresult};

use crate::diag;

/// `CUdevice`.
pub type Device = sys::CUdevice;
/// `CUdeviceptr`.
pub type DevPtr = sys::CUdeviceptr;

/// A `CUcontext`, `CUmodule`, `CUfunction`, `CUstream` or `CUevent` handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handle(pub *mut c_void);
// SAFETY: CUDA driver handles are opaque, process-wide identifiers; the driver API allows
// using them from any host thread.
unsafe impl Send for Handle {}
// SAFETY: as above; handles are never dereferenced on the host.
unsafe impl Sync for Handle {}

/// A failed driver call: its name and `CUresult`.
#[derive(Debug, Clone, Copy)]
pub struct CuError {
    pub call: &'static str,
    pub code: i32,
}

/// `cuGetErrorName`/`cuGetErrorString` with the `CUresult` argument as the C `int` it is:
/// cudarc's `CUresult` is a Rust enum, and a code it does not list (one made up by a caller,
/// or added by a newer driver) must not be turned into one.
type ErrorText = unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int;

impl CuError {
    /// "CUDA_ERROR_XYZ: description" from the driver.
    pub fn describe(&self) -> String {
        let fallback = || format!("CUresult {}", self.code);
        if !matches!(LOADED.get(), Some(Ok(()))) {
            return fallback();
        }
        // SAFETY: `load` succeeded, so the library is present and culib() does not panic.
        let lib = unsafe { sys::culib() };
        let lookup = |name: &CStr| -> Option<ErrorText> {
            // SAFETY: the symbol is the driver function of that name, whose C signature is
            // `CUresult f(CUresult, const char **)`, CUresult being a C enum (an int).
            unsafe { lib.get::<ErrorText>(name) }.ok().map(|f| *f)
        };
        let text_of = |f: Option<ErrorText>| -> Option<String> {
            let mut s: *const c_char = std::ptr::null();
            // SAFETY: the function only writes a pointer to a static string (or fails).
            let r = unsafe { f?(self.code, &mut s) };
            // Unknown codes make cuGetErrorName/String fail and leave the pointer null.
            if r != 0 || s.is_null() {
                return None;
            }
            // SAFETY: on success the driver returned a static NUL-terminated string.
            Some(unsafe { diag::cstr(s, "?") }.into_owned())
        };
        let name = text_of(lookup(c"cuGetErrorName")).unwrap_or_else(fallback);
        let text = text_of(lookup(c"cuGetErrorString")).unwrap_or_else(|| "unknown error".into());
        format!("{name}: {text}")
    }

    /// Whether the call failed for lack of device memory.
    pub fn is_out_of_memory(&self) -> bool {
        self.code == CUresult::CUDA_ERROR_OUT_OF_MEMORY as i32
    }

    /// Report `<call> failed<context>: CUDA_ERROR_XYZ: description` and exit.
    /// `context` is e.g. " for kernel 'main_l12' (saxpy.c:12:9)".
    pub fn fail(&self, context: &str) -> ! {
        diag::runtime_error(&format!(
            "{} failed{}: {}{}",
            self.call,
            context,
            self.describe(),
            crate::queue::unfinished_note()
        ))
    }
}

fn check(call: &'static str, code: CUresult) -> Result<(), CuError> {
    if code == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(CuError {
            call,
            code: code as i32,
        })
    }
}

/// Every driver function this module calls: [`load`] checks they exist, as cudarc panics
/// on the first call of a missing one.
const USED: [&CStr; 44] = [
    c"cuInit",
    c"cuCtxSetLimit",
    c"cuDeviceGetCount",
    c"cuDeviceGet",
    c"cuDeviceGetAttribute",
    c"cuDevicePrimaryCtxRetain",
    c"cuCtxSetCurrent",
    c"cuCtxSynchronize",
    c"cuModuleLoadData",
    c"cuModuleGetFunction",
    c"cuFuncGetAttribute",
    c"cuLaunchKernel",
    c"cuMemAlloc_v2",
    c"cuMemFree_v2",
    c"cuMemcpyHtoD_v2",
    c"cuMemcpyDtoH_v2",
    c"cuMemsetD8_v2",
    c"cuMemcpyDtoD_v2",
    c"cuMemGetInfo_v2",
    c"cuDeviceTotalMem_v2",
    c"cuDeviceGetName",
    c"cuDriverGetVersion",
    c"cuGetErrorName",
    c"cuGetErrorString",
    c"cuMemAllocHost_v2",
    c"cuStreamCreate",
    c"cuStreamSynchronize",
    c"cuStreamQuery",
    c"cuStreamWaitEvent",
    c"cuEventCreate",
    c"cuEventRecord",
    c"cuEventQuery",
    c"cuEventSynchronize",
    c"cuEventDestroy_v2",
    c"cuMemcpyHtoDAsync_v2",
    c"cuMemcpyDtoHAsync_v2",
    c"cuMemcpyDtoDAsync_v2",
    c"cuMemcpyPeerAsync",
    c"cuMemsetD8Async",
    c"cuLaunchHostFunc",
    c"cuLinkCreate_v2",
    c"cuLinkAddData_v2",
    c"cuLinkComplete",
    c"cuLinkDestroy",
];

static LOADED: OnceLock<Result<(), String>> = OnceLock::new();

fn load_driver() -> Result<(), String> {
    // SAFETY: tries to dlopen the driver under its possible names (running libcuda's
    // initialisers, which have no preconditions) and closes what it opened.
    if !unsafe { sys::is_culib_present() } {
        return Err("cannot load the CUDA driver (libcuda.so.1): not found".into());
    }
    // SAFETY: as above; the library is present, so culib() loads it and does not panic.
    let lib = unsafe { sys::culib() };
    for name in USED {
        // SAFETY: only looks the symbol up; it is not called through this type.
        unsafe { lib.get::<*const c_void>(name) }
            .map_err(|_| format!("the CUDA driver lacks {}", name.to_string_lossy()))?;
    }
    Ok(())
}

/// Load the driver library (once). `Err` says why it is unusable.
pub fn load() -> Result<(), String> {
    LOADED.get_or_init(load_driver).clone()
}

pub fn init() -> Result<(), CuError> {
    // SAFETY: cuInit takes flags (must be 0) and has no other precondition.
    check("cuInit", unsafe { sys::cuInit(0) })
}

pub fn device_count() -> Result<i32, CuError> {
    let mut n = 0;
    // SAFETY: writes one int to a valid local.
    check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut n) })?;
    Ok(n)
}

pub fn device_get(ordinal: i32) -> Result<Device, CuError> {
    let mut d = 0;
    // SAFETY: writes one CUdevice to a valid local.
    check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut d, ordinal) })?;
    Ok(d)
}

fn device_attribute(dev: Device, attr: sys::CUdevice_attribute) -> Result<i32, CuError> {
    let mut v = 0;
    // SAFETY: writes one int to a valid local; `dev` came from cuDeviceGet.
    check("cuDeviceGetAttribute", unsafe {
        sys::cuDeviceGetAttribute(&mut v, attr, dev)
    })?;
    Ok(v)
}

/// The device's grid limits in x, y and z.
pub fn max_grid_dims(dev: Device) -> Result<[i32; 3], CuError> {
    use sys::CUdevice_attribute as A;
    Ok([
        device_attribute(dev, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
        device_attribute(dev, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
        device_attribute(dev, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
    ])
}

/// The device's compute capability as an SM number (9.0: 90).
pub fn sm_number(dev: Device) -> Result<u32, CuError> {
    let major = device_attribute(dev, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = device_attribute(dev, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    Ok((major * 10 + minor).max(0) as u32)
}

pub fn multiprocessor_count(dev: Device) -> Result<i32, CuError> {
    device_attribute(dev, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
}

pub fn max_threads_per_multiprocessor(dev: Device) -> Result<i32, CuError> {
    device_attribute(dev, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
}

pub fn primary_ctx_retain(dev: Device) -> Result<Handle, CuError> {
    let mut c = std::ptr::null_mut();
    // SAFETY: writes one CUcontext to a valid local; `dev` came from cuDeviceGet.
    check("cuDevicePrimaryCtxRetain", unsafe {
        sys::cuDevicePrimaryCtxRetain(&mut c, dev)
    })?;
    Ok(Handle(c.cast()))
}

pub fn ctx_set_current(ctx: Handle) -> Result<(), CuError> {
    // SAFETY: `ctx` is a context retained by primary_ctx_retain and never released.
    check("cuCtxSetCurrent", unsafe {
        sys::cuCtxSetCurrent(ctx.0.cast())
    })
}

/// The size of the device heap that `malloc` in kernels allocates from (the current
/// context's; before any kernel that uses it has run).
pub fn ctx_set_malloc_heap_size(bytes: usize) -> Result<(), CuError> {
    // SAFETY: plain values; requires a current context, which the caller has set.
    check("cuCtxSetLimit", unsafe { sys::cuCtxSetLimit(sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE, bytes) })
}

/// The current context's device heap size.
pub fn ctx_malloc_heap_size() -> Result<usize, CuError> {
    let mut v = 0usize;
    // SAFETY: writes one size_t to a valid local; requires a current context (the caller's).
    check("cuCtxGetLimit", unsafe { sys::cuCtxGetLimit(&mut v, sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE) })?;
    Ok(v)
}

pub fn ctx_synchronize() -> Result<(), CuError> {
    // SAFETY: no arguments; requires a current context, which the caller has set.
    check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
}

/// Links relocatable device code with the driver's JIT linker and loads the result: each
/// input is (PTX?, bytes) (a relocatable cubin, or PTX, which the driver compiles for the
/// current GPU first). Err: the failing call and the linker's error log.
pub fn link_and_load(inputs: &[(bool, &[u8])]) -> Result<Handle, (CuError, String)> {
    const LOG: usize = 16 << 10;
    let mut log = vec![0u8; LOG];
    let mut options = [sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    let mut values = [log.as_mut_ptr().cast::<c_void>(), LOG as *mut c_void];
    let mut state = std::ptr::null_mut();
    let text = |log: &[u8]| String::from_utf8_lossy(&log[..log.iter().position(|&b| b == 0).unwrap_or(log.len())]).trim_end().to_string();
    // SAFETY: two options with their values (a buffer of LOG bytes that outlives the link
    // state, and its size); `state` receives the new link state.
    check("cuLinkCreate", unsafe { sys::cuLinkCreate_v2(2, options.as_mut_ptr(), values.as_mut_ptr(), &mut state) }).map_err(|e| (e, String::new()))?;
    let result = (|| {
        for (ptx, bytes) in inputs {
            let kind = if *ptx { sys::CUjitInputType::CU_JIT_INPUT_PTX } else { sys::CUjitInputType::CU_JIT_INPUT_CUBIN };
            // SAFETY: `bytes` is a complete relocatable cubin or NUL-terminated PTX, which
            // the driver only reads (and copies) during the call.
            check("cuLinkAddData", unsafe {
                sys::cuLinkAddData_v2(state, kind, bytes.as_ptr() as *mut c_void, bytes.len(), c"accc".as_ptr(), 0, std::ptr::null_mut(), std::ptr::null_mut())
            })?;
        }
        let mut cubin = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `cubin` receives a pointer into the link state, valid until it is destroyed.
        check("cuLinkComplete", unsafe { sys::cuLinkComplete(state, &mut cubin, &mut size) })?;
        // SAFETY: the linker's complete cubin; the driver copies it before the state goes.
        unsafe { module_load_data(cubin) }
    })();
    let result = result.map_err(|e| (e, text(&log)));
    // SAFETY: `state` came from cuLinkCreate and is destroyed once.
    let _ = unsafe { sys::cuLinkDestroy(state) };
    result
}

/// Load a cubin/PTX image.
///
/// # Safety
/// `image` must point to a complete cubin (ELF) or NUL-terminated PTX image.
pub unsafe fn module_load_data(image: *const c_void) -> Result<Handle, CuError> {
    let mut m = std::ptr::null_mut();
    // SAFETY: `image` is a complete, self-describing ELF/PTX image embedded by the
    // compiler (caller's guarantee); the driver copies what it needs.
    check("cuModuleLoadData", unsafe {
        sys::cuModuleLoadData(&mut m, image)
    })?;
    Ok(Handle(m.cast()))
}

pub fn module_get_function(module: Handle, name: &CStr) -> Result<Handle, CuError> {
    let mut f = std::ptr::null_mut();
    // SAFETY: `module` was loaded by module_load_data; `name` is NUL-terminated.
    check("cuModuleGetFunction", unsafe {
        sys::cuModuleGetFunction(&mut f, module.0.cast(), name.as_ptr())
    })?;
    Ok(Handle(f.cast()))
}

pub fn func_max_threads_per_block(func: Handle) -> Result<i32, CuError> {
    let mut v = 0;
    let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
    // SAFETY: writes one int to a valid local; `func` came from module_get_function.
    check("cuFuncGetAttribute", unsafe {
        sys::cuFuncGetAttribute(&mut v, attr, func.0.cast())
    })?;
    Ok(v)
}

/// Launch `func` with no dynamic shared memory on `stream` (`None`: the legacy default
/// stream). The driver copies the parameter values at the call.
///
/// # Safety
/// `params` must be the kernel's parameter array (one pointer per argument, matching
/// the kernel signature), and the pointed-to device addresses valid for the kernel.
pub unsafe fn launch_kernel(
    func: Handle,
    grid: [u32; 3],
    block: (u32, u32),
    stream: Option<Handle>,
    params: *mut *mut c_void,
) -> Result<(), CuError> {
    // SAFETY: `func` is a loaded kernel and `params` matches its signature (generated by
    // the compiler from the same source); sizes were clamped to the device limits.
    check("cuLaunchKernel", unsafe {
        sys::cuLaunchKernel(
            func.0.cast(),
            grid[0],
            grid[1],
            grid[2],
            block.0,
            block.1,
            1,
            0,
            stream.map_or(std::ptr::null_mut(), |s| s.0.cast()),
            params,
            std::ptr::null_mut(),
        )
    })
}

pub fn mem_alloc(bytes: usize) -> Result<DevPtr, CuError> {
    let mut p = 0;
    // SAFETY: writes one CUdeviceptr to a valid local.
    check("cuMemAlloc", unsafe { sys::cuMemAlloc_v2(&mut p, bytes) })?;
    Ok(p)
}

pub fn mem_free(p: DevPtr) -> Result<(), CuError> {
    // SAFETY: `p` was returned by mem_alloc and is freed once (present-table invariant).
    check("cuMemFree", unsafe { sys::cuMemFree_v2(p) })
}

/// Copy `bytes` from host `src` to device `dst`.
///
/// # Safety
/// `src` must be readable for `bytes` bytes and `dst` a device allocation that large.
pub unsafe fn memcpy_htod(dst: DevPtr, src: *const c_void, bytes: usize) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`).
    check("cuMemcpyHtoD", unsafe {
        sys::cuMemcpyHtoD_v2(dst, src, bytes)
    })
}

/// Set `bytes` bytes at device `dst` to zero.
///
/// # Safety
/// `dst..dst+bytes` must lie inside one device allocation.
pub unsafe fn memset_zero(dst: DevPtr, bytes: usize) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`).
    check("cuMemsetD8", unsafe { sys::cuMemsetD8_v2(dst, 0, bytes) })
}

/// Copy `bytes` from device `src` to host `dst`.
///
/// # Safety
/// `dst` must be writable for `bytes` bytes and `src` a device allocation that large.
pub unsafe fn memcpy_dtoh(dst: *mut c_void, src: DevPtr, bytes: usize) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`).
    check("cuMemcpyDtoH", unsafe {
        sys::cuMemcpyDtoH_v2(dst, src, bytes)
    })
}

/// Copy `bytes` from device `src` to device `dst`.
///
/// # Safety
/// `src..src+bytes` and `dst..dst+bytes` must each lie inside one device allocation.
pub unsafe fn memcpy_dtod(dst: DevPtr, src: DevPtr, bytes: usize) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`).
    check("cuMemcpyDtoD", unsafe { sys::cuMemcpyDtoD_v2(dst, src, bytes) })
}

/// (free, total) bytes of the current context's device.
pub fn mem_get_info() -> Result<(usize, usize), CuError> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: writes two size_t to valid locals; the caller made a context current.
    check("cuMemGetInfo", unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) })?;
    Ok((free, total))
}

pub fn device_total_mem(dev: Device) -> Result<usize, CuError> {
    let mut v = 0;
    // SAFETY: writes one size_t to a valid local; `dev` came from cuDeviceGet.
    check("cuDeviceTotalMem", unsafe { sys::cuDeviceTotalMem_v2(&mut v, dev) })?;
    Ok(v)
}

pub fn device_name(dev: Device) -> Result<String, CuError> {
    let mut buf = [0 as c_char; 256];
    // SAFETY: the driver writes at most `len` bytes into the local buffer; one byte more
    // stays 0.
    check("cuDeviceGetName", unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int - 1, dev) })?;
    // SAFETY: NUL-terminated within the buffer (its last byte is never written).
    Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned())
}

/// The driver's CUDA version, e.g. 12090 for 12.9.
pub fn driver_version() -> Result<i32, CuError> {
    let mut v = 0;
    // SAFETY: writes one int to a valid local.
    check("cuDriverGetVersion", unsafe { sys::cuDriverGetVersion(&mut v) })?;
    Ok(v)
}

// ---- Streams and events (async queues, queue.rs). Streams are created with
// ---- CU_STREAM_DEFAULT: work on the legacy default stream (every synchronous call here)
// ---- waits for their earlier work, and their later work waits for it.

/// A new stream that synchronises with the legacy default stream.
pub fn stream_create() -> Result<Handle, CuError> {
    let mut s = std::ptr::null_mut();
    let flags = sys::CUstream_flags_enum::CU_STREAM_DEFAULT as c_uint;
    // SAFETY: writes one CUstream to a valid local; the caller made a context current.
    check("cuStreamCreate", unsafe { sys::cuStreamCreate(&mut s, flags) })?;
    Ok(Handle(s.cast()))
}

/// Blocks until everything enqueued on `stream` has finished.
pub fn stream_synchronize(stream: Handle) -> Result<(), CuError> {
    // SAFETY: `stream` came from stream_create and is never destroyed.
    check("cuStreamSynchronize", unsafe { sys::cuStreamSynchronize(stream.0.cast()) })
}

/// Whether everything enqueued on `stream` has finished (`CUDA_ERROR_NOT_READY`: not yet).
pub fn stream_query(stream: Handle) -> Result<bool, CuError> {
    // SAFETY: `stream` came from stream_create and is never destroyed.
    ready("cuStreamQuery", unsafe { sys::cuStreamQuery(stream.0.cast()) })
}

/// Makes later work on `stream` wait until `event` (as last recorded) has completed.
pub fn stream_wait_event(stream: Handle, event: Handle) -> Result<(), CuError> {
    // SAFETY: both handles are live (stream_create, event_create); flags must be 0.
    check("cuStreamWaitEvent", unsafe { sys::cuStreamWaitEvent(stream.0.cast(), event.0.cast(), 0) })
}

/// A new event without timing (the cheap kind).
pub fn event_create() -> Result<Handle, CuError> {
    let mut e = std::ptr::null_mut();
    let flags = sys::CUevent_flags_enum::CU_EVENT_DISABLE_TIMING as c_uint;
    // SAFETY: writes one CUevent to a valid local; the caller made a context current.
    check("cuEventCreate", unsafe { sys::cuEventCreate(&mut e, flags) })?;
    Ok(Handle(e.cast()))
}

/// A new event that records a time stamp (`ACC_TIME`, profile/), for [`event_elapsed_ms`].
pub fn event_create_timed() -> Result<Handle, CuError> {
    let mut e = std::ptr::null_mut();
    let flags = sys::CUevent_flags_enum::CU_EVENT_DEFAULT as c_uint;
    // SAFETY: writes one CUevent to a valid local; the caller made a context current.
    check("cuEventCreate", unsafe { sys::cuEventCreate(&mut e, flags) })?;
    Ok(Handle(e.cast()))
}

/// Whether the driver has function `name`, for functions a program can run without (not in
/// [`USED`], which a driver must have for the GPU to be used at all).
fn has(name: &CStr) -> bool {
    // SAFETY: `load` succeeded (no wrapper runs before it), so culib() does not panic; the
    // symbol is only looked up, not called through this type.
    matches!(LOADED.get(), Some(Ok(()))) && unsafe { sys::culib().get::<*const c_void>(name) }.is_ok()
}

/// Milliseconds between two completed timed events ([`event_create_timed`]) recorded on
/// one stream. Only `ACC_TIME` needs it, so a driver without `cuEventElapsedTime(_v2)` still
/// runs programs: the call then fails (CUDA_ERROR_NOT_FOUND) and the time is left out.
pub fn event_elapsed_ms(start: Handle, stop: Handle) -> Result<f32, CuError> {
    /// Which entry point the driver has: CUDA 12.8 added `cuEventElapsedTime_v2` and CUDA
    /// 13 drivers export only that one.
    #[derive(Clone, Copy, PartialEq)]
    enum Entry {
        V2,
        V1,
        None,
    }
    static ENTRY: OnceLock<Entry> = OnceLock::new();
    let entry = *ENTRY.get_or_init(|| {
        if has(c"cuEventElapsedTime_v2") {
            Entry::V2
        } else if has(c"cuEventElapsedTime") {
            Entry::V1
        } else {
            Entry::None
        }
    });
    let mut ms = 0f32;
    // SAFETY: writes one float to a valid local; both events are live timed events; the
    // entry point called exists (checked above).
    let code = match entry {
        Entry::V2 => unsafe { sys::cuEventElapsedTime_v2(&mut ms, start.0.cast(), stop.0.cast()) },
        Entry::V1 => unsafe { sys::cuEventElapsedTime(&mut ms, start.0.cast(), stop.0.cast()) },
        Entry::None => return Err(CuError { call: "cuEventElapsedTime", code: CUresult::CUDA_ERROR_NOT_FOUND as i32 }),
    };
    check("cuEventElapsedTime", code)?;
    Ok(ms)
}

/// Records `event` at the current end of `stream` (`Handle(null)`: the legacy default
/// stream, where the synchronous calls go).
pub fn event_record(event: Handle, stream: Handle) -> Result<(), CuError> {
    // SAFETY: the event is live (event_create[_timed]) and the stream live (stream_create)
    // or null (the legacy default stream).
    check("cuEventRecord", unsafe { sys::cuEventRecord(event.0.cast(), stream.0.cast()) })
}

/// Whether the work before `event`'s record has finished.
pub fn event_query(event: Handle) -> Result<bool, CuError> {
    // SAFETY: `event` is live (event_create, not destroyed yet).
    ready("cuEventQuery", unsafe { sys::cuEventQuery(event.0.cast()) })
}

/// Blocks until the work before `event`'s record has finished.
pub fn event_synchronize(event: Handle) -> Result<(), CuError> {
    // SAFETY: `event` is live (event_create, not destroyed yet).
    check("cuEventSynchronize", unsafe { sys::cuEventSynchronize(event.0.cast()) })
}

/// Destroys `event` (the driver keeps what a pending wait or record still needs).
pub fn event_destroy(event: Handle) -> Result<(), CuError> {
    // SAFETY: `event` came from event_create and is destroyed once (the caller drops it).
    check("cuEventDestroy", unsafe { sys::cuEventDestroy_v2(event.0.cast()) })
}

/// `Ok(true)` for success, `Ok(false)` for `CUDA_ERROR_NOT_READY`, else the error.
fn ready(call: &'static str, code: CUresult) -> Result<bool, CuError> {
    match code {
        CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        c => check(call, c).map(|()| true),
    }
}

/// Enqueues a copy of `bytes` from host `src` to device `dst` on `stream`. From pageable
/// memory the driver stages the bytes before it returns, so `src` may change afterwards.
///
/// # Safety
/// `src` must be readable for `bytes` bytes and `dst` a device allocation that large, and
/// stay one until the stream has done the copy.
pub unsafe fn memcpy_htod_async(dst: DevPtr, src: *const c_void, bytes: usize, stream: Handle) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`); `stream` is live.
    check("cuMemcpyHtoDAsync", unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src, bytes, stream.0.cast()) })
}

/// Enqueues a copy of `bytes` from device `src` to host `dst` on `stream` (to pageable
/// memory the driver returns when the copy is done).
///
/// # Safety
/// `dst` must be writable for `bytes` bytes until the stream has done the copy, and `src` a
/// device allocation that large.
pub unsafe fn memcpy_dtoh_async(dst: *mut c_void, src: DevPtr, bytes: usize, stream: Handle) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`); `stream` is live.
    check("cuMemcpyDtoHAsync", unsafe { sys::cuMemcpyDtoHAsync_v2(dst, src, bytes, stream.0.cast()) })
}

/// Enqueues a copy of `bytes` from device `src` to device `dst` on `stream`.
///
/// # Safety
/// `src..src+bytes` and `dst..dst+bytes` must each lie inside one device allocation until
/// the stream has done the copy.
pub unsafe fn memcpy_dtod_async(dst: DevPtr, src: DevPtr, bytes: usize, stream: Handle) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`); `stream` is live.
    check("cuMemcpyDtoDAsync", unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, stream.0.cast()) })
}

/// Enqueues a copy of `bytes` from `src` on the device of context `src_ctx` to `dst` on the
/// device of context `dst_ctx` on `stream` (`acc_memcpy_d2d` between two GPUs).
///
/// # Safety
/// As for [`memcpy_dtod_async`], each range in its own context's device memory.
pub unsafe fn memcpy_peer_async(dst: DevPtr, dst_ctx: Handle, src: DevPtr, src_ctx: Handle, bytes: usize, stream: Handle) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`); the contexts and `stream` are live.
    check("cuMemcpyPeerAsync", unsafe {
        sys::cuMemcpyPeerAsync(dst, dst_ctx.0.cast(), src, src_ctx.0.cast(), bytes, stream.0.cast())
    })
}

/// Enqueues setting `bytes` at device `dst` to zero on `stream`.
///
/// # Safety
/// `dst..dst+bytes` must lie inside one device allocation until the stream has done it.
pub unsafe fn memset_zero_async(dst: DevPtr, bytes: usize, stream: Handle) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`); `stream` is live.
    check("cuMemsetD8Async", unsafe { sys::cuMemsetD8Async(dst, 0, bytes, stream.0.cast()) })
}

/// Enqueues a call of `f(data)` on the host, in `stream`'s order: after the stream's
/// earlier work, before its later work (a driver thread runs it; it must not call CUDA).
///
/// # Safety
/// `f` must be safe to call once with `data` on another thread.
pub unsafe fn launch_host_func(stream: Handle, f: unsafe extern "C" fn(*mut c_void), data: *mut c_void) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`); `stream` is live.
    check("cuLaunchHostFunc", unsafe { sys::cuLaunchHostFunc(stream.0.cast(), Some(f), data) })
}

/// `bytes` of page-locked host memory, never freed (staging.rs's buffers live as long as the
/// process).
pub fn mem_alloc_host(bytes: usize) -> Result<*mut c_void, CuError> {
    let mut p = std::ptr::null_mut();
    // SAFETY: writes one pointer to a valid local.
    check("cuMemAllocHost", unsafe { sys::cuMemAllocHost_v2(&mut p, bytes) })?;
    Ok(p)
}
