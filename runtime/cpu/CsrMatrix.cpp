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
#include "CsrMatrix.h"

#include "gnnrt/Philox.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace gnnrt::cpu;

namespace {

/// Rows [begin, end) of a product of the CSR matrix with b (productRow,
/// CsrMatrix.h), prefetching across the rows of the range. Compiled for
/// AVX-512 too: every output element is its own chain of products and sums
/// in slot order, whatever the vector width.
template <int64_t Fixed, typename ValueFn>
GNNRT_VECTOR_CLONES void
productRows(const int32_t *offsets, const int32_t *other, ValueFn value,
            const float *b, int64_t n, float *c, bool skipZeros, int64_t begin,
            int64_t end) {
  for (int64_t r = begin; r < end; ++r)
    productRow<Fixed>(offsets, other, value, b, n, c, skipZeros, r,
                      offsets[end], nullptr);
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

  copyPattern(a, out);
  // A slot costs about what a block of four elements costs the dense
  // kernel, which counts blocks against the grain.
  dropoutListedRows(a, out.values, seed, step, stream, p, rows, 64,
                    worthThreads(rows + nnz), [](int64_t i) { return i; });
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
