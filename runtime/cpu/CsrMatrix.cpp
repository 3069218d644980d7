//===- CsrMatrix.cpp - Input features stored as CSR matrices --------------===//
//
// The kernels of `#gnn.csr` tensors: building the buffer (CSR arrays plus
// their CSC transpose) once per dataset, dropout, and the products `A B` and
// `A^T B` with a dense B. Every loop runs over output rows, which belong to
// one thread each and are accumulated in slot order, so the bits do not
// depend on the thread count. `A^T B` goes through the CSC sections for the
// same reason: scattering CSR rows into the output would need atomics or
// per-thread copies summed in some order. Rows are dealt out dynamically in
// chunks of 64 because the nonzeros of feature rows and columns are uneven.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "PhiloxLanes.h"

#include "gnnrt/Philox.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace gnnrt::cpu;

namespace {

/// The O(1) checks of a built matrix: both offset arrays span exactly nnz
/// slots. Like a graph's indices, the rest is trusted: a malformed buffer
/// could only come from skipping gnnrt_cpu_csr_matrix_build.
int checkOffsets(const gnnrt_csr_matrix &m) {
  GNNRT_CHECK(m.indptr[0] == 0 && m.indptr[m.rows] == m.nnz &&
                  m.colptr[0] == 0 && m.colptr[m.cols] == m.nnz,
              GNNRT_ERR_BAD_ARGUMENT);
  return GNNRT_OK;
}

/// A read-only view; the sections are not written through it.
gnnrt_csr_matrix constView(const void *base, int64_t rows, int64_t cols,
                           int64_t nnz) {
  return gnnrt_csr_matrix_view(const_cast<void *>(base), rows, cols, nnz);
}

void copyInts(int32_t *to, const int32_t *from, int64_t count) {
  if (count > 0)
    std::memcpy(to, from, static_cast<size_t>(count) * sizeof(int32_t));
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

/// The narrowest rows for which gatherSumNonzero pays: listing the nonzero
/// slots first costs more than gathering a one-line row (16 floats: 2.2x
/// slower on CiteSeer's features), and saves most at four lines (64 floats:
/// 1.5x faster on Facebook's).
constexpr int64_t kSkipZerosWidth = 32;

/// Rows [begin, end) of a product of the CSR matrix with b, given by one of
/// its two sections: output row r sums, in slot order, `*value(s) *
/// b[other[s]]` over the slots [offsets[r], offsets[r + 1]). For `A b` the
/// section is the CSR pattern (offsets indptr, other indices, value s); for
/// `A^T b` the CSC one (colptr, rowidx, value perm[s]), whose slots list each
/// column in increasing row order. A fixed width goes through gatherSum, or
/// gatherSumNonzero with \p skipZeros, which the caller sets only when b is
/// finite. Compiled for AVX-512 too: every output element is its own chain
/// of products and sums in slot order, whatever the vector width.
template <int64_t Fixed, typename ValueFn>
GNNRT_VECTOR_CLONES void
productRows(const int32_t *offsets, const int32_t *other, ValueFn value,
            const float *b, int64_t n, float *c, bool skipZeros, int64_t begin,
            int64_t end) {
  if constexpr (Fixed > 0) {
    auto row = [&](int64_t s) { return b + int64_t(other[s]) * Fixed; };
    for (int64_t r = begin; r < end; ++r)
      if (Fixed >= kSkipZerosWidth && skipZeros)
        gatherSumNonzero<Fixed>(c + r * Fixed, offsets[r], offsets[r + 1], row,
                                value);
      else
        gatherSum<Fixed>(c + r * Fixed, offsets[r], offsets[r + 1],
                         offsets[end], row, value);
    return;
  }
  for (int64_t r = begin; r < end; ++r) {
    float *cr = c + r * n;
    std::fill(cr, cr + n, 0.0f);
    for (int64_t s = offsets[r], last = offsets[r + 1]; s < last; ++s)
      addScaled<Fixed>(cr, b + static_cast<int64_t>(other[s]) * n, *value(s),
                       n);
  }
}

} // namespace

extern "C" {

int gnnrt_cpu_csr_matrix_build(const int32_t *indptr, const int32_t *indices,
                               const float *values, int64_t rows, int64_t cols,
                               int64_t nnz, void *base) {
  if (int status = kernel::csrShape(rows, cols, nnz))
    return status;
  GNNRT_CHECK(indptr && present(indices, nnz) && present(values, nnz) && base,
              GNNRT_ERR_NULL_POINTER);

  // Check everything before writing anything. The offsets first: the
  // column check reads the rows they delimit.
  GNNRT_CHECK(indptr[0] == 0 && indptr[rows] == nnz, GNNRT_ERR_BAD_ARGUMENT);
  for (int64_t i = 0; i < rows; ++i)
    GNNRT_CHECK(indptr[i] <= indptr[i + 1], GNNRT_ERR_BAD_ARGUMENT);
  // Strictly increasing columns in [0, cols): no duplicates, so each
  // element has at most one slot, and the CSC rows below come out sorted.
  bool sorted = true;
  [[maybe_unused]] const bool par = worthThreads(rows + nnz);
#pragma omp parallel for schedule(dynamic, 64) reduction(&& : sorted) if (par)
  for (int64_t i = 0; i < rows; ++i) {
    int64_t previous = -1;
    for (int64_t s = indptr[i], end = indptr[i + 1]; s < end; ++s) {
      const int64_t j = indices[s];
      if (j <= previous || j >= cols) {
        sorted = false;
        break;
      }
      previous = j;
    }
  }
  GNNRT_CHECK(sorted, GNNRT_ERR_BAD_ARGUMENT);

  const gnnrt_csr_matrix m = gnnrt_csr_matrix_view(base, rows, cols, nnz);
  copyInts(m.indptr, indptr, rows + 1);
  copyInts(m.indices, indices, nnz);
  if (nnz > 0)
    std::memcpy(m.values, values, static_cast<size_t>(nnz) * sizeof(float));

  // The CSC sections by a counting sort, serial: this runs once per bound
  // dataset, and the placement loop's cursors are shared by all rows.
  // colptr[j] first counts column j, then becomes its start, then its
  // cursor, which ends at the start of column j + 1; shifting by one gives
  // the offsets without scratch memory.
  int32_t *colptr = m.colptr;
  std::fill(colptr, colptr + cols + 1, 0);
  for (int64_t s = 0; s < nnz; ++s)
    ++colptr[indices[s]];
  int32_t start = 0;
  for (int64_t j = 0; j < cols; ++j) {
    const int32_t count = colptr[j];
    colptr[j] = start;
    start += count;
  }
  colptr[cols] = start;
  // Rows in increasing order, so each column lists its rows increasing.
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t s = indptr[i], end = indptr[i + 1]; s < end; ++s) {
      const int32_t slot = colptr[indices[s]]++;
      m.rowidx[slot] = static_cast<int32_t>(i);
      m.perm[slot] = static_cast<int32_t>(s);
    }
  for (int64_t j = cols; j > 0; --j)
    colptr[j] = colptr[j - 1];
  colptr[0] = 0;
  return GNNRT_OK;
}

int gnnrt_cpu_csr_dropout(const void *x, int64_t rows, int64_t cols,
                          int64_t nnz, uint64_t seed, uint64_t step,
                          uint64_t stream, double p, void *y) {
  if (int status = kernel::csrDropoutArgs(x, rows, cols, nnz, p, y))
    return status;
  const gnnrt_csr_matrix a = constView(x, rows, cols, nnz);
  const gnnrt_csr_matrix out = gnnrt_csr_matrix_view(y, rows, cols, nnz);
  if (int status = checkOffsets(a))
    return status;

  // The pattern is the input's: dropout zeroes values and keeps the slots,
  // so that every dropout of one input has the same pattern and the
  // products after it the same summation order.
  copyInts(out.indptr, a.indptr, rows + 1);
  copyInts(out.indices, a.indices, nnz);
  copyInts(out.colptr, a.colptr, cols + 1);
  copyInts(out.rowidx, a.rowidx, nnz);
  copyInts(out.perm, a.perm, nnz);

  // As in gnnrt_cpu_dropout: comparing the raw bits with the threshold is
  // exactly `u >= p`.
  const uint64_t threshold = gnnrt::dropoutThreshold(p);
  const double keep = 1.0 - p;
  const float *xv = a.values;
  float *yv = out.values;
  // A slot costs about what a block of four elements costs the dense
  // kernel, which counts blocks against the grain.
  [[maybe_unused]] const bool par = worthThreads(rows + nnz);
  if (threshold == 0) {
    // p = 0 keeps every element whatever its bits; still the quotient, as
    // the dense kernel writes it (it quiets a signalling NaN, for one).
#pragma omp parallel for schedule(static) if (par)
    for (int64_t s = 0; s < nnz; ++s)
      yv[s] = keepElement(xv[s], keep);
    return GNNRT_OK;
  }
  if (threshold > UINT32_MAX) {
    // p > 1 - 2^-32 drops every element whatever its bits.
#pragma omp parallel for schedule(static) if (par)
    for (int64_t s = 0; s < nnz; ++s)
      yv[s] = 0.0f;
    return GNNRT_OK;
  }

  const DropoutKey key = dropoutKey(seed, step, stream, threshold, keep);
  const int32_t *indptr = a.indptr, *indices = a.indices;
  forEachChunk(rows, 64, par, [&](int64_t rowBegin, int64_t rowEnd) {
    // Element (i, j) is dense element e = i * cols + j: word e % 4 of
    // Philox block e / 4 (gnnrt::dropoutBits). Columns increase along a
    // row, so slots that share a block are adjacent and the block is
    // generated once for them; the blocks are generated kLanes at a time.
    PendingSlots pending;
    uint64_t block = UINT64_MAX; // the batch's last block; none yet
    for (int64_t i = rowBegin; i < rowEnd; ++i) {
      const uint64_t rowStart =
          static_cast<uint64_t>(i) * static_cast<uint64_t>(cols);
      for (int64_t s = indptr[i], end = indptr[i + 1]; s < end; ++s) {
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
  });
  return GNNRT_OK;
}

int gnnrt_cpu_csr_matmul(const void *a, int64_t rows, int64_t cols, int64_t nnz,
                         int transpose_a, const float *b, int64_t n, float *c) {
  int64_t cSize;
  if (int status = kernel::csrMatmulArgs(a, rows, cols, nnz, transpose_a, b, n,
                                         c, cSize))
    return status;
  const int64_t outer = transpose_a ? cols : rows;
  const gnnrt_csr_matrix m = constView(a, rows, cols, nnz);
  if (int status = checkOffsets(m))
    return status;
  if (cSize == 0)
    return GNNRT_OK;

  [[maybe_unused]] const bool par = worthThreads(outer + nnz, n);
  const bool transpose = transpose_a != 0;
  // When at least one stored value in 8 is ±0.0 (dropout's are half) and
  // b is finite, a fixed width skips those slots (gatherSumNonzero, same
  // bits). The checks read the values and b once; each skipped slot would
  // have read a row of b. With fewer zeros, listing the others costs more
  // than it saves (measured: 15% slower without dropout).
  int64_t zeros = 0;
#pragma omp parallel for schedule(static) reduction(+ : zeros) if (par)
  for (int64_t s = 0; s < nnz; ++s)
    zeros += m.values[s] == 0.0f;
  bool skipZeros = zeros > 0 && zeros >= nnz / 8;
  if (skipZeros) {
    const int64_t bCount = (transpose ? rows : cols) * n;
    unsigned finite = 1;
#pragma omp parallel for schedule(static) reduction(& : finite) if (par)
    for (int64_t e = 0; e < bCount; ++e)
      finite &= (bitsOf(b[e]) & 0x7F800000u) != 0x7F800000u; // not inf/NaN
    skipZeros = finite != 0;
  }
  // Chunks of 64 output rows: the nonzeros of feature rows and columns are
  // uneven.
  withRowWidth(n, [&](auto fixed) {
    forEachChunk(
        transpose ? cols : rows, 64, par, [&](int64_t begin, int64_t end) {
          if (transpose)
            productRows<fixed()>(
                m.colptr, m.rowidx,
                [&](int64_t s) { return m.values + m.perm[s]; }, b, n, c,
                skipZeros, begin, end);
          else
            productRows<fixed()>(
                m.indptr, m.indices, [&](int64_t s) { return m.values + s; }, b,
                n, c, skipZeros, begin, end);
        });
  });
  return GNNRT_OK;
}

} // extern "C"
