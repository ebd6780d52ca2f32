// The defining half of routine-nohost.c: a `nohost` routine has no host symbol here.
#pragma acc routine seq nohost
int dev_only(int x);
int dev_only(int x) { return 3 * x + 1; }
