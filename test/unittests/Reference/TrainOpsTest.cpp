//===- TrainOpsTest.cpp - losses and optimizers by hand -------------------===//
//
// Expected values are worked by hand in the comments (decimals from a
// calculator); optimizers follow PyTorch's update rules as the op
// descriptions state them. Tolerances: 1e-12 absolute for O(1) values.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace gnnc::ref;
using namespace gnnc::ref::test;

namespace {

using TrainOpsTest = IRTest;

IntTensor mask(std::vector<int64_t> bits) { return ints(std::move(bits)); }

std::string lossFn(int64_t n, const std::string &attrs) {
  std::string nn = std::to_string(n);
  return "func.func @f(%l: tensor<" + nn + "x3xf64>, %y: tensor<" + nn +
         "xi32>, %m: tensor<" + nn +
         "xi1>) -> tensor<f64> {\n"
         "  %0 = train.cross_entropy %l, %y, %m {" +
         attrs + "} : (tensor<" + nn + "x3xf64>, tensor<" + nn +
         "xi32>, tensor<" + nn +
         "xi1>) -> tensor<f64>\n  return %0 : tensor<f64>\n}\n";
}

double scalarOf(const std::vector<Value> &r) {
  if (r.size() != 1)
    return NAN;
  const Tensor &t = asTensor(r[0]);
  EXPECT_TRUE(t.shape.empty());
  return t.data.empty() ? NAN : t.data[0];
}

// Logits rows [0, 0, 0] (label 0), [1, 2, 3] (label 2), [5, -1, 0]
// (label -1, ignored). Row 0's log-softmax is ln(1/3) everywhere, so its
// loss is ln 3 with or without smoothing. Row 1: log-softmax [1, 2, 3] -
// lse, lse = 3 + ln(1 + e^-1 + e^-2) = 3.40760596444438; without smoothing
// its loss is 0.40760596444438; with s = 0.1, C = 3:
// 0.9 * 0.40760596444438 + (0.1/3)(2.40760596 + 1.40760596 + 0.40760596)
// = 0.5076059644443807.
const Tensor kLogits = tensor({3, 3}, {0, 0, 0, 1, 2, 3, 5, -1, 0});
const IntTensor kLabels = ints({0, 2, -1});

TEST_F(TrainOpsTest, CrossEntropyMaskedMeanIgnoresNegativeLabels) {
  double l0 = std::log(3.0), l1 = 0.40760596444438;
  double loss =
      scalarOf(run(lossFn(3, ""), {kLogits, kLabels, mask({1, 1, 1})}));
  EXPECT_NEAR(loss, (l0 + l1) / 2, 1e-12);
  // Masking row 1 out leaves row 0.
  loss = scalarOf(run(lossFn(3, ""), {kLogits, kLabels, mask({1, 0, 1})}));
  EXPECT_NEAR(loss, l0, 1e-12);
  // An empty mask gives 0.
  loss = scalarOf(run(lossFn(3, ""), {kLogits, kLabels, mask({0, 0, 0})}));
  EXPECT_EQ(loss, 0.0);
}

TEST_F(TrainOpsTest, CrossEntropyWithLabelSmoothing) {
  double loss = scalarOf(run(lossFn(3, "label_smoothing = 0.1 : f64"),
                             {kLogits, kLabels, mask({1, 1, 1})}));
  EXPECT_NEAR(loss, (std::log(3.0) + 0.5076059644443807) / 2, 1e-12);
}

TEST_F(TrainOpsTest, CrossEntropyBalancedWeightsUseMaskedClassCounts) {
  // Counted labels 0, 0, 0, 1 (row 4, class 2, is masked out): n = 4,
  // w0 = 4 / (3 * 3) = 4/9, w1 = 4 / (3 * 1) = 4/3. Losses: [1, 0, 0] ->
  // ln(1 + 2/e) = 0.5514447139320511; [0, 1, 0] and [0, 0, 1] ->
  // ln(e + 2) = 1.5514447139320511; [2, 1, 0] with label 1 ->
  // ln(e^2 + e + 1) - 1 = 1.40760596444438. Loss = (4/9 * 3.6543341417961533
  // + 4/3 * 1.40760596444438) / (4/9 * 3 + 4/3).
  auto r = run(lossFn(5, "class_weights = #train<class_weights balanced>"),
               {tensor({5, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 1, 0, 0, 0, 5}),
                ints({0, 0, 0, 1, 2}), mask({1, 1, 1, 1, 0})});
  double expected =
      (4.0 / 9 * 3.6543341417961533 + 4.0 / 3 * 1.40760596444438) / (8.0 / 3);
  EXPECT_NEAR(scalarOf(r), expected, 1e-12);
}

std::string lossAndGrad(const std::string &attrs) {
  return R"(
func.func @loss(%l: tensor<4x3xf64>, %y: tensor<4xi32>, %m: tensor<4xi1>) -> tensor<f64> {
  %0 = train.cross_entropy %l, %y, %m {)" +
         attrs +
         R"(} : (tensor<4x3xf64>, tensor<4xi32>, tensor<4xi1>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @grad(%l: tensor<4x3xf64>, %y: tensor<4xi32>, %m: tensor<4xi1>, %d: tensor<f64>) -> tensor<4x3xf64> {
  %0 = train.cross_entropy_grad %l, %y, %m, %d {)" +
         attrs +
         R"(} : (tensor<4x3xf64>, tensor<4xi32>, tensor<4xi1>, tensor<f64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
})";
}

TEST_F(TrainOpsTest, CrossEntropyGradByHand) {
  // Only row 0 counts: uniform logits, label 0, no smoothing, dloss = 2:
  // 2 (softmax - onehot) / 1 = 2 [1/3 - 1, 1/3, 1/3]; other rows 0.
  auto r = run(lossAndGrad(""),
               {Tensor::zeros({4, 3}), ints({0, 1, 2, -1}), mask({1, 0, 0, 1}),
                tensor({}, {2})},
               "grad");
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 3},
               {-4.0 / 3, 2.0 / 3, 2.0 / 3, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}

TEST_F(TrainOpsTest, CrossEntropyGradMatchesFiniteDifferences) {
  const std::string src =
      lossAndGrad("label_smoothing = 0.2 : f64, class_weights = "
                  "#train<class_weights balanced>");
  Tensor logits = randomTensor({4, 3}, 5, -2, 2);
  IntTensor labels = ints({0, 2, 2, 1});
  IntTensor m = mask({1, 1, 1, 0});
  auto g = run(src, {logits, labels, m, tensor({}, {1.5})}, "grad");
  ASSERT_EQ(g.size(), 1u);
  // Central differences, h = 1e-5: truncation ~h^2 = 1e-10, rounding
  // ~1e-16/h = 1e-11.
  const double h = 1e-5;
  for (size_t i = 0; i < logits.data.size(); ++i) {
    Tensor lp = logits, lm = logits;
    lp.data[i] += h;
    lm.data[i] -= h;
    double fd = 1.5 *
                (scalarOf(run(src, {lp, labels, m}, "loss")) -
                 scalarOf(run(src, {lm, labels, m}, "loss"))) /
                (2 * h);
    EXPECT_NEAR(asTensor(g[0]).data[i], fd, 1e-8) << "element " << i;
  }
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

const char *kAdamAttrs = "lr = 0.1 : f64, beta1 = 0.9 : f64, beta2 = 0.999 "
                         ": f64, eps = 1.0e-8 : f64";

TEST_F(TrainOpsTest, AdamTwoStepsWithBiasCorrection) {
  auto r = run(
      std::string(R"(
func.func @f(%p: tensor<2xf64>, %g1: tensor<2xf64>, %g2: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %z = gnn.zeros : tensor<2xf64>
  %t1 = arith.constant 1 : i64
  %t2 = arith.constant 2 : i64
  %p1, %m1, %v1 = train.adam %p, %g1, %z, %z, %t1 {)") +
          kAdamAttrs +
          R"(, weight_decay = 0.0 : f64} : tensor<2xf64>
  %p2, %m2, %v2 = train.adam %p1, %g2, %m1, %v1, %t2 {)" +
          kAdamAttrs + R"(, weight_decay = 0.0 : f64} : tensor<2xf64>
  return %p1, %p2, %m2, %v2 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
})",
      {tensor({2}, {1, -2}), tensor({2}, {0.5, 0.1}), tensor({2}, {-1, 0.1})});
  ASSERT_EQ(r.size(), 4u);
  // Element 0, step 1: m = 0.05, v = 0.00025, mh = 0.5, vh = 0.25:
  // p = 1 - 0.1 * 0.5 / (0.5 + 1e-8) = 0.900000002.
  // Step 2 with g = -1: m = 0.045 - 0.1 = -0.055, v = 0.00024975 + 0.001 =
  // 0.00124975; mh = -0.055 / 0.19, vh = 0.00124975 / 0.001999:
  // p = 0.900000002 + 0.1 * 0.2894736842 / (0.7906880... + 1e-8)
  //   = 0.9366103542405654.
  // Element 1 has a constant gradient 0.1, so mh = 0.1 and vh = 0.01 at
  // both steps: p = -2 - 2 * 0.1 * 0.1 / (0.1 + 1e-8).
  double step1 = 0.1 * 0.1 / (0.1 + 1e-8);
  expectTensor(r[0], {2}, {0.900000002, -2 - step1});
  expectTensor(r[1], {2}, {0.9366103542405654, -2 - 2 * step1});
  expectTensor(r[2], {2}, {-0.055, 0.019});
  expectTensor(r[3], {2}, {0.00124975, 1.999e-5});
}

TEST_F(TrainOpsTest, AdamL2DecayAndAdamWDecoupledDecay) {
  auto r = run(std::string(R"(
func.func @f(%p: tensor<1xf64>, %g: tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>) {
  %z = gnn.zeros : tensor<1xf64>
  %t = arith.constant 1 : i64
  %a, %am, %av = train.adam %p, %g, %z, %z, %t {)") +
                   kAdamAttrs +
                   R"(, weight_decay = 0.1 : f64} : tensor<1xf64>
  %w, %wm, %wv = train.adam %p, %g, %z, %z, %t {)" +
                   kAdamAttrs +
                   R"(, weight_decay = 0.1 : f64, decoupled} : tensor<1xf64>
  return %a, %w : tensor<1xf64>, tensor<1xf64>
})",
               {tensor({1}, {1}), tensor({1}, {0.5})});
  ASSERT_EQ(r.size(), 2u);
  // Adam: g = 0.5 + 0.1 * 1 = 0.6, mh = 0.6, vh = 0.36:
  // 1 - 0.1 * 0.6 / (0.6 + 1e-8).
  expectTensor(r[0], {1}, {1 - 0.06 / (0.6 + 1e-8)});
  // AdamW: p = 1 * (1 - 0.1 * 0.1) = 0.99, then the undecayed step:
  // 0.99 - 0.1 * 0.5 / (0.5 + 1e-8) = 0.890000002.
  expectTensor(r[1], {1}, {0.890000002});
}

TEST_F(TrainOpsTest, SgdPlainAndWithWeightDecay) {
  auto r = run(R"(
func.func @f(%p: tensor<1xf64>, %g: tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>) {
  %0 = train.sgd %p, %g {lr = 0.1 : f64} : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  %1 = train.sgd %p, %g {lr = 0.1 : f64, weight_decay = 0.1 : f64} : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  return %0, %1 : tensor<1xf64>, tensor<1xf64>
})",
               {tensor({1}, {1}), tensor({1}, {0.5})});
  ASSERT_EQ(r.size(), 2u);
  // 1 - 0.1 * 0.5; with decay g = 0.5 + 0.1 = 0.6: 1 - 0.06.
  expectTensor(r[0], {1}, {0.95});
  expectTensor(r[1], {1}, {0.94});
}

std::string sgdTwoSteps(const std::string &attrs) {
  return R"(
func.func @f(%p: tensor<1xf64>, %g: tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) {
  %z = gnn.zeros : tensor<1xf64>
  %p1, %b1 = train.sgd %p, %g, %z {)" +
         attrs +
         R"(} : (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
  %p2, %b2 = train.sgd %p1, %g, %b1 {)" +
         attrs +
         R"(} : (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
  return %p1, %b1, %p2, %b2 : tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>
})";
}

TEST_F(TrainOpsTest, SgdMomentumAndNesterov) {
  std::vector<Value> args = {tensor({1}, {1}), tensor({1}, {0.5})};
  // Momentum 0.9: buf = 0.5, p = 0.95; buf = 0.45 + 0.5 = 0.95,
  // p = 0.95 - 0.095 = 0.855.
  auto r = run(sgdTwoSteps("lr = 0.1 : f64, momentum = 0.9 : f64"), args);
  ASSERT_EQ(r.size(), 4u);
  expectTensor(r[0], {1}, {0.95});
  expectTensor(r[1], {1}, {0.5});
  expectTensor(r[2], {1}, {0.855});
  expectTensor(r[3], {1}, {0.95});
  // Nesterov: g + 0.9 buf = 0.5 + 0.45 = 0.95 -> p = 0.905; then
  // buf = 0.95, g = 0.5 + 0.855 = 1.355 -> p = 0.905 - 0.1355 = 0.7695.
  r = run(sgdTwoSteps("lr = 0.1 : f64, momentum = 0.9 : f64, nesterov"), args);
  ASSERT_EQ(r.size(), 4u);
  expectTensor(r[0], {1}, {0.905});
  expectTensor(r[1], {1}, {0.5});
  expectTensor(r[2], {1}, {0.7695});
  expectTensor(r[3], {1}, {0.95});
  // Momentum with decay: g = 0.5 + 0.1 * 1 = 0.6 -> buf 0.6, p = 0.94;
  // then g = 0.5 + 0.094 = 0.594, buf = 0.54 + 0.594 = 1.134,
  // p = 0.94 - 0.1134 = 0.8266.
  r = run(sgdTwoSteps(
              "lr = 0.1 : f64, momentum = 0.9 : f64, weight_decay = 0.1 : f64"),
          args);
  ASSERT_EQ(r.size(), 4u);
  expectTensor(r[0], {1}, {0.94});
  expectTensor(r[1], {1}, {0.6});
  expectTensor(r[2], {1}, {0.8266});
  expectTensor(r[3], {1}, {1.134});
}

} // namespace
