//===- Session.h - Training a compiled model on bound data -------*- C++
//-*-===//
//
// A Session is one compiled train block (its gnnrt_model_desc table) bound
// to one dataset on the CPU device. Everything the training step holds
// lives in one budgeted Arena: the graph's CSR views, the features, labels
// and masks, the parameters and optimizer state (twice: the step reads one
// copy and writes the other, as the ABI forbids results overlapping
// arguments), the loss, and one workspace shared by init, step and predict
// (predict's logits are in its arena, or follow it in tables without
// GNNRT_VALUE_IN_ARENA: they are read right after predict returns,
// footprint::predictWorkspace). The arena's high-water mark
// is therefore the measured peak of the run, checked against the train
// block's `memory` budget.
//
// Two decisions of the memory plan (gnnrt_value_flags, gnnrt/Model.h)
// change that layout. A parameter, optimizer state or the features whose
// plan keeps it in host memory (GNNRT_VALUE_HOME_HOST) gets its buffers
// from the host tier (OffloadTiers::allocateHome) instead, measured by the
// tier's high-water mark; the functions copy it in and out themselves. And
// when no function but @M.prepare reads the graph (GNNRT_VALUE_UNUSED), the
// graph's arrays leave the arena once prepare has run, and what is
// allocated after reuses their place (footprint::sessionPeak).
//
// A table compiled for the CUDA target (desc.target, gnnrt/Model.h) binds
// the same way on the GPU: the session opens a CUDA context, allocates the
// arena's region once with cudaMalloc at the budget (the budget is a real
// device allocation) and places everything in it with the same first-fit
// bookkeeping (Arena::createOver). The host writes and reads the arena only
// by copies (the data at bind, the loss after each step, the logits for
// metrics, the parameters), and sets the context current around every
// call of a generated function (gnnrt_cuda_current, gnnrt/Cuda.h). The
// CUDA library is loaded when the first CUDA table is bound: a CPU program
// never loads it.
//
// `gnnc run`, the JIT API and the executables `gnnc compile` builds all train
// through this class, so they behave and report alike.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_SESSION_H
#define GNNRT_SESSION_H

#include "gnnrt/Arena.h"
#include "gnnrt/Dataset.h"
#include "gnnrt/Kernels.h"
#include "gnnrt/Model.h"
#include "gnnrt/Offload.h"
#include "gnnrt/Progress.h"
#include "gnnrt/WeightsFile.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct gnnrt_cuda; // gnnrt/Cuda.h

namespace gnnrt {

enum class Split { Train, Val, Test };
const char *splitName(Split split);

struct SessionOptions {
  /// Bytes of the device arena; 0 takes the train block's `memory`, or,
  /// when it has none, the device's free memory: on the CPU the machine's
  /// available memory; on CUDA the GPU's free memory (cudaMemGetInfo) less
  /// Session::kCudaReserveBytes or 1/32 of the GPU's memory, whichever is
  /// larger, left for what the context allocates outside the arena
  /// (cuBLAS and cuSPARSE workspaces, the library calls' scratch, loaded
  /// kernels).
  uint64_t budgetBytes = 0;
  /// Kernel threads; 0 keeps the default (all cores).
  int threads = 0;
};

/// One epoch as the callback sees it.
struct EpochStats {
  int64_t epoch = 0; ///< 1-based.
  double loss = 0;   ///< The training loss of this epoch's step.
  double seconds = 0;
  bool evaluated = false; ///< `val` holds this epoch's validation metrics.
  /// AUROC and AUPR are NaN unless the program's metrics name auc_roc or
  /// auc_pr: they sort every class's scores, too slow for every epoch.
  gnnrt_metrics val{};
};

struct TrainOptions {
  int64_t epochs = -1; ///< -1: the train block's `epochs`.
  int64_t seed = -1;   ///< -1: the train block's `seed`.
  /// Start from fresh parameters (init); false continues from the current
  /// ones (loaded weights, earlier steps).
  bool fresh = true;
  ProgressOptions progress{false, false, 10};
  /// Called after every epoch; returning false stops training early.
  std::function<bool(const EpochStats &)> onEpoch;
  /// What early stopping and restoreBest watch on each validation pass.
  enum class Monitor {
    /// A pass makes progress, and its weights are the best, when its
    /// validation accuracy is higher than every earlier pass's (the
    /// earliest best: TrainReport::bestValEpoch).
    Accuracy,
    /// The GAT reference code's rule (Velickovic et al.): a pass makes
    /// progress when its validation accuracy is at least the highest so far
    /// or its validation loss (gnnrt_metrics::cross_entropy) at most the
    /// lowest so far; the weights kept are those of the last pass that did
    /// both.
    AccuracyOrLoss,
  };
  Monitor monitor = Monitor::Accuracy;
  /// Early stopping: stop once this many validation passes in a row (the
  /// train block's eval_every apart) have made no progress. 0 trains every
  /// epoch. The GAT paper's protocol is 100, AccuracyOrLoss, restoreBest.
  int64_t patience = 0;
  /// End with the kept weights (TrainReport::keptEpoch) instead of the
  /// last step's: the final metrics, predict() and saveWeights() then use
  /// them, bit for bit as they were at that pass. The optimizer state
  /// stays the last step's.
  bool restoreBest = false;
};

/// \p m's name on the command line and in reports: "accuracy",
/// "accuracy-or-loss".
const char *monitorName(TrainOptions::Monitor m);
/// The monitor called \p name (monitorName's), or false.
bool parseMonitor(const char *name, TrainOptions::Monitor &out);

struct TrainReport {
  std::string model, dataset, source;
  int64_t epochs = 0; ///< Epochs run.
  int64_t seed = 0;
  int threads = 0;
  std::vector<double> losses;
  std::vector<double> epochSeconds; ///< Each step's time.
  double totalSeconds = 0;          ///< Steps only.
  double medianEpochSeconds = 0;    ///< Steps only, epoch 1 (warm-up) excluded.
  double evalSeconds = 0;           ///< Validation passes.
  gnnrt_metrics train{}, val{}, test{}; ///< After the last epoch.
  /// Model selection on validation, as PyTorch Geometric's examples and the
  /// GCN and GAT papers report: the validation pass with the highest
  /// accuracy (the earliest on ties), and the test metrics of the same
  /// weights. Training keeps the last epoch's weights unless
  /// TrainOptions::restoreBest.
  /// Per-epoch passes: AUROC and AUPR as in EpochStats::val.
  int64_t bestValEpoch = 0;
  gnnrt_metrics bestVal{}, testAtBestVal{};
  /// TrainOptions::patience ran out before the last epoch (`epochs` is
  /// where training stopped).
  int64_t patience = 0;
  TrainOptions::Monitor monitor = TrainOptions::Monitor::Accuracy;
  bool stoppedEarly = false;
  /// The pass whose weights TrainOptions::monitor keeps: bestValEpoch
  /// under Accuracy.
  int64_t keptEpoch = 0;
  /// The final weights (and `train`, `val`, `test`) are keptEpoch's
  /// (TrainOptions::restoreBest).
  bool restoredBest = false;
  uint32_t metrics = GNNRT_METRIC_ACCURACY; ///< Which ones to show.
  /// Where the functions ran: "cpu" or "cuda" (the table's target).
  std::string target = "cpu";
  /// The device: "cpu", or the GPU and its architecture, "NVIDIA H200
  /// (sm_90)".
  std::string device = "cpu";
  uint64_t budgetBytes = 0;
  uint64_t arenaPeakBytes = 0;     ///< Arena high-water mark (live bytes).
  uint64_t arenaPeakEndBytes = 0;  ///< Highest arena offset reached.
  uint64_t arenaResidentBytes = 0; ///< Pages of the arena actually touched.
  /// CUDA only (0 on the CPU): the GPU memory the session holds, measured
  /// with cudaMemGetInfo after setup and after every step (the largest
  /// sample of total - free, less what was in use when the context was
  /// opened). It counts the whole arena (allocated at the budget), the
  /// context's scratch and workspaces and the loaded kernels, and what
  /// other processes allocated on the GPU meanwhile.
  uint64_t deviceUsedBytes = 0;
  uint64_t peakRssBytes = 0; ///< Of the whole process.
  /// The memory plan (gnn-plan-memory) next to what the run measured.
  std::string planPolicy;        ///< "" when the step has no plan.
  uint64_t plannedPeakBytes = 0; ///< Predicted device peak.
  uint64_t plannedHostBytes = 0, plannedDiskBytes = 0;
  uint64_t hostPeakBytes = 0, diskPeakBytes = 0; ///< Measured by the tiers.
  double predictedStepSeconds = 0, keepAllStepSeconds = 0;
};

class Session {
public:
  /// The least GPU memory a CUDA session leaves free when neither the
  /// options nor the train block set a budget (SessionOptions).
  static constexpr uint64_t kCudaReserveBytes = uint64_t(512) << 20;

  /// Checks the table (ABI version, target, the functions and roles this
  /// runtime runs), checks every shape against \p data, opens the device
  /// (CUDA: fails with gnnrt_cuda_open's reason, "no CUDA device: ...",
  /// where there is none) and lays the data out in the arena. Null with
  /// \p error set on failure.
  static std::unique_ptr<Session> create(const gnnrt_model_desc &model,
                                         const Dataset &data,
                                         const SessionOptions &options,
                                         std::string &error);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  const gnnrt_model_desc &model() const { return desc; }
  /// The arena's bookkeeping; on CUDA its addresses are device addresses.
  const Arena &arena() const { return *deviceArena; }
  /// The host and disk tiers: null unless the plan offloads or keeps a
  /// value in host memory.
  const OffloadTiers *offloadTiers() const { return tiers.get(); }
  /// Whether the graph's arrays were freed after @M.prepare (no other
  /// function reads them; the gnnrt_graph passed to them has null arrays).
  bool graphReleased() const { return releasedGraph; }
  /// "cpu", or the GPU as TrainReport::device names it.
  const std::string &deviceName() const { return device; }
  int64_t numClasses() const { return classes; }
  int64_t numNodes() const { return nodes; }
  /// Optimizer steps taken since initialize().
  int64_t stepsTaken() const { return step; }
  /// Whether initialize() (or loadWeights) has run.
  bool initialized() const { return ready; }

  /// Runs init: fresh parameters and optimizer state from \p seed.
  bool initialize(int64_t seed, std::string &error);
  /// One training step (one epoch: the graph is trained full-batch).
  bool trainStep(double &loss, std::string &error);
  /// Logits of every node, [numNodes * numClasses], from the current
  /// parameters (no dropout).
  bool predict(std::vector<float> &logits, std::string &error);
  /// Metrics of the current parameters on \p split.
  bool evaluate(Split split, gnnrt_metrics &out, std::string &error);
  /// initialize, the epochs with progress and callback, then train, val and
  /// test metrics.
  bool train(const TrainOptions &options, TrainReport &report,
             std::string &error);

  /// The parameters by name, as in the weights file. Empty if they cannot
  /// be copied from the GPU (saveWeights reports why).
  std::vector<NamedTensor> parameters() const;
  /// Replaces the parameters (names and shapes must match) and resets the
  /// optimizer state to that of a fresh init.
  bool setParameters(const std::vector<NamedTensor> &params,
                     std::string &error);
  bool saveWeights(const std::string &path, std::string &error) const;
  bool loadWeights(const std::string &path, std::string &error);

private:
  struct Slot; // A state value: role, param, shape, two copies.
  Session(const gnnrt_model_desc &model);
  bool bind(const Dataset &data, const SessionOptions &options,
            std::string &error);
  bool call(const gnnrt_function_desc &fn, const std::vector<void *> &args,
            const std::vector<void *> &results, std::string &error,
            char *arena = nullptr);
  /// The argument list of \p fn from the bound inputs and state copy \p k.
  bool arguments(const gnnrt_function_desc &fn, int k,
                 std::vector<void *> &args, std::string &error);
  /// Resolves every function's arguments and results once, at bind time,
  /// so that a step is one indirect call.
  bool buildCalls(std::string &error);
  /// predict into the logits buffer.
  bool forward(std::string &error);
  /// Metrics of the logits buffer on \p split; the ranking metrics (AUROC,
  /// AUPR) only when \p ranking (NaN otherwise).
  bool metricsOf(Split split, gnnrt_metrics &out, std::string &error,
                 bool ranking = true);
  int slotOf(const gnnrt_value_desc &v) const;
  /// The parameters by name, copied from the arena.
  bool readParameters(std::vector<NamedTensor> &out, std::string &error) const;
  /// The reverse of readParameters, in its order, names and shapes (no
  /// optimizer reset): what restoreBest puts back.
  bool writeParameters(const std::vector<NamedTensor> &params,
                       std::string &error);
  /// Copies each tensor into its slot's current copy (setParameters' and
  /// writeParameters' last step, once they have matched them).
  bool copyParametersIn(
      const std::vector<std::pair<const NamedTensor *, const Slot *>> &pairs,
      std::string &error);

  /// Opens the CUDA context and measures what the GPU holds before the
  /// arena is allocated.
  bool openCuda(std::string &error);
  /// Host memory into the arena and back: memcpy on the CPU, whose arena
  /// is host memory; gnnrt_cuda_copy on CUDA.
  bool copyIn(void *dst, const void *src, uint64_t bytes, std::string &error);
  bool copyOut(void *dst, const void *src, uint64_t bytes,
               std::string &error) const;
  /// Both directions: \p direction ("to", "from") names it in errors.
  bool transfer(void *dst, const void *src, uint64_t bytes,
                const char *direction, std::string &error) const;
  /// Calls \p fill on \p bytes of host memory that end up at \p dst in
  /// the arena: \p dst itself on the CPU; a staging buffer (64-byte
  /// aligned) then copied in on CUDA. False if \p fill or the copy fails
  /// (\p fill sets \p error).
  bool stageIn(void *dst, uint64_t bytes,
               const std::function<bool(void *)> &fill, std::string &error);
  /// CUDA: takes a cudaMemGetInfo sample for TrainReport::deviceUsedBytes.
  void sampleDeviceMemory();

  const gnnrt_model_desc &desc;
  /// The CUDA context and the arena's device region (null on the CPU).
  gnnrt_cuda *cuda = nullptr;
  void *deviceRegion = nullptr;
  /// CUDA: the pinned host memory the host tier lies in
  /// (gnnrt_cuda_host_alloc).
  void *hostRegion = nullptr;
  /// The device budget the plan was checked against (on CUDA the arena is
  /// smaller: the plan's exact footprint).
  uint64_t budgetBytes = 0;
  std::string device = "cpu";
  /// GPU bytes in use when the context was opened, and the largest
  /// increase measured since.
  int64_t deviceUsedBefore = 0;
  uint64_t deviceUsedPeak = 0;
  /// What metrics read on the host: the labels and masks (on every
  /// target: a mask no function takes has no other copy), and on CUDA the
  /// logits.
  std::vector<int32_t> hostLabels;
  std::vector<uint8_t> hostMasks[3];
  std::vector<float> hostLogits;
  std::unique_ptr<Arena> deviceArena;
  /// Host and disk tiers of a plan that offloads or has host homes; null
  /// otherwise.
  std::unique_ptr<OffloadTiers> tiers;
  bool releasedGraph = false;
  int64_t nodes = 0, edges = 0, features = 0, classes = 0;
  std::string datasetName;
  gnnrt_graph graph{};
  float *featureData = nullptr, *lossData = nullptr, *logitsData = nullptr;
  /// Predict's logits' offset in its arena (GNNRT_VALUE_IN_ARENA), or -1
  /// when they follow the arena.
  int64_t logitsInArena = -1;
  void *featureCsr = nullptr; ///< A gnnrt_csr_matrix buffer, when used.
  /// The labels and masks where functions read them (device or home), null
  /// when no function takes them.
  int32_t *labelData = nullptr;
  uint8_t *maskData[3] = {nullptr, nullptr, nullptr};
  char *workspace = nullptr;
  /// @M.prepare's results (gnn-hoist-graph-prep), computed once at bind:
  /// pointers to the graphs below or to float buffers in the arena. The
  /// graphs' arrays live in prepareArena, resident like the inputs.
  std::vector<void *> prepared;
  std::vector<gnnrt_graph> preparedGraphs;
  char *prepareArena = nullptr;
  std::vector<Slot> slots;
  std::vector<void *> initArgs, initResults, predictArgs[2];
  std::vector<void *> stepArgs[2], stepResults[2]; ///< By state copy read.
  int current = 0; ///< The state copy holding the latest values.
  int64_t seed = 0, step = 0;
  bool ready = false;
};

/// Loads the data a train block names: the dataset directory \p dir when
/// given (`--data`, a host's choice), else the one resolved at compile time;
/// or the synthetic(...) graph. A dataset that ships no features gets
/// seeded random stand-ins, and \p note says so (accuracy on them means
/// nothing).
bool loadModelData(const gnnrt_data_desc &data, const std::string &dir,
                   Dataset &out, std::string &note, std::string &error);

/// Prints the final report: test metrics, time per epoch, peak arena bytes
/// against the budget, peak RSS.
void printReport(std::FILE *out, const TrainReport &report);

/// The metric names of \p bits ("accuracy", "f1", ...) with their value in
/// \p m, in the order of the language's list.
std::vector<std::pair<std::string, double>>
metricValues(uint32_t bits, const gnnrt_metrics &m);

} // namespace gnnrt

#endif // GNNRT_SESSION_H
