/* Routines shared by routine_files.c and routine_files/lib.c: each declared `routine seq`
 * here, defined in one file, called from compute regions of the other (and of its own). */
#pragma acc routine seq
double lib_mix(double a, int k);
#pragma acc routine seq
long lib_steps(long n);
#pragma acc routine seq nohost
int lib_dev_only(int x);
#pragma acc routine seq
int main_tweak(int x);
void lib_fill(int *out, int n);
