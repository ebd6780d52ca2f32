/* Deep copy of a struct with two pointer members (OpenACC 3.3 §2.6.8, §2.7.2): enter data
 * of the struct, then of member sections (s->x[0:n], s->y[0:n]), attaches each member's
 * device copy to its section's device copy; kernels read and write through the present
 * struct; exit data copyout/delete of the sections detaches them (the host struct keeps
 * its host pointers). Also a struct value with a member section on a compute construct
 * (the struct is copied implicitly and its member attached once both are present), a
 * chain a->b->c in a data region, `create(zero:)`/`copyout(zero:)`, and rows of a
 * pointer-to-pointer matrix mapped one by one (each p[i][0:m] attaches p[i]).
 *
 * On a device with memory of its own, a kernel that used the host pointer instead of the
 * attached one would read the host's later values, which the host changes after the copyin
 * (without update): the expected values say which copy the kernel must see. */
#define E2E_NAME "deep_copy"
#include "e2e.h"
#include <openacc.h>

typedef struct {
  int n;
  double *x;
  double *y;
} vecs;

typedef struct { vecs *v; } holder;

/* Whether the device shares the host's memory (the host path). */
static int shared_memory(void *p) { return acc_deviceptr(p) == p; }

static void through_present_struct(int n) {
  vecs *s = e2e_alloc(sizeof *s);
  s->n = n;
  s->x = e2e_alloc(sizeof(double) * n);
  s->y = e2e_alloc(sizeof(double) * n);
  double *hx = s->x, *hy = s->y;
  for (int i = 0; i < n; i++) s->x[i] = i, s->y[i] = -7;

#pragma acc enter data copyin(s[0:1])
#pragma acc enter data copyin(s->x[0:n]) create(zero: s->y[0:n])
  int shared = shared_memory(s->x);
  /* Host-only change: the device copy keeps x[i] = i. */
  for (int i = 0; i < n; i++) s->x[i] = 1000 + i;
  if (shared) /* one memory: zero-filled y is the host's y, which the host set */
    for (int i = 0; i < n; i++) s->y[i] = 0;

#pragma acc parallel loop present(s[0:1])
  for (int i = 0; i < s->n; i++)
    s->y[i] += 2 * s->x[i] + 1;

#pragma acc exit data copyout(s->y[0:n]) delete(s->x[0:n])
#pragma acc exit data delete(s[0:1])
  CHECK(s->x == hx && s->y == hy, "the host struct lost its host pointers: x %p y %p", (void *)s->x, (void *)s->y);
  for (int i = 0; i < n; i++) {
    double want = 2.0 * (shared ? 1000 + i : i) + 1;
    CHECK(s->y[i] == want, "present struct: y[%d]=%g want %g", i, s->y[i], want);
    CHECK(s->x[i] == 1000 + i, "x[%d]=%g changed", i, s->x[i]);
  }
  free(s->x), free(s->y), free(s);
}

static void struct_value_on_compute_construct(int n) {
  vecs v = {n, e2e_alloc(sizeof(double) * n), e2e_alloc(sizeof(double) * n)};
  double *hx = v.x;
  for (int i = 0; i < n; i++) v.x[i] = i, v.y[i] = 3 * i;
  /* v itself is copied implicitly; v.x and v.y are attached to their sections. */
#pragma acc parallel loop copy(v.x[0:n]) copyin(v.y[0:n])
  for (int i = 0; i < n; i++)
    v.x[i] += v.y[i];
  CHECK(v.x == hx, "v.x was overwritten with %p", (void *)v.x);
  for (int i = 0; i < n; i++)
    CHECK(v.x[i] == 4.0 * i, "struct value: x[%d]=%g want %g", i, v.x[i], 4.0 * i);
  free(v.x), free(v.y);
}

static void chain_in_data_region(int n) {
  vecs v = {n, e2e_alloc(sizeof(double) * n), e2e_alloc(sizeof(double) * n)};
  holder h = {&v};
  holder *hp = &h;
  for (int i = 0; i < n; i++) v.x[i] = i, v.y[i] = 5;
#pragma acc data copyin(hp[0:1], hp->v[0:1]) copy(hp->v->x[0:n]) copyout(zero: hp->v->y[0:n])
  {
#pragma acc parallel loop present(hp[0:1])
    for (int i = 0; i < n; i++) {
      hp->v->x[i] = hp->v->x[i] * 2 + hp->v->y[i];
      hp->v->y[i] += i;
    }
  }
  CHECK(h.v == &v && v.x != 0, "the chain's host pointers changed");
  for (int i = 0; i < n; i++) {
    /* Shared memory: y started at 5, not zero. */
    double y0 = shared_memory(v.y) ? 5 : 0;
    CHECK(v.x[i] == 2.0 * i + y0, "chain: x[%d]=%g want %g", i, v.x[i], 2.0 * i + y0);
    CHECK(v.y[i] == y0 + i, "chain: y[%d]=%g want %g", i, v.y[i], y0 + i);
  }
  free(v.x), free(v.y);
}

static void pointer_rows(int n, int m) {
  double **p = e2e_alloc(sizeof(double *) * n);
  for (int i = 0; i < n; i++) {
    p[i] = e2e_alloc(sizeof(double) * m);
    for (int j = 0; j < m; j++) p[i][j] = i * m + j;
  }
#pragma acc enter data copyin(p[0:n])
  for (int i = 0; i < n; i++) {
#pragma acc enter data copyin(p[i][0:m])
  }
#pragma acc parallel loop present(p[0:n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) p[i][j] = -p[i][j] - 1;
  for (int i = 0; i < n; i++) {
#pragma acc exit data copyout(p[i][0:m])
  }
#pragma acc exit data delete(p[0:n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      CHECK(p[i][j] == -(i * m + j) - 1.0, "rows: p[%d][%d]=%g", i, j, p[i][j]);
  for (int i = 0; i < n; i++) free(p[i]);
  free(p);
}

int main(void) {
  through_present_struct(1037);
  struct_value_on_compute_construct(333);
  chain_in_data_region(517);
  pointer_rows(13, 29);
  return e2e_finish();
}
