//===- SessionTest.cpp - Binding a model table, on the CPU and on CUDA ----===//
//
// A hand-written model table ("Lin": logits = features x W) whose entry
// functions are plain C++, so that the session is tested without the
// compiler: the CPU path end to end (what goes into the arena, what comes
// back), and a CUDA-target table's checks, which must refuse it cleanly on
// a machine without a GPU (CI). Device tests need generated CUDA code and
// live with the CUDA target's tests.
//
// This program does not link libgnnrt_cuda.so, as a CPU program: the
// session loads it when a CUDA table is bound, and only then.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Session.h"
#include "gnnrt/Cuda.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dlfcn.h>
#include <numeric>
#include <string>
#include <vector>

using namespace gnnrt;

namespace {

constexpr int64_t kNodes = 40, kFeatures = 6, kClasses = 3;
constexpr int64_t kWeights = kFeatures * kClasses;

/// Calls of the entry functions, to check that a refused table ran none.
int entryCalls = 0;

float initialWeight(int64_t i, int64_t seed) {
  return 0.01f * static_cast<float>((i + seed) % 5);
}

// init(seed) -> W.
int linInit(void *const *args, void *const *results, char *, gnnrt_offload *) {
  ++entryCalls;
  int64_t seed = *static_cast<const int64_t *>(args[0]);
  auto *w = static_cast<float *>(results[0]);
  for (int64_t i = 0; i < kWeights; ++i)
    w[i] = initialWeight(i, seed);
  return GNNRT_OK;
}

// step(graph, features, labels, train_mask, step, W) -> (loss, W / 2), with
// loss = sum(W) + sum of the train nodes' labels / 1000: it reads what the
// session put in the arena.
int linStep(void *const *args, void *const *results, char *arena,
            gnnrt_offload *) {
  ++entryCalls;
  const auto *g = static_cast<const gnnrt_graph *>(args[0]);
  const auto *labels = static_cast<const int32_t *>(args[2]);
  const auto *mask = static_cast<const uint8_t *>(args[3]);
  const auto *w = static_cast<const float *>(args[5]);
  if (!arena || g->num_nodes != kNodes || *static_cast<int64_t *>(args[4]) < 1)
    return GNNRT_ERR_BAD_ARGUMENT;
  double loss = 0;
  for (int64_t i = 0; i < kWeights; ++i)
    loss += w[i];
  for (int64_t i = 0; i < kNodes; ++i)
    if (mask[i])
      loss += labels[i] / 1000.0;
  *static_cast<float *>(results[0]) = static_cast<float>(loss);
  auto *next = static_cast<float *>(results[1]);
  for (int64_t i = 0; i < kWeights; ++i)
    next[i] = w[i] / 2;
  return GNNRT_OK;
}

// predict(graph, features, W) -> features x W.
int linPredict(void *const *args, void *const *results, char *,
               gnnrt_offload *) {
  ++entryCalls;
  const auto *x = static_cast<const float *>(args[1]);
  const auto *w = static_cast<const float *>(args[2]);
  auto *y = static_cast<float *>(results[0]);
  for (int64_t i = 0; i < kNodes; ++i)
    for (int64_t c = 0; c < kClasses; ++c) {
      float sum = 0;
      for (int64_t f = 0; f < kFeatures; ++f)
        sum += x[i * kFeatures + f] * w[f * kClasses + c];
      y[i * kClasses + c] = sum;
    }
  return GNNRT_OK;
}

/// The table and the synthetic data it was "compiled" for.
struct LinModel {
  Dataset data;
  int64_t graphShape[2] = {kNodes, 0};
  int64_t featureShape[2] = {kNodes, kFeatures};
  int64_t nodeShape[1] = {kNodes};
  int64_t weightShape[2] = {kFeatures, kClasses};
  int64_t logitShape[2] = {kNodes, kClasses};
  std::vector<gnnrt_value_desc> initArgs, initResults, stepArgs, stepResults,
      predictArgs, predictResults;
  gnnrt_function_desc init{}, step{}, predict{};
  gnnrt_model_desc desc{};

  LinModel() {
    SyntheticSpec spec;
    spec.nodes = kNodes;
    spec.avgDegree = 4;
    spec.features = kFeatures;
    spec.classes = kClasses;
    spec.seed = 1;
    DatasetError err;
    EXPECT_TRUE(generateSynthetic(spec, data, err)) << err.str();
    graphShape[1] = data.numEdges();

    auto value = [](const char *role, const char *param, int32_t dtype,
                    int32_t rank, const int64_t *shape) {
      return gnnrt_value_desc{role, param, dtype, rank, shape};
    };
    const gnnrt_value_desc graph =
        value("graph", "", GNNRT_DTYPE_GRAPH, 2, graphShape);
    const gnnrt_value_desc features =
        value("features", "", GNNRT_DTYPE_F32, 2, featureShape);
    const gnnrt_value_desc weight =
        value("param", "lin.weight", GNNRT_DTYPE_F32, 2, weightShape);
    initArgs = {value("seed", "", GNNRT_DTYPE_I64, 0, nullptr)};
    initResults = {weight};
    stepArgs = {graph,
                features,
                value("labels", "", GNNRT_DTYPE_I32, 1, nodeShape),
                value("train_mask", "", GNNRT_DTYPE_BOOL, 1, nodeShape),
                value("step", "", GNNRT_DTYPE_I64, 0, nullptr),
                weight};
    stepResults = {value("loss", "", GNNRT_DTYPE_F32, 0, nullptr), weight};
    predictArgs = {graph, features, weight};
    predictResults = {value("logits", "", GNNRT_DTYPE_F32, 2, logitShape)};

    auto function = [](const char *name, gnnrt_entry_fn entry,
                       const std::vector<gnnrt_value_desc> &args,
                       const std::vector<gnnrt_value_desc> &results) {
      gnnrt_function_desc fn{};
      fn.name = name;
      fn.entry = entry;
      fn.arena_bytes = 256;
      fn.num_args = static_cast<int32_t>(args.size());
      fn.args = args.data();
      fn.num_results = static_cast<int32_t>(results.size());
      fn.results = results.data();
      return fn;
    };
    init = function("Lin.init", linInit, initArgs, initResults);
    step = function("Lin.step", linStep, stepArgs, stepResults);
    predict = function("Lin.predict", linPredict, predictArgs, predictResults);

    desc.abi_version = GNNRT_MODEL_ABI_VERSION;
    desc.model = "Lin";
    desc.source = "lin.gnn";
    desc.data.synthetic = 1;
    desc.data.name = "synthetic";
    desc.data.dir = "";
    desc.epochs = 3;
    desc.seed = 1;
    desc.eval_every = 1;
    desc.memory = -1;
    desc.metrics = GNNRT_METRIC_ACCURACY;
    desc.settings = "";
    desc.init = &init;
    desc.step = &step;
    desc.predict = &predict;
    desc.plan.policy = "";
    desc.plan.host_memory = -1;
    desc.plan.spill_dir = "";
    desc.target = GNNRT_TARGET_CPU;
  }
  LinModel(const LinModel &) = delete;
  LinModel &operator=(const LinModel &) = delete;

  int64_t trainLabelSum() const {
    int64_t sum = 0;
    for (int32_t i : data.trainIdx)
      sum += data.labels[i];
    return sum;
  }
};

SessionOptions smallBudget() {
  SessionOptions options;
  options.budgetBytes = 1 << 20;
  options.threads = 1;
  return options;
}

/// libgnnrt_cuda.so if this process has loaded it, else null.
void *loadedCudaLibrary() {
  void *handle = dlopen("libgnnrt_cuda.so", RTLD_NOW | RTLD_NOLOAD);
  if (handle)
    dlclose(handle); // NOLOAD counted a reference; the session holds one.
  return handle;
}

TEST(Session, CpuTableTrainsThroughTheArena) {
  LinModel lin;
  std::string error;
  std::unique_ptr<Session> session =
      Session::create(lin.desc, lin.data, smallBudget(), error);
  ASSERT_TRUE(session) << error;
  EXPECT_EQ(session->deviceName(), "cpu");
  EXPECT_EQ(session->arena().budget(), 1u << 20);
  EXPECT_EQ(loadedCudaLibrary(), nullptr);

  ASSERT_TRUE(session->initialize(7, error)) << error;
  double initialSum = 0;
  for (int64_t i = 0; i < kWeights; ++i)
    initialSum += initialWeight(i, 7);
  double loss = 0;
  ASSERT_TRUE(session->trainStep(loss, error)) << error;
  EXPECT_FLOAT_EQ(loss, initialSum + lin.trainLabelSum() / 1000.0);

  std::vector<NamedTensor> params = session->parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "lin.weight");
  EXPECT_EQ(params[0].shape, (std::vector<int64_t>{kFeatures, kClasses}));
  for (int64_t i = 0; i < kWeights; ++i)
    EXPECT_EQ(params[0].data[i], initialWeight(i, 7) / 2) << i;

  // New weights go in, predict's logits come out.
  std::iota(params[0].data.begin(), params[0].data.end(), 1.0f);
  ASSERT_TRUE(session->setParameters(params, error)) << error;
  EXPECT_EQ(session->parameters()[0].data, params[0].data);
  std::vector<float> logits;
  ASSERT_TRUE(session->predict(logits, error)) << error;
  std::vector<float> x;
  ASSERT_TRUE(lin.data.features.toDense(x));
  ASSERT_EQ(logits.size(), static_cast<size_t>(kNodes * kClasses));
  for (int64_t i = 0; i < kNodes; ++i)
    for (int64_t c = 0; c < kClasses; ++c) {
      float sum = 0;
      for (int64_t f = 0; f < kFeatures; ++f)
        sum += x[i * kFeatures + f] * params[0].data[f * kClasses + c];
      EXPECT_EQ(logits[i * kClasses + c], sum);
    }
  // A CPU session never loads the CUDA library.
  EXPECT_EQ(loadedCudaLibrary(), nullptr);
}

TEST(Session, CpuReportIsTheCpuOne) {
  LinModel lin;
  std::string error;
  std::unique_ptr<Session> session =
      Session::create(lin.desc, lin.data, smallBudget(), error);
  ASSERT_TRUE(session) << error;
  TrainOptions options;
  TrainReport report;
  ASSERT_TRUE(session->train(options, report, error)) << error;
  EXPECT_EQ(report.epochs, 3);
  EXPECT_EQ(report.target, "cpu");
  EXPECT_EQ(report.device, "cpu");
  EXPECT_EQ(report.deviceUsedBytes, 0u);
  EXPECT_EQ(report.budgetBytes, 1u << 20);
  EXPECT_GT(report.arenaPeakBytes, 0u);
  EXPECT_GT(report.arenaResidentBytes, 0u);

  char *text = nullptr;
  size_t size = 0;
  std::FILE *out = open_memstream(&text, &size);
  ASSERT_NE(out, nullptr);
  printReport(out, report);
  std::fclose(out);
  std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("  device arena   peak "), std::string::npos);
  EXPECT_NE(printed.find(" budget ("), std::string::npos);
  EXPECT_NE(printed.find(" touched)\n"), std::string::npos) << printed;
  // No line of the CUDA report.
  EXPECT_EQ(printed.find("  device         "), std::string::npos) << printed;
  EXPECT_EQ(printed.find("GPU"), std::string::npos) << printed;
}

TEST(Session, CudaTableNeedsADevice) {
  LinModel lin;
  lin.desc.target = GNNRT_TARGET_CUDA;
  entryCalls = 0;
  std::string error;
  std::unique_ptr<Session> session =
      Session::create(lin.desc, lin.data, smallBudget(), error);
  if (session) {
    // A GPU: the data is laid out in device memory; the host entry
    // functions are never called (the table has no prepare function).
    EXPECT_NE(session->deviceName().find("(sm_"), std::string::npos);
    EXPECT_EQ(session->arena().budget(), 1u << 20);
    EXPECT_EQ(session->arena().residentBytes(), 0u);
    EXPECT_EQ(entryCalls, 0);
    return;
  }
  // The session found the library this build made.
  void *library = loadedCudaLibrary();
  ASSERT_NE(library, nullptr) << error;
  auto available = reinterpret_cast<decltype(&gnnrt_cuda_available)>(
      dlsym(library, "gnnrt_cuda_available"));
  ASSERT_NE(available, nullptr);
  if (available())
    EXPECT_EQ(error.rfind("no CUDA device: ", 0), 0u) << error;
  else
    EXPECT_EQ(error.rfind("this gnnc was built without the CUDA toolkit", 0),
              0u)
        << error;
  EXPECT_NE(error.find("model Lin was compiled for the CUDA target"),
            std::string::npos)
      << error;
  EXPECT_EQ(entryCalls, 0);
}

// The table's own limits come before the device is opened: reported alike
// on every machine.
TEST(Session, CudaTableThatOffloadsIsRefusedBeforeTheDevice) {
  LinModel lin;
  lin.desc.target = GNNRT_TARGET_CUDA;
  lin.step.num_offload_handles = 2;
  std::string error;
  EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
  EXPECT_EQ(error, "model Lin: plans that offload to host or disk are not "
                   "supported yet by the CUDA target");
}

TEST(Session, CudaTableOfOtherShapesIsRefusedBeforeTheDevice) {
  LinModel lin;
  lin.desc.target = GNNRT_TARGET_CUDA;
  lin.featureShape[1] = kFeatures + 1;
  std::string error;
  EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
  EXPECT_EQ(error.find("no CUDA device"), std::string::npos) << error;
  EXPECT_NE(error.find("Lin.step argument 1 ('features')"), std::string::npos)
      << error;
}

TEST(Session, UnknownTargetIsRefused) {
  LinModel lin;
  lin.desc.target = 7;
  std::string error;
  EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
  EXPECT_NE(error.find("target 7 is unknown to this runtime"),
            std::string::npos)
      << error;
}

} // namespace
