/* 1 GiB host-to-device with `enter data copyin`: see xfer.h. */
#define XFER_NAME "xfer_in"
#define XFER_OUT 0
#include "xfer.h"
