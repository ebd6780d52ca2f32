/* The operator x type table of the reduction_matrix_* programs, written once: every
 * reduction operator (+ * max min & | ^ && ||) on every integer type (char, signed char,
 * unsigned char, short, unsigned short, int, unsigned, long, unsigned long, long long,
 * unsigned long long; && and || on _Bool too), + * max min && || on float and double, and
 * + * on float _Complex and double _Complex. Each reduction_matrix_<position>.c defines one
 * reduction position's loop nest and includes this; every operator x type pair then runs at
 * that position over the position's shapes (two data sets each) and is compared exactly
 * with the same computation in plain C. The data and initial values follow reduction_ops.c:
 *  - nonzero initial values (combined exactly once) and identities that matter: max/min over
 *    data all on one side of the initial value, & with all-ones data but a few cleared bits;
 *  - 64-bit types get values past 2^32 (a 32-bit combine truncates them);
 *  - unsigned max/min mix values with the high bit set and small ones (a signed compare
 *    picks the wrong one); narrow types wrap (modular, so order does not matter);
 *  - * multiplies mostly 1s with a few 2s and -1s (3s when unsigned; i and 1+i when
 *    complex): no signed overflow;
 *  - && and || in both outcomes (all true / one false at an odd place; all false / one true);
 *  - floats hold multiples of 0.25 (complex: Gaussian integers for *) so every sum and
 *    product is exact in any order.
 *
 * The including file defines, before including this:
 *   E2E_NAME
 *   RM_ROWS      0: one result r[0]; 1: one result per outer iteration, r[0:n0]
 *   RM_SHAPES    the shapes, a brace list of {n0, n1, n2, g, w, v[, sets]}: the data is
 *                a[n0][n1][n2] (extents of the outer, middle and inner loop; 1 where the nest
 *                has no such loop), g, w, v are the launch sizes the nest may pass to
 *                num_gangs, num_workers and vector_length, and sets, when given, the data
 *                sets to run (1: the first, 2: the second, for a costly launch; omitted: both)
 *   RM_NEST(T, OP, UPD)  the body of `void f(const T *a, T *r, int n0, int n1, int n2, int g,
 *                int w, int v)`: on entry r[0] (RM_ROWS 0) or r[0:n0] (RM_ROWS 1) hold the
 *                initial values; the nest reduces with reduction(OP:...) and applies the
 *                update as UPD(acc, a[...]) to every element (of the row), then stores the
 *                result(s) back into r
 *   RM_NEST2(T, OP, UPD) optionally, a second form of the same position (e.g. the clause
 *                written once on the outer loop instead of on every level), and RM_NEST2_WHAT,
 *                a string naming it; it must give the same results
 *   RM_WHAT      a string naming the first form (in messages)
 * Every operator x type pair is one kernel per form (about 120 per form: compile time);
 * keep RM_SHAPES small: the emulator runs one fiber per thread, and what costs is each
 * launch's block (w x v threads; 32 x w where workers synchronise, at most 15 workers then)
 * and the rows times the block (a tree's barriers per row), far more than the gangs. */
#include "e2e.h"
#include <complex.h>
#include <limits.h>
#include <float.h>

#define PRAGMA(x) _Pragma(#x)

typedef struct {
  int n0, n1, n2, g, w, v, sets;
} rm_shape;
static const rm_shape rm_shapes[] = {RM_SHAPES};
enum { RM_NSHAPES = sizeof rm_shapes / sizeof *rm_shapes };

/* The largest data set and result array the shapes need. */
static int rm_maxn, rm_maxr;
static void rm_sizes(void) {
  for (int s = 0; s < RM_NSHAPES; s++) {
    const rm_shape *p = &rm_shapes[s];
    int n = p->n0 * p->n1 * p->n2, nr = RM_ROWS ? p->n0 : 1;
    rm_maxn = n > rm_maxn ? n : rm_maxn;
    rm_maxr = nr > rm_maxr ? nr : rm_maxr;
  }
}

/* A pseudo-random int in [-100, 100] for element i (deterministic). */
static long long raw(int i) { return (long long)((i * 7919L + 13) % 201) - 100; }

/* The updates, UPD(acc, x): the same code in the kernel and on the host. */
#define U_ADD(r, x) r += (x)
#define U_MUL(r, x) r *= (x)
#define U_MAX(r, x) r = (x) > r ? (x) : r
#define U_MIN(r, x) r = (x) < r ? (x) : r
#define U_AND(r, x) r &= (x)
#define U_OR(r, x) r |= (x)
#define U_XOR(r, x) r ^= (x)
#define U_LAND(r, x) r = r && (x)
#define U_LOR(r, x) r = r || (x)

/* The host's computation: the elements in order, per row (RM_ROWS) or all into r[0]. */
#define RM_HOST_NEST(UPD)                                                                   \
  for (int i = 0; i < n0; i++)                                                             \
    for (int k = 0; k < n1 * n2; k++)                                                      \
      UPD(r[RM_ROWS ? i : 0], a[(long)i * n1 * n2 + k]);

#ifdef RM_NEST2
#define RM_FORM2_DEF(name, T, OP, UPD)                                                     \
  static void dev2_##name(const T *a, T *r, int n0, int n1, int n2, int g, int w, int v) { \
    RM_NEST2(T, OP, UPD)                                                                   \
  }
#define RM_FORM2_RUN(name, PR)                                                             \
  for (int k = 0; k < rm_maxr; k++)                                                        \
    r[k] = init;                                                                           \
  dev2_##name(a, r, p->n0, p->n1, p->n2, p->g, p->w, p->v);                                \
  rm_check_##PR(#name, RM_NEST2_WHAT, case_, p, r, want, sizeof *r);
#else
#define RM_FORM2_DEF(name, T, OP, UPD)
#define RM_FORM2_RUN(name, PR)
#endif

/* DEFINE(name, T, OP, UPD, INIT, GEN, PR): test_<name>() fills a[i] = GEN (with `i` and
 * `case_` = 0 or 1 in scope, two data sets), and per shape starts every result at INIT
 * (case_ in scope), runs the host's loops and the position's nest(s), and compares every
 * result. PR: how to compare and print (i integer, f floating, c complex). */
#define DEFINE(name, T, OP, UPD, INIT, GEN, PR)                                            \
  static void dev_##name(const T *a, T *r, int n0, int n1, int n2, int g, int w, int v) {  \
    RM_NEST(T, OP, UPD)                                                                    \
  }                                                                                        \
  RM_FORM2_DEF(name, T, OP, UPD)                                                           \
  static void host_##name(const T *a, T *r, int n0, int n1, int n2) { RM_HOST_NEST(UPD) }  \
  static void test_##name(void) {                                                          \
    T *a = e2e_alloc(sizeof(T) * rm_maxn), *r = e2e_alloc(sizeof(T) * rm_maxr);            \
    T *want = e2e_alloc(sizeof(T) * rm_maxr);                                              \
    for (int case_ = 0; case_ < 2; case_++) {                                              \
      for (int i = 0; i < rm_maxn; i++)                                                    \
        a[i] = (T)(GEN);                                                                   \
      T init = (T)(INIT);                                                                  \
      for (int s = 0; s < RM_NSHAPES; s++) {                                               \
        const rm_shape *p = &rm_shapes[s];                                                 \
        if (p->sets && !(p->sets >> case_ & 1))                                            \
          continue;                                                                        \
        for (int k = 0; k < rm_maxr; k++)                                                  \
          want[k] = r[k] = init;                                                           \
        host_##name(a, want, p->n0, p->n1, p->n2);                                         \
        dev_##name(a, r, p->n0, p->n1, p->n2, p->g, p->w, p->v);                           \
        rm_check_##PR(#name, RM_WHAT, case_, p, r, want, sizeof *r);                       \
        RM_FORM2_RUN(name, PR)                                                             \
      }                                                                                    \
    }                                                                                      \
    free(a), free(r), free(want);                                                          \
  }

/* Compares every result of one form of one pair on shape p with the host's, by element
 * size and kind, and names the first difference. */
static int rm_results(const rm_shape *p) { return RM_ROWS ? p->n0 : 1; }
#define RM_WHERE "%s (%s) data set %d shape {%d,%d,%d} g%d w%d v%d result %d: "
#define RM_WHERE_ARGS name, what, c, p->n0, p->n1, p->n2, p->g, p->w, p->v, k

/* Integers (and _Bool): the bits of the element, by size. */
static unsigned long long rm_bits(const void *x, size_t size) {
  switch (size) {
  case 1: return *(const unsigned char *)x;
  case 2: return *(const unsigned short *)x;
  case 4: return *(const unsigned *)x;
  default: return *(const unsigned long long *)x;
  }
}
static void rm_check_i(const char *name, const char *what, int c, const rm_shape *p, const void *r,
                       const void *want, size_t size) {
  for (int k = 0; k < rm_results(p); k++) {
    unsigned long long got = rm_bits((const char *)r + k * size, size);
    unsigned long long w = rm_bits((const char *)want + k * size, size);
    CHECK(got == w, RM_WHERE "got %#llx, want %#llx", RM_WHERE_ARGS, got, w);
  }
}
/* Floating point: float or double by size, compared with ==. */
static double rm_real(const void *x, size_t size) {
  return size == sizeof(float) ? *(const float *)x : *(const double *)x;
}
static void rm_check_f(const char *name, const char *what, int c, const rm_shape *p, const void *r,
                       const void *want, size_t size) {
  for (int k = 0; k < rm_results(p); k++) {
    double got = rm_real((const char *)r + k * size, size), w = rm_real((const char *)want + k * size, size);
    CHECK(got == w, RM_WHERE "got %.17g, want %.17g", RM_WHERE_ARGS, got, w);
  }
}
/* Complex: float _Complex or double _Complex by size (two reals each). */
static void rm_check_c(const char *name, const char *what, int c, const rm_shape *p, const void *r,
                       const void *want, size_t size) {
  for (int k = 0; k < rm_results(p); k++) {
    const char *gx = (const char *)r + k * size, *wx = (const char *)want + k * size;
    double gre = rm_real(gx, size / 2), gim = rm_real(gx + size / 2, size / 2);
    double wre = rm_real(wx, size / 2), wim = rm_real(wx + size / 2, size / 2);
    CHECK(gre == wre && gim == wim, RM_WHERE "got %.17g%+.17gi, want %.17g%+.17gi", RM_WHERE_ARGS, gre, gim,
          wre, wim);
  }
}

/* Type properties, from T alone. */
#define IS_SIGNED(T) ((T)-1 < (T)0)
#define NBITS(T) ((int)(8 * sizeof(T)))
#define TOPBIT(T) ((T)(1ULL << (NBITS(T) - 1)))
#define ALLONES(T) ((T)~0ULL)
/* Scale of + data: 64-bit types reach past 2^32, int stays far from overflow, narrow ones wrap. */
#define SCALE(T) (sizeof(T) == 8 ? 1000000007LL : sizeof(T) == 4 ? 1009LL : 1LL)

/* The data of each operator, per data set case_ (0 or 1). */
#define GEN_ADD(T) (case_ ? raw(i) * SCALE(T) : (raw(i) & 63) * SCALE(T))
/* 2 at i = 5, 336; -1 (3 when unsigned) at every 97th from 7, and at 20 in data set 1. */
#define GEN_MUL(T)                                                                         \
  ((i % 331 == 5 && i < 600)             ? 2                                               \
   : (i % 97 == 7 || (case_ && i == 20)) ? (IS_SIGNED(T) ? -1 : 3)                         \
                                         : 1)
/* Integer max/min: signed: [-100, 100]*scale (set 0) or all negative (set 1); unsigned: small
 * values and values with the top bit set. */
#define GEN_IMAXMIN(T)                                                                     \
  (IS_SIGNED(T) ? (case_ ? -1 - (raw(i) & 63) * SCALE(T) : raw(i) * SCALE(T))              \
                : (i % 3 == case_ ? (unsigned long long)TOPBIT(T) + (unsigned long long)(raw(i) & 63) \
                                  : (unsigned long long)(raw(i) & 63) + 1))
/* &: all ones but a few cleared bits (set 1: also one element of zero high half). */
#define GEN_AND(T)                                                                         \
  (i % 97 == 3 ? (unsigned long long)ALLONES(T) ^ (1ULL << ((i / 97) % NBITS(T)))          \
   : (case_ && i == 350) ? (1ULL << (NBITS(T) / 2)) - 1                                    \
                         : (unsigned long long)ALLONES(T))
/* |: zeros but a few set bits (set 1: also the top bit at i = 30). */
#define GEN_OR(T)                                                                          \
  (i % 37 == 1 ? 1ULL << ((i * 5) % NBITS(T))                                              \
   : (case_ && i == 30) ? (unsigned long long)TOPBIT(T) : 0ULL)
#define GEN_XOR(T) ((unsigned long long)(i + case_) * 0x9E3779B97F4A7C15ULL >> (i % 17))
/* &&: set 0 all true (including negatives); set 1 one false, at i = 29 and at 350. */
#define GEN_LAND(T) ((case_ && (i == 29 || i == 350)) ? 0 : (i % 2 ? 1 : (IS_SIGNED(T) ? -3 : 3)))
/* ||: set 0 all false; set 1 one true, at i = 30 and at 380. */
#define GEN_LOR(T) ((case_ && (i == 30 || i == 380)) ? (IS_SIGNED(T) ? -2 : 2) : 0)

/* All nine operators on integer type T. INITs: + 7, * 3 (exactly once), max below every
 * element of set 1 but not of set 0, min above every element, & all ones but bit 1, | bit 2,
 * ^ 0x5a, && 1, || 0. */
#define INTEGER_TYPE(tag, T)                                                               \
  DEFINE(add_##tag, T, +, U_ADD, 7, GEN_ADD(T), i)                                         \
  DEFINE(mul_##tag, T, *, U_MUL, 3, GEN_MUL(T), i)                                         \
  DEFINE(max_##tag, T, max, U_MAX,                                                         \
         IS_SIGNED(T) ? -1 - 64 * SCALE(T) * (1 - case_) - 100 * SCALE(T) * case_ : 0,     \
         GEN_IMAXMIN(T), i)                                                                \
  DEFINE(min_##tag, T, min, U_MIN, IS_SIGNED(T) ? 101 * SCALE(T) : (unsigned long long)ALLONES(T), \
         GEN_IMAXMIN(T), i)                                                                \
  DEFINE(and_##tag, T, &, U_AND, (unsigned long long)ALLONES(T) ^ 2ULL, GEN_AND(T), i)     \
  DEFINE(or_##tag, T, |, U_OR, 4, GEN_OR(T), i)                                            \
  DEFINE(xor_##tag, T, ^, U_XOR, 0x5a, GEN_XOR(T), i)                                      \
  DEFINE(land_##tag, T, &&, U_LAND, 1, GEN_LAND(T), i)                                     \
  DEFINE(lor_##tag, T, ||, U_LOR, 0, GEN_LOR(T), i)                                        \
  static void test_##tag(void) {                                                           \
    test_add_##tag(), test_mul_##tag(), test_max_##tag(), test_min_##tag();                \
    test_and_##tag(), test_or_##tag(), test_xor_##tag(), test_land_##tag(), test_lor_##tag(); \
  }

/* Floating types: + (multiples of 0.25), * (1, 2, -1, 0.5), max/min with negatives (set 1:
 * all negative, initial value -inf / +inf), && and || (0.5 and -0.25 are true). */
#define GEN_FADD (case_ ? 0.5 * (double)raw(i) : 0.25 * (double)(raw(i) & 63))
#define GEN_FMUL (i % 331 == 5 ? 2.0 : i % 97 == 7 ? -1.0 : (case_ && i == 40) ? 0.5 : 1.0)
#define GEN_FMAXMIN (case_ ? -1.0 - 0.5 * (double)(raw(i) & 63) : 0.5 * (double)raw(i))
#define GEN_FLAND ((case_ && (i == 29 || i == 350)) ? 0.0 : (i % 2 ? 0.5 : -0.25))
#define GEN_FLOR ((case_ && (i == 30 || i == 380)) ? -0.5 : 0.0)

#define FLOATING_TYPE(tag, T)                                                              \
  DEFINE(add_##tag, T, +, U_ADD, 7.5, GEN_FADD, f)                                         \
  DEFINE(mul_##tag, T, *, U_MUL, -3.0, GEN_FMUL, f)                                        \
  DEFINE(max_##tag, T, max, U_MAX, case_ ? -INFINITY : -10.0, GEN_FMAXMIN, f)              \
  DEFINE(min_##tag, T, min, U_MIN, case_ ? INFINITY : 10.0, GEN_FMAXMIN, f)                \
  DEFINE(land_##tag, T, &&, U_LAND, 1.0, GEN_FLAND, f)                                     \
  DEFINE(lor_##tag, T, ||, U_LOR, 0.0, GEN_FLOR, f)                                        \
  static void test_##tag(void) {                                                           \
    test_add_##tag(), test_mul_##tag(), test_max_##tag(), test_min_##tag();                \
    test_land_##tag(), test_lor_##tag();                                                   \
  }

/* Complex types (+ and * only, OpenACC 3.3 2.5.15): + over multiples of 0.25 in both parts;
 * * over 1 with i at every 97th from 7, 1+i at every 331st from 5, -1 at 20 in set 1
 * (Gaussian integers of small size: exact in any order). */
#define GEN_CADD ((case_ ? 0.5 * (double)raw(i) : 0.25 * (double)(raw(i) & 63)) + 0.25 * (double)raw(i + 7) * I)
#define GEN_CMUL                                                                           \
  (i % 97 == 7 ? (double _Complex)I : i % 331 == 5 ? 1.0 + I : (case_ && i == 20) ? -1.0 : 1.0)
#define COMPLEX_TYPE(tag, T)                                                               \
  DEFINE(add_##tag, T, +, U_ADD, 7.5 - 2.0 * I, GEN_CADD, c)                               \
  DEFINE(mul_##tag, T, *, U_MUL, -3.0 + 1.0 * I, GEN_CMUL, c)                              \
  static void test_##tag(void) { test_add_##tag(), test_mul_##tag(); }

INTEGER_TYPE(char, char)
INTEGER_TYPE(schar, signed char)
INTEGER_TYPE(uchar, unsigned char)
INTEGER_TYPE(short, short)
INTEGER_TYPE(ushort, unsigned short)
INTEGER_TYPE(int, int)
INTEGER_TYPE(uint, unsigned)
INTEGER_TYPE(long, long)
INTEGER_TYPE(ulong, unsigned long)
INTEGER_TYPE(llong, long long)
INTEGER_TYPE(ullong, unsigned long long)
FLOATING_TYPE(float, float)
FLOATING_TYPE(double, double)
COMPLEX_TYPE(cfloat, float _Complex)
COMPLEX_TYPE(cdouble, double _Complex)
DEFINE(land_bool, _Bool, &&, U_LAND, 1, GEN_LAND(int), i)
DEFINE(lor_bool, _Bool, ||, U_LOR, 0, GEN_LOR(int), i)

int main(void) {
  rm_sizes();
  test_char(), test_schar(), test_uchar(), test_short(), test_ushort(), test_int(), test_uint();
  test_long(), test_ulong(), test_llong(), test_ullong(), test_float(), test_double();
  test_cfloat(), test_cdouble(), test_land_bool(), test_lor_bool();
  return e2e_finish();
}
