//===- PhiloxLanes.h - Philox blocks many at a time -------------*- C++ -*-===//
//
// The dropout kernels' random bits: gnnrt::philox4x32 of kLanes counters at
// once, struct-of-arrays with SSE2 (part of every x86-64), so that the ten
// dependent rounds of one block overlap with those of the others. Shared by
// the dense dropout (Elementwise.cpp) and the CSR dropout (CsrMatrix.cpp),
// which must give the same bits for the same element. Private to
// runtime/cpu.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CPU_PHILOXLANES_H
#define GNNRT_CPU_PHILOXLANES_H

#include "gnnrt/Philox.h"

#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gnnrt::cpu {

/// Philox blocks generated together: two AVX-512 vectors (enough
/// independent products to hide the multiplier's latency), or two batches
/// of four SSE2 vectors (as many as stay in the 16 xmm registers).
constexpr int kLanes = 32;

/// What every element of one dropout call shares.
struct DropoutKey {
  uint32_t k0, k1;       // the key: seed lo, seed hi
  uint32_t stream, step; // counter words 2 and 3
  uint32_t threshold;    // in [1, 2^32 - 1]: kept iff bits >= threshold
  double keep;           // 1 - p, the divisor of a kept element
  /// 1 / keep when keep is a power of two (p = 0.5, 0.75, ...), else 0.
  /// Then x / keep in double, rounded to float, is exactly x * scale in
  /// float: scaling by a power of two >= 1 is exact, overflows to the same
  /// infinity, and quiets a NaN keeping its payload, as the round trip
  /// through double does. A product costs a fraction of a double division.
  float pow2Scale;
};

/// A kept element: the quotient in double, rounded once.
inline float keepElement(float x, double keep) {
  return static_cast<float>(static_cast<double>(x) / keep);
}

/// keepElement(x, key.keep), by the product when it is exact.
inline float keepElement(float x, const DropoutKey &key) {
  return key.pow2Scale != 0 ? x * key.pow2Scale : keepElement(x, key.keep);
}

inline float dropElement(float x, uint32_t bits, const DropoutKey &key) {
  return bits >= key.threshold ? keepElement(x, key) : 0.0f;
}

/// DropoutKey::pow2Scale of \p keep in (0, 1].
inline float powerOfTwoScale(double keep) {
  int exponent;
  if (!(keep > 0) || std::frexp(keep, &exponent) != 0.5)
    return 0.0f;
  return static_cast<float>(1.0 / keep); // 2^(1 - exponent), exact
}

#if defined(__SSE2__)
/// The products a * m of four lanes, split in high and low words: pmuludq
/// multiplies the even lanes, so the odd ones go through it shifted down.
inline void mulHiLo4(__m128i a, __m128i m, __m128i &hi, __m128i &lo) {
  const __m128i even = _mm_mul_epu32(a, m);
  const __m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), m);
  const __m128i lowWords = _mm_set_epi32(0, -1, 0, -1);
  hi = _mm_or_si128(_mm_srli_epi64(even, 32), _mm_andnot_si128(lowWords, odd));
  lo = _mm_or_si128(_mm_and_si128(even, lowWords), _mm_slli_epi64(odd, 32));
}
#endif

/// philoxLanes for the 16 lanes from \p first, four SSE2 vectors at a time.
inline void philoxLanes16(const uint32_t *lo, const uint32_t *hi,
                          const DropoutKey &key, uint32_t out[4][kLanes],
                          int first) {
#if defined(__SSE2__)
  using namespace gnnrt::philox_detail;
  constexpr int kVecs = 4;
  __m128i c0[kVecs], c1[kVecs], c2[kVecs], c3[kVecs];
  for (int v = 0; v < kVecs; ++v) {
    c0[v] =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(lo + first + 4 * v));
    c1[v] =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(hi + first + 4 * v));
    c2[v] = _mm_set1_epi32(static_cast<int>(key.stream));
    c3[v] = _mm_set1_epi32(static_cast<int>(key.step));
  }
  const __m128i m0 = _mm_set1_epi32(static_cast<int>(kMul0));
  const __m128i m1 = _mm_set1_epi32(static_cast<int>(kMul1));
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int r = 0; r < 10; ++r) {
    const __m128i key0 = _mm_set1_epi32(static_cast<int>(k0));
    const __m128i key1 = _mm_set1_epi32(static_cast<int>(k1));
    // philoxRound on every lane.
    for (int v = 0; v < kVecs; ++v) {
      __m128i hi0, lo0, hi1, lo1;
      mulHiLo4(c0[v], m0, hi0, lo0);
      mulHiLo4(c2[v], m1, hi1, lo1);
      c0[v] = _mm_xor_si128(_mm_xor_si128(hi1, c1[v]), key0);
      c1[v] = lo1;
      c2[v] = _mm_xor_si128(_mm_xor_si128(hi0, c3[v]), key1);
      c3[v] = lo0;
    }
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  for (int v = 0; v < kVecs; ++v) {
    const int at = first + 4 * v;
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[0] + at), c0[v]);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[1] + at), c1[v]);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[2] + at), c2[v]);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[3] + at), c3[v]);
  }
#else
  for (int l = first; l < first + 16; ++l) {
    const uint32_t ctr[4] = {lo[l], hi[l], key.stream, key.step};
    const uint32_t k[2] = {key.k0, key.k1};
    uint32_t bits[4];
    gnnrt::philox4x32(ctr, k, bits);
    for (int j = 0; j < 4; ++j)
      out[j][l] = bits[j];
  }
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GNNRT_HAVE_AVX512_PHILOX 1
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_epi32() as an unused
// merge operand and trip -Wuninitialized once inlined (GCC bug 105593);
// nothing here is read uninitialised.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
/// philoxLanes with AVX-512F, 16 lanes per vector. Only called when the CPU
/// has it (the build targets baseline x86-64): integer arithmetic, so the
/// bits are those of the SSE2 and scalar forms.
__attribute__((target("avx512f"))) inline void
philoxLanes512(const uint32_t lo[kLanes], const uint32_t hi[kLanes],
               const DropoutKey &key, uint32_t out[4][kLanes]) {
  using namespace gnnrt::philox_detail;
  constexpr int kVecs = kLanes / 16;
  __m512i c0[kVecs], c1[kVecs], c2[kVecs], c3[kVecs];
  for (int v = 0; v < kVecs; ++v) {
    c0[v] = _mm512_loadu_si512(lo + 16 * v);
    c1[v] = _mm512_loadu_si512(hi + 16 * v);
    c2[v] = _mm512_set1_epi32(static_cast<int>(key.stream));
    c3[v] = _mm512_set1_epi32(static_cast<int>(key.step));
  }
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kMul0));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(kMul1));
  // Odd 32-bit lanes: where vpmuludq of the shifted operand leaves the high
  // word of an odd lane's product, and where its low word must go.
  constexpr __mmask16 kOdd = 0xAAAA;
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int r = 0; r < 10; ++r) {
    const __m512i key0 = _mm512_set1_epi32(static_cast<int>(k0));
    const __m512i key1 = _mm512_set1_epi32(static_cast<int>(k1));
    for (int v = 0; v < kVecs; ++v) {
      const __m512i e0 = _mm512_mul_epu32(c0[v], m0);
      const __m512i o0 = _mm512_mul_epu32(_mm512_srli_epi64(c0[v], 32), m0);
      const __m512i e1 = _mm512_mul_epu32(c2[v], m1);
      const __m512i o1 = _mm512_mul_epu32(_mm512_srli_epi64(c2[v], 32), m1);
      const __m512i hi0 =
          _mm512_mask_blend_epi32(kOdd, _mm512_srli_epi64(e0, 32), o0);
      const __m512i lo0 =
          _mm512_mask_blend_epi32(kOdd, e0, _mm512_slli_epi64(o0, 32));
      const __m512i hi1 =
          _mm512_mask_blend_epi32(kOdd, _mm512_srli_epi64(e1, 32), o1);
      const __m512i lo1 =
          _mm512_mask_blend_epi32(kOdd, e1, _mm512_slli_epi64(o1, 32));
      c0[v] = _mm512_xor_si512(_mm512_xor_si512(hi1, c1[v]), key0);
      c1[v] = lo1;
      c2[v] = _mm512_xor_si512(_mm512_xor_si512(hi0, c3[v]), key1);
      c3[v] = lo0;
    }
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  for (int v = 0; v < kVecs; ++v) {
    _mm512_storeu_si512(out[0] + 16 * v, c0[v]);
    _mm512_storeu_si512(out[1] + 16 * v, c1[v]);
    _mm512_storeu_si512(out[2] + 16 * v, c2[v]);
    _mm512_storeu_si512(out[3] + 16 * v, c3[v]);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/// gnnrt::philox4x32 of the counters (lo[l], hi[l], stream, step) for every
/// lane l under the call's key; word j of lane l in out[j][l].
inline void philoxLanes(const uint32_t lo[kLanes], const uint32_t hi[kLanes],
                        const DropoutKey &key, uint32_t out[4][kLanes]) {
#ifdef GNNRT_HAVE_AVX512_PHILOX
  // A quarter of the instructions of the SSE2 form per block; the one
  // check is made once per process.
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) {
    philoxLanes512(lo, hi, key, out);
    return;
  }
#endif
  philoxLanes16(lo, hi, key, out, 0);
  philoxLanes16(lo, hi, key, out, 16);
}

/// The DropoutKey of a call with 0 < threshold <= UINT32_MAX (the callers
/// handle p = 0 and p ~ 1 without bits).
inline DropoutKey dropoutKey(uint64_t seed, uint64_t step, uint64_t stream,
                             uint64_t threshold, double keep) {
  return {static_cast<uint32_t>(seed),
          static_cast<uint32_t>(seed >> 32),
          static_cast<uint32_t>(stream),
          static_cast<uint32_t>(step),
          static_cast<uint32_t>(threshold),
          keep,
          powerOfTwoScale(keep)};
}

} // namespace gnnrt::cpu

#endif // GNNRT_CPU_PHILOXLANES_H
