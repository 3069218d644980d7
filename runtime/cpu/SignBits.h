//===- SignBits.h - Packing and unpacking a row of signs --------*- C++ -*-===//
//
// The layout of mem.store_sign's bits (gnnrt/Convert.h): each row of C
// floats packs into ceil(C / 8) bytes of its own, bit k of byte b being
// `x[8 b + k] > 0`. Sign.cpp converts whole tensors; the ReLU gradient
// (Elementwise.cpp) reads the bits through unpackSigns, so both agree on
// the layout and on the 1.0 / 0.0 each bit stands for.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CPU_SIGNBITS_H
#define GNNRT_CPU_SIGNBITS_H

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gnnrt::cpu {

inline int64_t signRowBytes(int64_t cols) { return (cols + 7) / 8; }

/// Rows a chunk of the sign kernels' parallel loops: kRowChunk rows of a
/// few columns are too little work for a dynamic schedule's dispatch, which
/// cost more than the packing on GAT's [E, 4] and [E, 1] scores (a dispatch
/// per 32 rows, even on one thread). About 8 Ki elements a chunk.
inline int64_t signChunkRows(int64_t cols, int64_t rowChunk) {
  return std::max<int64_t>(rowChunk, 8192 / std::max<int64_t>(cols, 1));
}

/// Bit k of the result is `x[k] > 0` for k < \p count (<= 8); the others 0.
inline uint8_t packSignByte(const float *x, int count) {
#if defined(__SSE2__)
  // Ordered compares: false for a NaN, as `x > 0` is. Four columns is
  // GAT's [E, heads] scores with four heads, a byte a row.
  const __m128 zero = _mm_setzero_ps();
  if (count == 8) {
    const int lo = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x), zero));
    const int hi = _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x + 4), zero));
    return static_cast<uint8_t>(lo | hi << 4);
  }
  if (count == 4)
    return static_cast<uint8_t>(
        _mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(x), zero)));
#endif
  uint8_t byte = 0;
  for (int k = 0; k < count; ++k)
    byte |= static_cast<uint8_t>(x[k] > 0.0f) << k;
  return byte;
}

inline void packSignRow(const float *__restrict x, int64_t cols,
                        uint8_t *__restrict bits) {
  for (int64_t b = 0; b * 8 < cols; ++b)
    bits[b] = packSignByte(
        x + b * 8, static_cast<int>(std::min<int64_t>(8, cols - b * 8)));
}

/// The eight floats of each byte's bits: a copy per byte unpacks at memory
/// speed where a branch per bit did not (5x slower than memcpy). Built at
/// compile time: one table, and no guard checked per row.
struct UnpackedSigns {
  float lanes[256][8] = {};
  constexpr UnpackedSigns() {
    for (int byte = 0; byte < 256; ++byte)
      for (int k = 0; k < 8; ++k)
        lanes[byte][k] = (byte >> k) & 1 ? 1.0f : 0.0f;
  }
};
inline constexpr UnpackedSigns kUnpackedSigns{};

/// Row \p bits of \p cols columns as 1.0 (positive) or 0.0 into \p y.
inline void unpackSignRow(const uint8_t *__restrict bits, int64_t cols,
                          float *__restrict y) {
  const UnpackedSigns &table = kUnpackedSigns;
  int64_t b = 0;
  for (; (b + 1) * 8 <= cols; ++b)
    std::memcpy(y + b * 8, table.lanes[bits[b]], sizeof(table.lanes[0]));
  if (b * 8 < cols)
    std::memcpy(y + b * 8, table.lanes[bits[b]],
                static_cast<size_t>(cols - b * 8) * sizeof(float));
}

/// As unpackSignRow, but writes whole bytes' floats: ceil(cols / 8) * 8 of
/// them, the last byte's unused bits as 0.0 past the row's end. Constant
/// 32-byte copies are two moves, where a row of 4 floats (GAT's four heads)
/// made the tail copy a library call per row.
inline void unpackSignRowPadded(const uint8_t *__restrict bits, int64_t cols,
                                float *__restrict y) {
  const UnpackedSigns &table = kUnpackedSigns;
  for (int64_t b = 0; b * 8 < cols; ++b)
    std::memcpy(y + b * 8, table.lanes[bits[b]], sizeof(table.lanes[0]));
}

} // namespace gnnrt::cpu

#endif // GNNRT_CPU_SIGNBITS_H
