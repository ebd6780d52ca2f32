/* `routine seq` in one file (OpenACC 3.3 §2.15): the unnamed form before a definition and
 * before a prototype, the named form, `bind` to an identifier and to a string (device code
 * calls the bound function, host code the original), `nohost` (the definition stays for this
 * file's host fallback), a recursive routine, a routine calling another, and an implicit
 * routine (a function of this file without a directive). Every element of odd-sized arrays is
 * checked, on the host path and on the device. */
#include <openacc.h>
#define E2E_NAME "routine_seq"
#include "e2e.h"

enum { N = 1001, M = 37 };

#pragma acc routine seq
static int sq(int x) { return x * x; }

#pragma acc routine seq
long poly(long x);

static int implicit_cube(int x) { return x * x * x; }

int twice(int x);
#pragma acc routine(twice) seq

#pragma acc routine seq
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* Device versions for bind. */
int tri_dev(int x) { return 3 * x + 1; }
double scale_dev(double x) { return 4.0 * x + 0.5; }

#pragma acc routine seq bind(tri_dev)
int tri(int x) { return 3 * x; }
#pragma acc routine seq bind("scale_dev")
double scale(double x) { return 4.0 * x; }

#pragma acc routine seq nohost
int plus7(int x) { return x + 7; }

long poly(long x) { return sq((int)x) + 2 * x + 1; }
int twice(int x) { return 2 * x + implicit_cube(0); }

int main(void) {
  int *a = e2e_alloc(N * sizeof *a);
  long *p = e2e_alloc(N * sizeof *p);
  double *d = e2e_alloc(N * sizeof *d);
  int f[M];
  int on_host = acc_get_device_type() == acc_device_host;
#pragma acc parallel loop copyout(a[0:N], p[0:N], d[0:N])
  for (int i = 0; i < N; i++) {
    int x = i - N / 2;
    a[i] = sq(x) + twice(x) + implicit_cube(x % 13) + tri(x) + plus7(x);
    p[i] = poly(x);
    d[i] = scale(x * 0.25);
  }
#pragma acc parallel loop gang vector copyout(f)
  for (int i = 0; i < M; i++) f[i] = fib(i % 21);
  int fibs[21] = {0, 1};
  for (int i = 2; i < 21; i++) fibs[i] = fibs[i - 1] + fibs[i - 2];
  for (int i = 0; i < N; i++) {
    int x = i - N / 2;
    int c = (x % 13) * (x % 13) * (x % 13);
    int want = x * x + 2 * x + c + 3 * x + (on_host ? 0 : 1) + x + 7;
    CHECK(a[i] == want, "a[%d] = %d, want %d", i, a[i], want);
    CHECK(p[i] == (long)x * x + 2 * x + 1, "p[%d] = %ld", i, p[i]);
    double dw = 4.0 * (x * 0.25) + (on_host ? 0.0 : 0.5);
    CHECK(d[i] == dw, "d[%d] = %g, want %g", i, d[i], dw);
  }
  for (int i = 0; i < M; i++) CHECK(f[i] == fibs[i % 21], "f[%d] = %d, want %d", i, f[i], fibs[i % 21]);
  free(a);
  free(p);
  free(d);
  return e2e_finish();
}
