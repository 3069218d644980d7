//===- SessionTest.cpp - Binding a model table, on the CPU and on CUDA ----===//
//
// A hand-written model table ("Lin": logits = features x W) whose entry
// functions are plain C++, so that the session is tested without the
// compiler: the CPU path end to end (what goes into the arena, what comes
// back), the memory plan's flags (host homes, the graph freed after
// prepare) measured byte for byte against gnnrt/Footprint.h, and a
// CUDA-target table's checks, which must refuse it cleanly on a machine
// without a GPU (CI). Device tests need generated CUDA code and live with
// the CUDA target's tests.
//
// This program does not link libgnnrt_cuda.so, as a CPU program: the
// session loads it when a CUDA table is bound, and only then.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Session.h"
#include "gnnrt/Cuda.h"
#include "gnnrt/Footprint.h"
#include "gnnrt/ProcessStats.h"

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

/// Set when the table keeps W in host memory (LinModel::keepWeightOnHost):
/// the entries then move it as generated code does, through
/// gnnrt_home_load / gnnrt_home_store and their arena, never reading or
/// writing the home in place.
bool weightAtHome = false;
/// What the step saw last: W's address and the graph struct.
const void *stepWeight = nullptr;
gnnrt_graph stepGraph{};

float initialWeight(int64_t i, int64_t seed) {
  return 0.01f * static_cast<float>((i + seed) % 5);
}

/// W for reading: the argument itself, or its home's copy loaded into the
/// function's \p arena.
const float *loadWeight(const void *w, char *arena, gnnrt_offload *tiers,
                        int &status) {
  if (!weightAtHome)
    return static_cast<const float *>(w);
  status = gnnrt_home_load(tiers, arena, w, 4 * kWeights);
  return reinterpret_cast<const float *>(arena);
}

// init(seed) -> W.
int linInit(void *const *args, void *const *results, char *arena,
            gnnrt_offload *tiers) {
  ++entryCalls;
  int64_t seed = *static_cast<const int64_t *>(args[0]);
  auto *w = weightAtHome ? reinterpret_cast<float *>(arena)
                         : static_cast<float *>(results[0]);
  for (int64_t i = 0; i < kWeights; ++i)
    w[i] = initialWeight(i, seed);
  return weightAtHome ? gnnrt_home_store(tiers, results[0], w, 4 * kWeights)
                      : GNNRT_OK;
}

// step(graph, features, labels, train_mask, step, W) -> (loss, W / 2), with
// loss = sum(W) + sum of the train nodes' labels / 1000: it reads what the
// session put in the arena.
int linStep(void *const *args, void *const *results, char *arena,
            gnnrt_offload *tiers) {
  ++entryCalls;
  const auto *g = static_cast<const gnnrt_graph *>(args[0]);
  const auto *labels = static_cast<const int32_t *>(args[2]);
  const auto *mask = static_cast<const uint8_t *>(args[3]);
  stepWeight = args[5];
  stepGraph = *g;
  if (!arena || g->num_nodes != kNodes || *static_cast<int64_t *>(args[4]) < 1)
    return GNNRT_ERR_BAD_ARGUMENT;
  int status = GNNRT_OK;
  const float *w = loadWeight(args[5], arena, tiers, status);
  if (status != GNNRT_OK)
    return status;
  double loss = 0;
  for (int64_t i = 0; i < kWeights; ++i)
    loss += w[i];
  for (int64_t i = 0; i < kNodes; ++i)
    if (mask[i])
      loss += labels[i] / 1000.0;
  *static_cast<float *>(results[0]) = static_cast<float>(loss);
  auto *next = weightAtHome ? reinterpret_cast<float *>(arena + 128)
                            : static_cast<float *>(results[1]);
  for (int64_t i = 0; i < kWeights; ++i)
    next[i] = w[i] / 2;
  return weightAtHome ? gnnrt_home_store(tiers, results[1], next, 4 * kWeights)
                      : GNNRT_OK;
}

// predict(graph, features, W) -> features x W.
int linPredict(void *const *args, void *const *results, char *arena,
               gnnrt_offload *tiers) {
  ++entryCalls;
  const auto *x = static_cast<const float *>(args[1]);
  int status = GNNRT_OK;
  const float *w = loadWeight(args[2], arena, tiers, status);
  if (status != GNNRT_OK)
    return status;
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

/// Where linPredictInArena leaves the logits in its arena: after W's copy.
constexpr int64_t kLogitsInArena = 128;

// predict as generated code with gnn.results_in_arena does it: the logits
// at kLogitsInArena in its own arena, results[0] not touched.
int linPredictInArena(void *const *args, void *const *, char *arena,
                      gnnrt_offload *tiers) {
  float *logits = reinterpret_cast<float *>(arena + kLogitsInArena);
  void *results[] = {logits};
  return linPredict(args, results, arena, tiers);
}

/// The in-degree sum prepare found in the graph it was given.
int64_t preparedEdges = -1;

// prepare(graph) -> (in-degrees [N]), and with linPrepareView also
// (the graph transposed): a view whose arrays are the graph's own, as
// gnnrt_graph_transposed returns it.
int linPrepare(void *const *args, void *const *results, char *,
               gnnrt_offload *) {
  ++entryCalls;
  const auto *g = static_cast<const gnnrt_graph *>(args[0]);
  auto *degrees = static_cast<float *>(results[0]);
  for (int64_t i = 0; i < kNodes; ++i)
    degrees[i] = static_cast<float>(g->in.indptr[i + 1] - g->in.indptr[i]);
  preparedEdges = g->in.indptr[kNodes];
  return GNNRT_OK;
}

int linPrepareView(void *const *args, void *const *results, char *arena,
                   gnnrt_offload *tiers) {
  const auto *g = static_cast<const gnnrt_graph *>(args[0]);
  *static_cast<gnnrt_graph *>(results[1]) = gnnrt_graph_transposed(*g);
  return linPrepare(args, results, arena, tiers);
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
      predictArgs, predictResults, prepareArgs, prepareResults;
  gnnrt_function_desc init{}, step{}, predict{}, prepare{};
  gnnrt_model_desc desc{};

  /// The indices of W and the inputs in the lists above.
  static constexpr int kStepGraph = 0, kStepFeatures = 1, kStepLabels = 2,
                       kStepTrainMask = 3, kStepWeight = 5, kPredictGraph = 0,
                       kPredictFeatures = 1, kPredictWeight = 2;
  static constexpr int64_t kPrepareArena = 512;

  LinModel() {
    weightAtHome = false;
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
      return gnnrt_value_desc{role, param, dtype, rank, shape, 0};
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

  /// W's home is host memory in every function (init's result, the step's
  /// argument and result, predict's argument), and the entries move it
  /// through the tiers; \p hostMemory is the plan's `host_memory`.
  void keepWeightOnHost(int64_t hostMemory = 64 << 10) {
    for (gnnrt_value_desc *v : {&initResults[0], &stepArgs[kStepWeight],
                                &stepResults[1], &predictArgs[kPredictWeight]})
      v->flags |= GNNRT_VALUE_HOME_HOST;
    desc.plan.host_memory = hostMemory;
    weightAtHome = true;
  }

  void keepFeaturesOnHost() {
    stepArgs[kStepFeatures].flags |= GNNRT_VALUE_HOME_HOST;
    predictArgs[kPredictFeatures].flags |= GNNRT_VALUE_HOME_HOST;
    desc.plan.host_memory = 64 << 10;
  }

  /// A prepare function reading the graph: linPrepare, or with \p view
  /// linPrepareView and its graph result. No other function takes them.
  void addPrepare(bool view = false) {
    prepareArgs = {stepArgs[kStepGraph]};
    prepareArgs[0].flags = 0;
    prepareResults = {
        gnnrt_value_desc{"prepared", "0", GNNRT_DTYPE_F32, 1, nodeShape, 0}};
    if (view)
      prepareResults.push_back(
          gnnrt_value_desc{"prepared", "1", GNNRT_DTYPE_GRAPH, 2, graphShape,
                           GNNRT_VALUE_VIEWS_GRAPH});
    prepare.name = "Lin.prepare";
    prepare.entry = view ? linPrepareView : linPrepare;
    prepare.arena_bytes = kPrepareArena;
    prepare.num_args = 1;
    prepare.args = prepareArgs.data();
    prepare.num_results = static_cast<int32_t>(prepareResults.size());
    prepare.results = prepareResults.data();
    desc.prepare = &prepare;
  }

  /// Marks the graph argument of the step and/or predict as never read.
  void graphUnused(bool inStep, bool inPredict) {
    if (inStep)
      stepArgs[kStepGraph].flags |= GNNRT_VALUE_UNUSED;
    if (inPredict)
      predictArgs[kPredictGraph].flags |= GNNRT_VALUE_UNUSED;
  }

  /// What gnnrt/Footprint.h says the session holds: prepare's part (with a
  /// prepare function), the graph, and the rest (no homes).
  uint64_t preparedBytes() const {
    return desc.prepare ? footprint::align64(kPrepareArena) +
                              footprint::preparedTensorBytes(kNodes)
                        : 0;
  }
  uint64_t graphBytes() const {
    return footprint::graphBytes(kNodes, data.numEdges());
  }
  /// Every function's arena is 256 bytes; predict's logits follow its
  /// arena in the workspace, which makes predict the largest.
  static uint64_t restBytes() {
    // The step takes the labels and the train mask; no function takes the
    // validation and test masks, so they take no device bytes.
    return footprint::featureBytes(kNodes, kFeatures, true, -1) +
           footprint::labelBytes(kNodes) + footprint::maskBytes(kNodes) +
           footprint::stateBytes(kWeights) + footprint::outputBytes() +
           footprint::predictWorkspace(256, kNodes, kClasses, false);
  }

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

/// One train step after initialize(7): W * 1 summed plus the labels'
/// share of LinModel's loss.
void expectFirstStep(Session &session, const LinModel &lin) {
  std::string error;
  double loss = 0;
  ASSERT_TRUE(session.trainStep(loss, error)) << error;
  double initialSum = 0;
  for (int64_t i = 0; i < kWeights; ++i)
    initialSum += initialWeight(i, 7);
  EXPECT_FLOAT_EQ(loss, initialSum + lin.trainLabelSum() / 1000.0);
}

/// After that step: the weights read back halved; new weights go in, read
/// back the same, and predict's logits are X W for every node.
void expectParametersRoundTrip(Session &session, const LinModel &lin) {
  std::string error;
  std::vector<NamedTensor> params = session.parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "lin.weight");
  EXPECT_EQ(params[0].shape, (std::vector<int64_t>{kFeatures, kClasses}));
  for (int64_t i = 0; i < kWeights; ++i)
    EXPECT_EQ(params[0].data[i], initialWeight(i, 7) / 2) << i;

  std::iota(params[0].data.begin(), params[0].data.end(), 1.0f);
  ASSERT_TRUE(session.setParameters(params, error)) << error;
  EXPECT_EQ(session.parameters()[0].data, params[0].data);
  std::vector<float> logits;
  ASSERT_TRUE(session.predict(logits, error)) << error;
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
  expectFirstStep(*session, lin);
  expectParametersRoundTrip(*session, lin);
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

/// Whether \p p lies in the session's device arena.
bool inArena(const Session &session, const void *p) {
  auto *base = static_cast<const char *>(session.arena().base());
  auto *q = static_cast<const char *>(p);
  return q >= base && q < base + session.arena().budget();
}

// Predict may leave the logits in its arena (GNNRT_VALUE_IN_ARENA): the
// session reads them there, its workspace is predict's arena alone, and a
// table whose offset would put them past that arena is refused at bind.
TEST(Session, LogitsInPredictsArena) {
  std::string error;
  LinModel lin;
  const uint64_t logitsBytes = 4 * kNodes * kClasses;
  lin.predict.entry = linPredictInArena;
  lin.predict.arena_bytes = kLogitsInArena + logitsBytes;
  lin.predictResults[0].flags |= GNNRT_VALUE_IN_ARENA;
  lin.predictResults[0].arena_offset = kLogitsInArena;
  std::unique_ptr<Session> session =
      Session::create(lin.desc, lin.data, smallBudget(), error);
  ASSERT_TRUE(session) << error;
  // The workspace is predict's arena, 64 bytes less than LinModel's 256 of
  // arena and the logits after it (both rounded to 64).
  EXPECT_EQ(footprint::predictWorkspace(
                static_cast<uint64_t>(lin.predict.arena_bytes), kNodes,
                kClasses, true),
            kLogitsInArena + logitsBytes);
  EXPECT_EQ(session->arena().highWaterEnd(),
            LinModel::restBytes() + lin.graphBytes() -
                footprint::predictWorkspace(256, kNodes, kClasses, false) +
                footprint::align64(kLogitsInArena + logitsBytes));
  ASSERT_TRUE(session->initialize(7, error)) << error;
  expectFirstStep(*session, lin);
  expectParametersRoundTrip(*session, lin);
  session.reset();

  // One float too far: the logits would end past the arena.
  lin.predictResults[0].arena_offset = kLogitsInArena + 4;
  entryCalls = 0;
  session = Session::create(lin.desc, lin.data, smallBudget(), error);
  EXPECT_FALSE(session);
  EXPECT_EQ(entryCalls, 0);
  EXPECT_NE(error.find("Lin.predict: its logits [40, 3] at arena offset 132 "
                       "do not fit its arena of 608 bytes"),
            std::string::npos)
      << error;
}

// W's two copies come from the host tier, not the device arena: the arena
// holds exactly their bytes less, the tier exactly their bytes, and a
// train step, predict and the weights round-trip through the homes.
TEST(Session, HostHomeSlotLivesInTheHostTier) {
  std::string error;
  LinModel plain;
  std::unique_ptr<Session> device =
      Session::create(plain.desc, plain.data, smallBudget(), error);
  ASSERT_TRUE(device) << error;
  EXPECT_EQ(device->offloadTiers(), nullptr);
  const uint64_t deviceEnd = device->arena().highWaterEnd();
  EXPECT_EQ(deviceEnd, LinModel::restBytes() + plain.graphBytes());
  device.reset();

  LinModel lin;
  lin.keepWeightOnHost();
  std::unique_ptr<Session> session =
      Session::create(lin.desc, lin.data, smallBudget(), error);
  ASSERT_TRUE(session) << error;
  const uint64_t slotBytes = footprint::stateBytes(kWeights);
  EXPECT_EQ(slotBytes, 2 * 128u);
  EXPECT_EQ(session->arena().highWaterEnd(), deviceEnd - slotBytes);
  EXPECT_EQ(session->arena().highWater(), deviceEnd - slotBytes);
  const OffloadTiers *tiers = session->offloadTiers();
  ASSERT_NE(tiers, nullptr);
  EXPECT_EQ(tiers->config().hostBudget, 64u << 10);
  EXPECT_EQ(tiers->hostHighWater(), slotBytes);

  ASSERT_TRUE(session->initialize(7, error)) << error;
  expectFirstStep(*session, lin);
  // The step was given a host pointer outside the device arena.
  EXPECT_NE(stepWeight, nullptr);
  EXPECT_FALSE(inArena(*session, stepWeight));
  // init stored W; the step loaded it and stored the new one.
  EXPECT_EQ(tiers->bytesToHost(), 2 * 4u * kWeights);
  EXPECT_EQ(tiers->bytesFromHost(), 4u * kWeights);

  expectParametersRoundTrip(*session, lin);
  // Copies take no host memory: the homes are all the tier ever held.
  EXPECT_EQ(tiers->hostHighWater(), slotBytes);

  TrainReport report;
  ASSERT_TRUE(session->train(TrainOptions(), report, error)) << error;
  EXPECT_EQ(report.hostPeakBytes, slotBytes);
  EXPECT_EQ(report.arenaPeakEndBytes, deviceEnd - slotBytes);
}

TEST(Session, HostHomeFeaturesLiveInTheHostTier) {
  std::string error;
  LinModel lin;
  lin.keepFeaturesOnHost();
  std::unique_ptr<Session> session =
      Session::create(lin.desc, lin.data, smallBudget(), error);
  ASSERT_TRUE(session) << error;
  const uint64_t featureBytes = footprint::align64(4 * kNodes * kFeatures);
  EXPECT_EQ(session->arena().highWaterEnd(),
            LinModel::restBytes() + lin.graphBytes() - featureBytes);
  ASSERT_NE(session->offloadTiers(), nullptr);
  EXPECT_EQ(session->offloadTiers()->hostHighWater(), featureBytes);

  // Filled in place: predict reads the dataset's features from the home.
  std::vector<NamedTensor> params = {
      {"lin.weight", {kFeatures, kClasses}, std::vector<float>(kWeights)}};
  std::iota(params[0].data.begin(), params[0].data.end(), 1.0f);
  ASSERT_TRUE(session->setParameters(params, error)) << error;
  std::vector<float> logits;
  ASSERT_TRUE(session->predict(logits, error)) << error;
  std::vector<float> x;
  ASSERT_TRUE(lin.data.features.toDense(x));
  for (int64_t i = 0; i < kNodes; ++i)
    for (int64_t c = 0; c < kClasses; ++c) {
      float sum = 0;
      for (int64_t f = 0; f < kFeatures; ++f)
        sum += x[i * kFeatures + f] * params[0].data[f * kClasses + c];
      EXPECT_EQ(logits[i * kClasses + c], sum);
    }
}

TEST(Session, HomesMustAgreeAcrossFunctions) {
  std::string error;
  {
    LinModel lin;
    lin.keepWeightOnHost();
    lin.predictArgs[LinModel::kPredictWeight].flags = 0;
    EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
    EXPECT_NE(error.find("Lin.predict argument 2 (param 'lin.weight') lives "
                         "on the device but Lin.init result 0 (param "
                         "'lin.weight') in host memory"),
              std::string::npos)
        << error;
  }
  {
    LinModel lin;
    lin.stepArgs[LinModel::kStepFeatures].flags = GNNRT_VALUE_HOME_HOST;
    EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
    EXPECT_NE(error.find("Lin.predict argument 1 (the features) lives on the "
                         "device but Lin.step argument 1 (the features) in "
                         "host memory"),
              std::string::npos)
        << error;
  }
  {
    // Only state, the inputs and prepare's values have homes.
    LinModel lin;
    lin.stepArgs[4].flags = GNNRT_VALUE_HOME_HOST;
    EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
    EXPECT_NE(error.find("Lin.step argument 4 ('step') is marked to live "
                         "in host memory"),
              std::string::npos)
        << error;
  }
}

TEST(Session, HostHomeLabelsAndMaskLiveInTheHostTier) {
  std::string error;
  LinModel onDevice, atHome;
  atHome.stepArgs[LinModel::kStepLabels].flags |= GNNRT_VALUE_HOME_HOST;
  atHome.stepArgs[LinModel::kStepTrainMask].flags |= GNNRT_VALUE_HOME_HOST;
  atHome.desc.plan.host_memory = 64 << 10;
  std::unique_ptr<Session> device =
      Session::create(onDevice.desc, onDevice.data, smallBudget(), error);
  ASSERT_TRUE(device) << error;
  EXPECT_EQ(device->arena().highWaterEnd(),
            LinModel::restBytes() + onDevice.graphBytes());
  EXPECT_EQ(device->offloadTiers(), nullptr);
  std::unique_ptr<Session> home =
      Session::create(atHome.desc, atHome.data, smallBudget(), error);
  ASSERT_TRUE(home) << error;
  const uint64_t moved =
      footprint::labelBytes(kNodes) + footprint::maskBytes(kNodes);
  EXPECT_EQ(home->arena().highWaterEnd(),
            LinModel::restBytes() + atHome.graphBytes() - moved);
  ASSERT_NE(home->offloadTiers(), nullptr);
  EXPECT_EQ(home->offloadTiers()->hostHighWater(), moved);

  // The step's loss sums the train nodes' labels, read from the homes: the
  // same losses, and the metrics (read from the host's copies) the same.
  TrainReport a, b;
  ASSERT_TRUE(device->train(TrainOptions(), a, error)) << error;
  ASSERT_TRUE(home->train(TrainOptions(), b, error)) << error;
  ASSERT_FALSE(a.losses.empty());
  EXPECT_EQ(a.losses, b.losses);
  EXPECT_NE(onDevice.trainLabelSum(), 0);
  EXPECT_EQ(a.test.accuracy, b.test.accuracy);
}

TEST(Session, HostHomesOverTheHostBudgetAreRefused) {
  LinModel lin;
  lin.keepWeightOnHost(128); // One copy of W fits, not two.
  std::string error;
  EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
  EXPECT_NE(error.find("param 'lin.weight': host memory: a home of 72 bytes "
                       "needs 128 B but only 0 B of the 128 B budget is free"),
            std::string::npos)
      << error;
}

// With prepare the only reader of the graph, the graph leaves the arena
// once prepare has run and the rest takes its place: the measured end of
// the arena is footprint::sessionPeak's, and a budget of exactly that fits.
TEST(Session, GraphIsReleasedWhenOnlyPrepareReadsIt) {
  LinModel lin;
  lin.addPrepare();
  lin.graphUnused(true, true);
  const uint64_t peak = footprint::sessionPeak(
      lin.preparedBytes(), lin.graphBytes(), LinModel::restBytes(), true);
  ASSERT_LT(peak,
            lin.preparedBytes() + lin.graphBytes() + LinModel::restBytes());
  SessionOptions options = smallBudget();
  options.budgetBytes = peak;
  preparedEdges = -1;
  std::string error;
  std::unique_ptr<Session> session =
      Session::create(lin.desc, lin.data, options, error);
  ASSERT_TRUE(session) << error;
  EXPECT_TRUE(session->graphReleased());
  EXPECT_EQ(session->arena().highWaterEnd(), peak);
  // Prepare read the whole graph first.
  EXPECT_EQ(preparedEdges, lin.data.numEdges());

  // The step gets the struct, with its counts and no arrays.
  ASSERT_TRUE(session->initialize(1, error)) << error;
  double loss = 0;
  ASSERT_TRUE(session->trainStep(loss, error)) << error;
  EXPECT_EQ(stepGraph.num_nodes, kNodes);
  EXPECT_EQ(stepGraph.num_edges, lin.data.numEdges());
  EXPECT_EQ(stepGraph.in.indptr, nullptr);
  EXPECT_EQ(stepGraph.out.edge_id, nullptr);
  EXPECT_EQ(session->arena().highWaterEnd(), peak);

  // One byte less is refused up front, naming the release.
  options.budgetBytes = peak - 1;
  EXPECT_FALSE(Session::create(lin.desc, lin.data, options, error));
  EXPECT_NE(error.find("can run: " + formatBytes(peak) + " ("),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("freed once prepare has run"), std::string::npos)
      << error;
}

TEST(Session, GraphIsKeptWhileAFunctionReadsIt) {
  std::string error;
  {
    // predict reads it.
    LinModel lin;
    lin.addPrepare();
    lin.graphUnused(true, false);
    std::unique_ptr<Session> session =
        Session::create(lin.desc, lin.data, smallBudget(), error);
    ASSERT_TRUE(session) << error;
    EXPECT_FALSE(session->graphReleased());
    EXPECT_EQ(session->arena().highWaterEnd(),
              footprint::sessionPeak(lin.preparedBytes(), lin.graphBytes(),
                                     LinModel::restBytes(), false));
    ASSERT_TRUE(session->initialize(1, error)) << error;
    double loss = 0;
    ASSERT_TRUE(session->trainStep(loss, error)) << error;
    EXPECT_NE(stepGraph.in.indptr, nullptr);
    // The released plan's budget is too small for this one.
    SessionOptions options = smallBudget();
    options.budgetBytes = footprint::sessionPeak(
        lin.preparedBytes(), lin.graphBytes(), LinModel::restBytes(), true);
    EXPECT_FALSE(Session::create(lin.desc, lin.data, options, error));
    EXPECT_NE(error.find("is below the smallest plan"), std::string::npos)
        << error;
  }
  {
    // Without prepare nothing read the graph yet.
    LinModel lin;
    lin.graphUnused(true, true);
    std::unique_ptr<Session> session =
        Session::create(lin.desc, lin.data, smallBudget(), error);
    ASSERT_TRUE(session) << error;
    EXPECT_FALSE(session->graphReleased());
    EXPECT_EQ(session->arena().highWaterEnd(),
              lin.graphBytes() + LinModel::restBytes());
  }
  {
    // Prepare returns a view of the graph (its transpose), flagged by the
    // compiler: it is still read through the view.
    LinModel lin;
    lin.addPrepare(/*view=*/true);
    lin.graphUnused(true, true);
    std::unique_ptr<Session> session =
        Session::create(lin.desc, lin.data, smallBudget(), error);
    ASSERT_TRUE(session) << error;
    EXPECT_FALSE(session->graphReleased());
    EXPECT_EQ(session->arena().highWaterEnd(),
              footprint::sessionPeak(lin.preparedBytes(), lin.graphBytes(),
                                     LinModel::restBytes(), false));
    // A budget that fits only with the graph gone is refused up front.
    SessionOptions options = smallBudget();
    options.budgetBytes = footprint::sessionPeak(
        lin.preparedBytes(), lin.graphBytes(), LinModel::restBytes(), true);
    EXPECT_FALSE(Session::create(lin.desc, lin.data, options, error));
    EXPECT_NE(error.find("is below the smallest plan this CPU runtime can run"),
              std::string::npos)
        << error;
  }
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
// A plan that offloads runs on CUDA too (host tier in pinned memory): the
// table passes its checks and the session goes on to open the device.
TEST(Session, CudaTableThatOffloadsGoesOnToTheDevice) {
  LinModel lin;
  lin.desc.target = GNNRT_TARGET_CUDA;
  lin.step.num_offload_handles = 2;
  std::string error;
  if (Session::create(lin.desc, lin.data, smallBudget(), error))
    GTEST_SKIP() << "a GPU: the device case is bench/gpu/offload.sh's";
  EXPECT_EQ(error.find("offload"), std::string::npos) << error;
  EXPECT_NE(error.find("model Lin was compiled for the CUDA target"),
            std::string::npos)
      << error;
}

TEST(Session, CudaTableWithAHostHomeIsRefusedBeforeTheDevice) {
  LinModel lin;
  lin.desc.target = GNNRT_TARGET_CUDA;
  lin.keepWeightOnHost();
  std::string error;
  EXPECT_FALSE(Session::create(lin.desc, lin.data, smallBudget(), error));
  EXPECT_EQ(error, "model Lin: the memory plan keeps param 'lin.weight' in "
                   "host memory; such plans run on the CPU target only");
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
