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
 *   __acc_private_init(dst, src, bytes, level)
 *       collective over the threads that share a copy of `level` (the gang's, a worker's
 *       lanes, or the thread alone): every thread of the gang calls it at the kernel's entry,
 *       each copies its share of its copy's `bytes`, and it ends with a gang barrier, so
 *       every copy is whole before anyone reads it.
 *   __acc_private_rows(copy, n, row_bytes, row_rebase, source, level)
 *       a copy of a section through pointer rows (`private(p[0:n][lo:m])` of `double **p`):
 *       `copy` holds n row pointers (16-byte aligned), then n rows of `row_bytes`; each
 *       pointer is set to its row minus `row_rebase` (the row section's start, `lo` times
 *       the element size), by every thread that uses the copy (the same values: a thread
 *       reads its own stores or equal ones). With `source` (firstprivate: the device copy of
 *       the row pointers, attached to the rows' device copies) the rows are filled from it,
 *       collectively over the copy's sharers, ending with a gang barrier as
 *       __acc_private_init. */

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

/* The threads that fill a copy of `level` together, and the caller's rank among them: the
 * gang's (0), the worker's lanes (1), the thread alone (2). */
static void sharers(i64 level, i64 *threads, i64 *me) {
  if (level == 0) {
    *threads = __acc_num_workers() * __acc_vector_length();
    *me = __acc_worker_id() * __acc_vector_length() + __acc_vector_id();
  } else if (level == 1) {
    *threads = __acc_vector_length();
    *me = __acc_vector_id();
  } else {
    *threads = 1;
    *me = 0;
  }
}

static void fill(char *dst, const char *src, i64 bytes, i64 threads, i64 me) {
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
}

void __acc_private_init(char *dst, const char *src, i64 bytes, i64 level) {
  i64 threads, me;
  sharers(level, &threads, &me);
  fill(dst, src, bytes, threads, me);
  __acc_sync_gang();
}

void __acc_private_rows(char *copy, i64 n, i64 row_bytes, i64 row_rebase, char *const *source, i64 level) {
  char **table = (char **)copy;
  char *rows = copy + ((n * 8 + 15) & ~15LL);
  for (i64 i = 0; i < n; i++)
    table[i] = rows + i * row_bytes - row_rebase;
  if (!source)
    return;
  i64 threads, me;
  sharers(level, &threads, &me);
  for (i64 i = 0; i < n; i++)
    fill(rows + i * row_bytes, source[i] + row_rebase, row_bytes, threads, me);
  __acc_sync_gang();
}
