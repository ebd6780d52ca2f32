/* Device versions of the C99 math.h and complex.h functions libdevice does not provide.
 *
 * codegen/build.rs compiles this file to LLVM IR for the *host* target (so every signature
 * is the host ABI's, the ABI the device module, a clone of the host module, calls them
 * with), and codegen/src/devmath.rs links it into device modules with weak linkage. The
 * real-valued functions it calls (exp, sin, hypot, ...) are mapped to libdevice's __nv_*
 * afterwards, like the program's own calls. Only C99 functions of double and float:
 * long double cannot run on the GPU (devcheck.rs rejects it).
 *
 * The complex functions use the textbook formulas (C11 G.5.1's algorithms for multiply and
 * divide); they are accurate for ordinary arguments but do not reproduce every Annex G
 * special case of glibc (signed zeros and infinities in one part). Do not include
 * <complex.h> or <math.h>: the declarations below are all this file needs, and the
 * definitions must not be taken for builtins. */

double exp(double), log(double), sin(double), cos(double), sinh(double), cosh(double);
double sqrt(double), hypot(double, double), atan2(double, double), fabs(double);
double copysign(double, double), logb(double), scalbn(double, int);
long long llround(double), llrint(double);
float expf(float), logf(float), sinf(float), cosf(float), sinhf(float), coshf(float);
float sqrtf(float), hypotf(float, float), atan2f(float, float), fabsf(float);
float copysignf(float, float), logbf(float), scalbnf(float, int);
long long llroundf(float), llrintf(float);

/* math.h: `long` is 64 bits on the hosts accc supports (LP64), as `long long` is. */
long lround(double x) { return llround(x); }
long lroundf(float x) { return llroundf(x); }
long lrint(double x) { return llrint(x); }
long lrintf(float x) { return llrintf(x); }

static int clamp_exp(long n) { return n > 0x7fffffff ? 0x7fffffff : n < -0x7fffffff ? -0x7fffffff : (int)n; }
double scalbln(double x, long n) { return scalbn(x, clamp_exp(n)); }
float scalblnf(float x, long n) { return scalbnf(x, clamp_exp(n)); }

#define INF __builtin_inf()
#define ISNAN(x) __builtin_isnan(x)
#define ISINF(x) __builtin_isinf(x)
#define ISFINITE(x) __builtin_isfinite(x)

/* One set of definitions per real type R with complex type C and libm suffix S. */
#define COMPLEX_FUNCTIONS(R, C, S, MUL, DIV)                                                   \
  static C mk##S(R re, R im) {                                                                \
    C z;                                                                                      \
    __real__ z = re;                                                                          \
    __imag__ z = im;                                                                          \
    return z;                                                                                 \
  }                                                                                           \
  /* C11 G.5.1 example 1: the product, recovering infinities lost to NaN. */                  \
  C MUL(R a, R b, R c, R d) {                                                                 \
    R ac = a * c, bd = b * d, ad = a * d, bc = b * c;                                         \
    R x = ac - bd, y = ad + bc;                                                               \
    if (ISNAN(x) && ISNAN(y)) {                                                               \
      int recalc = 0;                                                                         \
      if (ISINF(a) || ISINF(b)) {                                                             \
        a = copysign##S(ISINF(a) ? 1 : 0, a);                                                 \
        b = copysign##S(ISINF(b) ? 1 : 0, b);                                                 \
        if (ISNAN(c)) c = copysign##S(0, c);                                                  \
        if (ISNAN(d)) d = copysign##S(0, d);                                                  \
        recalc = 1;                                                                           \
      }                                                                                       \
      if (ISINF(c) || ISINF(d)) {                                                             \
        c = copysign##S(ISINF(c) ? 1 : 0, c);                                                 \
        d = copysign##S(ISINF(d) ? 1 : 0, d);                                                 \
        if (ISNAN(a)) a = copysign##S(0, a);                                                  \
        if (ISNAN(b)) b = copysign##S(0, b);                                                  \
        recalc = 1;                                                                           \
      }                                                                                       \
      if (!recalc && (ISINF(ac) || ISINF(bd) || ISINF(ad) || ISINF(bc))) {                    \
        if (ISNAN(a)) a = copysign##S(0, a);                                                  \
        if (ISNAN(b)) b = copysign##S(0, b);                                                  \
        if (ISNAN(c)) c = copysign##S(0, c);                                                  \
        if (ISNAN(d)) d = copysign##S(0, d);                                                  \
        recalc = 1;                                                                           \
      }                                                                                       \
      if (recalc) {                                                                           \
        x = INF * (a * c - b * d);                                                            \
        y = INF * (a * d + b * c);                                                            \
      }                                                                                       \
    }                                                                                         \
    return mk##S(x, y);                                                                       \
  }                                                                                           \
  /* C11 G.5.1 example 2: the quotient, scaled by a power of two against overflow. */         \
  C DIV(R a, R b, R c, R d) {                                                                 \
    int ilogbw = 0;                                                                           \
    R logbw = logb##S(fmax##S(fabs##S(c), fabs##S(d)));                                       \
    if (ISFINITE(logbw)) {                                                                    \
      ilogbw = (int)logbw;                                                                    \
      c = scalbn##S(c, -ilogbw);                                                              \
      d = scalbn##S(d, -ilogbw);                                                              \
    }                                                                                         \
    R denom = c * c + d * d;                                                                  \
    R x = scalbn##S((a * c + b * d) / denom, -ilogbw);                                        \
    R y = scalbn##S((b * c - a * d) / denom, -ilogbw);                                        \
    if (ISNAN(x) && ISNAN(y)) {                                                               \
      if (denom == 0 && (!ISNAN(a) || !ISNAN(b))) {                                           \
        x = copysign##S(INF, c) * a;                                                          \
        y = copysign##S(INF, c) * b;                                                          \
      } else if ((ISINF(a) || ISINF(b)) && ISFINITE(c) && ISFINITE(d)) {                      \
        a = copysign##S(ISINF(a) ? 1 : 0, a);                                                 \
        b = copysign##S(ISINF(b) ? 1 : 0, b);                                                 \
        x = INF * (a * c + b * d);                                                            \
        y = INF * (b * c - a * d);                                                            \
      } else if (ISINF(logbw) && logbw > 0 && ISFINITE(a) && ISFINITE(b)) {                   \
        c = copysign##S(ISINF(c) ? 1 : 0, c);                                                 \
        d = copysign##S(ISINF(d) ? 1 : 0, d);                                                 \
        x = 0 * (a * c + b * d);                                                              \
        y = 0 * (b * c - a * d);                                                              \
      }                                                                                       \
    }                                                                                         \
    return mk##S(x, y);                                                                       \
  }                                                                                           \
  static C mul##S(C z, C w) { return MUL(__real__ z, __imag__ z, __real__ w, __imag__ w); }    \
  R cabs##S(C z) { return hypot##S(__real__ z, __imag__ z); }                                 \
  R carg##S(C z) { return atan2##S(__imag__ z, __real__ z); }                                 \
  C conj##S(C z) { return mk##S(__real__ z, -__imag__ z); }                                  \
  R creal##S(C z) { return __real__ z; }                                                      \
  R cimag##S(C z) { return __imag__ z; }                                                      \
  C cproj##S(C z) {                                                                           \
    if (ISINF(__real__ z) || ISINF(__imag__ z)) return mk##S(INF, copysign##S(0, __imag__ z)); \
    return z;                                                                                 \
  }                                                                                           \
  C cexp##S(C z) {                                                                            \
    R e = exp##S(__real__ z), y = __imag__ z;                                                 \
    if (y == 0) return mk##S(e, y);                                                           \
    return mk##S(e * cos##S(y), e * sin##S(y));                                               \
  }                                                                                           \
  C clog##S(C z) { return mk##S(log##S(cabs##S(z)), carg##S(z)); }                             \
  C csqrt##S(C z) {                                                                           \
    R a = __real__ z, b = __imag__ z;                                                         \
    if (a == 0 && b == 0) return mk##S(0, b);                                                 \
    if (ISINF(b)) return mk##S(INF, b);                                                       \
    R t = sqrt##S((fabs##S(a) + hypot##S(a, b)) * (R)0.5);                                    \
    if (a >= 0) return mk##S(t, b / (2 * t));                                                 \
    return mk##S(fabs##S(b) / (2 * t), copysign##S(t, b));                                    \
  }                                                                                           \
  C cpow##S(C z, C w) {                                                                       \
    if (__real__ w == 0 && __imag__ w == 0) return mk##S(1, 0);                               \
    if (__real__ z == 0 && __imag__ z == 0 && __real__ w > 0) return mk##S(0, 0);             \
    return cexp##S(mul##S(w, clog##S(z)));                                                    \
  }                                                                                           \
  C csinh##S(C z) {                                                                           \
    R a = __real__ z, b = __imag__ z;                                                         \
    return mk##S(sinh##S(a) * cos##S(b), cosh##S(a) * sin##S(b));                             \
  }                                                                                           \
  C ccosh##S(C z) {                                                                           \
    R a = __real__ z, b = __imag__ z;                                                         \
    return mk##S(cosh##S(a) * cos##S(b), sinh##S(a) * sin##S(b));                             \
  }                                                                                           \
  C ctanh##S(C z) {                                                                           \
    R a = 2 * __real__ z, b = 2 * __imag__ z;                                                 \
    if (fabs##S(__real__ z) > 20) return mk##S(copysign##S(1, a), 0 * sin##S(b));            \
    R d = cosh##S(a) + cos##S(b);                                                             \
    return mk##S(sinh##S(a) / d, sin##S(b) / d);                                              \
  }                                                                                           \
  /* sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz). */                        \
  C csin##S(C z) {                                                                            \
    C w = csinh##S(mk##S(-__imag__ z, __real__ z));                                           \
    return mk##S(__imag__ w, -__real__ w);                                                    \
  }                                                                                           \
  C ccos##S(C z) { return ccosh##S(mk##S(-__imag__ z, __real__ z)); }                         \
  C ctan##S(C z) {                                                                            \
    C w = ctanh##S(mk##S(-__imag__ z, __real__ z));                                           \
    return mk##S(__imag__ w, -__real__ w);                                                    \
  }                                                                                           \
  /* asinh(z) = log(z + sqrt(z*z + 1)), on the right half plane (odd symmetry). */           \
  C casinh##S(C z) {                                                                          \
    int neg = __real__ z < 0;                                                                 \
    C u = neg ? mk##S(-__real__ z, -__imag__ z) : z;                                          \
    C uu = mul##S(u, u);                                                                      \
    C s = csqrt##S(mk##S(__real__ uu + 1, __imag__ uu));                                      \
    C r = clog##S(mk##S(__real__ u + __real__ s, __imag__ u + __imag__ s));                   \
    return neg ? mk##S(-__real__ r, -__imag__ r) : r;                                         \
  }                                                                                           \
  /* asin(z) = -i asinh(iz). */                                                               \
  C casin##S(C z) {                                                                           \
    C w = casinh##S(mk##S(-__imag__ z, __real__ z));                                          \
    return mk##S(__imag__ w, -__real__ w);                                                    \
  }                                                                                           \
  /* acos(z) = pi/2 - asin(z). */                                                             \
  C cacos##S(C z) {                                                                           \
    C w = casin##S(z);                                                                        \
    return mk##S((R)1.57079632679489661923 - __real__ w, -__imag__ w);                       \
  }                                                                                           \
  /* acosh(z) = log(z + sqrt(z + 1) sqrt(z - 1)). */                                          \
  C cacosh##S(C z) {                                                                          \
    C p = csqrt##S(mk##S(__real__ z + 1, __imag__ z));                                        \
    C m = csqrt##S(mk##S(__real__ z - 1, __imag__ z));                                        \
    C pm = mul##S(p, m);                                                                      \
    return clog##S(mk##S(__real__ z + __real__ pm, __imag__ z + __imag__ pm));                \
  }                                                                                           \
  /* atanh(z) = (log(1 + z) - log(1 - z)) / 2. */                                             \
  C catanh##S(C z) {                                                                          \
    C p = clog##S(mk##S(1 + __real__ z, __imag__ z));                                         \
    C m = clog##S(mk##S(1 - __real__ z, -__imag__ z));                                        \
    return mk##S((__real__ p - __real__ m) * (R)0.5, (__imag__ p - __imag__ m) * (R)0.5);     \
  }                                                                                           \
  /* atan(z) = -i atanh(iz). */                                                               \
  C catan##S(C z) {                                                                           \
    C w = catanh##S(mk##S(-__imag__ z, __real__ z));                                          \
    return mk##S(__imag__ w, -__real__ w);                                                    \
  }

double fmax(double, double);
float fmaxf(float, float);
COMPLEX_FUNCTIONS(double, double _Complex, , __muldc3, __divdc3)
COMPLEX_FUNCTIONS(float, float _Complex, f, __mulsc3, __divsc3)
