#!/bin/sh
# GPU smoke test of libaccrt.a (needs an NVIDIA GPU and driver). Run from the workspace root.
# Regenerate the embedded PTX with:
#   llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -mattr=+ptx75 saxpy.ll -o saxpy.ptx
# and quote it into saxpy_ptx.h as `static const char ptx[]`.
set -e
cargo build --release -p accrt
d=runtime/tests/gpu
cc -Wall -I runtime/include -I $d $d/gpu_smoke.c target/release/libaccrt.a -lpthread -ldl -lm -o /tmp/accrt_gpu_smoke
ACC_NOTIFY=3 /tmp/accrt_gpu_smoke
for m in present partial notpresent badkernel fault; do
  if /tmp/accrt_gpu_smoke $m; then echo "mode $m should have failed"; exit 1; fi
done
echo "run_gpu_smoke: ok"
