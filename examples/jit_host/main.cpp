//===- main.cpp - A host program training through the gnnc JIT API -------===//
//
// What an application embedding gnnc does: compile a model from a string,
// bind it to graph arrays the program already has (here a small planted-
// partition graph built in memory), train with a per-epoch callback,
// evaluate, predict, and round-trip the weights through a file.
//
//   jit_host [WEIGHTS_FILE]
//
// Exits 0 when every step worked and the trained model beats chance by a
// wide margin on held-out nodes, 1 otherwise.
//
//===----------------------------------------------------------------------===//
#include "gnnc/JIT.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

// The shapes in the program must match the host's data: 600 nodes, 8
// features, 3 classes. The synthetic(...) source only fixes those shapes at
// compile time; bindHost replaces it with the arrays below.
const char *kProgram = R"(
model SAGE(hidden = 16) {
  h = relu(sage_conv(x, out = hidden, aggr = "mean"));
  return sage_conv(h, out = classes, aggr = "mean");
}
train SAGE on synthetic(nodes = 600, avg_degree = 6, features = 8,
                        classes = 3, seed = 1) {
  loss      = cross_entropy();
  optimizer = adam(lr = 0.01);
  epochs    = 60;
  metrics   = [accuracy, f1];
  seed      = 7;
}
)";

/// A graph whose edges mostly stay within a class, and features that are
/// noisy one-hot class indicators: learnable, and better with the graph.
struct HostGraph {
  std::vector<int32_t> src, dst, labels, trainIdx, valIdx, testIdx;
  std::vector<float> features;
};

HostGraph makeGraph(int64_t nodes, int64_t features, int classes) {
  HostGraph g;
  std::mt19937 rng(3);
  for (int64_t i = 0; i < nodes; ++i)
    g.labels.push_back(static_cast<int32_t>(i % classes));
  std::uniform_int_distribution<int64_t> pick(0, nodes - 1);
  std::vector<std::vector<bool>> seen(nodes, std::vector<bool>(nodes));
  // Exactly nodes * avg_degree directed edges: the program's graph type
  // (fixed at compile time by its synthetic(...) source) says so.
  while (static_cast<int64_t>(g.src.size()) < nodes * 6) {
    int64_t a = pick(rng), b = pick(rng);
    // 80% of the edges join nodes of the same class.
    if (rng() % 5 != 0)
      b = (b / classes) * classes + g.labels[a];
    if (b >= nodes || a == b || seen[a][b])
      continue;
    seen[a][b] = seen[b][a] = true;
    g.src.push_back(a), g.dst.push_back(b);
    g.src.push_back(b), g.dst.push_back(a);
  }
  std::normal_distribution<float> noise(0, 1);
  for (int64_t i = 0; i < nodes; ++i)
    for (int64_t f = 0; f < features; ++f)
      g.features.push_back(noise(rng) + (f % classes == g.labels[i] ? 1 : 0));
  for (int32_t i = 0; i < nodes; ++i)
    (i % 10 < 2 ? g.trainIdx : i % 10 < 4 ? g.valIdx : g.testIdx).push_back(i);
  return g;
}

} // namespace

int main(int argc, char **argv) {
  std::string weights = argc > 1 ? argv[1] : "jit_host.weights";
  auto fail = [](llvm::Error e) {
    std::fprintf(stderr, "jit_host: %s\n",
                 llvm::toString(std::move(e)).c_str());
    return 1;
  };

  auto program = gnnc::jit::Program::compileString(kProgram, "host.gnn");
  if (!program)
    return fail(program.takeError());
  const gnnrt_model_desc &desc = (*program)->train(0);
  std::printf("compiled model %s (%s)\n", desc.model,
              (*program)->fromCache() ? "cached build" : "fresh build");

  HostGraph g = makeGraph(600, 8, 3);
  gnnrt::HostDataset host;
  host.name = "host-planted";
  host.numNodes = 600;
  host.numFeatures = 8;
  host.numClasses = 3;
  host.src = g.src;
  host.dst = g.dst;
  host.denseFeatures = g.features;
  host.labels = g.labels;
  host.trainIdx = g.trainIdx;
  host.valIdx = g.valIdx;
  host.testIdx = g.testIdx;
  gnnrt::HostLoadOptions loadOptions;
  loadOptions.requireSymmetric = true;
  auto model = (*program)->bindHost(0, host, loadOptions);
  if (!model)
    return fail(model.takeError());

  gnnrt::TrainOptions options;
  options.onEpoch = [](const gnnrt::EpochStats &e) {
    if (e.epoch % 20 == 0)
      std::printf("epoch %3lld  loss %.4f  val accuracy %.3f\n",
                  static_cast<long long>(e.epoch), e.loss, e.val.accuracy);
    return true;
  };
  auto report = (*model)->train(options);
  if (!report)
    return fail(report.takeError());
  auto test = (*model)->evaluate(gnnrt::Split::Test);
  if (!test)
    return fail(test.takeError());
  std::printf("test accuracy %.3f over %lld nodes\n", test->accuracy,
              static_cast<long long>(test->count));

  auto before = (*model)->predict();
  if (!before)
    return fail(before.takeError());
  if (llvm::Error e = (*model)->saveWeights(weights))
    return fail(std::move(e));
  // A fresh binding, then the saved weights: the same predictions, bit for
  // bit.
  auto other = (*program)->bindHost(0, host, loadOptions);
  if (!other)
    return fail(other.takeError());
  if (llvm::Error e = (*other)->loadWeights(weights))
    return fail(std::move(e));
  auto after = (*other)->predict();
  if (!after)
    return fail(after.takeError());
  bool same = *before == *after;
  std::printf("weights round trip through %s: %s\n", weights.c_str(),
              same ? "identical predictions" : "PREDICTIONS DIFFER");
  // Chance is 1/3.
  return same && test->accuracy > 0.6 ? 0 : 1;
}
