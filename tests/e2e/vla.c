/* Variable-length arrays (C99 `double v[m]`) in compute regions: used without a clause
 * (implicitly copied, all m elements), in copy/copyout clauses, privatised (a copy per gang in
 * the launch's private area), firstprivate (each gang's copy starts as the host's), and
 * declared inside the region: shared by a gang's lanes (a vector loop fills it, gang code
 * and another vector loop read other lanes' elements) or each thread's own. Was: a VLA was
 * taken for a scalar of its element type (one element mapped, a private slot of one
 * element): wrong values on the host path, faults on the device. Odd sizes; every element
 * checked. */
#define E2E_NAME "vla"
#include "e2e.h"

enum { G = 37, V = 5 };

static int run(int m) {
  double v[m], w[m];
  long out[G * V];
  for (int i = 0; i < m; i++) v[i] = 0.5 * i, w[i] = -1;

  /* No clause: the whole array is copied in and out. */
#pragma acc parallel loop
  for (int i = 0; i < m; i++) w[i] = v[m - 1 - i] * 2;
  for (int i = 0; i < m; i++) CHECK(w[i] == (m - 1 - i) * 1.0, "implicit: w[%d] = %g", i, w[i]);

  /* private: each gang fills its copy, its lanes read others' elements. */
#pragma acc parallel loop gang private(w) copyout(out)
  for (int j = 0; j < G; j++) {
#pragma acc loop vector
    for (int k = 0; k < m; k++) w[k] = 100.0 * j + k;
#pragma acc loop vector
    for (int k = 0; k < V; k++) out[j * V + k] = (long)w[m - 1 - k];
  }
  for (int j = 0; j < G; j++)
    for (int k = 0; k < V; k++) CHECK(out[j * V + k] == 100L * j + m - 1 - k, "private: out[%d][%d] = %ld", j, k, out[j * V + k]);
  CHECK(w[0] == m - 1, "private: the host's w changed: %g", w[0]);

  /* firstprivate: every gang's copy starts as the host's array. */
#pragma acc parallel num_gangs(G) firstprivate(v) copyout(out)
  {
#pragma acc loop gang
    for (int j = 0; j < G; j++) {
      v[j % m] += 1000;
#pragma acc loop vector
      for (int k = 0; k < V; k++) out[j * V + k] = (long)(v[(j + k) % m] * 2);
    }
  }
  CHECK(out[0] == 2000, "firstprivate: out[0][0] = %ld", out[0]);
  for (int k = 1; k < V; k++) CHECK(out[k] == k, "firstprivate: out[0][%d] = %ld, want %d", k, out[k], k);
  CHECK(v[0] == 0 && v[m - 1] == 0.5 * (m - 1), "firstprivate: the host's v changed");

  /* Declared in the region: a gang's lanes share it; a vector loop's body has its own. */
#pragma acc parallel loop gang copyout(out)
  for (int j = 0; j < G; j++) {
    double t[m];
#pragma acc loop vector
    for (int k = 0; k < m; k++) t[k] = j + k;
    out[j * V] = (long)t[m - 1];
#pragma acc loop vector
    for (int k = 1; k < V; k++) {
      int own[m];
      own[k] = k * 10;
      own[m - 1] = (int)t[m - 1 - k];
      out[j * V + k] = own[k] + own[m - 1];
    }
  }
  for (int j = 0; j < G; j++) {
    CHECK(out[j * V] == j + m - 1, "declared: out[%d][0] = %ld", j, out[j * V]);
    for (int k = 1; k < V; k++) CHECK(out[j * V + k] == k * 10 + j + m - 1 - k, "declared: out[%d][%d] = %ld", j, k, out[j * V + k]);
  }
  return 0;
}

int main(int argc, char **argv) {
  (void)argv;
  run(52 + argc); /* 53: not known when compiling */
  run(7);
  /* A thread's own array over its stack's share (2800 bytes): from the device heap. */
  run(700);
  return e2e_finish();
}
