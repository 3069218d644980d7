//===- KernelText.h - Pieces of generated CUDA C text -----------*- C++ -*-===//
//
// What the generated CUDA kernels (Kernels.cpp, OpKernels.cpp) print the
// same way: numbers, as literals that read back as the very value the
// compiler holds (so a kernel computes with the constants the CPU runtime
// computes with), and the grid-stride loop over a launch's work items.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_TARGET_CUDA_KERNELTEXT_H
#define GNNC_COMPILER_TARGET_CUDA_KERNELTEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::gnn::cuda {

/// \p value rounded to float, as a C99 hexadecimal float literal
/// (`0x1.99999ap-3f`), as the CPU target prints them.
inline std::string floatLiteral(double value) {
  std::string s;
  llvm::raw_string_ostream(s)
      << llvm::format("%af", static_cast<double>(static_cast<float>(value)));
  return s;
}

/// \p value as a double literal of 17 significant digits, with a decimal
/// point so that it is a double even when it is whole (`5.0`).
inline std::string doubleLiteral(double value) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.17g", value);
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

/// `for (long long VAR = ...; VAR < COUNT; VAR += stride) {` over a 1-D
/// grid (gnnrt_cuda_launch's: any number of blocks of any size), at the
/// body's indentation; the caller closes it.
inline std::string gridStrideLoop(llvm::StringRef var, llvm::StringRef count) {
  return llvm::formatv("  for (long long {0} = (long long)blockIdx.x * "
                       "blockDim.x + threadIdx.x; {0} < {1};\n"
                       "       {0} += (long long)gridDim.x * blockDim.x) {{\n",
                       var, count)
      .str();
}

} // namespace mlir::gnn::cuda

#endif // GNNC_COMPILER_TARGET_CUDA_KERNELTEXT_H
