//===- Run.cpp - gnnc run and gnnc compile --------------------------------===//
//
// `gnnc run` is a JIT API client like any host program: compile, bind each
// train block's data, train with the progress line, print the runtime's
// report and optionally write it as JSON (llvm::json) for scripts.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/gnnc/Run.h"

#include "compiler/JIT/Toolchain.h"
#include "gnnc/JIT.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace gnnc;

namespace {

/// NaN (an undefined metric) as JSON null.
llvm::json::Value number(double v) {
  if (std::isnan(v))
    return nullptr;
  return v;
}

llvm::json::Object metricsJson(const gnnrt_metrics &m) {
  return llvm::json::Object{{"count", m.count},
                            {"accuracy", number(m.accuracy)},
                            {"precision", number(m.precision)},
                            {"recall", number(m.recall)},
                            {"f1", number(m.f1)},
                            {"auc_roc", number(m.auroc)},
                            {"auc_pr", number(m.aupr)},
                            {"cross_entropy", number(m.cross_entropy)}};
}

llvm::json::Object reportJson(const gnnrt::TrainReport &r) {
  llvm::json::Array losses, times;
  for (double l : r.losses)
    losses.push_back(l);
  for (double t : r.epochSeconds)
    times.push_back(t);
  return llvm::json::Object{
      {"model", r.model},
      {"dataset", r.dataset},
      {"source", r.source},
      {"target", r.target},
      {"device_name", r.device},
      {"threads", r.threads},
      {"seed", r.seed},
      {"epochs", r.epochs},
      {"metrics", llvm::json::Object{{"train", metricsJson(r.train)},
                                     {"val", metricsJson(r.val)},
                                     {"test", metricsJson(r.test)}}},
      {"best_val", llvm::json::Object{{"epoch", r.bestValEpoch},
                                      {"val", metricsJson(r.bestVal)},
                                      {"test", metricsJson(r.testAtBestVal)}}},
      {"early_stop",
       llvm::json::Object{{"patience", r.patience},
                          {"monitor", gnnrt::monitorName(r.monitor)},
                          {"stopped", r.stoppedEarly},
                          {"kept_epoch", r.keptEpoch}}},
      {"restored_best", r.restoredBest},
      {"loss", std::move(losses)},
      {"epoch_seconds", std::move(times)},
      {"median_epoch_seconds", r.medianEpochSeconds},
      {"train_seconds", r.totalSeconds},
      {"eval_seconds", r.evalSeconds},
      {"memory",
       llvm::json::Object{
           {"device",
            llvm::json::Object{
                {"budget_bytes", static_cast<int64_t>(r.budgetBytes)},
                {"planned_peak_bytes",
                 static_cast<int64_t>(r.plannedPeakBytes)},
                {"measured_peak_bytes", static_cast<int64_t>(r.arenaPeakBytes)},
                {"touched_bytes", static_cast<int64_t>(r.arenaResidentBytes)},
                // cudaMemGetInfo's view: the arena plus the libraries'
                // workspaces (0 on the CPU).
                {"gpu_in_use_bytes", static_cast<int64_t>(r.deviceUsedBytes)}}},
           {"host",
            llvm::json::Object{{"planned_peak_bytes",
                                static_cast<int64_t>(r.plannedHostBytes)},
                               {"measured_peak_bytes",
                                static_cast<int64_t>(r.hostPeakBytes)}}},
           {"disk",
            llvm::json::Object{{"planned_peak_bytes",
                                static_cast<int64_t>(r.plannedDiskBytes)},
                               {"measured_peak_bytes",
                                static_cast<int64_t>(r.diskPeakBytes)}}},
           {"plan",
            llvm::json::Object{
                {"policy", r.planPolicy},
                {"predicted_step_seconds", r.predictedStepSeconds},
                {"keep_all_step_seconds", r.keepAllStepSeconds}}},
           {"peak_rss_bytes", static_cast<int64_t>(r.peakRssBytes)}}}};
}

int error(const llvm::Twine &message) {
  reportToolError(llvm::errs(), message);
  return 1;
}

/// The command line's settings for the JIT, which both `gnnc run` and
/// `gnnc compile` build through: the same CompileSettings, plus the JIT's
/// own options at their defaults.
jit::CompileOptions compileOptionsFor(const DriverOptions &driver) {
  jit::CompileOptions options;
  static_cast<CompileSettings &>(options) = driver;
  return options;
}

} // namespace

int gnnc::runProgram(const DriverOptions &driver, const RunOptions &options) {
  jit::CompileOptions compileOptions = compileOptionsFor(driver);
  compileOptions.useCache = options.useCache;
  compileOptions.verbose = options.verboseBuild;
  bool progress = !options.quiet && gnnrt::Progress::stderrIsTerminal();
  if (progress)
    llvm::errs() << "compiling " << driver.inputFile << " ...\n";
  auto program = jit::Program::compileFile(driver.inputFile, compileOptions);
  if (!program) {
    // Front-end diagnostics already name file:line:col; print them as is.
    llvm::errs() << llvm::toString(program.takeError()) << "\n";
    return 1;
  }

  llvm::json::Array reports;
  for (size_t k = 0; k < (*program)->numTrains(); ++k) {
    gnnrt::SessionOptions sessionOptions;
    sessionOptions.threads = options.threads;
    // --data names directories to search for dataset names at compile
    // time; the binding is the directory the name resolved to.
    auto model = (*program)->bind(k, "", sessionOptions);
    if (!model)
      return error(llvm::toString(model.takeError()));
    if (!(*model)->dataNote().empty())
      llvm::WithColor::note(llvm::errs(), "gnnc")
          << (*model)->dataNote() << "\n";
    gnnrt::TrainOptions trainOptions;
    trainOptions.epochs = options.epochs;
    trainOptions.seed = options.seed;
    trainOptions.patience = options.patience;
    trainOptions.restoreBest = options.restoreBest;
    trainOptions.monitor = options.monitor;
    trainOptions.progress.enabled = !options.quiet;
    trainOptions.progress.interactive = gnnrt::Progress::stderrIsTerminal();
    if (!options.loadWeights.empty()) {
      if (llvm::Error e = (*model)->loadWeights(options.loadWeights))
        return error(llvm::toString(std::move(e)));
      trainOptions.fresh = false;
    }
    auto report = (*model)->train(trainOptions);
    if (!report)
      return error(llvm::toString(report.takeError()));
    std::fflush(stderr);
    gnnrt::printReport(stdout, *report);
    std::fflush(stdout);
    if (!options.saveWeights.empty())
      if (llvm::Error e = (*model)->saveWeights(options.saveWeights))
        return error(llvm::toString(std::move(e)));
    reports.push_back(reportJson(*report));
  }

  if (!options.reportFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.reportFile, ec);
    if (ec)
      return error("cannot write the report to '" + options.reportFile +
                   "': " + ec.message());
    os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"gnnc_report_version", 1},
                                     {"runs", std::move(reports)}}))
       << "\n";
  }
  return 0;
}

int gnnc::compileProgram(const DriverOptions &driver, const std::string &output,
                         bool verbose,
                         const std::vector<std::string> &cudaArchs) {
  jit::CompileOptions options = compileOptionsFor(driver);
  auto cpp = jit::generateCpp(driver.inputFile, nullptr, options);
  if (!cpp) {
    // Front-end diagnostics already name file:line:col; print them as is.
    llvm::errs() << llvm::toString(cpp.takeError()) << "\n";
    return 1;
  }
  auto toolchain = jit::findToolchain();
  if (!toolchain)
    return error(llvm::toString(toolchain.takeError()));
  if (llvm::Error e = jit::buildExecutable(
          *toolchain, *cpp, output, verbose,
          driver.target == "cuda" ? cudaArchs : std::vector<std::string>()))
    return error(llvm::toString(std::move(e)));
  return 0;
}
