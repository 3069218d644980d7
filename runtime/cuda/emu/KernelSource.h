//===- KernelSource.h - Generated kernels as host C++ -----------*- C++ -*-===//
//
// The emulator runs a unit's generated kernels (gnnrt_cuda_kernels::source)
// on the CPU by compiling that same text with the host compiler, behind a
// prelude that defines what CUDA C++ would (__global__, blockIdx, ...), and
// one trampoline per kernel that unpacks cudaLaunchKernel-style parameters
// and walks the grid a real launch would have.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CUDA_EMU_KERNELSOURCE_H
#define GNNRT_CUDA_EMU_KERNELSOURCE_H

#include <string>
#include <vector>

namespace gnnrt::emu {

/// One `__global__ void NAME(PARAMS)` of a unit.
struct KernelDecl {
  std::string name;
  /// Each parameter's type with single spaces, e.g. "long long",
  /// "const float *".
  std::vector<std::string> paramTypes;
};

/// Finds every __global__ function of \p source. Only the parameter types
/// generated kernels use are accepted (integers, float, double, and
/// pointers to them): anything else, or text that is not a plain
/// signature, fails with a message in \p error rather than producing a
/// trampoline that would read its arguments wrongly.
bool parseKernels(const std::string &source, std::vector<KernelDecl> &kernels,
                  std::string &error);

/// The host C++ unit: the prelude, \p source unchanged, and for each kernel
/// `extern "C" void NAME__emu(void **params, long long blocks)`, which runs
/// blocks x kThreadsPerBlock threads one after another, the last first.
std::string emulationSource(const std::string &source,
                            const std::vector<KernelDecl> &kernels);

/// Threads per block of every launch, as the real library's (Module.cu).
constexpr int kThreadsPerBlock = 256;

} // namespace gnnrt::emu

#endif // GNNRT_CUDA_EMU_KERNELSOURCE_H
