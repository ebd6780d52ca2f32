//! The CUDA driver API, loaded at run time with `dlopen` (`libcuda.so.1`, else
//! `libcuda.so`), so that programs start on machines without a GPU.
//!
//! This is the ONLY module that calls the CUDA driver. It exposes thin safe wrappers that
//! return `Result<_, CuError>`; callers decide how to report a failure
//! ([`CuError::fail`] names the call, the context and the CUDA error).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

use libloading::Library;

use crate::diag;

type CuResult = c_int;
/// `CUdevice`.
pub type Device = c_int;
/// `CUdeviceptr`.
pub type DevPtr = u64;

/// A `CUcontext`, `CUmodule` or `CUfunction` handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handle(pub *mut c_void);
// SAFETY: CUDA driver handles are opaque, process-wide identifiers; the driver API allows
// using them from any host thread.
unsafe impl Send for Handle {}
// SAFETY: as above; handles are never dereferenced on the host.
unsafe impl Sync for Handle {}

const CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: c_int = 0;
const CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: c_int = 5;

/// A failed driver call: its name and `CUresult`.
#[derive(Debug, Clone, Copy)]
pub struct CuError {
    pub call: &'static str,
    pub code: i32,
}

impl CuError {
    /// "CUDA_ERROR_XYZ: description" from the driver.
    pub fn describe(&self) -> String {
        let Some(api) = API.get().and_then(|a| a.as_ref().ok()) else {
            return format!("CUresult {}", self.code);
        };
        let (mut name, mut text): (*const c_char, *const c_char) =
            (std::ptr::null(), std::ptr::null());
        // SAFETY: both functions only write a pointer to a static string (or fail).
        let (r1, r2) = unsafe {
            (
                (api.get_error_name)(self.code, &mut name),
                (api.get_error_string)(self.code, &mut text),
            )
        };
        // Unknown codes make cuGetErrorName/String fail and leave the pointers null.
        let name = if r1 == 0 && !name.is_null() {
            // SAFETY: on success the driver returned a static NUL-terminated string.
            unsafe { diag::cstr(name, "?") }.into_owned()
        } else {
            format!("CUresult {}", self.code)
        };
        let text = if r2 == 0 && !text.is_null() {
            // SAFETY: as above.
            unsafe { diag::cstr(text, "?") }.into_owned()
        } else {
            "unknown error".into()
        };
        format!("{name}: {text}")
    }

    /// Report `<call> failed<context>: CUDA_ERROR_XYZ: description` and exit.
    /// `context` is e.g. " for kernel 'main_l12' (saxpy.c:12:9)".
    pub fn fail(&self, context: &str) -> ! {
        diag::runtime_error(&format!(
            "{} failed{}: {}",
            self.call,
            context,
            self.describe()
        ))
    }
}

fn check(call: &'static str, code: CuResult) -> Result<(), CuError> {
    if code == 0 {
        Ok(())
    } else {
        Err(CuError { call, code })
    }
}

struct Api {
    _lib: Library,
    init: unsafe extern "C" fn(c_uint) -> CuResult,
    device_get_count: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get: unsafe extern "C" fn(*mut Device, c_int) -> CuResult,
    device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, Device) -> CuResult,
    primary_ctx_retain: unsafe extern "C" fn(*mut *mut c_void, Device) -> CuResult,
    ctx_set_current: unsafe extern "C" fn(*mut c_void) -> CuResult,
    ctx_synchronize: unsafe extern "C" fn() -> CuResult,
    module_load_data: unsafe extern "C" fn(*mut *mut c_void, *const c_void) -> CuResult,
    module_get_function:
        unsafe extern "C" fn(*mut *mut c_void, *mut c_void, *const c_char) -> CuResult,
    func_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, *mut c_void) -> CuResult,
    #[allow(clippy::type_complexity)]
    launch_kernel: unsafe extern "C" fn(
        *mut c_void,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        *mut c_void,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CuResult,
    mem_alloc: unsafe extern "C" fn(*mut DevPtr, usize) -> CuResult,
    mem_free: unsafe extern "C" fn(DevPtr) -> CuResult,
    memcpy_htod: unsafe extern "C" fn(DevPtr, *const c_void, usize) -> CuResult,
    memcpy_dtoh: unsafe extern "C" fn(*mut c_void, DevPtr, usize) -> CuResult,
    get_error_name: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
    get_error_string: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
}

static API: OnceLock<Result<Api, String>> = OnceLock::new();

fn load_api() -> Result<Api, String> {
    // SAFETY: loading libcuda runs its initialisers, which have no preconditions.
    let lib = unsafe { Library::new("libcuda.so.1").or_else(|_| Library::new("libcuda.so")) }
        .map_err(|e| format!("cannot load the CUDA driver (libcuda.so.1): {e}"))?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol is the CUDA driver function of that name, whose C
            // signature matches the field type it is assigned to.
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| format!("the CUDA driver lacks {}: {e}", $name))?
        };
    }
    Ok(Api {
        init: sym!("cuInit"),
        device_get_count: sym!("cuDeviceGetCount"),
        device_get: sym!("cuDeviceGet"),
        device_get_attribute: sym!("cuDeviceGetAttribute"),
        primary_ctx_retain: sym!("cuDevicePrimaryCtxRetain"),
        ctx_set_current: sym!("cuCtxSetCurrent"),
        ctx_synchronize: sym!("cuCtxSynchronize"),
        module_load_data: sym!("cuModuleLoadData"),
        module_get_function: sym!("cuModuleGetFunction"),
        func_get_attribute: sym!("cuFuncGetAttribute"),
        launch_kernel: sym!("cuLaunchKernel"),
        mem_alloc: sym!("cuMemAlloc_v2"),
        mem_free: sym!("cuMemFree_v2"),
        memcpy_htod: sym!("cuMemcpyHtoD_v2"),
        memcpy_dtoh: sym!("cuMemcpyDtoH_v2"),
        get_error_name: sym!("cuGetErrorName"),
        get_error_string: sym!("cuGetErrorString"),
        _lib: lib,
    })
}

/// Load the driver library (once). `Err` says why it is unusable.
pub fn load() -> Result<(), String> {
    API.get_or_init(load_api)
        .as_ref()
        .map(|_| ())
        .map_err(Clone::clone)
}

fn api() -> &'static Api {
    match API.get() {
        Some(Ok(api)) => api,
        _ => panic!("CUDA driver used before it was loaded"),
    }
}

pub fn init() -> Result<(), CuError> {
    // SAFETY: cuInit takes flags (must be 0) and has no other precondition.
    check("cuInit", unsafe { (api().init)(0) })
}

pub fn device_count() -> Result<i32, CuError> {
    let mut n = 0;
    // SAFETY: writes one int to a valid local.
    check("cuDeviceGetCount", unsafe {
        (api().device_get_count)(&mut n)
    })?;
    Ok(n)
}

pub fn device_get(ordinal: i32) -> Result<Device, CuError> {
    let mut d = 0;
    // SAFETY: writes one CUdevice to a valid local.
    check("cuDeviceGet", unsafe {
        (api().device_get)(&mut d, ordinal)
    })?;
    Ok(d)
}

pub fn max_grid_dim_x(dev: Device) -> Result<i32, CuError> {
    let mut v = 0;
    // SAFETY: writes one int to a valid local; `dev` came from cuDeviceGet.
    check("cuDeviceGetAttribute", unsafe {
        (api().device_get_attribute)(&mut v, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, dev)
    })?;
    Ok(v)
}

pub fn primary_ctx_retain(dev: Device) -> Result<Handle, CuError> {
    let mut c = std::ptr::null_mut();
    // SAFETY: writes one CUcontext to a valid local; `dev` came from cuDeviceGet.
    check("cuDevicePrimaryCtxRetain", unsafe {
        (api().primary_ctx_retain)(&mut c, dev)
    })?;
    Ok(Handle(c))
}

pub fn ctx_set_current(ctx: Handle) -> Result<(), CuError> {
    // SAFETY: `ctx` is a context retained by primary_ctx_retain and never released.
    check("cuCtxSetCurrent", unsafe { (api().ctx_set_current)(ctx.0) })
}

pub fn ctx_synchronize() -> Result<(), CuError> {
    // SAFETY: no arguments; requires a current context, which the caller has set.
    check("cuCtxSynchronize", unsafe { (api().ctx_synchronize)() })
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
        (api().module_load_data)(&mut m, image)
    })?;
    Ok(Handle(m))
}

pub fn module_get_function(module: Handle, name: &CStr) -> Result<Handle, CuError> {
    let mut f = std::ptr::null_mut();
    // SAFETY: `module` was loaded by module_load_data; `name` is NUL-terminated.
    check("cuModuleGetFunction", unsafe {
        (api().module_get_function)(&mut f, module.0, name.as_ptr())
    })?;
    Ok(Handle(f))
}

pub fn func_max_threads_per_block(func: Handle) -> Result<i32, CuError> {
    let mut v = 0;
    // SAFETY: writes one int to a valid local; `func` came from module_get_function.
    check("cuFuncGetAttribute", unsafe {
        (api().func_get_attribute)(&mut v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, func.0)
    })?;
    Ok(v)
}

/// Launch `func` on the default stream with no dynamic shared memory.
///
/// # Safety
/// `params` must be the kernel's parameter array (one pointer per argument, matching
/// the kernel signature), and the pointed-to device addresses valid for the kernel.
pub unsafe fn launch_kernel(
    func: Handle,
    grid: u32,
    block: (u32, u32),
    params: *mut *mut c_void,
) -> Result<(), CuError> {
    // SAFETY: `func` is a loaded kernel and `params` matches its signature (generated by
    // the compiler from the same source); sizes were clamped to the device limits.
    check("cuLaunchKernel", unsafe {
        (api().launch_kernel)(
            func.0,
            grid,
            1,
            1,
            block.0,
            block.1,
            1,
            0,
            std::ptr::null_mut(),
            params,
            std::ptr::null_mut(),
        )
    })
}

pub fn mem_alloc(bytes: usize) -> Result<DevPtr, CuError> {
    let mut p = 0;
    // SAFETY: writes one CUdeviceptr to a valid local.
    check("cuMemAlloc", unsafe { (api().mem_alloc)(&mut p, bytes) })?;
    Ok(p)
}

pub fn mem_free(p: DevPtr) -> Result<(), CuError> {
    // SAFETY: `p` was returned by mem_alloc and is freed once (present-table invariant).
    check("cuMemFree", unsafe { (api().mem_free)(p) })
}

/// Copy `bytes` from host `src` to device `dst`.
///
/// # Safety
/// `src` must be readable for `bytes` bytes and `dst` a device allocation that large.
pub unsafe fn memcpy_htod(dst: DevPtr, src: *const c_void, bytes: usize) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`).
    check("cuMemcpyHtoD", unsafe {
        (api().memcpy_htod)(dst, src, bytes)
    })
}

/// Copy `bytes` from device `src` to host `dst`.
///
/// # Safety
/// `dst` must be writable for `bytes` bytes and `src` a device allocation that large.
pub unsafe fn memcpy_dtoh(dst: *mut c_void, src: DevPtr, bytes: usize) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller (see `# Safety`).
    check("cuMemcpyDtoH", unsafe {
        (api().memcpy_dtoh)(dst, src, bytes)
    })
}
