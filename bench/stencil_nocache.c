/* bench/stencil.h without the cache directive: the 17 reads per point are global loads.
 *   stencil_nocache [n=67108864] [reps=50] */
#define STENCIL_NAME "stencil_nocache"
#define STENCIL_CACHE 0
#include "stencil.h"
