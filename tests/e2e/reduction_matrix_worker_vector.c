/* Every reduction operator x type (reduction_matrix.h) in one reduction spanning a worker
 * loop and the vector loop inside it, per iteration of a gang loop: `parallel loop gang`
 * over rows; in each row t starts from the row's initial value, is reduced over the worker
 * and vector loops and stored per row; every row is checked. Two forms, the same results:
 *  - the clause written once, on the worker loop, the vector loop bare and accumulating
 *    every element (OpenUH's placement; one tree at the worker loop's end serves both);
 *  - the clause on both loops, the worker loop also updating t itself (the first element
 *    of each (row, worker iteration)), so each level keeps its own tree.
 * Extents 0, 1, 31, 33 and over 256 at each level; 1, 3 and 7 workers, vector
 * lengths 5, 32, 33 and 96. */
#define E2E_NAME "reduction_matrix_worker_vector"
#define RM_ROWS 1
#define RM_WHAT "gang / worker reduction / vector"
#define RM_NEST2_WHAT "gang / worker reduction, updating / vector reduction"
#define RM_SHAPES                                                                          \
  {0, 3, 3, 1, 1, 32}, {1, 301, 1, 3, 3, 5, 2}, {3, 1, 301, 1, 1, 96, 2}, {3, 31, 33, 1, 3, 32}, \
      {31, 0, 5, 3, 1, 33}, {33, 2, 0, 3, 3, 5}, {257, 1, 1, 3, 1, 5, 2}, {2, 33, 31, 1, 7, 5, 2}
#define RM_NEST(T, OP, UPD)                                                                \
  PRAGMA(acc parallel loop gang num_gangs(g) num_workers(w) vector_length(v)               \
         copyin(a[0:n0 * n1 * n2]) copy(r[0:n0]))                                          \
  for (int i = 0; i < n0; i++) {                                                           \
    T t = r[i];                                                                            \
    PRAGMA(acc loop worker reduction(OP:t))                                                \
    for (int j = 0; j < n1; j++) {                                                         \
      PRAGMA(acc loop vector)                                                              \
      for (int k = 0; k < n2; k++)                                                         \
        UPD(t, a[(i * n1 + j) * n2 + k]);                                                  \
    }                                                                                      \
    r[i] = t;                                                                              \
  }
#define RM_NEST2(T, OP, UPD)                                                               \
  PRAGMA(acc parallel loop gang num_gangs(g) num_workers(w) vector_length(v)               \
         copyin(a[0:n0 * n1 * n2]) copy(r[0:n0]))                                          \
  for (int i = 0; i < n0; i++) {                                                           \
    T t = r[i];                                                                            \
    PRAGMA(acc loop worker reduction(OP:t))                                                \
    for (int j = 0; j < n1; j++) {                                                         \
      if (n2 > 0)                                                                          \
        UPD(t, a[(i * n1 + j) * n2]);                                                      \
      PRAGMA(acc loop vector reduction(OP:t))                                              \
      for (int k = 1; k < n2; k++)                                                         \
        UPD(t, a[(i * n1 + j) * n2 + k]);                                                  \
    }                                                                                      \
    r[i] = t;                                                                              \
  }
#include "reduction_matrix.h"
