/* Reduction position "vector only": row sums of an 8192 x 16384 matrix of doubles (1 GiB),
 * `parallel loop gang` over rows, `loop vector reduction(+:t)` over each row's columns,
 * the sum stored per row (the OpenUH paper's Table 2, vector row). GB/s counting 8 bytes per
 * element; small-integer data, so every row sum is exact and all of them are checked after
 * each repetition's copy-out.
 *   red_vector [rows=8192] [cols=16384] [reps=20] */
#define RED_NAME "red_vector"
#define RED_LEVEL vector
#include "red_rows.h"
