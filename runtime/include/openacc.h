/* openacc.h: the OpenACC 3.3 runtime library routines (chapter 3) as accc implements them
 * in libaccrt (runtime/src/api/). accc finds this header without flags (a system include
 * directory of every compile; -nostdinc leaves it out, as it does a compiler's own headers).
 * C and C++.
 *
 * Devices: acc_device_host is the host (regions run their host code, memory is shared);
 * acc_device_nvidia (also acc_device_not_host) is the GPU, or under
 * ACC_DEVICE_TYPE=emulator the device emulator standing in for it (one device, separate
 * memory). One device per process: the device type and number can be chosen (environment,
 * acc_set_device_type/num, acc_init) until the first data or compute operation, and not
 * changed afterwards.
 *
 * Asynchronous queues: on the GPU each queue is a CUDA stream (acc_async_noval: the default
 * queue, initially one of the runtime's own, not queue 0; acc_set_default_async picks
 * another); acc_async_test* query the streams, acc_wait* synchronise them, the _async waits
 * make one queue wait for another without blocking the host. On the emulator and the host
 * every operation completes before it returns, so every queue is always finished. Invalid
 * async arguments are errors.
 *
 * Errors (data not present, a device type that is not available, an invalid async argument,
 * ...) print "accc runtime: error: ..." and exit with status 1. */
#ifndef ACCC_OPENACC_H
#define ACCC_OPENACC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum acc_device_t {
  acc_device_current = -1, /* the device type in use */
  acc_device_none = 0,
  acc_device_default = 1,
  acc_device_host = 2,
  acc_device_not_host = 3,
  acc_device_nvidia = 4
} acc_device_t;

typedef enum acc_device_property_t {
  acc_property_memory = 0,                /* size_t: device memory in bytes */
  acc_property_free_memory = 1,           /* size_t: free device memory in bytes */
  acc_property_shared_memory_support = 2, /* nonzero: the device shares the host's memory */
  acc_property_name = 3,                  /* string */
  acc_property_vendor = 4,                /* string */
  acc_property_driver = 5                 /* string: driver version */
} acc_device_property_t;

/* Special async-argument values (a queue number is any other nonnegative int). */
enum {
  acc_async_noval = -1,  /* the default queue (acc_get_default_async) */
  acc_async_sync = -2,   /* synchronous */
  acc_async_default = -3 /* acc_set_default_async: back to the initial default */
};

/* 3.2.1-3.2.8: devices. */
int acc_get_num_devices(acc_device_t dev_type);
void acc_set_device_type(acc_device_t dev_type);
acc_device_t acc_get_device_type(void);
void acc_set_device_num(int dev_num, acc_device_t dev_type);
int acc_get_device_num(acc_device_t dev_type);
size_t acc_get_property(int dev_num, acc_device_t dev_type, acc_device_property_t property);
const char *acc_get_property_string(int dev_num, acc_device_t dev_type,
                                    acc_device_property_t property);
void acc_init(acc_device_t dev_type);
void acc_init_device(int dev_num, acc_device_t dev_type);
void acc_shutdown(acc_device_t dev_type);
void acc_shutdown_device(int dev_num, acc_device_t dev_type);

/* 3.2.9-3.2.17: asynchronous queues. */
int acc_async_test(int wait_arg);
int acc_async_test_device(int wait_arg, int dev_num);
int acc_async_test_all(void);
int acc_async_test_all_device(int dev_num);
void acc_wait(int wait_arg);
void acc_wait_device(int wait_arg, int dev_num);
void acc_wait_async(int wait_arg, int async_arg);
void acc_wait_device_async(int wait_arg, int async_arg, int dev_num);
void acc_wait_all(void);
void acc_wait_all_device(int dev_num);
void acc_wait_all_async(int async_arg);
void acc_wait_all_device_async(int async_arg, int dev_num);
int acc_wait_any(int count, int wait_arg[]);
int acc_wait_any_device(int count, int wait_arg[], int dev_num);
int acc_get_default_async(void);
void acc_set_default_async(int async_arg);

/* 3.2.18: in host code (where accc calls it), true for acc_device_host only. */
int acc_on_device(acc_device_t dev_type);

/* 3.2.19-3.2.37: memory. h_void is host memory, d_void device memory (both void here). */
void *acc_malloc(size_t bytes);
void acc_free(void *data_dev);
void *acc_copyin(void *data_arg, size_t bytes);
void acc_copyin_async(void *data_arg, size_t bytes, int async_arg);
void *acc_create(void *data_arg, size_t bytes);
void acc_create_async(void *data_arg, size_t bytes, int async_arg);
void acc_copyout(void *data_arg, size_t bytes);
void acc_copyout_async(void *data_arg, size_t bytes, int async_arg);
void acc_copyout_finalize(void *data_arg, size_t bytes);
void acc_copyout_finalize_async(void *data_arg, size_t bytes, int async_arg);
void acc_delete(void *data_arg, size_t bytes);
void acc_delete_async(void *data_arg, size_t bytes, int async_arg);
void acc_delete_finalize(void *data_arg, size_t bytes);
void acc_delete_finalize_async(void *data_arg, size_t bytes, int async_arg);
void acc_update_device(void *data_arg, size_t bytes);
void acc_update_device_async(void *data_arg, size_t bytes, int async_arg);
void acc_update_self(void *data_arg, size_t bytes);
void acc_update_self_async(void *data_arg, size_t bytes, int async_arg);
void acc_map_data(void *data_arg, void *data_dev, size_t bytes);
void acc_unmap_data(void *data_arg);
void *acc_deviceptr(void *data_arg);
void *acc_hostptr(void *data_dev);
int acc_is_present(void *data_arg, size_t bytes);
void acc_memcpy_to_device(void *data_dev_dest, void *data_host_src, size_t bytes);
void acc_memcpy_to_device_async(void *data_dev_dest, void *data_host_src, size_t bytes,
                                int async_arg);
void acc_memcpy_from_device(void *data_host_dest, void *data_dev_src, size_t bytes);
void acc_memcpy_from_device_async(void *data_host_dest, void *data_dev_src, size_t bytes,
                                  int async_arg);
void acc_memcpy_device(void *data_dev_dest, void *data_dev_src, size_t bytes);
void acc_memcpy_device_async(void *data_dev_dest, void *data_dev_src, size_t bytes,
                             int async_arg);
void acc_attach(void **ptr_addr);
void acc_attach_async(void **ptr_addr, int async_arg);
void acc_detach(void **ptr_addr);
void acc_detach_async(void **ptr_addr, int async_arg);
void acc_detach_finalize(void **ptr_addr);
void acc_detach_finalize_async(void **ptr_addr, int async_arg);
void acc_memcpy_d2d(void *data_arg_dest, void *data_arg_src, size_t bytes, int dev_num_dest,
                    int dev_num_src);
void acc_memcpy_d2d_async(void *data_arg_dest, void *data_arg_src, size_t bytes,
                          int dev_num_dest, int dev_num_src, int async_arg_src);

/* Older names, kept by OpenACC 3.3 for compatibility: acc_copyin and acc_create. */
void *acc_present_or_copyin(void *data_arg, size_t bytes);
void *acc_pcopyin(void *data_arg, size_t bytes);
void *acc_present_or_create(void *data_arg, size_t bytes);
void *acc_pcreate(void *data_arg, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* ACCC_OPENACC_H */
