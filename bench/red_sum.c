/* Sum of 2^28 doubles (2 GiB) with `parallel loop reduction(+:s)` (the implementation picks
 * the levels), inside a data region, repeated; GB/s counting 8 bytes per element. The data
 * are small integers, so every sum is exact and each repetition's is checked.
 * scripts/bench puts CuPy's cupy.sum on the same data beside it.
 *   red_sum [log2(n)=28] [reps=20] */
#define RED_NAME "red_sum"
#define RED_LOG2N 28
#define RED_LEVELS
#include "red_1d.h"
