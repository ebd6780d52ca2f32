/* Every reduction operator x type (reduction_matrix.h) on a vector loop inside a gang loop:
 * `parallel loop gang` over rows, `loop vector reduction(op:t)` over each row's columns, t
 * starting from the row's initial value and stored per row; every row is checked. Rows
 * and columns 0, 1, 31, 33 and over 256; fewer gangs than rows (a gang reduces several
 * rows in turn) and more; vector lengths 1, 5, 32, 33 and 96 (partial warps), and 2048
 * (clamped to the block's limit). */
#define E2E_NAME "reduction_matrix_vector"
#define RM_ROWS 1
#define RM_WHAT "gang / vector reduction"
#define RM_SHAPES                                                                          \
  {0, 31, 1, 3, 1, 33}, {1, 301, 1, 5, 1, 96}, {31, 33, 1, 3, 1, 33}, {33, 1, 1, 5, 1, 5}, \
      {5, 33, 1, 3, 1, 32}, {3, 0, 1, 1, 1, 96}, {257, 31, 1, 3, 1, 1}, {2, 300, 1, 1, 1, 2048, 2}
#define RM_NEST(T, OP, UPD)                                                                \
  PRAGMA(acc parallel loop gang num_gangs(g) vector_length(v) copyin(a[0:n0 * n1]) copy(r[0:n0])) \
  for (int i = 0; i < n0; i++) {                                                           \
    T t = r[i];                                                                            \
    PRAGMA(acc loop vector reduction(OP:t))                                                \
    for (int j = 0; j < n1; j++)                                                           \
      UPD(t, a[i * n1 + j]);                                                               \
    r[i] = t;                                                                              \
  }
#include "reduction_matrix.h"
