//===- CsrMatrixTest.cpp - The CSR feature-matrix kernels -----------------===//
//
// gnnrt_cpu_csr_matrix_build against a straightforward transpose and on
// malformed arrays; gnnrt_cpu_csr_dropout bit for bit against
// gnnrt_cpu_dropout of the dense matrix, which is what lets a program with
// sparse features compute the values of its dense form; gnnrt_cpu_csr_matmul
// against a double-precision product, bit for bit against its documented
// summation order, and across thread counts. Every kernel writes over
// sentinels, so an element it skips shows, and every rejected call must
// leave its output untouched.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Kernels.h"
#include "gnnrt/Philox.h"

#include "CsrBuffer.h"
#include "FloatBits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using gnnrt::cpu::bitsOf;
using gnnrt::cpu::fromBits;
using gnnrt::cpu::test::nextRandom;
using gnnrt::cpu::test::randomDense;
using gnnrt::cpu::test::uniform;

/// A value dropout could get wrong: signed zeros (an explicit +0.0 slot
/// too), NaNs with payloads (quiet and signalling), infinities, subnormals.
float specialValue(uint64_t &state) {
  const uint64_t r = nextRandom(state);
  const uint32_t payload = static_cast<uint32_t>(r >> 40) & 0x3FFFFFu;
  switch (r % 8) {
  case 0:
    return -0.0f;
  case 1:
    return 0.0f;
  case 2:
    return fromBits(0x7FC00000u | payload); // quiet NaN
  case 3:
    return fromBits(0xFF800000u | (payload | 1)); // signalling NaN
  case 4:
    return -std::numeric_limits<float>::infinity();
  case 5:
    return fromBits(payload | 1); // subnormal
  default:
    return fromBits(static_cast<uint32_t>(r >> 32)); // any bits at all
  }
}

/// A CSR matrix as plain arrays, the input of gnnrt_cpu_csr_matrix_build.
struct Csr {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> indptr{0}, indices;
  std::vector<float> values;

  int64_t nnz() const { return static_cast<int64_t>(indices.size()); }

  /// The dense row-major matrix: +0.0 outside the pattern.
  std::vector<float> dense() const {
    std::vector<float> d(static_cast<size_t>(rows * cols), 0.0f);
    for (int64_t i = 0; i < rows; ++i)
      for (int32_t s = indptr[i]; s < indptr[i + 1]; ++s)
        d[static_cast<size_t>(i * cols + indices[s])] = values[s];
    return d;
  }
};

/// A random \p rows x \p cols matrix with about \p density of its elements
/// in the pattern. Every fifth row and every seventh column stay empty;
/// with \p special, one value in four is a special value.
Csr randomCsr(int64_t rows, int64_t cols, double density, uint64_t seed,
              bool special = false) {
  Csr m;
  m.rows = rows;
  m.cols = cols;
  uint64_t state = seed;
  const uint64_t cut = static_cast<uint64_t>(density * 0x1p32);
  for (int64_t i = 0; i < rows; ++i) {
    if (i % 5 != 3)
      for (int64_t j = 0; j < cols; ++j)
        if (j % 7 != 2 && (nextRandom(state) >> 32) < cut) {
          m.indices.push_back(static_cast<int32_t>(j));
          m.values.push_back(special && nextRandom(state) % 4 == 0
                                 ? specialValue(state)
                                 : uniform(state));
        }
    m.indptr.push_back(static_cast<int32_t>(m.indices.size()));
  }
  return m;
}

using Buffer = gnnrt::cpu::test::CsrBuffer;

/// \p m built into a buffer; the build must succeed.
Buffer build(const Csr &m) {
  Buffer buf(m.rows, m.cols, m.nnz());
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(m.indptr.data(), m.indices.data(),
                                       m.values.data(), m.rows, m.cols, m.nnz(),
                                       buf.data()),
            GNNRT_OK);
  return buf;
}

template <typename T> std::vector<T> section(const T *p, int64_t count) {
  return std::vector<T>(p, p + count);
}

std::vector<uint32_t> bitsOf(const std::vector<float> &v) {
  std::vector<uint32_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    b[i] = bitsOf(v[i]);
  return b;
}

/// Shapes with empty matrices, rows and columns, one element, a full
/// matrix, and a few sparse ones.
struct Shape {
  int64_t rows, cols;
  double density;
};
constexpr Shape kShapes[] = {
    {0, 0, 0.5}, {0, 9, 0.5},   {9, 0, 0.5},   {1, 1, 1.0},   {6, 4, 0.0},
    {6, 4, 1.0}, {13, 17, 0.3}, {50, 40, 0.1}, {40, 50, 0.7}, {301, 97, 0.05}};

std::string describe(const Shape &s, uint64_t seed) {
  return std::to_string(s.rows) + " x " + std::to_string(s.cols) +
         ", density " + std::to_string(s.density) + ", seed " +
         std::to_string(seed);
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_csr_matrix_build
//===----------------------------------------------------------------------===//

TEST(CsrBuild, SectionsMatchAStraightforwardTranspose) {
  for (const Shape &shape : kShapes)
    for (uint64_t seed : {1, 2}) {
      SCOPED_TRACE(describe(shape, seed));
      const Csr m = randomCsr(shape.rows, shape.cols, shape.density, seed);
      Buffer buf = build(m);
      const gnnrt_csr_matrix v = buf.view();
      const int64_t nnz = m.nnz();

      // The CSR sections are copies.
      EXPECT_EQ(section(v.indptr, m.rows + 1), m.indptr);
      EXPECT_EQ(section(v.indices, nnz), m.indices);
      EXPECT_EQ(bitsOf(section(v.values, nnz)), bitsOf(m.values));

      // The CSC sections: columns in order, rows in order within each,
      // found by scanning every row for the column.
      std::vector<int32_t> colptr{0}, rowidx, perm;
      for (int64_t j = 0; j < m.cols; ++j) {
        for (int64_t i = 0; i < m.rows; ++i)
          for (int32_t s = m.indptr[i]; s < m.indptr[i + 1]; ++s)
            if (m.indices[s] == j) {
              rowidx.push_back(static_cast<int32_t>(i));
              perm.push_back(s);
            }
        colptr.push_back(static_cast<int32_t>(rowidx.size()));
      }
      EXPECT_EQ(section(v.colptr, m.cols + 1), colptr);
      EXPECT_EQ(section(v.rowidx, nnz), rowidx);
      EXPECT_EQ(section(v.perm, nnz), perm);
    }
}

TEST(CsrBuild, EmptyArraysMayBeNull) {
  const int32_t indptr[4] = {0, 0, 0, 0};
  Buffer buf(3, 5, 0);
  ASSERT_EQ(
      gnnrt_cpu_csr_matrix_build(indptr, nullptr, nullptr, 3, 5, 0, buf.data()),
      GNNRT_OK);
  const gnnrt_csr_matrix v = buf.view();
  EXPECT_EQ(section(v.indptr, 4), std::vector<int32_t>(4, 0));
  EXPECT_EQ(section(v.colptr, 6), std::vector<int32_t>(6, 0));
}

class CsrBuildRejects : public ::testing::Test {
protected:
  /// Rows {0, 2}, {}, {1, 3, 4}, {4} of a 4 x 5 matrix.
  Csr m = [] {
    Csr c;
    c.rows = 4;
    c.cols = 5;
    c.indptr = {0, 2, 2, 5, 6};
    c.indices = {0, 2, 1, 3, 4, 4};
    c.values = {1, 2, 3, 4, 5, 6};
    return c;
  }();
  Buffer buf{4, 5, 6};

  int run(const Csr &c) {
    return gnnrt_cpu_csr_matrix_build(c.indptr.data(), c.indices.data(),
                                      c.values.data(), c.rows, c.cols, c.nnz(),
                                      buf.data());
  }

  /// \p c is rejected with \p status and the buffer is untouched.
  void expectRejected(const Csr &c, int status, const char *what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(run(c), status);
    EXPECT_TRUE(buf.untouched());
  }
};

TEST_F(CsrBuildRejects, MalformedOffsets) {
  {
    Buffer ok(4, 5, 6);
    ASSERT_EQ(gnnrt_cpu_csr_matrix_build(m.indptr.data(), m.indices.data(),
                                         m.values.data(), 4, 5, 6, ok.data()),
              GNNRT_OK)
        << "the unmodified matrix is well formed";
  }
  Csr c = m;
  c.indptr[0] = 1;
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "indptr[0] != 0");
  c = m;
  c.indptr[1] = 3; // 3 > indptr[2] = 2, the ends still 0 and 6
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "decreasing indptr");
  c = m;
  c.indptr[4] = 5;
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "indptr[rows] < nnz");
  c = m;
  c.indptr[4] = 7;
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "indptr[rows] > nnz");

  // Rows (0, 1, 2), slots 3 .. 1, (1, 2, 3): every row taken alone is
  // sorted and in range, and the ends are right; only the order of the
  // offsets is wrong (and the rows would place six slots in four).
  Csr overlap;
  overlap.rows = 3;
  overlap.cols = 5;
  overlap.indptr = {0, 3, 1, 4};
  overlap.indices = {0, 1, 2, 3};
  overlap.values = {1, 2, 3, 4};
  Buffer small(3, 5, 4);
  EXPECT_EQ(
      gnnrt_cpu_csr_matrix_build(overlap.indptr.data(), overlap.indices.data(),
                                 overlap.values.data(), 3, 5, 4, small.data()),
      GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_TRUE(small.untouched());
}

TEST_F(CsrBuildRejects, MalformedColumns) {
  Csr c = m;
  c.indices[5] = 5;
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "column == cols");
  c = m;
  c.indices[0] = -1;
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "negative column");
  c = m;
  std::swap(c.indices[2], c.indices[3]);
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "unsorted row");
  c = m;
  c.indices[3] = 1;
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "duplicate column");
  c = m;
  c.indices[4] = 3;
  c.indices[3] = 3;
  expectRejected(c, GNNRT_ERR_BAD_ARGUMENT, "duplicate at the end of a row");
}

TEST_F(CsrBuildRejects, NullPointersAndBadSizes) {
  const int32_t *p = m.indptr.data(), *ix = m.indices.data();
  const float *vals = m.values.data();
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(nullptr, ix, vals, 4, 5, 6, buf.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, nullptr, vals, 4, 5, 6, buf.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, nullptr, 4, 5, 6, buf.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, 4, 5, 6, nullptr),
            GNNRT_ERR_NULL_POINTER);
  // indptr has rows + 1 >= 1 entries, so it is never optional.
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(nullptr, nullptr, nullptr, 0, 0, 0,
                                       buf.data()),
            GNNRT_ERR_NULL_POINTER);

  const int64_t big = int64_t(1) << 31; // one past the largest int32 index
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, -1, 5, 6, buf.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, 4, -5, 6, buf.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, 4, 5, -6, buf.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, big, 5, 6, buf.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, 4, big, 6, buf.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, 4, 5, big, buf.data()),
            GNNRT_ERR_BAD_SIZE);
  // More slots than elements.
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(p, ix, vals, 1, 5, 6, buf.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_TRUE(buf.untouched());
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_csr_dropout
//===----------------------------------------------------------------------===//

class CsrDropout : public ::testing::Test {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }

  /// The dropout of \p x into a fresh buffer, which the call must fill.
  Buffer dropout(const Buffer &x, uint64_t seed, uint64_t step, uint64_t stream,
                 double p) {
    Buffer y(x.rows, x.cols, x.nnz);
    EXPECT_EQ(gnnrt_cpu_csr_dropout(x.data(), x.rows, x.cols, x.nnz, seed, step,
                                    stream, p, y.data()),
              GNNRT_OK);
    return y;
  }

  /// The sparse dropout of \p m, densified, has the bits of the dense
  /// dropout of \p m densified, and the pattern of \p m.
  void check(const Csr &m, uint64_t seed, uint64_t step, uint64_t stream,
             double p) {
    char pText[32];
    std::snprintf(pText, sizeof(pText), "%.17g", p);
    SCOPED_TRACE(std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                 ", nnz " + std::to_string(m.nnz()) + ", p " + pText +
                 ", seed " + std::to_string(seed) + ", step " +
                 std::to_string(step) + ", stream " + std::to_string(stream));
    Buffer x = build(m);
    Buffer y = dropout(x, seed, step, stream, p);
    const gnnrt_csr_matrix xv = x.view(), yv = y.view();
    const int64_t nnz = m.nnz();
    EXPECT_EQ(section(yv.indptr, m.rows + 1), section(xv.indptr, m.rows + 1));
    EXPECT_EQ(section(yv.indices, nnz), section(xv.indices, nnz));
    EXPECT_EQ(section(yv.colptr, m.cols + 1), section(xv.colptr, m.cols + 1));
    EXPECT_EQ(section(yv.rowidx, nnz), section(xv.rowidx, nnz));
    EXPECT_EQ(section(yv.perm, nnz), section(xv.perm, nnz));

    const std::vector<float> dense = m.dense();
    std::vector<float> want(dense.size(), std::nanf("3"));
    ASSERT_EQ(gnnrt_cpu_dropout(dense.data(), m.rows * m.cols, seed, step,
                                stream, p, want.data()),
              GNNRT_OK);
    Csr got = m;
    got.values = section(yv.values, nnz);
    const std::vector<float> gotDense = got.dense();
    for (size_t e = 0; e < want.size(); ++e)
      if (bitsOf(gotDense[e]) != bitsOf(want[e])) {
        ADD_FAILURE() << "element " << e << " (" << e / m.cols << ", "
                      << e % m.cols << "): x " << std::hex << bitsOf(dense[e])
                      << ", got " << bitsOf(gotDense[e]) << ", want "
                      << bitsOf(want[e]);
        break;
      }
  }
};

TEST_F(CsrDropout, EqualsTheDenseDropoutBitForBit) {
  gnnrt_cpu_set_num_threads(1);
  // The seed exceeds 2^32 so both key words matter; step and stream too,
  // so that their truncation to 32 bits is exercised.
  const uint64_t seed = (uint64_t(5) << 32) | 17;
  const uint64_t step = (uint64_t(3) << 32) | 9,
                 stream = (uint64_t(1) << 33) | 6;
  for (const Shape &shape : kShapes) {
    const Csr m = randomCsr(shape.rows, shape.cols, shape.density, 7, true);
    for (double p : {0.0, 0.5, 0.6, 0.999999})
      check(m, seed, step, stream, p);
  }
}

TEST_F(CsrDropout, ManyKeysAndExtremeRates) {
  gnnrt_cpu_set_num_threads(1);
  const Csr m = randomCsr(37, 53, 0.4, 11, true);
  for (uint64_t seed : {uint64_t(0), uint64_t(1), ~uint64_t(0)})
    for (uint64_t step : {uint64_t(0), uint64_t(0xFFFFFFFF)})
      for (uint64_t stream : {uint64_t(0), uint64_t(77)})
        check(m, seed, step, stream, 0.3);
  // Thresholds 1 and 2^32 - 1, and p above 1 - 2^-32, where nothing is
  // kept.
  for (double p : {0x1p-32, 1 - 0x1p-32, std::nextafter(1.0, 0.0)})
    check(m, 3, 4, 5, p);
}

TEST_F(CsrDropout, ThreadTeamsGiveTheSameBits) {
  gnnrt_cpu_set_num_threads(4);
  if (gnnrt_cpu_get_num_threads() < 2)
    GTEST_SKIP() << "the runtime was built without OpenMP";
  // Enough slots for the parallel loops.
  const Csr m = randomCsr(3000, 700, 0.05, 13, true);
  const Buffer x = build(m);
  for (double p : {0.0, 0.5, std::nextafter(1.0, 0.0)}) {
    gnnrt_cpu_set_num_threads(1);
    const Buffer one = dropout(x, 99, 7, 1, p);
    gnnrt_cpu_set_num_threads(4);
    const Buffer four = dropout(x, 99, 7, 1, p);
    EXPECT_EQ(std::memcmp(one.data(), four.data(), one.bytes()), 0)
        << "p " << p;
    check(m, 99, 7, 1, p);
  }
}

TEST_F(CsrDropout, RejectsBadArguments) {
  const Csr m = randomCsr(6, 8, 0.5, 5);
  Buffer x = build(m);
  Buffer y(m.rows, m.cols, m.nnz());
  const int64_t r = m.rows, c = m.cols, z = m.nnz();
  for (double p :
       {-0.1, 1.0, 1.5, std::nan(""), std::numeric_limits<double>::infinity()})
    EXPECT_EQ(gnnrt_cpu_csr_dropout(x.data(), r, c, z, 1, 2, 3, p, y.data()),
              GNNRT_ERR_BAD_ARGUMENT)
        << "p " << p;
  EXPECT_EQ(gnnrt_cpu_csr_dropout(nullptr, r, c, z, 1, 2, 3, 0.5, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_dropout(x.data(), r, c, z, 1, 2, 3, 0.5, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_dropout(x.data(), -1, c, z, 1, 2, 3, 0.5, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(
      gnnrt_cpu_csr_dropout(x.data(), r, c, r * c + 1, 1, 2, 3, 0.5, y.data()),
      GNNRT_ERR_BAD_SIZE);
  // A buffer whose offsets do not span nnz slots (nnz one too small).
  EXPECT_EQ(
      gnnrt_cpu_csr_dropout(x.data(), r, c, z - 1, 1, 2, 3, 0.5, y.data()),
      GNNRT_ERR_BAD_ARGUMENT);
  x.view().colptr[c] = static_cast<int32_t>(z - 1);
  EXPECT_EQ(gnnrt_cpu_csr_dropout(x.data(), r, c, z, 1, 2, 3, 0.5, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_TRUE(y.untouched());
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_csr_matmul
//===----------------------------------------------------------------------===//

/// The product with \p m, or with its transpose when \p transpose, summed
/// in the order the ABI documents, in fp32: CSR slot order for `A b`, CSC
/// (increasing row) order for `A^T b`. The product goes through a volatile
/// so that this file's flags (it is not built with -ffp-contract=off)
/// cannot fuse it with the sum.
std::vector<float> orderedProduct(const Csr &m, bool transpose,
                                  const std::vector<float> &b, int64_t n) {
  const int64_t outer = transpose ? m.cols : m.rows;
  std::vector<float> c(static_cast<size_t>(outer * n), 0.0f);
  // For A^T b, slots in increasing row order per column are what visiting
  // rows in order and scattering gives.
  for (int64_t i = 0; i < m.rows; ++i)
    for (int32_t s = m.indptr[i]; s < m.indptr[i + 1]; ++s) {
      const int64_t j = m.indices[s];
      const int64_t out = transpose ? j : i, in = transpose ? i : j;
      for (int64_t k = 0; k < n; ++k) {
        volatile float product = m.values[s] * b[in * n + k];
        c[out * n + k] += product;
      }
    }
  return c;
}

class CsrMatmul : public ::testing::Test {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }

  /// The kernel's result over an output full of NaNs; the call must succeed.
  static std::vector<float> run(const Buffer &a, bool transpose,
                                const std::vector<float> &b, int64_t n) {
    const int64_t outer = transpose ? a.cols : a.rows;
    std::vector<float> c(static_cast<size_t>(outer * n), std::nanf("5"));
    EXPECT_EQ(gnnrt_cpu_csr_matmul(a.data(), a.rows, a.cols, a.nnz,
                                   transpose ? 1 : 0, b.data(), n, c.data()),
              GNNRT_OK);
    return c;
  }

  /// Every element within the fp32 error bound of the exact product.
  static void expectClose(const Csr &m, bool transpose,
                          const std::vector<float> &b, int64_t n,
                          const std::vector<float> &got) {
    const int64_t outer = transpose ? m.cols : m.rows;
    std::vector<double> sum(static_cast<size_t>(outer * n), 0.0),
        absSum(sum.size(), 0.0);
    std::vector<int64_t> terms(static_cast<size_t>(outer), 0);
    for (int64_t i = 0; i < m.rows; ++i)
      for (int32_t s = m.indptr[i]; s < m.indptr[i + 1]; ++s) {
        const int64_t j = m.indices[s];
        const int64_t out = transpose ? j : i, in = transpose ? i : j;
        ++terms[out];
        for (int64_t k = 0; k < n; ++k) {
          // Exact: a product of two floats fits in a double.
          const double product =
              static_cast<double>(m.values[s]) * b[in * n + k];
          sum[out * n + k] += product;
          absSum[out * n + k] += std::fabs(product);
        }
      }
    // An element is a sum of K fp32 products accumulated in fp32, K the
    // slots of its row (or column): each product and each addition rounds
    // once, so the error is at most about (K + 1) u times the sum of the
    // magnitudes of the products (u = 2^-24; Higham, Accuracy and Stability
    // of Numerical Algorithms, 3.1). The double sum is exact to far below
    // that. A wrong index or value is off by a whole term.
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < n; ++k) {
        const size_t e = static_cast<size_t>(o * n + k);
        const double tol = (terms[o] + 1) * 0x1p-24 * 1.01 * absSum[e];
        ASSERT_LE(std::fabs(got[e] - sum[e]), tol)
            << "row " << o << ", column " << k << ": got " << got[e]
            << ", want " << sum[e];
      }
  }
};

TEST_F(CsrMatmul, MatchesADoublePrecisionProduct) {
  gnnrt_cpu_set_num_threads(1);
  for (const Shape &shape : kShapes)
    for (int64_t n : {0, 1, 5, 16, 17, 64})
      for (bool transpose : {false, true}) {
        SCOPED_TRACE(describe(shape, 3) + ", n " + std::to_string(n) +
                     (transpose ? ", A^T b" : ", A b"));
        const Csr m = randomCsr(shape.rows, shape.cols, shape.density, 3);
        const Buffer a = build(m);
        const int64_t inner = transpose ? m.rows : m.cols;
        const std::vector<float> b = randomDense(inner * n, 4 + n);
        const std::vector<float> c = run(a, transpose, b, n);
        expectClose(m, transpose, b, n, c);
        // The documented order, to the bit; and empty rows are +0.0.
        EXPECT_EQ(bitsOf(c), bitsOf(orderedProduct(m, transpose, b, n)));
      }
}

// A dropped-out matrix stores half its values as +0.0. With b finite the
// fixed widths of 32 and more skip those slots, which may change no bit;
// with an infinity or NaN in b they may not be skipped (0 * inf is NaN).
TEST_F(CsrMatmul, ZeroValuesAreSkippedOnlyWhenThatIsExact) {
  gnnrt_cpu_set_num_threads(1);
  Csr m = randomCsr(300, 200, 0.1, 31);
  uint64_t state = 32;
  for (float &v : m.values)
    if (nextRandom(state) % 2 == 0)
      v = nextRandom(state) % 4 == 0 ? -0.0f : 0.0f;
  const Buffer a = build(m);
  int64_t zeroRow = 0;
  while (m.indptr[zeroRow + 1] == m.indptr[zeroRow] ||
         m.values[m.indptr[zeroRow]] != 0.0f)
    ++zeroRow; // a row whose first slot holds a zero
  const int64_t zeroColumn = m.indices[m.indptr[zeroRow]];
  for (int64_t n : {4, 16, 32, 64})
    for (bool transpose : {false, true})
      for (int poison : {0, 1, 2}) {
        SCOPED_TRACE("n " + std::to_string(n) +
                     (transpose ? ", A^T b" : ", A b") +
                     (poison == 1   ? ", an infinity in b"
                      : poison == 2 ? ", a NaN in b"
                                    : ""));
        const int64_t inner = transpose ? m.rows : m.cols;
        std::vector<float> b = randomDense(inner * n, 33 + n);
        if (poison) // the row of b that the first stored zero multiplies
          b[(transpose ? zeroRow : zeroColumn) * n] =
              poison == 1 ? INFINITY : std::nanf("7");
        const std::vector<float> want = orderedProduct(m, transpose, b, n);
        EXPECT_EQ(bitsOf(run(a, transpose, b, n)), bitsOf(want));
        if (poison) { // 0 * inf or 0 * NaN made a NaN
          EXPECT_TRUE(std::any_of(want.begin(), want.end(),
                                  [](float v) { return std::isnan(v); }));
        }
      }
}

TEST_F(CsrMatmul, ThreadTeamsGiveTheSameBits) {
  gnnrt_cpu_set_num_threads(4);
  if (gnnrt_cpu_get_num_threads() < 2)
    GTEST_SKIP() << "the runtime was built without OpenMP";
  // Enough work for the parallel loops, and a row with most columns and a
  // column with every row so that the dynamic schedule deals out uneven
  // chunks.
  Csr m = randomCsr(4000, 300, 0.03, 21);
  {
    Csr dense = randomCsr(1, m.cols, 1.0, 22);
    Csr withHubs;
    withHubs.rows = m.rows;
    withHubs.cols = m.cols;
    for (int64_t i = 0; i < m.rows; ++i) {
      if (i == 17) {
        withHubs.indices.insert(withHubs.indices.end(), dense.indices.begin(),
                                dense.indices.end());
        withHubs.values.insert(withHubs.values.end(), dense.values.begin(),
                               dense.values.end());
      } else {
        // Column 2 (otherwise always empty) in every row.
        bool placed = false;
        for (int32_t s = m.indptr[i]; s < m.indptr[i + 1]; ++s) {
          if (!placed && m.indices[s] > 2) {
            withHubs.indices.push_back(2);
            withHubs.values.push_back(0.25f);
            placed = true;
          }
          withHubs.indices.push_back(m.indices[s]);
          withHubs.values.push_back(m.values[s]);
        }
        if (!placed) {
          withHubs.indices.push_back(2);
          withHubs.values.push_back(0.25f);
        }
      }
      withHubs.indptr.push_back(static_cast<int32_t>(withHubs.indices.size()));
    }
    m = withHubs;
  }
  const Buffer a = build(m);
  for (int64_t n : {16, 64, 20})
    for (bool transpose : {false, true}) {
      SCOPED_TRACE("n " + std::to_string(n) +
                   (transpose ? ", A^T b" : ", A b"));
      const int64_t inner = transpose ? m.rows : m.cols;
      const std::vector<float> b = randomDense(inner * n, 30 + n);
      gnnrt_cpu_set_num_threads(1);
      const std::vector<float> one = run(a, transpose, b, n);
      gnnrt_cpu_set_num_threads(4);
      const std::vector<float> four = run(a, transpose, b, n);
      EXPECT_EQ(bitsOf(one), bitsOf(four));
      EXPECT_EQ(bitsOf(four), bitsOf(orderedProduct(m, transpose, b, n)));
    }
}

TEST_F(CsrMatmul, RejectsBadArguments) {
  const Csr m = randomCsr(6, 8, 0.5, 5);
  Buffer a = build(m);
  const int64_t r = m.rows, k = m.cols, z = m.nnz(), n = 3;
  const std::vector<float> b(static_cast<size_t>(r * k * n), 1.0f);
  std::vector<float> c(b.size(), -123.0f);
  const auto untouched = [&c] {
    for (float v : c)
      if (v != -123.0f)
        return false;
    return true;
  };
  const void *ap = a.data();
  const float *bp = b.data();
  float *cp = c.data();
  EXPECT_EQ(gnnrt_cpu_csr_matmul(nullptr, r, k, z, 0, bp, n, cp),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z, 0, nullptr, n, cp),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z, 1, bp, n, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z, 0, bp, -1, cp),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, -r, k, z, 0, bp, n, cp),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, r * k + 1, 0, bp, n, cp),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z, 1, bp,
                                 std::numeric_limits<int64_t>::max() / 4, cp),
            GNNRT_ERR_BAD_SIZE);
  // Offsets that do not span nnz slots: the wrong nnz, then a corrupt
  // CSR and a corrupt CSC section.
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z + 1, 0, bp, n, cp),
            GNNRT_ERR_BAD_ARGUMENT);
  a.view().indptr[0] = 1;
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z, 0, bp, n, cp),
            GNNRT_ERR_BAD_ARGUMENT);
  a.view().indptr[0] = 0;
  a.view().colptr[k] = static_cast<int32_t>(z + 1);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z, 1, bp, n, cp),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_TRUE(untouched());
  // Nothing to write: b and c may be null.
  a.view().colptr[k] = static_cast<int32_t>(z);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(ap, r, k, z, 0, nullptr, 0, nullptr),
            GNNRT_OK);
}

} // namespace
