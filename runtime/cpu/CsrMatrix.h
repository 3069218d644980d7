//===- CsrMatrix.h - Helpers of the CSR feature-matrix kernels --*- C++ -*-===//
//
// What the kernels of `#gnn.csr` tensors (CsrMatrix.cpp) share with their
// restrictions to a set of rows (Rows.cpp) and their tiled product
// (Tiles.cpp): the O(1) checks of a buffer, alone or with row sets, the
// per-row dropout with its batched Philox blocks, and the per-row product
// with a dense matrix. The restricted kernels must give the bits of the
// whole ones at the rows they compute, so both run this same code.
// Private to runtime/cpu.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CPU_CSRMATRIX_H
#define GNNRT_CPU_CSRMATRIX_H

#include "Common.h"
#include "PhiloxLanes.h"
#include "RowSets.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gnnrt::cpu {

/// The O(1) checks of a built matrix: both offset arrays span exactly nnz
/// slots. Like a graph's indices, the rest is trusted: a malformed buffer
/// could only come from skipping gnnrt_cpu_csr_matrix_build.
inline int checkOffsets(const gnnrt_csr_matrix &m) {
  GNNRT_CHECK(m.indptr[0] == 0 && m.indptr[m.rows] == m.nnz &&
                  m.colptr[0] == 0 && m.colptr[m.cols] == m.nnz,
              GNNRT_ERR_BAD_ARGUMENT);
  return GNNRT_OK;
}

/// A read-only view; the sections are not written through it.
inline gnnrt_csr_matrix constView(const void *base, int64_t rows, int64_t cols,
                                  int64_t nnz) {
  return gnnrt_csr_matrix_view(const_cast<void *>(base), rows, cols, nnz);
}

/// What a CSR kernel at a set's rows checks after its own arguments: the
/// matrix's offsets (O(1)) and the row sets over its rows; \p m gets the
/// matrix.
inline int csrRowSetArgs(const void *x, int64_t rows, int64_t cols, int64_t nnz,
                         const int32_t *rowSets, int64_t hops, int64_t level,
                         gnnrt_csr_matrix &m, RowSets &sets) {
  m = constView(x, rows, cols, nnz);
  if (int status = checkOffsets(m))
    return status;
  return rowSetArgs(rowSets, rows, hops, level, sets);
}

inline void copyInts(int32_t *to, const int32_t *from, int64_t count) {
  if (count > 0)
    std::memcpy(to, from, static_cast<size_t>(count) * sizeof(int32_t));
}

/// Copies the pattern (every section but the values) of \p from to \p to:
/// dropout zeroes values and keeps the slots, so that every dropout of one
/// input has the same pattern and the products after it the same summation
/// order.
inline void copyPattern(const gnnrt_csr_matrix &from,
                        const gnnrt_csr_matrix &to) {
  copyInts(to.indptr, from.indptr, from.rows + 1);
  copyInts(to.indices, from.indices, from.nnz);
  copyInts(to.colptr, from.colptr, from.cols + 1);
  copyInts(to.rowidx, from.rowidx, from.nnz);
  copyInts(to.perm, from.perm, from.nnz);
}

/// Stored values whose random bits wait for a kLanes batch of Philox
/// blocks: up to four per block, since the slots of a row that share a block
/// are adjacent.
struct PendingSlots {
  uint32_t lo[kLanes], hi[kLanes]; // the batch's block counters
  int blocks = 0;
  int64_t slot[4 * kLanes];
  uint8_t lane[4 * kLanes], word[4 * kLanes];
  int slots = 0;

  /// Generates the batch's bits and writes its slots' outputs.
  void flush(const float *xv, float *yv, const DropoutKey &key) {
    if (blocks == 0)
      return;
    for (int l = blocks; l < kLanes; ++l) { // unused lanes: any counter
      lo[l] = lo[0];
      hi[l] = hi[0];
    }
    uint32_t bits[4][kLanes];
    philoxLanes(lo, hi, key, bits);
    for (int k = 0; k < slots; ++k) {
      // A mask, not a branch: at p = 0.5 a branch mispredicts half the
      // time. A dropped element's bits become those of +0.0.
      const int64_t s = slot[k];
      const float q = keepElement(xv[s], key);
      uint32_t qBits;
      std::memcpy(&qBits, &q, sizeof(qBits));
      qBits &=
          0u - static_cast<uint32_t>(bits[word[k]][lane[k]] >= key.threshold);
      std::memcpy(&yv[s], &qBits, sizeof(qBits));
    }
    blocks = slots = 0;
  }
};

/// gnnrt_cpu_csr_dropout's values at the slots of rows `rowAt(t)`, t in
/// [begin, end), with a key whose threshold is in [1, 2^32 - 1] (the other
/// rates need no random bits). Element (i, j) is dense element
/// e = i * cols + j: word e % 4 of Philox block e / 4 (gnnrt::dropoutBits),
/// whichever rows are listed and in which batch its block lands, so a row
/// gets the same bits alone as among all rows. Columns increase along a
/// row, so slots that share a block are adjacent and the block is generated
/// once for them; the blocks are generated kLanes at a time.
template <typename RowAt>
void dropoutRows(const gnnrt_csr_matrix &a, float *yv, const DropoutKey &key,
                 int64_t begin, int64_t end, RowAt rowAt) {
  const int32_t *indptr = a.indptr, *indices = a.indices;
  const float *xv = a.values;
  const uint64_t cols = static_cast<uint64_t>(a.cols);
  PendingSlots pending;
  uint64_t block = UINT64_MAX; // the batch's last block; none yet
  for (int64_t t = begin; t < end; ++t) {
    const int64_t i = rowAt(t);
    const uint64_t rowStart = static_cast<uint64_t>(i) * cols;
    for (int64_t s = indptr[i], last = indptr[i + 1]; s < last; ++s) {
      uint32_t valueBits;
      std::memcpy(&valueBits, &xv[s], sizeof(valueBits));
      if (valueBits == 0) {
        // +0.0 is +0.0 kept (+0.0 / keep) or dropped: no bits needed.
        // Explicit zeros are what a dropout leaves, so a dropout of a
        // dropout is mostly these.
        yv[s] = 0.0f;
        continue;
      }
      const uint64_t e = rowStart + static_cast<uint64_t>(indices[s]);
      if (e / 4 != block) {
        if (pending.blocks == kLanes)
          pending.flush(xv, yv, key);
        block = e / 4;
        pending.lo[pending.blocks] = static_cast<uint32_t>(block);
        pending.hi[pending.blocks] = static_cast<uint32_t>(block >> 32);
        ++pending.blocks;
      }
      pending.slot[pending.slots] = s;
      pending.lane[pending.slots] = static_cast<uint8_t>(pending.blocks - 1);
      pending.word[pending.slots] = static_cast<uint8_t>(e % 4);
      ++pending.slots;
    }
  }
  pending.flush(xv, yv, key);
}

/// gnnrt_cpu_csr_dropout's values at the slots of the rows `rowAt(t)`, t in
/// [0, \p count), dealt out \p chunk rows at a time: the whole kernel's
/// (rowAt the identity) and the row-set kernel's (rowAt a set's order).
/// As in gnnrt_cpu_dropout, comparing the raw bits with the threshold is
/// exactly `u >= p`, so p = 0 and p > 1 - 2^-32 need no bits at all.
template <typename RowAt>
void dropoutListedRows(const gnnrt_csr_matrix &a, float *yv, uint64_t seed,
                       uint64_t step, uint64_t stream, double p, int64_t count,
                       int64_t chunk, [[maybe_unused]] bool par, RowAt rowAt) {
  const uint64_t threshold = gnnrt::dropoutThreshold(p);
  const double keep = 1.0 - p;
  const int32_t *indptr = a.indptr;
  const float *xv = a.values;
  if (threshold == 0 || threshold > UINT32_MAX) {
    // p = 0 keeps every element whatever its bits, still as the quotient
    // the dense kernel writes (it quiets a signalling NaN, for one);
    // p > 1 - 2^-32 drops every one.
    const bool keepAll = threshold == 0;
#pragma omp parallel for schedule(dynamic, chunk) if (par)
    for (int64_t t = 0; t < count; ++t) {
      const int64_t i = rowAt(t);
      for (int64_t s = indptr[i], last = indptr[i + 1]; s < last; ++s)
        yv[s] = keepAll ? keepElement(xv[s], keep) : 0.0f;
    }
    return;
  }
  const DropoutKey key = dropoutKey(seed, step, stream, threshold, keep);
  forEachChunk(count, chunk, par, [&](int64_t begin, int64_t end) {
    dropoutRows(a, yv, key, begin, end, rowAt);
  });
}

/// The narrowest rows for which gatherSumNonzero pays: listing the nonzero
/// slots first costs more than gathering a one-line row (16 floats: 2.2x
/// slower on CiteSeer's features), and saves most at four lines (64 floats:
/// 1.5x faster on Facebook's).
constexpr int64_t kSkipZerosWidth = 32;

/// Output row \p r of a product of the CSR matrix with b, given by one of
/// its two sections: it sums, in slot order, `*value(s) * b[other[s]]`
/// over the slots [offsets[r], offsets[r + 1]). For `A b` the section is
/// the CSR pattern (offsets indptr, other indices, value s); for `A^T b`
/// the CSC one (colptr, rowidx, value perm[s]), whose slots list each
/// column in increasing row order. A fixed width goes through gatherSum
/// (prefetching up to slot \p slotEnd), or gatherSumNonzero with \p
/// skipZeros, which the caller sets only when b is finite. \p keep, when
/// not nullptr, also leaves out the slots s with `!keep(s)`
/// (gatherSumKept): the bits of the whole sum when each left-out product is
/// ±0.0. Every output element is its own chain of products and sums in
/// slot order, whatever the vector width.
template <int64_t Fixed, typename ValueFn, typename KeepFn>
GNNRT_ALWAYS_INLINE void
productRow(const int32_t *offsets, const int32_t *other, ValueFn value,
           const float *b, int64_t n, float *c, bool skipZeros, int64_t r,
           int64_t slotEnd, KeepFn keep) {
  constexpr bool all = std::is_same_v<KeepFn, std::nullptr_t>;
  const int64_t first = offsets[r], last = offsets[r + 1];
  if constexpr (Fixed > 0) {
    auto row = [&](int64_t s) { return b + int64_t(other[s]) * Fixed; };
    const bool nonzero = Fixed >= kSkipZerosWidth && skipZeros;
    if constexpr (all) {
      if (nonzero)
        gatherSumNonzero<Fixed>(c + r * Fixed, first, last, row, value);
      else
        gatherSum<Fixed>(c + r * Fixed, first, last, slotEnd, row, value);
    } else {
      if (nonzero)
        gatherSumKept<Fixed>(
            c + r * Fixed, first, last, row, value, [&](int64_t s) {
              return static_cast<bool>(keep(s)) & (*value(s) != 0.0f);
            });
      else
        gatherSumKept<Fixed>(c + r * Fixed, first, last, row, value, keep);
    }
  } else {
    float *cr = c + r * n;
    std::fill(cr, cr + n, 0.0f);
    for (int64_t s = first; s < last; ++s) {
      if constexpr (!all)
        if (!keep(s))
          continue;
      addScaled<Fixed>(cr, b + static_cast<int64_t>(other[s]) * n, *value(s),
                       n);
    }
  }
}

} // namespace gnnrt::cpu

#endif // GNNRT_CPU_CSRMATRIX_H
