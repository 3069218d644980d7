//===- Rows.cpp - Kernels restricted to the rows a loss reads -------------===//
//
// A GCN trained on a few labelled nodes reads, for its loss, only the rows
// within k hops of them: R_0 (the mask) c R_1 c ... c R_k, R_{j+1} adding
// every source of an edge into R_j. gnnrt_cpu_receptive_rows computes those
// sets from a graph and a mask (at the start of each step, 0.1 ms on
// Facebook's graph), and gnnrt_cpu_receptive_edges the same sets over the
// edges into them (for per-edge tensors); the other kernels here are SpMM,
// CSR dropout and the CSR product computed at the rows of one set, +0.0
// elsewhere (gnn-restrict-rows rewrites a program to call them).
//
// At the rows they compute they must give the bits of the whole kernels,
// so they run the whole kernels' own per-row code (sumRow in Common.h,
// productRow and dropoutRows in CsrMatrix.h) over the set's rows instead
// of over all of them. Leaving out terms that the caller knows are zero
// (sources outside R_skip, rows of b outside R_level) keeps those bits
// because the left-out products are ±0.0, which a sum that starts at +0.0
// absorbs without a trace. As in the whole kernels, every output row
// belongs to one thread and is summed in slot order, so the bits do not
// depend on the thread count; the set's rows are dealt out dynamically in
// chunks, since the rows near the labelled nodes are few and uneven.
//
//===----------------------------------------------------------------------===//
#include "CsrMatrix.h"
#include "RowSets.h"

#include "gnnrt/Philox.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace gnnrt::cpu;

namespace {

/// Rows `order[t]`, t in [begin, end), of the sum or mean aggregation
/// (sumRow, as gnnrt_cpu_spmm computes them), leaving out the sources whose
/// level exceeds \p skip when \p Skip. Compiled for AVX-512 too: every
/// output element is its own chain of products and sums in slot order.
///
/// The listed rows are scattered over the graph, so a row's prefetches stop
/// at its own last slot (prefetching the next listed row's first sources
/// too made no difference measurable on Facebook's R_2); with Skip,
/// gatherSumKept lists a row's kept slots first and prefetches along that
/// list.
template <int64_t Fixed, bool Skip>
GNNRT_VECTOR_CLONES void sumListedRows(const gnnrt_csr &in, const float *x,
                                       int64_t d, const float *weights,
                                       bool mean, const int32_t *order,
                                       const Level *level, int64_t skip,
                                       float *y, int64_t begin, int64_t end) {
  const int32_t *src = in.src;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t i = order[t];
    if constexpr (Skip)
      sumRow<Fixed>(in, x, d, weights, mean, y, i, in.indptr[i + 1],
                    [&](int64_t s) { return level[src[s]] <= skip; });
    else
      sumRow<Fixed>(in, x, d, weights, mean, y, i, in.indptr[i + 1], nullptr);
  }
}

/// Rows `order[t]`, t in [begin, end), of `c = A b` (productRow, as
/// gnnrt_cpu_csr_matmul computes them).
template <int64_t Fixed>
GNNRT_VECTOR_CLONES void listedProductRows(const gnnrt_csr_matrix &m,
                                           const float *b, int64_t n, float *c,
                                           bool skipZeros, const int32_t *order,
                                           int64_t begin, int64_t end) {
  const int32_t *indptr = m.indptr;
  const float *values = m.values;
  auto value = [&](int64_t s) { return values + s; };
  for (int64_t t = begin; t < end; ++t) {
    const int64_t r = order[t];
    productRow<Fixed>(indptr, m.indices, value, b, n, c, skipZeros, r,
                      indptr[r + 1], nullptr);
  }
}

/// Rows [begin, end) of `c = A^T b` over the CSC sections (productRow, as
/// gnnrt_cpu_csr_matmul computes them), leaving out the slots of rows of A
/// whose level exceeds \p level.
template <int64_t Fixed>
GNNRT_VECTOR_CLONES void
transposedProductRows(const gnnrt_csr_matrix &m, const float *b, int64_t n,
                      float *c, bool skipZeros, const Level *levels,
                      int64_t level, int64_t begin, int64_t end) {
  const int32_t *rowidx = m.rowidx, *perm = m.perm;
  const float *values = m.values;
  auto value = [&](int64_t s) { return values + perm[s]; };
  auto keep = [&](int64_t s) { return levels[rowidx[s]] <= level; };
  for (int64_t j = begin; j < end; ++j)
    productRow<Fixed>(m.colptr, rowidx, value, b, n, c, skipZeros, j,
                      m.colptr[j + 1], keep);
}

/// Whether \p v is neither an infinity nor a NaN.
inline unsigned finite(float v) {
  return (bitsOf(v) & 0x7F800000u) != 0x7F800000u;
}

/// Whether none of the \p count floats at \p v is an infinity or a NaN.
bool allFinite(const float *v, int64_t count) {
  [[maybe_unused]] const bool par = worthThreads(count);
  unsigned all = 1;
#pragma omp parallel for schedule(static) reduction(& : all) if (par)
  for (int64_t e = 0; e < count; ++e)
    all &= finite(v[e]);
  return all != 0;
}

/// Whether none of the rows `order[0, count)` of \p b (\p n floats each)
/// holds an infinity or a NaN.
bool rowsFinite(const float *b, const int32_t *order, int64_t count,
                int64_t n) {
  [[maybe_unused]] const bool par = worthThreads(count, n);
  unsigned all = 1;
#pragma omp parallel for schedule(static) reduction(& : all) if (par)
  for (int64_t t = 0; t < count; ++t)
    for (int64_t e = 0; e < n; ++e)
      all &= finite(b[static_cast<int64_t>(order[t]) * n + e]);
  return all != 0;
}

/// gnnrt_cpu_receptive_edges sorts each level's edges when they are at most
/// 1/kSortedEdgesRatio of the graph's, and otherwise places them by a scan
/// of the level bytes: a sort costs O(m log m) for m edges, the scan O(E)
/// bytes however few are listed, and bounds the worst case (every edge
/// listed). On 12 M edges with ids in random order, 2 M nodes, one hop: 4200
/// edges took 0.20 ms sorted and 0.53 ms scanned, 42 000 took 1.9 and 1.2
/// ms, 11 M took 0.71 s and 46 ms.
constexpr int64_t kSortedEdgesRatio = 512;

} // namespace

extern "C" {

int gnnrt_cpu_receptive_rows(const gnnrt_graph *g, const uint8_t *mask,
                             int64_t hops, int32_t *out) {
  if (int status = checkIn(g))
    return status;
  GNNRT_CHECK(hops >= 0 && hops <= kMaxHops, GNNRT_ERR_BAD_ARGUMENT);
  const int64_t n = g->num_nodes;
  GNNRT_CHECK(present(mask, n) && out, GNNRT_ERR_NULL_POINTER);

  const int32_t *indptr = g->in.indptr, *src = g->in.src;
  int32_t *count = out, *order = out + hops + 1;
  auto *level = reinterpret_cast<Level *>(order + n);
  const auto unreached = static_cast<Level>(hops + 1);
  // The bytes that round the levels up to whole int32, zero (never read).
  std::memset(level + n, 0, static_cast<size_t>((n + 3) / 4 * 4 - n));

  // A breadth-first search over in-edges, the order section holding its
  // queue: R_0 by a scan of the mask, then each R_{k+1} \ R_k by the
  // sources of the edges into R_k \ R_{k-1}, the rows found at level k.
  // Only the in-edges of R_{hops-1} are read.
  int64_t tail = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool in = mask[i] != 0;
    level[i] = in ? 0 : unreached;
    order[tail] = static_cast<int32_t>(i); // kept when in R_0
    tail += in;
  }
  count[0] = static_cast<int32_t>(tail);
  int64_t head = 0;
  for (int64_t k = 0; k < hops; ++k) {
    const int64_t levelEnd = tail;
    for (; head < levelEnd; ++head) {
      const int32_t v = order[head];
      for (int64_t s = indptr[v], last = indptr[v + 1]; s < last; ++s) {
        const int32_t u = src[s];
        if (level[u] == unreached) {
          level[u] = static_cast<Level>(k + 1);
          order[tail++] = u;
        }
      }
    }
    count[k + 1] = static_cast<int32_t>(tail);
  }

  // The queue lists each level in the order its rows were found; a
  // counting sort by level, placing the rows in increasing id, sorts it by
  // (level, id). The cursor of level k >= 1 is count[k - 1], the start of
  // its rows, which the placement advances to count[k]; shifting the counts
  // by one afterwards restores them with no scratch memory (the cursor of
  // the unreached rows, count[hops], ends at n).
  int64_t levelZero = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = level[i];
    const int64_t at = k == 0 ? levelZero++ : count[k - 1]++;
    order[at] = static_cast<int32_t>(i);
  }
  for (int64_t k = hops; k > 0; --k)
    count[k] = count[k - 1];
  count[0] = static_cast<int32_t>(levelZero);
  return GNNRT_OK;
}

int gnnrt_cpu_receptive_edges(const gnnrt_graph *g, const int32_t *node_sets,
                              int64_t node_hops, int64_t hops, int32_t *out) {
  if (int status = checkIn(g))
    return status;
  GNNRT_CHECK(out, GNNRT_ERR_NULL_POINTER);
  // The node sets are read up to R_hops, so hops is their level to
  // rowSetArgs: 0 <= hops <= node_hops <= GNNRT_ROW_SETS_MAX_HOPS, and
  // |R_hops| <= N bounds every read of their order.
  RowSets nodes;
  if (int status = rowSetArgs(node_sets, g->num_nodes, node_hops, hops, nodes))
    return status;

  const int64_t e = g->num_edges;
  const int32_t *indptr = g->in.indptr, *edgeId = g->in.edge_id;
  int32_t *count = out, *order = out + hops + 1;
  Level *level = clearLevels(out, e, hops);

  // E_k \ E_{k-1} is the in-edges of R_k \ R_{k-1}, the entries
  // [|R_{k-1}|, |R_k|) of the nodes' order: list them level by level.
  int64_t listed = 0;
  for (int64_t k = 0; k <= hops; ++k) {
    for (int64_t t = k == 0 ? 0 : nodes.count[k - 1]; t < nodes.count[k]; ++t) {
      const int32_t v = nodes.order[t];
      for (int64_t s = indptr[v], last = indptr[v + 1]; s < last; ++s) {
        const int32_t id = edgeId[s];
        level[id] = static_cast<Level>(k);
        order[listed++] = id;
      }
    }
    count[k] = static_cast<int32_t>(listed);
  }

  // Each level in increasing id, as the nodes' order is: then the order
  // and the computed rows depend on the graph and the node sets alone, not
  // on the slot order of the CSR. The entries past |E_hops| stay unwritten.
  if (listed * kSortedEdgesRatio <= e) {
    for (int64_t k = 0; k <= hops; ++k)
      std::sort(order + (k == 0 ? 0 : count[k - 1]), order + count[k]);
    return GNNRT_OK;
  }
  // Else a counting sort by level of the listed edges, from their bytes.
  placeByLevel(level, e, hops, count, order);
  return GNNRT_OK;
}

int gnnrt_cpu_spmm_rows(const gnnrt_graph *g, int aggr, const float *x,
                        int64_t d, const float *weights,
                        const int32_t *row_sets, int64_t hops, int64_t level,
                        int64_t skip, int zero_rest, float *y) {
  int64_t nd;
  if (int status = spmmKernelArgs(g, aggr, x, d, weights, 1, y, nd))
    return status;
  GNNRT_CHECK(aggr != GNNRT_AGGR_MAX, GNNRT_ERR_BAD_ARGUMENT);
  RowSets sets;
  if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
    return status;

  const int64_t n = g->num_nodes, computed = sets.count[level];
  const bool mean = aggr == GNNRT_AGGR_MEAN, skipping = skip <= hops;
  [[maybe_unused]] const bool par = worthThreads(
      slotsOfRows(g->in.indptr, sets.order, computed) + computed, d);
  withRowWidth(d, [&](auto fixed) {
    forEachChunk(computed, kRowChunk, par, [&](int64_t begin, int64_t end) {
      if (skipping)
        sumListedRows<fixed(), true>(g->in, x, d, weights, mean, sets.order,
                                     sets.level, skip, y, begin, end);
      else
        sumListedRows<fixed(), false>(g->in, x, d, weights, mean, sets.order,
                                      sets.level, skip, y, begin, end);
    });
  });
  if (zero_rest)
    zeroOtherRows(sets.level, n, level, d, y);
  return GNNRT_OK;
}

int gnnrt_cpu_csr_dropout_rows(const void *x, int64_t rows, int64_t cols,
                               int64_t nnz, uint64_t seed, uint64_t step,
                               uint64_t stream, double p,
                               const int32_t *row_sets, int64_t hops,
                               int64_t level, void *y) {
  if (int status = kernel::csrDropoutArgs(x, rows, cols, nnz, p, y))
    return status;
  gnnrt_csr_matrix a;
  RowSets sets;
  if (int status =
          csrRowSetArgs(x, rows, cols, nnz, row_sets, hops, level, a, sets))
    return status;
  const gnnrt_csr_matrix out = gnnrt_csr_matrix_view(y, rows, cols, nnz);
  copyPattern(a, out);

  const int32_t *indptr = a.indptr, *order = sets.order;
  const int64_t computed = sets.count[level];
  float *yv = out.values;
  dropoutListedRows(
      a, yv, seed, step, stream, p, computed, kRowChunk,
      worthThreads(slotsOfRows(indptr, order, computed) + computed),
      [&](int64_t t) { return int64_t(order[t]); });

  // The slots of the other rows: a run of rows is a run of slots.
  forEachRun(sets.level, rows, level, worthThreads(rows + nnz),
             [&](int64_t first, int64_t last) {
               std::fill(yv + indptr[first], yv + indptr[last], 0.0f);
             });
  return GNNRT_OK;
}

int gnnrt_cpu_csr_matmul_rows(const void *a, int64_t rows, int64_t cols,
                              int64_t nnz, int transpose_a, const float *b,
                              int64_t n, const int32_t *row_sets, int64_t hops,
                              int64_t level, int zero_rest, float *c) {
  int64_t cSize;
  if (int status = kernel::csrMatmulArgs(a, rows, cols, nnz, transpose_a, b, n,
                                         c, cSize))
    return status;
  gnnrt_csr_matrix m;
  RowSets sets;
  if (int status =
          csrRowSetArgs(a, rows, cols, nnz, row_sets, hops, level, m, sets))
    return status;
  if (cSize == 0)
    return GNNRT_OK;

  const bool transpose = transpose_a != 0;
  const int32_t *order = sets.order;
  const int64_t computed = sets.count[level];
  // The slots read are those of the rows of A in R_level, in both
  // directions (A^T b leaves out the others' CSC slots). Zero values
  // among them decide gnnrt_cpu_csr_matmul's skipping as it decides it
  // over all of A, and b must then be finite where it is read: all of it
  // for A b, its rows in R_level for A^T b (the others are the caller's
  // zeros). Skipping or not gives the same bits; it only saves the reads of
  // rows of b. One serial pass over those values is 1/n of the product.
  int64_t listed = 0, zeros = 0;
  for (int64_t t = 0; t < computed; ++t)
    for (int64_t s = m.indptr[order[t]], last = m.indptr[order[t] + 1];
         s < last; ++s) {
      ++listed;
      zeros += m.values[s] == 0.0f;
    }
  bool skipZeros = zeros > 0 && zeros >= listed / 8;
  if (skipZeros)
    skipZeros =
        transpose ? rowsFinite(b, order, computed, n) : allFinite(b, cols * n);

  if (transpose) {
    // Every column of A is an output row, each reading its CSC slots.
    [[maybe_unused]] const bool par = worthThreads(cols + nnz, n);
    withRowWidth(n, [&](auto fixed) {
      forEachChunk(cols, 64, par, [&](int64_t begin, int64_t end) {
        transposedProductRows<fixed()>(m, b, n, c, skipZeros, sets.level, level,
                                       begin, end);
      });
    });
    return GNNRT_OK;
  }
  [[maybe_unused]] const bool par = worthThreads(listed + computed, n);
  withRowWidth(n, [&](auto fixed) {
    forEachChunk(computed, kRowChunk, par, [&](int64_t begin, int64_t end) {
      listedProductRows<fixed()>(m, b, n, c, skipZeros, order, begin, end);
    });
  });
  if (zero_rest)
    zeroOtherRows(sets.level, rows, level, n, c);
  return GNNRT_OK;
}

} // extern "C"
