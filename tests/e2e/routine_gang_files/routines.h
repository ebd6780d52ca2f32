#pragma acc routine gang
void fill_rows(double *a, int n, int m, double base);
#pragma acc routine gang
void bump(long *b, int n, long by);
#pragma acc routine gang(dim: 2)
void bump_grid(long *c, int rows, int cols);
