/* accrt.h: C ABI of the accc host runtime (libaccrt.a). See docs/runtime-abi.md.
 *
 * All functions are thread-safe. None returns an error code: a failure prints a message
 * naming the source position ("file:line:col: error: ...") and exits with status 1.
 * Link: libaccrt.a -lpthread -ldl -lm (libcuda is loaded at run time, never linked). */
#ifndef ACCRT_H
#define ACCRT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel as embedded in the host object by the pass. */
typedef struct accrt_kernel {
  const void *image;       /* cubin bytes (ELF), embedded as a private constant */
  uint64_t image_size;
  const char *name;        /* kernel symbol in the cubin */
  const char *function;    /* host function that held the region, for ACC_NOTIFY */
  const char *loc;         /* "file:line:col" of the compute construct */
  void *cache;             /* runtime-owned, starts null: the loaded kernel (CUfunction, limits) */
  void (*emulator_entry)(void **args); /* the kernel's host copy, for ACC_DEVICE_TYPE=emulator */
  uint64_t flags;          /* ACCRT_KERNEL_* */
  uint64_t reduce_vars;    /* number of gang-level reduction variables (0: none) */
  uint64_t scratch_arg;    /* index in args[] of the slot the runtime fills with the scratch
                              pointer (when reduce_vars > 0) */
  uint64_t private_arg;    /* 0, or 1 + the index in args[] of the slot the runtime fills with
                              the private area (see below) */
  uint64_t num_args;       /* entries of args[] */
  const uint32_t *arg_sizes; /* bytes of each args[] slot (null: not given; the emulator then
                              runs an async launch at once instead of holding it) */
} accrt_kernel;

/* accrt_kernel.flags: the kernel synchronises the lanes of a worker (or keeps per-worker
 * arrays): it is launched with workers of one warp (vector length 32; a longer vector's lanes
 * become more workers) and at most 15 workers (docs/device-runtime.md). */
#define ACCRT_KERNEL_WORKER_SYNC 1u
/* accrt_kernel.flags: gang-level reductions without num_gangs: the runtime caps the gangs
 * to one wave (GPU) or 64 (emulator). */
#define ACCRT_KERNEL_CAP_GANGS 2u
/* accrt_kernel.flags: the kernel sets a `declare link` global's device slot (one per global,
 * shared by every kernel): such launches take turns, and one on an async queue returns only
 * when its kernel is done. See docs/runtime-abi.md. */
#define ACCRT_KERNEL_LINK_SLOT 4u

/* Reduction scratch (reduce_vars > 0): at launch, *(void **)args[scratch_arg] receives a
 * device buffer of at least round_up(reduce_vars * 8, 256) + reduce_vars * 16 * num_gangs
 * bytes whose first round_up(reduce_vars * 8, 256) bytes are zero at kernel start and must
 * be left zero at its end; one buffer per device and queue. See docs/runtime-abi.md. */

/* Private area (private_arg > 0): `private`/`firstprivate` copies of pointer sections and of
 * firstprivate variables too large for a kernel parameter, whose size is known only at run
 * time. With a = private_arg - 1, args[a + 1], args[a + 2], args[a + 3] point to the int64_t
 * bytes G, W, T of one gang's, one worker's and one thread's copies, and at launch
 * *(void **)args[a] receives a device buffer of
 *   num_gangs * (G + num_workers * W + num_workers * vector_length * T)
 * bytes (final launch sizes), released once the kernel is done. See docs/runtime-abi.md. */

/* The host path's versions of the device runtime's private-copy helpers (one gang, one
 * worker, one lane; docs/device-runtime.md): the copy of `level` (0 gang, 1 worker, 2
 * thread) at `offset` in an area laid out as [G][W][T], and a plain copy of `bytes`. */
void *__acc_private_copy(void *area, int64_t g, int64_t w, int64_t t, int64_t level, int64_t offset);
void __acc_private_init(void *dst, const void *src, int64_t bytes);

/* Data clause kinds (the low byte of the `kind` argument). */
enum {
  ACCRT_COPY = 0, ACCRT_COPYIN = 1, ACCRT_COPYOUT = 2, ACCRT_CREATE = 3,
  ACCRT_PRESENT = 4, ACCRT_NO_CREATE = 5, ACCRT_DELETE = 6, ACCRT_DEVICEPTR = 7,
};
/* `kind` flags: the dynamic reference counter (enter/exit data; else the structured one),
 * exit data finalize, zero (create(zero:), copyout(zero:): a new device copy is zero-filled).
 * `flags` of the update calls and __accrt_use_device_addr: if_present. */
#define ACCRT_DYNAMIC    0x100
#define ACCRT_FINALIZE   0x200
#define ACCRT_IF_PRESENT 0x400
#define ACCRT_ZERO       0x800

/* 1 when compute regions run on the GPU, else 0. Decided once, on first call. */
int32_t __accrt_use_device(void);

/* Entry and exit of one data clause item (OpenACC 3.3 sections 2.6.7, 2.7). */
void *__accrt_data_enter(void *host, int64_t bytes, int32_t kind, const char *loc, const char *text);
void __accrt_data_exit(void *host, int64_t bytes, int32_t kind, const char *loc, const char *text);

/* `update device(...)` / `update self(...)` of a present range (absent: error, or skipped
 * with ACCRT_IF_PRESENT in `flags`). */
void __accrt_update_device(void *host, int64_t bytes, int32_t flags, const char *loc, const char *text);
void __accrt_update_self(void *host, int64_t bytes, int32_t flags, const char *loc, const char *text);

/* The same on an async queue: `queue` is the directive's async argument as written (a
 * queue number >= 0, acc_async_noval, acc_async_sync; invalid: error at `loc`). The copies
 * go on the queue (a CUDA stream on the GPU); a device copy an exit frees is released only
 * after the queues' work that may use it. */
void __accrt_data_enter_async(void *host, int64_t bytes, int32_t kind, const char *loc, const char *text, int64_t queue);
void __accrt_data_exit_async(void *host, int64_t bytes, int32_t kind, const char *loc, const char *text, int64_t queue);
void __accrt_update_device_async(void *host, int64_t bytes, int32_t flags, const char *loc, const char *text, int64_t queue);
void __accrt_update_self_async(void *host, int64_t bytes, int32_t flags, const char *loc, const char *text, int64_t queue);

/* `wait(queue) async(on)`: queue `on` (acc_async_sync: the host) waits for the work enqueued
 * on `queue` so far. `__accrt_wait_all`: for every queue's. Invalid arguments: error at `loc`. */
void __accrt_wait(int64_t queue, int64_t on, const char *loc);
void __accrt_wait_all(int64_t on, const char *loc);

/* The `init` (directive 0), `shutdown` (1) and `set` (2) directives at `loc`, once per device
 * type of a `device_type` clause (`device_type` an acc_device_t value; -1, acc_device_current,
 * without the clause): acc_init / acc_init_device, acc_shutdown / acc_shutdown_device, and
 * acc_set_device_type, acc_set_device_num, acc_set_default_async. `given` bit 1: the
 * directive has `device_num` (`device_num` holds it), bit 2: `default_async`. Errors are
 * the routines', reported at `loc` (`t.c:3:9: error: set device_num: 7 is not a valid ...`). */
void __accrt_device_directive(int32_t directive, int32_t device_type, int64_t device_num,
                              int64_t default_async, int32_t given, const char *loc);
/* The host waits for queue `queue` (an async compute construct's host fallback). */
void __accrt_host_wait(int64_t queue, const char *loc);

/* Device address of a host address inside (or one past the end of) a present range. */
void *__accrt_deviceptr(void *host, const char *loc, const char *text);

/* host_data use_device: device address of `host` (a listed pointer's value or array's
 * address) inside a present range; not present: error, or `host` with ACCRT_IF_PRESENT in
 * `flags`. `host` itself when regions run on the host. */
void *__accrt_use_device_addr(void *host, int32_t flags, const char *loc, const char *text);

/* A global of a file-scope declare (create/device_resident: ACCRT_CREATE; copyin:
 * ACCRT_COPYIN with `init` the initial bytes, null for zeros), from a constructor: present
 * for the whole program from the first data or compute operation on. */
void __accrt_declare(void *host, int64_t bytes, const void *init, int32_t kind, const char *loc, const char *text);

/* Device address of a pointer used in a compute region: its current value when it lies in
 * (or one past the end of) a present range, else its distance from `fallback` (the start
 * of the data clause item it was named in, or null) applied to that item's device copy.
 * Null maps to null. Neither present: error naming `text` and `loc`. */
void *__accrt_translate(void *host, void *fallback, const char *loc, const char *text);

/* __accrt_translate for a no_create item: not present gives `host` itself, no error. */
void *__accrt_translate_no_create(void *host, void *fallback, const char *loc, const char *text);

/* Attach and detach actions (OpenACC 3.3 sections 2.6.8, 2.7.2): `ptr` is the address of a
 * pointer (attach(s->p), or the base of a member section). Attach: when the pointer and its
 * target are present, its device copy points at the target's device copy (counted). Detach
 * (ACCRT_FINALIZE in `flags`: to zero): at the last, the device copy gets the host value
 * back. Otherwise no action. Synchronous. */
void __accrt_attach(void **ptr, int32_t flags, const char *loc, const char *text);
void __accrt_detach(void **ptr, int32_t flags, const char *loc, const char *text);

/* A trailing dimension `number` of a multi-dimensional section, known only at run time:
 * not whole (lower != 0 or length != extent) is an error at `loc` naming `text`. */
void __accrt_check_dim(int64_t lower, int64_t length, int64_t extent, int32_t number, const char *loc, const char *text);

/* A section through pointer rows (`p[0:n][0:m]` of `double **p`): the row pointers
 * `host`/`bytes`, then `nlevels` levels of `lower, length, elem_size` in `levels`; each row
 * is mapped like an item and its pointer attached (exit: detached first, deepest rows
 * first); update copies the data rows only. `queue`: the async argument, or acc_async_sync. */
void __accrt_data_enter_rows(void *host, int64_t bytes, const int64_t *levels, int32_t nlevels, int32_t kind, const char *loc, const char *text, int64_t queue);
void __accrt_data_exit_rows(void *host, int64_t bytes, const int64_t *levels, int32_t nlevels, int32_t kind, const char *loc, const char *text, int64_t queue);
void __accrt_update_device_rows(void *host, int64_t bytes, const int64_t *levels, int32_t nlevels, int32_t flags, const char *loc, const char *text, int64_t queue);
void __accrt_update_self_rows(void *host, int64_t bytes, const int64_t *levels, int32_t nlevels, int32_t flags, const char *loc, const char *text, int64_t queue);

/* A num_gangs/num_workers/vector_length clause's value, before the region runs (on the
 * device or the host): not positive is an error at `loc`. */
void __accrt_check_launch_size(int64_t value, const char *clause, const char *loc);

/* Launch `k` (sizes <= 0: runtime default) and wait for it. */
void __accrt_launch(accrt_kernel *k, int64_t num_gangs, int64_t num_workers,
                    int64_t vector_length, void **args);
/* Launch `k` on async queue `queue` (as for the data calls) without waiting for it (a
 * kernel with ACCRT_KERNEL_LINK_SLOT is still waited for: the slot is shared; one with
 * reduce_vars > 0 is not: its queue has a scratch buffer of its own). */
void __accrt_launch_async(accrt_kernel *k, int64_t num_gangs, int64_t num_workers,
                          int64_t vector_length, void **args, int64_t queue);
/* The same with a grid of up to three gang dimensions (num_gangs(x, y, z), gang(dim: 2|3)
 * loops); gangs_y/gangs_z <= 0: the runtime's default for that dimension. */
void __accrt_launch_grid(accrt_kernel *k, int64_t gangs_x, int64_t gangs_y, int64_t gangs_z,
                         int64_t num_workers, int64_t vector_length, void **args);
void __accrt_launch_grid_async(accrt_kernel *k, int64_t gangs_x, int64_t gangs_y, int64_t gangs_z,
                               int64_t num_workers, int64_t vector_length, void **args, int64_t queue);

/* Routines across files (docs/runtime-abi.md): a file's routine library, registered by a
 * constructor; the stub of a `routine nohost` function with no host version. */
typedef struct accrt_routines {
  const void *image;
  uint64_t image_size;
} accrt_routines;
void __accrt_register_routines(const accrt_routines *r);
void __accrt_no_host_version(const char *name, const char *loc);

#ifdef __cplusplus
}
#endif

#endif /* ACCRT_H */
