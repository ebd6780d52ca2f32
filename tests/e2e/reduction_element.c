/* A reduction on an array element, `reduction(+: s[q])` (OpenACC 3.3 §2.5.15, §2.9.11),
 * while the region also reads other elements of `s`: the array is mapped implicitly as a
 * whole and the element by the reduction. Was: "data in COPY clause is only partially
 * present" (the element entered first, then the whole array overlapped it). And a loop's
 * `reduction(max: c[1])` inside `parallel`, whose `&c[1]` is computed inside the region:
 * was an internal error (the host mapped that address, an instruction of the kernel).
 * The other elements keep their values; lanes read neighbours' inputs. */
#define E2E_NAME "reduction_element"
#include "e2e.h"

enum { N = 1001 };

int main(void) {
  double s[5] = {1.5, -2.0, 10.0, 7.25, 3.0};
  long c[3] = {4, 5, 6};
  static double x[N];
  for (int i = 0; i < N; i++) x[i] = (i % 17) * 0.5;
  int q = 2;

#pragma acc parallel loop reduction(+ : s[q]) copyin(x)
  for (int i = 0; i < N; i++) s[q] += x[i] * s[0] + x[(i + 1) % N] * s[4];

#pragma acc parallel
  {
#pragma acc loop gang vector reduction(max : c[1])
    for (int i = 0; i < N; i++)
    {
      long v = i % 97 + c[0] + c[2];
      c[1] = c[1] > v ? c[1] : v;
    }
  }

  /* The same element named by the construct and by its loop (fuzz seed 13: the pass
   * crashed, one item's address replaced by the other's and erased). */
  double t[3] = {0.5, 0.0, 2.0};
  int r = 1;
#pragma acc parallel reduction(+ : t[r]) copyin(x)
  {
#pragma acc loop gang vector reduction(+ : t[r])
    for (int i = 0; i < N; i++) t[r] += x[i] + t[0];
  }
  double want_t = 0;
  for (int i = 0; i < N; i++) want_t += x[i] + 0.5;
  CHECK(t[1] == want_t && t[0] == 0.5 && t[2] == 2.0, "t = {%g, %.17g, %g}, want t[1] = %.17g", t[0], t[1], t[2], want_t);

  double want = 10.0;
  for (int i = 0; i < N; i++) want += x[i] * 1.5 + x[(i + 1) % N] * 3.0;
  CHECK(s[2] == want, "s[2] = %.17g, want %.17g", s[2], want);
  CHECK(s[0] == 1.5 && s[1] == -2.0 && s[3] == 7.25 && s[4] == 3.0, "other elements changed: %g %g %g %g", s[0], s[1], s[3], s[4]);
  CHECK(c[1] == 96 + 4 + 6, "c[1] = %ld, want %d", c[1], 96 + 4 + 6);
  CHECK(c[0] == 4 && c[2] == 6, "c's other elements changed: %ld %ld", c[0], c[2]);
  return e2e_finish();
}
