//===- Sparse.cu - Aggregation kernels over the graph on the device -------===//
//
// gnnrt_cuda_spmm and friends, and the kernels of CSR feature matrices.
// Most output elements are computed by one thread, which walks its row's
// slots in CSR order exactly as the CPU kernel does: no atomics, and the
// results are the CPU kernel's bits wherever the arithmetic is the same
// (everything here but the cuSPARSE aggregation, the edge softmax's expf
// (its sums are in the CPU's lane order since 2026-11-29), the transposed
// CSR feature product (a block per column) and the order of the max
// gradient's sums, see below).
// Those add in a fixed order of their own: the same bits run to run. The
// library builds with --fmad=false, so a product and a sum are rounded
// separately as on the CPU.
//
// Where cuSPARSE is used: sum and mean aggregation with no weights or one
// weight per edge go to cusparseSpMM on the CSR by destination (row-major
// dense operands, opA non-transposed) with CUSPARSE_SPMM_CSR_ALG3, the CSR
// algorithm cuSPARSE documents as bit-wise deterministic run to run (for a
// non-transposed A; it also accepts the unsorted column indices of our
// rows, whose slots may be in any order). Its matrix values are one float
// per CSR slot while edge weights are indexed by edge id, so the values are
// gathered by slot into the context's scratch first (all ones without
// weights); the mean divides afterwards, in fp32 as the CPU. cuSPARSE sums
// in its own order: results are within fp32 rounding of the CPU's, not
// equal. Several weights per edge (GAT's heads), max aggregation, and a
// cuSPARSE that rejects the shapes (CUSPARSE_STATUS_NOT_SUPPORTED from the
// buffer-size query, decided by the shapes alone, so the same call always
// takes the same path), and arrays that are not 16-byte aligned (see
// gnnrt_cuda_spmm) use the own kernels, where a thread per output element
// (row, column) adds the row's slots in CSR order. A context that asks for
// the own kernels only (gnnrt_cuda_set_spmm_path) gets them for every
// call, with a thread per float4 of a row where the widths and alignment
// allow: faster than cuSPARSE on a uniform graph, slower on power-law ones
// (a hub's row is one thread's walk), hence not the default.
//
// The CSR feature-matrix product keeps its own kernels too: A b adds each
// element in the CPU's CSR slot order (bit for bit); A^T b splits a
// column's slots over a block's warps, since one feature shared by
// thousands of nodes would otherwise leave a single thread the whole sum.
//
// Argument checks are the CPU kernels' except reads of device memory (the
// O(1) offset checks of graphs and CSR matrices): see Graph.cu.
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"

#include "gnnrt/Philox.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using namespace gnnrt::cuda;

int checkIn(const gnnrt_graph *g) {
  return g ? checkView(g, g->in) : GNNRT_ERR_NULL_POINTER;
}

bool aligned16(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

/// The scratch bytes of an array, rounded up so the next one stays aligned
/// for any element type (and for cuSPARSE's buffer).
size_t scratchBytes(int64_t bytes) {
  return (static_cast<size_t>(bytes) + 255) / 256 * 256;
}

//===----------------------------------------------------------------------===//
// Aggregation
//===----------------------------------------------------------------------===//

/// One slot's term added to four columns: `acc += w * v` (or `acc += v`),
/// each product rounded before its sum (--fmad=false) as on the CPU.
__device__ inline void addSlot(float4 &acc, float4 v, bool weighted, float w) {
  if (weighted) {
    acc.x += w * v.x;
    acc.y += w * v.y;
    acc.z += w * v.z;
    acc.w += w * v.w;
  } else {
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
}

/// Sum or mean of element (i, c) over row i's slots in order: the CPU's
/// `y += w * x` (or `y += x`) chain, then the division by the degree in
/// fp32. Head k of the weights owns the columns [k f, (k + 1) f).
__global__ void spmmSumKernel(const int32_t *indptr, const int32_t *src,
                              const int32_t *ids, const float *x, int64_t n,
                              int64_t d, const float *weights, int64_t heads,
                              bool mean, float *y) {
  const int64_t f = weights ? d / heads : 1;
  for (int64_t t = firstItem(); t < n * d; t += itemStride()) {
    const int64_t i = t / d, c = t % d;
    // The head of column c, once: a 64-bit division per slot was most of
    // this kernel's time (GAT on Facebook, H100).
    const int64_t head = c / f;
    const int32_t first = indptr[i], last = indptr[i + 1];
    float acc = 0.0f;
    for (int32_t s = first; s < last; ++s) {
      const float xv = x[static_cast<int64_t>(src[s]) * d + c];
      if (weights)
        acc += weights[static_cast<int64_t>(ids[s]) * heads + head] * xv;
      else
        acc += xv;
    }
    if (mean && last > first)
      acc /= static_cast<float>(last - first);
    y[t] = acc;
  }
}

/// spmmSumKernel for rows of float4s (d = 4 d4, x and y 16-byte aligned,
/// and a head's columns a whole number of float4s), where the context asks
/// for the own kernels: d4 threads per row, each adding its four columns
/// over the row's slots in CSR order, the same chains as the CPU's, so the
/// same bits. A thread issues the loads of four slots before adding them.
/// Against a thread per element this moves the same bytes with a quarter
/// of the load instructions and more of them in flight: 0.61 against 0.71
/// ms at width 16 on a uniform 2M-node graph (bench/gpu/spmm_variants.cu).
/// A row's threads still walk it alone, so a hub's row is the tail.
__global__ void spmmSumVec4Kernel(const int32_t *indptr, const int32_t *src,
                                  const int32_t *ids, const float4 *x,
                                  int64_t n, int64_t d4, const float *weights,
                                  int64_t heads, bool mean, float4 *y) {
  constexpr int kUnroll = 4;
  const int64_t f4 = weights ? d4 / heads : 1;
  for (int64_t t = firstItem(); t < n * d4; t += itemStride()) {
    const int64_t i = t / d4, c = t % d4;
    const int64_t head = c / f4;
    const int32_t first = indptr[i], last = indptr[i + 1];
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    int32_t s = first;
    for (; s + kUnroll <= last; s += kUnroll) {
      float4 v[kUnroll];
      float w[kUnroll] = {};
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        v[u] = x[static_cast<int64_t>(src[s + u]) * d4 + c];
        if (weights)
          w[u] = weights[static_cast<int64_t>(ids[s + u]) * heads + head];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        addSlot(acc, v[u], weights, w[u]);
    }
    for (; s < last; ++s) {
      const float w =
          weights ? weights[static_cast<int64_t>(ids[s]) * heads + head] : 0;
      addSlot(acc, x[static_cast<int64_t>(src[s]) * d4 + c], weights, w);
    }
    if (mean && last > first) {
      const float degree = static_cast<float>(last - first);
      acc.x /= degree;
      acc.y /= degree;
      acc.z /= degree;
      acc.w /= degree;
    }
    y[t] = acc;
  }
}

/// Max of element (i, c) with the CPU's comparison (a NaN never replaces
/// the running maximum); an empty row gives 0.
__global__ void spmmMaxKernel(const int32_t *indptr, const int32_t *src,
                              const float *x, int64_t n, int64_t d, float *y) {
  for (int64_t t = firstItem(); t < n * d; t += itemStride()) {
    const int64_t i = t / d, c = t % d;
    const int32_t first = indptr[i], last = indptr[i + 1];
    float m = -INFINITY;
    for (int32_t s = first; s < last; ++s) {
      const float v = x[static_cast<int64_t>(src[s]) * d + c];
      m = m < v ? v : m;
    }
    y[t] = first == last ? 0.0f : m;
  }
}

/// cuSPARSE's values: one per CSR slot, the slot's edge weight (1 without
/// weights).
__global__ void slotValues(const int32_t *ids, int64_t e, const float *weights,
                           float *values) {
  for (int64_t s = firstItem(); s < e; s += itemStride())
    values[s] = weights ? weights[ids[s]] : 1.0f;
}

/// The mean's division of cuSPARSE's sums, in fp32 as the CPU divides.
__global__ void divideByDegree(const int32_t *indptr, int64_t n, int64_t d,
                               float *y) {
  for (int64_t t = firstItem(); t < n * d; t += itemStride()) {
    const int64_t i = t / d;
    const int32_t deg = indptr[i + 1] - indptr[i];
    if (deg > 0)
      y[t] /= static_cast<float>(deg);
  }
}

/// Destroys cuSPARSE descriptors on every path out of a call.
struct SpmmDescriptors {
  cusparseSpMatDescr_t a = nullptr;
  cusparseConstDnMatDescr_t b = nullptr;
  cusparseDnMatDescr_t c = nullptr;
  ~SpmmDescriptors() {
    if (a)
      cusparseDestroySpMat(a);
    if (b)
      cusparseDestroyDnMat(b);
    if (c)
      cusparseDestroyDnMat(c);
  }
};

/// Sum or mean aggregation through cusparseSpMM; \p unsupported is set
/// (and nothing written) when cuSPARSE rejects the shapes.
int spmmCusparse(gnnrt_cuda *ctx, const gnnrt_graph *g, const float *x,
                 int64_t d, const float *weights, bool mean, float *y,
                 bool &unsupported) {
  unsupported = false;
  const int64_t n = g->num_nodes, e = g->num_edges;
  const size_t valuesBytes = scratchBytes(4 * e);
  void *buffer = nullptr;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::scratch(ctx, valuesBytes, &buffer));
  SpmmDescriptors desc;
  GNNRT_CUDA_CHECK(cusparseCreateCsr(
      &desc.a, n, n, e, const_cast<int32_t *>(g->in.indptr),
      const_cast<int32_t *>(g->in.src), buffer, CUSPARSE_INDEX_32I,
      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  GNNRT_CUDA_CHECK(cusparseCreateConstDnMat(&desc.b, n, d, d, x, CUDA_R_32F,
                                            CUSPARSE_ORDER_ROW));
  GNNRT_CUDA_CHECK(
      cusparseCreateDnMat(&desc.c, n, d, d, y, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  GNNRT_CUDA_CHECK(cusparseSetStream(ctx->sparse, ctx->compute));
  // alpha and beta are read from the host.
  GNNRT_CUDA_CHECK(
      cusparseSetPointerMode(ctx->sparse, CUSPARSE_POINTER_MODE_HOST));
  const float alpha = 1.0f, beta = 0.0f;
  constexpr cusparseOperation_t kNo = CUSPARSE_OPERATION_NON_TRANSPOSE;
  constexpr cusparseSpMMAlg_t kAlg = CUSPARSE_SPMM_CSR_ALG3;
  size_t workBytes = 0;
  cusparseStatus_t query =
      cusparseSpMM_bufferSize(ctx->sparse, kNo, kNo, &alpha, desc.a, desc.b,
                              &beta, desc.c, CUDA_R_32F, kAlg, &workBytes);
  if (query == CUSPARSE_STATUS_NOT_SUPPORTED) {
    unsupported = true;
    return GNNRT_OK;
  }
  GNNRT_CUDA_CHECK(query);
  // Growing the scratch may move it: the values go at its new start.
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::scratch(
      ctx, valuesBytes + scratchBytes(workBytes), &buffer));
  GNNRT_CUDA_CHECK(cusparseSpMatSetValues(desc.a, buffer));
  float *values = static_cast<float *>(buffer);
  void *work = static_cast<char *>(buffer) + valuesBytes;
  GNNRT_RETURN_IF_ERROR(launch(ctx, "slotValues", e, slotValues, g->in.edge_id,
                               e, weights, values));
  // cuSPARSE does not promise to leave C unread when beta is 0, and the
  // planner's buffers may hold NaN from an earlier tensor.
  GNNRT_CUDA_CHECK(
      cudaMemsetAsync(y, 0, static_cast<size_t>(n * d) * 4, ctx->compute));
  GNNRT_CUDA_CHECK(cusparseSpMM(ctx->sparse, kNo, kNo, &alpha, desc.a, desc.b,
                                &beta, desc.c, CUDA_R_32F, kAlg, work));
  if (mean)
    GNNRT_RETURN_IF_ERROR(launch(ctx, "divideByDegree", n * d, divideByDegree,
                                 g->in.indptr, n, d, y));
  return GNNRT_OK;
}

/// spmm_max_grad, first pass: the CSR slot that wins element (i, c) (the
/// maximum, the lowest edge id among equal maxima, as the CPU), -1 for an
/// empty row.
__global__ void maxWinners(const int32_t *indptr, const int32_t *src,
                           const int32_t *ids, const float *x, int64_t n,
                           int64_t d, int32_t *winner) {
  for (int64_t t = firstItem(); t < n * d; t += itemStride()) {
    const int64_t i = t / d, c = t % d;
    float best = 0.0f;
    int32_t bestSlot = -1, bestId = -1;
    for (int32_t s = indptr[i]; s < indptr[i + 1]; ++s) {
      const int32_t id = ids[s];
      const float v = x[static_cast<int64_t>(src[s]) * d + c];
      if (bestId < 0 || v > best || (v == best && id < bestId)) {
        best = v;
        bestSlot = s;
        bestId = id;
      }
    }
    winner[t] = bestSlot;
  }
}

/// Second pass with the transposed view: dx(j, c) sums, over the edges out
/// of j in `out` slot order, dy(i, c) of each destination i whose winner is
/// that edge. Parallel over dx's elements with no atomics; the order of the
/// sum differs from the CPU's (destinations increasing), hence rounding.
__global__ void maxGradByOut(const int32_t *outIndptr, const int32_t *outDst,
                             const int32_t *outIds, const int32_t *inIds,
                             const int32_t *winner, const float *dy, int64_t n,
                             int64_t d, float *dx) {
  for (int64_t t = firstItem(); t < n * d; t += itemStride()) {
    const int64_t j = t / d, c = t % d;
    float acc = 0.0f;
    for (int32_t s = outIndptr[j]; s < outIndptr[j + 1]; ++s) {
      const int64_t at = static_cast<int64_t>(outDst[s]) * d + c;
      const int32_t w = winner[at];
      if (w >= 0 && inIds[w] == outIds[s])
        acc += dy[at];
    }
    dx[t] = acc;
  }
}

/// Second pass without the transposed view: one thread per column walks
/// the rows in order, adding as the CPU does (so its bits are the CPU's),
/// into dx zeroed before. Only d threads: graphs bound by the data layer
/// always carry `out`, which the parallel pass above uses.
__global__ void maxGradByColumn(const int32_t *src, const int32_t *winner,
                                const float *dy, int64_t n, int64_t d,
                                float *dx) {
  for (int64_t c = firstItem(); c < d; c += itemStride())
    for (int64_t i = 0; i < n; ++i) {
      const int32_t w = winner[i * d + c];
      if (w >= 0)
        dx[static_cast<int64_t>(src[w]) * d + c] += dy[i * d + c];
    }
}

/// y(e, k) for slot s (edge e, row i) and head k.
__global__ void sddmmKernel(const int32_t *indptr, const int32_t *src,
                            const int32_t *ids, const float *lhs,
                            const float *rhs, int64_t n, int64_t e, int64_t d,
                            int64_t heads, float *y) {
  const int64_t f = d / heads;
  for (int64_t t = firstItem(); t < e * heads; t += itemStride()) {
    const int64_t s = t / heads, k = t % heads;
    const int64_t i = rowOfSlot(indptr, n, s);
    y[static_cast<int64_t>(ids[s]) * heads + k] = kernel::dot8(
        lhs + i * d + k * f, rhs + static_cast<int64_t>(src[s]) * d + k * f, f);
  }
}

__global__ void gatherKernel(const int32_t *indptr, const int32_t *src,
                             const int32_t *ids, const float *x, int64_t n,
                             int64_t e, int64_t d, bool fromSrc, float *y) {
  for (int64_t t = firstItem(); t < e * d; t += itemStride()) {
    const int64_t s = t / d, c = t % d;
    const int64_t from = fromSrc ? src[s] : rowOfSlot(indptr, n, s);
    y[static_cast<int64_t>(ids[s]) * d + c] = x[from * d + c];
  }
}

/// y(e, c) = a(src(e), c) + b(dst(e), c), one item per edge and column.
__global__ void edgeAddKernel(const int32_t *indptr, const int32_t *src,
                              const int32_t *ids, const float *a,
                              const float *b, int64_t n, int64_t e, int64_t d,
                              float *y) {
  for (int64_t t = firstItem(); t < e * d; t += itemStride()) {
    const int64_t s = t / d, c = t % d;
    const int64_t i = rowOfSlot(indptr, n, s);
    y[static_cast<int64_t>(ids[s]) * d + c] =
        a[static_cast<int64_t>(src[s]) * d + c] + b[i * d + c];
  }
}

/// y(i, c): the sum of x(e, c) over row i's slots in order.
__global__ void scatterKernel(const int32_t *indptr, const int32_t *ids,
                              const float *x, int64_t n, int64_t d, float *y) {
  for (int64_t t = firstItem(); t < n * d; t += itemStride()) {
    const int64_t i = t / d, c = t % d;
    float acc = 0.0f;
    for (int32_t s = indptr[i]; s < indptr[i + 1]; ++s)
      acc += x[static_cast<int64_t>(ids[s]) * d + c];
    y[t] = acc;
  }
}

/// Softmax of head k over row i's edges, in the CPU's three passes; each x
/// is read before its y is written (so y == x is allowed). expf is CUDA's
/// (at most 2 ulp from the true value), not glibc's. A warp per (destination,
/// head): its lanes take every 32nd slot, and the maximum, the sum and the dot
/// product are warp reductions. A thread per (destination, head) walked a hub's
/// hundreds of slots alone three times (359 us per call on Facebook, H100). The
/// sums are in the butterfly's order, which the CPU kernel follows too
/// (kEdgeLanes lanes, laneButterflySum in common/KernelCommon.h): with expf,
/// the softmax is within an ulp or two of the CPU's, and the same run to run.
__global__ void edgeSoftmaxKernel(const int32_t *indptr, const int32_t *ids,
                                  const float *x, int64_t n, int64_t heads,
                                  float *y) {
  const int lane = laneId();
  for (int64_t t = firstWarpItem(); t < n * heads; t += warpItemStride()) {
    const int64_t i = t / heads, k = t % heads;
    const int32_t begin = indptr[i], end = indptr[i + 1];
    float m = -INFINITY;
    for (int32_t s = begin + lane; s < end; s += 32) {
      const float v = x[static_cast<int64_t>(ids[s]) * heads + k];
      m = m < v ? v : m;
    }
    m = warpMax(m);
    // Every lane has read its x before any lane writes y (x may be y).
    float sum = 0.0f;
    for (int32_t s = begin + lane; s < end; s += 32) {
      const int64_t p = static_cast<int64_t>(ids[s]) * heads + k;
      const float ev = expf(x[p] - m);
      y[p] = ev;
      sum += ev;
    }
    sum = warpSum(sum);
    for (int32_t s = begin + lane; s < end; s += 32)
      y[static_cast<int64_t>(ids[s]) * heads + k] /= sum;
  }
}

__global__ void edgeSoftmaxGradKernel(const int32_t *indptr, const int32_t *ids,
                                      const float *y, const float *dy,
                                      int64_t n, int64_t heads, float *dx) {
  const int lane = laneId();
  for (int64_t t = firstWarpItem(); t < n * heads; t += warpItemStride()) {
    const int64_t i = t / heads, k = t % heads;
    const int32_t begin = indptr[i], end = indptr[i + 1];
    float dot = 0.0f;
    for (int32_t s = begin + lane; s < end; s += 32) {
      const int64_t p = static_cast<int64_t>(ids[s]) * heads + k;
      dot += y[p] * dy[p];
    }
    dot = warpSum(dot);
    for (int32_t s = begin + lane; s < end; s += 32) {
      const int64_t p = static_cast<int64_t>(ids[s]) * heads + k;
      dx[p] = y[p] * (dy[p] - dot);
    }
  }
}

//===----------------------------------------------------------------------===//
// CSR feature matrices
//===----------------------------------------------------------------------===//

/// The dropout of slot s's value: element (i, j) of the dense matrix is
/// element i * cols + j of gnnrt_cpu_dropout, with the same Philox word
/// and the same quotient in double.
__global__ void csrDropoutValues(const int32_t *indptr, const int32_t *indices,
                                 const float *x, int64_t rows, int64_t cols,
                                 int64_t nnz, uint64_t seed, uint64_t step,
                                 uint64_t stream, uint64_t threshold,
                                 double keep, float *y) {
  for (int64_t s = firstItem(); s < nnz; s += itemStride()) {
    const float v = x[s];
    const float kept = static_cast<float>(static_cast<double>(v) / keep);
    if (threshold == 0) { // p = 0 keeps everything, whatever the bits
      y[s] = kept;
      continue;
    }
    if (threshold > UINT32_MAX) { // p > 1 - 2^-32 keeps nothing
      y[s] = 0.0f;
      continue;
    }
    const uint64_t i = static_cast<uint64_t>(rowOfSlot(indptr, rows, s));
    const uint64_t element =
        i * static_cast<uint64_t>(cols) + static_cast<uint64_t>(indices[s]);
    const uint32_t bits = gnnrt::dropoutBits(seed, step, stream, element);
    y[s] = bits >= threshold ? kept : 0.0f;
  }
}

/// c(i, col) = sum over row i's CSR slots in order of value * b(j, col).
__global__ void csrTimesDense(const int32_t *indptr, const int32_t *indices,
                              const float *values, const float *b, int64_t rows,
                              int64_t n, float *c) {
  for (int64_t t = firstItem(); t < rows * n; t += itemStride()) {
    const int64_t i = t / n, col = t % n;
    float acc = 0.0f;
    for (int32_t s = indptr[i]; s < indptr[i + 1]; ++s)
      acc += values[s] * b[static_cast<int64_t>(indices[s]) * n + col];
    c[t] = acc;
  }
}

/// c(j, col) of A^T b = sum over column j's CSC slots of value * b(i, col),
/// no atomics. A^T B: a block per column j of A (a row of the result), its 8
/// warps taking every 8th slot of the column and its lanes 32 columns of B at a
/// time; the warps' partial sums are added in warp order. A thread per
/// result element walked a whole column alone, and a feature word that
/// thousands of nodes share made one thread the whole kernel's time (853 us
/// per call on Facebook's 4714 features, H100, half of a GCN epoch). The
/// sum is in this fixed order, not the CPU's CSC order: within fp32
/// rounding of the CPU's, the same run to run.
constexpr int kTransposeWarps = 8;
__global__ void csrTransposeTimesDense(const int32_t *colptr,
                                       const int32_t *rowidx,
                                       const int32_t *perm, const float *values,
                                       const float *b, int64_t cols, int64_t n,
                                       float *c) {
  __shared__ float partial[kTransposeWarps][32];
  const int lane = laneId(), warp = static_cast<int>(threadIdx.x / 32);
  for (int64_t j = blockIdx.x; j < cols; j += gridDim.x) {
    const int32_t first = colptr[j], last = colptr[j + 1];
    for (int64_t c0 = 0; c0 < n; c0 += 32) {
      const int64_t col = c0 + lane;
      float acc = 0.0f;
      if (col < n)
        for (int32_t s = first + warp; s < last; s += kTransposeWarps)
          acc += values[perm[s]] * b[static_cast<int64_t>(rowidx[s]) * n + col];
      partial[warp][lane] = acc;
      __syncthreads();
      if (warp == 0 && col < n) {
        float total = partial[0][lane];
        for (int w = 1; w < kTransposeWarps; ++w)
          total += partial[w][lane];
        c[j * n + col] = total;
      }
      __syncthreads();
    }
  }
}

} // namespace

extern "C" {

int gnnrt_cuda_spmm(const gnnrt_graph *g, int aggr, const float *x, int64_t d,
                    const float *weights, int64_t weight_heads, float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t nd;
  if (int status =
          kernel::spmmArgs(g, aggr, x, d, weights, weight_heads, y, nd))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  if (nd == 0)
    return GNNRT_OK;
  const int64_t n = g->num_nodes, e = g->num_edges;
  if (aggr == GNNRT_AGGR_MAX)
    return launch(ctx, "spmmMaxKernel", nd, spmmMaxKernel, g->in.indptr,
                  g->in.src, x, n, d, y);
  const bool mean = aggr == GNNRT_AGGR_MEAN;
  if (e == 0) {
    // Every row is empty: sums and means are 0.
    GNNRT_CUDA_CHECK(
        cudaMemsetAsync(y, 0, static_cast<size_t>(nd) * 4, ctx->compute));
    return GNNRT_OK;
  }
  // cuSPARSE wants its arrays 16-byte aligned. Arena tensors are (64), and
  // a graph's arrays do not change between calls, so a given call always
  // takes the same path; the views gnnrt_cuda_add_self_loops lays out in
  // one buffer may not be, and go to the own kernel.
  const bool cusparseAligned = aligned16(g->in.indptr) &&
                               aligned16(g->in.src) && aligned16(x) &&
                               aligned16(y);
  const int64_t heads = weights ? weight_heads : int64_t{1};
  if (!ctx->spmmOwn && heads == 1 && cusparseAligned) {
    bool unsupported = false;
    GNNRT_RETURN_IF_ERROR(
        spmmCusparse(ctx, g, x, d, weights, mean, y, unsupported));
    if (!unsupported)
      return GNNRT_OK;
  }
  // Asked for the own kernels: rows of float4s where x's and y's rows and
  // each head's columns allow. Not the default: see gnnrt_cuda_set_spmm_path.
  if (ctx->spmmOwn && d % 4 == 0 && (d / heads) % 4 == 0 && aligned16(x) &&
      aligned16(y))
    return launch(ctx, "spmmSumVec4Kernel", nd / 4, spmmSumVec4Kernel,
                  g->in.indptr, g->in.src, g->in.edge_id,
                  reinterpret_cast<const float4 *>(x), n, d / 4, weights, heads,
                  mean, reinterpret_cast<float4 *>(y));
  return launch(ctx, "spmmSumKernel", nd, spmmSumKernel, g->in.indptr,
                g->in.src, g->in.edge_id, x, n, d, weights, heads, mean, y);
}

int gnnrt_cuda_spmm_max_grad(const gnnrt_graph *g, const float *x,
                             const float *dy, int64_t d, float *dx) {
  if (int status = checkIn(g))
    return status;
  int64_t nd;
  if (int status = kernel::spmmMaxGradArgs(g, x, dy, d, dx, nd))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  if (nd == 0)
    return GNNRT_OK;
  const int64_t n = g->num_nodes;
  int64_t winnerBytes;
  GNNRT_CHECK(mulSize(nd, 4, winnerBytes), GNNRT_ERR_BAD_SIZE);
  void *buffer = nullptr;
  GNNRT_RETURN_IF_ERROR(
      gnnrt::cuda::scratch(ctx, scratchBytes(winnerBytes), &buffer));
  int32_t *winner = static_cast<int32_t *>(buffer);
  GNNRT_RETURN_IF_ERROR(launch(ctx, "maxWinners", nd, maxWinners, g->in.indptr,
                               g->in.src, g->in.edge_id, x, n, d, winner));
  const gnnrt_csr &out = g->out;
  if (out.indptr && present(out.src, g->num_edges) &&
      present(out.edge_id, g->num_edges))
    return launch(ctx, "maxGradByOut", nd, maxGradByOut, out.indptr, out.src,
                  out.edge_id, g->in.edge_id, winner, dy, n, d, dx);
  GNNRT_CUDA_CHECK(
      cudaMemsetAsync(dx, 0, static_cast<size_t>(nd) * 4, ctx->compute));
  return launch(ctx, "maxGradByColumn", d, maxGradByColumn, g->in.src, winner,
                dy, n, d, dx);
}

int gnnrt_cuda_sddmm(const gnnrt_graph *g, const float *lhs, const float *rhs,
                     int64_t d, int64_t heads, float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  if (int status = kernel::sddmmArgs(g, lhs, rhs, d, heads, y, eh))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  return launch(ctx, "sddmmKernel", eh, sddmmKernel, g->in.indptr, g->in.src,
                g->in.edge_id, lhs, rhs, g->num_nodes, g->num_edges, d, heads,
                y);
}

int gnnrt_cuda_gather(const gnnrt_graph *g, int end, const float *x, int64_t d,
                      float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t ed;
  if (int status = kernel::gatherArgs(g, end, x, d, y, ed))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  return launch(ctx, "gatherKernel", ed, gatherKernel, g->in.indptr, g->in.src,
                g->in.edge_id, x, g->num_nodes, g->num_edges, d,
                end == GNNRT_END_SRC, y);
}

int gnnrt_cuda_edge_add(const gnnrt_graph *g, const float *a, const float *b,
                        int64_t d, float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t ed;
  if (int status = kernel::edgeAddArgs(g, a, b, d, y, ed))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  return launch(ctx, "edgeAddKernel", ed, edgeAddKernel, g->in.indptr,
                g->in.src, g->in.edge_id, a, b, g->num_nodes, g->num_edges, d,
                y);
}

int gnnrt_cuda_scatter(const gnnrt_graph *g, int end, const float *x, int64_t d,
                       float *y) {
  const gnnrt_csr *viewOf = nullptr;
  if (int status = kernel::scatterView(g, end, viewOf))
    return status;
  const gnnrt_csr &view = *viewOf;
  if (int status = checkView(g, view))
    return status;
  int64_t nd;
  if (int status = kernel::scatterArgs(g, x, d, y, nd))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  return launch(ctx, "scatterKernel", nd, scatterKernel, view.indptr,
                view.edge_id, x, g->num_nodes, d, y);
}

int gnnrt_cuda_edge_softmax(const gnnrt_graph *g, const float *x, int64_t heads,
                            float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  if (int status = kernel::edgeSoftmaxArgs(g, x, heads, y, eh))
    return status;
  // A thread per (node, head); that count only overflows for sizes no
  // memory holds.
  int64_t nh = 0;
  GNNRT_CHECK(eh == 0 || mulSize(g->num_nodes, heads, nh), GNNRT_ERR_BAD_SIZE);
  GNNRT_CURRENT_CONTEXT(ctx);
  if (eh == 0)
    return GNNRT_OK;
  // A warp per (destination, head).
  int64_t lanes;
  GNNRT_CHECK(mulSize(nh, 32, lanes), GNNRT_ERR_BAD_SIZE);
  return launch(ctx, "edgeSoftmaxKernel", lanes, edgeSoftmaxKernel,
                g->in.indptr, g->in.edge_id, x, g->num_nodes, heads, y);
}

int gnnrt_cuda_edge_softmax_grad(const gnnrt_graph *g, const float *y,
                                 const float *dy, int64_t heads, float *dx) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  if (int status = kernel::edgeSoftmaxGradArgs(g, y, dy, heads, dx, eh))
    return status;
  int64_t nh = 0;
  GNNRT_CHECK(eh == 0 || mulSize(g->num_nodes, heads, nh), GNNRT_ERR_BAD_SIZE);
  GNNRT_CURRENT_CONTEXT(ctx);
  if (eh == 0)
    return GNNRT_OK;
  // A warp per (destination, head).
  int64_t lanes;
  GNNRT_CHECK(mulSize(nh, 32, lanes), GNNRT_ERR_BAD_SIZE);
  return launch(ctx, "edgeSoftmaxGradKernel", lanes, edgeSoftmaxGradKernel,
                g->in.indptr, g->in.edge_id, y, dy, g->num_nodes, heads, dx);
}

int gnnrt_cuda_csr_dropout(const void *x, int64_t rows, int64_t cols,
                           int64_t nnz, uint64_t seed, uint64_t step,
                           uint64_t stream, double p, void *y) {
  if (int status = kernel::csrDropoutArgs(x, rows, cols, nnz, p, y))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  // Section addresses by pointer arithmetic on the device buffers; nothing
  // is read through them on the host.
  const gnnrt_csr_matrix a =
      gnnrt_csr_matrix_view(const_cast<void *>(x), rows, cols, nnz);
  const gnnrt_csr_matrix out = gnnrt_csr_matrix_view(y, rows, cols, nnz);
  // The pattern is the input's (every section before the values, padding
  // included): one copy.
  const size_t patternBytes =
      static_cast<size_t>(reinterpret_cast<const char *>(a.values) -
                          reinterpret_cast<const char *>(x));
  GNNRT_CUDA_CHECK(cudaMemcpyAsync(y, x, patternBytes, cudaMemcpyDeviceToDevice,
                                   ctx->compute));
  return launch(ctx, "csrDropoutValues", nnz, csrDropoutValues, a.indptr,
                a.indices, a.values, rows, cols, nnz, seed, step, stream,
                static_cast<uint64_t>(gnnrt::dropoutThreshold(p)), 1.0 - p,
                out.values);
}

int gnnrt_cuda_csr_matmul(const void *a, int64_t rows, int64_t cols,
                          int64_t nnz, int transpose_a, const float *b,
                          int64_t n, float *c) {
  int64_t cSize;
  if (int status = kernel::csrMatmulArgs(a, rows, cols, nnz, transpose_a, b, n,
                                         c, cSize))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  const gnnrt_csr_matrix m =
      gnnrt_csr_matrix_view(const_cast<void *>(a), rows, cols, nnz);
  if (transpose_a)
    return cSize == 0 ? GNNRT_OK
                      : launchBlocks(ctx, "csrTransposeTimesDense",
                                     cols < kMaxBlocks ? cols : kMaxBlocks,
                                     32 * kTransposeWarps,
                                     csrTransposeTimesDense, m.colptr, m.rowidx,
                                     m.perm, m.values, b, cols, n, c);
  return launch(ctx, "csrTimesDense", cSize, csrTimesDense, m.indptr, m.indices,
                m.values, b, rows, n, c);
}

} // extern "C"
