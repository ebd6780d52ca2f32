/* Reduction position "gang only": a 1-D sum of 2^27 doubles (1 GiB) with
 * `parallel loop gang reduction(+:s)`, no worker or vector loop (one lane per gang does the
 * work; the OpenUH paper's Table 2, first row). GB/s counting 8 bytes per element; the data
 * are small integers, so the sums are exact and each repetition's is checked.
 *   red_gang [log2(n)=27] [reps=20] */
#define RED_NAME "red_gang"
#define RED_LOG2N 27
#define RED_LEVELS gang
#include "red_1d.h"
