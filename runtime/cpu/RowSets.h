//===- RowSets.h - Reading gnnrt_cpu_receptive_rows' buffers ---*- C++ -*-===//
//
// The kernels restricted to the rows of one set R_level (Rows.cpp, and the
// fused, dense-product and reduction kernels beside their whole versions)
// read the buffer of gnnrt_cpu_receptive_rows through these helpers: its
// checks, its sections, and the runs of rows outside a set, which every
// one of them sets to +0.0.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CPU_ROWSETS_H
#define GNNRT_CPU_ROWSETS_H

#include "Common.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace gnnrt::cpu {

/// Levels are stored a byte each and run up to hops + 1.
using Level = int8_t;
inline constexpr int64_t kMaxHops = GNNRT_ROW_SETS_MAX_HOPS;
static_assert(kMaxHops + 1 <= std::numeric_limits<Level>::max(),
              "a level must fit its byte");

/// Rows of a set dealt out to a thread at a time: sets are small next to
/// the graph (Facebook's R_1 has 1230 of 22470 rows), and their rows have
/// more slots than most.
inline constexpr int64_t kRowChunk = 32;

/// A gnnrt_cpu_receptive_rows buffer over \p n nodes, read.
struct RowSets {
  const int32_t *count; ///< [hops + 1]: |R_k|
  const int32_t *order; ///< [n], R_k its first count[k] entries
  const Level *level;   ///< [n]
};

/// The checks every kernel reading a row-set buffer makes, after its own:
/// the buffer is present and the hops and level in range. The contents are
/// trusted like a graph's, but the one count read is checked (O(1)), so a
/// buffer made for fewer nodes cannot send a loop past the order.
inline int rowSetArgs(const int32_t *rowSets, int64_t n, int64_t hops,
                      int64_t level, RowSets &sets) {
  GNNRT_CHECK(rowSets, GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(hops >= 0 && hops <= kMaxHops, GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(level >= 0 && level <= hops, GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(rowSets[level] >= 0 && rowSets[level] <= n,
              GNNRT_ERR_BAD_ARGUMENT);
  sets.count = rowSets;
  sets.order = rowSets + hops + 1;
  sets.level = reinterpret_cast<const Level *>(sets.order + n);
  return GNNRT_OK;
}

/// The slots of the CSR rows `order[0, count)`: the work of a kernel over
/// a set's rows, for worthThreads.
inline int64_t slotsOfRows(const int32_t *indptr, const int32_t *order,
                           int64_t count) {
  int64_t slots = 0;
  for (int64_t t = 0; t < count; ++t)
    slots += indptr[order[t] + 1] - indptr[order[t]];
  return slots;
}

/// Starts row sets of \p hops hops over \p n rows in \p out (laid out as
/// gnnrt_cpu_receptive_rows'): every level byte hops + 1 (in no set), the
/// bytes that round them up to whole int32 zero. Returns the level bytes.
inline Level *clearLevels(int32_t *out, int64_t n, int64_t hops) {
  auto *level = reinterpret_cast<Level *>(out + hops + 1 + n);
  std::memset(level, static_cast<int>(hops + 1), static_cast<size_t>(n));
  std::memset(level + n, 0, static_cast<size_t>((n + 3) / 4 * 4 - n));
  return level;
}

/// The counts and the order of row sets from their level bytes alone: the
/// rows at levels <= \p hops by (level, id), \p count[k] those at most at
/// level k; the order's entries past count[hops] are left as they were. A
/// counting sort in two passes over the bytes, each skipping a word of
/// eight rows in no set whole (most of them, when the sets are small).
inline void placeByLevel(const Level *level, int64_t n, int64_t hops,
                         int32_t *count, int32_t *order) {
  const uint64_t allUnreached =
      0x0101010101010101ull * static_cast<uint8_t>(hops + 1);
  auto forListed = [&](auto fn) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t word;
      std::memcpy(&word, level + i, sizeof(word));
      if (word != allUnreached)
        for (int64_t j = i; j < i + 8; ++j)
          if (level[j] <= hops)
            fn(j, level[j]);
    }
    for (; i < n; ++i)
      if (level[i] <= hops)
        fn(i, level[i]);
  };
  int64_t cursor[kMaxHops + 2] = {};
  forListed([&](int64_t, int64_t k) { ++cursor[k + 1]; });
  for (int64_t k = 1; k <= hops + 1; ++k)
    cursor[k] += cursor[k - 1];
  for (int64_t k = 0; k <= hops; ++k)
    count[k] = static_cast<int32_t>(cursor[k + 1]);
  forListed([&](int64_t i, int64_t k) {
    order[cursor[k]++] = static_cast<int32_t>(i);
  });
}

/// Rows handed to a thread at a time by forEachRun.
inline constexpr int64_t kRunBlock = 4096;

/// `fn(first, last)` for each maximal run [first, last) of consecutive rows
/// whose level exceeds \p level, blocks of kRunBlock rows split over the
/// threads when \p par. The rows outside a small set are most rows, in runs
/// that one memset each clears several times faster than one memset per
/// row of the order's tail (Facebook's rows outside R_1, 64 floats wide:
/// 0.34 ms a row at a time; a memset of the whole tensor takes 0.07 ms).
template <typename Fn>
void forEachRun(const Level *levels, int64_t n, int64_t level,
                [[maybe_unused]] bool par, Fn fn) {
  const int64_t blocks = (n + kRunBlock - 1) / kRunBlock;
#pragma omp parallel for schedule(static) if (par)
  for (int64_t k = 0; k < blocks; ++k) {
    const int64_t end = std::min(n, (k + 1) * kRunBlock);
    for (int64_t i = k * kRunBlock; i < end;) {
      if (levels[i] <= level) {
        ++i;
        continue;
      }
      int64_t last = i + 1;
      while (last < end && levels[last] > level)
        ++last;
      fn(i, last);
      i = last;
    }
  }
}

/// `y[i] = +0.0` (rows of \p d floats) for every row i outside R_level.
inline void zeroOtherRows(const Level *levels, int64_t n, int64_t level,
                          int64_t d, float *y) {
  if (d == 0)
    return;
  forEachRun(
      levels, n, level, worthThreads(n, d), [&](int64_t first, int64_t last) {
        std::memset(y + first * d, 0,
                    static_cast<size_t>((last - first) * d) * sizeof(float));
      });
}

} // namespace gnnrt::cpu

#endif // GNNRT_CPU_ROWSETS_H
