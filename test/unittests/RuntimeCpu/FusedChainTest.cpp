//===- FusedChainTest.cpp - gnnrt_cpu_fused against the separate kernels --===//
//
// A fused chain must write exactly what the chain's ops write when each
// runs as its own kernel: every kind, every activation, dropout at the
// rates with special paths (p = 0, a power-of-two keep, any other), shapes
// that cut rows, Philox blocks and tiles at odd places, special values
// (signed zeros, NaNs, infinities, subnormals), an output over its own
// input, and one and two threads. Malformed tables are statuses.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Kernels.h"

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using gnnrt::cpu::test::specialValues;

gnnrt_fused_op op(int32_t kind, int32_t a, int32_t b = -1, double param = 0,
                  int32_t activation = 0, uint64_t stream = 0) {
  return {kind, activation, a, b, param, 42, 7, stream};
}

/// Bit-for-bit equality, except that any NaN equals any NaN: IEEE 754
/// leaves open which payload an operation on two NaNs returns, and the
/// compiler may commute a + b, differently in the two loops.
void expectSameBits(const std::vector<float> &got,
                    const std::vector<float> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    if (gnnrt::cpu::bitsOf(got[i]) != gnnrt::cpu::bitsOf(want[i]) &&
        !(std::isnan(got[i]) && std::isnan(want[i]))) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", the separate kernels wrote " << want[i];
      return;
    }
}

/// One chain over [rows, cols]: inputs x, y, z ([rows, cols]) and
/// u, w ([cols]), run op by op through the separate kernels and through
/// gnnrt_cpu_fused, every result stored.
class FusedChain : public ::testing::TestWithParam<int> {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }

  /// The separate kernels' result of each op of \p ops.
  std::vector<std::vector<float>>
  separately(const std::vector<gnnrt_fused_op> &ops, int64_t cols,
             const std::vector<const float *> &inputs, int64_t n) {
    std::vector<std::vector<float>> results;
    auto at = [&](int32_t v) -> const float * {
      return v < static_cast<int32_t>(inputs.size())
                 ? inputs[v]
                 : results[v - inputs.size()].data();
    };
    for (const gnnrt_fused_op &o : ops) {
      std::vector<float> y(n);
      int status = GNNRT_OK;
      switch (o.kind) {
      case GNNRT_FUSED_ADD:
        status = gnnrt_cpu_add(at(o.a), at(o.b), n, y.data());
        break;
      case GNNRT_FUSED_SUB:
        status = gnnrt_cpu_sub(at(o.a), at(o.b), n, y.data());
        break;
      case GNNRT_FUSED_MUL:
        status = gnnrt_cpu_mul(at(o.a), at(o.b), n, y.data());
        break;
      case GNNRT_FUSED_SCALE:
        status = gnnrt_cpu_scale(at(o.a), n, o.param, y.data());
        break;
      case GNNRT_FUSED_ACTIVATION:
        status =
            gnnrt_cpu_activation(o.activation, at(o.a), n, o.param, y.data());
        break;
      case GNNRT_FUSED_ACTIVATION_GRAD:
        status = gnnrt_cpu_activation_grad(o.activation, at(o.a), at(o.b), n,
                                           o.param, y.data());
        break;
      case GNNRT_FUSED_BIAS_ADD:
        status = gnnrt_cpu_bias_add(at(o.a), at(o.b), n / cols, cols, y.data());
        break;
      case GNNRT_FUSED_ROW_MUL:
        status = gnnrt_cpu_row_mul(at(o.a), at(o.b), n / cols, cols, y.data());
        break;
      case GNNRT_FUSED_ZEROS:
        status = gnnrt_cpu_zeros(y.data(), n);
        break;
      case GNNRT_FUSED_DROPOUT:
        status = gnnrt_cpu_dropout(at(o.a), n, o.seed, o.step, o.stream,
                                   o.param, y.data());
        break;
      }
      EXPECT_EQ(status, GNNRT_OK);
      results.push_back(std::move(y));
    }
    return results;
  }

  /// Runs \p ops fused over [rows, cols] with every result an output and
  /// compares each with the separate kernels'.
  void check(const std::vector<gnnrt_fused_op> &ops, int64_t rows, int64_t cols,
             const std::string &what) {
    gnnrt_cpu_set_num_threads(GetParam());
    const int64_t n = rows * cols;
    const std::vector<float> x = specialValues(n, 1), y = specialValues(n, 2),
                             z = specialValues(n, 3),
                             u = specialValues(cols, 4),
                             w = specialValues(cols, 5);
    const std::vector<const float *> inputs = {x.data(), y.data(), z.data(),
                                               u.data(), w.data()};
    const std::vector<std::vector<float>> want =
        separately(ops, cols, inputs, n);
    std::vector<std::vector<float>> got(ops.size(),
                                        std::vector<float>(n, 123.0f));
    std::vector<float *> outputs;
    std::vector<int32_t> outputValues;
    for (size_t k = 0; k < ops.size(); ++k) {
      outputs.push_back(got[k].data());
      outputValues.push_back(static_cast<int32_t>(inputs.size() + k));
    }
    ASSERT_EQ(gnnrt_cpu_fused(ops.data(), static_cast<int32_t>(ops.size()), n,
                              cols, inputs.data(),
                              static_cast<int32_t>(inputs.size()),
                              outputs.data(), outputValues.data(),
                              static_cast<int32_t>(outputs.size())),
              GNNRT_OK);
    for (size_t k = 0; k < ops.size(); ++k)
      expectSameBits(got[k], want[k],
                     what + ", op " + std::to_string(k) + ", " +
                         std::to_string(rows) + " x " + std::to_string(cols));
  }
};

// Inputs: 0 = x, 1 = y, 2 = z ([rows, cols]); 3 = u, 4 = w ([cols]);
// results from 5.

TEST_P(FusedChain, GcnForwardAndBackward) {
  // bias_add, relu, dropout at GCN's p = 0.5; then the backward: dropout
  // of a gradient and relu's gradient at the forward's pre-activation.
  const std::vector<gnnrt_fused_op> forward = {
      op(GNNRT_FUSED_BIAS_ADD, 0, 3),
      op(GNNRT_FUSED_ACTIVATION, 5, -1, 0.01, GNNRT_ACT_RELU),
      op(GNNRT_FUSED_DROPOUT, 6, -1, 0.5, 0, 1)};
  const std::vector<gnnrt_fused_op> backward = {
      op(GNNRT_FUSED_DROPOUT, 1, -1, 0.5, 0, 1),
      op(GNNRT_FUSED_ACTIVATION_GRAD, 0, 5, 0.01, GNNRT_ACT_RELU)};
  // Tiles of 512 elements; rows that do not divide them, lengths that end
  // in a partial Philox block, and a size that takes the thread team.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1},
                            {3, 7},
                            {203, 13},
                            {97, 64},
                            {2000, 64},
                            {4099, 9}}) {
    check(forward, rows, cols, "forward");
    check(backward, rows, cols, "backward");
  }
}

TEST_P(FusedChain, EveryKindAndActivation) {
  for (int act = GNNRT_ACT_RELU; act <= GNNRT_ACT_TANH; ++act) {
    const std::vector<gnnrt_fused_op> ops = {
        op(GNNRT_FUSED_ADD, 0, 1),                         // 5
        op(GNNRT_FUSED_SUB, 5, 2),                         // 6
        op(GNNRT_FUSED_MUL, 6, 0),                         // 7
        op(GNNRT_FUSED_SCALE, 7, -1, 0.3),                 // 8
        op(GNNRT_FUSED_ROW_MUL, 8, 4),                     // 9
        op(GNNRT_FUSED_BIAS_ADD, 9, 3),                    // 10
        op(GNNRT_FUSED_ACTIVATION, 10, -1, 0.2, act),      // 11
        op(GNNRT_FUSED_ACTIVATION_GRAD, 10, 11, 0.2, act), // 12
        op(GNNRT_FUSED_DROPOUT, 12, -1, 0.3, 0, 3),        // 13
        op(GNNRT_FUSED_ZEROS, -1),                         // 14
        op(GNNRT_FUSED_ADD, 14, 13),                       // 15
        op(GNNRT_FUSED_DROPOUT, 15, -1, 0.0, 0, 4),        // 16: keeps all
        op(GNNRT_FUSED_DROPOUT, 16, -1, 0.75, 0, 5)};      // 17: keep 1/4
    check(ops, 301, 11, "activation " + std::to_string(act));
  }
}

TEST_P(FusedChain, OutputOverItsOwnInput) {
  gnnrt_cpu_set_num_threads(GetParam());
  const int64_t rows = 1500, cols = 64, n = rows * cols;
  const std::vector<float> x = specialValues(n, 11),
                           b = specialValues(cols, 12);
  const gnnrt_fused_op ops[] = {
      op(GNNRT_FUSED_BIAS_ADD, 0, 1),
      op(GNNRT_FUSED_ACTIVATION, 2, -1, 0.01, GNNRT_ACT_ELU),
      op(GNNRT_FUSED_DROPOUT, 3, -1, 0.6, 0, 9)};
  std::vector<float> apart(n), t1(n), t2(n);
  ASSERT_EQ(gnnrt_cpu_bias_add(x.data(), b.data(), rows, cols, t1.data()),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_activation(GNNRT_ACT_ELU, t1.data(), n, 0.01, t2.data()),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_dropout(t2.data(), n, 42, 7, 9, 0.6, apart.data()),
            GNNRT_OK);
  // The chain's result stored over x, which it reads.
  std::vector<float> inPlace = x;
  const float *inputs[] = {inPlace.data(), b.data()};
  float *outputs[] = {inPlace.data()};
  const int32_t outputValues[] = {4};
  ASSERT_EQ(
      gnnrt_cpu_fused(ops, 3, n, cols, inputs, 2, outputs, outputValues, 1),
      GNNRT_OK);
  expectSameBits(inPlace, apart, "in place");

  // A result stored over an input that a later op still reads: that op
  // must see the input, so the result cannot be written early.
  const gnnrt_fused_op reread[] = {op(GNNRT_FUSED_SCALE, 0, -1, 2.0),
                                   op(GNNRT_FUSED_ADD, 0, 1)};
  std::vector<float> twice(n), thrice(n);
  ASSERT_EQ(gnnrt_cpu_scale(x.data(), n, 2.0, twice.data()), GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_add(x.data(), twice.data(), n, thrice.data()), GNNRT_OK);
  std::vector<float> over = x, sum(n);
  const float *rereadInputs[] = {over.data()};
  float *rereadOutputs[] = {over.data(), sum.data()};
  const int32_t rereadValues[] = {1, 2};
  ASSERT_EQ(gnnrt_cpu_fused(reread, 2, n, cols, rereadInputs, 1, rereadOutputs,
                            rereadValues, 2),
            GNNRT_OK);
  expectSameBits(over, twice, "stored over an input read later");
  expectSameBits(sum, thrice, "the later op's result");
}

INSTANTIATE_TEST_SUITE_P(Threads, FusedChain, ::testing::Values(1, 2),
                         [](const auto &info) {
                           return std::to_string(info.param) + "Threads";
                         });

TEST(FusedChainArgs, MalformedTablesAreStatuses) {
  std::vector<float> x(64, 1.0f), b(8, 0.5f), y(64);
  const float *inputs[] = {x.data(), b.data()};
  float *outputs[] = {y.data()};
  int32_t outputValues[] = {2};
  auto run = [&](std::vector<gnnrt_fused_op> ops, int64_t n = 64,
                 int64_t cols = 8) {
    return gnnrt_cpu_fused(ops.data(), static_cast<int32_t>(ops.size()), n,
                           cols, inputs, 2, outputs, outputValues, 1);
  };
  EXPECT_EQ(run({op(GNNRT_FUSED_BIAS_ADD, 0, 1)}), GNNRT_OK);
  // An operand that is not yet computed, or out of range.
  EXPECT_EQ(run({op(GNNRT_FUSED_ADD, 0, 2)}), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(run({op(GNNRT_FUSED_SCALE, -1, -1, 2.0)}), GNNRT_ERR_BAD_ARGUMENT);
  // A broadcast operand that is a result, not a [cols] input.
  EXPECT_EQ(run({op(GNNRT_FUSED_ZEROS, -1), op(GNNRT_FUSED_BIAS_ADD, 0, 2)}),
            GNNRT_ERR_BAD_ARGUMENT);
  // Unknown kind and activation; dropout's p outside [0, 1).
  EXPECT_EQ(run({op(42, 0)}), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(run({op(GNNRT_FUSED_ACTIVATION, 0, -1, 0, 17)}),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(run({op(GNNRT_FUSED_DROPOUT, 0, -1, 1.0)}), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(run({op(GNNRT_FUSED_DROPOUT, 0, -1,
                    std::numeric_limits<double>::quiet_NaN())}),
            GNNRT_ERR_BAD_ARGUMENT);
  // n not whole rows; no ops; more than GNNRT_FUSED_MAX_OPS.
  EXPECT_EQ(run({op(GNNRT_FUSED_SCALE, 0, -1, 2.0)}, 60, 8),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(run({}), GNNRT_ERR_BAD_ARGUMENT);
  std::vector<gnnrt_fused_op> tooMany = {op(GNNRT_FUSED_SCALE, 0, -1, 2.0)};
  for (int32_t k = 1; k <= GNNRT_FUSED_MAX_OPS; ++k)
    tooMany.push_back(op(GNNRT_FUSED_SCALE, 1 + k, -1, 2.0));
  EXPECT_EQ(run(tooMany), GNNRT_ERR_BAD_ARGUMENT);
  tooMany.pop_back();
  EXPECT_EQ(run(tooMany), GNNRT_OK);
  // An output that names an input rather than a result; a null output.
  outputValues[0] = 0;
  EXPECT_EQ(run({op(GNNRT_FUSED_SCALE, 0, -1, 2.0)}), GNNRT_ERR_BAD_ARGUMENT);
  outputValues[0] = 2;
  outputs[0] = nullptr;
  EXPECT_EQ(run({op(GNNRT_FUSED_SCALE, 0, -1, 2.0)}), GNNRT_ERR_NULL_POINTER);
}

} // namespace
