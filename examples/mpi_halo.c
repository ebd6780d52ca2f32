/* MPI + OpenACC: a 1-D heat equation split across MPI ranks, one rank per device.
 *
 *   OMPI_CC=accc mpicc -O2 examples/mpi_halo.c -o mpi_halo -lm
 *   mpirun -np 2 ./mpi_halo
 *
 * Each rank picks a device of its node (its rank among the node's ranks, modulo the
 * devices there), keeps its slice of the rod on that device for the whole run (a data
 * region), and exchanges one halo cell with each neighbour per step. With an MPI that reads
 * device memory (CUDA-aware Open MPI), and wherever device addresses are host addresses (the
 * host path, accc's emulator), the halo cells go to MPI straight from the device copies:
 * `host_data use_device(u)` gives MPI their device addresses. Otherwise each step copies the
 * two boundary cells out (`update self`) and the received halos in (`update device`);
 * HALO_STAGED=1 forces that.
 * Rank 0 gathers the result and checks every cell against a serial run. */
#include <math.h>
#include <mpi.h>
#include <openacc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

enum { CELLS = 2003, STEPS = 60 };

static double initial(int g) { return g == 0 || g == CELLS - 1 ? 1.0 : sin(0.01 * g) * sin(0.01 * g); }

/* Whether MPI may be given device addresses. */
static int mpi_takes_device_addresses(int dev) {
  if (getenv("HALO_STAGED")) return 0; /* force the staged exchange (scripts/mpi-test) */
  if (acc_get_device_type() == acc_device_host) return 1; /* they are host addresses */
  const char *vendor = acc_get_property_string(dev, acc_get_device_type(), acc_property_vendor);
  if (vendor && strcmp(vendor, "accc") == 0) return 1; /* the emulator's memory is host memory */
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support();
#else
  return 0;
#endif
}

/* The serial reference: the same steps over the whole rod. */
static void serial(double *ref) {
  double *u = malloc(CELLS * sizeof *u), *v = malloc(CELLS * sizeof *v);
  for (int g = 0; g < CELLS; g++) u[g] = v[g] = initial(g);
  for (int s = 0; s < STEPS; s++) {
    for (int g = 1; g < CELLS - 1; g++) v[g] = u[g] + 0.25 * (u[g - 1] - 2 * u[g] + u[g + 1]);
    double *t = u;
    u = v;
    v = t;
  }
  memcpy(ref, u, CELLS * sizeof *ref);
  free(u);
  free(v);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks, local, locals;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &locals);

  /* One device per rank of the node, before any data or compute operation. */
  acc_device_t type = acc_get_device_type();
  int devices = acc_get_num_devices(type);
  int dev = devices > 0 ? local % devices : 0;
  acc_set_device_num(dev, type);
  int direct = mpi_takes_device_addresses(dev);

  /* This rank's cells [first, first + n) of the rod, with a halo cell on each side. */
  int first = (int)((long)CELLS * rank / ranks), n = (int)((long)CELLS * (rank + 1) / ranks) - first;
  double *u = malloc((n + 2) * sizeof *u), *v = malloc((n + 2) * sizeof *v);
  for (int i = 0; i < n + 2; i++) u[i] = v[i] = (first + i - 1 >= 0 && first + i - 1 < CELLS) ? initial(first + i - 1) : 0.0;
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL;
  int lo = rank == 0 ? 2 : 1, hi = rank == ranks - 1 ? n - 1 : n; /* the rod's ends stay fixed */
  printf("rank %d of %d: cells %d..%d on device %d of %d (%s), halos %s\n", rank, ranks, first, first + n - 1, dev,
         devices, type == acc_device_host ? "host" : "nvidia", direct ? "from device memory" : "staged");
  fflush(stdout);

#pragma acc data copy(u[0:n+2]) copy(v[0:n+2])
  for (int s = 0; s < STEPS; s++) {
    if (direct) {
#pragma acc host_data use_device(u)
      {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else {
#pragma acc update self(u[1:1], u[n:1])
      MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma acc update device(u[0:1], u[n+1:1])
    }
#pragma acc parallel loop present(u[0:n+2], v[0:n+2])
    for (int i = lo; i <= hi; i++) v[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
    double *t = u; /* both are present: the swap swaps their device copies too */
    u = v;
    v = t;
  }

  int *counts = NULL, *offsets = NULL;
  double *all = NULL;
  if (rank == 0) {
    counts = malloc(ranks * sizeof *counts);
    offsets = malloc(ranks * sizeof *offsets);
    all = malloc(CELLS * sizeof *all);
    for (int r = 0; r < ranks; r++) {
      offsets[r] = (int)((long)CELLS * r / ranks);
      counts[r] = (int)((long)CELLS * (r + 1) / ranks) - offsets[r];
    }
  }
  MPI_Gatherv(&u[1], n, MPI_DOUBLE, all, counts, offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int status = 0;
  if (rank == 0) {
    double *ref = malloc(CELLS * sizeof *ref);
    serial(ref);
    int bad = 0;
    for (int g = 0; g < CELLS; g++) {
      if (fabs(all[g] - ref[g]) > 1e-12 * (1 + fabs(ref[g]))) {
        if (bad++ == 0) printf("FAIL mpi_halo: cell %d is %.17g, want %.17g\n", g, all[g], ref[g]);
      }
    }
    if (!bad) printf("PASS mpi_halo (%d ranks, %d cells, %d steps)\n", ranks, CELLS, STEPS);
    status = bad != 0;
    free(ref);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return status;
}
