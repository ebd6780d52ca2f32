/* Tiny self-check helpers shared by the tests/e2e programs.
 * Each program calls CHECK(...) for what it verifies and ends with `return e2e_finish();`,
 * which prints exactly one final line, "PASS <name>" or "FAIL <name>: <first failure>",
 * and returns the exit status (0 or 1). */
#ifndef E2E_H
#define E2E_H
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef E2E_NAME
#error "define E2E_NAME before including e2e.h"
#endif

static int e2e_failures;
static char e2e_first[256];

static void e2e_fail(const char *fmt, ...) {
  if (e2e_failures++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e2e_first, sizeof e2e_first, fmt, ap);
    va_end(ap);
  }
}

/* CHECK(cond, "printf format", args...): records the first failure's message. */
#define CHECK(cond, ...)                                                                   \
  do {                                                                                     \
    if (!(cond)) e2e_fail(__VA_ARGS__);                                                    \
  } while (0)

/* Relative/absolute float comparison. */
static inline int e2e_close(double got, double want, double tol) {
  return fabs(got - want) <= tol * (1.0 + fabs(want));
}

static int e2e_finish(void) {
  if (e2e_failures) {
    printf("FAIL %s: %s (%d failures)\n", E2E_NAME, e2e_first, e2e_failures);
    return 1;
  }
  printf("PASS %s\n", E2E_NAME);
  return 0;
}

static inline void *e2e_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    printf("FAIL %s: out of memory\n", E2E_NAME);
    exit(1);
  }
  return p;
}
#endif
