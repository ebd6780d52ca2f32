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
 *   __acc_private_rows(copy, levels, dims, row_bytes, source, level)
 *       a copy of a section through `levels` levels of pointer rows (`private(p[0:n][lo:m])`
 *       of `double **p`: one; `q[0:a][0:b][0:c]` of `int ***q`: two): `copy` holds the
 *       table of level 0 (dims[0] pointers), then level 1's (dims[0] x dims[2]), ..., each
 *       rounded up to 16 bytes, then the rows of `row_bytes`. dims[2l] is the entry count
 *       per sub-table of level l, dims[2l+1] the rebase of what its entries point to (the
 *       next level's section start, `lo` times the size of its elements). Every thread that
 *       uses the copy sets the pointers (the same values: a thread reads its own stores or
 *       equal ones). With `source` (firstprivate: the device copy of the level-0 table,
 *       attached down to the rows' device copies) the rows are filled from it, collectively
 *       over the copy's sharers, ending with a gang barrier as __acc_private_init. */

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

/* The table of level `l` of a copy through `levels` levels of pointer rows starts after the
 * tables before it, each rounded up to 16 bytes; the rows follow the last. Returns the
 * start of level `l` (l == levels: the rows) and its entry count in *entries. */
static char *rows_level(char *copy, i64 levels, const i64 *dims, i64 l, i64 *entries) {
  char *at = copy;
  i64 n = 1;
  for (i64 k = 0; k < l; k++) {
    n *= dims[2 * k];
    at += (n * 8 + 15) & ~15LL;
  }
  *entries = l < levels ? n * dims[2 * l] : n;
  return at;
}

void __acc_private_rows(char *copy, i64 levels, const i64 *dims, i64 row_bytes, char *const *source, i64 level) {
  /* Each entry of a level's table points into the next level (its entry's own sub-table,
   * or its row), minus that level's rebase. */
  for (i64 l = 0; l < levels; l++) {
    i64 n, next_n;
    char **table = (char **)rows_level(copy, levels, dims, l, &n);
    char *next = rows_level(copy, levels, dims, l + 1, &next_n);
    i64 step = l + 1 < levels ? dims[2 * (l + 1)] * 8 : row_bytes;
    for (i64 e = 0; e < n; e++)
      table[e] = next + e * step - dims[2 * l + 1];
  }
  if (!source)
    return;
  i64 threads, me, rows;
  sharers(level, &threads, &me);
  char *data = rows_level(copy, levels, dims, levels, &rows);
  for (i64 r = 0; r < rows; r++) {
    /* Row r's source: down the source's tables by r's digits (level l has dims[2l] entries
     * per sub-table), each pointer moved to its section's start. */
    i64 stride = rows, rest = r;
    char *const *at = source;
    const char *row = 0;
    for (i64 l = 0; l < levels; l++) {
      stride /= dims[2 * l];
      i64 digit = rest / stride;
      rest %= stride;
      const char *p = at[digit] + dims[2 * l + 1];
      if (l + 1 < levels)
        at = (char *const *)p;
      else
        row = p;
    }
    fill(data + r * row_bytes, row, row_bytes, threads, me);
  }
  __acc_sync_gang();
}
