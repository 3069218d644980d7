//===- Context.h - The CUDA context behind gnnrt/Cuda.h ---------*- C++ -*-===//
//
// Internal to libgnnrt_cuda: the struct behind the opaque gnnrt_cuda handle
// and the one way every file of the library checks a library call. Only
// compiled with the CUDA toolkit (nvcc or the host compiler with its
// headers).
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CUDA_CONTEXT_H
#define GNNRT_CUDA_CONTEXT_H

#include "common/KernelCommon.h"
#include "gnnrt/Cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <nvrtc.h>

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

/// A loaded unit of generated kernels (gnnrt_cuda_kernels).
struct gnnrt_cuda_module {
  cudaLibrary_t library = nullptr;
  /// Loaded from the unit's image (not compiled from its source).
  bool fromImage = false;
  std::unordered_map<std::string, cudaKernel_t> kernels;
};

struct gnnrt_cuda {
  gnnrt_cuda_device_info info{};
  cudaStream_t compute = nullptr, copy = nullptr;
  cublasHandle_t blas = nullptr;
  cusparseHandle_t sparse = nullptr;
  /// Events by the caller's number (gnnrt_cuda_record / _wait).
  std::vector<cudaEvent_t> events;
  /// Loaded generated units, by the address of their descriptor.
  std::unordered_map<const gnnrt_cuda_kernels *, gnnrt_cuda_module> modules;
  /// Grow-only device scratch for library calls that need a workspace
  /// (cuSPARSE buffers, reductions across blocks). It lives outside the
  /// planned arena; its size is reported with the measured peaks.
  void *scratch = nullptr;
  size_t scratchBytes = 0;
  /// What the context allocated and has not freed yet (freed on close).
  std::unordered_set<void *> deviceAllocations, hostAllocations;
  /// gnnrt_cuda_staging's pinned buffer (one of hostAllocations) and its
  /// size: grown, never shrunk, freed with the context.
  void *staging = nullptr;
  int64_t stagingBytes = 0;
  /// gnnrt_cuda_set_spmm_path(GNNRT_CUDA_SPMM_OWN) was called.
  bool spmmOwn = false;
};

namespace gnnrt::cuda {

/// Keeps \p message as the calling thread's last error; returns \p status.
int fail(int status, const std::string &message);

/// GNNRT_OK, or GNNRT_ERR_CUDA with "call: NAME (code): text" kept.
int check(cudaError_t code, const char *call);
int check(cublasStatus_t code, const char *call);
int check(cusparseStatus_t code, const char *call);
int check(nvrtcResult code, const char *call);

/// The current context, or GNNRT_ERR_CUDA ("no current CUDA context")
/// through \p status.
gnnrt_cuda *current(int &status);

/// At least \p bytes of the context's scratch (grown, never shrunk).
int scratch(gnnrt_cuda *ctx, size_t bytes, void **out);

/// Makes \p ctx's device current on the calling thread. Allocations,
/// module loads and launches go to the current device, and a context may
/// be used from a thread that never called gnnrt_cuda_set_current.
int bind(gnnrt_cuda *ctx);

/// The most blocks a launch asks for: kernels loop over their items.
constexpr int64_t kMaxBlocks = 65535 * 16;

/// Blocks of 256 threads covering \p threads, capped for grid-stride loops.
inline unsigned gridFor(int64_t threads) {
  int64_t blocks = (threads + 255) / 256;
  if (blocks < 1)
    blocks = 1;
  return static_cast<unsigned>(blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

} // namespace gnnrt::cuda

/// Returns from the enclosing function if \p expr (a CUDA, cuBLAS,
/// cuSPARSE or NVRTC call) failed.
#define GNNRT_CUDA_CHECK(expr)                                                 \
  do {                                                                         \
    int gnnrt_cuda_status_ = ::gnnrt::cuda::check((expr), #expr);              \
    if (gnnrt_cuda_status_ != GNNRT_OK)                                        \
      return gnnrt_cuda_status_;                                               \
  } while (0)

#endif // GNNRT_CUDA_CONTEXT_H
