//===- DenseRowsTest.cpp - Dense kernels restricted to receptive rows -----===//
//
// The dense kernels that gnn-restrict-rows calls, against the whole ones:
// a fused element-wise chain (bias, activations, dropout, a product) at
// one set's rows must give the fused chain's bits there and +0.0 elsewhere,
// at widths that start rows inside a dropout's Philox block, in place, and
// with 1 and 2 threads; a sum over rows must give gnnrt_cpu_reduce's bits
// when the rows it leaves out are zero; the dense product must agree with
// gnnrt_cpu_matmul (to rounding: BLAS blocks fewer rows its own way). The
// rows a kernel may not read hold NaN, so a kernel that reads them fails,
// and outputs start as NaN, so a row a kernel forgets shows.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"
#include "FloatBits.h"
#include "RowSetsUtil.h"

#include "gnnrt/Footprint.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace gnnrt::cpu::test;
using gnnrt::cpu::bitsOf;

namespace {

class DenseRowsTest : public ::testing::Test {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }
};

/// \p x with the rows of level > \p level set to \p fill.
std::vector<float> fillRowsAbove(std::vector<float> x, const RowSets &sets,
                                 int64_t level, int64_t d, float fill) {
  for (int64_t i = 0; i < sets.nodes; ++i)
    if (sets.level(i) > level)
      std::fill(x.begin() + i * d, x.begin() + (i + 1) * d, fill);
  return x;
}

/// \p count values in [-1, 1), from \p seed.
std::vector<float> randomValues(int64_t count, uint64_t seed) {
  const gnnc::ref::Tensor t = randomF32({count}, seed);
  return std::vector<float>(t.data.begin(), t.data.end());
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_fused_rows
//===----------------------------------------------------------------------===//

/// bias_add, relu, dropout (stored), then mul by a second input: two
/// outputs, the chain of GCN's hidden layer and of its backward pass.
const gnnrt_fused_op kChain[] = {
    {GNNRT_FUSED_BIAS_ADD, 0, 0, 1, 0, 0, 0, 0},
    {GNNRT_FUSED_ACTIVATION, GNNRT_ACT_RELU, 3, -1, 0.01, 0, 0, 0},
    {GNNRT_FUSED_DROPOUT, 0, 4, -1, 0.5, 17, 3, 1},
    {GNNRT_FUSED_MUL, 0, 5, 2, 0, 0, 0, 0},
};
const int32_t kChainOutputs[] = {5, 6};

TEST_F(DenseRowsTest, FusedRowsHaveTheFusedBits) {
  const int64_t n = 300, hops = 2;
  const RowSets sets = matrixRowSets(n, hops, 41);
  for (int64_t d : {1, 3, 4, 7, 64, 130, 600}) {
    const std::vector<float> x = randomValues(n * d, 1 + d);
    const std::vector<float> bias = randomValues(d, 2 + d);
    const std::vector<float> y = randomValues(n * d, 3 + d);
    std::vector<float> fullA(n * d, NAN), fullB(n * d, NAN);
    const float *in[] = {x.data(), bias.data(), y.data()};
    float *fullOut[] = {fullA.data(), fullB.data()};
    ASSERT_EQ(
        gnnrt_cpu_fused(kChain, 4, n * d, d, in, 3, fullOut, kChainOutputs, 2),
        GNNRT_OK);
    for (int threads : {1, 2})
      for (int64_t level = 0; level <= hops; ++level) {
        SCOPED_TRACE("width " + std::to_string(d) + ", level " +
                     std::to_string(level) + ", threads " +
                     std::to_string(threads));
        gnnrt_cpu_set_num_threads(threads);
        // The rows outside the set are NaN: they must not be read.
        const std::vector<float> xr = fillRowsAbove(x, sets, level, d, NAN);
        const std::vector<float> yr = fillRowsAbove(y, sets, level, d, NAN);
        std::vector<float> a(n * d, NAN), b(n * d, NAN);
        const float *rin[] = {xr.data(), bias.data(), yr.data()};
        float *out[] = {a.data(), b.data()};
        ASSERT_EQ(gnnrt_cpu_fused_rows(kChain, 4, n * d, d, rin, 3, out,
                                       kChainOutputs, 2, sets.data(), hops,
                                       level, 1),
                  GNNRT_OK);
        EXPECT_TRUE(rowsMatch(a, fullA, sets, level, d));
        EXPECT_TRUE(rowsMatch(b, fullB, sets, level, d));
      }
  }
}

TEST_F(DenseRowsTest, FusedRowsWriteOverTheirInput) {
  // The dropout's result stored over x itself, as gnn-assign-buffers may
  // place it when x dies there: the listed rows read x before the other
  // rows are zeroed.
  const int64_t n = 200, d = 9, hops = 1, level = 1;
  const RowSets sets = matrixRowSets(n, hops, 7);
  const gnnrt_fused_op chain[] = {
      {GNNRT_FUSED_DROPOUT, 0, 0, -1, 0.25, 5, 1, 2}};
  const int32_t outputs[] = {1};
  const std::vector<float> x = randomValues(n * d, 8);
  std::vector<float> full(n * d, NAN);
  const float *in[] = {x.data()};
  float *fullOut[] = {full.data()};
  ASSERT_EQ(gnnrt_cpu_fused(chain, 1, n * d, d, in, 1, fullOut, outputs, 1),
            GNNRT_OK);
  std::vector<float> inPlace = x;
  const float *same[] = {inPlace.data()};
  float *out[] = {inPlace.data()};
  ASSERT_EQ(gnnrt_cpu_fused_rows(chain, 1, n * d, d, same, 1, out, outputs, 1,
                                 sets.data(), hops, level, 1),
            GNNRT_OK);
  EXPECT_TRUE(rowsMatch(inPlace, full, sets, level, d));
}

TEST_F(DenseRowsTest, FusedRowsRejectBadArguments) {
  const int64_t n = 20, d = 4;
  const RowSets sets = matrixRowSets(n, 2, 3);
  std::vector<float> x(n * d, 1.0f), bias(d, 0.0f), y(n * d, 0.0f), z(n * d);
  const float *in[] = {x.data(), bias.data(), y.data()};
  float *out[] = {z.data(), z.data()};
  auto call = [&](const int32_t *rowSets, int64_t hops, int64_t level) {
    return gnnrt_cpu_fused_rows(kChain, 4, n * d, d, in, 3, out, kChainOutputs,
                                2, rowSets, hops, level, 1);
  };
  EXPECT_EQ(call(nullptr, 2, 0), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(sets.data(), 2, 3), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), -1, 0), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_fused_rows(kChain, 4, n * d, 3, in, 3, out, kChainOutputs,
                                 2, sets.data(), 2, 0, 1),
            GNNRT_ERR_BAD_SIZE); // n not a multiple of cols
  RowSets tooMany = sets;
  tooMany.buffer[1] = n + 1;
  EXPECT_EQ(call(tooMany.data(), 2, 1), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), 2, 1), GNNRT_OK);
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_reduce_rows
//===----------------------------------------------------------------------===//

TEST_F(DenseRowsTest, ReduceRowsHaveTheReduceBitsOverZeroRows) {
  const int64_t n = 500, hops = 2;
  const RowSets sets = matrixRowSets(n, hops, 19);
  for (int kind : {GNNRT_REDUCE_SUM, GNNRT_REDUCE_MEAN})
    for (int64_t d : {1, 7, 64})
      for (int threads : {1, 2})
        for (int64_t level = 0; level <= hops; ++level) {
          SCOPED_TRACE("kind " + std::to_string(kind) + ", width " +
                       std::to_string(d) + ", level " + std::to_string(level) +
                       ", threads " + std::to_string(threads));
          gnnrt_cpu_set_num_threads(threads);
          const std::vector<float> x = randomValues(n * d, 5 + d);
          std::vector<float> want(d, NAN), got(d, NAN);
          ASSERT_EQ(gnnrt_cpu_reduce(kind,
                                     fillRowsAbove(x, sets, level, d, 0).data(),
                                     n, d, 0, want.data()),
                    GNNRT_OK);
          ASSERT_EQ(gnnrt_cpu_reduce_rows(
                        kind, fillRowsAbove(x, sets, level, d, NAN).data(), n,
                        d, sets.data(), hops, level, got.data()),
                    GNNRT_OK);
          for (int64_t c = 0; c < d; ++c)
            EXPECT_EQ(bitsOf(got[c]), bitsOf(want[c])) << "column " << c;
        }
}

TEST_F(DenseRowsTest, ReduceRowsRejectBadArguments) {
  const int64_t n = 20, d = 3;
  const RowSets sets = matrixRowSets(n, 1, 3);
  std::vector<float> x(n * d, 1.0f), y(d);
  EXPECT_EQ(gnnrt_cpu_reduce_rows(GNNRT_REDUCE_MAX, x.data(), n, d, sets.data(),
                                  1, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_reduce_rows(GNNRT_REDUCE_SUM, x.data(), n, d, nullptr, 1,
                                  0, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_reduce_rows(GNNRT_REDUCE_SUM, x.data(), n, d, sets.data(),
                                  1, 2, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_matmul_rows
//===----------------------------------------------------------------------===//

/// Whether \p got equals \p want to fp32 rounding (relative 1e-5 of the
/// row's largest magnitude: the products' sums may be blocked differently),
/// rows outside R_level of a [rows, d] result being +0.0 exactly when
/// \p sets is given.
::testing::AssertionResult closeRows(const std::vector<float> &got,
                                     const std::vector<float> &want,
                                     int64_t rows, int64_t d,
                                     const RowSets *sets, int64_t level) {
  for (int64_t i = 0; i < rows; ++i) {
    const bool computed = !sets || sets->level(i) <= level;
    float scale = 1e-30f;
    for (int64_t c = 0; c < d; ++c)
      scale = std::max(scale, std::fabs(want[i * d + c]));
    for (int64_t c = 0; c < d; ++c) {
      const float g = got[i * d + c], w = want[i * d + c];
      const bool ok =
          computed ? std::fabs(g - w) <= 1e-5f * scale : bitsOf(g) == 0u;
      if (!ok)
        return ::testing::AssertionFailure()
               << "row " << i << ", column " << c << ": " << g << ", want "
               << (computed ? w : 0.0f);
    }
  }
  return ::testing::AssertionSuccess();
}

TEST_F(DenseRowsTest, MatmulRowsComputeTheListedRows) {
  const int64_t m = 260, hops = 2;
  // A mask of 20% of the rows: sets of 40 to 180 rows.
  const RowSets sets = matrixRowSets(m, hops, 23, 20);
  // k = 1000: the rows are gathered 16 at a time (gnnrt_cpu_matmul's
  // smallest row block; a 256 KiB tile would hold 63), so a set's rows take
  // several tiles, dealt out to the threads.
  for (auto [k, n] :
       {std::pair<int64_t, int64_t>{64, 4}, {4, 64}, {33, 17}, {1000, 40}})
    for (bool transposeB : {false, true})
      for (int64_t level = 0; level <= hops; ++level) {
        SCOPED_TRACE("k " + std::to_string(k) + ", n " + std::to_string(n) +
                     (transposeB ? ", b transposed" : "") + ", level " +
                     std::to_string(level));
        gnnrt_cpu_set_num_threads(1 + level % 2);
        const std::vector<float> a = randomValues(m * k, 9 + k);
        const std::vector<float> b = randomValues(k * n, 10 + n);
        std::vector<float> want(m * n, NAN), got(m * n, NAN);
        ASSERT_EQ(gnnrt_cpu_matmul(a.data(), b.data(), m, n, k, 0, transposeB,
                                   want.data()),
                  GNNRT_OK);
        ASSERT_EQ(
            gnnrt_cpu_matmul_rows(fillRowsAbove(a, sets, level, k, NAN).data(),
                                  b.data(), m, n, k, 0, transposeB, sets.data(),
                                  hops, level, 1, got.data()),
            GNNRT_OK);
        EXPECT_TRUE(closeRows(got, want, m, n, &sets, level));
      }
}

TEST_F(DenseRowsTest, MatmulRowsSumOverTheListedRows) {
  // c = a^T b over the rows of R_level: the others of a and b hold NaN.
  const int64_t rows = 260, hops = 2;
  // A mask of 20% of the rows: sets of 40 to 180 rows.
  const RowSets sets = matrixRowSets(rows, hops, 29, 20);
  // m = 4000: a 256 KiB tile of the contraction holds 16 rows, so the sum
  // adds up several tiles' products.
  for (auto [m, n] : {std::pair<int64_t, int64_t>{64, 4}, {16, 7}, {4000, 40}})
    for (int threads : {1, 2})
      for (int64_t level = 0; level <= hops; ++level) {
        SCOPED_TRACE("m " + std::to_string(m) + ", n " + std::to_string(n) +
                     ", level " + std::to_string(level));
        gnnrt_cpu_set_num_threads(threads);
        const std::vector<float> a = randomValues(rows * m, 11 + m);
        const std::vector<float> b = randomValues(rows * n, 12 + n);
        std::vector<float> want(m * n, NAN), got(m * n, NAN);
        ASSERT_EQ(gnnrt_cpu_matmul(fillRowsAbove(a, sets, level, m, 0).data(),
                                   fillRowsAbove(b, sets, level, n, 0).data(),
                                   m, n, rows, 1, 0, want.data()),
                  GNNRT_OK);
        ASSERT_EQ(gnnrt_cpu_matmul_rows(
                      fillRowsAbove(a, sets, level, m, NAN).data(),
                      fillRowsAbove(b, sets, level, n, NAN).data(), m, n, rows,
                      1, 0, sets.data(), hops, level, 1, got.data()),
                  GNNRT_OK);
        EXPECT_TRUE(closeRows(got, want, m, n, nullptr, level));
      }
}

TEST_F(DenseRowsTest, MatmulInPlaceHasTheSameBits) {
  // c = a b written over a (k == n), whole and at a set's rows: the bits of
  // the product into another buffer. m = 70000 with k = 64 makes blocks of
  // 1104 rows, each copied 1024 rows (a 256 KiB tile) at a time, so a block
  // takes two tiles; 1 and 2 threads.
  const int64_t hops = 1;
  for (auto [m, k] : {std::pair<int64_t, int64_t>{70000, 64}, {260, 17}})
    for (bool transposeB : {false, true})
      for (int threads : {1, 2}) {
        SCOPED_TRACE("m " + std::to_string(m) + ", k " + std::to_string(k) +
                     (transposeB ? ", b transposed" : "") + ", " +
                     std::to_string(threads) + " threads");
        gnnrt_cpu_set_num_threads(threads);
        const std::vector<float> a = randomValues(m * k, 13 + k);
        const std::vector<float> b = randomValues(k * k, 14 + k);
        std::vector<float> want(m * k, NAN), got = a;
        ASSERT_EQ(gnnrt_cpu_matmul(a.data(), b.data(), m, k, k, 0, transposeB,
                                   want.data()),
                  GNNRT_OK);
        ASSERT_EQ(gnnrt_cpu_matmul(got.data(), b.data(), m, k, k, 0, transposeB,
                                   got.data()),
                  GNNRT_OK);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), m * k * 4), 0);
        const RowSets sets = matrixRowSets(m, hops, 31, 20);
        std::vector<float> rowsWant(m * k, NAN), rowsGot = a;
        ASSERT_EQ(gnnrt_cpu_matmul_rows(a.data(), b.data(), m, k, k, 0,
                                        transposeB, sets.data(), hops, 1, 1,
                                        rowsWant.data()),
                  GNNRT_OK);
        ASSERT_EQ(gnnrt_cpu_matmul_rows(rowsGot.data(), b.data(), m, k, k, 0,
                                        transposeB, sets.data(), hops, 1, 1,
                                        rowsGot.data()),
                  GNNRT_OK);
        EXPECT_EQ(std::memcmp(rowsGot.data(), rowsWant.data(), m * k * 4), 0);
      }
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_matmul_tiles: a from host memory a tile of rows at a time
//===----------------------------------------------------------------------===//

/// The rows of R_level of \p a (\p width floats each) in the sets' order:
/// what gnnrt_offload_rows_to_host keeps.
std::vector<float> listedRows(const std::vector<float> &a, const RowSets &sets,
                              int64_t level, int64_t width) {
  std::vector<float> listed;
  const std::vector<int32_t> order = sets.order();
  for (int32_t t = 0; t < sets.counts()[level]; ++t)
    listed.insert(listed.end(), a.begin() + int64_t(order[t]) * width,
                  a.begin() + int64_t(order[t] + 1) * width);
  return listed;
}

TEST_F(DenseRowsTest, MatmulTilesHaveTheDeviceProductsBits) {
  // The whole product and the product at a set's rows, from a whole copy
  // of a or (with sets) its listed rows, through tiles of the planner's
  // size and of a few units, with 1 and 2 threads: the bits of
  // gnnrt_cpu_matmul and gnnrt_cpu_matmul_rows, and the bytes of the rows
  // read counted as moved. 20,000 rows of 64 floats take five 1 MiB tiles;
  // a transposed product's contraction then runs over several tiles of
  // 512-row chunks.
  const int64_t nodes = 20000, hops = 2;
  const RowSets sets = matrixRowSets(nodes, hops, 37, 10);
  struct Shape {
    int64_t width, n;
    bool ta, tb;
  };
  for (Shape shape : {Shape{64, 64, false, false}, Shape{33, 7, false, true},
                      Shape{64, 64, true, false}, Shape{32, 64, true, false},
                      Shape{1000, 5, false, false}})
    for (uint64_t tileBytes :
         {gnnrt::footprint::denseTileBytes(shape.width * 4), uint64_t(300000)})
      for (int threads : {1, 2}) {
        const auto [width, n, ta, tb] = shape;
        SCOPED_TRACE("width " + std::to_string(width) + ", n " +
                     std::to_string(n) + (ta ? ", a transposed" : "") +
                     (tb ? ", b transposed" : "") + ", tile " +
                     std::to_string(tileBytes) + ", " +
                     std::to_string(threads) + " threads");
        gnnrt_cpu_set_num_threads(threads);
        // a is [nodes, width]: c = a b is [nodes, n] (k = width), and
        // c = a^T b is [width, n] (k = nodes).
        const int64_t m = ta ? width : nodes, k = ta ? nodes : width;
        const std::vector<float> a = randomValues(nodes * width, 15 + width);
        const std::vector<float> b = randomValues(k * n, 16 + n);
        std::vector<float> tile(tileBytes / 4);
        std::vector<float> want(m * n, NAN), got(m * n, NAN);
        int64_t moved = 0;
        ASSERT_EQ(
            gnnrt_cpu_matmul(a.data(), b.data(), m, n, k, ta, tb, want.data()),
            GNNRT_OK);
        ASSERT_EQ(gnnrt_cpu_matmul_tiles(a.data(), b.data(), m, n, k, ta, tb,
                                         nullptr, 0, 0, 0, 0, tile.data(),
                                         tileBytes, got.data(), &moved),
                  GNNRT_OK);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), m * n * 4), 0);
        EXPECT_EQ(moved, nodes * width * 4);
        if (ta && tb)
          continue;
        for (int64_t level : {int64_t(0), hops})
          for (int listed : {0, 1}) {
            SCOPED_TRACE("level " + std::to_string(level) +
                         (listed ? ", listed rows" : ", whole copy"));
            std::vector<float> rowsWant(m * n, NAN), rowsGot(m * n, NAN);
            ASSERT_EQ(gnnrt_cpu_matmul_rows(a.data(), b.data(), m, n, k, ta, tb,
                                            sets.data(), hops, level, 1,
                                            rowsWant.data()),
                      GNNRT_OK);
            const std::vector<float> host =
                listed ? listedRows(a, sets, level, width) : a;
            moved = 0;
            ASSERT_EQ(gnnrt_cpu_matmul_tiles(host.data(), b.data(), m, n, k, ta,
                                             tb, sets.data(), hops, level,
                                             listed, 1, tile.data(), tileBytes,
                                             rowsGot.data(), &moved),
                      GNNRT_OK);
            EXPECT_EQ(std::memcmp(rowsGot.data(), rowsWant.data(), m * n * 4),
                      0);
            EXPECT_EQ(moved, sets.counts()[level] * width * 4);
          }
      }
}

TEST_F(DenseRowsTest, MatmulTilesRejectBadArguments) {
  const int64_t m = 20, n = 3, k = 4;
  const RowSets sets = matrixRowSets(m, 1, 3);
  std::vector<float> a(m * k, 1.0f), b(k * n, 1.0f), c(m * n), tile(1024);
  int64_t moved = 0;
  auto call = [&](const int32_t *rowSets, int listed, int64_t tileBytes,
                  float *out) {
    return gnnrt_cpu_matmul_tiles(a.data(), b.data(), m, n, k, 0, 0, rowSets, 1,
                                  1, listed, 1, tile.data(), tileBytes, out,
                                  &moved);
  };
  EXPECT_EQ(call(sets.data(), 0, 4096, c.data()), GNNRT_OK);
  // A tile without room for one block of rows.
  EXPECT_EQ(call(nullptr, 0, 4 * k, c.data()), GNNRT_ERR_BAD_SIZE);
  // Listed rows need the sets that list them; c may not be a.
  EXPECT_EQ(call(nullptr, 1, 4096, c.data()), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(nullptr, 0, 4096, a.data()), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_matmul_tiles(a.data(), b.data(), m, n, k, 0, 0, nullptr,
                                   0, 0, 0, 0, nullptr, 4096, c.data(), &moved),
            GNNRT_ERR_NULL_POINTER);
}

TEST_F(DenseRowsTest, MatmulRowsRejectBadArguments) {
  const int64_t m = 20, n = 3, k = 4;
  const RowSets sets = matrixRowSets(m, 1, 3);
  std::vector<float> a(m * k, 1.0f), b(m * n, 1.0f), c(m * n);
  auto call = [&](const int32_t *rowSets, int64_t level, int ta, int tb) {
    return gnnrt_cpu_matmul_rows(a.data(), b.data(), ta ? k : m, n, ta ? m : k,
                                 ta, tb, rowSets, 1, level, 1, c.data());
  };
  EXPECT_EQ(call(nullptr, 0, 0, 0), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(sets.data(), 2, 0, 0), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), 0, 1, 1), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), 1, 0, 0), GNNRT_OK);
}

//===----------------------------------------------------------------------===//
// zero_rest = 0
//===----------------------------------------------------------------------===//

TEST_F(DenseRowsTest, WithoutZeroRestTheOtherRowsAreLeftAlone) {
  // Each kernel with zero_rest = 0 computes the listed rows as with 1 and
  // leaves every other row holding what it held (here -7).
  const int64_t n = 120, d = 8, hops = 2, level = 1;
  const CsrGraph csr = toCsr(gnnc::ref::randomGraph(n, 4, 5));
  const gnnrt_graph g = csr.view();
  const RowSets sets = receptiveRows(g, randomMask(n, 5, 6), hops);
  const std::vector<float> x = randomValues(n * d, 7);
  const std::vector<float> w = randomValues(d * 3, 8);
  auto check = [&](int64_t width, auto call) {
    std::vector<float> zeroed(n * width, NAN), kept(n * width, -7.0f);
    ASSERT_EQ(call(1, zeroed.data()), GNNRT_OK);
    ASSERT_EQ(call(0, kept.data()), GNNRT_OK);
    EXPECT_TRUE(rowsMatch(zeroed, zeroed, sets, level, width));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < width; ++c) {
        const float k = kept[i * width + c], z = zeroed[i * width + c];
        if (sets.level(i) <= level)
          EXPECT_EQ(bitsOf(k), bitsOf(z)) << "row " << i;
        else
          EXPECT_EQ(k, -7.0f) << "row " << i;
      }
  };
  {
    SCOPED_TRACE("spmm_rows");
    check(d, [&](int zeroRest, float *y) {
      return gnnrt_cpu_spmm_rows(&g, GNNRT_AGGR_SUM, x.data(), d, nullptr,
                                 sets.data(), hops, level, hops + 1, zeroRest,
                                 y);
    });
  }
  {
    SCOPED_TRACE("matmul_rows");
    check(3, [&](int zeroRest, float *y) {
      return gnnrt_cpu_matmul_rows(x.data(), w.data(), n, 3, d, 0, 0,
                                   sets.data(), hops, level, zeroRest, y);
    });
  }
  {
    SCOPED_TRACE("fused_rows");
    const gnnrt_fused_op relu[] = {
        {GNNRT_FUSED_ACTIVATION, GNNRT_ACT_RELU, 0, -1, 0.01, 0, 0, 0}};
    const int32_t outputs[] = {1};
    const float *in[] = {x.data()};
    check(d, [&](int zeroRest, float *y) {
      float *out[] = {y};
      return gnnrt_cpu_fused_rows(relu, 1, n * d, d, in, 1, out, outputs, 1,
                                  sets.data(), hops, level, zeroRest);
    });
  }
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_slice_rows, gnnrt_cpu_insert_columns_rows
//===----------------------------------------------------------------------===//

// A split aggregation's block: the slice copies the set's rows of its
// columns (the others +0.0 with zero_rest, untouched without) and the
// insert writes the block's columns at the set's rows and nothing else,
// in place or into another buffer. Widths with and without a compile-time
// loop, 1 and 2 threads, every level.
TEST_F(DenseRowsTest, SliceAndInsertColumnsAtTheSetsRows) {
  const int64_t n = 300, hops = 2, cols = 23;
  const RowSets sets = matrixRowSets(n, hops, 53, 10);
  const std::vector<float> x = randomValues(n * cols, 54);
  for (int64_t width : {1, 5, 8, 16}) {
    const int64_t offset = cols - width - 2;
    std::vector<float> whole(n * width, NAN);
    ASSERT_EQ(gnnrt_cpu_slice(x.data(), n, cols, offset, width, whole.data()),
              GNNRT_OK);
    const std::vector<float> block = randomValues(n * width, 55 + width);
    for (int threads : {1, 2})
      for (int64_t level = 0; level <= hops; ++level) {
        SCOPED_TRACE("width " + std::to_string(width) + ", level " +
                     std::to_string(level) + ", threads " +
                     std::to_string(threads));
        gnnrt_cpu_set_num_threads(threads);
        std::vector<float> y(n * width, NAN);
        ASSERT_EQ(gnnrt_cpu_slice_rows(x.data(), n, cols, offset, width,
                                       sets.data(), hops, level, 1, y.data()),
                  GNNRT_OK);
        EXPECT_TRUE(rowsMatch(y, whole, sets, level, width));
        std::vector<float> kept(n * width, 7.0f);
        ASSERT_EQ(gnnrt_cpu_slice_rows(x.data(), n, cols, offset, width,
                                       sets.data(), hops, level, 0,
                                       kept.data()),
                  GNNRT_OK);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t c = 0; c < width; ++c)
            ASSERT_EQ(
                bitsOf(kept[i * width + c]),
                bitsOf(sets.level(i) <= level ? whole[i * width + c] : 7.0f));

        // The insert's expected result: x, with the block at the rows of
        // the set.
        std::vector<float> want = x;
        for (int64_t i = 0; i < n; ++i)
          if (sets.level(i) <= level)
            std::memcpy(&want[i * cols + offset], &block[i * width],
                        sizeof(float) * width);
        std::vector<float> into(n * cols, NAN);
        ASSERT_EQ(gnnrt_cpu_insert_columns_rows(x.data(), block.data(), n, cols,
                                                offset, width, sets.data(),
                                                hops, level, into.data()),
                  GNNRT_OK);
        std::vector<float> inPlace = x;
        ASSERT_EQ(gnnrt_cpu_insert_columns_rows(
                      inPlace.data(), block.data(), n, cols, offset, width,
                      sets.data(), hops, level, inPlace.data()),
                  GNNRT_OK);
        for (int64_t k = 0; k < n * cols; ++k) {
          ASSERT_EQ(bitsOf(into[k]), bitsOf(want[k])) << "element " << k;
          ASSERT_EQ(bitsOf(inPlace[k]), bitsOf(want[k])) << "element " << k;
        }
      }
  }
}

// GAT's heads joined at the set's rows: each listed row is the whole
// concat's (its parts side by side, of different widths, one empty), the
// others +0.0 with zero_rest and untouched without; 1 and 2 threads,
// every level.
TEST_F(DenseRowsTest, ConcatAtTheSetsRows) {
  const int64_t n = 300, hops = 2;
  const RowSets sets = matrixRowSets(n, hops, 71, 10);
  const int64_t widths[] = {8, 1, 0, 5};
  const int64_t total = 14;
  std::vector<std::vector<float>> parts;
  for (int64_t i = 0; i < 4; ++i)
    parts.push_back(randomValues(n * widths[i] + 1, 72 + i));
  const float *inputs[] = {parts[0].data(), parts[1].data(), parts[2].data(),
                           parts[3].data()};
  std::vector<float> whole(n * total, NAN);
  ASSERT_EQ(gnnrt_cpu_concat(inputs, widths, 4, n, whole.data()), GNNRT_OK);
  for (int threads : {1, 2})
    for (int64_t level = 0; level <= hops; ++level) {
      SCOPED_TRACE("level " + std::to_string(level) + ", threads " +
                   std::to_string(threads));
      gnnrt_cpu_set_num_threads(threads);
      std::vector<float> y(n * total, NAN);
      ASSERT_EQ(gnnrt_cpu_concat_rows(inputs, widths, 4, n, sets.data(), hops,
                                      level, 1, y.data()),
                GNNRT_OK);
      EXPECT_TRUE(rowsMatch(y, whole, sets, level, total));
      std::vector<float> kept(n * total, 7.0f);
      ASSERT_EQ(gnnrt_cpu_concat_rows(inputs, widths, 4, n, sets.data(), hops,
                                      level, 0, kept.data()),
                GNNRT_OK);
      for (int64_t k = 0; k < n * total; ++k)
        ASSERT_EQ(bitsOf(kept[k]),
                  bitsOf(sets.level(k / total) <= level ? whole[k] : 7.0f))
            << "element " << k;
    }
  std::vector<float> y(n * total);
  EXPECT_EQ(gnnrt_cpu_concat_rows(inputs, widths, 4, n, nullptr, hops, 0, 1,
                                  y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_concat_rows(inputs, widths, 4, n, sets.data(), hops,
                                  hops + 1, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
}

TEST_F(DenseRowsTest, SliceAndInsertColumnsRowsRejectBadArguments) {
  const int64_t n = 40, hops = 1;
  const RowSets sets = matrixRowSets(n, hops, 61);
  std::vector<float> x(n * 6, 1.0f), y(n * 6, 0.0f), b(n * 2, 2.0f);
  EXPECT_EQ(
      gnnrt_cpu_slice_rows(x.data(), n, 6, 0, 2, nullptr, hops, 0, 1, y.data()),
      GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_slice_rows(x.data(), n, 6, 0, 2, sets.data(), hops,
                                 hops + 1, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_slice_rows(x.data(), n, 6, 5, 2, sets.data(), hops, 0, 1,
                                 y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_insert_columns_rows(x.data(), b.data(), n, 6, 0, 2,
                                          nullptr, hops, 0, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_insert_columns_rows(x.data(), b.data(), n, 6, 0, 2,
                                          sets.data(), -1, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_insert_columns_rows(x.data(), b.data(), n, 6, 5, 2,
                                          sets.data(), hops, 0, y.data()),
            GNNRT_ERR_BAD_SIZE);
}

} // namespace
