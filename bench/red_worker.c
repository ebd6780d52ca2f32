/* Reduction position "worker only": row sums of an 8192 x 16384 matrix of doubles (1 GiB),
 * `parallel loop gang` over rows, `loop worker reduction(+:t)` over each row's columns,
 * the sum stored per row (the OpenUH paper's Table 2, worker row). GB/s counting 8 bytes per
 * element; small-integer data, so every row sum is exact and all of them are checked after
 * each repetition's copy-out.
 *   red_worker [rows=8192] [cols=16384] [reps=20] */
#define RED_NAME "red_worker"
#define RED_LEVEL worker
#include "red_rows.h"
