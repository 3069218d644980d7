//===- CompileSettings.h - What a compile of a program takes -----*- C++ -*-===//
//
// The settings both front doors pass to the compiler: `gnnc`'s command line
// (gnnc::DriverOptions) and the C++ JIT API (gnnc::jit::CompileOptions).
// Both derive from this one struct, so a setting is declared once and
// reaches the driver from either door by one assignment, not by a field
// list that each door copies and can forget to extend.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILESETTINGS_H
#define GNNC_COMPILESETTINGS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gnnc {

struct CompileSettings {
  /// Searched for dataset("name") before $GNNC_DATA_PATH and the shipped
  /// datasets (gnnc --data).
  std::vector<std::string> dataDirs;
  /// Keep only the train blocks of this model (gnnc --only).
  std::string only;
  /// Keep input features dense even when they are mostly zeros (by default
  /// they are stored as CSR, which changes no value: docs/Passes.md;
  /// gnnc --dense-features).
  bool denseFeatures = false;
  /// Compute every row of the training step (by default only the rows the
  /// loss depends on; the losses are the same: docs/Passes.md; gnnc
  /// --all-rows).
  bool allRows = false;
  /// When a multi-head gat_conv is rewritten head by head: "auto" (when
  /// the memory budget is below what its heads need together, or the
  /// whole layers have no plan within it), "always", "never". The values
  /// are the same bits either way (gnnc --split-heads).
  std::string splitHeads = "auto";
  /// The memory planner's machine profile file (empty: $GNNC_PROFILE, else
  /// `gnnc calibrate`'s output, else the target's built-in profile), and
  /// overrides of the program's `plan` and of the solver (empty, "auto":
  /// the defaults; gnnc --profile, --plan, --planner).
  std::string profile, policy, solver = "auto";
  /// The device budget in bytes for every train block, replacing the
  /// program's `memory` (gnnc --memory); unset: the program's.
  std::optional<uint64_t> memory;
  /// Where the training runs: "cpu", or "cuda" (generated CUDA, its kernels
  /// compiled by NVRTC for the GPU found at run time; docs/Cuda.md; gnnc
  /// --target).
  std::string target = "cpu";
  /// CUDA: dropout through the runtime library's kernel
  /// (gnnrt_cuda_dropout) instead of the generated element-wise kernels,
  /// to compare the two on a GPU; the same bits either way (gnnc
  /// --cuda-library-dropout).
  bool cudaLibraryDropout = false;
  /// --target=cuda: reductions, edge softmax, the loss and Adam through the
  /// runtime library's kernels instead of generated ones, to compare the
  /// two on a GPU; the same bits either way (gnnc --cuda-library-kernels).
  bool cudaLibraryKernels = false;
};

} // namespace gnnc

#endif // GNNC_COMPILESETTINGS_H
