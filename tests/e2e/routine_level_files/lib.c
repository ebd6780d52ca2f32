/* The routines of tests/e2e/routine_level_files.c, defined in a file of their own. */
#include "routines.h"

#pragma acc routine vector
void scale_row(double *row, int m, double f) {
#pragma acc loop vector
  for (int j = 0; j < m; j++) row[j] = row[j] * f + j;
}

#pragma acc routine worker
void fill_block(long *b, int rows, int m, long base) {
#pragma acc loop worker
  for (int r = 0; r < rows; r++)
#pragma acc loop vector
    for (int j = 0; j < m; j++) b[r * m + j] = base + r * 1000 + j;
}
