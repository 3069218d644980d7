//===- DropoutFastPathTest.cpp - gnnrt_cpu_dropout against its definition -===//
//
// gnnrt_cpu_dropout skips the random bits of blocks of four +0.0 inputs,
// generates the others many blocks at a time with SSE2 and keeps or drops
// through masks, and for p = 0.5 or 0.75 takes the kept quotient as a float
// product. None of that may change a bit: every output must equal the
// per-element definition below (gnnrt::dropoutBits against
// gnnrt::dropoutThreshold, the kept quotient taken in double and rounded
// once), including for -0.0 and NaN inputs, which a block of zeros must not
// swallow, and for every length, rate, key and thread count.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Kernels.h"
#include "gnnrt/Philox.h"

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using gnnrt::cpu::bitsOf;
using gnnrt::cpu::fromBits;
using gnnrt::cpu::test::nextRandom;

/// The definition of gnn.dropout, one element at a time.
std::vector<float> referenceDropout(const std::vector<float> &x, uint64_t seed,
                                    uint64_t step, uint64_t stream, double p) {
  const uint64_t threshold = gnnrt::dropoutThreshold(p);
  const double keep = 1.0 - p;
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const uint32_t bits = gnnrt::dropoutBits(seed, step, stream, i);
    y[i] = bits >= threshold
               ? static_cast<float>(static_cast<double>(x[i]) / keep)
               : 0.0f;
  }
  return y;
}

/// A value the fast paths could get wrong: signed zeros, NaNs with
/// payloads (quiet and signalling), infinities, subnormals, the extremes
/// of the range, and arbitrary bit patterns.
float specialValue(uint64_t &state) {
  const uint64_t r = nextRandom(state);
  const uint32_t payload = static_cast<uint32_t>(r >> 40) & 0x3FFFFFu;
  switch (r % 12) {
  case 0:
    return -0.0f;
  case 1:
    return fromBits(0x7FC00000u | payload); // quiet NaN
  case 2:
    return fromBits(0xFF800000u | (payload | 1)); // signalling NaN, negative
  case 3:
    return std::numeric_limits<float>::infinity();
  case 4:
    return -std::numeric_limits<float>::infinity();
  case 5:
    return fromBits(1); // smallest subnormal
  case 6:
    return fromBits(0x807FFFFFu); // largest negative subnormal
  case 7:
    return fromBits(payload | 1); // another subnormal
  case 8:
    return std::numeric_limits<float>::max();
  case 9:
    return std::numeric_limits<float>::min();
  default:
    return fromBits(static_cast<uint32_t>(r >> 32)); // any bits at all
  }
}

/// Inputs of length \p n in one of several mixes.
enum class Mix { Dense, Special, SparseRows, LoneNonZeros, AllZero };

std::vector<float> makeInput(Mix mix, int64_t n, uint64_t seed) {
  std::vector<float> x(static_cast<size_t>(n), 0.0f);
  uint64_t state = seed;
  const auto uniform = [&state] {
    return static_cast<float>(static_cast<int64_t>(nextRandom(state) >> 40) -
                              (int64_t(1) << 23)) *
           0x1p-20f;
  };
  for (int64_t i = 0; i < n; ++i) {
    float &v = x[static_cast<size_t>(i)];
    switch (mix) {
    case Mix::Dense:
      v = uniform();
      break;
    case Mix::Special:
      // A third +0.0, so that whole zero blocks sit between special ones.
      v = nextRandom(state) % 3 == 0 ? 0.0f : specialValue(state);
      break;
    case Mix::SparseRows: {
      // Rows of 37 (not a multiple of four, so rows straddle blocks) with
      // about 3% non-zeros, some of them special.
      const uint64_t r = nextRandom(state) % 100;
      if (i % 37 != 0 && r < 3)
        v = r == 0 ? specialValue(state) : uniform();
      break;
    }
    case Mix::LoneNonZeros:
      // One -0.0, NaN or other value alone in a block of +0.0, at every
      // position within the block.
      if (i % 11 == 0)
        v = specialValue(state);
      break;
    case Mix::AllZero:
      break;
    }
  }
  return x;
}

const char *mixName(Mix mix) {
  switch (mix) {
  case Mix::Dense:
    return "dense";
  case Mix::Special:
    return "special";
  case Mix::SparseRows:
    return "sparse rows";
  case Mix::LoneNonZeros:
    return "lone non-zeros";
  case Mix::AllZero:
    return "all zero";
  }
  return "?";
}

/// The index of the first element whose bits differ, or -1.
int64_t firstDifference(const std::vector<float> &got,
                        const std::vector<float> &want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (bitsOf(got[i]) != bitsOf(want[i]))
      return static_cast<int64_t>(i);
  return -1;
}

class DropoutFastPath : public ::testing::Test {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }

  /// Runs the kernel out of place (over an output full of NaNs, which it
  /// must overwrite everywhere) and in place and compares both with the
  /// definition.
  void check(Mix mix, int64_t n, uint64_t seed, uint64_t step, uint64_t stream,
             double p) {
    char pText[32];
    std::snprintf(pText, sizeof(pText), "%.17g", p);
    SCOPED_TRACE(std::string(mixName(mix)) + ", n " + std::to_string(n) +
                 ", p " + pText + ", seed " + std::to_string(seed) + ", step " +
                 std::to_string(step) + ", stream " + std::to_string(stream));
    const std::vector<float> x = makeInput(mix, n, seed ^ (n * 31) ^ step);
    const std::vector<float> want = referenceDropout(x, seed, step, stream, p);

    std::vector<float> y(x.size(), std::nanf("7"));
    ASSERT_EQ(gnnrt_cpu_dropout(x.data(), n, seed, step, stream, p, y.data()),
              GNNRT_OK);
    int64_t bad = firstDifference(y, want);
    EXPECT_EQ(bad, -1) << "out of place: x " << std::hex
                       << bitsOf(x[static_cast<size_t>(bad)]) << ", got "
                       << bitsOf(y[static_cast<size_t>(bad)]) << ", want "
                       << bitsOf(want[static_cast<size_t>(bad)]);

    std::vector<float> z = x;
    ASSERT_EQ(gnnrt_cpu_dropout(z.data(), n, seed, step, stream, p, z.data()),
              GNNRT_OK);
    bad = firstDifference(z, want);
    EXPECT_EQ(bad, -1) << "in place: x " << std::hex
                       << bitsOf(x[static_cast<size_t>(bad)]) << ", got "
                       << bitsOf(z[static_cast<size_t>(bad)]) << ", want "
                       << bitsOf(want[static_cast<size_t>(bad)]);
  }
};

constexpr Mix kMixes[] = {Mix::Dense, Mix::Special, Mix::SparseRows,
                          Mix::LoneNonZeros, Mix::AllZero};

TEST_F(DropoutFastPath, MatchesTheDefinitionBitForBit) {
  gnnrt_cpu_set_num_threads(1);
  // The seed exceeds 2^32 so both key words matter; step and stream too,
  // so that their truncation to 32 bits is exercised.
  const uint64_t seed = (uint64_t(5) << 32) | 17;
  const uint64_t step = (uint64_t(3) << 32) | 9,
                 stream = (uint64_t(1) << 33) | 6;
  for (int64_t n : {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1000, 100003})
    for (double p : {0.0, 0.1, 0.5, 0.6, 0.75, 0.999})
      for (Mix mix : kMixes)
        check(mix, n, seed, step, stream, p);
}

TEST_F(DropoutFastPath, ExtremeRates) {
  gnnrt_cpu_set_num_threads(1);
  // Thresholds 1 (p = 2^-32 and below it) and 2^32 - 1 (p = 1 - 2^-32),
  // and p above that, where nothing is kept: the ends of the unsigned
  // compare.
  for (double p : {0x1p-32, 1e-300, std::nextafter(0x1p-32, 1.0), 1 - 0x1p-32,
                   std::nextafter(1 - 0x1p-32, 0.0), std::nextafter(1.0, 0.0)})
    for (Mix mix : kMixes)
      check(mix, 4099, 123, 4, 5, p);
}

TEST_F(DropoutFastPath, ManyKeys) {
  gnnrt_cpu_set_num_threads(1);
  for (uint64_t seed : {uint64_t(0), uint64_t(1), ~uint64_t(0)})
    for (uint64_t step : {uint64_t(0), uint64_t(0xFFFFFFFF)})
      for (uint64_t stream : {uint64_t(0), uint64_t(77)})
        check(Mix::Special, 1031, seed, step, stream, 0.3);
}

TEST_F(DropoutFastPath, ThreadTeamsGiveTheSameBits) {
  // Large enough for the parallel loop, with lengths that leave a partial
  // tile and a partial block; with one and with two threads.
  for (int threads : {1, 2}) {
    gnnrt_cpu_set_num_threads(threads);
    SCOPED_TRACE("threads " + std::to_string(threads));
    for (int64_t n : {int64_t(300001), int64_t(2708) * 1433})
      for (Mix mix : {Mix::Special, Mix::SparseRows})
        for (double p : {0.0, 0.5})
          check(mix, n, 99, 7, 1, p);
  }
}

/// gnnrt_cpu_dropout_columns (a GAT head's column of its attention, after
/// gnn-decompose splits the layer by heads) must write exactly what
/// gnnrt_cpu_dropout writes in those columns of the whole matrix, for every
/// block of columns and thread count, and in place too.
TEST_F(DropoutFastPath, ColumnsMatchTheWholeMatrix) {
  for (int threads : {1, 2}) {
    gnnrt_cpu_set_num_threads(threads);
    SCOPED_TRACE("threads " + std::to_string(threads));
    // 0.5: keep is a power of two, the product path; 0.6 divides.
    for (double p : {0.5, 0.6})
      for (int64_t cols : {1, 3, 4, 8})
        for (int64_t rows : {int64_t(1), int64_t(7), int64_t(40001)}) {
          uint64_t state = 3 + cols + rows;
          std::vector<float> whole(static_cast<size_t>(rows * cols));
          for (float &v : whole)
            v = specialValue(state);
          std::vector<float> want(whole.size());
          ASSERT_EQ(gnnrt_cpu_dropout(whole.data(), rows * cols, 42, 5, 3, p,
                                      want.data()),
                    GNNRT_OK);
          for (int64_t offset = 0; offset < cols; ++offset)
            for (int64_t width = 1; offset + width <= cols; ++width) {
              std::vector<float> x(static_cast<size_t>(rows * width)),
                  y(x.size());
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t c = 0; c < width; ++c)
                  x[r * width + c] = whole[r * cols + offset + c];
              ASSERT_EQ(gnnrt_cpu_dropout_columns(x.data(), rows, width, cols,
                                                  offset, 42, 5, 3, p,
                                                  y.data()),
                        GNNRT_OK);
              ASSERT_EQ(gnnrt_cpu_dropout_columns(x.data(), rows, width, cols,
                                                  offset, 42, 5, 3, p,
                                                  x.data()),
                        GNNRT_OK);
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t c = 0; c < width; ++c) {
                  const uint32_t expected = bitsOf(want[r * cols + offset + c]);
                  ASSERT_EQ(bitsOf(y[r * width + c]), expected)
                      << "p " << p << " cols " << cols << " offset " << offset
                      << " row " << r;
                  ASSERT_EQ(bitsOf(x[r * width + c]), expected) << "in place";
                }
            }
        }
  }
  float x = 1.0f;
  EXPECT_EQ(gnnrt_cpu_dropout_columns(&x, 1, 1, 2, 2, 1, 0, 0, 0.5, &x),
            GNNRT_ERR_BAD_ARGUMENT); // columns [2, 3) outside 2
}

} // namespace
