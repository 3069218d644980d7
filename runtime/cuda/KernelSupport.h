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
using kernel::kLossChunkRows;
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

/// A launch of exactly \p blocks blocks of \p threads threads (at most
/// kMaxBlocks blocks: such kernels loop over their items).
template <typename... Params, typename... Args>
int launchBlocks(gnnrt_cuda *ctx, const char *name, int64_t blocks,
                 unsigned threads, void (*kernel)(Params...), Args... args) {
  kernel<<<static_cast<unsigned>(blocks), threads, 0, ctx->compute>>>(args...);
  return check(cudaGetLastError(), name);
}

__device__ inline int64_t firstItem() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline int64_t itemStride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

/// Warp-per-item loops: launched with 32 threads per item, every lane of a
/// warp takes the same items (the block size and the stride are multiples
/// of 32), so the shuffles below see the whole warp.
__device__ inline int64_t firstWarpItem() { return firstItem() / 32; }
__device__ inline int64_t warpItemStride() { return itemStride() / 32; }
__device__ inline int laneId() { return static_cast<int>(threadIdx.x % 32); }

/// The sum of \p v over the warp, in every lane. The butterfly's order is
/// fixed, so the result is the same run to run (not the CPU's serial order).
__device__ inline float warpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

/// The maximum of \p v over the warp with the CPU's comparison (a NaN never
/// replaces the running maximum), in every lane.
__device__ inline float warpMax(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float o = __shfl_xor_sync(0xffffffffu, v, offset);
    v = v < o ? o : v;
  }
  return v;
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
