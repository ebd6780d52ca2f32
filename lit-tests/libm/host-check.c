// runtime-ir/libm.c (the device versions of complex.h and of the math.h functions libdevice
// lacks) checked against glibc on the host: the e2e tests cannot, since the emulator runs
// the host's libm, and the GPU run is the only other place these formulas execute. Every
// definition is renamed dev_* so both versions link into one program.
// RUN: %clang -O2 -w -c -include %S/Inputs/rename.h %S/../../runtime-ir/libm.c -o %t.libm.o
// RUN: %clang -O2 -w %s %t.libm.o -o %t -lm
// RUN: %t | FileCheck %s
// CHECK: PASS libm-host
#include <complex.h>
#include <math.h>
#include <stdio.h>

#define D1(X) X(cexp) X(clog) X(csqrt) X(csin) X(ccos) X(ctan) X(csinh) X(ccosh) X(ctanh) \
  X(casin) X(cacos) X(catan) X(casinh) X(cacosh) X(catanh) X(conj) X(cproj)
#define DECL_D(fn) double complex dev_##fn(double complex); float complex dev_##fn##f(float complex);
D1(DECL_D)
double complex dev_cpow(double complex, double complex);
float complex dev_cpowf(float complex, float complex);
double dev_cabs(double complex), dev_carg(double complex);
double complex dev___muldc3(double, double, double, double), dev___divdc3(double, double, double, double);
long dev_lround(double), dev_lrint(double), dev_lroundf(float), dev_lrintf(float);
double dev_scalbln(double, long);

static int failures;
static void check(const char *what, double complex got, double complex want, double tol, double complex z) {
  double err = cabs(got - want), scale = 1 + cabs(want);
  int same = (creal(got) == creal(want) || (isnan(creal(got)) && isnan(creal(want)))) &&
             (cimag(got) == cimag(want) || (isnan(cimag(got)) && isnan(cimag(want))));
  if (!same && !(err <= tol * scale)) {
    if (failures++ < 10)
      printf("FAIL %s(%g%+gi): %.17g%+.17gi, glibc %.17g%+.17gi\n", what, creal(z), cimag(z), creal(got),
             cimag(got), creal(want), cimag(want));
  }
}

int main(void) {
  for (int a = -12; a <= 12; a++)
    for (int b = -12; b <= 12; b++) {
      double complex z = a * 0.27 + b * 0.31 * I, w = 0.7 - b * 0.1 * I;
      float complex zf = (float complex)z;
#define CHECK_D(fn) check(#fn, dev_##fn(z), fn(z), 1e-13, z); check(#fn "f", dev_##fn##f(zf), fn##f(zf), 2e-5, z);
      D1(CHECK_D)
      if (a != 0 || b != 0) check("cpow", dev_cpow(z, w), cpow(z, w), 1e-13, z);
      if (a != 0 || b != 0) check("cpowf", dev_cpowf(zf, w), cpowf(zf, w), 2e-5, z);
      check("cabs", dev_cabs(z), cabs(z), 1e-15, z);
      check("carg", dev_carg(z), carg(z), 1e-15, z);
      check("__muldc3", dev___muldc3(creal(z), cimag(z), creal(w), cimag(w)), z * w, 1e-15, z);
      check("__divdc3", dev___divdc3(creal(w), cimag(w), creal(z), cimag(z)), w / z, 1e-15, z);
      check("lround", dev_lround(a * 1.5), lround(a * 1.5), 0, z);
      check("lrint", dev_lrint(a * 1.5), lrint(a * 1.5), 0, z);
      check("lroundf", dev_lroundf(a * 1.5f), lroundf(a * 1.5f), 0, z);
      check("lrintf", dev_lrintf(a * 1.5f), lrintf(a * 1.5f), 0, z);
      check("scalbln", dev_scalbln(a * 1.5, b), scalbln(a * 1.5, b), 0, z);
    }
  // Infinities survive multiplication (C11 G.5.1): (inf + i) * (1 + i) is not NaN + NaN i.
  double complex m = dev___muldc3(INFINITY, 1, 1, 1);
  if (!isinf(creal(m)) && !isinf(cimag(m))) failures++, printf("FAIL __muldc3(inf)\n");
  double complex d = dev___divdc3(1, 1, 0, 0);
  if (!isinf(creal(d))) failures++, printf("FAIL __divdc3(x/0)\n");
  printf(failures ? "FAIL libm-host (%d)\n" : "PASS libm-host\n", failures);
  return failures != 0;
}
