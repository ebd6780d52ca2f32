/* 1 GiB device-to-host with `exit data copyout`: see xfer.h. */
#define XFER_NAME "xfer_out"
#define XFER_OUT 1
#include "xfer.h"
