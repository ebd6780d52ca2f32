// Rows that are pointers to arrays of run-time size (`double (**q)[m]`): the driver marks
// their dimension with -sizeof(q[0][0]), which is no constant here, so neither a data clause
// (mapped row by row by the arrays' size) nor a reduction or private copy has a size to work
// with; each is a located "not supported yet" (it was a run-time "not contiguous" message
// naming "rows of -40 elements", and a crash in a reduction). Rows of arrays of constant size
// and variable-length arrays themselves are lowered (tests/e2e/reduction_region_bounds.c,
// vla.c).
// RUN: not %accc -DCOPY -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: not %accc -DREDUCTION -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=REDUCTION
// RUN: not %accc -DPRIVATE -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=PRIVATE
// RUN: %accc -c %s -o %t.o

#ifdef COPY
// COPY: runtime-sized-rows.c:[[@LINE+2]]:9: error: OpenACC 'q[0:n][0:k][0:m]' in a 'copy' clause (rows that are pointers to arrays of run-time size, as with 'double (**q)[m]'; make the arrays' size a constant, or use rows of pointers to elements, 'double **') is not supported yet
void copy(int n, int k, int m, double (**q)[m]) {
#pragma acc parallel loop copy(q[0:n][0:k][0:m])
  for (int t = 0; t < n; t++) q[t][0][0] += 1;
}
#endif

#ifdef REDUCTION
// REDUCTION: runtime-sized-rows.c:[[@LINE+2]]:9: error: OpenACC 'q[0:n][0:k][0:m]' in a 'reduction' clause (rows that are pointers to arrays of run-time size
void reduce(int n, int k, int m, double (**q)[m]) {
#pragma acc parallel loop reduction(+:q[0:n][0:k][0:m])
  for (int t = 0; t < 1000; t++) q[t % n][t % k][t % m] += 1;
}
#endif

#ifdef PRIVATE
// PRIVATE: runtime-sized-rows.c:[[@LINE+2]]:9: error: OpenACC 'q[0:n][0:k][0:m]' in a 'private' clause (rows that are pointers to arrays of run-time size
void privatise(int n, int k, int m, double (**q)[m], double *out) {
#pragma acc parallel loop private(q[0:n][0:k][0:m]) copyout(out[0:n])
  for (int t = 0; t < n; t++) { q[t][0][0] = t; out[t] = q[t][0][0]; }
}
#endif

// Variable-length arrays through a pointer to rows (no pointer rows) still map.
void vla_rows(int n, int m, double (*a)[m]) {
#pragma acc parallel loop copy(a[0:n][0:m])
  for (int t = 0; t < n; t++) a[t][0] += 1;
}
