/* The atomic form x operator table of atomic_forms.c, written once and included per type.
 * Every form of OpenACC 3.3 §2.12 (read, write, update, capture, with and without the
 * clause; expression and block capture forms; x op= e, x = x op e, x = e op x, ++/--), on
 * K locations that R lanes each update at once (one kernel, gang x worker x vector threads:
 * the lanes of a location sit in one warp). How each result is checked without depending
 * on the order the lanes ran in:
 *  - same-e updates (every lane applies the same function f to its location): atomicity
 *    makes the location's history x0, f(x0), f(f(x0)), ... whatever the order, so the
 *    final value is f^R(x0), and the values the capture forms saw are exactly the first R
 *    (old) or last R (new) of that orbit, as a multiset. f is non-commutative freely
 *    (e - x, e / x, 1 << x), the orbit computed by the same statement in plain C on the
 *    host, so the conversions are C's (x * 2.5 on a char, x += 1.5 on an int);
 *  - lane-varying e where f is idempotent with a fixed e (| & min max): commutative
 *    operators, so the final value is the plain C fold in any order;
 *  - the exchange {v = x; x = e;} with a distinct e per lane: the old values plus the
 *    final one are the initial value and every e, as a multiset;
 *  - write with distinct values: the final value is one of them; read of a location that
 *    others increment: a value the location held.
 * Values stay where C defines the arithmetic (no signed overflow, no shift past the width;
 * floats exact: small integers, halves and powers of two).
 *
 * The includer defines AT_T (the type), AT_NAME (a name) and AT_KIND: 0 signed integer,
 * 1 unsigned integer, 2 floating, 3 _Bool. */
#ifndef ATOMIC_FORMS_ONCE
#define ATOMIC_FORMS_ONCE
#define K 7
#define R 12
#define AT_CAT2(a, b) a##b
#define AT_CAT(a, b) AT_CAT2(a, b)
#define AT_PRAGMA_update _Pragma("acc atomic update")
#define AT_PRAGMA_bare _Pragma("acc atomic")
#define AT_ENUM(name, ...) name,

/* Multiplier that keeps x * EM defined and informative: -1 flips a signed value, 3 wraps an
 * unsigned one, -2 doubles a float exactly. */
#define EM (AT_KIND == 2 ? -2 : AT_KIND == 1 ? 3 : -1)
#define X0DIV (AT_KIND == 2 ? 1 : 100)
/* e / x toggles: 1/4 and 4 for floats; -1 and 1 (signed) or MAX and 1 (unsigned). */
#define ER ((AT_T)(AT_KIND == 2 ? 1 : -1))
#define X0RDIV (AT_KIND == 2 ? 4 : 1)
/* Lane-varying values (r is the lane's round, j its location). */
#define W ((AT_T)((r * 37 + j * 11) % 101))
#define WI (r * 5 + j)
#define BIT(r) ((AT_T)1 << ((r) % 7))

/* Updates: (name, pragma, x0, lanes per location, statement). */
#define S_INC(y) y++
#define S_DEC(y) y--
#define S_PINC(y) ++y
#define S_PDEC(y) --y
#define S_ADDC(y) y += 3
#define S_SUBC(y) y -= 3
#define S_MULC(y) y *= EM
#define S_DIVC(y) y /= 2
#define S_ADD(y) y = y + 3
#define S_RADD(y) y = 3 + y
#define S_SUB(y) y = y - 3
#define S_RSUB(y) y = 10 - y
#define S_MUL(y) y = y * EM
#define S_RMUL(y) y = EM * y
#define S_DIV(y) y = y / 2
#define S_RDIV(y) y = ER / y
#define S_ADDD(y) y += 1.5
#define S_MULD(y) y = y * 2.5
#define S_ADDF(y) y += 0.25f
/* Conversions a hardware add of e converted to x's type would get wrong: an int x loses
 * 0.5 per step ((int)(y - 0.5)); a float x rounds the double sum once (1 + 2^-24 + 2^-50
 * rounds up, while 1 + (float)e = 1 + 2^-24 ties to even, down). */
#define S_ADDH(y) y += -0.5
#define S_ADDT(y) y += 0x1.0000004p-24
/* A negative int e against an unsigned x compares as C does (in unsigned, or in int for a
 * narrow x), not as max on x's type would. */
#define S_MAXN(y) y = y < (r - 6) ? (r - 6) : y
#define S_LAND(y) y = y && (j & 1)
#define S_LOR(y) y = (j & 1) || y
#define S_ADDW(y) y += W
#define S_MAX1(y) y = y < W ? W : y
#define S_MAX2(y) y = W > y ? W : y
#define S_MAX3(y) y = y >= W ? y : W
#define S_MIN1(y) y = y > W ? W : y
#define S_MIN2(y) y = (W <= y) ? W : y
#define S_MIN3(y) y = W < y ? W : y
#define S_MAXI(y) y = y < WI ? WI : y
#define S_MINI(y) y = WI < y ? WI : y
#define COMMON_UPDATES(X)                                                                  \
  X(U_INC, update, 1, R, S_INC) X(U_DEC, bare, 100, R, S_DEC) X(U_PINC, bare, 1, R, S_PINC) \
  X(U_PDEC, update, 100, R, S_PDEC) X(U_ADDC, update, 1, R, S_ADDC)                        \
  X(U_SUBC, bare, 100, R, S_SUBC) X(U_MULC, update, 1, R, S_MULC)                          \
  X(U_DIVC, update, X0DIV, R, S_DIVC) X(U_ADD, update, 1, R, S_ADD)                        \
  X(U_RADD, bare, 1, R, S_RADD) X(U_SUB, update, 100, R, S_SUB) X(U_RSUB, update, 3, R, S_RSUB) \
  X(U_MUL, update, 1, R, S_MUL) X(U_RMUL, bare, 1, R, S_RMUL) X(U_DIV, update, X0DIV, R, S_DIV) \
  X(U_RDIV, update, X0RDIV, R, S_RDIV) X(U_ADDD, update, 1, R, S_ADDD)                     \
  X(U_MULD, update, 1, 4, S_MULD) X(U_ADDF, bare, 1, R, S_ADDF) X(U_ADDH, update, 13, R, S_ADDH) \
  X(U_ADDT, update, 1, R, S_ADDT) X(U_MAXN, update, 0, R, S_MAXN) X(U_LAND, update, 1, R, S_LAND) \
  X(U_LOR, update, 0, R, S_LOR) X(U_ADDW, update, 0, R, S_ADDW) X(U_MAX1, update, 50, R, S_MAX1) \
  X(U_MAX2, bare, 50, R, S_MAX2) X(U_MAX3, update, 50, R, S_MAX3) X(U_MIN1, update, 50, R, S_MIN1) \
  X(U_MIN2, update, 50, R, S_MIN2) X(U_MIN3, bare, 50, R, S_MIN3) X(U_MAXI, update, 20, R, S_MAXI) \
  X(U_MINI, update, 20, R, S_MINI)

#define S_SHLC(y) y <<= (r < 6)
#define S_SHRC(y) y >>= (r < 6)
#define S_SHL(y) y = y << (r < 6)
#define S_SHR(y) y = y >> (r < 6)
#define S_RSHL(y) y = 1 << y
#define S_RSHR(y) y = 1 >> y
#define S_XORC(y) y ^= BIT(r)
#define S_ORC(y) y |= BIT(r + j)
#define S_ANDC(y) y &= ~BIT(r)
#define S_AND(y) y = y & ~BIT(r + j)
#define S_OR(y) y = BIT(r) | y
#define S_XOR(y) y = y ^ BIT(r + j)
#define S_RAND(y) y = (AT_T)~BIT(r) & y
#define S_RXOR(y) y = BIT(r) ^ y
#define INT_UPDATES(X)                                                                     \
  X(U_SHLC, update, 1, R, S_SHLC) X(U_SHRC, bare, 64, R, S_SHRC) X(U_SHL, update, 1, R, S_SHL) \
  X(U_SHR, update, 64, R, S_SHR) X(U_RSHL, update, 0, 4, S_RSHL) X(U_RSHR, bare, 0, R, S_RSHR) \
  X(U_XORC, update, 0, R, S_XORC) X(U_ORC, update, 0, R, S_ORC) X(U_ANDC, bare, -1, R, S_ANDC) \
  X(U_AND, update, -1, R, S_AND) X(U_OR, update, 0, R, S_OR) X(U_XOR, update, 0, R, S_XOR)  \
  X(U_RAND, update, -1, R, S_RAND) X(U_RXOR, bare, 0, R, S_RXOR)

/* _Bool: what C defines on it (x op e is computed in int, then != 0). */
#define S_BOR(y) y |= (r == 5)
#define S_BAND(y) y &= (r != 5)
#define S_BXOR(y) y ^= 1
#define S_BXOR2(y) y ^= 2
#define S_BADD(y) y += (r == 3)
#define S_BMUL(y) y *= (j & 1)
#define S_BLAND(y) y = y && (r != 7)
#define S_BLOR(y) y = (r == 7) || y
#define S_BRSUB(y) y = 1 - y
#define S_BMAX(y) y = y < (r == 4) ? (r == 4) : y
#define BOOL_UPDATES(X)                                                                    \
  X(U_BINC, update, 0, R, S_INC) X(U_BDEC, bare, 0, R, S_DEC) X(U_BOR, update, 0, R, S_BOR) \
  X(U_BAND, update, 1, R, S_BAND) X(U_BXOR, bare, 0, R, S_BXOR) X(U_BXOR2, update, 0, R, S_BXOR2) \
  X(U_BADD, update, 0, R, S_BADD) X(U_BMUL, update, 1, R, S_BMUL) X(U_BLAND, update, 1, R, S_BLAND) \
  X(U_BLOR, update, 0, R, S_BLOR) X(U_BRSUB, update, 0, R, S_BRSUB) X(U_BMAX, update, 0, R, S_BMAX)

/* Captures: (name, x0, lanes per location, statement (v, x), v gets the new value). */
#define C_POSTINC(v, y) v = y++
#define C_POSTDEC(v, y) v = y--
#define C_PREINC(v, y) v = ++y
#define C_PREDEC(v, y) v = --y
#define C_ADDC(v, y) v = y += 3
#define C_MUL(v, y) v = y = y * EM
#define C_RSUB(v, y) v = y = 10 - y
#define C_BDIVC(v, y) { v = y; y /= 2; }
#define C_BMULC(v, y) { y *= EM; v = y; }
#define C_BSUB(v, y) { v = y; y = y - 3; }
#define C_BRDIV(v, y) { v = y; y = ER / y; }
#define C_BADD(v, y) { y = y + 3; v = y; }
#define C_BRSUB(v, y) { y = 10 - y; v = y; }
#define C_BPOST(v, y) { v = y; y++; }
#define C_BPRE(v, y) { v = y; ++y; }
#define C_BPREV(v, y) { ++y; v = y; }
#define C_BPOSTV(v, y) { y++; v = y; }
#define C_BDEC(v, y) { v = y; y--; }
#define C_BPDEC(v, y) { --y; v = y; }
#define C_BADDD(v, y) { v = y; y += 1.5; }
#define C_LAND(v, y) v = y = y && (j & 1)
#define C_BRDIVN(v, y) { y = ER / y; v = y; }
#define COMMON_CAPTURES(X)                                                                 \
  X(C_POSTINC, 1, R, C_POSTINC, 0) X(C_POSTDEC, 100, R, C_POSTDEC, 0)                      \
  X(C_PREINC, 1, R, C_PREINC, 1) X(C_PREDEC, 100, R, C_PREDEC, 1) X(C_ADDC, 1, R, C_ADDC, 1) \
  X(C_MUL, 1, R, C_MUL, 1) X(C_RSUB, 3, R, C_RSUB, 1) X(C_BDIVC, X0DIV, R, C_BDIVC, 0)      \
  X(C_BMULC, 1, R, C_BMULC, 1) X(C_BSUB, 100, R, C_BSUB, 0) X(C_BRDIV, X0RDIV, R, C_BRDIV, 0) \
  X(C_BADD, 1, R, C_BADD, 1) X(C_BRSUB, 3, R, C_BRSUB, 1) X(C_BPOST, 1, R, C_BPOST, 0)      \
  X(C_BPRE, 1, R, C_BPRE, 0) X(C_BPREV, 1, R, C_BPREV, 1) X(C_BPOSTV, 1, R, C_BPOSTV, 1)    \
  X(C_BDEC, 100, R, C_BDEC, 0) X(C_BPDEC, 100, R, C_BPDEC, 1) X(C_BADDD, 1, R, C_BADDD, 0)  \
  X(C_LAND, 1, R, C_LAND, 1) X(C_BRDIVN, X0RDIV, R, C_BRDIVN, 1)

#define C_BRSHL(v, y) { y = 1 << y; v = y; }
#define C_RSHR(v, y) v = y = 1 >> y
#define C_BXOR(v, y) { v = y; y ^= 5; }
#define C_SHLC(v, y) v = y <<= 1
#define C_BSHR(v, y) { v = y; y = y >> 1; }
#define C_OR(v, y) v = y |= 6
#define INT_CAPTURES(X)                                                                    \
  X(C_BRSHL, 0, 4, C_BRSHL, 1) X(C_RSHR, 0, R, C_RSHR, 1) X(C_BXOR, 0, R, C_BXOR, 0)       \
  X(C_SHLC, 1, 6, C_SHLC, 1) X(C_BSHR, 64, R, C_BSHR, 0) X(C_OR, 1, R, C_OR, 1)

#define C_BXORB(v, y) v = y ^= 1
#define C_BDECB(v, y) v = y--
#define C_BRSUBB(v, y) { v = y; y = 1 - y; }
#define C_BINCB(v, y) { y++; v = y; }
#define BOOL_CAPTURES(X)                                                                   \
  X(C_BXORB, 0, R, C_BXORB, 1) X(C_BDECB, 0, R, C_BDECB, 0) X(C_BRSUBB, 1, R, C_BRSUBB, 0) \
  X(C_BINCB, 0, R, C_BINCB, 1)
#endif

#if AT_KIND == 3
#define AT_UPDATES(X) BOOL_UPDATES(X)
#define AT_CAPTURES(X) BOOL_CAPTURES(X)
#elif AT_KIND == 2
#define AT_UPDATES(X) COMMON_UPDATES(X)
#define AT_CAPTURES(X) COMMON_CAPTURES(X)
#else
#define AT_UPDATES(X) COMMON_UPDATES(X) INT_UPDATES(X)
#define AT_CAPTURES(X) COMMON_CAPTURES(X) INT_CAPTURES(X)
#endif

/* The exchange's and the write's lane values: distinct per location (2 .. R+1; 0 and 1 by
 * the lane's parity for _Bool). */
#if AT_KIND == 3
#define WX_OF(q) ((AT_T)((q) & 1))
#else
#define WX_OF(q) ((AT_T)((q) + 2))
#endif
#define WX WX_OF(r)

#define AT_KERNEL_UPDATE(name, pragma, x0, rops, S)                                        \
  if (r < (rops)) {                                                                        \
    AT_CAT(AT_PRAGMA_, pragma)                                                             \
    S(x[name][j]);                                                                         \
  }
#define AT_KERNEL_CAPTURE(name, x0, rops, S, newv)                                         \
  if (r < (rops)) {                                                                        \
    _Pragma("acc atomic capture")                                                          \
    S(cv[name][i], xc[name][j]);                                                           \
  }
#define AT_INIT_UPDATE(name, pragma, x0, rops, S) for (int j = 0; j < K; j++) x[name][j] = (AT_T)(x0);
#define AT_INIT_CAPTURE(name, x0, rops, S, newv)                                           \
  for (int j = 0; j < K; j++) xc[name][j] = (AT_T)(x0);                                    \
  for (int i = 0; i < K * R; i++) cv[name][i] = (AT_T)0;
/* The same statement in plain C, lane after lane. */
#define AT_CHECK_UPDATE(name, pragma, x0, rops, S)                                         \
  for (int j = 0; j < K; j++) {                                                            \
    AT_T y = (AT_T)(x0);                                                                   \
    for (int r = 0; r < (rops); r++) S(y);                                                 \
    CHECK(x[name][j] == y, "%s: '" #S "' at location %d: %g, want %g", AT_STR(AT_NAME), j,  \
          (double)x[name][j], (double)y);                                                  \
  }
#define AT_CHECK_CAPTURE(name, x0, rops, S, newv)                                          \
  for (int j = 0; j < K; j++) {                                                            \
    AT_T orbit[R + 1], v;                                                                  \
    orbit[0] = (AT_T)(x0);                                                                 \
    for (int r = 0; r < (rops); r++) {                                                     \
      AT_T y = orbit[r];                                                                   \
      S(v, y);                                                                             \
      orbit[r + 1] = y;                                                                    \
    }                                                                                      \
    (void)v;                                                                               \
    CHECK(xc[name][j] == orbit[rops], "%s: '" #S "' at location %d: %g, want %g",          \
          AT_STR(AT_NAME), j, (double)xc[name][j], (double)orbit[rops]);                   \
    for (int r = 0; r < (rops); r++) {                                                     \
      AT_T want = orbit[r + (newv)];                                                       \
      int n_want = 0, n_got = 0;                                                           \
      for (int q = 0; q < (rops); q++) {                                                   \
        n_want += orbit[q + (newv)] == want;                                               \
        n_got += cv[name][q * K + j] == want;                                              \
      }                                                                                    \
      CHECK(n_want == n_got, "%s: '" #S "' at location %d captured %g %d times, want %d",  \
            AT_STR(AT_NAME), j, (double)want, n_got, n_want);                              \
    }                                                                                      \
  }
#ifndef AT_STR
#define AT_STR2(x) #x
#define AT_STR(x) AT_STR2(x)
#endif

static void AT_CAT(test_, AT_NAME)(int gangs, int workers, int vlen) {
  enum { AT_UPDATES(AT_ENUM) NU };
  enum { AT_CAPTURES(AT_ENUM) NC };
  AT_T x[NU][K], xc[NC][K], cv[NC][K * R], xs[K], sv[K * R], w[K], rv[K * R];
  AT_UPDATES(AT_INIT_UPDATE)
  AT_CAPTURES(AT_INIT_CAPTURE)
  for (int j = 0; j < K; j++) xs[j] = w[j] = (AT_T)1;
  /* Location j of every form gets lanes i = r * K + j: R lanes per location, neighbours in
   * one warp. */
#pragma acc parallel loop gang worker vector num_gangs(gangs) num_workers(workers) vector_length(vlen) \
    copy(x, xc, cv, xs, sv, w, rv)
  for (int i = 0; i < K * R; i++) {
    int j = i % K, r = i / K;
    AT_UPDATES(AT_KERNEL_UPDATE)
    AT_CAPTURES(AT_KERNEL_CAPTURE)
#pragma acc atomic capture
    {
      sv[i] = xs[j];
      xs[j] = WX;
    }
#pragma acc atomic write
    w[j] = WX;
#pragma acc atomic read
    rv[i] = x[0][j];
  }
  AT_UPDATES(AT_CHECK_UPDATE)
  AT_CAPTURES(AT_CHECK_CAPTURE)
  for (int j = 0; j < K; j++) {
    /* The exchange: the old values and the final one are 1 and every lane's value. */
    AT_T want[R + 1], got[R + 1];
    want[0] = (AT_T)1;
    got[R] = xs[j];
    for (int q = 0; q < R; q++) {
      want[q + 1] = WX_OF(q);
      got[q] = sv[q * K + j];
    }
    for (int a = 0; a <= R; a++) {
      int n_want = 0, n_got = 0;
      for (int b = 0; b <= R; b++) {
        n_want += want[b] == want[a];
        n_got += got[b] == want[a];
      }
      CHECK(n_want == n_got, "%s: exchange at location %d: %g seen %d times, want %d", AT_STR(AT_NAME), j, (double)want[a], n_got, n_want);
    }
    int written = 0;
    for (int q = 0; q < R; q++) written |= w[j] == WX_OF(q);
    CHECK(written, "%s: write at location %d left %g, no lane's value", AT_STR(AT_NAME), j, (double)w[j]);
    for (int r = 0; r < R; r++) {
      /* x[0] is U_INC (U_BINC for _Bool): it held x0 .. x0 + R (1 for _Bool). */
      double got = (double)rv[r * K + j];
      CHECK(got >= (AT_KIND == 3 ? 0 : 1) && got <= (AT_KIND == 3 ? 1 : 1 + R), "%s: read at location %d saw %g", AT_STR(AT_NAME), j, got);
    }
  }
}
#undef AT_UPDATES
#undef AT_CAPTURES
#undef WX
#undef WX_OF
