/* The gang routines of tests/e2e/routine_gang_files.c, defined in a file of their own. */
#include "routines.h"

#pragma acc routine gang
void fill_rows(double *a, int n, int m, double base) {
#pragma acc loop gang
  for (int i = 0; i < n; i++)
#pragma acc loop vector
    for (int j = 0; j < m; j++) a[i * m + j] = base + i * 1000 + j;
}

/* An update that every gang running the whole loop would repeat. */
#pragma acc routine gang
void bump(long *b, int n, long by) {
#pragma acc loop gang worker vector
  for (int i = 0; i < n; i++) b[i] += by * i;
}

#pragma acc routine gang(dim: 2)
void bump_grid(long *c, int rows, int cols) {
#pragma acc loop gang(dim: 2)
  for (int r = 0; r < rows; r++)
#pragma acc loop gang(dim: 1)
    for (int k = 0; k < cols; k++) c[r * cols + k] += r * 100 + k;
}
