/* Every reduction operator (+ * max min & | ^ && ||) on every integer type (char, signed
 * char, unsigned char, short, unsigned short, int, unsigned, long, unsigned long, long long,
 * unsigned long long; && and || on _Bool too) and + * max min && || on float and double,
 * each a `parallel loop reduction(op:r)` over trip counts 0, 1, 31, 33 and 401 (two data sets each), compared
 * exactly with the same loop in plain C.
 *  - nonzero initial values (combined exactly once) and identities that matter: max/min over
 *    data all on one side of the initial value, & with all-ones data but a few cleared bits;
 *  - 64-bit types get values past 2^32 (a 32-bit combine truncates them);
 *  - unsigned max/min mix values with the high bit set and small ones (a signed compare
 *    picks the wrong one); narrow types wrap (modular, so order does not matter);
 *  - * multiplies mostly 1s with a few 2s and -1s (3s when unsigned): no signed overflow;
 *  - && and || in both outcomes (all true / one false at an odd place; all false / one true);
 *  - floats hold multiples of 0.5 so every sum and product is exact. */
#define E2E_NAME "reduction_ops"
#include "e2e.h"
#include <limits.h>
#include <float.h>

#define PRAGMA(x) _Pragma(#x)

static const int trips[] = {0, 1, 31, 33, 401};
enum { MAXN = 401 };

/* A pseudo-random int in [-100, 100] for element i (deterministic). */
static long long raw(int i) { return (long long)((i * 7919L + 13) % 201) - 100; }

/* DEFINE(name, T, OP, UPDATE, INIT, GEN, PR):
 * test_<name>() fills a[i] = GEN (with `i` and `case_` = 0 or 1 in scope, two data sets),
 * starts r at INIT, runs `r = UPDATE` (with `r`, `a`, `i` in scope) sequentially on the host
 * and in a `parallel loop reduction(OP:r)`, and compares. PR is 'i' or 'f' (printing). */
#define DEFINE(name, T, OP, UPDATE, INIT, GEN, PR)                                         \
  static T dev_##name(const T *a, int n, T r) {                                            \
    PRAGMA(acc parallel loop reduction(OP:r) copyin(a[0:n]))                               \
    for (int i = 0; i < n; i++)                                                            \
      UPDATE;                                                                              \
    return r;                                                                              \
  }                                                                                        \
  static T host_##name(const T *a, int n, T r) {                                           \
    for (int i = 0; i < n; i++)                                                            \
      UPDATE;                                                                              \
    return r;                                                                              \
  }                                                                                        \
  static void test_##name(void) {                                                          \
    T *a = e2e_alloc(sizeof(T) * MAXN);                                                    \
    for (int case_ = 0; case_ < 2; case_++) {                                              \
      for (int i = 0; i < MAXN; i++)                                                       \
        a[i] = (T)(GEN);                                                                   \
      for (unsigned t = 0; t < sizeof trips / sizeof *trips; t++) {                        \
        int n = trips[t];                                                                  \
        T init = (T)(INIT);                                                                \
        T want = host_##name(a, n, init), got = dev_##name(a, n, init);                    \
        report_##PR(got == want, #name, case_, n, got, want);                              \
      }                                                                                    \
    }                                                                                      \
    free(a);                                                                               \
  }

static void report_i(int ok, const char *name, int c, int n, unsigned long long got, unsigned long long want) {
  CHECK(ok, "%s data set %d n=%d: got %lld (%#llx), want %lld (%#llx)", name, c, n, (long long)got, got,
        (long long)want, want);
}
static void report_f(int ok, const char *name, int c, int n, double got, double want) {
  CHECK(ok, "%s data set %d n=%d: got %.17g, want %.17g", name, c, n, got, want);
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
  ((i % 331 == 5 && i < 600)                             ? 2                             \
   : (i % 97 == 7 || (case_ && i == 20)) ? (IS_SIGNED(T) ? -1 : 3)                       \
                                                           : 1)
/* Integer max/min: signed: [-100, 100]*scale (set 0) or all negative (set 1); unsigned: small
 * values and values with the top bit set. */
#define GEN_IMAXMIN(T)                                                                     \
  (IS_SIGNED(T) ? (case_ ? -1 - (raw(i) & 63) * SCALE(T) : raw(i) * SCALE(T))            \
                : (i % 3 == case_ ? (unsigned long long)TOPBIT(T) + (unsigned long long)(raw(i) & 63) \
                                  : (unsigned long long)(raw(i) & 63) + 1))
/* &: all ones but a few cleared bits (set 1: also one element of zero high half). */
#define GEN_AND(T)                                                                         \
  (i % 97 == 3 ? (unsigned long long)ALLONES(T) ^ (1ULL << ((i / 97) % NBITS(T)))          \
   : (case_ && i == 350) ? (1ULL << (NBITS(T) / 2)) - 1                                   \
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

#define MAXU(a, b) ((a) > (b) ? (a) : (b))
#define MINU(a, b) ((a) < (b) ? (a) : (b))

/* All nine operators on integer type T. INITs: + 7, * 3 (exactly once), max below every
 * element of set 1 but not of set 0, min above every element, & all ones but bit 1, | bit 2,
 * ^ 0x5a, && 1, || 0. */
#define INTEGER_TYPE(tag, T)                                                               \
  DEFINE(add_##tag, T, +, r += a[i], 7, GEN_ADD(T), i)                                     \
  DEFINE(mul_##tag, T, *, r *= a[i], 3, GEN_MUL(T), i)                                     \
  DEFINE(max_##tag, T, max, r = MAXU(a[i], r),                                             \
         IS_SIGNED(T) ? -1 - 64 * SCALE(T) * (1 - case_) - 100 * SCALE(T) * case_ : 0,     \
         GEN_IMAXMIN(T), i)                                                                \
  DEFINE(min_##tag, T, min, r = MINU(a[i], r),                                             \
         IS_SIGNED(T) ? 101 * SCALE(T) : (unsigned long long)ALLONES(T), GEN_IMAXMIN(T), i) \
  DEFINE(and_##tag, T, &, r &= a[i], (unsigned long long)ALLONES(T) ^ 2ULL, GEN_AND(T), i) \
  DEFINE(or_##tag, T, |, r |= a[i], 4, GEN_OR(T), i)                                       \
  DEFINE(xor_##tag, T, ^, r ^= a[i], 0x5a, GEN_XOR(T), i)                                  \
  DEFINE(land_##tag, T, &&, r = r && a[i], 1, GEN_LAND(T), i)                              \
  DEFINE(lor_##tag, T, ||, r = r || a[i], 0, GEN_LOR(T), i)                                \
  static void test_##tag(void) {                                                           \
    test_add_##tag(), test_mul_##tag(), test_max_##tag(), test_min_##tag();                \
    test_and_##tag(), test_or_##tag(), test_xor_##tag(), test_land_##tag(), test_lor_##tag(); \
  }

/* Floating types: + (multiples of 0.5), * (1, 2, -1, 0.5), max/min with negatives (set 1:
 * all negative, initial value -inf / +inf), && and || (0.5 and -0.25 are true). */
#define GEN_FADD (case_ ? 0.5 * (double)raw(i) : 0.25 * (double)(raw(i) & 63))
#define GEN_FMUL (i % 331 == 5 ? 2.0 : i % 97 == 7 ? -1.0 : (case_ && i == 40) ? 0.5 : 1.0)
#define GEN_FMAXMIN (case_ ? -1.0 - 0.5 * (double)(raw(i) & 63) : 0.5 * (double)raw(i))
#define GEN_FLAND ((case_ && (i == 29 || i == 350)) ? 0.0 : (i % 2 ? 0.5 : -0.25))
#define GEN_FLOR ((case_ && (i == 30 || i == 380)) ? -0.5 : 0.0)

#define FLOATING_TYPE(tag, T)                                                              \
  DEFINE(add_##tag, T, +, r += a[i], 7.5, GEN_FADD, f)                                     \
  DEFINE(mul_##tag, T, *, r *= a[i], -3.0, GEN_FMUL, f)                                    \
  DEFINE(max_##tag, T, max, r = MAXU(a[i], r), case_ ? -INFINITY : -10.0, GEN_FMAXMIN, f)  \
  DEFINE(min_##tag, T, min, r = MINU(a[i], r), case_ ? INFINITY : 10.0, GEN_FMAXMIN, f)    \
  DEFINE(land_##tag, T, &&, r = r && a[i], 1.0, GEN_FLAND, f)                              \
  DEFINE(lor_##tag, T, ||, r = r || a[i], 0.0, GEN_FLOR, f)                                \
  static void test_##tag(void) {                                                           \
    test_add_##tag(), test_mul_##tag(), test_max_##tag(), test_min_##tag();                \
    test_land_##tag(), test_lor_##tag();                                                   \
  }

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
DEFINE(land_bool, _Bool, &&, r = r && a[i], 1, GEN_LAND(int), i)
DEFINE(lor_bool, _Bool, ||, r = r || a[i], 0, GEN_LOR(int), i)

int main(void) {
  test_char(), test_schar(), test_uchar(), test_short(), test_ushort(), test_int(), test_uint();
  test_long(), test_ulong(), test_llong(), test_ullong(), test_float(), test_double();
  test_land_bool(), test_lor_bool();
  return e2e_finish();
}
