//===- Sparse.cpp - Aggregation kernels over the graph --------------------===//
//
// SpMM, SDDMM, gather/scatter, edge softmax and edge norms over the CSR by
// destination. Every loop runs over destination rows: a row's outputs (a
// node row, or the edge rows of its incoming edges) belong to that row
// alone, so threads never write the same element and each element is
// accumulated in CSR slot order whatever the thread count (the edge
// softmax's sums in KernelCommon.h's 32 lanes, the order of a GPU warp,
// so that the CUDA kernels give these bits with a warp per row). Rows are dealt
// out dynamically in chunks of 64 because power-law degrees make static
// chunks uneven.
//
// Each edge kernel's per-row body is a function of its own (sddmmRow,
// edgeAddRow, scatterRow, softmaxRow, softmaxGradRow, headsRow), which the
// whole kernel runs over every row and its `_rows` form (gnn-restrict-rows,
// at the end of this file) over the rows of one set R_level: the computed
// rows must have the whole kernel's bits, and sharing the code is what
// guarantees it (SDDMM's and the edge add's per-slot bodies, sddmmSlot and
// edgeAddSlot in Common.h, are the tiled kernels' too). As in Rows.cpp, the
// `_rows` forms deal out the set's rows in chunks of kRowChunk, and leaving out
// terms the caller knows are +-0.0 (scatter's and SpMM's slots whose other end
// is outside R_skip) keeps the bits because a sum that starts at +0.0 absorbs
// them.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "RowSets.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace gnnrt::cpu;

namespace {

/// Rows [begin, end) of the sum or mean aggregation with at most one weight
/// per edge, rows of width \p Fixed (0: \p d): the common GCN and SAGE
/// case, which the width lets compile to whole vectors. Compiled for
/// AVX-512 too (GNNRT_VECTOR_CLONES): each output element is its own chain
/// of products and sums in slot order, so the width changes no bit.
///
/// Each row is sumRow's (Common.h), which gnnrt_cpu_spmm_rows shares; a
/// fixed width sums through gatherSum, in registers, prefetching the source
/// rows across the whole range of rows.
template <int64_t Fixed>
GNNRT_VECTOR_CLONES void sumRowRange(const gnnrt_graph *g, const float *x,
                                     int64_t d, const float *weights, bool mean,
                                     float *y, int64_t begin, int64_t end) {
  const int64_t slotEnd = g->in.indptr[end];
  for (int64_t i = begin; i < end; ++i)
    sumRow<Fixed>(g->in, x, d, weights, mean, y, i, slotEnd, nullptr);
}

/// Row \p i of gnnrt_cpu_spmm's sum or mean with `[E, heads]` weights,
/// heads > 1 (GAT): head k weighs the contiguous columns [k f, (k + 1) f),
/// f = d / heads, each output element summed in slot order into the zeroed
/// row and a mean divided by the whole in-degree after the sum. \p keep,
/// when not nullptr, leaves out the slots s with `!keep(s)` (the bits of
/// the whole sum when every left-out product is +-0.0). Shared by
/// gnnrt_cpu_spmm and gnnrt_cpu_spmm_heads_rows.
template <typename KeepFn>
inline void headsRow(const gnnrt_csr &in, const float *x, int64_t d,
                     const float *weights, int64_t heads, bool mean, float *y,
                     int64_t i, KeepFn keep) {
  const int32_t *src = in.src, *eid = in.edge_id;
  const int64_t begin = in.indptr[i], end = in.indptr[i + 1], f = d / heads;
  float *yi = y + i * d;
  std::fill(yi, yi + d, 0.0f);
  for (int64_t s = begin; s < end; ++s) {
    if constexpr (!std::is_same_v<KeepFn, std::nullptr_t>)
      if (!keep(s))
        continue;
    const float *xs = x + static_cast<int64_t>(src[s]) * d;
    const float *we = weights + static_cast<int64_t>(eid[s]) * heads;
    for (int64_t k = 0; k < heads; ++k) {
      if (f == 8) // GAT's usual 8 features per head
        addScaled<8>(yi + k * f, xs + k * f, we[k], f);
      else
        addScaled<0>(yi + k * f, xs + k * f, we[k], f);
    }
  }
  if (mean && end > begin) {
    const float deg = static_cast<float>(end - begin);
    for (int64_t c = 0; c < d; ++c)
      yi[c] /= deg;
  }
}

/// The edge rows of gnnrt_cpu_sddmm for the slots of row \p i (sddmmSlot,
/// Common.h, which the tiled kernels share).
inline void sddmmRow(const gnnrt_csr &in, const float *lhs, const float *rhs,
                     int64_t d, int64_t heads, float *y, int64_t i) {
  const int32_t *src = in.src, *eid = in.edge_id;
  for (int64_t s = in.indptr[i], last = in.indptr[i + 1]; s < last; ++s)
    sddmmSlot(lhs, rhs, d, heads, y, i, src[s], eid[s]);
}

/// The edge rows of gnnrt_cpu_edge_add for the slots of row \p i:
/// `y[e] = a[src] + b[i]` (edgeAddSlot).
inline void edgeAddRow(const gnnrt_csr &in, const float *a, const float *b,
                       int64_t d, float *y, int64_t i) {
  const int32_t *src = in.src, *eid = in.edge_id;
  for (int64_t s = in.indptr[i], last = in.indptr[i + 1]; s < last; ++s)
    edgeAddSlot(a, b, d, y, i, src[s], eid[s]);
}

/// Row \p i of gnnrt_cpu_scatter over \p view: the edge rows of its slots
/// summed in slot order into the zeroed row, leaving out the slots s with
/// `!keep(s)` when \p keep is not nullptr.
template <typename KeepFn>
inline void scatterRow(const gnnrt_csr &view, const float *x, int64_t d,
                       float *y, int64_t i, KeepFn keep) {
  const int32_t *eid = view.edge_id;
  float *yi = y + i * d;
  std::fill(yi, yi + d, 0.0f);
  for (int64_t s = view.indptr[i], last = view.indptr[i + 1]; s < last; ++s) {
    if constexpr (!std::is_same_v<KeepFn, std::nullptr_t>)
      if (!keep(s))
        continue;
    const float *xe = x + static_cast<int64_t>(eid[s]) * d;
    for (int64_t c = 0; c < d; ++c)
      yi[c] += xe[c];
  }
}

/// The edge rows of gnnrt_cpu_edge_softmax for the slots of row \p i, each
/// head normalised over the row.
inline void softmaxRow(const gnnrt_csr &in, const float *x, int64_t heads,
                       float *y, int64_t i) {
  const int32_t *eid = in.edge_id;
  const int64_t begin = in.indptr[i], end = in.indptr[i + 1];
  const int used =
      static_cast<int>(std::min<int64_t>(end - begin, kernel::kEdgeLanes));
  for (int64_t k = 0; k < heads; ++k) {
    // Subtracting the group's maximum keeps exp() finite. Each x[e, k] is
    // read before y[e, k] is written, which is what allows y == x.
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t s = begin; s < end; ++s) {
      const float v = x[static_cast<int64_t>(eid[s]) * heads + k];
      m = m < v ? v : m;
    }
    // The sum in kEdgeLanes lanes, as a warp adds it (KernelCommon.h).
    float lanes[kernel::kEdgeLanes];
    std::fill(lanes, lanes + kernel::laneSpan(used), 0.0f);
    for (int64_t s = begin; s < end; ++s) {
      const int64_t p = static_cast<int64_t>(eid[s]) * heads + k;
      const float ev = std::exp(x[p] - m);
      y[p] = ev;
      lanes[(s - begin) & (kernel::kEdgeLanes - 1)] += ev;
    }
    const float sum = kernel::laneButterflySum(lanes, used);
    for (int64_t s = begin; s < end; ++s)
      y[static_cast<int64_t>(eid[s]) * heads + k] /= sum;
  }
}

/// The edge rows of gnnrt_cpu_edge_softmax_grad for the slots of row \p i.
/// Each element of dx is written after the row's dot product has read y
/// and dy, and from its own y and dy only, which allows dx == y or dy.
inline void softmaxGradRow(const gnnrt_csr &in, const float *y, const float *dy,
                           int64_t heads, float *dx, int64_t i) {
  const int32_t *eid = in.edge_id;
  const int64_t begin = in.indptr[i], end = in.indptr[i + 1];
  const int used =
      static_cast<int>(std::min<int64_t>(end - begin, kernel::kEdgeLanes));
  for (int64_t k = 0; k < heads; ++k) {
    float lanes[kernel::kEdgeLanes];
    std::fill(lanes, lanes + kernel::laneSpan(used), 0.0f);
    for (int64_t s = begin; s < end; ++s) {
      const int64_t p = static_cast<int64_t>(eid[s]) * heads + k;
      lanes[(s - begin) & (kernel::kEdgeLanes - 1)] += y[p] * dy[p];
    }
    const float dot = kernel::laneButterflySum(lanes, used);
    for (int64_t s = begin; s < end; ++s) {
      const int64_t p = static_cast<int64_t>(eid[s]) * heads + k;
      dx[p] = y[p] * (dy[p] - dot);
    }
  }
}

/// `row(order[t])` for t in [0, |R_level|): the rows of one set, dealt out
/// in chunks of kRowChunk when the slots they read are worth a thread team
/// (\p width floats each). Each row's outputs belong to it alone.
template <typename RowFn>
void forEachListedRow(const gnnrt_csr &view, const RowSets &sets, int64_t level,
                      int64_t width, RowFn row) {
  const int32_t *order = sets.order;
  const int64_t computed = sets.count[level];
  const bool par =
      worthThreads(slotsOfRows(view.indptr, order, computed) + computed, width);
  forEachChunk(computed, kRowChunk, par, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t)
      row(static_cast<int64_t>(order[t]));
  });
}

/// `y[e] = +0.0` (edge rows of \p width floats) for every edge e of a slot
/// of a CSR row outside R_level. A run of rows is a run of slots, so
/// forEachRun's runs each clear the edge rows of one range of slots; those
/// edges are disjoint from the computed rows', so clearing them does not
/// disturb an in-place kernel whichever goes first. Not a memset of all of
/// y beforehand for that reason: the soft-max may read x == y.
void zeroOtherEdgeRows(const gnnrt_graph *g, const gnnrt_csr &in,
                       const RowSets &sets, int64_t level, int64_t width,
                       float *y) {
  if (width == 0)
    return;
  const int32_t *indptr = in.indptr, *eid = in.edge_id;
  const size_t bytes = static_cast<size_t>(width) * sizeof(float);
  forEachRun(sets.level, g->num_nodes, level,
             worthThreads(g->num_nodes + g->num_edges, width),
             [&](int64_t first, int64_t last) {
               for (int64_t s = indptr[first], end = indptr[last]; s < end; ++s)
                 std::memset(y + static_cast<int64_t>(eid[s]) * width, 0,
                             bytes);
             });
}

} // namespace

extern "C" {

int gnnrt_cpu_spmm(const gnnrt_graph *g, int aggr, const float *x, int64_t d,
                   const float *weights, int64_t weight_heads, float *y) {
  int64_t nd;
  if (int status = spmmKernelArgs(g, aggr, x, d, weights, weight_heads, y, nd))
    return status;

  const int32_t *indptr = g->in.indptr, *src = g->in.src;
  const int64_t n = g->num_nodes, heads = weight_heads;
  const bool mean = aggr == GNNRT_AGGR_MEAN;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
  if (aggr != GNNRT_AGGR_MAX && (!weights || heads == 1)) {
    withRowWidth(d, [&](auto fixed) {
      forEachChunk(n, 64, par, [&](int64_t begin, int64_t end) {
        sumRowRange<fixed()>(g, x, d, weights, mean, y, begin, end);
      });
    });
    return GNNRT_OK;
  }
  // Several weights per edge (GAT), or the maximum.
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    if (aggr != GNNRT_AGGR_MAX) {
      headsRow(g->in, x, d, weights, heads, mean, y, i, nullptr);
      continue;
    }
    float *yi = y + i * d;
    const int64_t begin = indptr[i], end = indptr[i + 1];
    if (begin == end) {
      std::fill(yi, yi + d, 0.0f);
      continue;
    }
    std::fill(yi, yi + d, -std::numeric_limits<float>::infinity());
    for (int64_t s = begin; s < end; ++s) {
      const float *xs = x + static_cast<int64_t>(src[s]) * d;
      for (int64_t c = 0; c < d; ++c)
        yi[c] = yi[c] < xs[c] ? xs[c] : yi[c];
    }
  }
  return GNNRT_OK;
}

int gnnrt_cpu_spmm_max_grad(const gnnrt_graph *g, const float *x,
                            const float *dy, int64_t d, float *dx) {
  if (int status = checkIn(g))
    return status;
  int64_t nd;
  if (int status = kernel::spmmMaxGradArgs(g, x, dy, d, dx, nd))
    return status;

  const int32_t *indptr = g->in.indptr, *src = g->in.src, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
  std::memset(dx, 0, static_cast<size_t>(nd) * sizeof(float));
  // dy[i] goes to the winning source row, which other destinations may also
  // feed: parallelising over destination rows would race. Columns are
  // independent, so threads take blocks of columns and each walks every row
  // in order: no atomics, the same order of additions for any thread count.
  constexpr int64_t kMaxBlock = 16;
  int64_t threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  const int64_t block =
      std::clamp<int64_t>((d + threads - 1) / threads, 1, kMaxBlock);
  const int64_t tasks = (d + block - 1) / block;
#pragma omp parallel for schedule(dynamic, 1) if (par)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t c0 = t * block, width = std::min(block, d - c0);
    float best[kMaxBlock];
    int32_t bestSrc[kMaxBlock], bestId[kMaxBlock];
    for (int64_t i = 0; i < n; ++i) {
      const int64_t begin = indptr[i], end = indptr[i + 1];
      if (begin == end)
        continue;
      for (int64_t k = 0; k < width; ++k)
        bestId[k] = -1;
      for (int64_t s = begin; s < end; ++s) {
        const int32_t j = src[s], id = eid[s];
        const float *xs = x + static_cast<int64_t>(j) * d + c0;
        // The maximum, and among equal maxima the lowest edge id: slots
        // need not be in edge id order.
        for (int64_t k = 0; k < width; ++k)
          if (bestId[k] < 0 || xs[k] > best[k] ||
              (xs[k] == best[k] && id < bestId[k])) {
            best[k] = xs[k];
            bestSrc[k] = j;
            bestId[k] = id;
          }
      }
      const float *dyi = dy + i * d + c0;
      for (int64_t k = 0; k < width; ++k)
        dx[static_cast<int64_t>(bestSrc[k]) * d + c0 + k] += dyi[k];
    }
  }
  return GNNRT_OK;
}

int gnnrt_cpu_sddmm(const gnnrt_graph *g, const float *lhs, const float *rhs,
                    int64_t d, int64_t heads, float *y) {
  if (int status = sddmmKernelArgs(g, lhs, rhs, d, heads, y))
    return status;

  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i)
    sddmmRow(g->in, lhs, rhs, d, heads, y, i);
  return GNNRT_OK;
}

int gnnrt_cpu_gather(const gnnrt_graph *g, int end, const float *x, int64_t d,
                     float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t ed;
  if (int status = kernel::gatherArgs(g, end, x, d, y, ed))
    return status;

  const int32_t *indptr = g->in.indptr, *src = g->in.src, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes;
  const size_t bytes = static_cast<size_t>(d) * sizeof(float);
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i)
    for (int64_t s = indptr[i]; s < indptr[i + 1]; ++s) {
      const int64_t from = end == GNNRT_END_SRC ? src[s] : i;
      if (bytes)
        std::memcpy(y + static_cast<int64_t>(eid[s]) * d, x + from * d, bytes);
    }
  return GNNRT_OK;
}

int gnnrt_cpu_edge_add(const gnnrt_graph *g, const float *a, const float *b,
                       int64_t d, float *y) {
  if (int status = edgeAddKernelArgs(g, a, b, d, y))
    return status;

  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i)
    edgeAddRow(g->in, a, b, d, y, i);
  return GNNRT_OK;
}

int gnnrt_cpu_scatter(const gnnrt_graph *g, int end, const float *x, int64_t d,
                      float *y) {
  const gnnrt_csr *viewOf = nullptr;
  if (int status = scatterKernelArgs(g, end, x, d, y, viewOf))
    return status;
  const gnnrt_csr &view = *viewOf;

  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i)
    scatterRow(view, x, d, y, i, nullptr);
  return GNNRT_OK;
}

int gnnrt_cpu_edge_softmax(const gnnrt_graph *g, const float *x, int64_t heads,
                           float *y) {
  if (int status = edgeSoftmaxKernelArgs(g, x, heads, y))
    return status;

  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, heads);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i)
    softmaxRow(g->in, x, heads, y, i);
  return GNNRT_OK;
}

int gnnrt_cpu_edge_softmax_grad(const gnnrt_graph *g, const float *y,
                                const float *dy, int64_t heads, float *dx) {
  if (int status = edgeSoftmaxGradKernelArgs(g, y, dy, heads, dx))
    return status;

  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, heads);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i)
    softmaxGradRow(g->in, y, dy, heads, dx, i);
  return GNNRT_OK;
}

int gnnrt_cpu_edge_norm(const gnnrt_graph *g, int kind, float *w) {
  if (int status = checkIn(g))
    return status;
  GNNRT_CHECK(kind == GNNRT_NORM_SYMMETRIC || kind == GNNRT_NORM_MEAN,
              GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(present(w, g->num_edges), GNNRT_ERR_NULL_POINTER);

  const int32_t *indptr = g->in.indptr, *src = g->in.src, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, 1);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    const double dd = static_cast<double>(indptr[i + 1] - indptr[i]);
    for (int64_t s = indptr[i]; s < indptr[i + 1]; ++s) {
      double v;
      if (kind == GNNRT_NORM_MEAN) {
        v = 1.0 / dd;
      } else {
        // In-degree of the source; 0 gives weight 0. The reference's
        // expression, so both round to the same float.
        const int32_t j = src[s];
        const double ds = static_cast<double>(indptr[j + 1] - indptr[j]);
        v = ds == 0 ? 0.0 : 1.0 / std::sqrt(ds) * (1.0 / std::sqrt(dd));
      }
      w[eid[s]] = static_cast<float>(v);
    }
  }
  return GNNRT_OK;
}

//===----------------------------------------------------------------------===//
// The edge kernels at the rows of one set (gnn-restrict-rows)
//===----------------------------------------------------------------------===//

int gnnrt_cpu_sddmm_rows(const gnnrt_graph *g, const float *lhs,
                         const float *rhs, int64_t d, int64_t heads,
                         const int32_t *row_sets, int64_t hops, int64_t level,
                         int zero_rest, float *y) {
  if (int status = sddmmKernelArgs(g, lhs, rhs, d, heads, y))
    return status;
  RowSets sets;
  if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
    return status;

  forEachListedRow(g->in, sets, level, d, [&](int64_t i) {
    sddmmRow(g->in, lhs, rhs, d, heads, y, i);
  });
  if (zero_rest)
    zeroOtherEdgeRows(g, g->in, sets, level, heads, y);
  return GNNRT_OK;
}

int gnnrt_cpu_edge_add_rows(const gnnrt_graph *g, const float *a,
                            const float *b, int64_t d, const int32_t *row_sets,
                            int64_t hops, int64_t level, int zero_rest,
                            float *y) {
  if (int status = edgeAddKernelArgs(g, a, b, d, y))
    return status;
  RowSets sets;
  if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
    return status;

  forEachListedRow(g->in, sets, level, d,
                   [&](int64_t i) { edgeAddRow(g->in, a, b, d, y, i); });
  if (zero_rest)
    zeroOtherEdgeRows(g, g->in, sets, level, d, y);
  return GNNRT_OK;
}

int gnnrt_cpu_edge_softmax_rows(const gnnrt_graph *g, const float *x,
                                int64_t heads, const int32_t *row_sets,
                                int64_t hops, int64_t level, int zero_rest,
                                float *y) {
  if (int status = edgeSoftmaxKernelArgs(g, x, heads, y))
    return status;
  RowSets sets;
  if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
    return status;

  forEachListedRow(g->in, sets, level, heads,
                   [&](int64_t i) { softmaxRow(g->in, x, heads, y, i); });
  if (zero_rest)
    zeroOtherEdgeRows(g, g->in, sets, level, heads, y);
  return GNNRT_OK;
}

int gnnrt_cpu_edge_softmax_grad_rows(const gnnrt_graph *g, const float *y,
                                     const float *dy, int64_t heads,
                                     const int32_t *row_sets, int64_t hops,
                                     int64_t level, int zero_rest, float *dx) {
  if (int status = edgeSoftmaxGradKernelArgs(g, y, dy, heads, dx))
    return status;
  RowSets sets;
  if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
    return status;

  forEachListedRow(g->in, sets, level, heads, [&](int64_t i) {
    softmaxGradRow(g->in, y, dy, heads, dx, i);
  });
  if (zero_rest)
    zeroOtherEdgeRows(g, g->in, sets, level, heads, dx);
  return GNNRT_OK;
}

int gnnrt_cpu_scatter_rows(const gnnrt_graph *g, int end, const float *x,
                           int64_t d, const int32_t *row_sets, int64_t hops,
                           int64_t level, int64_t skip, int zero_rest,
                           float *y) {
  const gnnrt_csr *viewOf = nullptr;
  if (int status = scatterKernelArgs(g, end, x, d, y, viewOf))
    return status;
  const gnnrt_csr &view = *viewOf;
  RowSets sets;
  if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
    return status;

  // The view's src is each slot's other end: the source summing at
  // destinations, the destination summing at sources.
  const int32_t *other = view.src;
  const Level *levels = sets.level;
  if (skip <= hops)
    forEachListedRow(view, sets, level, d, [&](int64_t i) {
      scatterRow(view, x, d, y, i,
                 [&](int64_t s) { return levels[other[s]] <= skip; });
    });
  else
    forEachListedRow(view, sets, level, d,
                     [&](int64_t i) { scatterRow(view, x, d, y, i, nullptr); });
  if (zero_rest)
    zeroOtherRows(sets.level, g->num_nodes, level, d, y);
  return GNNRT_OK;
}

int gnnrt_cpu_spmm_heads_rows(const gnnrt_graph *g, int aggr, const float *x,
                              int64_t d, const float *weights,
                              int64_t weight_heads, const int32_t *row_sets,
                              int64_t hops, int64_t level, int64_t skip,
                              int zero_rest, float *y) {
  int64_t nd;
  if (int status = spmmKernelArgs(g, aggr, x, d, weights, weight_heads, y, nd))
    return status;
  GNNRT_CHECK(aggr != GNNRT_AGGR_MAX, GNNRT_ERR_BAD_ARGUMENT);
  // spmmArgs checks weight_heads only when there are weights.
  GNNRT_CHECK(weights, GNNRT_ERR_NULL_POINTER);
  RowSets sets;
  if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
    return status;

  // One weight per edge is gnnrt_cpu_spmm's sumRow path, which
  // gnnrt_cpu_spmm_rows runs at the listed rows.
  if (weight_heads == 1)
    return gnnrt_cpu_spmm_rows(g, aggr, x, d, weights, row_sets, hops, level,
                               skip, zero_rest, y);

  const gnnrt_csr &in = g->in;
  const int32_t *src = in.src;
  const Level *levels = sets.level;
  const bool mean = aggr == GNNRT_AGGR_MEAN;
  if (skip <= hops)
    forEachListedRow(in, sets, level, d, [&](int64_t i) {
      headsRow(in, x, d, weights, weight_heads, mean, y, i,
               [&](int64_t s) { return levels[src[s]] <= skip; });
    });
  else
    forEachListedRow(in, sets, level, d, [&](int64_t i) {
      headsRow(in, x, d, weights, weight_heads, mean, y, i, nullptr);
    });
  if (zero_rest)
    zeroOtherRows(sets.level, g->num_nodes, level, d, y);
  return GNNRT_OK;
}

} // extern "C"
