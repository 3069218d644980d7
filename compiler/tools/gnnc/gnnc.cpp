//===- gnnc.cpp - The gnnc command-line tool ------------------------------===//
//
// A thin wrapper over compiler/Driver: parses the command line (LLVM's
// cl::opt with one subcommand per action) and maps results to exit codes:
// 0 success, 1 errors in the input, 2 bad usage.
//
//===----------------------------------------------------------------------===//
#include "compiler/Driver/Driver.h"
#include "compiler/tools/gnnc/Plan.h"
#include "compiler/tools/gnnc/Run.h"

#include "lang/Sema/Builtins.h"
#include "passes/MemoryPlan/CostModel.h"
#include "passes/MemoryPlan/PlanProblem.h"
#include "passes/Passes.h"

#include "gnnrt/Calibrate.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <ctime>

#include <unistd.h>

using namespace gnnc;
namespace cl = llvm::cl;

static cl::OptionCategory gnncCategory("gnnc options");

static cl::SubCommand checkCmd("check",
                               "Run every front-end check on a .gnn file");
static cl::SubCommand emitCmd("emit", "Print one stage of the compilation");
static cl::SubCommand runCmd("run", "Compile and train now");
static cl::SubCommand planCmd("plan", "Print the memory plan");
static cl::SubCommand compileCmd("compile", "Build an executable");
static cl::SubCommand
    calibrateCmd("calibrate",
                 "Measure this machine's rates for the memory planner");

static cl::opt<std::string>
    inputFile(cl::Positional, cl::desc("<file.gnn | ->"), cl::sub(checkCmd),
              cl::sub(emitCmd), cl::sub(runCmd), cl::sub(planCmd),
              cl::sub(compileCmd), cl::cat(gnncCategory));

static cl::list<std::string>
    dataDirs("data", cl::desc("Search DIR for datasets first (repeatable)"),
             cl::value_desc("DIR"), cl::sub(checkCmd), cl::sub(emitCmd),
             cl::sub(runCmd), cl::sub(planCmd), cl::sub(compileCmd),
             cl::cat(gnncCategory));

static cl::opt<std::string>
    only("only", cl::desc("Act only on the train blocks of this model"),
         cl::value_desc("MODEL"), cl::sub(checkCmd), cl::sub(emitCmd),
         cl::sub(runCmd), cl::sub(planCmd), cl::sub(compileCmd),
         cl::cat(gnncCategory));

static cl::opt<std::string>
    stage("stage",
          cl::desc("Stage to print: ast, gnn, decomposed, train, plan, cpp, "
                   "cuda"),
          cl::value_desc("STAGE"), cl::init("ast"), cl::sub(emitCmd),
          cl::cat(gnncCategory));

static cl::opt<bool> denseFeatures(
    "dense-features",
    cl::desc("Keep input features dense even when they are mostly zeros "
             "(by default they are stored as CSR; values are the same)"),
    cl::sub(emitCmd), cl::sub(runCmd), cl::sub(compileCmd),
    cl::cat(gnncCategory));

static cl::opt<bool> allRows(
    "all-rows",
    cl::desc("Compute every row of the training step, not only those the "
             "loss depends on (gnn-restrict-rows off; same losses)"),
    cl::sub(emitCmd), cl::sub(runCmd), cl::sub(compileCmd), cl::sub(planCmd),
    cl::cat(gnncCategory));

static cl::opt<bool> cudaLibraryDropout(
    "cuda-library-dropout",
    cl::desc("--target=cuda: dropout through the runtime library's kernel "
             "instead of the generated element-wise kernels (to compare "
             "the two on a GPU; same values)"),
    cl::sub(emitCmd), cl::sub(runCmd), cl::sub(compileCmd),
    cl::cat(gnncCategory));

static cl::opt<bool> cudaLibraryKernels(
    "cuda-library-kernels",
    cl::desc("--target=cuda: reductions, edge softmax, the loss and Adam "
             "through the runtime library's kernels instead of generated ones "
             "(to compare the two on a GPU; same values)"),
    cl::sub(runCmd), cl::sub(compileCmd), cl::sub(emitCmd),
    cl::cat(gnncCategory));

static cl::opt<std::string> splitHeads(
    "split-heads",
    cl::desc("When a gat_conv with several concatenated heads runs head by "
             "head: auto (when the memory budget is below what the heads "
             "need together, or the whole layers have no plan within it), "
             "always, never (same values either way)"),
    cl::init("auto"), cl::sub(emitCmd), cl::sub(runCmd), cl::sub(compileCmd),
    cl::sub(planCmd), cl::cat(gnncCategory));

static cl::opt<std::string> profileFile(
    "profile",
    cl::desc("Machine profile for the memory planner (default: "
             "$GNNC_PROFILE, else the output of 'gnnc calibrate', else the "
             "built-in profile)"),
    cl::value_desc("FILE"), cl::sub(emitCmd), cl::sub(runCmd),
    cl::sub(compileCmd), cl::sub(planCmd), cl::cat(gnncCategory));
static cl::opt<std::string>
    planPolicy("plan",
               cl::desc("Override the program's memory policy: auto, keep_all, "
                        "recompute_all, offload_all, or checkpoint_layers "
                        "(keep each layer's input, recompute the rest; for "
                        "comparisons, not a language value)"),
               cl::value_desc("POLICY"), cl::sub(emitCmd), cl::sub(runCmd),
               cl::sub(compileCmd), cl::sub(planCmd), cl::cat(gnncCategory));
static cl::opt<std::string> planSolver(
    "planner",
    cl::desc("Memory plan solver: auto (greedy, then a bounded exact search "
             "from its plan), exact, greedy, ilp (GLPK, to check optimality)"),
    cl::value_desc("SOLVER"), cl::init("auto"), cl::sub(emitCmd),
    cl::sub(runCmd), cl::sub(compileCmd), cl::sub(planCmd),
    cl::cat(gnncCategory));

static cl::opt<std::string> memoryBudget(
    "memory",
    cl::desc("Override the program's device memory budget in every train "
             "block (the language's size spelling: 3MiB, 3 MiB, 512 KiB, "
             "or plain bytes)"),
    cl::value_desc("SIZE"), cl::sub(checkCmd), cl::sub(emitCmd),
    cl::sub(runCmd), cl::sub(compileCmd), cl::sub(planCmd),
    cl::cat(gnncCategory));
static cl::opt<bool>
    planJson("json",
             cl::desc("Print the plan as JSON (docs/MemoryPlanning.md)"),
             cl::sub(planCmd), cl::cat(gnncCategory));
static cl::opt<std::string>
    planSvg("svg",
            cl::desc("Also draw each tier's bytes over the step as an SVG"),
            cl::value_desc("FILE"), cl::sub(planCmd), cl::cat(gnncCategory));

static cl::opt<bool> printDebugInfo(
    "mlir-print-debuginfo",
    cl::desc("IR stages: print each op's location (the .gnn line and column "
             "of its call)"),
    cl::sub(emitCmd), cl::cat(gnncCategory));

static cl::opt<bool>
    listBuiltins("list-builtins",
                 cl::desc("Print every operator and setting with its "
                          "arguments, defaults and ranges, then exit"),
                 cl::sub(checkCmd), cl::cat(gnncCategory));

static cl::opt<bool> verbose("v", cl::desc("Print a summary after checking"),
                             cl::sub(checkCmd), cl::cat(gnncCategory));

static cl::opt<int64_t> epochs("epochs",
                               cl::desc("Override the program's epochs"),
                               cl::value_desc("N"), cl::init(-1),
                               cl::sub(runCmd), cl::cat(gnncCategory));
static cl::opt<int64_t> seed("seed", cl::desc("Override the program's seed"),
                             cl::value_desc("S"), cl::init(-1), cl::sub(runCmd),
                             cl::cat(gnncCategory));
static cl::opt<int64_t> patience(
    "patience",
    cl::desc("Stop early once N validation passes in a row bring no better "
             "validation accuracy (default 0: train every epoch)"),
    cl::value_desc("N"), cl::init(0), cl::sub(runCmd), cl::cat(gnncCategory));
static cl::opt<gnnrt::TrainOptions::Monitor> monitor(
    "monitor",
    cl::desc("What --patience and --restore-best watch on each validation "
             "pass"),
    cl::values(
        clEnumValN(gnnrt::TrainOptions::Monitor::Accuracy,
                   gnnrt::monitorName(gnnrt::TrainOptions::Monitor::Accuracy),
                   "a higher validation accuracy than every earlier "
                   "pass (default)"),
        clEnumValN(
            gnnrt::TrainOptions::Monitor::AccuracyOrLoss,
            gnnrt::monitorName(gnnrt::TrainOptions::Monitor::AccuracyOrLoss),
            "the GAT paper's rule: progress while the "
            "validation accuracy or loss holds its record; "
            "keep the last pass that held both")),
    cl::init(gnnrt::TrainOptions::Monitor::Accuracy), cl::sub(runCmd),
    cl::cat(gnncCategory));
static cl::opt<bool> restoreBest(
    "restore-best",
    cl::desc("End with the weights of the best validation pass: the final "
             "metrics and --save-weights use them"),
    cl::sub(runCmd), cl::cat(gnncCategory));
static cl::opt<int> threads("threads",
                            cl::desc("Kernel threads (default: all cores)"),
                            cl::value_desc("T"), cl::init(0), cl::sub(runCmd),
                            cl::sub(calibrateCmd), cl::cat(gnncCategory));
static cl::opt<bool> quiet("quiet", cl::desc("No progress line on stderr"),
                           cl::sub(runCmd), cl::sub(calibrateCmd),
                           cl::cat(gnncCategory));
static cl::opt<std::string>
    reportFile("report",
               cl::desc("Also write the report as JSON to FILE (- for "
                        "stdout)"),
               cl::value_desc("FILE"), cl::sub(runCmd), cl::cat(gnncCategory));
static cl::opt<std::string>
    saveWeights("save-weights",
                cl::desc("Write the trained parameters to FILE "
                         "(docs/WeightsFormat.md)"),
                cl::value_desc("FILE"), cl::sub(runCmd), cl::cat(gnncCategory));
static cl::opt<std::string>
    loadWeights("load-weights",
                cl::desc("Start training from the parameters in FILE"),
                cl::value_desc("FILE"), cl::sub(runCmd), cl::cat(gnncCategory));
static cl::opt<bool>
    noCache("no-cache",
            cl::desc("Rebuild the generated code even if a cached build "
                     "exists ($GNNC_CACHE_DIR, ~/.cache/gnnc)"),
            cl::sub(runCmd), cl::cat(gnncCategory));
static cl::opt<bool>
    verboseBuild("verbose-build",
                 cl::desc("Print the C++ compiler's command line"),
                 cl::sub(runCmd), cl::sub(compileCmd), cl::cat(gnncCategory));
static cl::opt<std::string> output("o", cl::desc("Output executable"),
                                   cl::value_desc("FILE"), cl::sub(compileCmd),
                                   cl::cat(gnncCategory));
static cl::opt<std::string> profileOutput(
    "o",
    cl::desc("Write the profile to FILE (default: "
             "$XDG_CONFIG_HOME/gnnc/profile-cpu.json, else "
             "~/.config/gnnc/profile-cpu.json, where gnnc looks for it)"),
    cl::value_desc("FILE"), cl::sub(calibrateCmd), cl::cat(gnncCategory));
static cl::opt<std::string>
    spillDir("spill-dir",
             cl::desc("Directory the disk test writes its file in (default: "
                      "$TMPDIR, else /tmp)"),
             cl::value_desc("DIR"), cl::sub(calibrateCmd),
             cl::cat(gnncCategory));
static cl::opt<bool>
    quick("quick",
          cl::desc("Small problem sizes: under 2 s, rougher rates (tests)"),
          cl::sub(calibrateCmd), cl::cat(gnncCategory));
static cl::opt<std::string> checkProfile(
    "check-profile",
    cl::desc("Measure nothing: check the profile FILE and print it as gnnc "
             "reads it"),
    cl::value_desc("FILE"), cl::sub(calibrateCmd), cl::cat(gnncCategory));
static cl::opt<std::string>
    target("target",
           cl::desc("Where training runs (run, compile) or what to plan "
                    "or print for (plan, emit): cpu, or cuda (an NVIDIA GPU "
                    "of sm_80 or newer; docs/Cuda.md)"),
           cl::value_desc("TARGET"), cl::init("cpu"), cl::sub(compileCmd),
           cl::sub(runCmd), cl::sub(planCmd), cl::sub(emitCmd),
           cl::cat(gnncCategory));
static cl::list<std::string> cudaArchs(
    "arch",
    cl::desc("--target=cuda: GPU architectures to build kernels for "
             "(sm_80, sm_90, ...; repeatable or comma-separated; default "
             "sm_80,sm_90)"),
    cl::value_desc("ARCH"), cl::CommaSeparated, cl::sub(compileCmd),
    cl::cat(gnncCategory));

static int usageError(const llvm::Twine &message) {
  reportToolError(llvm::errs(), message);
  llvm::errs() << "Run 'gnnc --help' for usage.\n";
  return 2;
}

/// `gnnc calibrate`: measures the rates (gnnrt/Calibrate.h), prints them
/// and writes the profile the planner reads (docs/CostModel.md).
static int calibrateMachine() {
  using namespace mlir::gnn;
  if (!checkProfile.empty()) {
    llvm::Expected<MachineProfile> profile = readProfile(checkProfile);
    if (!profile) {
      reportToolError(llvm::errs(), llvm::toString(profile.takeError()));
      return 1;
    }
    writeProfile(*profile, llvm::outs());
    return 0;
  }
  std::string path = profileOutput;
  if (path.empty())
    path = getCalibratedProfilePath("cpu");
  if (path.empty())
    return usageError("neither $XDG_CONFIG_HOME nor $HOME is set: give the "
                      "profile's place with -o FILE");

  gnnrt::CalibrationOptions options;
  options.sizes = quick ? gnnrt::CalibrationSizes::quick()
                        : gnnrt::CalibrationSizes::full();
  options.spillDir = spillDir;
  options.threads = threads;
  if (!quiet)
    options.progress = [](const std::string &line) {
      llvm::errs() << line << "\n";
    };
  gnnrt::CalibrationResult result;
  std::string error;
  if (!gnnrt::calibrate(options, result, error)) {
    reportToolError(llvm::errs(), "calibrate: " + error);
    return 1;
  }

  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0 || !*host)
    std::snprintf(host, sizeof host, "unknown-host");
  char date[32] = "";
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  std::string comment = std::string("gnnc calibrate") +
                        (quick ? " --quick" : "") + ", " + date + ", " +
                        std::to_string(result.threads) + " thread" +
                        (result.threads == 1 ? "" : "s");
  MachineProfile profile = profileFromCalibration(result, host, comment);

  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  if (!parent.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(parent)) {
      reportToolError(llvm::errs(), "cannot create the directory '" + parent +
                                        "': " + ec.message());
      return 1;
    }
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec, llvm::sys::fs::OF_Text);
  if (!ec) {
    writeProfile(profile, file);
    file.close();
    ec = file.error();
  }
  if (ec) {
    reportToolError(llvm::errs(),
                    "cannot write the profile '" + path + "': " + ec.message());
    return 1;
  }
  llvm::outs() << gnnrt::formatCalibrationTable(result);
  llvm::outs() << "calibrated in " << llvm::format("%.1f", result.totalSeconds)
               << " s with " << result.threads << " thread"
               << (result.threads == 1 ? "" : "s") << "; wrote " << path
               << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << versionString() << "\n"; });
  for (cl::SubCommand *sub :
       {&cl::SubCommand::getTopLevel(), &checkCmd, &emitCmd, &runCmd, &planCmd,
        &compileCmd, &calibrateCmd})
    cl::HideUnrelatedOptions(gnncCategory, *sub);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "gnnc: train graph neural networks under a memory budget\n\n"
          "  gnnc check FILE            check a program, report every error\n"
          "  gnnc emit --stage=ast FILE print the syntax tree and the "
          "checked program\n"
          "  gnnc plan FILE             print the memory plan (--memory "
          "SIZE, --json, --svg F)\n"
          "  gnnc calibrate             measure this machine for the memory "
          "planner\n",
          &llvm::errs()))
    return 2;

  if (calibrateCmd)
    return calibrateMachine();
  if (checkCmd && listBuiltins) {
    sema::printBuiltins(llvm::outs());
    return 0;
  }
  if (!checkCmd && !emitCmd && !runCmd && !planCmd && !compileCmd)
    return usageError("no command given (check, emit, run, plan, compile)");
  if (inputFile.empty())
    return usageError("no input file");

  std::optional<Stage> emitStage;
  if (emitCmd) {
    emitStage = parseStage(stage);
    if (!emitStage)
      return usageError("unknown stage '" + stage +
                        "' (stages: " + stageList() + ")");
    if (target != "cpu" && target != "cuda")
      return usageError("unknown --target '" + target + "' (cpu, cuda)");
    // Each target's source stage belongs to it alone; an explicit
    // --target that contradicts it is a mistake, not a request.
    if (*emitStage == Stage::Cpp && target == "cuda")
      return usageError("--stage=cpp prints the CPU target's C++; the CUDA "
                        "target's source is --stage=cuda");
    if (*emitStage == Stage::Cuda && target.getNumOccurrences() &&
        target == "cpu")
      return usageError("--stage=cuda prints the CUDA target's source; the "
                        "CPU target's is --stage=cpp");
  }

  DriverOptions options;
  options.inputFile = inputFile;
  options.dataDirs = dataDirs;
  options.only = only;
  options.printDebugInfo = printDebugInfo;
  options.denseFeatures = denseFeatures;
  options.allRows = allRows;
  options.cudaLibraryDropout = cudaLibraryDropout;
  options.cudaLibraryKernels = cudaLibraryKernels;
  options.splitHeads = splitHeads;
  options.profile = profileFile;
  options.policy = planPolicy;
  options.solver = planSolver;
  // Names the planner knows (passes/MemoryPlan/PlanProblem.h); checked
  // here too so a typo is a usage error before anything compiles.
  using mlir::gnn::plan::kPolicyNames, mlir::gnn::plan::kSolverNames;
  if (!planPolicy.empty() &&
      !llvm::is_contained(kPolicyNames, llvm::StringRef(planPolicy)))
    return usageError("unknown --plan '" + planPolicy + "' (" +
                      mlir::gnn::nameList(kPolicyNames) + ")");
  if (!llvm::is_contained(kSolverNames, llvm::StringRef(planSolver)))
    return usageError("unknown --planner '" + planSolver + "' (" +
                      mlir::gnn::nameList(kSolverNames) + ")");
  if (!llvm::is_contained(mlir::gnn::kSplitHeadsModes,
                          llvm::StringRef(splitHeads)))
    return usageError("unknown --split-heads '" + splitHeads + "' (" +
                      mlir::gnn::nameList(mlir::gnn::kSplitHeadsModes) + ")");
  if (memoryBudget.getNumOccurrences()) {
    llvm::Expected<uint64_t> bytes = parseSizeSpelling(memoryBudget);
    if (!bytes)
      return usageError("invalid --memory " +
                        llvm::toString(bytes.takeError()));
    options.memory = *bytes;
  }
  if (emitCmd)
    options.target = target;
  options.showColors = llvm::WithColor(llvm::errs()).colorsEnabled();
  Compilation compilation(options, llvm::errs());
  if (!compilation.runFrontend())
    return 1;

  if (emitCmd)
    return compilation.emit(*emitStage, llvm::outs()) ? 0 : 1;
  if (checkCmd) {
    if (verbose) {
      for (const sema::BoundTrain &t : compilation.getChecked().trains) {
        const sema::ModelInstance &m = t.model;
        llvm::outs() << inputFile << ": train " << m.name << " on '"
                     << t.data.name << "': ops = " << m.ops.size() - 1
                     << ", returns [N, " << m.ops[m.result].width.value_or(-1)
                     << "], epochs = " << t.config.epochs << "\n";
      }
    }
    return 0;
  }
  if (runCmd || compileCmd) {
    if (target != "cpu" && target != "cuda")
      return usageError("unknown --target '" + target + "' (cpu, cuda)");
    std::vector<std::string> archs;
    for (const std::string &arch : cudaArchs) {
      llvm::StringRef number(arch);
      unsigned sm = 0;
      if (!number.consume_front("sm_") || number.getAsInteger(10, sm) ||
          sm < 80)
        return usageError("invalid --arch '" + arch +
                          "' (sm_80 or newer, e.g. sm_90)");
      archs.push_back(number.str());
    }
    if (!archs.empty() && target != "cuda")
      return usageError("--arch needs --target=cuda");
    if (target == "cuda" && archs.empty())
      archs = {"80", "90"};
    options.target = target;
    if (runCmd) {
      if (patience < 0)
        return usageError("--patience must be >= 0, not " +
                          llvm::Twine(patience.getValue()));
      RunOptions run;
      run.epochs = epochs;
      run.seed = seed;
      run.patience = patience;
      run.restoreBest = restoreBest;
      run.monitor = monitor;
      run.threads = threads;
      run.quiet = quiet;
      run.reportFile = reportFile;
      run.saveWeights = saveWeights;
      run.loadWeights = loadWeights;
      run.useCache = !noCache;
      run.verboseBuild = verboseBuild;
      return runProgram(options, run);
    }
    if (output.empty())
      return usageError("gnnc compile needs -o FILE");
    return compileProgram(options, output, verboseBuild, archs);
  }
  if (target != "cpu" && target != "cuda")
    return usageError("unknown --target '" + target + "' (cpu, cuda)");
  PlanOptions plan;
  plan.cudaTarget = target == "cuda";
  plan.json = planJson;
  plan.svgFile = planSvg;
  return planProgram(compilation, plan, llvm::outs());
}
