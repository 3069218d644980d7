//===- CpuTestUtil.h - Helpers for the CPU kernel tests ---------*- C++ -*-===//
//
// Graphs as the kernels see them (CSR views built here from edge lists, with
// no code from the runtime's data layer), fp32 copies of reference tensors,
// and the comparisons the conformance suite makes against the interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_UNITTESTS_RUNTIMECPU_CPUTESTUTIL_H
#define GNNC_TEST_UNITTESTS_RUNTIMECPU_CPUTESTUTIL_H

#include "compiler/Reference/Interpreter.h"
#include "gnnrt/Kernels.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt::cpu::test {

namespace ref = gnnc::ref;

/// The conformance tolerance, relative to the largest magnitude in the
/// reference result. Inputs are rounded to fp32 before both sides see them,
/// so the only differences are the kernels' own fp32 roundings: u = 2^-24
/// ~ 6e-8 per operation, and no element here takes more than a few dozen
/// operations on terms no larger than the result's scale, which bounds the
/// error near 1e-6 of that scale. Scaling by the tensor's largest element
/// rather than each element's own admits the cancellation every fp32
/// implementation has (x - mean, 1 - tanh^2, sums of signed terms), while a
/// real bug (a wrong edge, head, index or factor) is off by 1e-2 or more.
constexpr double kRtol = 1e-5;

/// A graph in both CSR views, owning the arrays `view()` points into.
struct CsrGraph {
  int64_t nodes = 0, edges = 0;
  std::vector<int32_t> inPtr, inSrc, inId, outPtr, outSrc, outId;

  gnnrt_graph view() const;
};

/// Builds both views of \p g. Within a row the slots are in decreasing edge
/// id, so kernels that must break ties by the lowest edge id cannot rely on
/// slot order.
CsrGraph toCsr(const ref::Graph &g);

/// \p g with a self loop per node appended (ids E .. E+N-1), as
/// gnn.add_self_loops defines it.
ref::Graph withSelfLoops(const ref::Graph &g);

/// A random tensor whose elements are fp32 values, so that the interpreter
/// and the kernels start from identical inputs.
ref::Tensor randomF32(std::vector<int64_t> shape, uint64_t seed, double lo = -1,
                      double hi = 1);
/// The same, rounded to multiples of 1/4: many exact ties for max.
ref::Tensor randomQuarters(std::vector<int64_t> shape, uint64_t seed);

std::vector<float> toF32(const ref::Tensor &t);

/// `tensor<AxBxf32>` (rank 0 gives `tensor<f32>`).
std::string tensorType(const std::vector<int64_t> &shape);
/// `!gnn.graph<NxE>`.
std::string graphType(int64_t nodes, int64_t edges);

/// A context with every gnnc dialect, and the interpreter around it.
class KernelTest : public ::testing::Test {
protected:
  KernelTest();

  /// Parses \p source and runs its @f on \p args; any error fails the test
  /// and gives no results.
  std::vector<ref::Value> reference(const std::string &source,
                                    const std::vector<ref::Value> &args);

  mlir::MLIRContext context;
};

/// Every element within kRtol of the reference, relative to the reference's
/// largest magnitude (exactly equal when it is all zeros).
::testing::AssertionResult closeTo(const std::vector<float> &got,
                                   const ref::Value &want, double rtol = kRtol,
                                   double atol = 0);
/// Every element equal to the reference rounded to fp32.
::testing::AssertionResult roundedEqual(const std::vector<float> &got,
                                        const ref::Value &want);

} // namespace gnnrt::cpu::test

#endif // GNNC_TEST_UNITTESTS_RUNTIMECPU_CPUTESTUTIL_H
