/* Every reduction operator x type (reduction_matrix.h) in one reduction spanning a nest of
 * three loops: `parallel loop gang reduction(op:s)`, a worker loop inside it and a vector
 * loop inside that. Two forms, the same results:
 *  - the clause written once, on the gang loop, the worker and vector loops bare and the
 *    vector loop accumulating every element (OpenUH's placement; one gang tree serves all);
 *  - the clause on every level, each level also updating s itself (the gang loop element
 *    (i,0,0), the worker loop (i,j,0) for j > 0, the vector loop the rest), so each level
 *    keeps its own tree.
 * Extents 0, 1, 31, 33 and over 256 at each level; 1, 3, 5 and 33 gangs, 1, 3 and 7
 * workers, vector lengths 1, 5, 32, 33 and 96 (5 lanes of 7 workers: warps span workers). */
#define E2E_NAME "reduction_matrix_gang_worker_vector"
#define RM_ROWS 0
#define RM_WHAT "gang reduction / worker / vector"
#define RM_NEST2_WHAT "gang reduction, updating / worker reduction, updating / vector reduction"
#define RM_SHAPES                                                                          \
  {0, 3, 3, 3, 3, 5}, {1, 301, 1, 5, 3, 5, 2}, {3, 1, 301, 1, 1, 96, 2}, {31, 2, 33, 33, 1, 32}, \
      {33, 0, 5, 5, 1, 33}, {3, 31, 0, 3, 3, 32}, {257, 1, 2, 5, 1, 5, 2}, {2, 33, 31, 1, 7, 5, 2}
#define RM_NEST(T, OP, UPD)                                                                \
  T s = r[0];                                                                              \
  PRAGMA(acc parallel loop gang num_gangs(g) num_workers(w) vector_length(v) reduction(OP:s) \
         copyin(a[0:n0 * n1 * n2]))                                                        \
  for (int i = 0; i < n0; i++) {                                                           \
    PRAGMA(acc loop worker)                                                                \
    for (int j = 0; j < n1; j++) {                                                         \
      PRAGMA(acc loop vector)                                                              \
      for (int k = 0; k < n2; k++)                                                         \
        UPD(s, a[(i * n1 + j) * n2 + k]);                                                  \
    }                                                                                      \
  }                                                                                        \
  r[0] = s;
#define RM_NEST2(T, OP, UPD)                                                               \
  T s = r[0];                                                                              \
  PRAGMA(acc parallel loop gang num_gangs(g) num_workers(w) vector_length(v) reduction(OP:s) \
         copyin(a[0:n0 * n1 * n2]))                                                        \
  for (int i = 0; i < n0; i++) {                                                           \
    if (n1 > 0 && n2 > 0)                                                                  \
      UPD(s, a[i * n1 * n2]);                                                              \
    PRAGMA(acc loop worker reduction(OP:s))                                                \
    for (int j = 0; j < n1; j++) {                                                         \
      if (j > 0 && n2 > 0)                                                                 \
        UPD(s, a[(i * n1 + j) * n2]);                                                      \
      PRAGMA(acc loop vector reduction(OP:s))                                              \
      for (int k = 1; k < n2; k++)                                                         \
        UPD(s, a[(i * n1 + j) * n2 + k]);                                                  \
    }                                                                                      \
  }                                                                                        \
  r[0] = s;
#include "reduction_matrix.h"
