//===- Convert.cpp - Storage precision conversions ------------------------===//
//
// fp32 <-> bf16 / fp16 on bit patterns. Every case (normal, subnormal,
// overflow, NaN) is computed for every element and the right one selected,
// rather than branched to: the loops then compile to vector selects, and the
// integer arithmetic makes the result independent of the floating-point
// environment (a host that set flush-to-zero still gets IEEE subnormals).
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Convert.h"

#include "Common.h"

#include <cstdint>

using namespace gnnrt::cpu;

namespace {

/// Elements per chunk of the parallel loop: large enough that a chunk's
/// cost dwarfs handing it out, small enough that two threads balance.
constexpr int64_t kChunk = 1 << 16;

/// `x >> shift` rounded to nearest, ties to even: adding just under half of
/// the dropped part, plus the kept part's lowest bit, carries exactly when
/// the dropped part is above half, or is half and the kept part is odd.
/// \p shift is 1..31 and \p x + 2^(shift-1) must not overflow.
inline uint32_t shiftRoundEven(uint32_t x, uint32_t shift) {
  return (x + ((1u << (shift - 1)) - 1) + ((x >> shift) & 1u)) >> shift;
}

inline uint16_t f32ToBf16(float v) {
  const uint32_t b = bitsOf(v);
  // bf16 is fp32's top half, so rounding never leaves the exponent range
  // except by carrying into it, which correctly turns the largest values
  // into infinities. Only a NaN must not round: a payload in the low bits
  // alone would carry into an infinity or be truncated to one.
  const uint32_t rounded = shiftRoundEven(b, 16);
  const uint32_t quietNaN = (b >> 16) | 0x40u;
  return static_cast<uint16_t>((b & 0x7fffffffu) > 0x7f800000u ? quietNaN
                                                               : rounded);
}

inline float bf16ToF32(uint16_t h) {
  const uint32_t quieted = (h & 0x7fffu) > 0x7f80u ? h | 0x40u : h;
  return fromBits(quieted << 16);
}

inline uint16_t f32ToF16(float v) {
  const uint32_t b = bitsOf(v);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const uint32_t a = b & 0x7fffffffu;
  // Normal halves: drop 13 mantissa bits and rebias the exponent from 127
  // to 15. A carry out of the mantissa increments the exponent, which is
  // the right answer, up to and including 0x7c00 (an infinity) for
  // [65520, 65536).
  const uint32_t normal = shiftRoundEven(a, 13) - (112u << 10);
  // Subnormal halves count units of 2^-24: the fp32 significand (with its
  // implicit bit) m * 2^(e - 150) is m >> (126 - e) units. The shift is
  // clamped to 1..31 because it is computed for every input, and a shift
  // outside that range would be undefined: from 25 on every input rounds to
  // 0 anyway (m < 2^24 is below half a unit), fp32 zeros and subnormals
  // included, whose wrongly added implicit bit is far below that; below 14
  // (normal halves) the result is not selected.
  const uint32_t exponent = a >> 23;
  const uint32_t shift = exponent < 95    ? 31u
                         : exponent > 125 ? 1u
                                          : 126u - exponent;
  const uint32_t subnormal = shiftRoundEven((a & 0x7fffffu) | 0x800000u, shift);
  const uint32_t quietNaN = 0x7e00u | ((a >> 13) & 0x3ffu);
  uint32_t h = a >= 0x38800000u ? normal : subnormal; // 2^-14, the least normal
  h = a >= 0x477ff000u ? 0x7c00u : h; // rounds to 2^16 or more: infinity
  h = a > 0x7f800000u ? quietNaN : h;
  return static_cast<uint16_t>(sign | h);
}

inline float f16ToF32(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  const uint32_t normal = ((exponent + 112u) << 23) | (mantissa << 13);
  const uint32_t special =
      0x7f800000u | (mantissa << 13) | (mantissa ? 0x400000u : 0u);
  // mantissa * 2^-24 is exact in fp32 (at most 10 significant bits, and a
  // normal fp32 result), so neither rounding mode nor flush-to-zero can
  // change it; it is 0 for a zero.
  const uint32_t subnormal =
      bitsOf(static_cast<float>(mantissa) * 5.9604644775390625e-8f);
  uint32_t f = exponent == 0 ? subnormal : normal;
  f = exponent == 0x1fu ? special : f;
  return fromBits(sign | f);
}

GNNRT_VECTOR_CLONES void f32ToBf16Range(const float *__restrict src,
                                        uint16_t *__restrict dst, int64_t begin,
                                        int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = f32ToBf16(src[i]);
}

GNNRT_VECTOR_CLONES void bf16ToF32Range(const uint16_t *__restrict src,
                                        float *__restrict dst, int64_t begin,
                                        int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = bf16ToF32(src[i]);
}

GNNRT_VECTOR_CLONES void f32ToF16Range(const float *__restrict src,
                                       uint16_t *__restrict dst, int64_t begin,
                                       int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = f32ToF16(src[i]);
}

GNNRT_VECTOR_CLONES void f16ToF32Range(const uint16_t *__restrict src,
                                       float *__restrict dst, int64_t begin,
                                       int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = f16ToF32(src[i]);
}

template <typename Src, typename Dst, typename Range>
int convert(const Src *src, Dst *dst, int64_t n, Range range) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(src, n) && present(dst, n), GNNRT_ERR_NULL_POINTER);
  forEachChunk(n, kChunk, worthThreads(n), [&](int64_t begin, int64_t end) {
    range(src, dst, begin, end);
  });
  return GNNRT_OK;
}

} // namespace

int gnnrt_cpu_f32_to_bf16(const float *src, uint16_t *dst, int64_t n) {
  return convert(src, dst, n, f32ToBf16Range);
}

int gnnrt_cpu_bf16_to_f32(const uint16_t *src, float *dst, int64_t n) {
  return convert(src, dst, n, bf16ToF32Range);
}

int gnnrt_cpu_f32_to_f16(const float *src, uint16_t *dst, int64_t n) {
  return convert(src, dst, n, f32ToF16Range);
}

int gnnrt_cpu_f16_to_f32(const uint16_t *src, float *dst, int64_t n) {
  return convert(src, dst, n, f16ToF32Range);
}
