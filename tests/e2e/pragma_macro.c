/* `_Pragma("acc parallel loop ...")` inside a macro, expanded twice. */
#define E2E_NAME "pragma_macro"
#include "e2e.h"

/* The pragma text is a string, so macro parameters are not substituted inside it: the macro
 * binds its arguments to fixed local names that the directive refers to. */
#define SCALE_ADD(dst, src, n, k)                                                          \
  do {                                                                                     \
    float *d_ = (dst);                                                                     \
    const float *s_ = (src);                                                               \
    int n_ = (n);                                                                          \
    float k_ = (k);                                                                        \
    _Pragma("acc parallel loop copy(d_[0:n_]) copyin(s_[0:n_])")                           \
    for (int i_ = 0; i_ < n_; i_++)                                                        \
      d_[i_] += k_ * s_[i_];                                                               \
  } while (0)

int main(void) {
  int n = 30011;
  float *x = e2e_alloc(sizeof(float) * n), *y = e2e_alloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) x[i] = (float)(i % 100), y[i] = 1.0f;

  SCALE_ADD(y, x, n, 2.0f);
  SCALE_ADD(y, x, n, 0.5f);

  for (int i = 0; i < n; i++) {
    float want = 1.0f + 2.5f * (float)(i % 100);
    if (y[i] != want) {
      CHECK(0, "y[%d]=%g want %g", i, y[i], want);
      break;
    }
  }
  free(x), free(y);
  return e2e_finish();
}
