//===- FloatBits.h - Bit-level helpers for the CPU kernel tests -*- C++ -*-===//
//
// The tests that compare kernels bit for bit (dropout, its CSR form, the
// bf16/f16 conversions) build special floats from bit patterns with the
// kernels' bitsOf/fromBits (Common.h) and draw inputs from a generator that
// does not depend on the C++ library, so a failure reproduces everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_UNITTESTS_RUNTIMECPU_FLOATBITS_H
#define GNNC_TEST_UNITTESTS_RUNTIMECPU_FLOATBITS_H

#include "Common.h" // bitsOf, fromBits: the kernels' own.

#include <cstdint>
#include <limits>
#include <vector>

namespace gnnrt::cpu::test {

/// splitmix64, so the inputs do not depend on the C++ library.
inline uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform in [-1, 1), a multiple of 2^-20 (exact in any sum of a few).
inline float uniform(uint64_t &state) {
  return static_cast<float>(static_cast<int64_t>(nextRandom(state) >> 43) -
                            (int64_t(1) << 20)) *
         0x1p-20f;
}

/// \p count uniform floats from \p seed.
inline std::vector<float> randomDense(int64_t count, uint64_t seed) {
  uint64_t state = seed;
  std::vector<float> v(static_cast<size_t>(count));
  for (float &e : v)
    e = uniform(state);
  return v;
}

/// \p n floats in [-2, 2] from \p seed, one in four a special one: -0.0,
/// a quiet NaN with a payload, an infinity of either sign, or a subnormal.
/// For the kernels that must keep every bit (fused chains, in place).
inline std::vector<float> specialValues(int64_t n, uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint64_t state = seed;
  for (float &x : v) {
    const uint64_t r = nextRandom(state);
    switch (r % 16) {
    case 0:
      x = -0.0f;
      break;
    case 1:
      x = fromBits(0x7FC00000u | static_cast<uint32_t>(r >> 44)); // NaN
      break;
    case 2:
      x = (r >> 8) % 2 ? std::numeric_limits<float>::infinity()
                       : -std::numeric_limits<float>::infinity();
      break;
    case 3:
      x = fromBits(static_cast<uint32_t>(r >> 41) | 1); // subnormal
      break;
    default:
      x = static_cast<float>(static_cast<double>(r >> 11) * 0x1p-53 * 4 - 2);
    }
  }
  return v;
}

} // namespace gnnrt::cpu::test

#endif // GNNC_TEST_UNITTESTS_RUNTIMECPU_FLOATBITS_H
