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
  /* The kernel of build/exp4/m.c, which gave 10913511908841 for hist4[0] on the H100 before. */
  long h3[NI * NK], h3w[NI * NK];
  for (int i = 0; i < NI * NK; i++) h3[i] = h3w[i] = i % 5;
  long hist4[3] = {3, 17, 14};
  long w0 = 3;
  for (int i8 = 0; i8 < NI; i8++) {
    unsigned long long r7 = 4;
    for (int k9 = 0; k9 < NK; k9++) {
      w0 += 23L + i8 + k9;
      r7 = r7 + (unsigned long long)(h3w[i8 * NK + 1]);
    }
    h3w[i8 * NK] = (long)(r7 % 997);
  }
#pragma acc parallel loop gang reduction(+:hist4) copy(h3[0:NI * NK])
  for (int i8 = 0; i8 < NI; i8++) {
    unsigned long long r7 = 4;
#pragma acc loop vector reduction(+:r7)
    for (int k9 = 0; k9 < NK; k9++) {
      hist4[0] = (long)(23L + i8 + k9) + hist4[0];
      r7 = r7 + (unsigned long long)(h3[i8 * NK + 1]);
    }
    h3[i8 * NK] = (long)(r7 % 997);
  }
  CHECK(hist4[0] == w0 && hist4[1] == 17 && hist4[2] == 14, "long hist4: %ld %ld %ld, want %ld 17 14", hist4[0], hist4[1], hist4[2], w0);
  for (int i = 0; i < NI * NK; i++) CHECK(h3[i] == h3w[i], "h3[%d]: %ld, want %ld", i, h3[i], h3w[i]);

  /* The same shape with unsigned long and plain char. */
  unsigned long uh[2] = {1, 2}, uw0 = 1;
  char ch = 1, cw = 1;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) uw0 += (unsigned long)(i ^ k), cw = (char)(cw + (i + k) % 3);
#pragma acc parallel loop gang reduction(+:uh, ch)
  for (int i = 0; i < NI; i++) {
#pragma acc loop vector
    for (int k = 0; k < NK; k++) {
      uh[0] += (unsigned long)(i ^ k);
      ch = (char)(ch + (i + k) % 3);
    }
  }
  CHECK(uh[0] == uw0 && uh[1] == 2, "unsigned long: %lu %lu, want %lu 2", uh[0], uh[1], uw0);
  CHECK(ch == cw, "char: %d, want %d", ch, cw);
  return e2e_finish();
}
