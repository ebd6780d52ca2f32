/* Device helpers for private copies whose size is known only at run time (`private(p[0:n])`,
 * `firstprivate(p[0:n])`, firstprivate variables too large for a kernel parameter).
 *
 * codegen/src/private_copies.rs calls these at the entry of a kernel; codegen/build.rs
 * compiles this file to LLVM IR for the host target and the pass links it into the device
 * module before the emulator's copy is taken, as it does reduce.c. They reach the target
 * only through the device runtime interface (docs/device-runtime.md). The host path has its
 * own versions (runtime/src/private_area.rs: one gang, one worker, one lane).
 *
 *   __acc_private_copy(area, G, W, T, level, offset)
 *       the calling thread's copy at `offset` in its gang's part of the launch's private
 *       area (runtime/src/private_area.rs): each gang's part is [G][W x workers]
 *       [T x workers x vector]; level 0 is the gang's copy, 1 the worker's, 2 the thread's.
 *   __acc_private_init(dst, src, bytes)
 *       collective over the gang: every thread of the gang calls it with the same
 *       arguments, each copies its share of `bytes`, and it ends with a gang barrier, so the
 *       gang's copy is whole before anyone reads it. */

typedef long long i64;

i64 __acc_gang_id(void);
i64 __acc_num_workers(void);
i64 __acc_worker_id(void);
i64 __acc_vector_length(void);
i64 __acc_vector_id(void);
void __acc_sync_gang(void);

void *__acc_private_copy(char *area, i64 g, i64 w, i64 t, i64 level, i64 offset) {
  i64 workers = __acc_num_workers(), vector = __acc_vector_length();
  char *gang = area + __acc_gang_id() * (g + workers * w + workers * vector * t);
  if (level == 0)
    return gang + offset;
  if (level == 1)
    return gang + g + __acc_worker_id() * w + offset;
  return gang + g + workers * w + (__acc_worker_id() * vector + __acc_vector_id()) * t + offset;
}

void __acc_private_init(char *dst, const char *src, i64 bytes) {
  i64 threads = __acc_num_workers() * __acc_vector_length();
  i64 me = __acc_worker_id() * __acc_vector_length() + __acc_vector_id();
  /* Whole 8-byte words when both ends allow it (the usual case: the area's copies are
   * 16-byte aligned, and so are device blocks), then the bytes. */
  i64 k = 0;
  if ((((unsigned long)dst | (unsigned long)src) & 7) == 0) {
    i64 words = bytes / 8;
    for (i64 j = me; j < words; j += threads)
      ((i64 *)dst)[j] = ((const i64 *)src)[j];
    k = words * 8;
  }
  for (i64 j = k + me; j < bytes; j += threads)
    dst[j] = src[j];
  __acc_sync_gang();
}
