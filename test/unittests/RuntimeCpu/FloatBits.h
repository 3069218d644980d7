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

namespace gnnrt::cpu::test {

/// splitmix64, so the inputs do not depend on the C++ library.
inline uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

} // namespace gnnrt::cpu::test

#endif // GNNC_TEST_UNITTESTS_RUNTIMECPU_FLOATBITS_H
