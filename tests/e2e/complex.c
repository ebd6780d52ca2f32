/* complex.h in a compute region: arithmetic (z * w and z / w are calls to __muldc3 and
 * __divdc3 / __mulsc3 and __divsc3, which accc's device library provides) and every C99
 * complex.h function, double and float forms, compared with the host's libm (1e-10 and
 * 1e-4, relative, absolute near zero: the device versions use textbook formulas). Before,
 * the build failed: "function '__muldc3' ... has no device version". */
#define E2E_NAME "complex"
#include <complex.h>
#include "e2e.h"

#define N 128

/* z in the first quadrant and beyond (|z| < 3), w off the axes. */
#define DCOMPLEX(X)                                                                          \
  X(z * w) X(z / w) X(w / (z + 0.5)) X(cabs(z)) X(carg(z)) X(conj(z)) X(creal(z)) X(cimag(z)) \
  X(cproj(z)) X(cexp(z)) X(clog(z)) X(csqrt(z)) X(csqrt(-z)) X(cpow(z, w)) X(csin(z))       \
  X(ccos(z)) X(ctan(z)) X(csinh(z)) X(ccosh(z)) X(ctanh(z)) X(casin(z * 0.3)) X(cacos(z * 0.3)) \
  X(catan(z * 0.3)) X(casinh(z)) X(cacosh(z)) X(catanh(z * 0.3)) X(casin(-z * 0.3))

#define FCOMPLEX(X)                                                                          \
  X(zf * wf) X(zf / wf) X(cabsf(zf)) X(cargf(zf)) X(conjf(zf)) X(crealf(zf)) X(cimagf(zf))  \
  X(cprojf(zf)) X(cexpf(zf)) X(clogf(zf)) X(csqrtf(zf)) X(cpowf(zf, wf)) X(csinf(zf))       \
  X(ccosf(zf)) X(ctanf(zf)) X(csinhf(zf)) X(ccoshf(zf)) X(ctanhf(zf)) X(casinf(zf * 0.3f))  \
  X(cacosf(zf * 0.3f)) X(catanf(zf * 0.3f)) X(casinhf(zf)) X(cacoshf(zf)) X(catanhf(zf * 0.3f))

#define COUNT(e) +1
enum { ND = 0 DCOMPLEX(COUNT), NF = 0 FCOMPLEX(COUNT) };
#define NAME(e) #e,
static const char *dnames[] = {DCOMPLEX(NAME)};
static const char *fnames[] = {FCOMPLEX(NAME)};

static int cclose(double complex got, double complex want, double tol) {
  return e2e_close(creal(got), creal(want), tol * (1 + cabs(want))) &&
         e2e_close(cimag(got), cimag(want), tol * (1 + cabs(want)));
}

int main(void) {
  double *x = e2e_alloc(sizeof(double) * N);
  double complex *rd = e2e_alloc(sizeof(double complex) * ND * N);
  double complex *hd = e2e_alloc(sizeof(double complex) * ND * N);
  float complex *rf = e2e_alloc(sizeof(float complex) * NF * N);
  float complex *hf = e2e_alloc(sizeof(float complex) * NF * N);
  for (int i = 0; i < N; i++) x[i] = (double)i / N;

#define STORE_D(e) rd[(k++) * N + i] = (e);
#define STORE_F(e) rf[(k++) * N + i] = (e);
#pragma acc parallel loop copyin(x[0:N]) copyout(rd[0:ND * N], rf[0:NF * N])
  for (int i = 0; i < N; i++) {
    double complex z = (3 * x[i] - 1) + (2 - 2 * x[i]) * I, w = 0.7 - (x[i] + 0.2) * I;
    float complex zf = (float complex)z, wf = (float complex)w;
    int k = 0;
    DCOMPLEX(STORE_D)
    k = 0;
    FCOMPLEX(STORE_F)
  }

#define HOST_D(e) hd[(k++) * N + i] = (e);
#define HOST_F(e) hf[(k++) * N + i] = (e);
  for (int i = 0; i < N; i++) {
    double complex z = (3 * x[i] - 1) + (2 - 2 * x[i]) * I, w = 0.7 - (x[i] + 0.2) * I;
    float complex zf = (float complex)z, wf = (float complex)w;
    int k = 0;
    DCOMPLEX(HOST_D)
    k = 0;
    FCOMPLEX(HOST_F)
  }

  for (int k = 0; k < ND; k++)
    for (int i = 0; i < N; i++)
      if (!cclose(rd[k * N + i], hd[k * N + i], 1e-10)) {
        CHECK(0, "%s at x=%g: device %.17g%+.17gi, host %.17g%+.17gi", dnames[k], x[i], creal(rd[k * N + i]),
              cimag(rd[k * N + i]), creal(hd[k * N + i]), cimag(hd[k * N + i]));
        break;
      }
  for (int k = 0; k < NF; k++)
    for (int i = 0; i < N; i++)
      if (!cclose(rf[k * N + i], hf[k * N + i], 1e-4)) {
        CHECK(0, "%s at x=%g: device %.9g%+.9gi, host %.9g%+.9gi", fnames[k], x[i], crealf(rf[k * N + i]),
              cimagf(rf[k * N + i]), crealf(hf[k * N + i]), cimagf(hf[k * N + i]));
        break;
      }
  free(x), free(rd), free(hd), free(rf), free(hf);
  return e2e_finish();
}
