//===- Common.h - Helpers shared by the CPU kernels -------------*- C++ -*-===//
//
// The grain below which a loop stays serial, vector clones, the gathered
// row sums of SpMM and of the CSR products (with their per-row form that
// the whole and the row-restricted kernels share), row-width dispatch,
// chunked loops and graph checks that read the (host) offsets;
// the argument checks and fixed reduction blocks come from
// common/KernelChecks.h and common/KernelCommon.h, shared with the CUDA
// kernels. Private to runtime/cpu.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CPU_COMMON_H
#define GNNRT_CPU_COMMON_H

#include "common/KernelChecks.h"
#include "gnnrt/Kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>

namespace gnnrt::cpu {

// Shared with the CUDA kernels (common/KernelCommon.h, KernelChecks.h);
// kernels name the argument checks `kernel::spmmArgs` and so on.
namespace kernel = ::gnnrt::kernel;
using kernel::bitsOf;
using kernel::blockRows;
using kernel::dot8;
using kernel::fromBits;
using kernel::kLossChunkRows;
using kernel::kReductionBlocks;
using kernel::mulSize;
using kernel::present;

/// Loops over fewer elements than this run on one thread: below it the
/// fork/join of an OpenMP team costs more than the loop.
constexpr int64_t kParallelGrain = 1 << 15;

/// On x86-64 with GCC or Clang, a function compiled for baseline x86-64
/// and for AVX-512, the one the CPU supports picked when the library is
/// loaded. Only for loops whose every operation rounds the same at any
/// vector width (no reductions, no contraction), so results do not depend
/// on the machine.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&        \
    !defined(__SANITIZE_ADDRESS__)
#define GNNRT_VECTOR_CLONES __attribute__((target_clones("avx512f", "default")))
#else
#define GNNRT_VECTOR_CLONES
#endif

/// Forces inlining: a helper that is not inlined into a GNNRT_VECTOR_CLONES
/// function runs compiled for baseline x86-64 only.
#if defined(__GNUC__) || defined(__clang__)
#define GNNRT_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define GNNRT_ALWAYS_INLINE inline
#endif

/// Keeps OpenBLAS on the calling thread (once per process): gnnrt_cpu_matmul
/// deals out row blocks to OpenMP's threads itself, because OpenBLAS's own
/// threads split some sums and change their bits with the thread count
/// (Dense.cpp). Graph.cpp, with the other thread settings. The OpenMP build
/// of OpenBLAS follows OpenMP's count outside a thread team whatever this
/// set, so Dense.cpp's `sgemm` also makes each call with a count of 1.
void blasOnOneThread();

/// Whether a loop over about `a * b` elements is worth a thread team.
/// Kernels keep the answer in a `[[maybe_unused]]` variable because without
/// OpenMP the pragmas that read it are gone.
inline bool worthThreads(int64_t a, int64_t b = 1) {
  int64_t work;
  return !mulSize(a, b, work) || work >= kParallelGrain;
}

/// `c[0, len) += v * b[0, len)`, len being \p Fixed when it is not 0, else
/// \p n. The common widths are template arguments so that the loop compiles
/// to whole vectors with no remainder and no run-time alias check. Products
/// and sums are separate roundings (the library builds with
/// -ffp-contract=off), so the vector code gives the scalar code's bits.
template <int64_t Fixed>
inline void addScaled(float *__restrict c, const float *__restrict b, float v,
                      int64_t n) {
  const int64_t len = Fixed > 0 ? Fixed : n;
  for (int64_t k = 0; k < len; ++k)
    c[k] += v * b[k];
}

/// `c[0, len) += b[0, len)`, len as in addScaled.
template <int64_t Fixed>
inline void addRow(float *__restrict c, const float *__restrict b, int64_t n) {
  const int64_t len = Fixed > 0 ? Fixed : n;
  for (int64_t k = 0; k < len; ++k)
    c[k] += b[k];
}

/// How many slots ahead gatherSum prefetches its source rows. The rows a
/// sparse product gathers are scattered over a whole matrix, which the
/// hardware prefetchers cannot predict; asked for this far ahead, a row is
/// in cache by the time its slot is reached (16 was the fastest of 8, 16
/// and 32 on Facebook's graph, bench/cpu/spmm_bench.cpp).
constexpr int64_t kGatherPrefetchSlots = 16;

/// `out[0, Fixed)` = the sum over slots s in [first, last), in slot order,
/// of `*weight(s) * row(s)[0, Fixed)`, or of `row(s)` when \p weight is
/// nullptr; `row` and `weight` return pointers. The sum is kept in a local
/// row, which the compiler holds in registers (summed in place, the output
/// row would be stored after every slot since it may alias the rows read),
/// and the row and weight of slot `s + kGatherPrefetchSlots` are prefetched
/// while that slot is below \p slotEnd (weights indexed by edge id are as
/// scattered as the rows). The same products and sums in the same order as
/// adding into a zeroed `out` with addScaled/addRow: the same bits.
/// The narrowest rows gatherSum prefetches: a whole cache line. Narrower
/// rows are mostly index loads, and the prefetches only added work (SpMM of
/// width 4 on Facebook's graph: 0.55 ms with them, 0.50 ms without).
constexpr int64_t kPrefetchWidth = 16;

/// Prefetches the \p Fixed floats at \p row and the weight at \p weight
/// (nullptr: none).
template <int64_t Fixed>
GNNRT_ALWAYS_INLINE void prefetchSlot(const float *row, const float *weight) {
#if defined(__GNUC__) || defined(__clang__)
  const char *bytes = reinterpret_cast<const char *>(row);
  for (int64_t o = 0; o < Fixed * int64_t(sizeof(float)); o += 64)
    __builtin_prefetch(bytes + o);
  if (weight)
    __builtin_prefetch(weight);
#else
  (void)row;
  (void)weight;
#endif
}

template <int64_t Fixed, typename RowFn, typename WeightFn>
GNNRT_ALWAYS_INLINE void gatherSum(float *out, int64_t first, int64_t last,
                                   int64_t slotEnd, RowFn row,
                                   WeightFn weight) {
  static_assert(Fixed > 0, "gatherSum needs a compile-time width");
  constexpr bool weighted = !std::is_same_v<WeightFn, std::nullptr_t>;
  float acc[Fixed] = {};
  for (int64_t s = first; s < last; ++s) {
    if (const int64_t ahead = s + kGatherPrefetchSlots;
        Fixed >= kPrefetchWidth && ahead < slotEnd) {
      if constexpr (weighted)
        prefetchSlot<Fixed>(row(ahead), weight(ahead));
      else
        prefetchSlot<Fixed>(row(ahead), nullptr);
    }
    if constexpr (weighted)
      addScaled<Fixed>(acc, row(s), *weight(s), Fixed);
    else
      addRow<Fixed>(acc, row(s), Fixed);
  }
  std::memcpy(out, acc, sizeof(acc));
}

/// gatherSum without the slots s for which `keep(s)` is false: the others
/// are listed first, a chunk at a time, without a branch per slot (a filter
/// that keeps about half the slots would mispredict half the time), then
/// gathered in slot order, prefetching along the list. The listed slots
/// get gatherSum's products and sums in gatherSum's order, so the result
/// has gatherSum's bits whenever every left-out product is ±0.0: the sum
/// starts at +0.0 and never becomes -0.0 (x + (-x) is +0.0), and
/// s + (±0.0) is s. \p weight may be nullptr, as for gatherSum.
template <int64_t Fixed, typename RowFn, typename WeightFn, typename KeepFn>
GNNRT_ALWAYS_INLINE void gatherSumKept(float *out, int64_t first, int64_t last,
                                       RowFn row, WeightFn weight,
                                       KeepFn keep) {
  static_assert(Fixed > 0, "gatherSumKept needs a compile-time width");
  constexpr bool weighted = !std::is_same_v<WeightFn, std::nullptr_t>;
  constexpr int64_t kChunk = 256;
  float acc[Fixed] = {};
  int64_t list[kChunk];
  for (int64_t start = first; start < last; start += kChunk) {
    const int64_t end = std::min(last, start + kChunk);
    int64_t count = 0;
    for (int64_t s = start; s < end; ++s) {
      list[count] = s;
      count += keep(s) ? 1 : 0;
    }
    for (int64_t k = 0; k < count; ++k) {
      if (const int64_t ahead = k + kGatherPrefetchSlots;
          Fixed >= kPrefetchWidth && ahead < count) {
        if constexpr (weighted)
          prefetchSlot<Fixed>(row(list[ahead]), weight(list[ahead]));
        else
          prefetchSlot<Fixed>(row(list[ahead]), nullptr);
      }
      if constexpr (weighted)
        addScaled<Fixed>(acc, row(list[k]), *weight(list[k]), Fixed);
      else
        addRow<Fixed>(acc, row(list[k]), Fixed);
    }
  }
  std::memcpy(out, acc, sizeof(acc));
}

/// gatherSum's weighted sum without the slots whose weight is ±0.0, for
/// callers that know every row is finite: then each skipped product is
/// ±0.0, and gatherSumKept gives gatherSum's bits. Dropout leaves half of a
/// CSR feature matrix's stored values at +0.0, and the rows they would
/// gather are most of a product's time.
template <int64_t Fixed, typename RowFn, typename WeightFn>
GNNRT_ALWAYS_INLINE void gatherSumNonzero(float *out, int64_t first,
                                          int64_t last, RowFn row,
                                          WeightFn weight) {
  gatherSumKept<Fixed>(out, first, last, row, weight,
                       [&](int64_t s) { return *weight(s) != 0.0f; });
}

/// Row \p i of gnnrt_cpu_spmm's sum or mean with at most one weight per
/// edge (\p weights null or `[E]`), over the CSR by destination \p in, into
/// `y + i * d`: the products of the row's slots in slot order, each output
/// element its own chain of roundings, and a mean divided by the in-degree
/// after the sum. A fixed width (\p Fixed, see addScaled) sums through
/// gatherSum, which prefetches up to slot \p slotEnd, the others into the
/// zeroed output row. \p keep, when not nullptr, leaves out the slots s with
/// `!keep(s)` (gatherSumKept), while a mean still divides by the whole
/// in-degree: the bits of the whole sum when every left-out product is
/// ±0.0. Shared by gnnrt_cpu_spmm (Sparse.cpp) and gnnrt_cpu_spmm_rows
/// (Rows.cpp), which must agree to the bit.
template <int64_t Fixed, typename KeepFn>
GNNRT_ALWAYS_INLINE void sumRow(const gnnrt_csr &in, const float *x, int64_t d,
                                const float *weights, bool mean, float *y,
                                int64_t i, int64_t slotEnd, KeepFn keep) {
  constexpr bool all = std::is_same_v<KeepFn, std::nullptr_t>;
  const int32_t *src = in.src, *eid = in.edge_id;
  const int64_t first = in.indptr[i], last = in.indptr[i + 1];
  const int64_t width = Fixed > 0 ? Fixed : d;
  float *yi = y + i * width;
  if constexpr (Fixed > 0) {
    auto row = [&](int64_t s) { return x + int64_t(src[s]) * Fixed; };
    auto weight = [&](int64_t s) { return weights + eid[s]; };
    if constexpr (all) {
      if (weights)
        gatherSum<Fixed>(yi, first, last, slotEnd, row, weight);
      else
        gatherSum<Fixed>(yi, first, last, slotEnd, row, nullptr);
    } else {
      if (weights)
        gatherSumKept<Fixed>(yi, first, last, row, weight, keep);
      else
        gatherSumKept<Fixed>(yi, first, last, row, nullptr, keep);
    }
  } else {
    // A run-time width: a branch per left-out slot is the least of its
    // costs.
    auto kept = [&](int64_t s) {
      if constexpr (all)
        return true;
      else
        return static_cast<bool>(keep(s));
    };
    std::fill(yi, yi + d, 0.0f);
    if (weights) {
      for (int64_t s = first; s < last; ++s)
        if (kept(s))
          addScaled<Fixed>(yi, x + static_cast<int64_t>(src[s]) * d,
                           weights[eid[s]], d);
    } else {
      for (int64_t s = first; s < last; ++s)
        if (kept(s))
          addRow<Fixed>(yi, x + static_cast<int64_t>(src[s]) * d, d);
    }
  }
  if (mean && last > first) {
    const float deg = static_cast<float>(last - first);
    for (int64_t c = 0; c < width; ++c)
      yi[c] /= deg;
  }
}

/// gnnrt_cpu_sddmm's edge row for one slot of row \p i: `y[edge, k]` =
/// dot8 of head k's columns of lhs's row i and rhs's row \p source. Every
/// slot is its own computation: shared by the whole, `_rows` and tiled
/// kernels (Sparse.cpp, Tiles.cpp), which must agree to the bit.
inline void sddmmSlot(const float *lhs, const float *rhs, int64_t d,
                      int64_t heads, float *y, int64_t i, int64_t source,
                      int64_t edge) {
  const int64_t f = d / heads;
  const float *li = lhs + i * d, *rs = rhs + source * d;
  float *ye = y + edge * heads;
  for (int64_t k = 0; k < heads; ++k)
    ye[k] = dot8(li + k * f, rs + k * f, f);
}

/// gnnrt_cpu_edge_add's edge row for one slot of row \p i: `y[edge]` =
/// `a[source] + b[i]`, shared as sddmmSlot is.
inline void edgeAddSlot(const float *a, const float *b, int64_t d, float *y,
                        int64_t i, int64_t source, int64_t edge) {
  const float *as = a + source * d, *bi = b + i * d;
  float *ye = y + edge * d;
  for (int64_t c = 0; c < d; ++c)
    ye[c] = as[c] + bi[c];
}

/// Calls `fn(std::integral_constant<int64_t, W>())` with W = \p width when
/// it is one of the row widths worth a loop of their own (a GCN's hidden
/// and class widths, GAT's head width), else W = 0 (the width is then
/// only known at run time). Kernels pass W on to addScaled and its kin.
template <typename Fn> void withRowWidth(int64_t width, Fn &&fn) {
  switch (width) {
  case 4:
    return fn(std::integral_constant<int64_t, 4>());
  case 6:
    return fn(std::integral_constant<int64_t, 6>());
  case 7:
    return fn(std::integral_constant<int64_t, 7>());
  case 8:
    return fn(std::integral_constant<int64_t, 8>());
  case 16:
    return fn(std::integral_constant<int64_t, 16>());
  case 32:
    return fn(std::integral_constant<int64_t, 32>());
  case 64:
    return fn(std::integral_constant<int64_t, 64>());
  default:
    return fn(std::integral_constant<int64_t, 0>());
  }
}

/// `fn(begin, end)` over [0, n) in chunks of \p chunk, dealt out to the
/// threads one at a time when \p par (uneven rows balance that way). Each
/// chunk must be a pure function of its own elements, so the result does
/// not depend on which thread ran it.
template <typename Fn>
void forEachChunk(int64_t n, int64_t chunk, [[maybe_unused]] bool par,
                  Fn &&fn) {
  const int64_t chunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) if (par)
  for (int64_t k = 0; k < chunks; ++k)
    fn(k * chunk, std::min(n, (k + 1) * chunk));
}

/// The O(1) checks every graph kernel makes: a view with offsets that span
/// exactly E slots. Index contents are gnnrt_graph_check's job.
inline int checkView(const gnnrt_graph *g, const gnnrt_csr &csr) {
  if (int status = kernel::viewArrays(g, csr))
    return status;
  GNNRT_CHECK(csr.indptr[0] == 0 && csr.indptr[g->num_nodes] == g->num_edges,
              GNNRT_ERR_BAD_GRAPH);
  return GNNRT_OK;
}

/// checkView of the CSR by destination, which most graph kernels read.
inline int checkIn(const gnnrt_graph *g) {
  return g ? checkView(g, g->in) : GNNRT_ERR_NULL_POINTER;
}

/// The checks of every form of the aggregation (whole, by heads, at some
/// rows, in tiles): checkIn, then the kernel's own; \p nd: the output's
/// elements.
inline int spmmKernelArgs(const gnnrt_graph *g, int aggr, const float *x,
                          int64_t d, const float *weights, int64_t heads,
                          const float *y, int64_t &nd) {
  if (int status = checkIn(g))
    return status;
  return kernel::spmmArgs(g, aggr, x, d, weights, heads, y, nd);
}

/// The checks of every form of an edge kernel that reads g's in view (whole,
/// at some rows, in tiles, both): checkIn, then the kernel's own.
inline int sddmmKernelArgs(const gnnrt_graph *g, const float *lhs,
                           const float *rhs, int64_t d, int64_t heads,
                           const float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  return kernel::sddmmArgs(g, lhs, rhs, d, heads, y, eh);
}
inline int edgeAddKernelArgs(const gnnrt_graph *g, const float *a,
                             const float *b, int64_t d, const float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t ed;
  return kernel::edgeAddArgs(g, a, b, d, y, ed);
}
inline int edgeSoftmaxKernelArgs(const gnnrt_graph *g, const float *x,
                                 int64_t heads, const float *y) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  return kernel::edgeSoftmaxArgs(g, x, heads, y, eh);
}
inline int edgeSoftmaxGradKernelArgs(const gnnrt_graph *g, const float *y,
                                     const float *dy, int64_t heads,
                                     const float *dx) {
  if (int status = checkIn(g))
    return status;
  int64_t eh;
  return kernel::edgeSoftmaxGradArgs(g, y, dy, heads, dx, eh);
}

/// The checks of every scatter kernel (whole, at some rows, in tiles): the
/// view of its `end` (g->in for dst, g->out for src), which \p view gets,
/// checked like a graph, and its operands.
inline int scatterKernelArgs(const gnnrt_graph *g, int end, const float *x,
                             int64_t d, const float *y,
                             const gnnrt_csr *&view) {
  if (int status = kernel::scatterView(g, end, view))
    return status;
  if (int status = checkView(g, *view))
    return status;
  int64_t nd;
  return kernel::scatterArgs(g, x, d, y, nd);
}

/// Scratch that never throws: kernels report GNNRT_ERR_OUT_OF_MEMORY.
template <typename T> std::unique_ptr<T[]> scratch(int64_t count) {
  return std::unique_ptr<T[]>(
      new (std::nothrow) T[static_cast<size_t>(count > 0 ? count : 1)]);
}

} // namespace gnnrt::cpu

#endif // GNNRT_CPU_COMMON_H
