//===- PhiloxTest.cpp - Philox4x32-10 against Random123's answers ---------===//
#include "gnnrt/Philox.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

struct KnownAnswer {
  uint32_t ctr[4];
  uint32_t key[2];
  uint32_t out[4];
};

// The three "philox4x32 10" lines of Random123's tests/kat_vectors
// (counter, key, expected output).
const KnownAnswer kKnownAnswers[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(PhiloxTest, Random123KnownAnswers) {
  for (const KnownAnswer &k : kKnownAnswers) {
    uint32_t out[4];
    gnnrt::philox4x32(k.ctr, k.key, out);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out[i], k.out[i]) << "word " << i;
  }
}

// Seed 0, step 0, stream 0: elements 0..3 are the words of the all-zero
// known answer, times 2^-32.
TEST(PhiloxTest, DropoutUniformUsesTheDocumentedCounter) {
  const uint32_t *zero = kKnownAnswers[0].out;
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(gnnrt::dropoutBits(0, 0, 0, i), zero[i]);
    EXPECT_EQ(gnnrt::dropoutUniform(0, 0, 0, i), zero[i] * 0x1p-32);
  }
}

// Element i is word i mod 4 of block b = i / 4 with counter
// (b lo, b hi, stream, step) and key (seed lo, seed hi).
TEST(PhiloxTest, DropoutElementToCounterMapping) {
  const uint64_t seed = 0x0123456789abcdefull, step = 7, stream = 3;
  const uint64_t index = (uint64_t(5) << 32 | 9) * 4 + 2;
  uint32_t ctr[4] = {9, 5, 3, 7};
  uint32_t key[2] = {0x89abcdef, 0x01234567};
  uint32_t out[4];
  gnnrt::philox4x32(ctr, key, out);
  EXPECT_EQ(gnnrt::dropoutBits(seed, step, stream, index), out[2]);
}

TEST(PhiloxTest, InitUniformUsesTheLastCounterWord) {
  const uint64_t seed = 42, stream = 5, index = 6;
  uint32_t ctr[4] = {1, 0, 5, 0xFFFFFFFF};
  uint32_t key[2] = {42, 0};
  uint32_t out[4];
  gnnrt::philox4x32(ctr, key, out);
  EXPECT_EQ(gnnrt::initUniform(seed, stream, index),
            (static_cast<double>(out[2]) + 0.5) * 0x1p-32);
  // Strictly inside (0, 1) even for the extreme words.
  EXPECT_GT(gnnrt::initUniform(seed, stream, index), 0.0);
  EXPECT_LT(gnnrt::initUniform(seed, stream, index), 1.0);
}

TEST(PhiloxTest, StepsStreamsAndSeedsGiveDifferentBits) {
  uint32_t base = gnnrt::dropoutBits(1, 1, 0, 0);
  EXPECT_NE(base, gnnrt::dropoutBits(1, 2, 0, 0));
  EXPECT_NE(base, gnnrt::dropoutBits(1, 1, 1, 0));
  EXPECT_NE(base, gnnrt::dropoutBits(2, 1, 0, 0));
  EXPECT_NE(base, gnnrt::dropoutBits(1, 1, 0, 1));
}

TEST(PhiloxTest, DropoutThresholdMatchesTheUniformComparison) {
  for (double p : {0.0, 0.1, 0.25, 0.5, 0.7, 0.999999}) {
    uint64_t t = gnnrt::dropoutThreshold(p);
    // t is the smallest bits value whose uniform reaches p.
    EXPECT_GE(static_cast<double>(t) * 0x1p-32, p);
    if (t > 0) {
      EXPECT_LT(static_cast<double>(t - 1) * 0x1p-32, p);
    }
  }
  EXPECT_EQ(gnnrt::dropoutThreshold(0.5), uint64_t(1) << 31);
  EXPECT_EQ(gnnrt::dropoutThreshold(0.0), 0u);
}

} // namespace
