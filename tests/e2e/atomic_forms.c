/* OpenACC atomic, every form x every operator x every C arithmetic type (atomic_forms.h
 * says what and how each result is checked): char, signed/unsigned char, short, unsigned
 * short, int, unsigned, long, unsigned long, long long, unsigned long long, float, double,
 * _Bool, and typedefs of them; each with K = 7 locations updated by R = 12 lanes at once,
 * in two launch shapes (odd sizes, several gangs and workers, partial warps). */
#define E2E_NAME "atomic_forms"
#include "e2e.h"

typedef unsigned short u16_t;
typedef double real_t;

#define AT_T char
#define AT_NAME char_
#define AT_KIND 0
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T signed char
#define AT_NAME schar
#define AT_KIND 0
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T unsigned char
#define AT_NAME uchar
#define AT_KIND 1
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T short
#define AT_NAME short_
#define AT_KIND 0
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T u16_t
#define AT_NAME ushort_typedef
#define AT_KIND 1
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T int
#define AT_NAME int_
#define AT_KIND 0
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T unsigned
#define AT_NAME unsigned_
#define AT_KIND 1
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T long
#define AT_NAME long_
#define AT_KIND 0
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T unsigned long
#define AT_NAME ulong
#define AT_KIND 1
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T long long
#define AT_NAME llong
#define AT_KIND 0
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T unsigned long long
#define AT_NAME ullong
#define AT_KIND 1
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T float
#define AT_NAME float_
#define AT_KIND 2
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T real_t
#define AT_NAME double_typedef
#define AT_KIND 2
#include "atomic_forms.h"
#undef AT_T
#undef AT_NAME
#undef AT_KIND
#define AT_T _Bool
#define AT_NAME bool_
#define AT_KIND 3
#include "atomic_forms.h"

int main(void) {
  static const int shapes[2][3] = {{3, 2, 32}, {5, 1, 33}};
  for (int s = 0; s < 2; s++) {
    int g = shapes[s][0], w = shapes[s][1], v = shapes[s][2];
    test_char_(g, w, v);
    test_schar(g, w, v);
    test_uchar(g, w, v);
    test_short_(g, w, v);
    test_ushort_typedef(g, w, v);
    test_int_(g, w, v);
    test_unsigned_(g, w, v);
    test_long_(g, w, v);
    test_ulong(g, w, v);
    test_llong(g, w, v);
    test_ullong(g, w, v);
    test_float_(g, w, v);
    test_double_typedef(g, w, v);
    test_bool_(g, w, v);
  }
  return e2e_finish();
}
