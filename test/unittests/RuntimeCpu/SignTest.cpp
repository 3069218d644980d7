//===- SignTest.cpp - A tensor kept as its signs --------------------------===//
//
// mem.store_sign / mem.load_sign (gnnrt/Convert.h) against their definition,
// and the claim the memory planner's sign fate rests on: the relu and
// leaky_relu gradients of the unpacked 1.0s and 0.0s equal the gradients of
// the original tensor bit for bit, zeros, NaNs and infinities included.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Convert.h"
#include "gnnrt/Kernels.h"

#include "CpuTestUtil.h"
#include "FloatBits.h"
#include "RowSetsUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace gnnrt::cpu::test;
using gnnrt::cpu::bitsOf;

namespace {

/// Values around every edge of `x > 0`: signed zeros, the smallest
/// subnormals, NaNs of both signs, infinities, and random values.
std::vector<float> awkwardValues(int64_t n, uint64_t seed) {
  const float special[] = {0.0f,
                           -0.0f,
                           std::numeric_limits<float>::denorm_min(),
                           -std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::quiet_NaN(),
                           -std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           1.0f,
                           -1.0f};
  std::vector<float> x = toF32(randomF32({n}, seed));
  for (int64_t i = 0; i < n; i += 3)
    x[i] = special[(i / 3) % std::size(special)];
  return x;
}

int64_t rowBytes(int64_t cols) { return (cols + 7) / 8; }

TEST(Sign, PacksEachRowOnItsOwn) {
  for (int64_t cols : {1, 4, 7, 8, 9, 64, 67}) {
    SCOPED_TRACE(std::to_string(cols) + " columns");
    const int64_t rows = 37;
    const std::vector<float> x = awkwardValues(rows * cols, 3 + cols);
    std::vector<uint8_t> bits(rows * rowBytes(cols), 0xa5);
    ASSERT_EQ(gnnrt_cpu_store_sign(x.data(), rows, cols, bits.data()),
              GNNRT_OK);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < rowBytes(cols) * 8; ++c) {
        const bool bit = (bits[i * rowBytes(cols) + c / 8] >> (c % 8)) & 1;
        // Padding bits are 0; the others say x > 0.
        EXPECT_EQ(bit, c < cols && x[i * cols + c] > 0.0f)
            << "row " << i << " column " << c;
      }
    std::vector<float> y(rows * cols, 7.0f);
    ASSERT_EQ(gnnrt_cpu_load_sign(bits.data(), rows, cols, y.data()), GNNRT_OK);
    for (int64_t k = 0; k < rows * cols; ++k)
      EXPECT_EQ(bitsOf(y[k]), bitsOf(x[k] > 0.0f ? 1.0f : 0.0f)) << k;
  }
}

TEST(Sign, ReluGradientsOfTheSignsAreTheOriginals) {
  const int64_t rows = 50, cols = 19, n = rows * cols;
  const std::vector<float> x = awkwardValues(n, 11);
  // The incoming gradient has its own NaNs and infinities: 0 * inf is NaN,
  // and must stay so through the signs.
  std::vector<float> dy = awkwardValues(n, 12);
  std::rotate(dy.begin(), dy.begin() + 1, dy.end());
  std::vector<uint8_t> bits(rows * rowBytes(cols));
  std::vector<float> signs(n);
  ASSERT_EQ(gnnrt_cpu_store_sign(x.data(), rows, cols, bits.data()), GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_load_sign(bits.data(), rows, cols, signs.data()),
            GNNRT_OK);
  for (int kind : {GNNRT_ACT_RELU, GNNRT_ACT_LEAKY_RELU}) {
    SCOPED_TRACE("activation " + std::to_string(kind));
    std::vector<float> want(n), got(n);
    ASSERT_EQ(gnnrt_cpu_activation_grad(kind, x.data(), dy.data(), n, 0.2,
                                        want.data()),
              GNNRT_OK);
    ASSERT_EQ(gnnrt_cpu_activation_grad(kind, signs.data(), dy.data(), n, 0.2,
                                        got.data()),
              GNNRT_OK);
    for (int64_t k = 0; k < n; ++k)
      EXPECT_EQ(bitsOf(got[k]), bitsOf(want[k]))
          << k << ": x " << x[k] << ", dy " << dy[k];
  }
}

// A packed mem.load_sign: the gradient reads the bits themselves and must
// give the original gradient's bits, in place over dy too.
TEST(Sign, GradientsReadTheBitsThemselves) {
  for (int64_t cols : {1, 4, 8, 19, 64, 300}) {
    SCOPED_TRACE(std::to_string(cols) + " columns");
    const int64_t rows = 41, n = rows * cols;
    const std::vector<float> x = awkwardValues(n, 31 + cols);
    std::vector<float> dy = awkwardValues(n, 32 + cols);
    std::rotate(dy.begin(), dy.begin() + 1, dy.end());
    std::vector<uint8_t> bits(rows * rowBytes(cols));
    ASSERT_EQ(gnnrt_cpu_store_sign(x.data(), rows, cols, bits.data()),
              GNNRT_OK);
    for (int kind : {GNNRT_ACT_RELU, GNNRT_ACT_LEAKY_RELU}) {
      SCOPED_TRACE("activation " + std::to_string(kind));
      std::vector<float> want(n), got(n, 7.0f), inPlace = dy;
      ASSERT_EQ(gnnrt_cpu_activation_grad(kind, x.data(), dy.data(), n, 0.2,
                                          want.data()),
                GNNRT_OK);
      ASSERT_EQ(gnnrt_cpu_activation_grad_sign(kind, bits.data(), dy.data(),
                                               rows, cols, 0.2, nullptr, 0, 0,
                                               0, got.data()),
                GNNRT_OK);
      ASSERT_EQ(gnnrt_cpu_activation_grad_sign(
                    kind, bits.data(), inPlace.data(), rows, cols, 0.2, nullptr,
                    0, 0, 0, inPlace.data()),
                GNNRT_OK);
      for (int64_t k = 0; k < n; ++k) {
        EXPECT_EQ(bitsOf(got[k]), bitsOf(want[k]))
            << k << ": x " << x[k] << ", dy " << dy[k];
        EXPECT_EQ(bitsOf(inPlace[k]), bitsOf(want[k])) << k << " in place";
      }
    }
  }
}

TEST(Sign, GradientFromTheBitsAtRowsOfASet) {
  const int64_t n = 300, cols = 13;
  const CsrGraph csr = toCsr(gnnc::ref::randomGraph(n, 4, 5));
  const RowSets sets = receptiveRows(csr.view(), randomMask(n, 5, 9), 2);
  const std::vector<float> x = awkwardValues(n * cols, 41);
  const std::vector<float> dy = awkwardValues(n * cols, 42);
  std::vector<float> want(n * cols);
  ASSERT_EQ(gnnrt_cpu_activation_grad(GNNRT_ACT_LEAKY_RELU, x.data(), dy.data(),
                                      n * cols, 0.3, want.data()),
            GNNRT_OK);
  for (int64_t level : {0, 2})
    for (int zeroRest : {0, 1}) {
      SCOPED_TRACE("level " + std::to_string(level) + ", zero_rest " +
                   std::to_string(zeroRest));
      // Bits only at the set's rows, as gnnrt_cpu_store_sign_rows leaves
      // them: the others must not be read.
      std::vector<uint8_t> bits(n * rowBytes(cols), 0xa5);
      ASSERT_EQ(gnnrt_cpu_store_sign_rows(x.data(), n, cols, sets.data(),
                                          sets.hops, level, bits.data()),
                GNNRT_OK);
      std::vector<float> dx(n * cols, 7.0f);
      ASSERT_EQ(gnnrt_cpu_activation_grad_sign(
                    GNNRT_ACT_LEAKY_RELU, bits.data(), dy.data(), n, cols, 0.3,
                    sets.data(), sets.hops, level, zeroRest, dx.data()),
                GNNRT_OK);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < cols; ++c) {
          const int64_t k = i * cols + c;
          const float expected = sets.level(i) <= level ? want[k]
                                 : zeroRest             ? 0.0f
                                                        : 7.0f;
          EXPECT_EQ(bitsOf(dx[k]), bitsOf(expected))
              << "row " << i << " column " << c;
        }
    }
}

TEST(Sign, RowsOfASetOnly) {
  const int64_t n = 300, cols = 13;
  const CsrGraph csr = toCsr(gnnc::ref::randomGraph(n, 4, 5));
  const RowSets sets = receptiveRows(csr.view(), randomMask(n, 5, 9), 2);
  const std::vector<float> x = awkwardValues(n * cols, 21);
  for (int64_t level : {0, 1, 2}) {
    SCOPED_TRACE("level " + std::to_string(level));
    std::vector<uint8_t> bits(n * rowBytes(cols), 0xa5);
    ASSERT_EQ(gnnrt_cpu_store_sign_rows(x.data(), n, cols, sets.data(),
                                        sets.hops, level, bits.data()),
              GNNRT_OK);
    std::vector<float> y(n * cols, 7.0f);
    ASSERT_EQ(gnnrt_cpu_load_sign_rows(bits.data(), n, cols, sets.data(),
                                       sets.hops, level, y.data()),
              GNNRT_OK);
    int64_t inSet = 0;
    for (int64_t i = 0; i < n; ++i) {
      const bool listed = sets.level(i) <= level;
      inSet += listed;
      for (int64_t c = 0; c < cols; ++c) {
        const float want = listed ? (x[i * cols + c] > 0.0f ? 1.0f : 0.0f)
                                  : 7.0f; // Left as it was.
        EXPECT_EQ(bitsOf(y[i * cols + c]), bitsOf(want))
            << "row " << i << " column " << c;
      }
      if (!listed) {
        for (int64_t b = 0; b < rowBytes(cols); ++b)
          EXPECT_EQ(bits[i * rowBytes(cols) + b], 0xa5) << "row " << i;
      }
    }
    EXPECT_EQ(inSet, sets.counts()[level]);
    EXPECT_GT(inSet, 0);
    EXPECT_LT(inSet, n);
  }
}

TEST(Sign, BadArguments) {
  float x[8] = {};
  uint8_t bits[8] = {};
  EXPECT_EQ(gnnrt_cpu_store_sign(x, -1, 8, bits), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_store_sign(x, 1, -8, bits), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_store_sign(nullptr, 1, 8, bits), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_load_sign(bits, 1, 8, nullptr), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_store_sign_rows(x, 1, 8, nullptr, 0, 0, bits),
            GNNRT_ERR_NULL_POINTER);
  // Only relu and leaky_relu depend on their input through its sign.
  float dy[8] = {}, dx[8] = {};
  EXPECT_EQ(gnnrt_cpu_activation_grad_sign(GNNRT_ACT_ELU, bits, dy, 1, 8, 0.0,
                                           nullptr, 0, 0, 0, dx),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_activation_grad_sign(GNNRT_ACT_RELU, nullptr, dy, 1, 8,
                                           0.0, nullptr, 0, 0, 0, dx),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_activation_grad_sign(GNNRT_ACT_RELU, bits, dy, -1, 8, 0.0,
                                           nullptr, 0, 0, 0, dx),
            GNNRT_ERR_BAD_SIZE);
  // Nothing to do is fine, with or without buffers.
  EXPECT_EQ(gnnrt_cpu_store_sign(nullptr, 0, 8, nullptr), GNNRT_OK);
  EXPECT_EQ(gnnrt_cpu_load_sign(nullptr, 4, 0, nullptr), GNNRT_OK);
}

} // namespace
