/* Every reduction operator x type (reduction_matrix.h) in one reduction spanning a gang
 * loop and the worker loop inside it: `parallel loop gang reduction(op:s)` over rows. Two
 * forms, the same results:
 *  - the clause written once, on the gang loop, the worker loop bare and accumulating every
 *    element (OpenUH's placement; one tree at the gang loop's end serves both);
 *  - the clause on both loops, the gang loop also updating s itself (each row's first
 *    element), so each level keeps its own tree.
 * Extents 0, 1, 31, 33 and over 256 at each level; 1, 3, 5 and 96 gangs, 1, 3, 5 and 33
 * workers, vector lengths 1, 5 and 32 (1 and 5: warps span workers). */
#define E2E_NAME "reduction_matrix_gang_worker"
#define RM_ROWS 0
#define RM_WHAT "gang reduction / worker"
#define RM_NEST2_WHAT "gang reduction, updating / worker reduction"
#define RM_SHAPES                                                                          \
  {0, 31, 1, 1, 3, 1}, {1, 301, 1, 3, 5, 1}, {31, 33, 1, 3, 3, 5}, {33, 1, 1, 96, 1, 1},   \
      {5, 0, 1, 3, 1, 1}, {257, 3, 1, 5, 1, 1}, {3, 33, 1, 1, 33, 1}, {5, 31, 1, 3, 3, 32}
#define RM_NEST(T, OP, UPD)                                                                \
  T s = r[0];                                                                              \
  PRAGMA(acc parallel loop gang num_gangs(g) num_workers(w) vector_length(v) reduction(OP:s)              \
         copyin(a[0:n0 * n1]))                                                             \
  for (int i = 0; i < n0; i++) {                                                           \
    PRAGMA(acc loop worker)                                                                \
    for (int j = 0; j < n1; j++)                                                           \
      UPD(s, a[i * n1 + j]);                                                               \
  }                                                                                        \
  r[0] = s;
#define RM_NEST2(T, OP, UPD)                                                               \
  T s = r[0];                                                                              \
  PRAGMA(acc parallel loop gang num_gangs(g) num_workers(w) vector_length(v) reduction(OP:s)              \
         copyin(a[0:n0 * n1]))                                                             \
  for (int i = 0; i < n0; i++) {                                                           \
    if (n1 > 0)                                                                            \
      UPD(s, a[i * n1]);                                                                   \
    PRAGMA(acc loop worker reduction(OP:s))                                                \
    for (int j = 1; j < n1; j++)                                                           \
      UPD(s, a[i * n1 + j]);                                                               \
  }                                                                                        \
  r[0] = s;
#include "reduction_matrix.h"
