//===- Sign.cpp - A tensor kept as its signs, a bit an element ------------===//
//
// mem.store_sign and mem.load_sign (gnnrt/Convert.h). Rows are packed on
// their own (a row of C floats into ceil(C / 8) bytes), so a tensor computed
// at one row set's rows packs and unpacks those rows alone, like the row
// copies of the host tier.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Convert.h"

#include "Common.h"
#include "RowSets.h"
#include "SignBits.h"

#include <cstdint>

using namespace gnnrt::cpu;

namespace {

int signArgs(const void *from, const void *to, int64_t rows, int64_t cols) {
  GNNRT_CHECK(rows >= 0 && cols >= 0, GNNRT_ERR_BAD_SIZE);
  int64_t n;
  GNNRT_CHECK(mulSize(rows, cols, n), GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(n == 0 || (from && to), GNNRT_ERR_NULL_POINTER);
  return GNNRT_OK;
}

/// `fn(i)` for every row i of R_level, or of [0, rows) without sets.
template <typename Fn>
int forRows(int64_t rows, int64_t cols, const int32_t *rowSets, int64_t hops,
            int64_t level, Fn fn) {
  const int32_t *order = nullptr;
  int64_t count = rows;
  if (rowSets) {
    RowSets sets;
    if (int status = rowSetArgs(rowSets, rows, hops, level, sets))
      return status;
    order = sets.order;
    count = sets.count[level];
  }
  forEachChunk(count, signChunkRows(cols, kRowChunk), worthThreads(count, cols),
               [&](int64_t first, int64_t last) {
                 // Two loops, so that the one over consecutive rows can
                 // vectorise (one column: a compare a byte).
                 if (order)
                   for (int64_t t = first; t < last; ++t)
                     fn(int64_t(order[t]));
                 else
                   for (int64_t i = first; i < last; ++i)
                     fn(i);
               });
  return GNNRT_OK;
}

int storeSign(const float *x, int64_t rows, int64_t cols,
              const int32_t *rowSets, int64_t hops, int64_t level,
              uint8_t *bits) {
  if (int status = signArgs(x, bits, rows, cols))
    return status;
  // A byte a row for one column (a compare per byte) and four (GAT's
  // heads, one vector compare): without the general loop's per-row setup
  // they run at memory speed.
  if (cols == 1)
    return forRows(rows, cols, rowSets, hops, level,
                   [&](int64_t i) { bits[i] = x[i] > 0.0f; });
  if (cols == 4)
    return forRows(rows, cols, rowSets, hops, level,
                   [&](int64_t i) { bits[i] = packSignByte(x + i * 4, 4); });
  const int64_t rb = signRowBytes(cols);
  return forRows(rows, cols, rowSets, hops, level, [&](int64_t i) {
    packSignRow(x + i * cols, cols, bits + i * rb);
  });
}

int loadSign(const uint8_t *bits, int64_t rows, int64_t cols,
             const int32_t *rowSets, int64_t hops, int64_t level, float *y) {
  if (int status = signArgs(bits, y, rows, cols))
    return status;
  const int64_t rb = signRowBytes(cols);
  return forRows(rows, cols, rowSets, hops, level, [&](int64_t i) {
    unpackSignRow(bits + i * rb, cols, y + i * cols);
  });
}

} // namespace

extern "C" {

int gnnrt_cpu_store_sign(const float *x, int64_t rows, int64_t cols,
                         uint8_t *bits) {
  return storeSign(x, rows, cols, nullptr, 0, 0, bits);
}

int gnnrt_cpu_load_sign(const uint8_t *bits, int64_t rows, int64_t cols,
                        float *y) {
  return loadSign(bits, rows, cols, nullptr, 0, 0, y);
}

int gnnrt_cpu_store_sign_rows(const float *x, int64_t rows, int64_t cols,
                              const int32_t *row_sets, int64_t hops,
                              int64_t level, uint8_t *bits) {
  GNNRT_CHECK(row_sets, GNNRT_ERR_NULL_POINTER);
  return storeSign(x, rows, cols, row_sets, hops, level, bits);
}

int gnnrt_cpu_load_sign_rows(const uint8_t *bits, int64_t rows, int64_t cols,
                             const int32_t *row_sets, int64_t hops,
                             int64_t level, float *y) {
  GNNRT_CHECK(row_sets, GNNRT_ERR_NULL_POINTER);
  return loadSign(bits, rows, cols, row_sets, hops, level, y);
}

} // extern "C"
