// openacc.h: accc finds it without flags (a system include directory of the validation and
// preprocessing steps), _OPENACC is 202211 (OpenACC 3.3; clang 22 alone defines 202506),
// and the header is clean C and C++ on its own.
// RUN: %accc -O1 %s -o %t && %t | FileCheck %s
// RUN: %accc -O1 -static-libaccrt %s -o %t.static && %t.static | FileCheck %s
// CHECK: _OPENACC 202211 host 1
//
// -nostdinc and -nobuiltininc leave it out (it is one of the compiler's own headers, as
// stddef.h is); -nostdlibinc keeps it.
// RUN: not %accc -nostdinc -c -DONLY_HEADER %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOSTDINC
// RUN: not %accc -nobuiltininc -c -DONLY_HEADER %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOSTDINC
// NOSTDINC: fatal error: 'openacc.h' file not found
// RUN: %accc -nostdlibinc -c -DONLY_HEADER %s -o %t.o
// A user's own openacc.h (-I) comes first.
// RUN: rm -rf %t.inc && mkdir -p %t.inc && echo '#define USERS_OPENACC_H 1' > %t.inc/openacc.h
// RUN: %accc -I%t.inc -c -DONLY_HEADER -DUSERS %s -o %t.o
//
// The header alone, strictly, as C and as C++ (extern "C", no C-only constructs).
// RUN: %clang -fsyntax-only -x c -std=c99 -pedantic -Wall -Wextra -Werror -isystem %S/../../runtime/include %s -DONLY_HEADER
// RUN: %clang -fsyntax-only -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -isystem %S/../../runtime/include %s -DONLY_HEADER
// RUN: %clang -fsyntax-only -x c++ -std=c++20 -Wall -Wextra -Werror -isystem %S/../../runtime/include %s -DONLY_HEADER

#include <openacc.h>

#if defined(USERS)
#ifndef USERS_OPENACC_H
#error "the user's -I directory should come before accc's"
#endif
#else
// Every routine of chapter 3 is declared with its OpenACC 3.3 type (and, in the program
// below, defined by libaccrt: it links).
#define CHECK_TYPE(f, R, P) typedef R(*f##_type) P; f##_type f##_check = &f;
CHECK_TYPE(acc_get_num_devices, int, (acc_device_t))
CHECK_TYPE(acc_set_device_type, void, (acc_device_t))
CHECK_TYPE(acc_get_device_type, acc_device_t, (void))
CHECK_TYPE(acc_set_device_num, void, (int, acc_device_t))
CHECK_TYPE(acc_get_device_num, int, (acc_device_t))
CHECK_TYPE(acc_get_property, size_t, (int, acc_device_t, acc_device_property_t))
CHECK_TYPE(acc_get_property_string, const char *, (int, acc_device_t, acc_device_property_t))
CHECK_TYPE(acc_init, void, (acc_device_t))
CHECK_TYPE(acc_init_device, void, (int, acc_device_t))
CHECK_TYPE(acc_shutdown, void, (acc_device_t))
CHECK_TYPE(acc_shutdown_device, void, (int, acc_device_t))
CHECK_TYPE(acc_async_test, int, (int))
CHECK_TYPE(acc_async_test_device, int, (int, int))
CHECK_TYPE(acc_async_test_all, int, (void))
CHECK_TYPE(acc_async_test_all_device, int, (int))
CHECK_TYPE(acc_wait, void, (int))
CHECK_TYPE(acc_wait_device, void, (int, int))
CHECK_TYPE(acc_wait_async, void, (int, int))
CHECK_TYPE(acc_wait_device_async, void, (int, int, int))
CHECK_TYPE(acc_wait_all, void, (void))
CHECK_TYPE(acc_wait_all_device, void, (int))
CHECK_TYPE(acc_wait_all_async, void, (int))
CHECK_TYPE(acc_wait_all_device_async, void, (int, int))
CHECK_TYPE(acc_wait_any, int, (int, int *))
CHECK_TYPE(acc_wait_any_device, int, (int, int *, int))
CHECK_TYPE(acc_get_default_async, int, (void))
CHECK_TYPE(acc_set_default_async, void, (int))
CHECK_TYPE(acc_on_device, int, (acc_device_t))
CHECK_TYPE(acc_malloc, void *, (size_t))
CHECK_TYPE(acc_free, void, (void *))
CHECK_TYPE(acc_copyin, void *, (void *, size_t))
CHECK_TYPE(acc_copyin_async, void, (void *, size_t, int))
CHECK_TYPE(acc_create, void *, (void *, size_t))
CHECK_TYPE(acc_create_async, void, (void *, size_t, int))
CHECK_TYPE(acc_copyout, void, (void *, size_t))
CHECK_TYPE(acc_copyout_async, void, (void *, size_t, int))
CHECK_TYPE(acc_copyout_finalize, void, (void *, size_t))
CHECK_TYPE(acc_copyout_finalize_async, void, (void *, size_t, int))
CHECK_TYPE(acc_delete, void, (void *, size_t))
CHECK_TYPE(acc_delete_async, void, (void *, size_t, int))
CHECK_TYPE(acc_delete_finalize, void, (void *, size_t))
CHECK_TYPE(acc_delete_finalize_async, void, (void *, size_t, int))
CHECK_TYPE(acc_update_device, void, (void *, size_t))
CHECK_TYPE(acc_update_device_async, void, (void *, size_t, int))
CHECK_TYPE(acc_update_self, void, (void *, size_t))
CHECK_TYPE(acc_update_self_async, void, (void *, size_t, int))
CHECK_TYPE(acc_map_data, void, (void *, void *, size_t))
CHECK_TYPE(acc_unmap_data, void, (void *))
CHECK_TYPE(acc_deviceptr, void *, (void *))
CHECK_TYPE(acc_hostptr, void *, (void *))
CHECK_TYPE(acc_is_present, int, (void *, size_t))
CHECK_TYPE(acc_memcpy_to_device, void, (void *, void *, size_t))
CHECK_TYPE(acc_memcpy_to_device_async, void, (void *, void *, size_t, int))
CHECK_TYPE(acc_memcpy_from_device, void, (void *, void *, size_t))
CHECK_TYPE(acc_memcpy_from_device_async, void, (void *, void *, size_t, int))
CHECK_TYPE(acc_memcpy_device, void, (void *, void *, size_t))
CHECK_TYPE(acc_memcpy_device_async, void, (void *, void *, size_t, int))
CHECK_TYPE(acc_attach, void, (void **))
CHECK_TYPE(acc_attach_async, void, (void **, int))
CHECK_TYPE(acc_detach, void, (void **))
CHECK_TYPE(acc_detach_async, void, (void **, int))
CHECK_TYPE(acc_detach_finalize, void, (void **))
CHECK_TYPE(acc_detach_finalize_async, void, (void **, int))
CHECK_TYPE(acc_memcpy_d2d, void, (void *, void *, size_t, int, int))
CHECK_TYPE(acc_memcpy_d2d_async, void, (void *, void *, size_t, int, int, int))
CHECK_TYPE(acc_present_or_copyin, void *, (void *, size_t))
CHECK_TYPE(acc_pcopyin, void *, (void *, size_t))
CHECK_TYPE(acc_present_or_create, void *, (void *, size_t))
CHECK_TYPE(acc_pcreate, void *, (void *, size_t))

// The enumerators the spec names, distinct; the async values negative and distinct.
enum {
  all_device_types = acc_device_none + acc_device_default + acc_device_host + acc_device_not_host +
                     acc_device_nvidia + acc_device_current,
  all_properties = acc_property_memory + acc_property_free_memory + acc_property_shared_memory_support +
                   acc_property_name + acc_property_vendor + acc_property_driver
};
typedef char async_values_are_negative[acc_async_noval < 0 && acc_async_sync < 0 && acc_async_default < 0 ? 1 : -1];
typedef char async_values_differ[acc_async_noval != acc_async_sync && acc_async_sync != acc_async_default ? 1 : -1];
#endif

#ifndef ONLY_HEADER
#include <stdio.h>
#if _OPENACC != 202211
#error "_OPENACC should be 202211"
#endif
int main(void) {
  printf("_OPENACC %d host %d\n", _OPENACC, acc_on_device(acc_device_host));
  return 0;
}
#endif
