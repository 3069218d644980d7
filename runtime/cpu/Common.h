//===- Common.h - Helpers shared by the CPU kernels -------------*- C++ -*-===//
//
// Argument checks that turn bad calls into statuses, the grain below which a
// loop stays serial, and the fixed-block reduction that keeps sums across
// rows independent of the thread count. Private to runtime/cpu.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CPU_COMMON_H
#define GNNRT_CPU_COMMON_H

#include "gnnrt/Kernels.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <new>

namespace gnnrt::cpu {

/// Loops over fewer elements than this run on one thread: below it the
/// fork/join of an OpenMP team costs more than the loop.
constexpr int64_t kParallelGrain = 1 << 15;

/// Sums across rows are taken over this many fixed blocks of rows, each
/// block in row order, then the blocks in order: the summation order and so
/// the bits of the result do not depend on how many threads ran the blocks.
constexpr int64_t kReductionBlocks = 64;

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

/// Why a check failed, as the status the kernel returns.
#define GNNRT_CHECK(cond, status)                                              \
  do {                                                                         \
    if (!(cond))                                                               \
      return (status);                                                         \
  } while (false)

/// A tensor pointer is acceptable when it is set or the tensor is empty.
inline bool present(const void *p, int64_t count) {
  return p != nullptr || count == 0;
}

/// `a * b` into \p out for non-negative sizes; false on overflow.
inline bool mulSize(int64_t a, int64_t b, int64_t &out) {
  return a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &out);
}

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

/// The O(1) checks every graph kernel makes: a view with offsets that span
/// exactly E slots. Index contents are gnnrt_graph_check's job.
inline int checkView(const gnnrt_graph *g, const gnnrt_csr &csr) {
  GNNRT_CHECK(g, GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(g->num_nodes >= 0 && g->num_edges >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(g->num_nodes < std::numeric_limits<int32_t>::max() &&
                  g->num_edges <= std::numeric_limits<int32_t>::max(),
              GNNRT_ERR_BAD_GRAPH);
  GNNRT_CHECK(csr.indptr && present(csr.src, g->num_edges) &&
                  present(csr.edge_id, g->num_edges),
              GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(csr.indptr[0] == 0 && csr.indptr[g->num_nodes] == g->num_edges,
              GNNRT_ERR_BAD_GRAPH);
  return GNNRT_OK;
}

/// checkView of the CSR by destination, which most graph kernels read.
inline int checkIn(const gnnrt_graph *g) {
  return g ? checkView(g, g->in) : GNNRT_ERR_NULL_POINTER;
}

/// Scratch that never throws: kernels report GNNRT_ERR_OUT_OF_MEMORY.
template <typename T> std::unique_ptr<T[]> scratch(int64_t count) {
  return std::unique_ptr<T[]>(
      new (std::nothrow) T[static_cast<size_t>(count > 0 ? count : 1)]);
}

/// Rows `[begin, end)` of block \p b of kReductionBlocks over \p rows.
inline void blockRows(int64_t rows, int64_t b, int64_t &begin, int64_t &end) {
  // Spread the remainder over the first blocks; no product of sizes, so no
  // overflow for any row count.
  int64_t q = rows / kReductionBlocks, r = rows % kReductionBlocks;
  begin = b * q + (b < r ? b : r);
  end = begin + q + (b < r ? 1 : 0);
}

} // namespace gnnrt::cpu

#endif // GNNRT_CPU_COMMON_H
