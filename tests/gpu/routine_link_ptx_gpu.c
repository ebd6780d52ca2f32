/* GPU only: routine_link_gpu.c built for an sm_80 GPU only (e2e-flags below), so that the
 * H100 (sm_90) cannot load its cubins and the runtime links the kernels' PTX with the
 * routine library's PTX (the driver compiles both for the GPU) instead. */
/* e2e-also: routine_link_gpu/lib.c */
/* e2e-flags: -gpu=cc80 */
#define main routine_link_gpu_main
#include "routine_link_gpu.c"
#undef main
#undef E2E_NAME
int main(void) {
  int rc = routine_link_gpu_main();
  printf("%s routine_link_ptx_gpu\n", rc ? "FAIL" : "PASS");
  return rc;
}
