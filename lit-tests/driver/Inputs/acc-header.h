// A header with an OpenACC function: its markers name the header and its lines.
static inline void scale(float *v, int n, float f) {
#pragma acc parallel loop copy(v[0:n])
  for (int i = 0; i < n; i++) v[i] *= f;
}
