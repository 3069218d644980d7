//===- Blas.cu - GEMM with cuBLAS -----------------------------------------===//
//
// cuBLAS is column-major and our tensors are row-major. A row-major matrix
// read as column-major is its transpose, so c[m,n] = op(a) op(b) is
// computed as c^T[n,m] = op(b)^T op(a)^T, with the operands swapped and
// each keeping its own transpose flag: no copies, and the leading
// dimensions are the row-major widths gnnrt_cpu_matmul passes to cblas.
//
// The handle is in pedantic math mode (Context.cu): plain fp32 products
// and fp32 accumulation, no TF32. Only the summation order differs from
// OpenBLAS's.
//
//===----------------------------------------------------------------------===//
#include "Context.h"

#include "common/KernelCommon.h"

#include <algorithm>
#include <limits>

using gnnrt::kernel::mulSize;
using gnnrt::kernel::present;

extern "C" int gnnrt_cuda_matmul(const float *a, const float *b, int64_t m,
                                 int64_t n, int64_t k, int transpose_a,
                                 int transpose_b, float *c) {
  // The checks and their order are gnnrt_cpu_matmul's (runtime/cpu/Dense.cpp).
  int64_t mk, kn, mn;
  if (!(mulSize(m, k, mk) && mulSize(k, n, kn) && mulSize(m, n, mn)))
    return GNNRT_ERR_BAD_SIZE;
  // cublasSgemm takes int sizes; the 64-bit API would lift this, but the
  // CPU kernel has the same limit and the two must accept the same calls.
  constexpr int64_t kMaxDim = std::numeric_limits<int>::max();
  if (m > kMaxDim || n > kMaxDim || k > kMaxDim)
    return GNNRT_ERR_BAD_SIZE;
  if (!(present(a, mk) && present(b, kn) && present(c, mn)))
    return GNNRT_ERR_NULL_POINTER;
  // An empty product writes nothing, so nothing can alias.
  if (mn == 0)
    return GNNRT_OK;
  if (c == b || (c == a && (transpose_a || k != n)))
    return GNNRT_ERR_BAD_ARGUMENT;

  int status;
  gnnrt_cuda *ctx = gnnrt::cuda::current(status);
  if (!ctx)
    return status;
  if (k == 0) {
    // BLAS rejects a leading dimension of 0; the empty sum is 0.
    GNNRT_CUDA_CHECK(cudaMemsetAsync(
        c, 0, static_cast<size_t>(mn) * sizeof(float), ctx->compute));
    return GNNRT_OK;
  }
  const float one = 1.0f, zero = 0.0f;
  if (c == a) {
    // In place (the planner's, for a product whose input dies at it): cuBLAS
    // may not write over its operands, so a tile of rows of c at a time goes
    // to the context's scratch and is copied over the same rows of a, which
    // no later tile reads (they run in order on the compute stream). At
    // most kInPlaceTileBytes of scratch, whatever m is: the device memory
    // outside the planned arena stays bounded by the widths.
    constexpr int64_t kInPlaceTileBytes = int64_t(4) << 20;
    const int64_t rowBytes = n * static_cast<int64_t>(sizeof(float));
    const int64_t tile = std::max<int64_t>(1, kInPlaceTileBytes / rowBytes);
    void *tileBuffer;
    GNNRT_RETURN_IF_ERROR(gnnrt::cuda::scratch(
        ctx, static_cast<size_t>(std::min(tile, m) * rowBytes), &tileBuffer));
    float *own = static_cast<float *>(tileBuffer);
    for (int64_t first = 0; first < m; first += tile) {
      const int64_t rows = std::min(tile, m - first);
      GNNRT_CUDA_CHECK(cublasSgemm(
          ctx->blas, transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N,
          static_cast<int>(n), static_cast<int>(rows), static_cast<int>(k),
          &one, b, static_cast<int>(transpose_b ? k : n), a + first * k,
          static_cast<int>(k), &zero, own, static_cast<int>(n)));
      GNNRT_CUDA_CHECK(cudaMemcpyAsync(c + first * n, own,
                                       static_cast<size_t>(rows * rowBytes),
                                       cudaMemcpyDeviceToDevice, ctx->compute));
    }
    return GNNRT_OK;
  }
  GNNRT_CUDA_CHECK(cublasSgemm(
      ctx->blas, transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
      transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
      static_cast<int>(m), static_cast<int>(k), &one, b,
      static_cast<int>(transpose_b ? k : n), a,
      static_cast<int>(transpose_a ? m : k), &zero, c, static_cast<int>(n)));
  return GNNRT_OK;
}
