/* Level routines defined in routine_level_files/lib.c. */
#pragma acc routine vector
void scale_row(double *row, int m, double f);
#pragma acc routine worker
void fill_block(long *b, int rows, int m, long base);
