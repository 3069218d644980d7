//===- Dense.cpp - Dense primitives: GEMM, reductions, normalisation ------===//
//
// GEMM goes to OpenBLAS, one single-threaded call per block of output rows,
// the blocks fixed by the shape. Reductions and statistics across rows
// accumulate in double over fixed row blocks (Common.h). So the bits of a
// weight gradient, a bias gradient or a batch-norm mean do not change with
// the thread count, and long columns do not lose the precision a float
// accumulator would.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "RowSets.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace gnnrt::cpu;

namespace {

using kernel::matrixSize;

/// Sums `rows` rows into `out[0, width)`: `rowFn(r, acc)` adds row r's
/// terms to `acc`. Rows are summed in kReductionBlocks fixed blocks, in
/// order within and across blocks, so the result is the same for any
/// thread count.
template <typename RowFn>
int blockedColumnSums(int64_t rows, int64_t width, [[maybe_unused]] bool par,
                      RowFn rowFn, double *out) {
  int64_t total;
  GNNRT_CHECK(mulSize(kReductionBlocks, width, total), GNNRT_ERR_BAD_SIZE);
  auto partial = scratch<double>(total);
  GNNRT_CHECK(partial, GNNRT_ERR_OUT_OF_MEMORY);
#pragma omp parallel for schedule(dynamic, 1) if (par)
  for (int64_t b = 0; b < kReductionBlocks; ++b) {
    double *acc = partial.get() + b * width;
    std::fill(acc, acc + width, 0.0);
    int64_t begin, end;
    blockRows(rows, b, begin, end);
    for (int64_t r = begin; r < end; ++r)
      rowFn(r, acc);
  }
  std::fill(out, out + width, 0.0);
  for (int64_t b = 0; b < kReductionBlocks; ++b) {
    const double *acc = partial.get() + b * width;
    for (int64_t c = 0; c < width; ++c)
      out[c] += acc[c];
  }
  return GNNRT_OK;
}

/// Per-column mean and 1/sqrt(biased variance + eps) of `x[rows, cols]`
/// (two passes: the mean first, then squared deviations from it).
int columnStats(const float *x, int64_t rows, int64_t cols, double eps,
                bool par, double *mean, double *rstd) {
  if (int status = blockedColumnSums(
          rows, cols, par,
          [&](int64_t r, double *acc) {
            const float *xr = x + r * cols;
            for (int64_t c = 0; c < cols; ++c)
              acc[c] += xr[c];
          },
          mean))
    return status;
  for (int64_t c = 0; c < cols; ++c)
    mean[c] /= static_cast<double>(rows);
  if (int status = blockedColumnSums(
          rows, cols, par,
          [&](int64_t r, double *acc) {
            const float *xr = x + r * cols;
            for (int64_t c = 0; c < cols; ++c) {
              const double dev = xr[c] - mean[c];
              acc[c] += dev * dev;
            }
          },
          rstd))
    return status;
  for (int64_t c = 0; c < cols; ++c)
    rstd[c] = 1.0 / std::sqrt(rstd[c] / static_cast<double>(rows) + eps);
  return GNNRT_OK;
}

/// `y[r, c] = op(x[r, c], v[c])`: bias_add and row_mul (in place allowed).
template <typename Op>
int rowBroadcast(const float *x, const float *v, int64_t rows, int64_t cols,
                 float *y, Op op) {
  int64_t count;
  if (int status = matrixSize(rows, cols, count))
    return status;
  GNNRT_CHECK(present(x, count) && present(v, cols) && present(y, count),
              GNNRT_ERR_NULL_POINTER);
#pragma omp parallel for schedule(static) if (worthThreads(count))
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    for (int64_t c = 0; c < cols; ++c)
      yr[c] = op(xr[c], v[c]);
  }
  return GNNRT_OK;
}

/// The most scratch gnnrt_cpu_matmul_rows gathers into per thread. It
/// works through a set a tile of rows at a time, so its memory outside the
/// planned arena is bounded by the operands' widths, like BLAS's own
/// packing buffers, never by the graph: a set of 2 M rows would otherwise
/// gather gigabytes beside the arena the plan promised to stay within.
constexpr int64_t kRowTileBytes = int64_t(256) << 10;

/// Rows of \p width floats in one tile: at least one.
int64_t rowTile(int64_t width) {
  return std::max<int64_t>(1, kRowTileBytes /
                                  (std::max<int64_t>(width, 1) *
                                   static_cast<int64_t>(sizeof(float))));
}

/// The rows of c per gnnrt_cpu_matmul block: a function of the shape only
/// (never of the thread count), a multiple of 16 so that BLAS's row panels
/// stay whole, at most 64 blocks, and at least 2^18 multiply-adds per block
/// so that the per-call cost of BLAS stays small (Cora's 2708 x 16 x 7
/// product is then one call).
int64_t gemmRowBlock(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kMaxBlocks = 64, kPanel = 16, kMinWork = int64_t(1) << 18;
  const int64_t byCount = (m + kMaxBlocks - 1) / kMaxBlocks;
  const int64_t byWork = (kMinWork + n * k - 1) / (n * k);
  const int64_t rows = std::max({byCount, byWork, kPanel});
  return (rows + kPanel - 1) / kPanel * kPanel;
}

/// Row-major cblas_sgemm on the calling thread alone, wherever it is
/// called. OpenBLAS's OpenMP build runs a call made inside a thread team on
/// one thread, but one made outside a team on omp_get_max_threads() threads
/// (whatever openblas_set_num_threads said), whose sums split another way:
/// a block's bits would then depend on the thread count and on whether the
/// call came from a team (a tiled product's blocks, one per tile, did not
/// match the whole product's at 2 threads). Outside a team OpenMP's count
/// is therefore 1 for the call's length.
void sgemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
           int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
           float beta, float *c, int64_t ldc) {
  blasOnOneThread();
  const bool alone = !omp_in_parallel();
  const int threads = omp_get_max_threads();
  if (alone)
    omp_set_num_threads(1);
  cblas_sgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b,
              static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
  if (alone)
    omp_set_num_threads(threads);
}

/// The rows of c per gnnrt_cpu_matmul block (blockedGemm): gemmRowBlock,
/// and without transpose_a also at most a tile of 256 KiB of a's rows (at
/// least 16 rows), which an in-place product copies aside: BLAS's bits
/// depend on how many rows a call has, so products in place and not make
/// the same calls, and the scratch is bounded by the widths, not the rows.
int64_t gemmBlock(int64_t m, int64_t n, int64_t k, bool transposeA) {
  const int64_t block = gemmRowBlock(m, n, k);
  return transposeA
             ? block
             : std::min(block, std::max<int64_t>(16, rowTile(k) / 16 * 16));
}

/// The rows of the contraction one call of a transposed product `a^T b`
/// sums (gnnrt_cpu_matmul, _rows and _tiles alike), the chunks' products
/// added up in order: a function of the widths alone, so that a product
/// reading a from host memory a tile at a time makes the same calls as one
/// over the device copy, and gathered chunks stay within 256 KiB.
int64_t contractionChunk(int64_t m, int64_t n) { return rowTile(m + n); }

/// gnnrt_cpu_matmul's checks; \p mn gets m * n.
int matmulArgs(const float *a, const float *b, int64_t m, int64_t n, int64_t k,
               const float *c, int64_t &mn) {
  int64_t mk, kn;
  GNNRT_CHECK(mulSize(m, k, mk) && mulSize(k, n, kn) && mulSize(m, n, mn),
              GNNRT_ERR_BAD_SIZE);
  // cblas takes int sizes (OpenBLAS without ILP64).
  constexpr int64_t kMaxDim = std::numeric_limits<int>::max();
  GNNRT_CHECK(m <= kMaxDim && n <= kMaxDim && k <= kMaxDim, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(a, mk) && present(b, kn) && present(c, mn),
              GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// Copies the rows `order[0, count)` of \p x (\p width floats each) to
/// consecutive rows of \p out.
void gatherRows(const float *x, int64_t width, const int32_t *order,
                int64_t count, float *out) {
#pragma omp parallel for schedule(static) if (worthThreads(count, width))
  for (int64_t t = 0; t < count; ++t)
    std::memcpy(out + t * width, x + int64_t(order[t]) * width,
                static_cast<size_t>(width) * sizeof(float));
}

/// `c = op(a) op(b)`, or `c += op(a) op(b)` when \p accumulate
/// (gnnrt_cpu_matmul, arguments checked, m, n, k >= 1). With c == a (not
/// transposed, k == n: the planner's in-place product) each block's rows
/// of a are copied aside before its rows of c are written: the same calls
/// over the same values, so the same bits. A block's rows are read and
/// written by one thread only.
/// \p block overrides gemmBlock's rows per block (a tiled product's
/// blocks are the whole product's), \p ldb is b's leading dimension (a
/// chunk of a transposed product's contraction reads b^T's columns).
int blockedGemm(const float *a, const float *b, int64_t m, int64_t n, int64_t k,
                bool transpose_a, bool transpose_b, float *c,
                bool accumulate = false, int64_t block = 0, int64_t ldb = 0) {
  const bool inPlace = a == c;
  if (block == 0)
    block = gemmBlock(m, n, k, transpose_a);
  if (ldb == 0)
    ldb = transpose_b ? k : n;
  const int64_t blocks = (m + block - 1) / block;
  const CBLAS_TRANSPOSE ta = transpose_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = transpose_b ? CblasTrans : CblasNoTrans;
  const int64_t lda = transpose_a ? m : k;
  const float beta = accumulate ? 1.0f : 0.0f;
  [[maybe_unused]] const bool par = blocks > 1 && worthThreads(m * n, k);
  std::unique_ptr<float[]> aside;
  if (inPlace) {
    aside = scratch<float>((par ? omp_get_max_threads() : 1) * block * k);
    GNNRT_CHECK(aside, GNNRT_ERR_OUT_OF_MEMORY);
  }
#pragma omp parallel for schedule(dynamic, 1) if (par)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t first = blk * block, rows = std::min(block, m - first);
    // Row `first` of op(a): row `first` of a, or column `first` of a^T.
    const float *aFirst = a + (transpose_a ? first : first * k);
    if (inPlace) {
      float *own = aside.get() + (par ? omp_get_thread_num() : 0) * block * k;
      std::memcpy(own, aFirst, static_cast<size_t>(rows * k) * sizeof(float));
      aFirst = own;
    }
    sgemm(ta, tb, rows, n, k, aFirst, lda, b, ldb, beta, c + first * n, n);
  }
  return GNNRT_OK;
}

/// `c = a^T op(b)` (a [k, m]) a contractionChunk of rows at a time, each
/// chunk's product added to the sum of those before it.
int chunkedTransposedGemm(const float *a, const float *b, int64_t m, int64_t n,
                          int64_t k, bool transpose_b, float *c) {
  const int64_t chunk = contractionChunk(m, n);
  for (int64_t first = 0; first < k; first += chunk) {
    const float *bChunk = transpose_b ? b + first : b + first * n;
    if (int status = blockedGemm(a + first * m, bChunk, m, n,
                                 std::min(chunk, k - first), true, transpose_b,
                                 c, first > 0, 0, transpose_b ? k : n))
      return status;
  }
  return GNNRT_OK;
}

/// Column sums of `x[rows, cols]` into y (a mean divides by rows), in
/// double over blockedColumnSums' blocks, of the rows \p keep accepts.
template <typename Keep>
int columnSums(int kind, const float *x, int64_t rows, int64_t cols, bool par,
               Keep keep, float *y) {
  auto sums = scratch<double>(cols);
  GNNRT_CHECK(sums, GNNRT_ERR_OUT_OF_MEMORY);
  if (int status = blockedColumnSums(
          rows, cols, par,
          [&](int64_t r, double *acc) {
            if (!keep(r))
              return;
            const float *xr = x + r * cols;
            for (int64_t c = 0; c < cols; ++c)
              acc[c] += xr[c];
          },
          sums.get()))
    return status;
  for (int64_t c = 0; c < cols; ++c)
    y[c] = static_cast<float>(kind == GNNRT_REDUCE_MEAN && rows > 0
                                  ? sums[c] / static_cast<double>(rows)
                                  : sums[c]);
  return GNNRT_OK;
}

/// `to[i, :width] = from[i, :width]` (row strides \p fromStride and
/// \p toStride floats) for the rows i = rowAt(t), t in [0, count). A loop
/// of the width known at compile time where it is one of the common ones:
/// a split aggregation's blocks are a few floats wide, and a memcpy call
/// per row of 32 bytes took most of a 2M-row slice.
template <typename RowAt>
void copyColumns(const float *from, int64_t fromStride, float *to,
                 int64_t toStride, int64_t width, int64_t count,
                 const RowAt &rowAt, [[maybe_unused]] bool par) {
  withRowWidth(width, [&](auto fixed) {
    constexpr int64_t kFixed = fixed();
    const int64_t w = kFixed > 0 ? kFixed : width;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t t = 0; t < count; ++t) {
      const int64_t i = rowAt(t);
      const float *src = from + i * fromStride;
      float *dst = to + i * toStride;
      for (int64_t c = 0; c < w; ++c)
        dst[c] = src[c];
    }
  });
}

/// gnn.slice, at the rows of R_level of \p rowSets or, without them, at
/// every row: gnnrt_cpu_slice and gnnrt_cpu_slice_rows.
int sliceColumns(const float *x, int64_t rows, int64_t cols, int64_t offset,
                 int64_t width, const int32_t *rowSets, int64_t hops,
                 int64_t level, bool zeroRest, float *y) {
  int64_t out;
  if (int status = kernel::sliceArgs(x, rows, cols, offset, width, y, out))
    return status;
  RowSets sets{};
  if (rowSets)
    if (int status = rowSetArgs(rowSets, rows, hops, level, sets))
      return status;
  if (width == 0)
    return GNNRT_OK;
  const int64_t count = rowSets ? sets.count[level] : rows;
  copyColumns(
      x + offset, cols, y, width, width, count,
      [&](int64_t t) { return rowSets ? int64_t(sets.order[t]) : t; },
      worthThreads(count * width));
  if (rowSets && zeroRest)
    zeroOtherRows(sets.level, rows, level, width, y);
  return GNNRT_OK;
}

/// gnn.concat, at the rows of R_level of \p rowSets or, without them, at
/// every row: gnnrt_cpu_concat and _rows. A row is its inputs' rows side
/// by side, whichever rows are listed.
int concatColumns(const float *const *inputs, const int64_t *widths,
                  int64_t numInputs, int64_t rows, const int32_t *rowSets,
                  int64_t hops, int64_t level, bool zeroRest, float *y) {
  int64_t total;
  if (int status =
          kernel::concatArgs(inputs, widths, numInputs, rows, y, total))
    return status;
  RowSets sets{};
  if (rowSets)
    if (int status = rowSetArgs(rowSets, rows, hops, level, sets))
      return status;
  const int64_t count = rowSets ? sets.count[level] : rows;
#pragma omp parallel for schedule(static) if (worthThreads(count * total))
  for (int64_t t = 0; t < count; ++t) {
    const int64_t r = rowSets ? int64_t(sets.order[t]) : t;
    float *yr = y + r * total;
    for (int64_t i = 0; i < numInputs; ++i) {
      if (widths[i])
        std::memcpy(yr, inputs[i] + r * widths[i],
                    static_cast<size_t>(widths[i]) * sizeof(float));
      yr += widths[i];
    }
  }
  if (rowSets && zeroRest)
    zeroOtherRows(sets.level, rows, level, total, y);
  return GNNRT_OK;
}

/// gnn.insert_columns, at the rows of R_level of \p rowSets or, without
/// them, at every row: gnnrt_cpu_insert_columns and _rows.
int insertColumns(const float *x, const float *block, int64_t rows,
                  int64_t cols, int64_t offset, int64_t width,
                  const int32_t *rowSets, int64_t hops, int64_t level,
                  float *y) {
  int64_t count;
  if (int status = kernel::insertColumnsArgs(x, block, rows, cols, offset,
                                             width, y, count))
    return status;
  RowSets sets{};
  if (rowSets)
    if (int status = rowSetArgs(rowSets, rows, hops, level, sets))
      return status;
  if (y != x && count > 0)
    std::memcpy(y, x, static_cast<size_t>(count) * sizeof(float));
  if (width == 0)
    return GNNRT_OK;
  const int64_t written = rowSets ? sets.count[level] : rows;
  copyColumns(
      block, width, y + offset, cols, width, written,
      [&](int64_t t) { return rowSets ? int64_t(sets.order[t]) : t; },
      worthThreads(written * width));
  return GNNRT_OK;
}

} // namespace

extern "C" {

int gnnrt_cpu_matmul(const float *a, const float *b, int64_t m, int64_t n,
                     int64_t k, int transpose_a, int transpose_b, float *c) {
  int64_t mn;
  if (int status = matmulArgs(a, b, m, n, k, c, mn))
    return status;
  // An empty product writes nothing, so nothing can alias (its pointers may
  // all be null).
  if (mn == 0)
    return GNNRT_OK;
  // In place over a (c == a) when each row of c is computed from the same
  // row of a alone, into as many floats; never over b, which every row
  // reads.
  GNNRT_CHECK(c != b && (c != a || (!transpose_a && k == n)),
              GNNRT_ERR_BAD_ARGUMENT);
  if (k == 0) {
    // BLAS rejects a leading dimension of 0; the empty sum is 0.
    std::memset(c, 0, static_cast<size_t>(mn) * sizeof(float));
    return GNNRT_OK;
  }
  // OpenBLAS splits some shapes' sums over its threads (the weight
  // gradient A^T B, whose k is the node count, gave different bits with 1
  // and 2 threads), so BLAS runs on one thread and the rows of c are dealt
  // out instead, in blocks that depend on the shape alone: each block is
  // the same single-threaded call whichever thread makes it, so the result
  // does not depend on the thread count. A transposed product sums its
  // contraction in chunks (contractionChunk), as gnnrt_cpu_matmul_tiles
  // does when a comes from host memory a tile at a time.
  if (transpose_a)
    return chunkedTransposedGemm(a, b, m, n, k, transpose_b != 0, c);
  return blockedGemm(a, b, m, n, k, false, transpose_b != 0, c);
}

int gnnrt_cpu_matmul_rows(const float *a, const float *b, int64_t m, int64_t n,
                          int64_t k, int transpose_a, int transpose_b,
                          const int32_t *row_sets, int64_t hops, int64_t level,
                          int zero_rest, float *c) {
  int64_t mn;
  if (int status = matmulArgs(a, b, m, n, k, c, mn))
    return status;
  // With transpose_a the sets index the contraction, which b's rows must
  // follow.
  GNNRT_CHECK(!(transpose_a && transpose_b), GNNRT_ERR_BAD_ARGUMENT);
  // In place as gnnrt_cpu_matmul: a tile's rows are gathered before its
  // rows of c are written, and no other tile has them.
  GNNRT_CHECK(c != b && (c != a || (!transpose_a && k == n)),
              GNNRT_ERR_BAD_ARGUMENT);
  const int64_t nodes = transpose_a ? k : m; // the rows of a as stored
  RowSets sets;
  if (int status = rowSetArgs(row_sets, nodes, hops, level, sets))
    return status;
  if (mn == 0)
    return GNNRT_OK;
  const int64_t count = sets.count[level];
  const int32_t *order = sets.order;
  if (transpose_a) {
    // c = a'^T b' over the listed rows, a tile of the contraction at a time
    // (the rows in increasing id, as gnnrt_cpu_matmul meets them), each
    // tile's product added to the sum of the tiles before it.
    if (count == 0) {
      std::memset(c, 0, static_cast<size_t>(mn) * sizeof(float));
      return GNNRT_OK;
    }
    const int64_t tile = std::min(count, contractionChunk(m, n));
    auto ids = scratch<int32_t>(tile);
    auto ga = scratch<float>(tile * m), gb = scratch<float>(tile * n);
    GNNRT_CHECK(ids && ga && gb, GNNRT_ERR_OUT_OF_MEMORY);
    int64_t filled = 0;
    bool first = true;
    for (int64_t i = 0; i < k; ++i) {
      if (sets.level[i] <= level)
        ids[filled++] = static_cast<int32_t>(i);
      if (filled == tile || (filled > 0 && i + 1 == k)) {
        gatherRows(a, m, ids.get(), filled, ga.get());
        gatherRows(b, n, ids.get(), filled, gb.get());
        if (int status = blockedGemm(ga.get(), gb.get(), m, n, filled, true,
                                     false, c, !first))
          return status;
        filled = 0;
        first = false;
      }
    }
    return GNNRT_OK;
  }
  if (count > 0 && k > 0) {
    // The listed rows of a, gathered a tile at a time, times b; the tile's
    // rows of c scattered. Tiles are gnnrt_cpu_matmul's row blocks of the
    // gathered rows, unless those would pass kRowTileBytes.
    const int64_t tile = std::min(gemmRowBlock(count, n, k), rowTile(k + n));
    const int64_t tiles = (count + tile - 1) / tile;
    [[maybe_unused]] const bool par = tiles > 1 && worthThreads(count * n, k);
    const int64_t threads = par ? omp_get_max_threads() : 1;
    const int64_t perThread = tile * (k + n);
    auto buffers = scratch<float>(threads * perThread);
    GNNRT_CHECK(buffers, GNNRT_ERR_OUT_OF_MEMORY);
    const CBLAS_TRANSPOSE tb = transpose_b ? CblasTrans : CblasNoTrans;
    const int64_t ldb = transpose_b ? k : n;
#pragma omp parallel for schedule(dynamic, 1) if (par)
    for (int64_t t = 0; t < tiles; ++t) {
      float *ga = buffers.get() + (par ? omp_get_thread_num() : 0) * perThread;
      float *gc = ga + tile * k;
      const int64_t first = t * tile, rows = std::min(tile, count - first);
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(ga + r * k, a + int64_t(order[first + r]) * k,
                    static_cast<size_t>(k) * sizeof(float));
      sgemm(CblasNoTrans, tb, rows, n, k, ga, k, b, ldb, 0.0f, gc, n);
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(c + int64_t(order[first + r]) * n, gc + r * n,
                    static_cast<size_t>(n) * sizeof(float));
    }
  } else {
    for (int64_t t = 0; t < count; ++t) // k = 0: the empty sum
      std::fill(c + int64_t(order[t]) * n, c + int64_t(order[t] + 1) * n, 0.0f);
  }
  if (zero_rest)
    zeroOtherRows(sets.level, m, level, n, c);
  return GNNRT_OK;
}

int gnnrt_cpu_matmul_tiles(const float *a, const float *b, int64_t m, int64_t n,
                           int64_t k, int transpose_a, int transpose_b,
                           const int32_t *row_sets, int64_t hops, int64_t level,
                           int listed, int zero_rest, void *tile,
                           int64_t tile_bytes, float *c, int64_t *moved) {
  int64_t mn;
  if (int status = matmulArgs(a, b, m, n, k, c, mn))
    return status;
  GNNRT_CHECK(tile && moved, GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(c != b && c != a && !(transpose_a && transpose_b && row_sets) &&
                  !(listed && !row_sets),
              GNNRT_ERR_BAD_ARGUMENT);
  const bool ta = transpose_a != 0, tb = transpose_b != 0;
  const int64_t nodes = ta ? k : m; // the rows of a as stored
  const int64_t width = ta ? m : k; // their floats
  RowSets sets{};
  if (row_sets)
    if (int status = rowSetArgs(row_sets, nodes, hops, level, sets))
      return status;
  const int64_t count = row_sets ? int64_t(sets.count[level]) : nodes;
  if (mn == 0)
    return GNNRT_OK;
  if (count == 0 || width == 0) {
    // The empty sum, at every row of c the product computes.
    if (ta || !row_sets)
      std::memset(c, 0, static_cast<size_t>(mn) * sizeof(float));
    else
      for (int64_t t = 0; t < count; ++t)
        std::fill(c + int64_t(sets.order[t]) * n,
                  c + int64_t(sets.order[t] + 1) * n, 0.0f);
    if (row_sets && !ta && zero_rest)
      zeroOtherRows(sets.level, m, level, n, c);
    return GNNRT_OK;
  }
  // The unit of rows the whole product computes with one call (a block of
  // c's rows, or a chunk of the contraction): the tile holds whole units.
  const int64_t unit = ta ? contractionChunk(m, n)
                       : row_sets
                           ? std::min(gemmRowBlock(count, n, k), rowTile(k + n))
                           : gemmBlock(m, n, k, false);
  const int64_t tileRows =
      tile_bytes / (width * int64_t(sizeof(float))) / unit * unit;
  GNNRT_CHECK(tileRows >= 1, GNNRT_ERR_BAD_SIZE);
  float *t = static_cast<float *>(tile);
  const size_t rowBytes = static_cast<size_t>(width) * sizeof(float);
  // Row r of the listed rows (R_level in the sets' order) in the host copy.
  auto listedRow = [&](int64_t r) {
    return a + (listed ? r : int64_t(sets.order[r])) * width;
  };

  if (ta) {
    // The rows of R_level (or all) in increasing id, as gnnrt_cpu_matmul{,
    // _rows} meet them: R_level is the sets' first `level + 1` runs, each
    // sorted by id, merged here a row at a time.
    int64_t cursor[kMaxHops + 1], end[kMaxHops + 1];
    for (int64_t r = 0; row_sets && r <= level; ++r) {
      cursor[r] = r == 0 ? 0 : sets.count[r - 1];
      end[r] = sets.count[r];
    }
    auto next = [&](int64_t &id) -> const float * {
      if (!row_sets) {
        ++id;
        return a + id * width;
      }
      int64_t best = -1;
      for (int64_t r = 0; r <= level; ++r)
        if (cursor[r] < end[r] &&
            (best < 0 || sets.order[cursor[r]] < sets.order[cursor[best]]))
          best = r;
      const int64_t at = cursor[best]++;
      id = sets.order[at];
      return a + (listed ? at : id) * width;
    };
    // With sets, b's rows are gathered by the tile's ids, a chunk at a
    // time, as gnnrt_cpu_matmul_rows gathers them.
    const int64_t chunk = unit;
    auto ids = scratch<int32_t>(row_sets ? tileRows : 0);
    auto gb = scratch<float>(row_sets ? chunk * n : 0);
    GNNRT_CHECK(!row_sets || (ids && gb), GNNRT_ERR_OUT_OF_MEMORY);
    int64_t id = -1;
    for (int64_t first = 0; first < count; first += tileRows) {
      const int64_t rows = std::min(tileRows, count - first);
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(t + r * width, next(id), rowBytes);
        if (row_sets)
          ids[r] = static_cast<int32_t>(id);
      }
      *moved += rows * static_cast<int64_t>(rowBytes);
      for (int64_t at = 0; at < rows; at += chunk) {
        const int64_t filled = std::min(chunk, rows - at);
        const float *bChunk;
        int64_t ldb = tb ? k : n;
        if (row_sets) {
          gatherRows(b, n, ids.get() + at, filled, gb.get());
          bChunk = gb.get();
          ldb = n;
        } else {
          bChunk = tb ? b + (first + at) : b + (first + at) * n;
        }
        if (int status = blockedGemm(t + at * width, bChunk, m, n, filled, true,
                                     tb, c, first + at > 0, 0, ldb))
          return status;
      }
    }
    return GNNRT_OK;
  }

  const CBLAS_TRANSPOSE tbm = tb ? CblasTrans : CblasNoTrans;
  const int64_t ldb = tb ? k : n;
  auto gc = scratch<float>(row_sets ? omp_get_max_threads() * unit * n : 0);
  GNNRT_CHECK(gc || !row_sets, GNNRT_ERR_OUT_OF_MEMORY);
  for (int64_t first = 0; first < count; first += tileRows) {
    const int64_t rows = std::min(tileRows, count - first);
    if (row_sets) {
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(t + r * width, listedRow(first + r), rowBytes);
    } else {
      std::memcpy(t, a + first * width, static_cast<size_t>(rows) * rowBytes);
    }
    *moved += rows * static_cast<int64_t>(rowBytes);
    if (!row_sets) {
      // gnnrt_cpu_matmul's blocks: the tile starts at a multiple of them.
      if (int status = blockedGemm(t, b, rows, n, k, false, tb, c + first * n,
                                   false, unit))
        return status;
      continue;
    }
    // gnnrt_cpu_matmul_rows' calls: a unit of the listed rows, their rows
    // of c scattered.
    const int64_t units = (rows + unit - 1) / unit;
    [[maybe_unused]] const bool par = units > 1 && worthThreads(rows * n, k);
#pragma omp parallel for schedule(dynamic, 1) if (par)
    for (int64_t u = 0; u < units; ++u) {
      float *own = gc.get() + (par ? omp_get_thread_num() : 0) * unit * n;
      const int64_t at = u * unit, got = std::min(unit, rows - at);
      sgemm(CblasNoTrans, tbm, got, n, k, t + at * width, k, b, ldb, 0.0f, own,
            n);
      for (int64_t r = 0; r < got; ++r)
        std::memcpy(c + int64_t(sets.order[first + at + r]) * n, own + r * n,
                    static_cast<size_t>(n) * sizeof(float));
    }
  }
  if (row_sets && zero_rest)
    zeroOtherRows(sets.level, m, level, n, c);
  return GNNRT_OK;
}

int gnnrt_cpu_bias_add(const float *x, const float *bias, int64_t rows,
                       int64_t cols, float *y) {
  return rowBroadcast(x, bias, rows, cols, y, std::plus<float>());
}

int gnnrt_cpu_row_mul(const float *x, const float *scale, int64_t rows,
                      int64_t cols, float *y) {
  return rowBroadcast(x, scale, rows, cols, y, std::multiplies<float>());
}

int gnnrt_cpu_reduce(int kind, const float *x, int64_t rows, int64_t cols,
                     int dim, float *y) {
  int64_t count;
  if (int status = kernel::reduceArgs(kind, x, rows, cols, dim, y, count))
    return status;
  const int64_t n = dim == 0 ? rows : cols;
  [[maybe_unused]] const bool par = worthThreads(count);
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();

  if (dim == 1) {
#pragma omp parallel for schedule(static) if (par)
    for (int64_t r = 0; r < rows; ++r) {
      const float *xr = x + r * cols;
      if (kind == GNNRT_REDUCE_MAX) {
        float m = kNegInf;
        for (int64_t c = 0; c < cols; ++c)
          m = m < xr[c] ? xr[c] : m;
        y[r] = n == 0 ? 0.0f : m;
        continue;
      }
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        sum += xr[c];
      if (kind == GNNRT_REDUCE_MEAN && n > 0)
        sum /= static_cast<double>(n);
      y[r] = static_cast<float>(sum);
    }
    return GNNRT_OK;
  }

  if (kind == GNNRT_REDUCE_MAX) {
    // max is exact, so any order gives the same bits: a column-parallel
    // sweep needs no scratch.
#pragma omp parallel for schedule(static) if (par)
    for (int64_t c = 0; c < cols; ++c) {
      float m = kNegInf;
      for (int64_t r = 0; r < rows; ++r) {
        const float v = x[r * cols + c];
        m = m < v ? v : m;
      }
      y[c] = n == 0 ? 0.0f : m;
    }
    return GNNRT_OK;
  }
  return columnSums(kind, x, rows, cols, par, [](int64_t) { return true; }, y);
}

int gnnrt_cpu_reduce_rows(int kind, const float *x, int64_t rows, int64_t cols,
                          const int32_t *row_sets, int64_t hops, int64_t level,
                          float *y) {
  int64_t count;
  if (int status = kernel::reduceArgs(kind, x, rows, cols, 0, y, count))
    return status;
  GNNRT_CHECK(kind != GNNRT_REDUCE_MAX, GNNRT_ERR_BAD_ARGUMENT);
  RowSets sets;
  if (int status = rowSetArgs(row_sets, rows, hops, level, sets))
    return status;
  const Level *levels = sets.level;
  return columnSums(
      kind, x, rows, cols, worthThreads(sets.count[level], cols),
      [&](int64_t r) { return levels[r] <= level; }, y);
}

int gnnrt_cpu_head_matrix(int kind, int64_t heads, int64_t width, float *y) {
  int64_t columns, count;
  if (int status =
          kernel::headMatrixArgs(kind, heads, width, y, columns, count))
    return status;
  std::memset(y, 0, static_cast<size_t>(count) * sizeof(float));
  const float mean = static_cast<float>(1.0 / static_cast<double>(heads));
  for (int64_t c = 0; c < columns; ++c)
    kernel::setHeadMatrixEntry(kind, c, heads, width, mean, y);
  return GNNRT_OK;
}

int gnnrt_cpu_zeros(float *y, int64_t n) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(y, n), GNNRT_ERR_NULL_POINTER);
  if (n)
    std::memset(y, 0, static_cast<size_t>(n) * sizeof(float));
  return GNNRT_OK;
}

int gnnrt_cpu_concat(const float *const *inputs, const int64_t *widths,
                     int64_t num_inputs, int64_t rows, float *y) {
  return concatColumns(inputs, widths, num_inputs, rows, nullptr, 0, 0, false,
                       y);
}

int gnnrt_cpu_concat_rows(const float *const *inputs, const int64_t *widths,
                          int64_t num_inputs, int64_t rows,
                          const int32_t *row_sets, int64_t hops, int64_t level,
                          int zero_rest, float *y) {
  GNNRT_CHECK(row_sets, GNNRT_ERR_NULL_POINTER);
  return concatColumns(inputs, widths, num_inputs, rows, row_sets, hops, level,
                       zero_rest != 0, y);
}

int gnnrt_cpu_slice(const float *x, int64_t rows, int64_t cols, int64_t offset,
                    int64_t width, float *y) {
  return sliceColumns(x, rows, cols, offset, width, nullptr, 0, 0, false, y);
}

int gnnrt_cpu_slice_rows(const float *x, int64_t rows, int64_t cols,
                         int64_t offset, int64_t width, const int32_t *row_sets,
                         int64_t hops, int64_t level, int zero_rest, float *y) {
  GNNRT_CHECK(row_sets, GNNRT_ERR_NULL_POINTER);
  return sliceColumns(x, rows, cols, offset, width, row_sets, hops, level,
                      zero_rest != 0, y);
}

int gnnrt_cpu_insert_columns(const float *x, const float *block, int64_t rows,
                             int64_t cols, int64_t offset, int64_t width,
                             float *y) {
  return insertColumns(x, block, rows, cols, offset, width, nullptr, 0, 0, y);
}

int gnnrt_cpu_insert_columns_rows(const float *x, const float *block,
                                  int64_t rows, int64_t cols, int64_t offset,
                                  int64_t width, const int32_t *row_sets,
                                  int64_t hops, int64_t level, float *y) {
  GNNRT_CHECK(row_sets, GNNRT_ERR_NULL_POINTER);
  return insertColumns(x, block, rows, cols, offset, width, row_sets, hops,
                       level, y);
}

int gnnrt_cpu_normalize(const float *x, int64_t rows, int64_t cols, int dim,
                        double eps, float *y) {
  int64_t count;
  if (int status = kernel::normalizeArgs(x, rows, cols, dim, eps, y, count))
    return status;
  if (count == 0)
    return GNNRT_OK;
  [[maybe_unused]] const bool par = worthThreads(count);

  if (dim == 1) {
    // A row's statistics are taken before it is written: y == x is safe.
#pragma omp parallel for schedule(static) if (par)
    for (int64_t r = 0; r < rows; ++r)
      kernel::normalizeRow(x + r * cols, cols, eps, y + r * cols);
    return GNNRT_OK;
  }
  GNNRT_CHECK(cols <= std::numeric_limits<int64_t>::max() / 2,
              GNNRT_ERR_BAD_SIZE);
  auto stats = scratch<double>(2 * cols);
  GNNRT_CHECK(stats, GNNRT_ERR_OUT_OF_MEMORY);
  double *mean = stats.get(), *rstd = stats.get() + cols;
  if (int status = columnStats(x, rows, cols, eps, par, mean, rstd))
    return status;
#pragma omp parallel for schedule(static) if (par)
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    for (int64_t c = 0; c < cols; ++c)
      yr[c] = static_cast<float>((xr[c] - mean[c]) * rstd[c]);
  }
  return GNNRT_OK;
}

int gnnrt_cpu_normalize_grad(const float *x, const float *dy, int64_t rows,
                             int64_t cols, int dim, double eps, float *dx) {
  int64_t count;
  if (int status =
          kernel::normalizeGradArgs(x, dy, rows, cols, dim, eps, dx, count))
    return status;
  if (count == 0)
    return GNNRT_OK;
  [[maybe_unused]] const bool par = worthThreads(count);

  // dx = r (dy - mean(dy) - xhat mean(dy xhat)), xhat = (x - mean) r. Each
  // element of dx is written after every statistic it needs is known and
  // right after its own x and dy are read: dx may alias x or dy.
  if (dim == 1) {
#pragma omp parallel for schedule(static) if (par)
    for (int64_t r = 0; r < rows; ++r)
      kernel::normalizeGradRow(x + r * cols, dy + r * cols, cols, eps,
                               dx + r * cols);
    return GNNRT_OK;
  }
  GNNRT_CHECK(cols <= std::numeric_limits<int64_t>::max() / 4,
              GNNRT_ERR_BAD_SIZE);
  auto stats = scratch<double>(4 * cols);
  GNNRT_CHECK(stats, GNNRT_ERR_OUT_OF_MEMORY);
  double *mean = stats.get(), *rstd = mean + cols;
  // meanDy[c] and meanDyXhat[c] interleaved so one blocked pass sums both.
  double *dyStats = rstd + cols;
  if (int status = columnStats(x, rows, cols, eps, par, mean, rstd))
    return status;
  if (int status = blockedColumnSums(
          rows, 2 * cols, par,
          [&](int64_t r, double *acc) {
            const float *xr = x + r * cols, *dyr = dy + r * cols;
            for (int64_t c = 0; c < cols; ++c) {
              acc[2 * c] += dyr[c];
              acc[2 * c + 1] += dyr[c] * ((xr[c] - mean[c]) * rstd[c]);
            }
          },
          dyStats))
    return status;
  for (int64_t c = 0; c < 2 * cols; ++c)
    dyStats[c] /= static_cast<double>(rows);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols, *dyr = dy + r * cols;
    float *dxr = dx + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      const double xhat = (xr[c] - mean[c]) * rstd[c];
      dxr[c] = static_cast<float>(
          rstd[c] * (dyr[c] - dyStats[2 * c] - xhat * dyStats[2 * c + 1]));
    }
  }
  return GNNRT_OK;
}

} // extern "C"
