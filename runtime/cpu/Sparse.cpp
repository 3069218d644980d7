//===- Sparse.cpp - Aggregation kernels over the graph --------------------===//
//
// SpMM, SDDMM, gather/scatter, edge softmax and edge norms over the CSR by
// destination. Every loop runs over destination rows: a row's outputs (a
// node row, or the edge rows of its incoming edges) belong to that row
// alone, so threads never write the same element and each element is
// accumulated in CSR slot order whatever the thread count. Rows are dealt
// out dynamically in chunks of 64 because power-law degrees make static
// chunks uneven.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

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

} // namespace

extern "C" {

int gnnrt_cpu_spmm(const gnnrt_graph *g, int aggr, const float *x, int64_t d,
                   const float *weights, int64_t weight_heads, float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t nd;
  if (int status =
          kernel::spmmArgs(g, aggr, x, d, weights, weight_heads, y, nd))
    return status;

  const int32_t *indptr = g->in.indptr, *src = g->in.src, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes, heads = weight_heads;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
  if (aggr != GNNRT_AGGR_MAX && (!weights || heads == 1)) {
    const bool mean = aggr == GNNRT_AGGR_MEAN;
    withRowWidth(d, [&](auto fixed) {
      forEachChunk(n, 64, par, [&](int64_t begin, int64_t end) {
        sumRowRange<fixed()>(g, x, d, weights, mean, y, begin, end);
      });
    });
    return GNNRT_OK;
  }
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    float *yi = y + i * d;
    const int64_t begin = indptr[i], end = indptr[i + 1];
    if (begin == end) {
      std::fill(yi, yi + d, 0.0f);
      continue;
    }
    if (aggr == GNNRT_AGGR_MAX) {
      std::fill(yi, yi + d, -std::numeric_limits<float>::infinity());
      for (int64_t s = begin; s < end; ++s) {
        const float *xs = x + static_cast<int64_t>(src[s]) * d;
        for (int64_t c = 0; c < d; ++c)
          yi[c] = yi[c] < xs[c] ? xs[c] : yi[c];
      }
      continue;
    }
    std::fill(yi, yi + d, 0.0f);
    {
      // Several weights per edge (GAT): head k owns the contiguous columns
      // [k f, (k + 1) f).
      const int64_t f = d / heads;
      for (int64_t s = begin; s < end; ++s) {
        const float *xs = x + static_cast<int64_t>(src[s]) * d;
        const float *we = weights + static_cast<int64_t>(eid[s]) * heads;
        for (int64_t k = 0; k < heads; ++k) {
          if (f == 8) // GAT's usual 8 features per head
            addScaled<8>(yi + k * f, xs + k * f, we[k], f);
          else
            addScaled<0>(yi + k * f, xs + k * f, we[k], f);
        }
      }
    }
    if (aggr == GNNRT_AGGR_MEAN) {
      const float deg = static_cast<float>(end - begin);
      for (int64_t c = 0; c < d; ++c)
        yi[c] /= deg;
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
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  if (int status = kernel::sddmmArgs(g, lhs, rhs, d, heads, y, eh))
    return status;

  const int32_t *indptr = g->in.indptr, *src = g->in.src, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes, f = d / heads;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    const float *li = lhs + i * d;
    for (int64_t s = indptr[i]; s < indptr[i + 1]; ++s) {
      const float *rs = rhs + static_cast<int64_t>(src[s]) * d;
      float *ye = y + static_cast<int64_t>(eid[s]) * heads;
      for (int64_t k = 0; k < heads; ++k)
        ye[k] = dot8(li + k * f, rs + k * f, f);
    }
  }
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
  if (int status = checkIn(g))
    return status;
  int64_t ed;
  if (int status = kernel::edgeAddArgs(g, a, b, d, y, ed))
    return status;

  const int32_t *indptr = g->in.indptr, *src = g->in.src, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    const float *bi = b + i * d;
    for (int64_t s = indptr[i]; s < indptr[i + 1]; ++s) {
      const float *as = a + static_cast<int64_t>(src[s]) * d;
      float *ye = y + static_cast<int64_t>(eid[s]) * d;
      for (int64_t c = 0; c < d; ++c)
        ye[c] = as[c] + bi[c];
    }
  }
  return GNNRT_OK;
}

int gnnrt_cpu_scatter(const gnnrt_graph *g, int end, const float *x, int64_t d,
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

  const int32_t *indptr = view.indptr, *eid = view.edge_id;
  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, d);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    float *yi = y + i * d;
    std::fill(yi, yi + d, 0.0f);
    for (int64_t s = indptr[i]; s < indptr[i + 1]; ++s) {
      const float *xe = x + static_cast<int64_t>(eid[s]) * d;
      for (int64_t c = 0; c < d; ++c)
        yi[c] += xe[c];
    }
  }
  return GNNRT_OK;
}

int gnnrt_cpu_edge_softmax(const gnnrt_graph *g, const float *x, int64_t heads,
                           float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  if (int status = kernel::edgeSoftmaxArgs(g, x, heads, y, eh))
    return status;

  const int32_t *indptr = g->in.indptr, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, heads);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t begin = indptr[i], end = indptr[i + 1];
    for (int64_t k = 0; k < heads; ++k) {
      // Subtracting the group's maximum keeps exp() finite. Each x[e, k] is
      // read before y[e, k] is written, which is what allows y == x.
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t s = begin; s < end; ++s) {
        const float v = x[static_cast<int64_t>(eid[s]) * heads + k];
        m = m < v ? v : m;
      }
      float sum = 0.0f;
      for (int64_t s = begin; s < end; ++s) {
        const int64_t p = static_cast<int64_t>(eid[s]) * heads + k;
        const float ev = std::exp(x[p] - m);
        y[p] = ev;
        sum += ev;
      }
      for (int64_t s = begin; s < end; ++s)
        y[static_cast<int64_t>(eid[s]) * heads + k] /= sum;
    }
  }
  return GNNRT_OK;
}

int gnnrt_cpu_edge_softmax_grad(const gnnrt_graph *g, const float *y,
                                const float *dy, int64_t heads, float *dx) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  if (int status = kernel::edgeSoftmaxGradArgs(g, y, dy, heads, dx, eh))
    return status;

  const int32_t *indptr = g->in.indptr, *eid = g->in.edge_id;
  const int64_t n = g->num_nodes;
  [[maybe_unused]] const bool par = worthThreads(g->num_edges + n, heads);
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t begin = indptr[i], end = indptr[i + 1];
    for (int64_t k = 0; k < heads; ++k) {
      float dot = 0.0f;
      for (int64_t s = begin; s < end; ++s) {
        const int64_t p = static_cast<int64_t>(eid[s]) * heads + k;
        dot += y[p] * dy[p];
      }
      for (int64_t s = begin; s < end; ++s) {
        const int64_t p = static_cast<int64_t>(eid[s]) * heads + k;
        dx[p] = y[p] * (dy[p] - dot);
      }
    }
  }
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

} // extern "C"
