//===- KernelSupport.h - What the CUDA library kernels share ----*- C++ -*-===//
//
// Internal to libgnnrt_cuda's kernel files (Graph, Sparse, Dense, Train):
// launching on the compute stream, grid-stride loops, the row of a CSR slot,
// the O(1) graph checks without reads of device memory, and the current
// context. The checks and reduction blocks shared with the CPU kernels come
// from common/KernelChecks.h and common/KernelCommon.h.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CUDA_KERNELSUPPORT_H
#define GNNRT_CUDA_KERNELSUPPORT_H

#include "Context.h"

#include "common/KernelChecks.h"

#include <cstdint>
#include <limits>

namespace gnnrt::cuda {

// Kernels name the shared argument checks `kernel::spmmArgs` and so on.
namespace kernel = ::gnnrt::kernel;
using kernel::kReductionBlocks;
using kernel::mulSize;
using kernel::present;

/// Launches \p kernel over \p threads work items (grid-stride) on the
/// compute stream; nothing for no work.
template <typename... Params, typename... Args>
int launch(gnnrt_cuda *ctx, const char *name, int64_t threads,
           void (*kernel)(Params...), Args... args) {
  if (threads <= 0)
    return GNNRT_OK;
  kernel<<<gridFor(threads), 256, 0, ctx->compute>>>(args...);
  return check(cudaGetLastError(), name);
}

__device__ inline int64_t firstItem() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline int64_t itemStride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

/// The row that owns slot \p s: `indptr[row] <= s < indptr[row + 1]`. A
/// binary search per slot keeps every slot's work equal, whatever the
/// degrees (a thread per row would wait on the hubs of a power-law graph).
__device__ inline int64_t rowOfSlot(const int32_t *indptr, int64_t rows,
                                    int64_t s) {
  int64_t lo = 0, hi = rows; // indptr[lo] <= s < indptr[hi]
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (indptr[mid] <= s)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// gnnrt::cpu::checkView without the reads of device memory: the offsets'
/// ends are trusted like the indices (gnnrt_graph_check ran on the host).
inline int checkView(const gnnrt_graph *g, const gnnrt_csr &csr) {
  return kernel::viewArrays(g, csr);
}

} // namespace gnnrt::cuda

/// Declares \p ctx, the current context, or returns its status.
#define GNNRT_CURRENT_CONTEXT(ctx)                                             \
  int ctx##Status = GNNRT_OK;                                                  \
  gnnrt_cuda *ctx = gnnrt::cuda::current(ctx##Status);                         \
  if (!ctx)                                                                    \
    return ctx##Status;

#endif // GNNRT_CUDA_KERNELSUPPORT_H
