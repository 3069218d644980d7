//===- CLiterals.h - Exact float and double literals in C text --*- C++ -*-===//
//
// How the generated CUDA kernels (Kernels.cpp, OpKernels.cpp) print
// numbers: every literal reads back as the very value the compiler holds,
// so a kernel computes with the constants the CPU runtime computes with.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_TARGET_CUDA_CLITERALS_H
#define GNNC_COMPILER_TARGET_CUDA_CLITERALS_H

#include "llvm/Support/Format.h"
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

} // namespace mlir::gnn::cuda

#endif // GNNC_COMPILER_TARGET_CUDA_CLITERALS_H
