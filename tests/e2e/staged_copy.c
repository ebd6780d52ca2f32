/* Large copies between malloc'ed memory and the GPU (8 MiB or more) go through the runtime's
 * staging lanes (runtime staging.rs: pieces, small at both ends, claimed by one lane per
 * host thread, each through a ring of pinned buffers). Odd lengths and unaligned starts put
 * the piece boundaries
 * in the middle of elements and cache lines; sub-range updates in both directions, a copy
 * ordered after an async kernel that writes the same device memory (a synchronous copy
 * waits for the queues' earlier work: docs/runtime-abi.md), and every byte checked. */
#define E2E_NAME "staged_copy"
#include <stdlib.h>
#include <openacc.h>
#include "e2e.h"

/* 25 MiB and a bit, odd: small pieces at both ends and full ones between, the last full
 * piece shorter; the 8 MiB ranges below are all small pieces. */
enum { LEN = 3 * (8 << 20) + 777, OFF = 3 };

static unsigned char val(long i, int salt) { return (unsigned char)(i * 131 + (i >> 11) + salt); }

int main(void) {
  unsigned char *buf = malloc(LEN + 64), *a = buf + OFF;
  /* On the host path the device's memory is the host's: what the host still holds outside
   * an updated range is then the device's value. */
  const int sep = acc_get_device_type() != acc_device_host;
  for (long i = 0; i < LEN; i++) a[i] = val(i, 1);

#pragma acc enter data copyin(a[0:LEN])
  /* Device: a[i] += 2 (so a[i] = val(i, 3)). */
#pragma acc parallel loop present(a[0:LEN])
  for (long i = 0; i < LEN; i++) a[i] = (unsigned char)(a[i] + 2);

  /* Host side of a middle range (9 MiB + 5 from byte 1234567) refreshed from the device;
   * everything else keeps the host's values. */
  const long lo = 1234567, n = (9 << 20) + 5;
#pragma acc update self(a[lo:n])
  for (long i = 0; i < LEN; i++) {
    unsigned char want = (i >= lo && i < lo + n) || !sep ? val(i, 3) : val(i, 1);
    CHECK(a[i] == want, "after update self: a[%ld] = %d, want %d", i, a[i], want);
  }

  /* Host writes a new pattern and sends an odd-sized range starting at an odd offset. */
  const long lo2 = 8388609, n2 = (8 << 20) + 4097;
  for (long i = 0; i < LEN; i++) a[i] = val(i, 40);
#pragma acc update device(a[lo2:n2])

  /* An async kernel adds 5 everywhere; the synchronous copy-out after it, with no wait in
   * between, still sees its result (the staged copy is ordered after the queue's work). */
#pragma acc parallel loop present(a[0:LEN]) async(1)
  for (long i = 0; i < LEN; i++) a[i] = (unsigned char)(a[i] + 5);
#pragma acc exit data copyout(a[0:LEN])
#pragma acc wait
  for (long i = 0; i < LEN; i++) {
    unsigned char want = (i >= lo2 && i < lo2 + n2) || !sep ? val(i, 45) : val(i, 8);
    CHECK(a[i] == want, "after copyout: a[%ld] = %d, want %d", i, a[i], want);
  }
  free(buf);
  return e2e_finish();
}
