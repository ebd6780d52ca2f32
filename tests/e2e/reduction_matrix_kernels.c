/* Every reduction operator x type (reduction_matrix.h) on a loop in a kernels construct,
 * at the launch sizes accc picks. Two forms, the same results: `kernels loop reduction(op:s)`
 * (run sequentially: no dependence analysis yet) and `kernels loop independent
 * reduction(op:s)` (gangs and vector lanes). 0, 1, 31, 33 and 401 elements. */
#define E2E_NAME "reduction_matrix_kernels"
#define RM_ROWS 0
#define RM_WHAT "kernels loop"
#define RM_NEST2_WHAT "kernels loop independent"
#define RM_SHAPES {0, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {31, 1, 1, 1, 1, 1}, {33, 1, 1, 1, 1, 1}, {401, 1, 1, 1, 1, 1}
#define RM_BODY(T, OP, UPD, LOOP)                                                          \
  T s = r[0];                                                                              \
  PRAGMA(LOOP reduction(OP:s) copyin(a[0:n0]))                                             \
  for (int i = 0; i < n0; i++)                                                             \
    UPD(s, a[i]);                                                                          \
  r[0] = s;                                                                                \
  (void)g, (void)w, (void)v;
#define RM_NEST(T, OP, UPD) RM_BODY(T, OP, UPD, acc kernels loop)
#define RM_NEST2(T, OP, UPD) RM_BODY(T, OP, UPD, acc kernels loop independent)
#include "reduction_matrix.h"
