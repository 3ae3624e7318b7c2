# -*- Python -*- lit configuration for ext's regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "EXT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ext_obj_root, "test")
# Unit/ has its own configuration (GoogleTest binaries); Inputs/ holds data.
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%ext_libs", config.ext_libs_dir))
config.substitutions.append(("%ext_src", config.ext_src_root))
config.substitutions.append(("%ext_obj", config.ext_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.ext_tools_dir, config.llvm_tools_dir]
tools = ["ext-opt", "ext-translate", "ext-run", "ext-fuzz-replay", "mlir-opt",
         "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# ext-tune is Python over the bindings: tests of it say `REQUIRES: ext-tune`,
# which holds where the build has both (a tools-only build has neither).
import glob
if os.path.exists(os.path.join(config.ext_tools_dir, "ext-tune")) and glob.glob(
        os.path.join(config.ext_tools_dir, os.pardir, "python_packages", "ext", "_ext*.so")):
    config.available_features.add("ext-tune")
    llvm_config.add_tool_substitutions(["ext-tune"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Python's kernel cache on disk (ext.build) stays off in the suite: tests use
# the compiler under test and never write to the user's ~/.cache.
config.environment["EXT_DISABLE_DISK_CACHE"] = "1"

# scripts/test.sh sets sanitized_replay when its sanitizer pass will replay the
# fuzz corpus through ASan and UBSan builds (scripts/sanitize.sh), so the
# suite need not replay it unsanitized too.
if lit_config.params.get("sanitized_replay"):
    config.available_features.add("sanitized-replay")

# ptxas is optional: tests that assemble PTX say `REQUIRES: ptxas`.
if config.ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))

# A CUDA driver that sees a device: tests that run kernels on the GPU say
# `REQUIRES: cuda-driver`; the no-driver diagnostic is checked without one.
def _has_cuda_device():
    try:
        import ctypes
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return cuda.cuInit(0) == 0 and \
            cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except OSError:
        return False

if _has_cuda_device():
    config.available_features.add("cuda-driver")
config.substitutions.append(
    ("%fake_cuda", os.path.join(config.ext_libs_dir, "fake-cuda", "libcuda.so.1")))
