# lit configuration for the accc test suites (driver tests and the acc-offload pass tests).
# Run with: /usr/lib/llvm-22/bin/lit -sv lit-tests
import os

import lit.formats

config.name = "accc"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".c", ".ll"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.test_source_root
# Output/ holds lit's per-test temporaries; Inputs/ holds files that other tests use.
config.excludes = ["Output", "Inputs", "lit.cfg.py"]

repo = os.path.dirname(config.test_source_root)
llvm_bin = "/usr/lib/llvm-22/bin"
release = os.path.join(repo, "target", "release")

config.substitutions.append(("%accc", os.path.join(release, "accc")))
config.substitutions.append(("%opt", os.path.join(llvm_bin, "opt")))
config.substitutions.append(("%plugin", os.path.join(release, "libacc_pass.so")))
config.substitutions.append(
    ("%ptxas", os.path.join(repo, ".toolchain", "cuda", "nvidia", "cuda_nvcc", "bin", "ptxas"))
)
config.substitutions.append(("%clang", os.path.join(llvm_bin, "clang")))

# FileCheck, not, count, split-file come from LLVM 22.
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["HOME", "TMPDIR", "ACCC_LIBDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["ACC_DEVICE_TYPE"] = "host"

# Run-time tests that expect no usable GPU (the CUDA driver's device nodes are absent).
if not os.path.exists("/dev/nvidiactl"):
    config.available_features.add("no-gpu")
