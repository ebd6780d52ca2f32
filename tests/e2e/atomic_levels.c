/* OpenACC atomic at every level of parallelism and on every kind of storage:
 *  - a histogram with collisions from a gang x worker x vector loop (global memory);
 *  - a counter declared in a gang loop's body (gang-private: one per gang, in shared memory
 *    on the GPU) that the gang's worker/vector lanes update, then read in gang-redundant
 *    code; the same with a worker-private counter and a gang-private array;
 *  - atomics in worker-single (gang-redundant) and vector-single code: executed once per
 *    gang / once per worker, not once per lane;
 *  - a scalar updated in `kernels` (implicitly copy) and in `parallel` with copy();
 *  - the `if` clause, true and false, and atomics in host code outside any region.
 * Odd sizes and launch shapes; every element checked. */
#define E2E_NAME "atomic_levels"
#include "e2e.h"

#define N 1001
#define B 13
#define G 5
#define M 37

int main(void) {
  int hist[B];
  double fhist[B];
  unsigned char wrap[B];
  for (int b = 0; b < B; b++) hist[b] = 0, fhist[b] = 0, wrap[b] = 1;
#pragma acc parallel loop gang worker vector num_gangs(7) num_workers(3) vector_length(33) copy(hist, fhist, wrap)
  for (int i = 0; i < N; i++) {
#pragma acc atomic
    hist[(i * i) % B]++;
#pragma acc atomic update
    fhist[i % B] += 0.5 * (i % 4);
#pragma acc atomic update
    wrap[i % B] *= 3;
  }
  int want_hist[B] = {0};
  double want_f[B] = {0};
  unsigned char want_w[B];
  for (int b = 0; b < B; b++) want_w[b] = 1;
  for (int i = 0; i < N; i++) want_hist[(i * i) % B]++, want_f[i % B] += 0.5 * (i % 4), want_w[i % B] *= 3;
  for (int b = 0; b < B; b++) {
    CHECK(hist[b] == want_hist[b], "hist[%d] = %d, want %d", b, hist[b], want_hist[b]);
    CHECK(fhist[b] == want_f[b], "fhist[%d] = %g, want %g", b, fhist[b], want_f[b]);
    CHECK(wrap[b] == want_w[b], "wrap[%d] = %d, want %d", b, wrap[b], want_w[b]);
  }

  /* Gang- and worker-private counters and arrays that the finer lanes share. */
  int per_gang[G], per_gang_arr[G * 3], per_worker[G * 4], per_gang_max[G];
  float per_gang_f[G];
  for (int g = 0; g < G * 4; g++) per_worker[g] = -1;
#pragma acc parallel num_gangs(3) num_workers(4) vector_length(32) copy(per_gang, per_gang_arr, per_worker, per_gang_f, per_gang_max)
  {
#pragma acc loop gang
    for (int g = 0; g < G; g++) {
      int count = 0; /* gang-private */
      float fsum = 0;
      long big = -1;
      int arr[3] = {0, 0, 0};
#pragma acc loop worker
      for (int w = 0; w < 4; w++) {
        int wcount = g; /* worker-private */
#pragma acc loop vector
        for (int k = 0; k < M; k++) {
#pragma acc atomic update
          count += k + g;
#pragma acc atomic
          fsum += 0.25f;
#pragma acc atomic
          arr[k % 3]++;
#pragma acc atomic update
          wcount++;
#pragma acc atomic update
          big = big < (long)(k * w + g) ? (long)(k * w + g) : big;
        }
        per_worker[g * 4 + w] = wcount;
      }
      per_gang[g] = count;
      per_gang_f[g] = fsum;
      per_gang_max[g] = (int)big;
      for (int q = 0; q < 3; q++) per_gang_arr[g * 3 + q] = arr[q];
    }
  }
  for (int g = 0; g < G; g++) {
    int want = 4 * (M * (M - 1) / 2 + M * g);
    CHECK(per_gang[g] == want, "per_gang[%d] = %d, want %d", g, per_gang[g], want);
    CHECK(per_gang_f[g] == 0.25f * 4 * M, "per_gang_f[%d] = %g, want %g", g, per_gang_f[g], 0.25 * 4 * M);
    CHECK(per_gang_max[g] == (M - 1) * 3 + g, "per_gang_max[%d] = %d, want %d", g, per_gang_max[g], (M - 1) * 3 + g);
    for (int q = 0; q < 3; q++) {
      int wq = 4 * ((M - q + 2) / 3);
      CHECK(per_gang_arr[g * 3 + q] == wq, "per_gang_arr[%d][%d] = %d, want %d", g, q, per_gang_arr[g * 3 + q], wq);
    }
    for (int w = 0; w < 4; w++)
      CHECK(per_worker[g * 4 + w] == g + M, "per_worker[%d][%d] = %d, want %d", g, w, per_worker[g * 4 + w], g + M);
  }

  /* Single-lane modes: an atomic outside the worker and vector loops runs once per gang
   * iteration; one inside a worker loop but outside its vector loop, once per worker
   * iteration. Captures there see each value once. */
  int once = 0, per_w = 0, caps[G], wcaps[G * 6];
#pragma acc parallel num_gangs(4) num_workers(3) vector_length(32) copy(once, per_w, caps, wcaps)
  {
#pragma acc loop gang
    for (int g = 0; g < G; g++) {
#pragma acc atomic capture
      caps[g] = once++;
#pragma acc loop worker
      for (int w = 0; w < 6; w++) {
#pragma acc atomic capture
        { wcaps[g * 6 + w] = per_w; per_w += 2; }
      }
    }
  }
  CHECK(once == G, "gang-redundant atomic ran %d times, want %d", once, G);
  CHECK(per_w == 2 * G * 6, "vector-single atomic added %d, want %d", per_w, 2 * G * 6);
  int seen[G * 6] = {0};
  for (int g = 0; g < G; g++) {
    CHECK(caps[g] >= 0 && caps[g] < G, "caps[%d] = %d", g, caps[g]);
    if (caps[g] >= 0 && caps[g] < G) seen[caps[g]]++;
  }
  for (int g = 0; g < G; g++) CHECK(seen[g] == 1, "capture %d seen %d times", g, seen[g]);
  for (int q = 0; q < G * 6; q++) seen[q] = 0;
  for (int q = 0; q < G * 6; q++) {
    int v = wcaps[q];
    CHECK(v >= 0 && v % 2 == 0 && v / 2 < G * 6, "wcaps[%d] = %d", q, v);
    if (v >= 0 && v % 2 == 0 && v / 2 < G * 6) seen[v / 2]++;
  }
  for (int q = 0; q < G * 6; q++) CHECK(seen[q] == 1, "vector-single capture %d seen %d times", 2 * q, seen[q]);

  /* kernels: a written scalar is copy; parallel with copy(); the if clause; serial. */
  long total = 0;
  int counted = 0, own[N], yes = N > 1;
  for (int i = 0; i < N; i++) own[i] = i;
#pragma acc kernels
  {
#pragma acc loop independent
    for (int i = 0; i < N; i++) {
#pragma acc atomic update
      total += i;
    }
  }
  CHECK(total == (long)N * (N - 1) / 2, "kernels total = %ld, want %ld", total, (long)N * (N - 1) / 2);
  /* if(true): atomic; if(false): the statement still runs, as plain C (here on the lane's
   * own element, so that needs no atomicity). */
#pragma acc parallel loop num_gangs(3) vector_length(64) copy(counted, own)
  for (int i = 0; i < N; i++) {
#pragma acc atomic update if(yes)
    counted++;
#pragma acc atomic if(i < 0)
    own[i] *= 2;
  }
  CHECK(counted == N, "counted = %d, want %d", counted, N);
  for (int i = 0; i < N; i++) CHECK(own[i] == 2 * i, "own[%d] = %d, want %d", i, own[i], 2 * i);
  int sv = 0, sx = 5;
#pragma acc serial copy(sv, sx)
  {
#pragma acc atomic capture
    sv = sx = sx * 7;
  }
  CHECK(sv == 35 && sx == 35, "serial capture: %d %d", sv, sx);

  /* Host code, outside any region. */
  int h = 0;
  for (int i = 0; i < 10; i++) {
#pragma acc atomic update
    h += i;
  }
  int hr;
#pragma acc atomic read
  hr = h;
  CHECK(hr == 45, "host atomic: %d", hr);
  return e2e_finish();
}
