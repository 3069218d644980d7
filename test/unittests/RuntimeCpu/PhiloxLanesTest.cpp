//===- PhiloxLanesTest.cpp - Batched Philox against the scalar one -------===//
//
// The dropout kernels draw their bits through philoxLanes, which picks the
// AVX-512 form on CPUs that have it and the SSE2 form elsewhere. The kernel
// tests only exercise whichever form this machine picks, so each form is
// checked here directly against gnnrt::philox4x32, word for word, on
// counters that cross 32-bit boundaries and on extreme keys.
//
//===----------------------------------------------------------------------===//
#include "PhiloxLanes.h" // runtime/cpu, private to the kernels

#include "gtest/gtest.h"

#include <random>

using namespace gnnrt::cpu;

namespace {

struct Batch {
  uint32_t lo[kLanes], hi[kLanes];
  DropoutKey key;
};

Batch randomBatch(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Batch b;
  for (int l = 0; l < kLanes; ++l) {
    // Block numbers near 2^32 as well as small ones: the high word matters.
    uint64_t block = l % 3 == 0 ? (uint64_t{1} << 32) - 1 + l : rng();
    b.lo[l] = static_cast<uint32_t>(block);
    b.hi[l] = static_cast<uint32_t>(block >> 32);
  }
  uint64_t s = seed == 0 ? ~uint64_t{0} : rng();
  b.key = dropoutKey(s, rng(), rng() % 7, 1u << 31, 0.5);
  return b;
}

void expectScalarBits(const Batch &b, const uint32_t out[4][kLanes]) {
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t ctr[4] = {b.lo[l], b.hi[l], b.key.stream, b.key.step};
    const uint32_t k[2] = {b.key.k0, b.key.k1};
    uint32_t want[4];
    gnnrt::philox4x32(ctr, k, want);
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(out[j][l], want[j]) << "lane " << l << " word " << j;
  }
}

TEST(PhiloxLanes, Sse2FormEqualsScalarPhilox) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Batch b = randomBatch(seed);
    uint32_t out[4][kLanes];
    philoxLanes16(b.lo, b.hi, b.key, out, 0);
    philoxLanes16(b.lo, b.hi, b.key, out, 16);
    expectScalarBits(b, out);
  }
}

TEST(PhiloxLanes, Avx512FormEqualsScalarPhilox) {
#ifdef GNNRT_HAVE_AVX512_PHILOX
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "this CPU has no AVX-512F";
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Batch b = randomBatch(seed);
    uint32_t out[4][kLanes];
    philoxLanes512(b.lo, b.hi, b.key, out);
    expectScalarBits(b, out);
  }
#else
  GTEST_SKIP() << "no AVX-512 form in this build";
#endif
}

TEST(PhiloxLanes, DispatchEqualsScalarPhilox) {
  Batch b = randomBatch(7);
  uint32_t out[4][kLanes];
  philoxLanes(b.lo, b.hi, b.key, out);
  expectScalarBits(b, out);
}

} // namespace
