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

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gnnrt::cpu {

/// Philox blocks generated together: enough independent products to hide
/// the multiplier's latency, few enough for the state to stay in registers.
constexpr int kLanes = 16;

/// What every element of one dropout call shares.
struct DropoutKey {
  uint32_t k0, k1;       // the key: seed lo, seed hi
  uint32_t stream, step; // counter words 2 and 3
  uint32_t threshold;    // in [1, 2^32 - 1]: kept iff bits >= threshold
  double keep;           // 1 - p, the divisor of a kept element
};

/// A kept element: the quotient in double, rounded once.
inline float keepElement(float x, double keep) {
  return static_cast<float>(static_cast<double>(x) / keep);
}

inline float dropElement(float x, uint32_t bits, const DropoutKey &key) {
  return bits >= key.threshold ? keepElement(x, key.keep) : 0.0f;
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

/// gnnrt::philox4x32 of the counters (lo[l], hi[l], stream, step) for every
/// lane l under the call's key; word j of lane l in out[j][l].
inline void philoxLanes(const uint32_t lo[kLanes], const uint32_t hi[kLanes],
                        const DropoutKey &key, uint32_t out[4][kLanes]) {
#if defined(__SSE2__)
  using namespace gnnrt::philox_detail;
  constexpr int kVecs = kLanes / 4;
  __m128i c0[kVecs], c1[kVecs], c2[kVecs], c3[kVecs];
  for (int v = 0; v < kVecs; ++v) {
    c0[v] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(lo + 4 * v));
    c1[v] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(hi + 4 * v));
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
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[0] + 4 * v), c0[v]);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[1] + 4 * v), c1[v]);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[2] + 4 * v), c2[v]);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out[3] + 4 * v), c3[v]);
  }
#else
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t ctr[4] = {lo[l], hi[l], key.stream, key.step};
    const uint32_t k[2] = {key.k0, key.k1};
    uint32_t bits[4];
    gnnrt::philox4x32(ctr, k, bits);
    for (int j = 0; j < 4; ++j)
      out[j][l] = bits[j];
  }
#endif
}

/// The DropoutKey of a call with 0 < threshold <= UINT32_MAX (the callers
/// handle p = 0 and p ~ 1 without bits).
inline DropoutKey dropoutKey(uint64_t seed, uint64_t step, uint64_t stream,
                             uint64_t threshold, double keep) {
  return {static_cast<uint32_t>(seed),      static_cast<uint32_t>(seed >> 32),
          static_cast<uint32_t>(stream),    static_cast<uint32_t>(step),
          static_cast<uint32_t>(threshold), keep};
}

} // namespace gnnrt::cpu

#endif // GNNRT_CPU_PHILOXLANES_H
