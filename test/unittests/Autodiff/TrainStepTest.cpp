//===- TrainStepTest.cpp - Whole training steps from gnn-autodiff ---------===//
//
// A two-layer GCN with dropout on a small random graph goes through
// gnn-autodiff (plus canonicalize and CSE, as in the pipeline) and its step
// functions are run by the reference interpreter: every optimizer must fit
// a learnable labelling, a step must be reproducible bit for bit, one SGD
// and one Adam update must match the optimizers' formulas with gradients
// from finite differences, and accumulation must average micro-batches.
//
//===----------------------------------------------------------------------===//
#include "GradCheck.h"

#include "passes/Passes.h"
#include "passes/Pipeline/Pipeline.h"

#include "mlir/Transforms/Passes.h"

#include <cmath>

namespace gnnc::autodiff::test {
namespace {

using ref::randomTensor;

constexpr int64_t kNodes = 12, kFeatures = 6, kHidden = 16, kClasses = 3;
constexpr int64_t kSeed = 42;

// The GCN in primitives, as gnn-decompose leaves it, so that these tests
// depend on gnn-autodiff alone. {CONFIG} is the optimizer part of the
// train.config.
constexpr const char *kGcn = R"(
func.func @Gcn(%g: !gnn.graph<12x{E}> {gnn.input = "graph"},
               %x: tensor<12x6xf64> {gnn.input = "features"},
               %key: !gnn.rng_key {gnn.input = "rng_key"},
               %w0: tensor<6x16xf64> {gnn.param = "gcn_conv_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 6, 16>},
               %b0: tensor<16xf64> {gnn.param = "gcn_conv_0.bias", train.init = #train<init zeros>, train.fan = array<i64: 6, 16>},
               %w1: tensor<16x3xf64> {gnn.param = "gcn_conv_1.weight", train.init = #train<init glorot>, train.fan = array<i64: 16, 3>},
               %b1: tensor<3xf64> {gnn.param = "gcn_conv_1.bias", train.init = #train<init zeros>, train.fan = array<i64: 16, 3>})
    -> tensor<12x3xf64>
    attributes {gnn.model = "Gcn", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64,
      epochs = 100 : i64, seed = 42 : i64, {CONFIG}}} {
  %g1 = gnn.add_self_loops %g : !gnn.graph<12x{E}> -> !gnn.graph<12x{E1}>
  %norm = gnn.edge_norm symmetric %g1 : !gnn.graph<12x{E1}> -> tensor<{E1}xf64>
  %xw = gnn.matmul %x, %w0 : (tensor<12x6xf64>, tensor<6x16xf64>) -> tensor<12x16xf64>
  %a0 = gnn.spmm sum %g1, %xw, %norm : (!gnn.graph<12x{E1}>, tensor<12x16xf64>, tensor<{E1}xf64>) -> tensor<12x16xf64>
  %h0 = gnn.bias_add %a0, %b0 : (tensor<12x16xf64>, tensor<16xf64>) -> tensor<12x16xf64>
  %r0 = gnn.activation relu %h0 : tensor<12x16xf64>
  %d0 = gnn.dropout %r0, %key {p = 0.2 : f64, stream = 0 : i64} : tensor<12x16xf64>
  %hw = gnn.matmul %d0, %w1 : (tensor<12x16xf64>, tensor<16x3xf64>) -> tensor<12x3xf64>
  %a1 = gnn.spmm sum %g1, %hw, %norm : (!gnn.graph<12x{E1}>, tensor<12x3xf64>, tensor<{E1}xf64>) -> tensor<12x3xf64>
  %y = gnn.bias_add %a1, %b1 : (tensor<12x3xf64>, tensor<3xf64>) -> tensor<12x3xf64>
  return %y : tensor<12x3xf64>
}
)";

// The labels come from a random one-layer GCN "teacher" on the same graph,
// so a GCN can fit them.
constexpr const char *kTeacher = R"(
func.func @teacher(%g: !gnn.graph<12x{E}>, %x: tensor<12x6xf64>, %w: tensor<6x3xf64>) -> tensor<12x3xf64> {
  %g1 = gnn.add_self_loops %g : !gnn.graph<12x{E}> -> !gnn.graph<12x{E1}>
  %norm = gnn.edge_norm symmetric %g1 : !gnn.graph<12x{E1}> -> tensor<{E1}xf64>
  %xw = gnn.matmul %x, %w : (tensor<12x6xf64>, tensor<6x3xf64>) -> tensor<12x3xf64>
  %y = gnn.spmm sum %g1, %xw, %norm : (!gnn.graph<12x{E1}>, tensor<12x3xf64>, tensor<{E1}xf64>) -> tensor<12x3xf64>
  return %y : tensor<12x3xf64>
}
)";

constexpr int kParams = 4;

class TrainStep : public AutodiffTest {
protected:
  TrainStep() {
    graph = ref::randomGraph(kNodes, 3, 7, /*allowIsolated=*/false);
    subst = {{"E", std::to_string(graph.numEdges())},
             {"E1", std::to_string(graph.numEdges() + kNodes)}};
    features = randomTensor({kNodes, kFeatures}, 8);
    auto teacher = parse(kTeacher, subst);
    auto scores =
        run(*teacher, "teacher",
            {graph, features, randomTensor({kFeatures, kClasses}, 9)});
    labels.shape = {kNodes};
    mask.shape = {kNodes};
    for (int64_t i = 0; i < kNodes; ++i) {
      const Tensor &s = asTensor(scores.at(0));
      int64_t best = 0;
      for (int64_t c = 1; c < kClasses; ++c)
        if (s.at(i, c) > s.at(i, best))
          best = c;
      labels.data.push_back(best);
      // Two nodes are held out of training.
      mask.data.push_back(i % 6 == 5 ? 0 : 1);
    }
  }

  /// The model with \p config, through gnn-autodiff, canonicalize and CSE.
  mlir::OwningOpRef<mlir::ModuleOp> compile(const std::string &config) {
    auto s = subst;
    s["CONFIG"] = config;
    auto module = parse(kGcn, s);
    if (!module || !runPasses(*module, [](mlir::OpPassManager &pm) {
          pm.addPass(mlir::gnn::createGnnAutodiff());
          pm.addPass(mlir::createCanonicalizerPass());
          pm.addPass(mlir::createCSEPass());
        }))
      return nullptr;
    return module;
  }

  /// The arguments of @Gcn.step / @Gcn.grad_step before the parameters.
  std::vector<Value> dataArgs(int64_t step) const {
    return {graph, features, labels, mask, kSeed, step};
  }

  /// Runs @name with the data for \p step followed by \p state.
  std::vector<Value> runStep(mlir::ModuleOp module, const std::string &name,
                             int64_t step, const std::vector<Value> &state) {
    std::vector<Value> args = dataArgs(step);
    args.insert(args.end(), state.begin(), state.end());
    return run(module, name, args);
  }

  static double scalar(const Value &v) {
    const Tensor &t = asTensor(v);
    EXPECT_EQ(t.data.size(), 1u);
    return t.data.empty() ? NAN : t.data[0];
  }

  /// Trains for \p steps steps; returns the loss of every step.
  std::vector<double> train(const std::string &config, int steps) {
    auto module = compile(config);
    if (!module)
      return {};
    std::vector<Value> state = run(*module, "Gcn.init", {kSeed});
    std::vector<double> losses;
    for (int64_t step = 1; step <= steps; ++step) {
      std::vector<Value> out = runStep(*module, "Gcn.step", step, state);
      if (out.empty())
        return {};
      losses.push_back(scalar(out[0]));
      state.assign(out.begin() + 1, out.end());
    }
    return losses;
  }

  void expectLearns(const std::string &config, int steps) {
    std::vector<double> losses = train(config, steps);
    ASSERT_EQ(losses.size(), size_t(steps));
    // Dropout makes single steps noisy: judge the last five. Every
    // optimizer ends near 0.05 from about 1.03 (ln 3 at chance), so a
    // quarter of the first loss leaves a 5x margin, while noise or a
    // wrong-signed gradient could not get there.
    double last = 0;
    for (int i = steps - 5; i < steps; ++i)
      last += losses[i] / 5;
    EXPECT_LT(last, 0.25 * losses[0])
        << "first " << losses[0] << ", last five " << last;
  }

  /// d loss / d state[param][j] at step 1, by central differences of
  /// @Gcn.step's loss output (the loss at the parameters passed in, before
  /// their update).
  double lossGradient(mlir::ModuleOp module, const std::vector<Value> &state,
                      int param, size_t j) {
    std::vector<Value> plus(state), minus(state);
    double x = std::get<Tensor>(state[param]).data[j];
    double h = kStep * std::max(std::abs(x), 1.0);
    std::get<Tensor>(plus[param]).data[j] += h;
    std::get<Tensor>(minus[param]).data[j] -= h;
    return (scalar(runStep(module, "Gcn.step", 1, plus).at(0)) -
            scalar(runStep(module, "Gcn.step", 1, minus).at(0))) /
           (2 * h);
  }

  Graph graph;
  Tensor features;
  IntTensor labels, mask;
  std::map<std::string, std::string> subst;
};

const std::string kSgdPlain = "optimizer = \"sgd\", lr = 0.5 : f64, "
                              "weight_decay = 0.0 : f64, momentum = 0.0 : "
                              "f64, nesterov = false, accumulate = 1 : i64";

TEST_F(TrainStep, AdamLearns) {
  expectLearns("optimizer = \"adam\", lr = 0.02 : f64, weight_decay = 5.0e-4 "
               ": f64, momentum = 0.0 : f64, nesterov = false, accumulate = 1 "
               ": i64",
               60);
}

TEST_F(TrainStep, AdamWLearns) {
  expectLearns("optimizer = \"adamw\", lr = 0.02 : f64, weight_decay = 0.01 "
               ": f64, momentum = 0.0 : f64, nesterov = false, accumulate = 1 "
               ": i64",
               60);
}

TEST_F(TrainStep, SgdLearns) { expectLearns(kSgdPlain, 100); }

TEST_F(TrainStep, SgdMomentumLearns) {
  expectLearns("optimizer = \"sgd\", lr = 0.1 : f64, weight_decay = 0.0 : "
               "f64, momentum = 0.9 : f64, nesterov = false, accumulate = 1 "
               ": i64",
               80);
}

TEST_F(TrainStep, SgdNesterovWeightDecayLearns) {
  expectLearns("optimizer = \"sgd\", lr = 0.1 : f64, weight_decay = 5.0e-4 : "
               "f64, momentum = 0.9 : f64, nesterov = true, accumulate = 1 "
               ": i64",
               80);
}

// Dropout masks come from (seed, step), so a step is a pure function.
TEST_F(TrainStep, StepIsReproducibleBitForBit) {
  std::vector<double> first = train(kSgdPlain, 5), second = train(kSgdPlain, 5);
  ASSERT_EQ(first.size(), 5u);
  EXPECT_EQ(first, second);
  // ... while another step number draws another mask.
  auto module = compile(kSgdPlain);
  ASSERT_TRUE(module);
  std::vector<Value> state = run(*module, "Gcn.init", {kSeed});
  double l1 = scalar(runStep(*module, "Gcn.step", 1, state).at(0));
  double l2 = scalar(runStep(*module, "Gcn.step", 2, state).at(0));
  EXPECT_NE(l1, l2);
}

// Some entries of every parameter: the first and last of each, and a few of
// the big first weight.
std::vector<std::pair<int, size_t>> sampledEntries() {
  return {{0, 0},  {0, 7}, {0, 50}, {0, 95}, {1, 0},
          {1, 15}, {2, 0}, {2, 47}, {3, 0},  {3, 2}};
}

// One SGD step is param - lr * dloss/dparam, the gradient taken here by
// finite differences of the loss (error ~1e-10, so 1e-8 after the lr).
TEST_F(TrainStep, SgdUpdateMatchesFiniteDifferenceGradient) {
  auto module = compile("optimizer = \"sgd\", lr = 0.1 : f64, weight_decay "
                        "= 0.0 : f64, momentum = 0.0 : f64, nesterov = false, "
                        "accumulate = 1 : i64");
  ASSERT_TRUE(module);
  std::vector<Value> state = run(*module, "Gcn.init", {kSeed});
  ASSERT_EQ(state.size(), size_t(kParams));
  std::vector<Value> out = runStep(*module, "Gcn.step", 1, state);
  ASSERT_EQ(out.size(), size_t(1 + kParams));
  for (auto [param, j] : sampledEntries()) {
    SCOPED_TRACE("param " + std::to_string(param) + " entry " +
                 std::to_string(j));
    double old = asTensor(state[param]).data.at(j);
    double g = lossGradient(*module, state, param, j);
    EXPECT_NEAR(asTensor(out[1 + param]).data.at(j), old - 0.1 * g, 1e-8);
  }
}

// Adam's first step: m = (1 - beta1) g, v = (1 - beta2) g^2, and with the
// bias corrections param - lr g / (|g| + eps).
TEST_F(TrainStep, AdamFirstUpdateMatchesFormula) {
  auto module = compile("optimizer = \"adam\", lr = 0.01 : f64, "
                        "weight_decay = 0.0 : f64, momentum = 0.0 : f64, "
                        "nesterov = false, accumulate = 1 : i64");
  ASSERT_TRUE(module);
  std::vector<Value> state = run(*module, "Gcn.init", {kSeed});
  // Parameters, then (m, v) per parameter, all zero at first.
  ASSERT_EQ(state.size(), size_t(3 * kParams));
  std::vector<Value> out = runStep(*module, "Gcn.step", 1, state);
  ASSERT_EQ(out.size(), size_t(1 + 3 * kParams));
  for (auto [param, j] : sampledEntries()) {
    SCOPED_TRACE("param " + std::to_string(param) + " entry " +
                 std::to_string(j));
    double old = asTensor(state[param]).data.at(j);
    double g = lossGradient(*module, state, param, j);
    double m = asTensor(out[1 + kParams + 2 * param]).data.at(j);
    double v = asTensor(out[2 + kParams + 2 * param]).data.at(j);
    EXPECT_NEAR(m, 0.1 * g, 1e-10);
    EXPECT_NEAR(v, 0.001 * g * g, 1e-10);
    // Insensitive to the error of g unless |g| is tiny; it is not here.
    ASSERT_GT(std::abs(g), 1e-6);
    EXPECT_NEAR(asTensor(out[1 + param]).data.at(j),
                old - 0.01 * g / (std::abs(g) + 1e-8), 1e-9);
  }
}

// accumulate = 2: two grad steps then apply_step equal the mean of the two
// single steps taken from the same parameters (SGD is linear in the
// gradient), and the losses are those of the single steps.
TEST_F(TrainStep, AccumulationAveragesMicroBatches) {
  std::string common = "optimizer = \"sgd\", lr = 0.1 : f64, weight_decay = "
                       "0.0 : f64, momentum = 0.0 : f64, nesterov = false, ";
  auto split = compile(common + "accumulate = 2 : i64");
  auto single = compile(common + "accumulate = 1 : i64");
  ASSERT_TRUE(split && single);

  // @Gcn.init also returns the (zero) accumulators.
  std::vector<Value> init = run(*split, "Gcn.init", {kSeed});
  ASSERT_EQ(init.size(), size_t(2 * kParams));
  std::vector<Value> params(init.begin(), init.begin() + kParams);
  std::vector<Value> accs(init.begin() + kParams, init.end());
  for (const Value &a : accs)
    for (double v : asTensor(a).data)
      ASSERT_EQ(v, 0.0);

  std::vector<double> losses;
  for (int64_t step = 1; step <= 2; ++step) {
    std::vector<Value> state(params);
    state.insert(state.end(), accs.begin(), accs.end());
    std::vector<Value> out = runStep(*split, "Gcn.grad_step", step, state);
    ASSERT_EQ(out.size(), size_t(1 + kParams));
    losses.push_back(scalar(out[0]));
    accs.assign(out.begin() + 1, out.end());
  }
  std::vector<Value> applyArgs{int64_t(1)};
  applyArgs.insert(applyArgs.end(), params.begin(), params.end());
  applyArgs.insert(applyArgs.end(), accs.begin(), accs.end());
  std::vector<Value> applied = run(*split, "Gcn.apply_step", applyArgs);
  ASSERT_EQ(applied.size(), size_t(2 * kParams));

  std::vector<Value> one = runStep(*single, "Gcn.step", 1, params);
  std::vector<Value> two = runStep(*single, "Gcn.step", 2, params);
  ASSERT_EQ(one.size(), size_t(1 + kParams));
  ASSERT_EQ(two.size(), size_t(1 + kParams));
  EXPECT_EQ(losses[0], scalar(one[0]));
  EXPECT_EQ(losses[1], scalar(two[0]));
  EXPECT_NE(losses[0], losses[1]) << "the micro-batches share a mask";
  for (int p = 0; p < kParams; ++p) {
    const Tensor &got = asTensor(applied[p]);
    const Tensor &a = asTensor(one[1 + p]), &b = asTensor(two[1 + p]);
    for (size_t j = 0; j < got.data.size(); ++j)
      EXPECT_NEAR(got.data[j], 0.5 * (a.data[j] + b.data[j]), 1e-12)
          << "param " << p << " entry " << j;
    for (double v : asTensor(applied[kParams + p]).data)
      EXPECT_EQ(v, 0.0);
  }
}

// The same model written with layer ops, through the whole pipeline
// (gnn-decompose first): its first step agrees with the primitives' up to
// rounding, and it learns.
TEST_F(TrainStep, FullPipelineFromLayerOps) {
  const char *layers = R"(
func.func @Gcn(%g: !gnn.graph<12x{E}> {gnn.input = "graph"},
               %x: tensor<12x6xf64> {gnn.input = "features"},
               %key: !gnn.rng_key {gnn.input = "rng_key"},
               %w0: tensor<6x16xf64> {gnn.param = "gcn_conv_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 6, 16>},
               %b0: tensor<16xf64> {gnn.param = "gcn_conv_0.bias", train.init = #train<init zeros>, train.fan = array<i64: 6, 16>},
               %w1: tensor<16x3xf64> {gnn.param = "gcn_conv_1.weight", train.init = #train<init glorot>, train.fan = array<i64: 16, 3>},
               %b1: tensor<3xf64> {gnn.param = "gcn_conv_1.bias", train.init = #train<init zeros>, train.fan = array<i64: 16, 3>})
    -> tensor<12x3xf64>
    attributes {gnn.model = "Gcn", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64,
      epochs = 100 : i64, seed = 42 : i64, {CONFIG}}} {
  %h = gnn.gcn_conv %g, %x, %w0, %b0 : (!gnn.graph<12x{E}>, tensor<12x6xf64>, tensor<6x16xf64>, tensor<16xf64>) -> tensor<12x16xf64>
  %r = gnn.activation relu %h : tensor<12x16xf64>
  %d = gnn.dropout %r, %key {p = 0.2 : f64, stream = 0 : i64} : tensor<12x16xf64>
  %y = gnn.gcn_conv %g, %d, %w1, %b1 : (!gnn.graph<12x{E}>, tensor<12x16xf64>, tensor<16x3xf64>, tensor<3xf64>) -> tensor<12x3xf64>
  return %y : tensor<12x3xf64>
}
)";
  std::string config = "optimizer = \"adam\", lr = 0.02 : f64, weight_decay "
                       "= 5.0e-4 : f64, momentum = 0.0 : f64, nesterov = "
                       "false, accumulate = 1 : i64";
  auto s = subst;
  s["CONFIG"] = config;
  auto module = parse(layers, s);
  ASSERT_TRUE(module);
  ASSERT_TRUE(runPasses(*module, [](mlir::OpPassManager &pm) {
    mlir::gnn::PipelineOptions options;
    options.stage = "train";
    ASSERT_TRUE(mlir::succeeded(mlir::gnn::buildGnncPipeline(pm, options)));
  }));
  auto reference = compile(config);
  ASSERT_TRUE(reference);

  std::vector<Value> state = run(*module, "Gcn.init", {kSeed});
  std::vector<Value> expected = run(*reference, "Gcn.init", {kSeed});
  ASSERT_EQ(state.size(), expected.size());
  std::vector<Value> out = runStep(*module, "Gcn.step", 1, state);
  std::vector<Value> want = runStep(*reference, "Gcn.step", 1, expected);
  ASSERT_EQ(out.size(), want.size());
  for (size_t k = 0; k < out.size(); ++k) {
    const Tensor &a = asTensor(out[k]), &b = asTensor(want[k]);
    ASSERT_EQ(a.shape, b.shape);
    for (size_t j = 0; j < a.data.size(); ++j)
      EXPECT_NEAR(a.data[j], b.data[j], 1e-10) << "result " << k;
  }

  double first = scalar(out.at(0)), last = 0;
  state.assign(out.begin() + 1, out.end());
  for (int64_t step = 2; step <= 60; ++step) {
    out = runStep(*module, "Gcn.step", step, state);
    ASSERT_FALSE(out.empty());
    if (step > 55)
      last += scalar(out[0]) / 5;
    state.assign(out.begin() + 1, out.end());
  }
  EXPECT_LT(last, 0.25 * first);
}

} // namespace
} // namespace gnnc::autodiff::test
