/* Helpers shared by the bench/ programs (built by accc and by GCC 12's OpenACC alike).
 *
 * Each program runs its kernel a few times as warm-up (module load, JIT), then times a loop
 * of kernels with clock_gettime (compute constructs without async wait at their end, so
 * the host clock covers the kernels), checks the answer on the host and prints
 *   RESULT <bench> <metric> <value> <unit>
 * and a last line "PASS <bench>" or "FAIL <bench>: <why>" (exit status 0 or 1). A wrong
 * answer prints no RESULT line: a speed is only reported for a right answer.
 * Sizes and repetitions come from the command line (defaults: the real benchmark). */
#ifndef BENCH_H
#define BENCH_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* `#pragma` text with macros expanded (a bench that several programs share names its levels
 * with a macro). */
#define BENCH_PRAGMA_(x) _Pragma(#x)
#define BENCH_PRAGMA(x) BENCH_PRAGMA_(x)

static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void *bench_alloc(const char *name, size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    printf("FAIL %s: out of memory (%zu bytes)\n", name, bytes);
    exit(1);
  }
  return p;
}

/* argv[k] as a positive integer, else `dflt`. */
static inline long bench_arg(int argc, char **argv, int k, long dflt) {
  if (argc > k) {
    long v = strtol(argv[k], NULL, 10);
    if (v > 0) return v;
  }
  return dflt;
}

static inline int bench_fail(const char *name, const char *why) {
  printf("FAIL %s: %s\n", name, why);
  return 1;
}

static inline int bench_pass(const char *name, const char *metric, double value, const char *unit) {
  printf("RESULT %s %s %.4g %s\n", name, metric, value, unit);
  printf("PASS %s\n", name);
  return 0;
}
#endif
