//===- KernelsTest.cpp - The CUDA library kernels against the CPU's -------===//
//
// Every gnnrt_cuda_X of gnnrt/Cuda.h's "Library operations" against
// gnnrt_cpu_X, the oracle (conventions.md, practice 10): the same random
// inputs (fixed seeds) on the host and on the device, then the outputs
// compared. Bit for bit wherever the device does the CPU's arithmetic in the
// CPU's order, which is most kernels (see runtime/cuda/*.cu); within a
// stated tolerance, with its reason, where it cannot (cuSPARSE's summation
// order, CUDA's expf and double exp/log, the max gradient's sum order).
//
// The tests that need a device share one context and skip with
// gnnrt_cuda_open's reason when there is none. The argument-check tests
// need no device: a bad call returns the CPU kernel's status before the
// library looks for a context, and a good call with no current context
// returns GNNRT_ERR_CUDA.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Kernels.h"
#include "gnnrt/Convert.h"
#include "gnnrt/Cuda.h"

#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#ifndef GNNRT_HAVE_CUDA
#error "GNNRT_HAVE_CUDA comes with the GnncRtCuda target"
#endif

namespace {

using gnnrt::test::startsWith;

#if GNNRT_HAVE_CUDA

//===----------------------------------------------------------------------===//
// Host data
//===----------------------------------------------------------------------===//

std::vector<float> randomFloats(size_t n, uint64_t seed, float lo = -1,
                                float hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Multiples of 1/4 in [-2, 2]: many exact ties for max and its gradient.
std::vector<float> randomQuarters(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<float> v(n);
  for (float &x : v)
    x = static_cast<float>(dist(rng)) / 4;
  return v;
}

/// A graph in both CSR views, as the kernels see it, owning its arrays.
struct HostGraph {
  int64_t nodes = 0, edges = 0;
  std::vector<int32_t> inPtr, inSrc, inId, outPtr, outSrc, outId;

  gnnrt_graph view(bool withOut = true) const {
    gnnrt_graph g{};
    g.num_nodes = nodes;
    g.num_edges = edges;
    g.in = {inPtr.data(), inSrc.data(), inId.data()};
    if (withOut)
      g.out = {outPtr.data(), outSrc.data(), outId.data()};
    return g;
  }
};

/// One CSR grouped by \p rowOf listing \p otherOf. Slots run by decreasing
/// edge id, so kernels that break ties by the lowest id cannot rely on slot
/// order (as in the CPU tests).
void buildCsr(int64_t nodes, const std::vector<int32_t> &rowOf,
              const std::vector<int32_t> &otherOf, std::vector<int32_t> &ptr,
              std::vector<int32_t> &other, std::vector<int32_t> &id) {
  std::vector<std::vector<int32_t>> rows(nodes);
  for (size_t e = 0; e < rowOf.size(); ++e)
    rows[rowOf[e]].push_back(static_cast<int32_t>(e));
  ptr.assign(1, 0);
  other.clear();
  id.clear();
  for (auto &r : rows) {
    std::sort(r.rbegin(), r.rend());
    for (int32_t e : r) {
      other.push_back(otherOf[e]);
      id.push_back(e);
    }
    ptr.push_back(static_cast<int32_t>(other.size()));
  }
}

/// A random multigraph: edges among the first `nodes - isolated` nodes
/// (self edges and repeated edges happen), and \p isolated nodes with no
/// edge at all (empty rows in both views).
HostGraph randomGraph(int64_t nodes, int64_t edges, int64_t isolated,
                      uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> pick(
      0, static_cast<int32_t>(nodes - isolated - 1));
  std::vector<int32_t> src(edges), dst(edges);
  for (int64_t e = 0; e < edges; ++e) {
    src[e] = pick(rng);
    dst[e] = pick(rng);
  }
  HostGraph g;
  g.nodes = nodes;
  g.edges = edges;
  buildCsr(nodes, dst, src, g.inPtr, g.inSrc, g.inId);
  buildCsr(nodes, src, dst, g.outPtr, g.outSrc, g.outId);
  return g;
}

/// A CSR feature matrix (gnnrt_csr_matrix's buffer) built on the host by
/// the CPU library; about \p density of the elements stored, a tenth of
/// those explicit +0.0.
struct HostCsrMatrix {
  int64_t rows = 0, cols = 0, nnz = 0;
  std::vector<unsigned char> bytes; // the buffer, copied from an aligned one
};

HostCsrMatrix randomCsrMatrix(int64_t rows, int64_t cols, double density,
                              uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_real_distribution<float> value(-1, 1);
  std::vector<int32_t> indptr(1, 0), indices;
  std::vector<float> values;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j)
      if (unit(rng) < density) {
        indices.push_back(static_cast<int32_t>(j));
        values.push_back(unit(rng) < 0.1 ? 0.0f : value(rng));
      }
    indptr.push_back(static_cast<int32_t>(indices.size()));
  }
  HostCsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.nnz = static_cast<int64_t>(indices.size());
  const int64_t size = gnnrt_csr_matrix_bytes(rows, cols, m.nnz);
  // The build wants a 64-byte aligned base.
  std::unique_ptr<void, decltype(&std::free)> base(
      std::aligned_alloc(64, static_cast<size_t>((size + 63) / 64 * 64)),
      &std::free);
  std::memset(base.get(), 0, static_cast<size_t>(size));
  EXPECT_EQ(gnnrt_cpu_csr_matrix_build(indptr.data(), indices.data(),
                                       values.data(), rows, cols, m.nnz,
                                       base.get()),
            GNNRT_OK);
  const auto *p = static_cast<const unsigned char *>(base.get());
  m.bytes.assign(p, p + size);
  return m;
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

/// Every element with the same bits (so +0 and -0 differ, and NaNs must
/// have the same payload).
::testing::AssertionResult sameBits(const std::vector<float> &got,
                                    const std::vector<float> &want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << got.size() << " elements, want " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (bitsOf(got[i]) != bitsOf(want[i]))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << got[i] << " (0x" << std::hex
             << bitsOf(got[i]) << "), want " << want[i] << " (0x"
             << bitsOf(want[i]) << std::dec << ")";
  return ::testing::AssertionSuccess();
}

template <typename T>
::testing::AssertionResult sameValues(const std::vector<T> &got,
                                      const std::vector<T> &want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << got.size() << " elements, want " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << +got[i] << ", want " << +want[i];
  return ::testing::AssertionSuccess();
}

/// Every element within \p rtol of the largest magnitude of \p want (exact
/// when that is 0), as the CPU conformance suite compares: it admits a
/// different rounding of sums whose terms are no larger than the result's
/// scale, while a wrong edge, head or factor is off by far more.
::testing::AssertionResult closeTo(const std::vector<float> &got,
                                   const std::vector<float> &want,
                                   double rtol) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << got.size() << " elements, want " << want.size();
  double scale = 0;
  for (float v : want)
    scale = std::max(scale, std::fabs(static_cast<double>(v)));
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= rtol * scale)) // NaN fails
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << got[i] << ", want " << want[i]
             << " (error " << err << " > " << rtol << " * " << scale << ")";
  }
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// Without a device: argument checks
//===----------------------------------------------------------------------===//

/// A bad call of gnnrt_cuda_X returns what gnnrt_cpu_X returns for the same
/// arguments (and not GNNRT_OK), with no context current: the checks come
/// before the context. Graph arguments are host arrays: the CPU kernel reads
/// their offsets, the CUDA one only checks pointers and sizes.
#define EXPECT_SAME_STATUS(op, ...)                                            \
  do {                                                                         \
    const int cpuStatus = gnnrt_cpu_##op(__VA_ARGS__);                         \
    EXPECT_NE(cpuStatus, GNNRT_OK) << #op << "(" << #__VA_ARGS__ << ")";       \
    EXPECT_EQ(gnnrt_cuda_##op(__VA_ARGS__), cpuStatus)                         \
        << #op << "(" << #__VA_ARGS__ << ")";                                  \
  } while (false)

class CudaKernelChecks : public ::testing::Test {
protected:
  void SetUp() override { gnnrt_cuda_set_current(nullptr); }

  HostGraph graph = randomGraph(9, 20, 1, 5);
  std::vector<float> buf = std::vector<float>(4096, 1.0f);
  float *f = buf.data();
};

TEST_F(CudaKernelChecks, GraphKernels) {
  gnnrt_graph g = graph.view();
  gnnrt_graph noOut = graph.view(false);
  gnnrt_graph negative = g;
  negative.num_nodes = -1;
  gnnrt_graph huge = g;
  huge.num_edges = int64_t{1} << 40;
  gnnrt_graph nullSrc = g;
  nullSrc.in.src = nullptr;
  gnnrt_graph result;
  std::vector<int32_t> storage(4096);
  int32_t *s = storage.data();

  EXPECT_SAME_STATUS(add_self_loops, nullptr, s, &result);
  EXPECT_SAME_STATUS(add_self_loops, &g, nullptr, &result);
  EXPECT_SAME_STATUS(add_self_loops, &g, s, nullptr);
  EXPECT_SAME_STATUS(add_self_loops, &negative, s, &result);
  EXPECT_SAME_STATUS(add_self_loops, &huge, s, &result);
  EXPECT_SAME_STATUS(add_self_loops, &nullSrc, s, &result);

  EXPECT_SAME_STATUS(edge_norm, nullptr, GNNRT_NORM_MEAN, f);
  EXPECT_SAME_STATUS(edge_norm, &g, 7, f);
  EXPECT_SAME_STATUS(edge_norm, &g, GNNRT_NORM_SYMMETRIC, nullptr);
  EXPECT_SAME_STATUS(edge_norm, &negative, GNNRT_NORM_MEAN, f);

  EXPECT_SAME_STATUS(spmm, nullptr, GNNRT_AGGR_SUM, f, 4, nullptr, 1, f);
  EXPECT_SAME_STATUS(spmm, &g, 3, f, 4, nullptr, 1, f);
  EXPECT_SAME_STATUS(spmm, &g, -1, f, 4, nullptr, 1, f);
  EXPECT_SAME_STATUS(spmm, &g, GNNRT_AGGR_SUM, f, -4, nullptr, 1, f);
  EXPECT_SAME_STATUS(spmm, &g, GNNRT_AGGR_SUM, nullptr, 4, nullptr, 1, f);
  EXPECT_SAME_STATUS(spmm, &g, GNNRT_AGGR_MEAN, f, 4, nullptr, 1, nullptr);
  EXPECT_SAME_STATUS(spmm, &g, GNNRT_AGGR_MAX, f, 4, f, 1, f);
  EXPECT_SAME_STATUS(spmm, &g, GNNRT_AGGR_SUM, f, 4, f, 3, f);
  EXPECT_SAME_STATUS(spmm, &g, GNNRT_AGGR_SUM, f, 4, f, 0, f);
  EXPECT_SAME_STATUS(spmm, &nullSrc, GNNRT_AGGR_SUM, f, 4, nullptr, 1, f);

  EXPECT_SAME_STATUS(spmm_max_grad, nullptr, f, f, 4, f);
  EXPECT_SAME_STATUS(spmm_max_grad, &g, f, f, -1, f);
  EXPECT_SAME_STATUS(spmm_max_grad, &g, nullptr, f, 4, f);
  EXPECT_SAME_STATUS(spmm_max_grad, &g, f, nullptr, 4, f);
  EXPECT_SAME_STATUS(spmm_max_grad, &g, f, f, 4, nullptr);

  EXPECT_SAME_STATUS(sddmm, nullptr, f, f, 4, 1, f);
  EXPECT_SAME_STATUS(sddmm, &g, f, f, 4, 3, f);
  EXPECT_SAME_STATUS(sddmm, &g, f, f, 4, 0, f);
  EXPECT_SAME_STATUS(sddmm, &g, f, f, -4, 1, f);
  EXPECT_SAME_STATUS(sddmm, &g, nullptr, f, 4, 2, f);
  EXPECT_SAME_STATUS(sddmm, &g, f, f, 4, 2, nullptr);

  EXPECT_SAME_STATUS(gather, nullptr, GNNRT_END_SRC, f, 4, f);
  EXPECT_SAME_STATUS(gather, &g, 2, f, 4, f);
  EXPECT_SAME_STATUS(gather, &g, GNNRT_END_DST, f, -1, f);
  EXPECT_SAME_STATUS(gather, &g, GNNRT_END_DST, nullptr, 4, f);
  EXPECT_SAME_STATUS(gather, &g, GNNRT_END_SRC, f, 4, nullptr);

  EXPECT_SAME_STATUS(edge_add, nullptr, f, f, 4, f);
  EXPECT_SAME_STATUS(edge_add, &g, f, f, -1, f);
  EXPECT_SAME_STATUS(edge_add, &g, nullptr, f, 4, f);
  EXPECT_SAME_STATUS(edge_add, &g, f, nullptr, 4, f);
  EXPECT_SAME_STATUS(edge_add, &g, f, f, 4, nullptr);

  EXPECT_SAME_STATUS(scatter, nullptr, GNNRT_END_SRC, f, 4, f);
  EXPECT_SAME_STATUS(scatter, &g, 5, f, 4, f);
  // A sum at sources needs the transposed view.
  EXPECT_SAME_STATUS(scatter, &noOut, GNNRT_END_SRC, f, 4, f);
  EXPECT_SAME_STATUS(scatter, &g, GNNRT_END_DST, f, -2, f);
  EXPECT_SAME_STATUS(scatter, &g, GNNRT_END_DST, nullptr, 4, f);
  EXPECT_SAME_STATUS(scatter, &g, GNNRT_END_SRC, f, 4, nullptr);

  EXPECT_SAME_STATUS(edge_softmax, nullptr, f, 2, f);
  EXPECT_SAME_STATUS(edge_softmax, &g, f, -1, f);
  EXPECT_SAME_STATUS(edge_softmax, &g, nullptr, 2, f);
  EXPECT_SAME_STATUS(edge_softmax, &g, f, 2, nullptr);
  EXPECT_SAME_STATUS(edge_softmax_grad, nullptr, f, f, 2, f);
  EXPECT_SAME_STATUS(edge_softmax_grad, &g, f, f, -3, f);
  EXPECT_SAME_STATUS(edge_softmax_grad, &g, nullptr, f, 2, f);
  EXPECT_SAME_STATUS(edge_softmax_grad, &g, f, nullptr, 2, f);
  EXPECT_SAME_STATUS(edge_softmax_grad, &g, f, f, 2, nullptr);
}

TEST_F(CudaKernelChecks, CsrMatrixKernels) {
  HostCsrMatrix m = randomCsrMatrix(6, 5, 0.3, 1);
  std::vector<unsigned char> out(m.bytes.size() + 64);
  void *x = m.bytes.data(), *y = out.data();
  const int64_t r = m.rows, c = m.cols, z = m.nnz;
  EXPECT_SAME_STATUS(csr_dropout, x, -1, c, z, 1, 2, 3, 0.5, y);
  EXPECT_SAME_STATUS(csr_dropout, x, r, c, r * c + 1, 1, 2, 3, 0.5, y);
  EXPECT_SAME_STATUS(csr_dropout, x, r, c, z, 1, 2, 3, 1.0, y);
  EXPECT_SAME_STATUS(csr_dropout, x, r, c, z, 1, 2, 3, -0.1, y);
  EXPECT_SAME_STATUS(csr_dropout, x, r, c, z, 1, 2, 3, std::nan(""), y);
  EXPECT_SAME_STATUS(csr_dropout, nullptr, r, c, z, 1, 2, 3, 0.5, y);
  EXPECT_SAME_STATUS(csr_dropout, x, r, c, z, 1, 2, 3, 0.5, nullptr);

  EXPECT_SAME_STATUS(csr_matmul, x, r, c, -3, 0, f, 2, f);
  EXPECT_SAME_STATUS(csr_matmul, x, int64_t{1} << 32, c, z, 0, f, 2, f);
  EXPECT_SAME_STATUS(csr_matmul, x, r, c, z, 0, f, -2, f);
  EXPECT_SAME_STATUS(csr_matmul, nullptr, r, c, z, 0, f, 2, f);
  EXPECT_SAME_STATUS(csr_matmul, x, r, c, z, 1, nullptr, 2, f);
  EXPECT_SAME_STATUS(csr_matmul, x, r, c, z, 0, f, 2, nullptr);
}

TEST_F(CudaKernelChecks, DenseKernels) {
  EXPECT_SAME_STATUS(reduce, 3, f, 4, 4, 0, f);
  EXPECT_SAME_STATUS(reduce, GNNRT_REDUCE_SUM, f, 4, 4, 2, f);
  EXPECT_SAME_STATUS(reduce, GNNRT_REDUCE_MEAN, f, -4, 4, 1, f);
  EXPECT_SAME_STATUS(reduce, GNNRT_REDUCE_MAX, nullptr, 4, 4, 0, f);
  EXPECT_SAME_STATUS(reduce, GNNRT_REDUCE_MAX, f, 4, 4, 1, nullptr);

  EXPECT_SAME_STATUS(head_matrix, 3, 2, 3, f);
  EXPECT_SAME_STATUS(head_matrix, GNNRT_HEADS_SUM, 0, 3, f);
  EXPECT_SAME_STATUS(head_matrix, GNNRT_HEADS_MEAN, 2, 0, f);
  EXPECT_SAME_STATUS(head_matrix, GNNRT_HEADS_MEAN, int64_t{1} << 40,
                     int64_t{1} << 30, f);
  EXPECT_SAME_STATUS(head_matrix, GNNRT_HEADS_SUM, 2, 3, nullptr);

  const float *inputs[2] = {f, f};
  const float *withNull[2] = {f, nullptr};
  int64_t widths[2] = {2, 3}, badWidths[2] = {2, -3};
  EXPECT_SAME_STATUS(concat, inputs, widths, -1, 4, f);
  EXPECT_SAME_STATUS(concat, inputs, widths, 2, -4, f);
  EXPECT_SAME_STATUS(concat, nullptr, widths, 2, 4, f);
  EXPECT_SAME_STATUS(concat, inputs, nullptr, 2, 4, f);
  EXPECT_SAME_STATUS(concat, inputs, badWidths, 2, 4, f);
  EXPECT_SAME_STATUS(concat, withNull, widths, 2, 4, f);
  EXPECT_SAME_STATUS(concat, inputs, widths, 2, 4, nullptr);

  EXPECT_SAME_STATUS(slice, f, -1, 4, 0, 2, f);
  EXPECT_SAME_STATUS(slice, f, 3, 4, 3, 2, f);
  EXPECT_SAME_STATUS(slice, f, 3, 4, -1, 2, f);
  EXPECT_SAME_STATUS(slice, nullptr, 3, 4, 1, 2, f);
  EXPECT_SAME_STATUS(slice, f, 3, 4, 1, 2, nullptr);

  EXPECT_SAME_STATUS(normalize, f, 4, 4, 2, 1e-5, f);
  EXPECT_SAME_STATUS(normalize, f, 4, 4, 0, -1.0, f);
  EXPECT_SAME_STATUS(normalize, f, 4, 4, 0, std::nan(""), f);
  EXPECT_SAME_STATUS(normalize, f, -4, 4, 1, 1e-5, f);
  EXPECT_SAME_STATUS(normalize, nullptr, 4, 4, 1, 1e-5, f);
  EXPECT_SAME_STATUS(normalize_grad, f, f, 4, 4, -1, 1e-5, f);
  EXPECT_SAME_STATUS(normalize_grad, f, f, 4, 4, 0, -1.0, f);
  EXPECT_SAME_STATUS(normalize_grad, f, f, 4, -4, 0, 1e-5, f);
  EXPECT_SAME_STATUS(normalize_grad, f, nullptr, 4, 4, 0, 1e-5, f);
  EXPECT_SAME_STATUS(normalize_grad, f, f, 4, 4, 1, 1e-5, nullptr);

  EXPECT_SAME_STATUS(dropout, f, -1, 1, 2, 3, 0.5, f);
  EXPECT_SAME_STATUS(dropout, f, 8, 1, 2, 3, 1.0, f);
  EXPECT_SAME_STATUS(dropout, f, 8, 1, 2, 3, std::nan(""), f);
  EXPECT_SAME_STATUS(dropout, nullptr, 8, 1, 2, 3, 0.5, f);
  EXPECT_SAME_STATUS(dropout, f, 8, 1, 2, 3, 0.5, nullptr);

  uint16_t half[8];
  EXPECT_SAME_STATUS(f32_to_bf16, f, half, -1);
  EXPECT_SAME_STATUS(f32_to_bf16, nullptr, half, 8);
  EXPECT_SAME_STATUS(bf16_to_f32, half, nullptr, 8);
  EXPECT_SAME_STATUS(f32_to_f16, f, nullptr, 8);
  EXPECT_SAME_STATUS(f16_to_f32, half, f, -8);
}

TEST_F(CudaKernelChecks, TrainKernels) {
  EXPECT_SAME_STATUS(init, GNNRT_INIT_GLOROT, 1, 2, 3, 4, -1, f);
  EXPECT_SAME_STATUS(init, GNNRT_INIT_GLOROT, 1, 2, 3, 4, 8, nullptr);
  EXPECT_SAME_STATUS(init, 9, 1, 2, 3, 4, 8, f);
  EXPECT_SAME_STATUS(init, GNNRT_INIT_GLOROT, 1, 2, 0, 0, 8, f);
  EXPECT_SAME_STATUS(init, GNNRT_INIT_GLOROT, 1, 2, -1, 3, 8, f);
  EXPECT_SAME_STATUS(init, GNNRT_INIT_KAIMING, 1, 2, 0, 3, 8, f);

  std::vector<int32_t> labels = {0, 1, 2, 1};
  const int32_t *l = labels.data();
  const uint8_t mask[4] = {1, 1, 0, 1};
  EXPECT_SAME_STATUS(cross_entropy, f, l, mask, 4, 3, 0.0, 0, nullptr);
  EXPECT_SAME_STATUS(cross_entropy, f, l, mask, 4, 3, 0.0, 2, f);
  EXPECT_SAME_STATUS(cross_entropy, f, l, mask, 4, 3, 1.5, 0, f);
  EXPECT_SAME_STATUS(cross_entropy, f, l, mask, 4, 3, -0.5, 0, f);
  EXPECT_SAME_STATUS(cross_entropy, f, l, mask, 4, 0, 0.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy, f, l, mask, -4, 3, 0.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy, nullptr, l, mask, 4, 3, 0.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy, f, nullptr, mask, 4, 3, 0.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy_grad, f, l, mask, nullptr, 4, 3, 0.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy_grad, f, l, mask, f, 4, 3, 0.0, 3, f);
  EXPECT_SAME_STATUS(cross_entropy_grad, f, l, mask, f, 4, 3, 2.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy_grad, f, l, mask, f, 4, -1, 0.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy_grad, nullptr, l, mask, f, 4, 3, 0.0, 0, f);
  EXPECT_SAME_STATUS(cross_entropy_grad, f, l, mask, f, 4, 3, 0.0, 0, nullptr);

  EXPECT_SAME_STATUS(adam, f, f, f, f, -1, 1, 0.01, 0.9, 0.999, 1e-8, 0, 0, f,
                     f, f);
  EXPECT_SAME_STATUS(adam, f, f, nullptr, f, 8, 1, 0.01, 0.9, 0.999, 1e-8, 0, 0,
                     f, f, f);
  EXPECT_SAME_STATUS(adam, f, f, f, f, 8, 1, 0.01, 0.9, 0.999, 1e-8, 0, 0, f, f,
                     nullptr);
  EXPECT_SAME_STATUS(adam, f, f, f, f, 8, 0, 0.01, 0.9, 0.999, 1e-8, 0, 0, f, f,
                     f);
  EXPECT_SAME_STATUS(adam, f, f, f, f, 8, 1, 0.01, 1.0, 0.999, 1e-8, 0, 0, f, f,
                     f);
  EXPECT_SAME_STATUS(adam, f, f, f, f, 8, 1, -0.01, 0.9, 0.999, 1e-8, 0, 0, f,
                     f, f);
  EXPECT_SAME_STATUS(adam, f, f, f, f, 8, 1, 0.01, 0.9, 0.999, std::nan(""), 0,
                     0, f, f, f);

  EXPECT_SAME_STATUS(sgd, f, f, f, -1, 0.1, 0.9, 0.0, 0, f, f);
  EXPECT_SAME_STATUS(sgd, f, f, f, 8, -0.1, 0.9, 0.0, 0, f, f);
  EXPECT_SAME_STATUS(sgd, f, f, f, 8, 0.1, -0.9, 0.0, 0, f, f);
  EXPECT_SAME_STATUS(sgd, nullptr, f, f, 8, 0.1, 0.9, 0.0, 0, f, f);
  EXPECT_SAME_STATUS(sgd, f, f, nullptr, 8, 0.1, 0.9, 0.0, 0, f, f);
  EXPECT_SAME_STATUS(sgd, f, f, f, 8, 0.1, 0.9, 0.0, 0, f, nullptr);
  // Without momentum the buffers must be absent.
  EXPECT_SAME_STATUS(sgd, f, f, f, 8, 0.1, 0.0, 0.0, 0, f, f);
}

/// A good call with no current context: GNNRT_ERR_CUDA and a message,
/// nothing read or written (the pointers here are host memory).
TEST_F(CudaKernelChecks, GoodCallsNeedAContext) {
  gnnrt_graph g = graph.view();
  EXPECT_EQ(gnnrt_cuda_spmm(&g, GNNRT_AGGR_SUM, f, 4, nullptr, 1, f),
            GNNRT_ERR_CUDA);
  EXPECT_NE(std::string(gnnrt_cuda_last_error()), "");
  EXPECT_EQ(gnnrt_cuda_edge_norm(&g, GNNRT_NORM_MEAN, f), GNNRT_ERR_CUDA);
  EXPECT_EQ(gnnrt_cuda_dropout(f, 8, 1, 2, 3, 0.5, f), GNNRT_ERR_CUDA);
  EXPECT_EQ(gnnrt_cuda_reduce(GNNRT_REDUCE_SUM, f, 2, 2, 0, f), GNNRT_ERR_CUDA);
  EXPECT_EQ(gnnrt_cuda_init(GNNRT_INIT_ONES, 1, 2, 0, 0, 8, f), GNNRT_ERR_CUDA);
  EXPECT_EQ(gnnrt_cuda_f32_to_bf16(f, nullptr, 0), GNNRT_ERR_CUDA);
  EXPECT_TRUE(
      std::all_of(buf.begin(), buf.end(), [](float v) { return v == 1.0f; }));
}

//===----------------------------------------------------------------------===//
// With a device: the CPU kernels as the oracle
//===----------------------------------------------------------------------===//

class CudaKernels : public gnnrt::test::CudaSuite {
protected:
  void TearDown() override {
    if (!ctx)
      return;
    EXPECT_EQ(gnnrt_cuda_synchronize(ctx), GNNRT_OK) << gnnrt_cuda_last_error();
    // The suite shares one context: the next test starts on the default.
    EXPECT_EQ(gnnrt_cuda_set_spmm_path(ctx, GNNRT_CUDA_SPMM_CUSPARSE),
              GNNRT_OK);
    for (void *p : allocations) {
      EXPECT_EQ(gnnrt_cuda_free(ctx, p), GNNRT_OK) << gnnrt_cuda_last_error();
    }
    allocations.clear();
    gnnrt_cuda_set_current(nullptr);
  }

  /// Device memory for \p count elements (at least one, so that empty
  /// tensors still get a distinct pointer), freed after the test.
  template <typename T> T *alloc(size_t count) {
    void *p = nullptr;
    const int64_t bytes =
        static_cast<int64_t>(std::max<size_t>(count, 1) * sizeof(T));
    EXPECT_EQ(gnnrt_cuda_malloc(ctx, bytes, &p), GNNRT_OK)
        << gnnrt_cuda_last_error();
    allocations.push_back(p);
    return static_cast<T *>(p);
  }
  template <typename T> T *upload(const std::vector<T> &host) {
    T *p = alloc<T>(host.size());
    if (!host.empty()) {
      EXPECT_EQ(gnnrt_cuda_copy(ctx, p, host.data(),
                                static_cast<int64_t>(host.size() * sizeof(T))),
                GNNRT_OK)
          << gnnrt_cuda_last_error();
    }
    return p;
  }
  /// Waits for the kernels before it (gnnrt_cuda_copy is ordered on the
  /// compute stream).
  template <typename T> std::vector<T> download(const T *device, size_t n) {
    std::vector<T> host(n);
    if (n) {
      EXPECT_EQ(gnnrt_cuda_copy(ctx, host.data(), device,
                                static_cast<int64_t>(n * sizeof(T))),
                GNNRT_OK)
          << gnnrt_cuda_last_error();
    }
    return host;
  }

  /// \p g's arrays on the device, in a view of the same shape.
  gnnrt_graph upload(const HostGraph &g, bool withOut = true) {
    gnnrt_graph d{};
    d.num_nodes = g.nodes;
    d.num_edges = g.edges;
    d.in = {upload(g.inPtr), upload(g.inSrc), upload(g.inId)};
    if (withOut)
      d.out = {upload(g.outPtr), upload(g.outSrc), upload(g.outId)};
    return d;
  }

  std::vector<void *> allocations;

  // The graph of most tests: 40 nodes, 3 of them isolated, 170 edges (mean
  // in-degree above 4, with self edges and repeated edges).
  HostGraph graph = randomGraph(40, 170, 3, 42);
};

#define ASSERT_CUDA_OK(expr)                                                   \
  ASSERT_EQ((expr), GNNRT_OK) << gnnrt_cuda_last_error()

//===----------------------------------------------------------------------===//
// Graph.cu
//===----------------------------------------------------------------------===//

TEST_F(CudaKernels, AddSelfLoopsLaysOutTheCpuStorage) {
  for (bool withOut : {true, false}) {
    SCOPED_TRACE(withOut ? "with out" : "without out");
    const gnnrt_graph host = graph.view(withOut);
    const int64_t count =
        gnnrt_cpu_add_self_loops_storage(graph.nodes, graph.edges);
    std::vector<int32_t> cpuStorage(count, -7);
    gnnrt_graph cpu;
    ASSERT_EQ(gnnrt_cpu_add_self_loops(&host, cpuStorage.data(), &cpu),
              GNNRT_OK);

    const gnnrt_graph device = upload(graph, withOut);
    int32_t *storage = upload(std::vector<int32_t>(count, -7));
    gnnrt_graph result;
    ASSERT_CUDA_OK(gnnrt_cuda_add_self_loops(&device, storage, &result));
    EXPECT_EQ(result.num_nodes, cpu.num_nodes);
    EXPECT_EQ(result.num_edges, cpu.num_edges);
    // The same offsets into the storage as the CPU's result.
    EXPECT_EQ(result.in.indptr - storage, cpu.in.indptr - cpuStorage.data());
    EXPECT_EQ(result.in.src - storage, cpu.in.src - cpuStorage.data());
    EXPECT_EQ(result.in.edge_id - storage, cpu.in.edge_id - cpuStorage.data());
    if (withOut) {
      EXPECT_EQ(result.out.edge_id - storage,
                cpu.out.edge_id - cpuStorage.data());
    } else {
      EXPECT_EQ(result.out.indptr, nullptr);
      EXPECT_EQ(result.out.src, nullptr);
      EXPECT_EQ(result.out.edge_id, nullptr);
    }
    EXPECT_TRUE(sameValues(download(storage, count), cpuStorage));
  }
}

TEST_F(CudaKernels, EdgeNormEqualsTheCpu) {
  // The graph has sources of in-degree 0 (symmetric weight 0) and rows of
  // several edges.
  const gnnrt_graph host = graph.view();
  const gnnrt_graph device = upload(graph);
  for (int kind : {GNNRT_NORM_SYMMETRIC, GNNRT_NORM_MEAN}) {
    SCOPED_TRACE(kind);
    std::vector<float> want(graph.edges);
    ASSERT_EQ(gnnrt_cpu_edge_norm(&host, kind, want.data()), GNNRT_OK);
    float *w = alloc<float>(graph.edges);
    ASSERT_CUDA_OK(gnnrt_cuda_edge_norm(&device, kind, w));
    EXPECT_TRUE(sameBits(download(w, graph.edges), want));
  }
}

//===----------------------------------------------------------------------===//
// Sparse.cu: aggregation
//===----------------------------------------------------------------------===//

// cuSPARSE (sum and mean with at most one weight per edge, the default
// path) adds a row's terms in its own order. Each output sums at most ~15
// terms of magnitude <= 1 here, so reordering changes it by at most ~15 *
// 2^-24 * 15 ~ 1.3e-5 in the very worst case and typically far less;
// relative to the largest output (a few units) 1e-5 admits that while any
// wrong edge, weight or degree is off by 1e-2 or more. The own kernels add
// in the CPU's order: its bits.
constexpr double kSumOrderRtol = 1e-5;

TEST_F(CudaKernels, SpmmSumAndMeanMatchTheCpu) {
  const gnnrt_graph host = graph.view();
  const gnnrt_graph device = upload(graph);
  const std::vector<float> weights = randomFloats(graph.edges, 7, 0, 1);
  const float *dWeights = upload(weights);
  // With the own kernels only, widths 8 and 16 take the float4 rows, 1, 7
  // and 33 a thread per element.
  for (int path : {GNNRT_CUDA_SPMM_CUSPARSE, GNNRT_CUDA_SPMM_OWN})
    for (int64_t d : {1, 7, 8, 16, 33}) {
      ASSERT_CUDA_OK(gnnrt_cuda_set_spmm_path(ctx, path));
      const std::vector<float> x = randomFloats(graph.nodes * d, 100 + d);
      const float *dx = upload(x);
      for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN})
        for (bool weighted : {false, true}) {
          SCOPED_TRACE(::testing::Message()
                       << "path " << path << " d " << d << " aggr " << aggr
                       << " weighted " << weighted);
          std::vector<float> want(graph.nodes * d);
          ASSERT_EQ(gnnrt_cpu_spmm(&host, aggr, x.data(), d,
                                   weighted ? weights.data() : nullptr, 1,
                                   want.data()),
                    GNNRT_OK);
          float *y = upload(std::vector<float>(want.size(), NAN));
          ASSERT_CUDA_OK(gnnrt_cuda_spmm(&device, aggr, dx, d,
                                         weighted ? dWeights : nullptr, 1, y));
          const std::vector<float> got = download(y, want.size());
          if (path == GNNRT_CUDA_SPMM_OWN)
            EXPECT_TRUE(sameBits(got, want));
          else
            EXPECT_TRUE(closeTo(got, want, kSumOrderRtol));
          // Deterministic: the same call gives the same bits.
          ASSERT_CUDA_OK(gnnrt_cuda_spmm(&device, aggr, dx, d,
                                         weighted ? dWeights : nullptr, 1, y));
          EXPECT_TRUE(sameBits(download(y, want.size()), got));
        }
    }
}

TEST_F(CudaKernels, GcnAggregationOverSelfLoopsMatchesTheCpu) {
  // GCN's prepare and forward: loops, symmetric norms, weighted sum. The
  // looped views live in one buffer, so whether cuSPARSE or the own kernel
  // sums by default depends on their alignment: either must match. With
  // the own kernels only, the CPU's bits.
  const gnnrt_graph host = graph.view();
  const gnnrt_graph device = upload(graph);
  const int64_t count =
      gnnrt_cpu_add_self_loops_storage(graph.nodes, graph.edges);
  std::vector<int32_t> cpuStorage(count);
  gnnrt_graph cpuLooped, looped;
  ASSERT_EQ(gnnrt_cpu_add_self_loops(&host, cpuStorage.data(), &cpuLooped),
            GNNRT_OK);
  ASSERT_CUDA_OK(
      gnnrt_cuda_add_self_loops(&device, alloc<int32_t>(count), &looped));
  const int64_t e = cpuLooped.num_edges, d = 16;
  std::vector<float> norm(e);
  ASSERT_EQ(gnnrt_cpu_edge_norm(&cpuLooped, GNNRT_NORM_SYMMETRIC, norm.data()),
            GNNRT_OK);
  float *dNorm = alloc<float>(e);
  ASSERT_CUDA_OK(gnnrt_cuda_edge_norm(&looped, GNNRT_NORM_SYMMETRIC, dNorm));
  EXPECT_TRUE(sameBits(download(dNorm, e), norm));
  const std::vector<float> x = randomFloats(graph.nodes * d, 8);
  std::vector<float> want(x.size());
  ASSERT_EQ(gnnrt_cpu_spmm(&cpuLooped, GNNRT_AGGR_SUM, x.data(), d, norm.data(),
                           1, want.data()),
            GNNRT_OK);
  float *y = alloc<float>(x.size());
  const float *dx = upload(x);
  ASSERT_CUDA_OK(gnnrt_cuda_spmm(&looped, GNNRT_AGGR_SUM, dx, d, dNorm, 1, y));
  EXPECT_TRUE(closeTo(download(y, x.size()), want, kSumOrderRtol));
  ASSERT_CUDA_OK(gnnrt_cuda_set_spmm_path(ctx, GNNRT_CUDA_SPMM_OWN));
  ASSERT_CUDA_OK(gnnrt_cuda_spmm(&looped, GNNRT_AGGR_SUM, dx, d, dNorm, 1, y));
  EXPECT_TRUE(sameBits(download(y, x.size()), want));
}

TEST_F(CudaKernels, SpmmWithHeadsAndMaxEqualTheCpu) {
  // The own kernels: each element adds its slots in the CPU's order.
  const gnnrt_graph host = graph.view();
  const gnnrt_graph device = upload(graph);
  struct Case {
    int aggr;
    int64_t d, heads;
  };
  // With the own kernels only, heads of 4 and 8 columns take the float4
  // rows (GAT's 8 x 8), of 2 and 3 columns a thread per element.
  for (int path : {GNNRT_CUDA_SPMM_CUSPARSE, GNNRT_CUDA_SPMM_OWN})
    for (Case c : {Case{GNNRT_AGGR_SUM, 16, 4}, Case{GNNRT_AGGR_MEAN, 6, 2},
                   Case{GNNRT_AGGR_SUM, 24, 3}, Case{GNNRT_AGGR_SUM, 64, 8},
                   Case{GNNRT_AGGR_MEAN, 64, 8}, Case{GNNRT_AGGR_SUM, 6, 3},
                   Case{GNNRT_AGGR_MAX, 5, 0}, Case{GNNRT_AGGR_MAX, 1, 0}}) {
      ASSERT_CUDA_OK(gnnrt_cuda_set_spmm_path(ctx, path));
      SCOPED_TRACE(::testing::Message()
                   << "path " << path << " aggr " << c.aggr << " d " << c.d
                   << " heads " << c.heads);
      const std::vector<float> x = randomQuarters(graph.nodes * c.d, 11 + c.d);
      const std::vector<float> w =
          c.heads ? randomFloats(graph.edges * c.heads, 12, 0, 1)
                  : std::vector<float>();
      std::vector<float> want(graph.nodes * c.d);
      ASSERT_EQ(gnnrt_cpu_spmm(&host, c.aggr, x.data(), c.d,
                               c.heads ? w.data() : nullptr, c.heads,
                               want.data()),
                GNNRT_OK);
      float *y = alloc<float>(want.size());
      ASSERT_CUDA_OK(gnnrt_cuda_spmm(&device, c.aggr, upload(x), c.d,
                                     c.heads ? upload(w) : nullptr, c.heads,
                                     y));
      EXPECT_TRUE(sameBits(download(y, want.size()), want));
    }
}

TEST_F(CudaKernels, SpmmOfAGraphWithoutEdges) {
  HostGraph empty = randomGraph(5, 0, 0, 1);
  const gnnrt_graph device = upload(empty);
  const int64_t d = 3;
  for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN, GNNRT_AGGR_MAX}) {
    float *y = upload(std::vector<float>(5 * d, NAN));
    ASSERT_CUDA_OK(gnnrt_cuda_spmm(
        &device, aggr, upload(randomFloats(5 * d, 3)), d, nullptr, 1, y));
    EXPECT_TRUE(sameBits(download(y, 5 * d), std::vector<float>(5 * d, 0)));
  }
}

TEST_F(CudaKernels, SpmmMaxGradMatchesTheCpu) {
  // Quarters make many ties, which go to the lowest edge id. Without the
  // transposed view the device adds in the CPU's order (bit for bit); with
  // it, each dx element sums its dy terms in `out` slot order instead of by
  // increasing destination: rounding only, as for cuSPARSE above.
  const int64_t d = 6;
  const std::vector<float> x = randomQuarters(graph.nodes * d, 21);
  const std::vector<float> dy = randomFloats(graph.nodes * d, 22);
  for (bool transposed : {false, true})
    for (bool withOut : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "transposed " << transposed << " with out " << withOut);
      // The transposed graph's own `out` is the original `in`.
      gnnrt_graph host = graph.view();
      gnnrt_graph device = upload(graph);
      if (transposed) {
        host = gnnrt_graph_transposed(host);
        device = gnnrt_graph_transposed(device);
      }
      if (!withOut)
        host.out = device.out = gnnrt_csr{nullptr, nullptr, nullptr};
      std::vector<float> want(graph.nodes * d);
      ASSERT_EQ(
          gnnrt_cpu_spmm_max_grad(&host, x.data(), dy.data(), d, want.data()),
          GNNRT_OK);
      float *dx = upload(std::vector<float>(want.size(), NAN));
      ASSERT_CUDA_OK(
          gnnrt_cuda_spmm_max_grad(&device, upload(x), upload(dy), d, dx));
      const std::vector<float> got = download(dx, want.size());
      if (withOut) {
        EXPECT_TRUE(closeTo(got, want, kSumOrderRtol));
      } else {
        EXPECT_TRUE(sameBits(got, want));
      }
    }
}

TEST_F(CudaKernels, SddmmEqualsTheCpu) {
  const gnnrt_graph host = graph.view();
  const gnnrt_graph device = upload(graph);
  struct Case {
    int64_t d, heads;
  };
  // 13 and 10 columns per head leave remainders after the 8 lanes.
  for (Case c : {Case{13, 1}, Case{20, 2}, Case{8, 8}, Case{0, 1}}) {
    SCOPED_TRACE(::testing::Message() << "d " << c.d << " heads " << c.heads);
    const std::vector<float> lhs = randomFloats(graph.nodes * c.d, 31);
    const std::vector<float> rhs = randomFloats(graph.nodes * c.d, 32);
    std::vector<float> want(graph.edges * c.heads);
    ASSERT_EQ(gnnrt_cpu_sddmm(&host, lhs.data(), rhs.data(), c.d, c.heads,
                              want.data()),
              GNNRT_OK);
    float *y = alloc<float>(want.size());
    ASSERT_CUDA_OK(
        gnnrt_cuda_sddmm(&device, upload(lhs), upload(rhs), c.d, c.heads, y));
    EXPECT_TRUE(sameBits(download(y, want.size()), want));
  }
}

TEST_F(CudaKernels, GatherAndScatterEqualTheCpu) {
  const gnnrt_graph host = graph.view();
  const gnnrt_graph device = upload(graph);
  const int64_t d = 5;
  const std::vector<float> nodes = randomFloats(graph.nodes * d, 41);
  const std::vector<float> edges = randomFloats(graph.edges * d, 42);
  for (int end : {GNNRT_END_SRC, GNNRT_END_DST}) {
    SCOPED_TRACE(end);
    std::vector<float> want(graph.edges * d);
    ASSERT_EQ(gnnrt_cpu_gather(&host, end, nodes.data(), d, want.data()),
              GNNRT_OK);
    float *y = alloc<float>(want.size());
    ASSERT_CUDA_OK(gnnrt_cuda_gather(&device, end, upload(nodes), d, y));
    EXPECT_TRUE(sameBits(download(y, want.size()), want));

    std::vector<float> sums(graph.nodes * d);
    ASSERT_EQ(gnnrt_cpu_scatter(&host, end, edges.data(), d, sums.data()),
              GNNRT_OK);
    float *s = upload(std::vector<float>(sums.size(), NAN));
    ASSERT_CUDA_OK(gnnrt_cuda_scatter(&device, end, upload(edges), d, s));
    EXPECT_TRUE(sameBits(download(s, sums.size()), sums));
  }
}

TEST_F(CudaKernels, EdgeAddEqualsTheCpu) {
  const gnnrt_graph host = graph.view();
  const gnnrt_graph device = upload(graph);
  const int64_t d = 3;
  const std::vector<float> a = randomFloats(graph.nodes * d, 43);
  const std::vector<float> b = randomFloats(graph.nodes * d, 44);
  std::vector<float> want(graph.edges * d);
  ASSERT_EQ(gnnrt_cpu_edge_add(&host, a.data(), b.data(), d, want.data()),
            GNNRT_OK);
  float *y = alloc<float>(want.size());
  ASSERT_CUDA_OK(gnnrt_cuda_edge_add(&device, upload(a), upload(b), d, y));
  // One f32 add per element on both: the same bits.
  EXPECT_TRUE(sameBits(download(y, want.size()), want));
}

// CUDA's expf is within 2 ulp of exp, glibc's within 1: softmax outputs (in
// [0, 1]) differ by a few ulp of the row's terms and of their sum, far
// below 1e-5 of the largest output, while a wrong group or head is off by
// whole percents.
constexpr double kSoftmaxRtol = 1e-5;

// The edge softmax and its gradient take a warp per (row, head); the test
// graph's rows have a few edges each, so the rows of this one (6 nodes,
// 400 edges: about 67 per row) give lanes several slots each.
HostGraph denseRows() { return randomGraph(6, 400, 0, 77); }

TEST_F(CudaKernels, EdgeSoftmaxMatchesTheCpu) {
  for (const HostGraph &g : {graph, denseRows()}) {
    SCOPED_TRACE(::testing::Message() << g.edges << " edges");
    const gnnrt_graph host = g.view();
    const gnnrt_graph device = upload(g);
    const int64_t heads = 3;
    // Scores up to 8 in magnitude, so the shift by the maximum matters.
    const std::vector<float> x = randomFloats(g.edges * heads, 51, -8, 8);
    std::vector<float> want(x.size());
    ASSERT_EQ(gnnrt_cpu_edge_softmax(&host, x.data(), heads, want.data()),
              GNNRT_OK);
    float *dx = upload(x);
    float *y = alloc<float>(x.size());
    ASSERT_CUDA_OK(gnnrt_cuda_edge_softmax(&device, dx, heads, y));
    const std::vector<float> got = download(y, x.size());
    EXPECT_TRUE(closeTo(got, want, kSoftmaxRtol));
    // Again, and in place: the out-of-place bits.
    ASSERT_CUDA_OK(gnnrt_cuda_edge_softmax(&device, dx, heads, y));
    EXPECT_TRUE(sameBits(download(y, x.size()), got));
    ASSERT_CUDA_OK(gnnrt_cuda_edge_softmax(&device, dx, heads, dx));
    EXPECT_TRUE(sameBits(download(dx, x.size()), got));
  }
}

TEST_F(CudaKernels, EdgeSoftmaxGradMatchesTheCpu) {
  for (const HostGraph &g : {graph, denseRows()}) {
    SCOPED_TRACE(::testing::Message() << g.edges << " edges");
    const gnnrt_graph host = g.view();
    const gnnrt_graph device = upload(g);
    const int64_t heads = 2;
    const std::vector<float> y = randomFloats(g.edges * heads, 61, 0, 1);
    const std::vector<float> dy = randomFloats(g.edges * heads, 62);
    std::vector<float> want(y.size());
    ASSERT_EQ(gnnrt_cpu_edge_softmax_grad(&host, y.data(), dy.data(), heads,
                                          want.data()),
              GNNRT_OK);
    float *dY = upload(y), *dDy = upload(dy);
    float *dx = alloc<float>(y.size());
    ASSERT_CUDA_OK(gnnrt_cuda_edge_softmax_grad(&device, dY, dDy, heads, dx));
    // The row's dot product is summed in the warp's order (kSumOrderRtol's
    // reasoning: terms of magnitude <= 1).
    const std::vector<float> got = download(dx, y.size());
    EXPECT_TRUE(closeTo(got, want, kSumOrderRtol));
    ASSERT_CUDA_OK(gnnrt_cuda_edge_softmax_grad(&device, dY, dDy, heads, dDy));
    EXPECT_TRUE(sameBits(download(dDy, y.size()), got));
    // Over the softmax output too (the planner may give the result either
    // operand's slot).
    float *dY2 = upload(y), *dDy2 = upload(dy);
    ASSERT_CUDA_OK(
        gnnrt_cuda_edge_softmax_grad(&device, dY2, dDy2, heads, dY2));
    EXPECT_TRUE(sameBits(download(dY2, y.size()), got));
  }
}

//===----------------------------------------------------------------------===//
// Sparse.cu: CSR feature matrices
//===----------------------------------------------------------------------===//

/// The sections of a CSR buffer downloaded to the host.
struct CsrSections {
  std::vector<int32_t> indptr, indices, colptr, rowidx, perm;
  std::vector<float> values;
};

CsrSections sections(std::vector<unsigned char> &bytes, int64_t rows,
                     int64_t cols, int64_t nnz) {
  const gnnrt_csr_matrix m =
      gnnrt_csr_matrix_view(bytes.data(), rows, cols, nnz);
  CsrSections s;
  s.indptr.assign(m.indptr, m.indptr + rows + 1);
  s.indices.assign(m.indices, m.indices + nnz);
  s.colptr.assign(m.colptr, m.colptr + cols + 1);
  s.rowidx.assign(m.rowidx, m.rowidx + nnz);
  s.perm.assign(m.perm, m.perm + nnz);
  s.values.assign(m.values, m.values + nnz);
  return s;
}

TEST_F(CudaKernels, CsrDropoutEqualsTheCpu) {
  HostCsrMatrix m = randomCsrMatrix(23, 37, 0.2, 71);
  const size_t size = m.bytes.size();
  void *x = upload(m.bytes);
  // p = 0 keeps all, 1 - 2^-33 drops all, the others use the bits.
  for (double p : {0.0, 0.3, 0.5, 1.0 - 0x1p-33}) {
    SCOPED_TRACE(p);
    std::vector<unsigned char> cpu(size + 64);
    // The CPU wants a 64-byte aligned output like its input.
    unsigned char *aligned =
        cpu.data() + (64 - reinterpret_cast<uintptr_t>(cpu.data()) % 64) % 64;
    ASSERT_EQ(gnnrt_cpu_csr_dropout(m.bytes.data(), m.rows, m.cols, m.nnz, 9, 4,
                                    2, p, aligned),
              GNNRT_OK);
    std::vector<unsigned char> want(aligned, aligned + size);
    unsigned char *y = alloc<unsigned char>(size);
    ASSERT_CUDA_OK(
        gnnrt_cuda_csr_dropout(x, m.rows, m.cols, m.nnz, 9, 4, 2, p, y));
    std::vector<unsigned char> got = download(y, size);
    CsrSections a = sections(got, m.rows, m.cols, m.nnz);
    CsrSections b = sections(want, m.rows, m.cols, m.nnz);
    EXPECT_TRUE(sameValues(a.indptr, b.indptr));
    EXPECT_TRUE(sameValues(a.indices, b.indices));
    EXPECT_TRUE(sameValues(a.colptr, b.colptr));
    EXPECT_TRUE(sameValues(a.rowidx, b.rowidx));
    EXPECT_TRUE(sameValues(a.perm, b.perm));
    EXPECT_TRUE(sameBits(a.values, b.values));
  }
}

TEST_F(CudaKernels, CsrMatmulMatchesTheCpu) {
  // 300 rows at density 0.25: about 75 slots per column, so A^T b's warps
  // take several each; n = 40 spans two tiles of 32 columns.
  HostCsrMatrix m = randomCsrMatrix(300, 19, 0.25, 81);
  void *a = upload(m.bytes);
  for (int transpose : {0, 1})
    for (int64_t n : {1, 5, 16, 40}) {
      SCOPED_TRACE(::testing::Message()
                   << "transpose " << transpose << " n " << n);
      const int64_t inner = transpose ? m.rows : m.cols;
      const int64_t outer = transpose ? m.cols : m.rows;
      const std::vector<float> b = randomFloats(inner * n, 82 + n);
      std::vector<float> want(outer * n);
      ASSERT_EQ(gnnrt_cpu_csr_matmul(m.bytes.data(), m.rows, m.cols, m.nnz,
                                     transpose, b.data(), n, want.data()),
                GNNRT_OK);
      float *c = alloc<float>(want.size());
      float *db = upload(b);
      ASSERT_CUDA_OK(
          gnnrt_cuda_csr_matmul(a, m.rows, m.cols, m.nnz, transpose, db, n, c));
      const std::vector<float> got = download(c, want.size());
      if (!transpose) {
        // A b adds in the CPU's CSR order.
        EXPECT_TRUE(sameBits(got, want));
        continue;
      }
      // A^T b adds a column's slots over 8 warps, then the warps in order:
      // about 75 terms of magnitude <= 1 (b in [-1, 1], values <= 1) against
      // results of several units, so reordering moves an element by at most
      // ~75 * 75 * 2^-24 ~ 3.4e-4 absolute in the worst case and typically
      // ~1e-6; 1e-4 of the largest admits that, while a wrong slot or row is
      // off by 1e-2 or more. The order is fixed: the same bits again.
      EXPECT_TRUE(closeTo(got, want, 1e-4));
      ASSERT_CUDA_OK(
          gnnrt_cuda_csr_matmul(a, m.rows, m.cols, m.nnz, transpose, db, n, c));
      EXPECT_TRUE(sameBits(download(c, want.size()), got));
    }
}

//===----------------------------------------------------------------------===//
// Dense.cu
//===----------------------------------------------------------------------===//

TEST_F(CudaKernels, ReduceEqualsTheCpu) {
  struct Shape {
    int64_t rows, cols;
  };
  // 200 rows span all 64 fixed blocks unevenly; empty shapes give 0.
  for (Shape s : {Shape{200, 7}, Shape{3, 130}, Shape{0, 5}, Shape{5, 0}})
    for (int kind : {GNNRT_REDUCE_SUM, GNNRT_REDUCE_MEAN, GNNRT_REDUCE_MAX})
      for (int dim : {0, 1}) {
        SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols << " kind "
                                          << kind << " dim " << dim);
        // Quarters give max ties (and signed zeros) across blocks.
        std::vector<float> x = kind == GNNRT_REDUCE_MAX
                                   ? randomQuarters(s.rows * s.cols, 91)
                                   : randomFloats(s.rows * s.cols, 92);
        for (size_t i = 0; i < x.size(); i += 17)
          if (x[i] == 0)
            x[i] = -0.0f;
        const int64_t kept = dim == 0 ? s.cols : s.rows;
        std::vector<float> want(kept);
        ASSERT_EQ(
            gnnrt_cpu_reduce(kind, x.data(), s.rows, s.cols, dim, want.data()),
            GNNRT_OK);
        float *y = upload(std::vector<float>(kept, NAN));
        ASSERT_CUDA_OK(
            gnnrt_cuda_reduce(kind, upload(x), s.rows, s.cols, dim, y));
        EXPECT_TRUE(sameBits(download(y, kept), want));
      }
}

TEST_F(CudaKernels, HeadMatrixEqualsTheCpu) {
  for (int kind : {GNNRT_HEADS_SUM, GNNRT_HEADS_MEAN, GNNRT_HEADS_SPREAD}) {
    const int64_t heads = 3, width = 4;
    const int64_t count =
        heads * width * (kind == GNNRT_HEADS_MEAN ? width : heads);
    std::vector<float> want(count);
    ASSERT_EQ(gnnrt_cpu_head_matrix(kind, heads, width, want.data()), GNNRT_OK);
    float *y = upload(std::vector<float>(count, NAN));
    ASSERT_CUDA_OK(gnnrt_cuda_head_matrix(kind, heads, width, y));
    EXPECT_TRUE(sameBits(download(y, count), want));
  }
}

TEST_F(CudaKernels, ConcatAndSliceEqualTheCpu) {
  const int64_t rows = 11;
  const std::vector<int64_t> widths = {3, 0, 5, 1};
  std::vector<std::vector<float>> inputs;
  std::vector<const float *> hostPtrs, devicePtrs;
  int64_t total = 0;
  for (size_t i = 0; i < widths.size(); ++i) {
    inputs.push_back(randomFloats(rows * widths[i], 100 + i));
    hostPtrs.push_back(inputs.back().data());
    devicePtrs.push_back(upload(inputs.back()));
    total += widths[i];
  }
  std::vector<float> want(rows * total);
  ASSERT_EQ(gnnrt_cpu_concat(hostPtrs.data(), widths.data(),
                             static_cast<int64_t>(widths.size()), rows,
                             want.data()),
            GNNRT_OK);
  float *y = alloc<float>(want.size());
  ASSERT_CUDA_OK(gnnrt_cuda_concat(devicePtrs.data(), widths.data(),
                                   static_cast<int64_t>(widths.size()), rows,
                                   y));
  EXPECT_TRUE(sameBits(download(y, want.size()), want));

  for (int64_t offset : {0, 2, 8})
    for (int64_t width : {int64_t{0}, total - offset}) {
      std::vector<float> part(rows * width);
      ASSERT_EQ(
          gnnrt_cpu_slice(want.data(), rows, total, offset, width, part.data()),
          GNNRT_OK);
      float *s = alloc<float>(part.size());
      ASSERT_CUDA_OK(gnnrt_cuda_slice(y, rows, total, offset, width, s));
      EXPECT_TRUE(sameBits(download(s, part.size()), part));
    }
}

TEST_F(CudaKernels, InsertColumnsEqualsTheCpu) {
  // Into another buffer and over its input (the planner's use).
  const int64_t rows = 11, cols = 9;
  const std::vector<float> x = randomFloats(rows * cols, 120);
  for (int64_t offset : {0, 3})
    for (int64_t width : {int64_t{0}, cols - offset}) {
      SCOPED_TRACE(::testing::Message()
                   << "offset " << offset << ", width " << width);
      const std::vector<float> block = randomFloats(rows * width, 121);
      std::vector<float> want(rows * cols);
      ASSERT_EQ(gnnrt_cpu_insert_columns(x.data(), block.data(), rows, cols,
                                         offset, width, want.data()),
                GNNRT_OK);
      float *dx = upload(x), *db = upload(block), *dy = alloc<float>(x.size());
      ASSERT_CUDA_OK(
          gnnrt_cuda_insert_columns(dx, db, rows, cols, offset, width, dy));
      EXPECT_TRUE(sameBits(download(dy, want.size()), want));
      ASSERT_CUDA_OK(
          gnnrt_cuda_insert_columns(dx, db, rows, cols, offset, width, dx));
      EXPECT_TRUE(sameBits(download(dx, want.size()), want));
    }
}

TEST_F(CudaKernels, MatmulInPlaceEqualsOutOfPlace) {
  // c = a b written over a: 20000 rows of 64 floats take two 4 MiB tiles.
  // The tiles make their own cuBLAS calls, so the bits may differ from
  // one call over all rows; each element is checked to the product's
  // rounding bound instead (as CudaDevice.MatmulMatchesTheCpu does).
  const int64_t m = 20000, k = 64;
  const std::vector<float> a = randomFloats(m * k, 122);
  const std::vector<float> b = randomFloats(k * k, 123);
  for (int tb : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "transpose_b " << tb);
    float *da = upload(a), *db = upload(b), *dc = alloc<float>(a.size());
    ASSERT_CUDA_OK(gnnrt_cuda_matmul(da, db, m, k, k, 0, tb, dc));
    const std::vector<float> want = download(dc, a.size());
    ASSERT_CUDA_OK(gnnrt_cuda_matmul(da, db, m, k, k, 0, tb, da));
    const std::vector<float> got = download(da, a.size());
    const double gamma =
        k * std::ldexp(1.0, -24) / (1 - k * std::ldexp(1.0, -24));
    for (int64_t i = 0; i < m * k; ++i)
      ASSERT_NEAR(got[i], want[i], 2 * gamma * k) << "element " << i;
    EXPECT_EQ(gnnrt_cuda_matmul(da, db, m, k, k, 1, tb, da),
              GNNRT_ERR_BAD_ARGUMENT);
  }
}

TEST_F(CudaKernels, NormalizeAndItsGradientEqualTheCpu) {
  struct Shape {
    int64_t rows, cols;
  };
  for (Shape s : {Shape{130, 9}, Shape{4, 70}, Shape{1, 3}})
    for (int dim : {0, 1}) {
      SCOPED_TRACE(::testing::Message()
                   << s.rows << "x" << s.cols << " dim " << dim);
      const int64_t count = s.rows * s.cols;
      const std::vector<float> x = randomFloats(count, 111, -3, 5);
      const std::vector<float> dy = randomFloats(count, 112);
      const double eps = 1e-5;
      std::vector<float> want(count), wantGrad(count);
      ASSERT_EQ(
          gnnrt_cpu_normalize(x.data(), s.rows, s.cols, dim, eps, want.data()),
          GNNRT_OK);
      ASSERT_EQ(gnnrt_cpu_normalize_grad(x.data(), dy.data(), s.rows, s.cols,
                                         dim, eps, wantGrad.data()),
                GNNRT_OK);
      float *dX = upload(x), *dDy = upload(dy), *y = alloc<float>(count);
      ASSERT_CUDA_OK(gnnrt_cuda_normalize(dX, s.rows, s.cols, dim, eps, y));
      EXPECT_TRUE(sameBits(download(y, count), want));
      ASSERT_CUDA_OK(
          gnnrt_cuda_normalize_grad(dX, dDy, s.rows, s.cols, dim, eps, y));
      EXPECT_TRUE(sameBits(download(y, count), wantGrad));
      // In place: the gradient over dy, then the forward over x.
      ASSERT_CUDA_OK(
          gnnrt_cuda_normalize_grad(dX, dDy, s.rows, s.cols, dim, eps, dDy));
      EXPECT_TRUE(sameBits(download(dDy, count), wantGrad));
      ASSERT_CUDA_OK(gnnrt_cuda_normalize(dX, s.rows, s.cols, dim, eps, dX));
      EXPECT_TRUE(sameBits(download(dX, count), want));
    }
}

TEST_F(CudaKernels, DropoutEqualsTheCpu) {
  // 1001 elements: a partial last block. Runs of +0.0 take the CPU's
  // shortcut for all-zero blocks, which must not change a bit; -0.0 is
  // kept as -0.0.
  const int64_t n = 1001;
  std::vector<float> x = randomFloats(n, 121);
  for (int64_t i = 100; i < 180; ++i)
    x[i] = 0.0f;
  x[7] = -0.0f;
  x[8] = std::numeric_limits<float>::denorm_min();
  x[9] = std::numeric_limits<float>::infinity();
  for (double p : {0.0, 0.1, 0.5, 0.9, 1.0 - 0x1p-33}) {
    SCOPED_TRACE(p);
    std::vector<float> want(n);
    ASSERT_EQ(gnnrt_cpu_dropout(x.data(), n, 5, 17, 3, p, want.data()),
              GNNRT_OK);
    float *dx = upload(x), *y = alloc<float>(n);
    ASSERT_CUDA_OK(gnnrt_cuda_dropout(dx, n, 5, 17, 3, p, y));
    EXPECT_TRUE(sameBits(download(y, n), want));
    ASSERT_CUDA_OK(gnnrt_cuda_dropout(dx, n, 5, 17, 3, p, dx));
    EXPECT_TRUE(sameBits(download(dx, n), want));
  }
}

TEST_F(CudaKernels, ConversionsEqualTheCpu) {
  // Special values bit by bit (NaN payloads, signalling NaNs, subnormals,
  // rounding ties, the overflow edges of fp16), then random bit patterns.
  std::vector<uint32_t> bits = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
      0x7f800001u, 0xffa5a5a5u, 0x7fbfffffu, 0x00000001u, 0x807fffffu,
      0x3f808000u, 0x3f818000u, 0x477fefffu, 0x477ff000u, 0x47800000u,
      0x33000000u, 0x33000001u, 0x387fc000u, 0x38800000u, 0x7f7fffffu};
  std::mt19937 rng(131);
  for (int i = 0; i < 4000; ++i)
    bits.push_back(rng());
  std::vector<float> f(bits.size());
  std::memcpy(f.data(), bits.data(), bits.size() * 4);
  std::vector<uint16_t> halves(1 << 16);
  for (size_t i = 0; i < halves.size(); ++i)
    halves[i] = static_cast<uint16_t>(i);
  const int64_t n = static_cast<int64_t>(f.size());
  const int64_t h = static_cast<int64_t>(halves.size());
  const float *dF = upload(f);
  const uint16_t *dH = upload(halves);

  std::vector<uint16_t> want16(n);
  uint16_t *narrow = alloc<uint16_t>(n);
  ASSERT_EQ(gnnrt_cpu_f32_to_bf16(f.data(), want16.data(), n), GNNRT_OK);
  ASSERT_CUDA_OK(gnnrt_cuda_f32_to_bf16(dF, narrow, n));
  EXPECT_TRUE(sameValues(download(narrow, n), want16));
  ASSERT_EQ(gnnrt_cpu_f32_to_f16(f.data(), want16.data(), n), GNNRT_OK);
  ASSERT_CUDA_OK(gnnrt_cuda_f32_to_f16(dF, narrow, n));
  EXPECT_TRUE(sameValues(download(narrow, n), want16));

  // Every 16-bit pattern widened.
  std::vector<float> want32(h);
  float *wide = alloc<float>(h);
  ASSERT_EQ(gnnrt_cpu_bf16_to_f32(halves.data(), want32.data(), h), GNNRT_OK);
  ASSERT_CUDA_OK(gnnrt_cuda_bf16_to_f32(dH, wide, h));
  EXPECT_TRUE(sameBits(download(wide, h), want32));
  ASSERT_EQ(gnnrt_cpu_f16_to_f32(halves.data(), want32.data(), h), GNNRT_OK);
  ASSERT_CUDA_OK(gnnrt_cuda_f16_to_f32(dH, wide, h));
  EXPECT_TRUE(sameBits(download(wide, h), want32));
}

//===----------------------------------------------------------------------===//
// Train.cu
//===----------------------------------------------------------------------===//

TEST_F(CudaKernels, InitEqualsTheCpu) {
  const int64_t n = 999;
  for (int kind : {GNNRT_INIT_GLOROT, GNNRT_INIT_KAIMING, GNNRT_INIT_ZEROS,
                   GNNRT_INIT_ONES}) {
    SCOPED_TRACE(kind);
    std::vector<float> want(n);
    ASSERT_EQ(gnnrt_cpu_init(kind, 77, 5, 33, 30, n, want.data()), GNNRT_OK);
    float *y = upload(std::vector<float>(n, NAN));
    ASSERT_CUDA_OK(gnnrt_cuda_init(kind, 77, 5, 33, 30, n, y));
    EXPECT_TRUE(sameBits(download(y, n), want));
  }
}

// The loss and its gradient take exp and log in double, where CUDA's may
// differ from glibc's in the last bit; rounded to fp32 the results are
// equal or one fp32 ulp apart (2^-23 relative ~ 1.2e-7): 1e-6 of the
// largest magnitude admits that and nothing a wrong label, weight or mask
// would give.
constexpr double kLossRtol = 1e-6;

TEST_F(CudaKernels, CrossEntropyMatchesTheCpu) {
  const int64_t n = 300, classes = 7;
  const std::vector<float> logits = randomFloats(n * classes, 141, -4, 4);
  std::mt19937_64 rng(142);
  std::uniform_int_distribution<int32_t> label(-1, classes - 1);
  std::vector<int32_t> labels(n);
  std::vector<uint8_t> mask(n);
  for (int64_t i = 0; i < n; ++i) {
    labels[i] = label(rng);
    mask[i] = static_cast<uint8_t>(rng() % 3 != 0);
  }
  const float lossGrad = 0.75f;
  const float *dLogits = upload(logits);
  const int32_t *dLabels = upload(labels);
  const uint8_t *dMask = upload(mask);
  const float *dLossGrad = upload(std::vector<float>{lossGrad});
  for (bool masked : {true, false})
    for (double smoothing : {0.0, 0.1})
      for (int weights :
           {GNNRT_CLASS_WEIGHTS_NONE, GNNRT_CLASS_WEIGHTS_BALANCED}) {
        SCOPED_TRACE(::testing::Message()
                     << "masked " << masked << " smoothing " << smoothing
                     << " weights " << weights);
        const uint8_t *m = masked ? mask.data() : nullptr;
        float want = NAN;
        ASSERT_EQ(gnnrt_cpu_cross_entropy(logits.data(), labels.data(), m, n,
                                          classes, smoothing, weights, &want),
                  GNNRT_OK);
        float *loss = upload(std::vector<float>{NAN});
        ASSERT_CUDA_OK(
            gnnrt_cuda_cross_entropy(dLogits, dLabels, masked ? dMask : nullptr,
                                     n, classes, smoothing, weights, loss));
        EXPECT_TRUE(closeTo(download(loss, 1), {want}, kLossRtol));

        std::vector<float> wantGrad(n * classes);
        ASSERT_EQ(gnnrt_cpu_cross_entropy_grad(logits.data(), labels.data(), m,
                                               &lossGrad, n, classes, smoothing,
                                               weights, wantGrad.data()),
                  GNNRT_OK);
        float *grad = alloc<float>(wantGrad.size());
        ASSERT_CUDA_OK(gnnrt_cuda_cross_entropy_grad(
            dLogits, dLabels, masked ? dMask : nullptr, dLossGrad, n, classes,
            smoothing, weights, grad));
        EXPECT_TRUE(
            closeTo(download(grad, wantGrad.size()), wantGrad, kLossRtol));
      }
}

TEST_F(CudaKernels, CrossEntropyRejectsABadLabelOnTheDevice) {
  const int64_t n = 50, classes = 4;
  std::vector<int32_t> labels(n, 1);
  std::vector<uint8_t> mask(n, 1);
  labels[37] = classes; // counted and out of range
  labels[12] = 99;      // out of range but masked out: not counted
  mask[12] = 0;
  const float *logits = upload(randomFloats(n * classes, 151));
  const int32_t *dLabels = upload(labels);
  const uint8_t *dMask = upload(mask);
  float *loss = upload(std::vector<float>{-3.0f});
  EXPECT_EQ(gnnrt_cuda_cross_entropy(logits, dLabels, dMask, n, classes, 0.0,
                                     GNNRT_CLASS_WEIGHTS_NONE, loss),
            GNNRT_ERR_BAD_ARGUMENT);
  float *grad = upload(std::vector<float>(n * classes, -3.0f));
  const float *one = upload(std::vector<float>{1.0f});
  EXPECT_EQ(gnnrt_cuda_cross_entropy_grad(logits, dLabels, dMask, one, n,
                                          classes, 0.0,
                                          GNNRT_CLASS_WEIGHTS_BALANCED, grad),
            GNNRT_ERR_BAD_ARGUMENT);
  // Nothing was written.
  EXPECT_EQ(download(loss, 1)[0], -3.0f);
  const std::vector<float> g = download(grad, n * classes);
  EXPECT_TRUE(
      std::all_of(g.begin(), g.end(), [](float v) { return v == -3.0f; }));
  // Only the masked-out label is bad: fine.
  labels[37] = 0;
  ASSERT_CUDA_OK(gnnrt_cuda_cross_entropy(logits, upload(labels), dMask, n,
                                          classes, 0.0,
                                          GNNRT_CLASS_WEIGHTS_NONE, loss));
}

TEST_F(CudaKernels, OptimizersEqualTheCpu) {
  const int64_t n = 777;
  const std::vector<float> param = randomFloats(n, 161);
  const std::vector<float> grad = randomFloats(n, 162);
  const std::vector<float> m = randomFloats(n, 163, -0.1f, 0.1f);
  const std::vector<float> v = randomFloats(n, 164, 0, 0.01f);
  for (int decoupled : {0, 1}) {
    SCOPED_TRACE(decoupled);
    std::vector<float> p1(n), m1(n), v1(n);
    ASSERT_EQ(gnnrt_cpu_adam(param.data(), grad.data(), m.data(), v.data(), n,
                             3, 0.01, 0.9, 0.999, 1e-8, 5e-4, decoupled,
                             p1.data(), m1.data(), v1.data()),
              GNNRT_OK);
    // In place, as the planner updates parameters.
    float *dP = upload(param), *dM = upload(m), *dV = upload(v);
    ASSERT_CUDA_OK(gnnrt_cuda_adam(dP, upload(grad), dM, dV, n, 3, 0.01, 0.9,
                                   0.999, 1e-8, 5e-4, decoupled, dP, dM, dV));
    EXPECT_TRUE(sameBits(download(dP, n), p1));
    EXPECT_TRUE(sameBits(download(dM, n), m1));
    EXPECT_TRUE(sameBits(download(dV, n), v1));
  }
  for (double momentum : {0.0, 0.9})
    for (int nesterov : {0, 1}) {
      SCOPED_TRACE(::testing::Message()
                   << "momentum " << momentum << " nesterov " << nesterov);
      const bool withBuffer = momentum > 0;
      std::vector<float> p1(n), b1(n);
      ASSERT_EQ(gnnrt_cpu_sgd(param.data(), grad.data(),
                              withBuffer ? m.data() : nullptr, n, 0.05,
                              momentum, 1e-4, nesterov, p1.data(),
                              withBuffer ? b1.data() : nullptr),
                GNNRT_OK);
      float *dP = upload(param), *dB = upload(m);
      ASSERT_CUDA_OK(gnnrt_cuda_sgd(dP, upload(grad), withBuffer ? dB : nullptr,
                                    n, 0.05, momentum, 1e-4, nesterov, dP,
                                    withBuffer ? dB : nullptr));
      EXPECT_TRUE(sameBits(download(dP, n), p1));
      if (withBuffer) {
        EXPECT_TRUE(sameBits(download(dB, n), b1));
      }
    }
}

#else // !GNNRT_HAVE_CUDA

// The stand-in library: every library operation says this build has no
// CUDA, even for arguments the CPU kernel would reject.
TEST(CudaKernelChecks, UnavailableWithoutTheToolkit) {
  EXPECT_EQ(gnnrt_cuda_dropout(nullptr, 0, 0, 0, 0, 0.5, nullptr),
            GNNRT_ERR_NO_CUDA_BUILD);
  EXPECT_EQ(gnnrt_cuda_spmm(nullptr, 0, nullptr, 0, nullptr, 1, nullptr),
            GNNRT_ERR_NO_CUDA_BUILD);
}

#endif // GNNRT_HAVE_CUDA

} // namespace
