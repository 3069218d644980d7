# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "gnnc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".gnn", ".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "unittests", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gnnc_obj_root, "test")

# Tests see only the datasets they name: the shipped ones through
# %gnnc_data, never whatever the developer's shell exports.
config.environment.pop("GNNC_DATA_PATH", None)
# gnnc run caches built code; tests keep theirs in the build tree.
config.environment["GNNC_CACHE_DIR"] = os.path.join(config.gnnc_obj_root, "test", "jit-cache")
config.environment.pop("GNNC_RUNTIME_DIR", None)
# Plans must not depend on who ran `gnnc calibrate` on this machine: no
# profile from the environment, and the calibrate output looked up in the
# build tree (where nothing writes it unless a test does).
config.environment.pop("GNNC_PROFILE", None)
config.environment["XDG_CONFIG_HOME"] = os.path.join(config.gnnc_obj_root, "test", "config-home")
config.substitutions.append(("%gnnc_data", config.gnnc_data_dir))
config.substitutions.append(("%gnnc_src", config.gnnc_src_root))
config.substitutions.append(("%gnnc_obj", config.gnnc_obj_root))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# The CUDA emulator (runtime/cuda/emu), a libgnnrt_cuda.so that runs the
# CUDA target on the CPU; tests select it with GNNRT_CUDA_LIBRARY. No test
# inherits a choice from the developer's shell.
config.substitutions.append(("%gnnrt_cuda_emu_dir", os.path.dirname(config.gnnrt_cuda_emu)))
config.substitutions.append(("%gnnrt_cuda_emu", config.gnnrt_cuda_emu))
config.environment.pop("GNNRT_CUDA_LIBRARY", None)

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# `not` and FileCheck live in LLVM's tool directory, which is not on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.gnnc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["gnnc", "gnnc-opt"], tool_dirs)

if os.path.isdir(config.gnnc_data_dir):
    config.available_features.add("shipped-data")
if config.gnnc_have_cuda:
    config.available_features.add("cuda-toolkit")
    # The CUDA target's tests compile generated code without a GPU.
    config.substitutions.append(("%nvcc", config.nvcc))
    config.substitutions.append(("%host_cxx", config.host_cxx))
    config.substitutions.append(("%gnnrt_include", os.path.join(config.gnnc_src_root, "runtime", "include")))
    llvm_config.add_tool_substitutions(["gnnrt-nvrtc"], tool_dirs)
    # A GPU the driver sees: tests that need one run, those that check the
    # no-device path do not.
    import shutil, subprocess
    smi = shutil.which("nvidia-smi")
    if smi and subprocess.run([smi, "-L"], capture_output=True).returncode == 0:
        config.available_features.add("cuda-device")
