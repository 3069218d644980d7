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

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace gnnrt::cpu;

namespace {

int64_t rowBytes(int64_t cols) { return (cols + 7) / 8; }

/// Bit k of \p byte is `x[k] > 0` for k < \p count (<= 8); the others 0.
uint8_t packByte(const float *x, int count) {
#if defined(__SSE2__)
  if (count == 8) {
    // Ordered compares: false for a NaN, as `x > 0` is.
    const __m128 zero = _mm_setzero_ps();
    const int lo = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x), zero));
    const int hi = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x + 4), zero));
    return static_cast<uint8_t>(lo | hi << 4);
  }
#endif
  uint8_t byte = 0;
  for (int k = 0; k < count; ++k)
    byte |= static_cast<uint8_t>(x[k] > 0.0f) << k;
  return byte;
}

void packRow(const float *__restrict x, int64_t cols,
             uint8_t *__restrict bits) {
  for (int64_t b = 0; b * 8 < cols; ++b)
    bits[b] = packByte(x + b * 8,
                       static_cast<int>(std::min<int64_t>(8, cols - b * 8)));
}

/// The eight floats of each byte's bits: a copy per byte unpacks at memory
/// speed where a branch per bit did not (5x slower than memcpy).
struct Unpacked {
  float lanes[256][8];
  Unpacked() {
    for (int byte = 0; byte < 256; ++byte)
      for (int k = 0; k < 8; ++k)
        lanes[byte][k] = (byte >> k) & 1 ? 1.0f : 0.0f;
  }
};

void unpackRow(const uint8_t *__restrict bits, int64_t cols,
               float *__restrict y) {
  static const Unpacked table;
  int64_t b = 0;
  for (; (b + 1) * 8 <= cols; ++b)
    std::memcpy(y + b * 8, table.lanes[bits[b]], sizeof(table.lanes[0]));
  if (b * 8 < cols)
    std::memcpy(y + b * 8, table.lanes[bits[b]],
                static_cast<size_t>(cols - b * 8) * sizeof(float));
}

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
  forEachChunk(count, kRowChunk, worthThreads(count, cols),
               [&](int64_t first, int64_t last) {
                 for (int64_t t = first; t < last; ++t)
                   fn(order ? int64_t(order[t]) : t);
               });
  return GNNRT_OK;
}

int storeSign(const float *x, int64_t rows, int64_t cols,
              const int32_t *rowSets, int64_t hops, int64_t level,
              uint8_t *bits) {
  if (int status = signArgs(x, bits, rows, cols))
    return status;
  const int64_t rb = rowBytes(cols);
  return forRows(rows, cols, rowSets, hops, level, [&](int64_t i) {
    packRow(x + i * cols, cols, bits + i * rb);
  });
}

int loadSign(const uint8_t *bits, int64_t rows, int64_t cols,
             const int32_t *rowSets, int64_t hops, int64_t level, float *y) {
  if (int status = signArgs(bits, y, rows, cols))
    return status;
  const int64_t rb = rowBytes(cols);
  return forRows(rows, cols, rowSets, hops, level, [&](int64_t i) {
    unpackRow(bits + i * rb, cols, y + i * cols);
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
