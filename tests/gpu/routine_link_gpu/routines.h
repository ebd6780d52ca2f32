#pragma acc routine seq
long lib_where(long x);
#pragma acc routine seq
double lib_norm(double a, double b);
#pragma acc routine seq
long lib_chain(long n);
#pragma acc routine seq
long main_side(long x);
void lib_kernels(long *out, int n);
