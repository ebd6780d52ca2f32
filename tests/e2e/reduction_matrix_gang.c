/* Every reduction operator x type (reduction_matrix.h) on a gang loop:
 * `parallel loop gang reduction(op:s)` over 0, 1, 31, 33 and 401 elements, with 3, 5, 33
 * and 96 gangs (more gangs than iterations too) and vector lengths 1, 32 and 33 (the gang
 * loop runs on one lane of each gang; the others hold the identity). */
#define E2E_NAME "reduction_matrix_gang"
#define RM_ROWS 0
#define RM_WHAT "parallel loop gang"
#define RM_SHAPES                                                                          \
  {0, 1, 1, 3, 1, 32}, {1, 1, 1, 5, 1, 1}, {31, 1, 1, 33, 1, 1}, {33, 1, 1, 5, 1, 33},     \
      {401, 1, 1, 96, 1, 1}, {401, 1, 1, 3, 1, 32}
#define RM_NEST(T, OP, UPD)                                                                \
  T s = r[0];                                                                              \
  PRAGMA(acc parallel loop gang num_gangs(g) vector_length(v) reduction(OP:s) copyin(a[0:n0])) \
  for (int i = 0; i < n0; i++)                                                             \
    UPD(s, a[i]);                                                                          \
  r[0] = s;
#include "reduction_matrix.h"
