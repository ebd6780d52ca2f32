/* A loop's private section whose bounds the region computes (OpenACC 3.3 §2.9.10: a copy
 * per iteration): made where each iteration starts (codegen/src/private_copies.rs
 * InLoopCopy), on the thread's stack when only the loop's lanes use it (a vector loop with
 * sequential loops inside), from the device heap when a finer loop's lanes share it (a
 * worker loop around a vector loop: one per worker; a gang loop around worker-vector loops:
 * one per gang); members too (`ps->p[0:k]`, `sr.p[0:k]`), and sections through pointer rows
 * (`pr[0:k][1:k2]` of `double **pr`: the copy's row pointers aimed at its rows; was "through
 * pointer rows ... not supported yet"). The pointers are never
 * dereferenced outside those loops, so no clause maps their targets (and the host's data
 * must not change). Was "not supported yet". Odd sizes;
 * every result checked. */
#define E2E_NAME "private_in_loop"
#include "e2e.h"

enum { N = 301, W = 3, V = 5, G = 23 };

int main(void) {
  double *t = e2e_alloc(sizeof(double) * 100);
  long *u = e2e_alloc(sizeof(long) * 100);
  int *g = e2e_alloc(sizeof(int) * 100);
  for (int i = 0; i < 100; i++) t[i] = -1, u[i] = -7, g[i] = -3;
  double *out = e2e_alloc(sizeof(double) * N * V);
  long *out2 = e2e_alloc(sizeof(long) * N * W);
  int *out3 = e2e_alloc(sizeof(int) * G * 4);
  long *out4 = e2e_alloc(sizeof(long) * N * W);
  long *out5 = e2e_alloc(sizeof(long) * N * V);

  /* Vector loop: each iteration its own copy (the thread's stack). */
#pragma acc parallel loop gang copyout(out[0:N * V])
  for (int j = 0; j < N; j++) {
    int k = j % 7 + 3;
#pragma acc loop vector private(t[1:k])
    for (int v = 0; v < V; v++) {
      for (int q = 1; q <= k; q++) t[q] = 100.0 * v + q + j;
      double s = 0;
      for (int q = 1; q <= k; q++) s += t[k + 1 - q] * q;
      out[j * V + v] = s;
    }
  }

  /* Vector loop, copies of 24 KiB: over the thread's stack share, from the device heap
   * (the stack overran: CUDA_ERROR_ILLEGAL_ADDRESS). */
  double *big = e2e_alloc(sizeof(double) * 3100), *outb = e2e_alloc(sizeof(double) * 37 * V);
#pragma acc parallel loop gang copyout(outb[0:37 * V])
  for (int j = 0; j < 37; j++) {
    int k = 3000 + j % 7;
#pragma acc loop vector private(big[0:k])
    for (int v = 0; v < V; v++) {
      for (int q = 0; q < k; q++) big[q] = v + q + j;
      double s = 0;
      for (int q = 0; q < k; q++) s += big[k - 1 - q] * (q % 3);
      outb[j * V + v] = s;
    }
  }
  for (int j = 0; j < 37; j++)
    for (int v = 0; v < V; v++) {
      int k = 3000 + j % 7;
      double s = 0;
      for (int q = 0; q < k; q++) s += (double)(v + (k - 1 - q) + j) * (q % 3);
      CHECK(outb[j * V + v] == s, "big vector copies: outb[%d][%d] = %g, want %g", j, v, outb[j * V + v], s);
    }
  free(big), free(outb);

  /* Worker loop: one copy per worker iteration, shared by its vector lanes (device heap). */
#pragma acc parallel loop gang num_workers(W) vector_length(32) copyout(out2[0:N * W])
  for (int j = 0; j < N; j++) {
    int k = j % 11 + 40;
#pragma acc loop worker private(u[0:k])
    for (int w = 0; w < W; w++) {
#pragma acc loop vector
      for (int q = 0; q < k; q++) u[q] = 1000L * w + q + j;
      long s = 0;
#pragma acc loop vector reduction(+:s)
      for (int q = 0; q < k; q++) s += u[k - 1 - q] * (q & 1);
      out2[j * W + w] = s;
    }
  }

  /* Gang loop of a parallel region sized by a value the region computes: one copy per gang
   * iteration, shared by the gang's workers and lanes. */
#pragma acc parallel num_workers(2) vector_length(32) copyout(out3[0:G * 4])
  {
    int k = G % 5 + 33;
#pragma acc loop gang private(g[2:k])
    for (int j = 0; j < G; j++) {
#pragma acc loop worker vector
      for (int q = 2; q < k + 2; q++) g[q] = q * 10 + j;
#pragma acc loop worker
      for (int c = 0; c < 4; c++) out3[j * 4 + c] = g[k + 1 - c] + g[2 + c];
    }
  }

  /* Members: through a pointer to a struct on the device (its member not mapped), per
   * worker; of a struct variable, per thread. */
  struct rows { long *p; int n; } sr = {u, 5}, *ps = &sr;
#pragma acc parallel loop gang num_workers(W) vector_length(32) copyin(ps[0:1]) copyout(out4[0:N * W])
  for (int j = 0; j < N; j++) {
    int k = j % 13 + 20;
#pragma acc loop worker private(ps->p[0:k])
    for (int w = 0; w < W; w++) {
#pragma acc loop vector
      for (int q = 0; q < k; q++) ps->p[q] = 7L * w + q + j + ps->n;
      long s = 0;
#pragma acc loop vector reduction(+:s)
      for (int q = 0; q < k; q++) s += ps->p[k - 1 - q] * (q % 3);
      out4[j * W + w] = s;
    }
  }
#pragma acc parallel loop gang copyout(out5[0:N * V])
  for (int j = 0; j < N; j++) {
    int k = j % 5 + 2;
#pragma acc loop vector private(sr.p[0:k])
    for (int v = 0; v < V; v++) {
      for (int q = 0; q < k; q++) sr.p[q] = v * 10L + q + j;
      long s = 0;
      for (int q = 0; q < k; q++) s += sr.p[k - 1 - q] * (q + 1);
      out5[j * V + v] = s;
    }
  }

  for (int j = 0; j < N; j++) {
    int k4 = j % 13 + 20, k5 = j % 5 + 2;
    for (int w = 0; w < W; w++) {
      long s = 0;
      for (int q = 0; q < k4; q++) s += (7L * w + (k4 - 1 - q) + j + 5) * (q % 3);
      CHECK(out4[j * W + w] == s, "member through a pointer: out4[%d][%d] = %ld, want %ld", j, w, out4[j * W + w], s);
    }
    for (int v = 0; v < V; v++) {
      long s = 0;
      for (int q = 0; q < k5; q++) s += (v * 10L + (k5 - 1 - q) + j) * (q + 1);
      CHECK(out5[j * V + v] == s, "struct member: out5[%d][%d] = %ld, want %ld", j, v, out5[j * V + v], s);
    }
  }
  for (int j = 0; j < N; j++) {
    int k = j % 7 + 3;
    for (int v = 0; v < V; v++) {
      double s = 0;
      for (int q = 1; q <= k; q++) s += (100.0 * v + (k + 1 - q) + j) * q;
      CHECK(out[j * V + v] == s, "vector: out[%d][%d] = %g, want %g", j, v, out[j * V + v], s);
    }
    int k2 = j % 11 + 40;
    for (int w = 0; w < W; w++) {
      long s = 0;
      for (int q = 0; q < k2; q++) s += (1000L * w + (k2 - 1 - q) + j) * (q & 1);
      CHECK(out2[j * W + w] == s, "worker: out2[%d][%d] = %ld, want %ld", j, w, out2[j * W + w], s);
    }
  }
  int k3 = G % 5 + 33;
  for (int j = 0; j < G; j++)
    for (int c = 0; c < 4; c++) {
      int want = ((k3 + 1 - c) * 10 + j) + ((2 + c) * 10 + j);
      CHECK(out3[j * 4 + c] == want, "gang: out3[%d][%d] = %d, want %d", j, c, out3[j * 4 + c], want);
    }
  for (int i = 0; i < 100; i++)
    CHECK(t[i] == -1 && u[i] == -7 && g[i] == -3, "the host's data changed at %d: %g %ld %d", i, t[i], u[i], g[i]);

  /* Through pointer rows: per vector iteration (the thread's stack), and per worker iteration
   * shared by its lanes (the device heap). */
  double **pr = e2e_alloc(sizeof(double *) * 9);
  for (int r = 0; r < 9; r++) {
    pr[r] = e2e_alloc(sizeof(double) * 12);
    for (int c = 0; c < 12; c++) pr[r][c] = -5;
  }
  double *out6 = e2e_alloc(sizeof(double) * N * V), *out7 = e2e_alloc(sizeof(double) * N * W);
#pragma acc parallel loop gang copyout(out6[0:N * V])
  for (int j = 0; j < N; j++) {
    int k = j % 4 + 2, k2 = j % 3 + 3;
#pragma acc loop vector private(pr[0:k][1:k2])
    for (int v = 0; v < V; v++) {
      for (int r = 0; r < k; r++)
        for (int c = 1; c <= k2; c++) pr[r][c] = 100.0 * r + c + v + j;
      double s = 0;
      for (int r = 0; r < k; r++)
        for (int c = 1; c <= k2; c++) s += pr[k - 1 - r][k2 + 1 - c] * (r + 2 * c);
      out6[j * V + v] = s;
    }
  }
#pragma acc parallel loop gang num_workers(W) vector_length(32) copyout(out7[0:N * W])
  for (int j = 0; j < N; j++) {
    int k = j % 5 + 3, k2 = j % 7 + 4;
#pragma acc loop worker private(pr[1:k][0:k2])
    for (int w = 0; w < W; w++) {
#pragma acc loop vector collapse(2)
      for (int r = 1; r <= k; r++)
        for (int c = 0; c < k2; c++) pr[r][c] = 1000.0 * w + 10 * r + c + j;
      double s = 0;
#pragma acc loop vector reduction(+:s)
      for (int r = 1; r <= k; r++)
        for (int c = 0; c < k2; c++) s += pr[k + 1 - r][k2 - 1 - c] * ((r + c) % 3);
      out7[j * W + w] = s;
    }
  }
  for (int j = 0; j < N; j++) {
    int k = j % 4 + 2, k2 = j % 3 + 3;
    for (int v = 0; v < V; v++) {
      double s = 0;
      for (int r = 0; r < k; r++)
        for (int c = 1; c <= k2; c++) s += (100.0 * (k - 1 - r) + (k2 + 1 - c) + v + j) * (r + 2 * c);
      CHECK(out6[j * V + v] == s, "rows, vector: out6[%d][%d] = %g, want %g", j, v, out6[j * V + v], s);
    }
    k = j % 5 + 3, k2 = j % 7 + 4;
    for (int w = 0; w < W; w++) {
      double s = 0;
      for (int r = 1; r <= k; r++)
        for (int c = 0; c < k2; c++) s += (1000.0 * w + 10 * (k + 1 - r) + (k2 - 1 - c) + j) * ((r + c) % 3);
      CHECK(out7[j * W + w] == s, "rows, worker: out7[%d][%d] = %g, want %g", j, w, out7[j * W + w], s);
    }
  }
  for (int r = 0; r < 9; r++) {
    for (int c = 0; c < 12; c++) CHECK(pr[r][c] == -5, "the host's pr[%d][%d] changed to %g", r, c, pr[r][c]);
    free(pr[r]);
  }
  free(pr), free(out6), free(out7);
  free(t);
  free(u);
  free(g);
  free(out);
  free(out2);
  free(out3);
  free(out4);
  free(out5);
  return e2e_finish();
}
