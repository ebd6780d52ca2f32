/* Every reduction operator x type (reduction_matrix.h) with the clause on the compute
 * construct: `parallel reduction(op:s)` around a gang loop accumulating s (each gang's copy
 * combined at the region's end). Two forms, the same results: the gang loop bare, and the
 * gang loop with its own reduction(op:s). 0, 1, 31, 33 and 401 elements; 1 to 96 gangs
 * (more gangs than iterations too), vector lengths 1, 5, 32 and 33. */
#define E2E_NAME "reduction_matrix_construct"
#define RM_ROWS 0
#define RM_WHAT "parallel reduction / loop gang"
#define RM_NEST2_WHAT "parallel reduction / loop gang reduction"
#define RM_SHAPES                                                                          \
  {0, 1, 1, 3, 1, 32}, {1, 1, 1, 5, 1, 1}, {31, 1, 1, 33, 1, 5}, {33, 1, 1, 5, 1, 33},     \
      {401, 1, 1, 96, 1, 1}, {401, 1, 1, 1, 1, 32}
#define RM_BODY(T, OP, UPD, LOOP)                                                          \
  T s = r[0];                                                                              \
  PRAGMA(acc parallel num_gangs(g) vector_length(v) reduction(OP:s) copyin(a[0:n0]))       \
  {                                                                                        \
    LOOP                                                                                   \
    for (int i = 0; i < n0; i++)                                                           \
      UPD(s, a[i]);                                                                        \
  }                                                                                        \
  r[0] = s;
#define RM_NEST(T, OP, UPD) RM_BODY(T, OP, UPD, PRAGMA(acc loop gang))
#define RM_NEST2(T, OP, UPD) RM_BODY(T, OP, UPD, PRAGMA(acc loop gang reduction(OP:s)))
#include "reduction_matrix.h"
