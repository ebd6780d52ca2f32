/* bench/stencil.h with `#pragma acc cache(a[i-R:2*R+1])`: the 17 reads per point come from
 * shared memory, filled once per window of the vector loop.
 *   stencil_cache [n=67108864] [reps=50] */
#define STENCIL_NAME "stencil_cache"
#define STENCIL_CACHE 1
#include "stencil.h"
