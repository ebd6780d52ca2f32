/* firstprivate of arrays and structs (OpenACC 3.3 §2.5.14): each gang's copy starts with the
 * host's value at the construct (changed on the host between two regions), the region's
 * writes reach only the copies (the host's array and struct keep their values), and a copy
 * written by the gang before its vector loop is what that gang's lanes read. Was: "OpenACC
 * 'firstprivate' of the array or struct 'coef' is not supported yet". Odd sizes; every
 * element checked. */
#define E2E_NAME "firstprivate_aggregate"
#include "e2e.h"

enum { N = 1001, G = 37, V = 45 };

struct params {
  int shift;
  double scale;
  short tag[3];
};

int main(void) {
  double coef[5] = {0.5, -1.0, 2.0, 3.5, -0.25};
  struct params p = {7, 1.5, {1, 2, 3}};
  static double out[N];
  static long rows[G * V];

  for (int round = 0; round < 2; round++) {
#pragma acc parallel loop firstprivate(coef, p) copyout(out)
    for (int i = 0; i < N; i++) {
      /* Every iteration writes the same values: the copies change, the host's never do. */
      coef[4] = 10.0;
      p.tag[1] = 9;
      out[i] = coef[i % 5] * p.scale * i + p.shift + p.tag[(i + 1) % 3];
    }
    for (int i = 0; i < N; i++) {
      double c = i % 5 == 4 ? 10.0 : coef[i % 5];
      short t = (i + 1) % 3 == 1 ? 9 : p.tag[(i + 1) % 3];
      double want = c * p.scale * i + p.shift + t;
      CHECK(out[i] == want, "round %d: out[%d] = %g, want %g", round, i, out[i], want);
    }
    CHECK(coef[4] == -0.25 && p.tag[1] == 2, "round %d: the host's copies changed: %g %d", round, coef[4], p.tag[1]);
    /* The next region sees the host's new values. */
    coef[0] += 1.0;
    p.shift -= 3;
    p.scale *= 2.0;
  }

  /* A gang sets its copy, then its vector lanes read it (other lanes' elements). */
  int base[4] = {100, 200, 300, 400};
#pragma acc parallel loop gang firstprivate(base) copyout(rows)
  for (int g = 0; g < G; g++) {
    base[g % 4] = g;
#pragma acc loop vector
    for (int v = 0; v < V; v++) rows[g * V + v] = base[g % 4] * 1000 + base[(g + v) % 4] * (v % 4 == 0);
  }
  for (int g = 0; g < G; g++)
    for (int v = 0; v < V; v++) {
      long want = (long)g * 1000 + (v % 4 == 0 ? g : 0);
      CHECK(rows[g * V + v] == want, "rows[%d][%d] = %ld, want %ld", g, v, rows[g * V + v], want);
    }
  CHECK(base[0] == 100 && base[3] == 400, "the host's base changed");
  return e2e_finish();
}
