/* A gang loop with no partitioned loop inside is spread over its gang's workers and lanes
 * (mapping.rs effective_levels), which runs iterations that the gang would run one after
 * another at the same time. That is only right when they write no memory the gang shares:
 * an array of the region used outside the loop too (one per gang), a construct's private
 * or firstprivate copy (one per gang). Such a loop stays on the gang level alone
 * (privatize::writes_gang_memory), and a combined construct's firstprivate copy becomes each
 * executor's. Every iteration writes the shared memory and reads it back, so iterations
 * that ran at once would mix their values. Was: wrong sums (36 of 37 rows, even with the
 * emulator's forward schedule). */
#define E2E_NAME "gang_shared_writes"
#include "e2e.h"

enum { G = 37, BIG = 700 };

int main(void) {
  int n = 600;
  double *a = e2e_alloc(sizeof(double) * n), out[G], first = 0;
  for (int k = 0; k < n; k++) a[k] = k;

  /* An array the region declares before the gang loop, used after it too. */
#pragma acc parallel copyout(out, first)
  {
    double t[10];
    for (int k = 0; k < 10; k++) t[k] = -1;
#pragma acc loop gang
    for (int g = 0; g < G; g++) {
      for (int k = 0; k < 10; k++) t[k] = g;
      double s = 0;
      for (int k = 0; k < 10; k++) s += t[k];
      out[g] = s;
    }
    first = t[0];
  }
  for (int g = 0; g < G; g++) CHECK(out[g] == 10.0 * g, "region array: out[%d] = %g, want %g", g, out[g], 10.0 * g);
  CHECK(first >= 0 && first < G, "region array: t[0] after the loop = %g", first);

  /* A firstprivate section of the construct (the gang's copy, in the launch's area). */
#pragma acc parallel firstprivate(a[0:n]) copyout(out)
  {
#pragma acc loop gang
    for (int g = 0; g < G; g++) {
      for (int k = 0; k < 10; k++) a[k] = g + a[n - 1 - k];
      double s = 0;
      for (int k = 0; k < 10; k++) s += a[k];
      out[g] = s;
    }
  }
  for (int g = 0; g < G; g++) {
    double want = 10.0 * g;
    for (int k = 0; k < 10; k++) want += n - 1 - k;
    CHECK(out[g] == want, "firstprivate section: out[%d] = %g, want %g", g, out[g], want);
  }

  /* A combined construct's firstprivate array too large for a kernel parameter: each
   * executor of the spread loop gets its own copy. */
  double big[BIG];
  for (int k = 0; k < BIG; k++) big[k] = 0.5 * k;
#pragma acc parallel loop firstprivate(big) copyout(out)
  for (int g = 0; g < G; g++) {
    for (int k = 0; k < 10; k++) big[k] = g;
    double s = 0;
    for (int k = 0; k < 10; k++) s += big[k] + big[BIG - 1 - k];
    out[g] = s;
  }
  for (int g = 0; g < G; g++) {
    double want = 10.0 * g;
    for (int k = 0; k < 10; k++) want += 0.5 * (BIG - 1 - k);
    CHECK(out[g] == want, "combined firstprivate: out[%d] = %g, want %g", g, out[g], want);
  }
  for (int k = 0; k < n; k++) CHECK(a[k] == k, "the host's a[%d] changed to %g", k, a[k]);
  free(a);
  return e2e_finish();
}
