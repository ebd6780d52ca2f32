/* Every reduction operator x type (reduction_matrix.h) on one loop partitioned over all
 * three levels: `parallel loop gang worker vector reduction(op:s)` over 0, 1, 31, 33, 401
 * and 1003 elements, with 1 to 96 gangs, 1 to 33 workers and vector lengths 1 to 96 (odd
 * ones: partial warps; 33 workers of 32 lanes are more than a block holds: clamped). */
#define E2E_NAME "reduction_matrix_same_line"
#define RM_ROWS 0
#define RM_WHAT "parallel loop gang worker vector"
#define RM_SHAPES                                                                          \
  {0, 1, 1, 3, 3, 32}, {1, 1, 1, 5, 5, 33}, {31, 1, 1, 33, 1, 5}, {33, 1, 1, 3, 3, 96},    \
      {401, 1, 1, 5, 3, 33}, {401, 1, 1, 96, 1, 1}, {1003, 1, 1, 1, 33, 32, 2}
#define RM_NEST(T, OP, UPD)                                                                \
  T s = r[0];                                                                              \
  PRAGMA(acc parallel loop gang worker vector num_gangs(g) num_workers(w) vector_length(v) \
         reduction(OP:s) copyin(a[0:n0]))                                                  \
  for (int i = 0; i < n0; i++)                                                             \
    UPD(s, a[i]);                                                                          \
  r[0] = s;
#include "reduction_matrix.h"
