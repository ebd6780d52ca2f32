/* The factor the program scales by: scripts/build-systems edits it to check that the
 * build tool rebuilds what includes this header. */
#define FACTOR 2
void scale(float *v, int n);
