/* Tables of addresses of declared globals (OpenACC 3.3 §2.13): `double *const fields[] =
 * {u, v + 1}` with `declare create(u, v)`, read in device code directly and through a `seq`
 * routine, and a table of structs holding such addresses. The device's copy of each table
 * is filled with the globals' device addresses (codegen/src/globals.rs patch_tables). The
 * device copies are changed by a kernel and not copied back, so a table that held the
 * host's addresses would read the host's (older) values. Was: "the address of the declared
 * global 'u' held in another global's initialiser ... is not supported yet". */
#define E2E_NAME "declare_table"
#include "e2e.h"
#include <openacc.h>

#define N 1001
double u[N], v[N];
#pragma acc declare create(u, v)
double *const fields[2] = {u, v + 1};
struct pair {
  int scale;
  double *p;
};
const struct pair pairs[2] = {{1, v}, {2, u + 2}};

#pragma acc routine seq
static double through_routine(int f, int i) { return fields[f][i] + pairs[f].p[i] * pairs[f].scale; }

int main(void) {
  for (int i = 0; i < N; i++) u[i] = i, v[i] = -i;
#pragma acc update device(u, v)
#pragma acc parallel loop present(u, v)
  for (int i = 0; i < N; i++) u[i] *= 3, v[i] *= 5;
  double *direct = e2e_alloc(sizeof(double) * N), *called = e2e_alloc(sizeof(double) * N);
#pragma acc parallel loop copyout(direct[0:N - 2], called[0:N - 2])
  for (int i = 0; i < N - 2; i++) {
    direct[i] = fields[0][i] + 2 * fields[1][i];
    called[i] = through_routine(0, i) + 2 * through_routine(1, i);
  }
  for (int i = 0; i < N - 2; i++) {
    double d = 3.0 * i - 10.0 * (i + 1);
    double c = 3.0 * i - 5.0 * i + 2 * (-5.0 * (i + 1) + 2 * 3.0 * (i + 2));
    CHECK(direct[i] == d, "direct: [%d] = %g, want %g", i, direct[i], d);
    CHECK(called[i] == c, "through a routine: [%d] = %g, want %g", i, called[i], c);
  }
  /* (On the host path the device copies are the host's.) */
  CHECK(acc_get_device_type() == acc_device_host || (u[5] == 5 && v[5] == -5), "the host's copies changed: u[5] = %g, v[5] = %g", u[5], v[5]);
  free(direct), free(called);
  return e2e_finish();
}
