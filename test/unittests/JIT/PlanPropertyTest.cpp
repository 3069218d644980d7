//===- PlanPropertyTest.cpp - The memory plan's promise, on random cases --===//
//
// The memory planner promises two things for every program and budget it
// accepts: the run's measured device peak never exceeds the budget (and
// equals the plan's prediction, since every tensor has a static offset),
// and, with exact saved precision, training computes the same numbers as
// keeping everything. This test checks both on random models (depth,
// width, layer kinds, dropout, residuals), random synthetic graphs and
// random budgets between the smallest plan and keep-all's peak: 50 models
// with 4 budgets each, 200 budgeted runs, each compared bit for bit with
// the model's keep_all run.
//
// Each model also checks the smallest budget the compiler reports: it
// trains, and one arena slot (64 bytes) less is refused. One model in five
// runs offload_all with a tiny host_memory, so its tensors go through real
// spill files; one in five allows bf16 storage (saved_precision = bf16),
// whose losses may differ but must stay close and whose peak must still
// hold. Every model also trains under checkpoint_layers (each layer's
// input kept, the rest recomputed), bit for bit like keep_all.
//
//===----------------------------------------------------------------------===//
#include "gnnc/JIT.h"
#include "gnnrt/Session.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <random>

using namespace gnnc::jit;

namespace {

constexpr int kModels = 50;
constexpr int kBudgetsPerModel = 4;
constexpr int kSteps = 3;

/// A random program: its source with a `@SETTINGS@` slot in the train block
/// for the budget and policy of each run.
struct Case {
  std::string source;
  bool disk = false;   ///< Also run offload_all through the spill files.
  bool narrow = false; ///< saved_precision = bf16 (lossy storage allowed).
};

Case makeCase(int index) {
  std::mt19937_64 rng(0x9e3779b97f4a7c15ULL * (index + 1));
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto coin = [&](double p) {
    return std::bernoulli_distribution(p)(rng);
  };
  Case c;
  c.disk = index % 5 == 2;
  c.narrow = index % 5 == 4;

  const char *widths[] = {"4", "8", "16", "32"};
  const char *activations[] = {"relu", "elu", "leaky_relu"};
  std::string body;
  body += coin(0.7) ? "  h = dropout(x, p = 0.5);\n" : "  h = x;\n";
  int depth = pick(1, 3);
  int width = -1; // The width of h when known to be a hidden width.
  for (int layer = 0; layer < depth; ++layer) {
    int w = pick(0, 3);
    std::string out = widths[w];
    std::string conv;
    switch (pick(0, 3)) {
    case 0:
      conv = "gcn_conv(h, out = " + out + ")";
      break;
    case 1: {
      const char *aggr[] = {"mean", "sum", "max"};
      conv = "sage_conv(h, out = " + out + ", aggr = " + aggr[pick(0, 2)] +
             ")";
      break;
    }
    case 2: {
      int heads = pick(1, 3);
      conv = "gat_conv(h, out = " + out + ", heads = " +
             std::to_string(heads) + ", concat = false)";
      break;
    }
    default:
      conv = "linear(h, out = " + out + ")";
      break;
    }
    std::string act = activations[pick(0, 2)];
    // A residual needs the same width on both sides.
    if (width == w && coin(0.5))
      body += "  h = h + " + act + "(" + conv + ");\n";
    else
      body += "  h = " + act + "(" + conv + ");\n";
    width = w;
    if (coin(0.5))
      body += "  h = dropout(h, p = 0.3);\n";
  }
  body += coin(0.5) ? "  return gcn_conv(h, out = classes);\n"
                    : "  return sage_conv(h, out = classes, aggr = mean);\n";

  int nodes = pick(40, 400), degree = pick(2, 8), features = pick(8, 64),
      classes = pick(2, 5), graphSeed = pick(1, 1000), seed = pick(0, 1000);
  const char *optimizers[] = {"adam(lr = 0.01)",
                              "adamw(lr = 0.01, weight_decay = 0.01)",
                              "sgd(lr = 0.1, momentum = 0.9)"};
  c.source = llvm::formatv(R"(model M() {
{0}}
train M on synthetic(nodes = {1}, avg_degree = {2}, features = {3},
                     classes = {4}, seed = {5}) {
  loss = cross_entropy(); optimizer = {6}; epochs = {7}; seed = {8};
  @SETTINGS@
}
)",
                           body, nodes, degree, features, classes, graphSeed,
                           optimizers[pick(0, 2)], kSteps, seed)
                 .str();
  return c;
}

std::string withSettings(const Case &c, const std::string &settings) {
  std::string s = c.source;
  s.replace(s.find("@SETTINGS@"), 10, settings);
  return s;
}

CompileOptions options(const std::string &policy = "") {
  CompileOptions o;
  o.cacheDir = GNNC_TEST_CACHE_DIR;
  o.policy = policy;
  return o;
}

/// A run's losses and what it measured.
struct CaseRun {
  gnnrt::TrainReport report;
  std::string generated;
};

/// Compiles and trains \p source for kSteps epochs; nullopt (with a test
/// failure) when either fails.
std::optional<CaseRun> train(const std::string &source,
                         const std::string &policy = "") {
  auto program = Program::compileString(source, "case.gnn", options(policy));
  if (!program) {
    ADD_FAILURE() << llvm::toString(program.takeError()) << "\n" << source;
    return std::nullopt;
  }
  auto model = (*program)->bind(0);
  if (!model) {
    ADD_FAILURE() << llvm::toString(model.takeError()) << "\n" << source;
    return std::nullopt;
  }
  gnnrt::TrainOptions o;
  o.epochs = kSteps;
  auto report = (*model)->train(o);
  if (!report) {
    ADD_FAILURE() << llvm::toString(report.takeError()) << "\n" << source;
    return std::nullopt;
  }
  return CaseRun{std::move(*report), (*program)->generatedSource()};
}

/// The error of compiling \p source, "" when it compiles.
std::string compileError(const std::string &source) {
  auto program = Program::compileString(source, "case.gnn", options());
  if (program)
    return "";
  return llvm::toString(program.takeError());
}

/// The exact byte count in "(<size>, N bytes)" of a smallest-plan error
/// (the front end's lower bound and the planner's smallest plan both say
/// it so); nullopt when \p message has none.
std::optional<uint64_t> bytesIn(const std::string &message) {
  llvm::SmallVector<llvm::StringRef, 2> m;
  if (!llvm::Regex("is below the smallest plan[^(]*\\([^,]*, ([0-9]+) bytes\\)")
           .match(message, &m))
    return std::nullopt;
  uint64_t n;
  if (!llvm::to_integer(m[1], n))
    return std::nullopt;
  return n;
}

std::string memory(uint64_t bytes) {
  return "memory = " + std::to_string(bytes) + " B;";
}

/// The promise, for one run at \p budget.
void expectWithinPlan(const CaseRun &run, uint64_t budget) {
  const gnnrt::TrainReport &r = run.report;
  EXPECT_EQ(r.budgetBytes, budget);
  EXPECT_LE(r.plannedPeakBytes, budget);
  EXPECT_LE(r.arenaPeakBytes, budget);
  // Static offsets: what the plan predicts is what the arena reaches.
  EXPECT_EQ(r.arenaPeakBytes, r.plannedPeakBytes);
  // A host copy of a tensor computed at one row set's rows holds those
  // rows only (`mem.offload ... rows`); the plan reserves the whole
  // tensor, since the set's size is only estimated at compile time. So
  // the host peak is at most the planned one, and equal when no copy is
  // of rows.
  if (run.generated.find("gnnrt_offload_rows_to_host") == std::string::npos)
    EXPECT_EQ(r.hostPeakBytes, r.plannedHostBytes);
  else
    EXPECT_LE(r.hostPeakBytes, r.plannedHostBytes);
  EXPECT_EQ(r.diskPeakBytes, r.plannedDiskBytes);
}

size_t count(const std::string &text, llvm::StringRef what) {
  return llvm::StringRef(text).count(what);
}

class PlanProperty : public ::testing::TestWithParam<int> {};

TEST_P(PlanProperty, MeasuredPeakWithinBudgetAndExactLosses) {
  const Case c = makeCase(GetParam());
  SCOPED_TRACE(c.source);
  std::string extra = c.narrow ? "saved_precision = bf16;" : "";

  // The reference: everything kept, a budget nothing comes near.
  constexpr uint64_t kLarge = 1ULL << 30;
  std::optional<CaseRun> keep =
      train(withSettings(c, memory(kLarge) + extra), "keep_all");
  ASSERT_TRUE(keep);
  expectWithinPlan(*keep, kLarge);
  ASSERT_EQ(keep->report.losses.size(), static_cast<size_t>(kSteps));
  const uint64_t keepPeak = keep->report.plannedPeakBytes;

  // The smallest plan: one byte is below the front end's bound, which
  // states it; from there the planner states the exact smallest plan (or
  // the bound itself fits).
  std::string err = compileError(withSettings(c, memory(1) + extra));
  std::optional<uint64_t> bound = bytesIn(err);
  ASSERT_TRUE(bound) << err;
  err = compileError(withSettings(c, memory(*bound) + extra));
  uint64_t smallest = *bound;
  if (!err.empty()) {
    std::optional<uint64_t> exact = bytesIn(err);
    ASSERT_TRUE(exact) << err;
    ASSERT_GT(*exact, *bound);
    smallest = *exact;
    // Exact: one arena slot less has no plan.
    EXPECT_NE(compileError(withSettings(c, memory(smallest - 64) + extra)), "");
  }
  ASSERT_LE(smallest, keepPeak);

  // The budgets: the smallest, keep-all's peak, and random ones between.
  std::mt19937_64 rng(GetParam() * 7919 + 1);
  std::vector<uint64_t> budgets = {smallest, keepPeak};
  while (budgets.size() < kBudgetsPerModel)
    budgets.push_back(
        std::uniform_int_distribution<uint64_t>(smallest, keepPeak)(rng));
  // What the plans did, printed so a reader can see the cases are not all
  // keep-everything: plans that cost time (some tensor not kept), that
  // offload, and that store in bf16.
  int changed = 0, offloaded = 0, rowOffloaded = 0, narrowedRuns = 0;
  for (uint64_t budget : budgets) {
    SCOPED_TRACE("budget " + std::to_string(budget) + " bytes (smallest " +
                 std::to_string(smallest) + ", keep-all " +
                 std::to_string(keepPeak) + ")");
    std::optional<CaseRun> run = train(withSettings(c, memory(budget) + extra));
    ASSERT_TRUE(run);
    expectWithinPlan(*run, budget);
    ASSERT_EQ(run->report.losses.size(), keep->report.losses.size());
    bool narrowed = count(run->generated, "gnnrt_cpu_f32_to_") > 0;
    changed += run->report.predictedStepSeconds >
               run->report.keepAllStepSeconds;
    offloaded += count(run->generated, "gnnrt_offload_to_") +
                     count(run->generated, "gnnrt_offload_rows_to_") >
                 0;
    rowOffloaded += count(run->generated, "gnnrt_offload_rows_to_") > 0;
    narrowedRuns += narrowed;
    if (!narrowed) {
      // Recompute and offload never change a value.
      EXPECT_EQ(run->report.losses, keep->report.losses);
      continue;
    }
    // bf16 storage rounds saved tensors to 8 bits of mantissa (relative
    // error 2^-9 each); three steps of a small model move the loss by far
    // less than 5%.
    for (size_t i = 0; i < run->report.losses.size(); ++i)
      EXPECT_NEAR(run->report.losses[i], keep->report.losses[i],
                  0.05 * std::abs(keep->report.losses[i]))
          << "step " << i;
  }

  // The per-layer checkpoint (a forced policy that recomputes inside
  // layers from their kept inputs): within its plan, and the same losses,
  // since recompute never changes a value.
  bool checkpointRecomputes = false;
  {
    SCOPED_TRACE("plan = checkpoint_layers");
    std::optional<CaseRun> checkpoint =
        train(withSettings(c, memory(kLarge) + extra), "checkpoint_layers");
    ASSERT_TRUE(checkpoint);
    expectWithinPlan(*checkpoint, kLarge);
    EXPECT_EQ(checkpoint->report.losses, keep->report.losses);
    checkpointRecomputes = checkpoint->report.predictedStepSeconds >
                           checkpoint->report.keepAllStepSeconds;
  }

  std::printf("case %d: smallest %llu, keep-all %llu bytes; of %d budgets "
              "%d changed a fate, %d offloaded (%d some rows only), %d "
              "stored bf16; checkpoint_layers %s\n",
              GetParam(), static_cast<unsigned long long>(smallest),
              static_cast<unsigned long long>(keepPeak), kBudgetsPerModel,
              changed, offloaded, rowOffloaded, narrowedRuns,
              checkpointRecomputes ? "recomputes" : "keeps everything");

  if (!c.disk)
    return;
  // Every offloaded tensor through real files: a host tier too small for
  // any of them, and a spill directory.
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gnnc-spill", dir));
  std::optional<CaseRun> disk = train(
      withSettings(c, memory(kLarge) + " host_memory = 1 B; disk = spill(\"" +
                          dir.str().str() + "\", 64 MiB);"),
      "offload_all");
  ASSERT_TRUE(disk);
  expectWithinPlan(*disk, kLarge);
  EXPECT_EQ(disk->report.losses, keep->report.losses);
  // Nothing offloaded when the step saves nothing across a gap; otherwise
  // everything went to disk.
  if (count(disk->generated, "gnnrt_offload_to_") > 0) {
    EXPECT_GT(disk->report.diskPeakBytes, 0u);
    EXPECT_EQ(count(disk->generated, "gnnrt_offload_to_host"), 0u);
  }
  std::error_code ec;
  llvm::sys::fs::directory_iterator it(dir, ec);
  EXPECT_TRUE(it == llvm::sys::fs::directory_iterator())
      << "spill files left behind in " << dir.str().str();
  llvm::sys::fs::remove_directories(dir);
}

INSTANTIATE_TEST_SUITE_P(RandomModels, PlanProperty,
                         ::testing::Range(0, kModels));

} // namespace
