//===- EmitCpp.h - The CPU target: train IR as C++ --------------*- C++ -*-===//
//
// Prints a module at stage `cpp` (the train functions after
// gnn-assign-buffers) as one C++ translation unit that calls the kernels of
// gnnrt/Kernels.h. The emitter only prints: every buffer's place comes from
// the `gnn.offsets`, `gnn.result_slots` and `gnn.arena_bytes` attributes.
//
// For each function `@F` the unit defines, with `F` sanitised to an
// identifier (`GCN.step` -> `GCN_step`):
//   extern "C" int64_t gnnc_F_arena_bytes(void);
//   extern "C" int gnnc_F(void *const *args, void *const *results,
//                         char *arena);
// `args[i]` points at argument i (tensors: their data, fp32 as float, i32
// as int32_t, i1 as one uint8_t per element; i64 scalars: an int64_t;
// graphs: a gnnrt_graph with both CSR views), `results[k]` at the
// caller's buffer for result k, which must not overlap any argument or
// other result; `arena` at gnnc_F_arena_bytes() bytes aligned to 64. The
// return value is the first failing kernel's gnnrt_status, else GNNRT_OK.
//
// Unless asked not to, the unit also exports the tables of gnnrt/Model.h,
// one per train block (the functions sharing the prefix `M` of `@M.init`,
// `@M.step`, `@M.predict`), through `gnnc_models`: everything the runtime
// needs to bind data and run the training loop without the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_TARGET_CPU_EMITCPP_H
#define GNNC_COMPILER_TARGET_CPU_EMITCPP_H

#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringMap.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::gnn {

namespace cuda {
class KernelUnit;
} // namespace cuda

struct CppEmitOptions {
  /// Where the functions run. For Cuda the same host code calls the
  /// gnnrt_cuda_* operations of gnnrt/Cuda.h instead of gnnrt_cpu_*,
  /// launches the element-wise runs it adds to \p kernels, copies results
  /// with gnnrt_cuda_copy, and prints no #includes (EmitCuda assembles the
  /// unit around it).
  enum class Target { Cpu, Cuda } target = Target::Cpu;
  cuda::KernelUnit *kernels = nullptr;
  /// Export the gnnrt_model_desc tables and gnnc_models.
  bool descriptors = true;
  /// Cuda: generate dropout in the element-wise kernels (else the
  /// library's gnnrt_cuda_dropout; CompileSettings::cudaLibraryDropout).
  bool generatedDropout = true;
  /// Cuda: generate reductions, edge softmax and its gradient, the loss and
  /// its gradient (cuda::KernelUnit::generates), and one launch per run of
  /// train.adam or train.sgd ops (optimizerGroups), else call the library's
  /// kernels (CompileSettings::cudaLibraryKernels).
  bool generatedOpKernels = true;
  /// The .gnn file, recorded in the tables for reports.
  std::string source;
  /// Resolved directory of each dataset name the program trains on
  /// ("cora" -> "/data/cora"), recorded as the default binding.
  llvm::StringMap<std::string> dataDirs;
};

/// Prints \p module as C++ to \p os. Ops the CPU target cannot run (f64
/// tensors, ops without a kernel) and missing buffer assignments are
/// errors at the op's location; nothing is printed then.
LogicalResult emitCpp(ModuleOp module, llvm::raw_ostream &os,
                      const CppEmitOptions &options = {});

} // namespace mlir::gnn

#endif // GNNC_COMPILER_TARGET_CPU_EMITCPP_H
