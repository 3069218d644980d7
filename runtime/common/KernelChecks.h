//===- KernelChecks.h - Argument checks of the CPU and CUDA kernels -*- C++
//-*-===//
//
// Every kernel that exists for both targets (gnnrt_cpu_X and gnnrt_cuda_X)
// checks its arguments through one function here, in the order the CPU
// kernel always had, so a bad call returns the same status on both and a
// new rule is written once. What needs a read of an array stays with each
// target: the CPU checks a graph's and a CSR matrix's offsets, which the
// CUDA runtime cannot read without a copy. Host code; private to the
// runtime's libraries.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_COMMON_KERNELCHECKS_H
#define GNNRT_COMMON_KERNELCHECKS_H

#include "common/KernelCommon.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace gnnrt::kernel {

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// `rows * cols` representable, into \p count.
inline int matrixSize(int64_t rows, int64_t cols, int64_t &count) {
  GNNRT_CHECK(mulSize(rows, cols, count), GNNRT_ERR_BAD_SIZE);
  return GNNRT_OK;
}

/// `d >= 0` and `N * d` representable, into \p nd.
inline int nodeTensor(const gnnrt_graph *g, int64_t d, int64_t &nd) {
  GNNRT_CHECK(d >= 0 && mulSize(g->num_nodes, d, nd), GNNRT_ERR_BAD_SIZE);
  return GNNRT_OK;
}

/// `heads >= 1` dividing `d`, and `E * heads` representable, into \p eh.
inline int edgeHeads(const gnnrt_graph *g, int64_t d, int64_t heads,
                     int64_t &eh) {
  GNNRT_CHECK(heads >= 1 && d % heads == 0 && mulSize(g->num_edges, heads, eh),
              GNNRT_ERR_BAD_SIZE);
  return GNNRT_OK;
}

/// Sizes a CSR feature matrix's int32 sections can describe: rows and
/// columns are stored in rowidx and indices, offsets up to nnz in indptr
/// and colptr. A matrix has at most one slot per element, which also keeps
/// the dense index `i * cols + j` of dropout far from overflowing.
inline int csrShape(int64_t rows, int64_t cols, int64_t nnz) {
  constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();
  GNNRT_CHECK(rows >= 0 && cols >= 0 && nnz >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(rows <= kMaxIndex && cols <= kMaxIndex && nnz <= kMaxIndex,
              GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(nnz <= rows * cols, GNNRT_ERR_BAD_SIZE);
  return GNNRT_OK;
}

/// The O(1) checks of one CSR view of a graph that read none of its
/// arrays: sizes within int32, and the arrays present. The CPU also checks
/// the offsets' ends (cpu::checkView).
inline int viewArrays(const gnnrt_graph *g, const gnnrt_csr &csr) {
  GNNRT_CHECK(g, GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(g->num_nodes >= 0 && g->num_edges >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(g->num_nodes < std::numeric_limits<int32_t>::max() &&
                  g->num_edges <= std::numeric_limits<int32_t>::max(),
              GNNRT_ERR_BAD_GRAPH);
  GNNRT_CHECK(csr.indptr && present(csr.src, g->num_edges) &&
                  present(csr.edge_id, g->num_edges),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

//===----------------------------------------------------------------------===//
// Graph kernels: the checks after the graph view's
//===----------------------------------------------------------------------===//

inline int spmmArgs(const gnnrt_graph *g, int aggr, const float *x, int64_t d,
                    const float *weights, int64_t weightHeads, const float *y,
                    int64_t &nd) {
  GNNRT_CHECK(aggr >= GNNRT_AGGR_SUM && aggr <= GNNRT_AGGR_MAX,
              GNNRT_ERR_BAD_ARGUMENT);
  if (int status = nodeTensor(g, d, nd))
    return status;
  GNNRT_CHECK(present(x, nd) && present(y, nd), GNNRT_ERR_NULL_POINTER);
  if (weights) {
    GNNRT_CHECK(aggr != GNNRT_AGGR_MAX, GNNRT_ERR_BAD_ARGUMENT);
    int64_t eh;
    if (int status = edgeHeads(g, d, weightHeads, eh))
      return status;
  }
  return GNNRT_OK;
}

inline int spmmMaxGradArgs(const gnnrt_graph *g, const float *x,
                           const float *dy, int64_t d, const float *dx,
                           int64_t &nd) {
  if (int status = nodeTensor(g, d, nd))
    return status;
  GNNRT_CHECK(present(x, nd) && present(dy, nd) && present(dx, nd),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

inline int sddmmArgs(const gnnrt_graph *g, const float *lhs, const float *rhs,
                     int64_t d, int64_t heads, const float *y, int64_t &eh) {
  int64_t nd;
  if (int status = nodeTensor(g, d, nd))
    return status;
  if (int status = edgeHeads(g, d, heads, eh))
    return status;
  GNNRT_CHECK(present(lhs, nd) && present(rhs, nd) && present(y, eh),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

inline int gatherArgs(const gnnrt_graph *g, int end, const float *x, int64_t d,
                      const float *y, int64_t &ed) {
  GNNRT_CHECK(end == GNNRT_END_SRC || end == GNNRT_END_DST,
              GNNRT_ERR_BAD_ARGUMENT);
  int64_t nd;
  if (int status = nodeTensor(g, d, nd))
    return status;
  GNNRT_CHECK(mulSize(g->num_edges, d, ed), GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, nd) && present(y, ed), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

inline int edgeAddArgs(const gnnrt_graph *g, const float *a, const float *b,
                       int64_t d, const float *y, int64_t &ed) {
  int64_t nd;
  if (int status = nodeTensor(g, d, nd))
    return status;
  GNNRT_CHECK(mulSize(g->num_edges, d, ed), GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(a, nd) && present(b, nd) && present(y, ed),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// The view a scatter sums over: summing at sources is summing at
/// destinations of the transposed view. Checked before that view is.
inline int scatterView(const gnnrt_graph *g, int end, const gnnrt_csr *&view) {
  GNNRT_CHECK(g, GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(end == GNNRT_END_SRC || end == GNNRT_END_DST,
              GNNRT_ERR_BAD_ARGUMENT);
  view = end == GNNRT_END_DST ? &g->in : &g->out;
  return GNNRT_OK;
}

/// The checks after the view's; \p nd receives `N * d`.
inline int scatterArgs(const gnnrt_graph *g, const float *x, int64_t d,
                       const float *y, int64_t &nd) {
  int64_t ed;
  if (int status = nodeTensor(g, d, nd))
    return status;
  GNNRT_CHECK(mulSize(g->num_edges, d, ed), GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, ed) && present(y, nd), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// `heads >= 0` and `E * heads` representable, into \p eh.
inline int edgeTensor(const gnnrt_graph *g, int64_t heads, int64_t &eh) {
  GNNRT_CHECK(heads >= 0 && mulSize(g->num_edges, heads, eh),
              GNNRT_ERR_BAD_SIZE);
  return GNNRT_OK;
}

inline int edgeSoftmaxArgs(const gnnrt_graph *g, const float *x, int64_t heads,
                           const float *y, int64_t &eh) {
  if (int status = edgeTensor(g, heads, eh))
    return status;
  GNNRT_CHECK(present(x, eh) && present(y, eh), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

inline int edgeSoftmaxGradArgs(const gnnrt_graph *g, const float *y,
                               const float *dy, int64_t heads, const float *dx,
                               int64_t &eh) {
  if (int status = edgeTensor(g, heads, eh))
    return status;
  GNNRT_CHECK(present(y, eh) && present(dy, eh) && present(dx, eh),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

//===----------------------------------------------------------------------===//
// CSR feature matrices: the checks before the offsets' (CPU only)
//===----------------------------------------------------------------------===//

inline int csrDropoutArgs(const void *x, int64_t rows, int64_t cols,
                          int64_t nnz, double p, const void *y) {
  if (int status = csrShape(rows, cols, nnz))
    return status;
  GNNRT_CHECK(p >= 0 && p < 1, GNNRT_ERR_BAD_ARGUMENT); // also rejects NaN
  GNNRT_CHECK(x && y, GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// \p cSize receives the product's element count.
inline int csrMatmulArgs(const void *a, int64_t rows, int64_t cols, int64_t nnz,
                         int transposeA, const float *b, int64_t n,
                         const float *c, int64_t &cSize) {
  if (int status = csrShape(rows, cols, nnz))
    return status;
  const int64_t inner = transposeA ? rows : cols;
  const int64_t outer = transposeA ? cols : rows;
  int64_t bSize;
  GNNRT_CHECK(mulSize(inner, n, bSize) && mulSize(outer, n, cSize),
              GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(a && present(b, bSize) && present(c, cSize),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

//===----------------------------------------------------------------------===//
// Dense kernels
//===----------------------------------------------------------------------===//

/// \p count receives `rows * cols`.
inline int reduceArgs(int kind, const float *x, int64_t rows, int64_t cols,
                      int dim, const float *y, int64_t &count) {
  GNNRT_CHECK(kind >= GNNRT_REDUCE_SUM && kind <= GNNRT_REDUCE_MAX,
              GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(dim == 0 || dim == 1, GNNRT_ERR_BAD_ARGUMENT);
  if (int status = matrixSize(rows, cols, count))
    return status;
  const int64_t kept = dim == 0 ? cols : rows;
  GNNRT_CHECK(present(x, count) && present(y, kept), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// \p columns receives `heads * width`, the head columns (the matrix's rows,
/// or its columns for spread), \p count the matrix's element count.
inline int headMatrixArgs(int kind, int64_t heads, int64_t width,
                          const float *y, int64_t &columns, int64_t &count) {
  GNNRT_CHECK(kind == GNNRT_HEADS_SUM || kind == GNNRT_HEADS_MEAN ||
                  kind == GNNRT_HEADS_SPREAD,
              GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(heads >= 1 && width >= 1, GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(
      mulSize(heads, width, columns) &&
          mulSize(columns, kind == GNNRT_HEADS_MEAN ? width : heads, count),
      GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(y, GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// \p total receives the output's width.
inline int concatArgs(const float *const *inputs, const int64_t *widths,
                      int64_t numInputs, int64_t rows, const float *y,
                      int64_t &total) {
  GNNRT_CHECK(numInputs >= 0 && rows >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(inputs, numInputs) && present(widths, numInputs),
              GNNRT_ERR_NULL_POINTER);
  total = 0;
  for (int64_t i = 0; i < numInputs; ++i) {
    int64_t size;
    GNNRT_CHECK(mulSize(rows, widths[i], size) &&
                    !__builtin_add_overflow(total, widths[i], &total),
                GNNRT_ERR_BAD_SIZE);
    GNNRT_CHECK(present(inputs[i], size), GNNRT_ERR_NULL_POINTER);
  }
  int64_t count;
  GNNRT_CHECK(mulSize(rows, total, count), GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(y, count), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// \p out receives `rows * width`.
inline int sliceArgs(const float *x, int64_t rows, int64_t cols, int64_t offset,
                     int64_t width, const float *y, int64_t &out) {
  int64_t count;
  if (int status = matrixSize(rows, cols, count))
    return status;
  GNNRT_CHECK(offset >= 0 && width >= 0 && offset <= cols &&
                  width <= cols - offset && mulSize(rows, width, out),
              GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, count) && present(y, out), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// gnn.insert_columns: `x` and `y` `[rows, cols]`, `block` `[rows, width]`
/// for the columns `[offset, offset + width)`, into \p count `rows * cols`.
/// y may be x (the planner's use), never the block.
inline int insertColumnsArgs(const float *x, const float *block, int64_t rows,
                             int64_t cols, int64_t offset, int64_t width,
                             const float *y, int64_t &count) {
  int64_t blockCount;
  if (int status = sliceArgs(x, rows, cols, offset, width, block, blockCount))
    return status;
  count = rows * cols; // sliceArgs checked that it fits
  GNNRT_CHECK(present(y, count), GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(blockCount == 0 || block != y, GNNRT_ERR_BAD_ARGUMENT);
  return GNNRT_OK;
}

/// The dimension and eps of normalize and its gradient, into \p count
/// `rows * cols`.
inline int normalizeShape(int64_t rows, int64_t cols, int dim, double eps,
                          int64_t &count) {
  GNNRT_CHECK(dim == 0 || dim == 1, GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(eps >= 0, GNNRT_ERR_BAD_ARGUMENT);
  return matrixSize(rows, cols, count);
}

inline int normalizeArgs(const float *x, int64_t rows, int64_t cols, int dim,
                         double eps, const float *y, int64_t &count) {
  if (int status = normalizeShape(rows, cols, dim, eps, count))
    return status;
  GNNRT_CHECK(present(x, count) && present(y, count), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

inline int normalizeGradArgs(const float *x, const float *dy, int64_t rows,
                             int64_t cols, int dim, double eps, const float *dx,
                             int64_t &count) {
  if (int status = normalizeShape(rows, cols, dim, eps, count))
    return status;
  GNNRT_CHECK(present(x, count) && present(dy, count) && present(dx, count),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

inline int dropoutArgs(const float *x, int64_t n, double p, const float *y) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(p >= 0 && p < 1, GNNRT_ERR_BAD_ARGUMENT); // also rejects NaN
  GNNRT_CHECK(present(x, n) && present(y, n), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// gnn.dropout with mask_columns: \p x and \p y are `rows x width`,
/// columns [offset, offset + width) of a `rows x cols` matrix whose size is
/// representable; `rows * width` into \p n.
inline int dropoutColumnsArgs(const float *x, int64_t rows, int64_t width,
                              int64_t cols, int64_t offset, double p,
                              const float *y, int64_t &n) {
  GNNRT_CHECK(rows >= 0 && width >= 0 && offset >= 0 && offset + width <= cols,
              GNNRT_ERR_BAD_ARGUMENT);
  int64_t whole;
  if (int status = matrixSize(rows, width, n))
    return status;
  if (int status = matrixSize(rows, cols, whole))
    return status;
  return dropoutArgs(x, n, p, y);
}

//===----------------------------------------------------------------------===//
// Training kernels
//===----------------------------------------------------------------------===//

/// gnnrt_*_init's checks and its uniform bound: 0 for the constant kinds
/// (zeros, ones), else the reference interpreter's expression, so both
/// targets (CUDA computes it on the host) draw with the same bound bits.
inline int initArgs(int kind, int64_t fanIn, int64_t fanOut, int64_t n,
                    const float *y, double &bound) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(y, n), GNNRT_ERR_NULL_POINTER);
  bound = 0;
  switch (kind) {
  case GNNRT_INIT_ZEROS:
  case GNNRT_INIT_ONES:
    return GNNRT_OK;
  case GNNRT_INIT_GLOROT:
    GNNRT_CHECK(fanIn >= 0 && fanOut >= 0 && fanIn + fanOut > 0,
                GNNRT_ERR_BAD_ARGUMENT);
    bound = std::sqrt(
        6.0 / (static_cast<double>(fanIn) + static_cast<double>(fanOut)));
    return GNNRT_OK;
  case GNNRT_INIT_KAIMING:
    GNNRT_CHECK(fanIn > 0, GNNRT_ERR_BAD_ARGUMENT);
    bound = std::sqrt(6.0 / static_cast<double>(fanIn));
    return GNNRT_OK;
  default:
    return GNNRT_ERR_BAD_ARGUMENT;
  }
}

/// The cross-entropy kernels' checks before any label is read.
inline int lossArgs(const float *logits, const int32_t *labels, int64_t n,
                    int64_t classes, double smoothing, int classWeights) {
  GNNRT_CHECK(classWeights == GNNRT_CLASS_WEIGHTS_NONE ||
                  classWeights == GNNRT_CLASS_WEIGHTS_BALANCED,
              GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(smoothing >= 0 && smoothing <= 1, GNNRT_ERR_BAD_ARGUMENT);
  int64_t count;
  GNNRT_CHECK(mulSize(n, classes, count) && classes >= 1, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(logits, count) && present(labels, n),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

inline int adamArgs(const float *param, const float *grad, const float *m,
                    const float *v, int64_t n, int64_t step, double lr,
                    double beta1, double beta2, double eps, double weightDecay,
                    const float *newParam, const float *newM,
                    const float *newV) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(param, n) && present(grad, n) && present(m, n) &&
                  present(v, n) && present(newParam, n) && present(newM, n) &&
                  present(newV, n),
              GNNRT_ERR_NULL_POINTER);
  // PyTorch's own argument checks; beta = 1 would divide by a zero bias
  // correction. Negated comparisons also reject NaN.
  GNNRT_CHECK(step >= 1, GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1 && eps >= 0 &&
                  lr >= 0 && weightDecay >= 0,
              GNNRT_ERR_BAD_ARGUMENT);
  return GNNRT_OK;
}

/// The momentum buffers are required with momentum and must be null
/// without it.
inline int sgdArgs(const float *param, const float *grad,
                   const float *momentumBuffer, int64_t n, double lr,
                   double momentum, double weightDecay, const float *newParam,
                   const float *newMomentumBuffer) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(momentum >= 0 && lr >= 0 && weightDecay >= 0,
              GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(present(param, n) && present(grad, n) && present(newParam, n),
              GNNRT_ERR_NULL_POINTER);
  if (momentum > 0)
    GNNRT_CHECK(present(momentumBuffer, n) && present(newMomentumBuffer, n),
                GNNRT_ERR_NULL_POINTER);
  else
    GNNRT_CHECK(!momentumBuffer && !newMomentumBuffer, GNNRT_ERR_BAD_ARGUMENT);
  return GNNRT_OK;
}

} // namespace gnnrt::kernel

#endif // GNNRT_COMMON_KERNELCHECKS_H
