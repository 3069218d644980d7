//===- EmitCuda.h - The CUDA target: train IR as CUDA C++ -------*- C++ -*-===//
//
// Prints a module at stage `cpp` (buffers assigned) as one CUDA C++ unit in
// two parts:
//   * device code, under `#if defined(__CUDACC_RTC__) ||
//     defined(GNNC_CUDA_DEVICE_PASS)`: the generated kernels (fused
//     element-wise runs, fills), `extern "C" __global__`, no #includes;
//   * host code, otherwise: the train functions with the CPU target's ABI
//     (EmitCpp.h, gnnrt/Model.h) calling the operations of gnnrt/Cuda.h
//     (cuBLAS, cuSPARSE and library kernels) and launching the generated
//     kernels by name, plus the model tables with target GNNRT_TARGET_CUDA.
// The host part holds the device part's text: the JIT has it compiled by
// NVRTC for the GPU it finds, while `gnnc compile --target=cuda` compiles
// the same text with nvcc (-DGNNC_CUDA_DEVICE_PASS --fatbin) and defines
// GNNC_CUDA_FATBIN to a file declaring `gnnc_fatbin[]`, which is loaded
// first. A host compiler without nvcc builds the host part.
//
// The emitter decides nothing: every buffer is where gnn-assign-buffers put
// it, as on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_TARGET_CUDA_EMITCUDA_H
#define GNNC_COMPILER_TARGET_CUDA_EMITCUDA_H

#include "compiler/Target/CPU/EmitCpp.h"

namespace mlir::gnn {

struct CudaEmitStats {
  unsigned kernels = 0;   ///< Distinct generated kernels.
  unsigned fusedRuns = 0; ///< Element-wise runs of 2 or more ops.
};

/// Prints \p module as CUDA C++ to \p os. \p options as for emitCpp (its
/// target and kernels fields are set here). Ops the CUDA target cannot run
/// are errors at the op's location; nothing is printed then.
LogicalResult emitCuda(ModuleOp module, llvm::raw_ostream &os,
                       const CppEmitOptions &options = {},
                       CudaEmitStats *stats = nullptr);

} // namespace mlir::gnn

#endif // GNNC_COMPILER_TARGET_CUDA_EMITCUDA_H
