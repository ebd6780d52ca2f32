/* A `long` array reduced on a gang loop and updated in an inner vector loop that reduces
 * another variable, whose result a single-lane store uses (from fuzzer seed 35). The
 * reduction helpers are C compiled apart, with `long long` where the program has `long`:
 * with type-based alias tags the optimiser took the helper's identity store for one that
 * cannot touch the program's `long`, and the GPU summed a stale copy (the unoptimised
 * emulator cannot show it; the GPU run does). Also `unsigned long` and plain `char`. */
#define E2E_NAME "reduction_types_alias"
#include "e2e.h"

enum { NI = 33, NK = 7 };

int main(void) {
  long h3[NI * NK];
  for (int i = 0; i < NI * NK; i++) h3[i] = i % 5;
  long hist[3] = {3, 17, 14};
  unsigned long uh[2] = {1, 2};
  char ch = 1;
  long want0 = 3, h3w[NI * NK];
  unsigned long uw0 = 1;
  char cw = 1;
  for (int i = 0; i < NI * NK; i++) h3w[i] = h3[i];
  for (int i = 0; i < NI; i++) {
    unsigned long long r = 4;
    for (int k = 0; k < NK; k++) {
      want0 += 23L + i + k;
      uw0 += (unsigned long)(i ^ k);
      cw = (char)(cw + (i + k) % 3);
      r += (unsigned long long)h3w[i * NK + 1];
    }
    h3w[i * NK] = (long)(r % 997);
  }
#pragma acc parallel loop gang reduction(+:hist, uh, ch) copy(h3[0:NI * NK])
  for (int i = 0; i < NI; i++) {
    unsigned long long r = 4;
#pragma acc loop vector reduction(+:r)
    for (int k = 0; k < NK; k++) {
      hist[0] = (long)(23L + i + k) + hist[0];
      uh[0] += (unsigned long)(i ^ k);
      ch = (char)(ch + (i + k) % 3);
      r = r + (unsigned long long)h3[i * NK + 1];
    }
    h3[i * NK] = (long)(r % 997);
  }
  CHECK(hist[0] == want0 && hist[1] == 17 && hist[2] == 14, "long hist: %ld %ld %ld, want %ld 17 14", hist[0], hist[1], hist[2], want0);
  CHECK(uh[0] == uw0 && uh[1] == 2, "unsigned long: %lu %lu, want %lu 2", uh[0], uh[1], uw0);
  CHECK(ch == cw, "char: %d, want %d", ch, cw);
  for (int i = 0; i < NI * NK; i++) CHECK(h3[i] == h3w[i], "h3[%d]: %ld, want %ld", i, h3[i], h3w[i]);
  return e2e_finish();
}
