/* Every C99 math.h function, double and float forms (plus GNU's sincos and exp10), called
 * inside a compute region and compared with the host's libm. Functions with pointer
 * out-parameters (modf, frexp, remquo, sincos) write to the iteration's own variables.
 * The device answers come from libdevice (or runtime-ir/libm.c), so they may differ from
 * glibc by a few ulps: doubles are compared to 1e-12, floats to 1e-5 (relative, absolute
 * near zero); integer results and classifications exactly. Not here: nexttoward and
 * nexttowardf, whose second parameter is long double (which the GPU cannot compute with).
 * Before accc mapped them, modf/frexp/sincos/lround/... aborted the NVPTX back end. */
#define _GNU_SOURCE
#define E2E_NAME "libm_all"
#include "e2e.h"

#define N 256

/* X(expr): one double-valued result per iteration. v is in [0.05, 0.95), w in [1, 10). */
#define DOUBLES(X)                                                                           \
  X(acos(v)) X(asin(v)) X(atan(w)) X(atan2(v, -w)) X(cos(w)) X(sin(w)) X(tan(v))            \
  X(acosh(w)) X(asinh(w - 5)) X(atanh(v - 0.5)) X(cosh(w)) X(sinh(w - 5)) X(tanh(w - 5))     \
  X(exp(w)) X(exp2(w)) X(expm1(v)) X(frexp(w * 37, &e)) X(e) X(ilogb(w * 100))               \
  X(ldexp(v, 7)) X(log(w)) X(log10(w)) X(log1p(v)) X(log2(w)) X(logb(w * 100))              \
  X(modf(w * 7.3, &ip)) X(ip) X(scalbn(v, -3)) X(scalbln(v, 5L)) X(cbrt(w - 5))              \
  X(fabs(v - 0.5)) X(hypot(v, w)) X(pow(w, v)) X(sqrt(w)) X(erf(v)) X(erfc(v))              \
  X(lgamma(w)) X(tgamma(v * 5)) X(ceil(w * 3.3)) X(floor(w * 3.3)) X(nearbyint(w * 3.3))    \
  X(rint(w * 3.3)) X(lrint(w * 3.3)) X(llrint(w * 3.3)) X(round(w * 3.3))                    \
  X(lround(w * 3.3)) X(llround(w * 3.3)) X(trunc(w * -3.3)) X(fmod(w * 3.3, 1.7))           \
  X(remainder(w * 3.3, 1.7)) X(remquo(w * 3.3, 1.7, &q)) X(q % 8) X(copysign(v, -1.0))       \
  X(isnan(nan(""))) X(nextafter(v, 2.0) - v) X(fdim(w, 5)) X(fmax(v, w - 5))               \
  X(fmin(v, w - 5)) X(fma(v, w, -1.0)) X((sincos(w, &s, &c), s)) X(c) X(exp10(v))          \
  X(fpclassify(v - 0.5)) X(isfinite(w)) X(isinf(w / 0.0)) X(isnormal(v)) X(signbit(v - 0.5)) \
  X(isgreater(v, 0.5)) X(islessequal(v, 0.5)) X(islessgreater(v, 0.5)) X(isunordered(v, w))

#define FLOATS(X)                                                                            \
  X(acosf(f)) X(asinf(f)) X(atanf(g)) X(atan2f(f, -g)) X(cosf(g)) X(sinf(g)) X(tanf(f))     \
  X(acoshf(g)) X(asinhf(g - 5)) X(atanhf(f - 0.5f)) X(coshf(g)) X(sinhf(g - 5))              \
  X(tanhf(g - 5)) X(expf(g)) X(exp2f(g)) X(expm1f(f)) X(frexpf(g * 37, &e)) X(e)             \
  X(ilogbf(g * 100)) X(ldexpf(f, 7)) X(logf(g)) X(log10f(g)) X(log1pf(f)) X(log2f(g))        \
  X(logbf(g * 100)) X(modff(g * 7.3f, &ipf)) X(ipf) X(scalbnf(f, -3)) X(scalblnf(f, 5L))    \
  X(cbrtf(g - 5)) X(fabsf(f - 0.5f)) X(hypotf(f, g)) X(powf(g, f)) X(sqrtf(g)) X(erff(f))    \
  X(erfcf(f)) X(lgammaf(g)) X(tgammaf(f * 5)) X(ceilf(g * 3.3f)) X(floorf(g * 3.3f))         \
  X(nearbyintf(g * 3.3f)) X(rintf(g * 3.3f)) X(lrintf(g * 3.3f)) X(llrintf(g * 3.3f))        \
  X(roundf(g * 3.3f)) X(lroundf(g * 3.3f)) X(llroundf(g * 3.3f)) X(truncf(g * -3.3f))        \
  X(fmodf(g * 3.3f, 1.7f)) X(remainderf(g * 3.3f, 1.7f)) X(remquof(g * 3.3f, 1.7f, &q))      \
  X(q % 8) X(copysignf(f, -1.0f)) X(isnan(nanf(""))) X(nextafterf(f, 2.0f) - f)              \
  X(fdimf(g, 5)) X(fmaxf(f, g - 5)) X(fminf(f, g - 5)) X(fmaf(f, g, -1.0f))                  \
  X((sincosf(g, &sf, &cf), sf)) X(cf) X(exp10f(f))

#define COUNT(e) +1
enum { ND = 0 DOUBLES(COUNT), NF = 0 FLOATS(COUNT) };

static const char *dnames[] = {
#define NAME(e) #e,
    DOUBLES(NAME)};
static const char *fnames[] = {FLOATS(NAME)};

int main(void) {
  double *x = e2e_alloc(sizeof(double) * N);
  double *rd = e2e_alloc(sizeof(double) * ND * N), *hd = e2e_alloc(sizeof(double) * ND * N);
  float *rf = e2e_alloc(sizeof(float) * NF * N), *hf = e2e_alloc(sizeof(float) * NF * N);
  for (int i = 0; i < N; i++) x[i] = 0.05 + 0.9 * i / N;

#define STORE_D(e) rd[(k++) * N + i] = (e);
#define STORE_F(e) rf[(k++) * N + i] = (e);
#pragma acc parallel loop copyin(x[0:N]) copyout(rd[0:ND * N], rf[0:NF * N])
  for (int i = 0; i < N; i++) {
    double v = x[i], w = 1 + 9 * x[i], ip = 0, s = 0, c = 0;
    float f = (float)v, g = (float)w, ipf = 0, sf = 0, cf = 0;
    int e = 0, q = 0, k = 0;
    DOUBLES(STORE_D)
    k = 0;
    FLOATS(STORE_F)
  }

#define HOST_D(e) hd[(k++) * N + i] = (e);
#define HOST_F(e) hf[(k++) * N + i] = (e);
  for (int i = 0; i < N; i++) {
    double v = x[i], w = 1 + 9 * x[i], ip = 0, s = 0, c = 0;
    float f = (float)v, g = (float)w, ipf = 0, sf = 0, cf = 0;
    int e = 0, q = 0, k = 0;
    DOUBLES(HOST_D)
    k = 0;
    FLOATS(HOST_F)
  }

  for (int k = 0; k < ND; k++)
    for (int i = 0; i < N; i++)
      if (!e2e_close(rd[k * N + i], hd[k * N + i], 1e-12)) {
        CHECK(0, "%s at x=%.17g: device %.17g, host %.17g", dnames[k], x[i], rd[k * N + i], hd[k * N + i]);
        break;
      }
  for (int k = 0; k < NF; k++)
    for (int i = 0; i < N; i++)
      if (!e2e_close(rf[k * N + i], hf[k * N + i], 1e-5)) {
        CHECK(0, "%s at x=%.9g: device %.9g, host %.9g", fnames[k], x[i], rf[k * N + i], hf[k * N + i]);
        break;
      }
  free(x), free(rd), free(hd), free(rf), free(hf);
  return e2e_finish();
}
