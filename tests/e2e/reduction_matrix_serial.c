/* Every reduction operator x type (reduction_matrix.h) on a serial loop:
 * `serial loop reduction(op:s)` over 0, 1, 31, 33 and 401 elements. */
#define E2E_NAME "reduction_matrix_serial"
#define RM_ROWS 0
#define RM_WHAT "serial loop"
#define RM_SHAPES {0, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {31, 1, 1, 1, 1, 1}, {33, 1, 1, 1, 1, 1}, {401, 1, 1, 1, 1, 1}
#define RM_NEST(T, OP, UPD)                                                                \
  T s = r[0];                                                                              \
  PRAGMA(acc serial loop reduction(OP:s) copyin(a[0:n0]))                                  \
  for (int i = 0; i < n0; i++)                                                             \
    UPD(s, a[i]);                                                                          \
  r[0] = s;                                                                                \
  (void)g, (void)w, (void)v;
#include "reduction_matrix.h"
