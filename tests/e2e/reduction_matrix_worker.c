/* Every reduction operator x type (reduction_matrix.h) on a worker loop inside a gang loop:
 * `parallel loop gang` over rows, `loop worker reduction(op:t)` over each row's columns, t
 * starting from the row's initial value and stored per row; every row is checked. Rows
 * and columns 0, 1, 31, 33 and over 256; fewer gangs than rows (a gang reduces several
 * rows in turn); 3, 5 and 33 workers (33 is clamped: a kernel whose workers synchronise
 * runs at most 15). */
#define E2E_NAME "reduction_matrix_worker"
#define RM_ROWS 1
#define RM_WHAT "gang / worker reduction"
#define RM_SHAPES                                                                          \
  {0, 31, 1, 3, 3, 1}, {1, 301, 1, 5, 3, 1}, {31, 33, 1, 3, 3, 1}, {33, 0, 1, 3, 3, 1},     \
      {257, 3, 1, 3, 1, 1, 2}, {1, 33, 1, 1, 33, 1, 2}
#define RM_NEST(T, OP, UPD)                                                                \
  PRAGMA(acc parallel loop gang num_gangs(g) num_workers(w) copyin(a[0:n0 * n1]) copy(r[0:n0])) \
  for (int i = 0; i < n0; i++) {                                                           \
    T t = r[i];                                                                            \
    PRAGMA(acc loop worker reduction(OP:t))                                                \
    for (int j = 0; j < n1; j++)                                                           \
      UPD(t, a[i * n1 + j]);                                                               \
    r[i] = t;                                                                              \
  }
#include "reduction_matrix.h"
