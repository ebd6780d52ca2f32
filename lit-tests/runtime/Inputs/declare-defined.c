/* The file that defines a declared global (declare-two-files.c declares it extern). */
int shared_g[4] = {5, 6, 7, 8};
#pragma acc declare copyin(shared_g)

int sum_here(void) {
  int s = 0;
#pragma acc parallel loop reduction(+:s)
  for (int i = 0; i < 4; i++) s += shared_g[i];
  return s;
}
