//===- InPlaceTest.cpp - Element-wise kernels writing over an operand -----===//
//
// gnn-assign-buffers gives an element-wise op's result the buffer of an
// operand that dies at it (passes/MemoryPlan/Liveness.h), so the generated
// code calls these kernels with the output equal to an input. Each kernel
// must then write what it writes into a separate buffer, bit for bit: every
// element-wise kernel, over each operand it reads at the element, with one
// and two threads, on a shape whose rows, vectors and Philox blocks end at
// odd places, with special values among the inputs (signed zeros, NaNs,
// infinities, subnormals).
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Kernels.h"

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

using gnnrt::cpu::bitsOf;
using gnnrt::cpu::test::specialValues;

constexpr int64_t kRows = 1031, kCols = 37, kN = kRows * kCols;

/// A kernel over two [kRows, kCols] operands (the second may be unused, or
/// a [kCols] row) writing y.
using Kernel = std::function<int(const float *a, const float *b, float *y)>;

struct Case {
  std::string name;
  Kernel kernel;
  /// The operands read at the element: 0 (a), 1 (b), or both.
  std::vector<int> inPlaceOperands;
  /// b is a [kCols] row (bias_add, row_mul).
  bool rowOperand = false;
};

std::vector<Case> cases() {
  std::vector<Case> all = {
      {"add",
       [](const float *a, const float *b, float *y) {
         return gnnrt_cpu_add(a, b, kN, y);
       },
       {0, 1}},
      {"sub",
       [](const float *a, const float *b, float *y) {
         return gnnrt_cpu_sub(a, b, kN, y);
       },
       {0, 1}},
      {"mul",
       [](const float *a, const float *b, float *y) {
         return gnnrt_cpu_mul(a, b, kN, y);
       },
       {0, 1}},
      {"scale",
       [](const float *a, const float *, float *y) {
         return gnnrt_cpu_scale(a, kN, 0.3, y);
       },
       {0}},
      {"bias_add",
       [](const float *a, const float *b, float *y) {
         return gnnrt_cpu_bias_add(a, b, kRows, kCols, y);
       },
       {0},
       true},
      {"row_mul",
       [](const float *a, const float *b, float *y) {
         return gnnrt_cpu_row_mul(a, b, kRows, kCols, y);
       },
       {0},
       true},
      {"dropout",
       [](const float *a, const float *, float *y) {
         return gnnrt_cpu_dropout(a, kN, 42, 7, 3, 0.3, y);
       },
       {0}},
  };
  for (int kind = GNNRT_ACT_RELU; kind <= GNNRT_ACT_TANH; ++kind) {
    all.push_back({"activation " + std::to_string(kind),
                   [kind](const float *a, const float *, float *y) {
                     return gnnrt_cpu_activation(kind, a, kN, 0.2, y);
                   },
                   {0}});
    all.push_back({"activation_grad " + std::to_string(kind),
                   [kind](const float *a, const float *b, float *y) {
                     return gnnrt_cpu_activation_grad(kind, a, b, kN, 0.2, y);
                   },
                   {0, 1}});
  }
  return all;
}

class InPlace : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { gnnrt_cpu_set_num_threads(GetParam()); }
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }
};

TEST_P(InPlace, EveryElementwiseKernelWritesOverEachOperandItReads) {
  const std::vector<float> a = specialValues(kN, 1), b = specialValues(kN, 2);
  for (const Case &c : cases()) {
    const std::vector<float> second =
        c.rowOperand ? std::vector<float>(b.begin(), b.begin() + kCols) : b;
    std::vector<float> apart(kN);
    ASSERT_EQ(c.kernel(a.data(), second.data(), apart.data()), GNNRT_OK)
        << c.name;
    for (int operand : c.inPlaceOperands) {
      std::vector<float> x = a, y = second;
      float *out = operand == 0 ? x.data() : y.data();
      ASSERT_EQ(c.kernel(x.data(), y.data(), out), GNNRT_OK) << c.name;
      int64_t bad = -1;
      for (int64_t i = 0; i < kN && bad < 0; ++i)
        if (bitsOf(out[i]) != bitsOf(apart[i]))
          bad = i;
      EXPECT_EQ(bad, -1) << c.name << " over operand " << operand
                         << ": first differing element " << bad;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, InPlace, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::to_string(info.param) + "Threads";
                         });

} // namespace
