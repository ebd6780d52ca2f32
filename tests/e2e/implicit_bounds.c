/* Pointers used in compute regions without data clauses (implicit_bounds.rs): the bytes the
 * region's loads and stores reach, bounded by the loops around them, get an implicit copy,
 * as NVHPC's "Generating implicit copy(a[:n])" (found by the OpenACC V&V suite, whose tests
 * kernel_implicit_data_attributes, serial_default_copy, parallel_loop_independent, ... use
 * malloc'ed arrays with no clause; was "'a' is used in a compute region but is not present
 * on the device"). Only the reached bytes move: elements outside the range keep their host
 * values. Atomic updates count as accesses. Data already present is only counted (no copy
 * back before its exit). A loop with no iterations moves nothing. An access under an `if`
 * is not bounded: its data must be present, as before. Odd sizes, offsets, a symbolic row length; every element checked. */
#define E2E_NAME "implicit_bounds"
#include <openacc.h>
#include "e2e.h"

static void stencil(const double *in, double *out, int n) {
#pragma acc parallel loop
  for (int i = 1; i < n - 1; i++) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3;
}

static void grid(double *d, int rows, int cols, int lo) {
#pragma acc parallel loop collapse(2)
  for (int x = lo; x < rows; x++)
    for (int y = 0; y < cols; y++) d[x * cols + y] = x * 1000 + y;
}

static void scale_kernels(float *v, int n, float k) {
#pragma acc kernels
  for (int i = 0; i < n; i++) v[i] *= k;
}

static void odd_only(int *w, int n) {
#pragma acc parallel loop
  for (int i = 0; i < n; i++)
    if (i % 2) w[i] = -i;
}

int main(void) {
  int n = 1001, rows = 37, cols = 53, lo = 3;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 2 * i + 1; c[i] = -7; }
#pragma acc parallel loop
  for (int i = 0; i < n; i++) c[i] = a[i] + b[n - 1 - i];
  for (int i = 0; i < n; i++) CHECK(c[i] == a[i] + b[n - 1 - i], "c[%d] = %g", i, c[i]);

  for (int i = 0; i < n; i++) c[i] = -7;
  stencil(a, c, n);
  CHECK(c[0] == -7 && c[n - 1] == -7, "stencil ends %g %g (outside the range: host values)", c[0], c[n - 1]);
  for (int i = 1; i < n - 1; i++) CHECK(e2e_close(c[i], i, 1e-12), "stencil c[%d] = %g", i, c[i]);

  double *d = malloc(sizeof(double) * rows * cols);
  for (int i = 0; i < rows * cols; i++) d[i] = -1;
  grid(d, rows, cols, lo);
  for (int x = 0; x < rows; x++)
    for (int y = 0; y < cols; y++) {
      double want = x < lo ? -1 : x * 1000 + y;
      CHECK(d[x * cols + y] == want, "d[%d][%d] = %g, want %g", x, y, d[x * cols + y], want);
    }

  float *v = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) v[i] = i;
  scale_kernels(v, n, 0.5f);
  for (int i = 0; i < n; i++) CHECK(v[i] == 0.5f * i, "v[%d] = %g", i, v[i]);

  /* Present: counted, not copied back before the exit data. */
  for (int i = 0; i < n; i++) a[i] = i;
#pragma acc enter data copyin(a[0:n])
#pragma acc parallel loop
  for (int i = 0; i < n; i++) a[i] += 100;
  int still_host = 1;
  for (int i = 0; i < n; i++) still_host &= a[i] == i;
  if (acc_get_device_type() != acc_device_host) CHECK(still_host, "present data was copied back before its exit data");
#pragma acc exit data copyout(a[0:n])
  for (int i = 0; i < n; i++) CHECK(a[i] == i + 100, "a[%d] = %g after exit data", i, a[i]);

  /* No iterations: nothing to move, no error. */
  stencil(a, c, 1);

  /* Atomic updates of fixed elements: bounded too (h[2] and h[4] only move). */
  long *h = malloc(sizeof(long) * 7);
  for (int i = 0; i < 7; i++) h[i] = -5;
  h[2] = h[3] = h[4] = 0;
#pragma acc parallel loop
  for (int i = 0; i < n; i++) {
#pragma acc atomic update
    h[2] += i;
#pragma acc atomic update
    h[4] -= 1;
  }
  CHECK(h[2] == (long)n * (n - 1) / 2 && h[4] == -n && h[3] == 0, "atomics h = %ld %ld %ld", h[2], h[3], h[4]);
  CHECK(h[0] == -5 && h[1] == -5 && h[5] == -5 && h[6] == -5, "outside the atomics' range changed");
  free(h);

  /* Conditional access: not bounded, so the data must be present. */
  int *w = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) w[i] = i;
#pragma acc data copy(w[0:n])
  odd_only(w, n);
  for (int i = 0; i < n; i++) CHECK(w[i] == (i % 2 ? -i : i), "w[%d] = %d", i, w[i]);
  free(a);
  free(b);
  free(c);
  free(d);
  free(v);
  free(w);
  return e2e_finish();
}
