//===- Toolchain.h - Building generated C++ with the system compiler -*- C++
//-*-===//
//
// Where the runtime's headers and archives are (an install prefix or the
// build tree), and the two builds the CPU target needs: a shared object for
// the JIT and a standalone executable for `gnnc compile`.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_JIT_TOOLCHAIN_H
#define GNNC_COMPILER_JIT_TOOLCHAIN_H

#include "gnnc/JIT.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gnnc::jit {

/// The JIT's errors: a message, no error code.
inline llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Lowers \p path (or \p source, named \p path in diagnostics) to stage
/// cpp and prints the C++; the diagnostics (file:line:col) become the
/// error. Shared by the JIT and `gnnc compile`.
llvm::Expected<std::string> generateCpp(const std::string &path,
                                        const std::string *source,
                                        const CompileOptions &options);

struct Toolchain {
  std::string cxx;        ///< The C++ compiler.
  std::string includeDir; ///< Holds gnnrt/Kernels.h and gnnrt/Model.h.
  std::string rtCpu, rtExec, rtData; ///< The runtime's static archives.
  /// libgnnrt_cuda.so: the CUDA device (a stand-in without the toolkit),
  /// which the session calls for CUDA-target programs; $GNNRT_CUDA_LIBRARY
  /// when set (the CUDA emulator's, docs/Cuda.md).
  std::string rtCuda;
  /// nvcc for `gnnc compile --target=cuda` ($NVCC, else the one gnnc was
  /// built with, else on PATH); empty when there is none.
  std::string nvcc;
  std::vector<std::string> linkFlags; ///< OpenMP, BLAS.
  std::string origin; ///< "build tree", "install prefix /usr/local", ...
};

/// Finds the runtime: $GNNC_RUNTIME_DIR (an install prefix), else the
/// prefix this gnnc is installed in (its executable's ../), else the build
/// tree it was built in. The compiler is $CXX, else the one gnnc was built
/// with, else `c++` on PATH.
llvm::Expected<Toolchain> findToolchain();

struct BuildResult {
  std::string path;
  bool cached = false;
};

/// Builds \p cpp into a shared object linking the CPU kernels; reuses a
/// cached one with the same content and flags.
llvm::Expected<BuildResult> buildSharedObject(const Toolchain &toolchain,
                                              const std::string &cpp,
                                              const CompileOptions &options);

/// Builds \p cpp plus a main() over the runtime's standalone driver into
/// the executable \p output. For a CUDA unit (\p cudaArchs not empty:
/// "80", "90") nvcc first compiles its device part into a fatbin for those
/// architectures, which the executable loads instead of using NVRTC.
llvm::Error buildExecutable(const Toolchain &toolchain, const std::string &cpp,
                            const std::string &output, bool verbose,
                            llvm::ArrayRef<std::string> cudaArchs = {});

} // namespace gnnc::jit

#endif // GNNC_COMPILER_JIT_TOOLCHAIN_H
