//===- Driver.cpp - The gnnc compilation pipeline as a library ------------===//
#include "compiler/Driver/Driver.h"
#include "passes/MemoryPlan/CostModel.h"

#include "llvm/Support/FileSystem.h"

#include "compiler/Target/CPU/EmitCpp.h"
#include "compiler/Target/CUDA/EmitCuda.h"

#include "lang/Basic/Diagnostics.h"
#include "lang/Basic/Suggest.h"
#include "lang/MLIRGen/MLIRGen.h"
#include "lang/Parser/Literals.h"
#include "lang/Parser/Parser.h"
#include "lang/Sema/Sema.h"
#include "passes/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace gnnc;

#ifndef GNNC_VERSION
#define GNNC_VERSION "0.0.0"
#endif

namespace {
struct StageInfo {
  Stage stage;
  llvm::StringRef name;
  llvm::StringRef what;
};
const StageInfo kStages[] = {
    {Stage::AST, "ast", "the syntax tree and the checked program"},
    {Stage::GNN, "gnn", "the gnn dialect"},
    {Stage::Decomposed, "decomposed", "gnn primitives after decomposition"},
    {Stage::Train, "train", "the training step (train dialect)"},
    {Stage::Plan, "plan", "the step with its memory plan (mem dialect)"},
    {Stage::Cpp, "cpp", "generated C++ for the CPU target"},
    {Stage::Cuda, "cuda", "generated CUDA C++"},
};

/// Whether a train block with a memory budget has a GAT layer that
/// concatenates several heads and that split-heads=auto keeps whole: one
/// gnn-decompose could still split head by head.
bool hasHeadsKeptWhole(const gnnc::sema::CheckedProgram &program) {
  for (const gnnc::sema::BoundTrain &train : program.trains) {
    if (!train.config.memory)
      continue;
    for (const gnnc::sema::LayerOp &op : train.model.ops) {
      if (gnnc::concatenatesHeads(op) &&
          !gnnc::splitsHeadsUnderAuto(
              op, train.data, gnnc::sema::elementBytes(train.config.precision),
              train.config.memory))
        return true;
    }
  }
  return false;
}

/// Whether a train block with a memory budget has a GAT layer, whose
/// element-wise ops over edges gnn-restrict-rows' edge-rows restricts.
bool hasBudgetedAttention(const gnnc::sema::CheckedProgram &program) {
  for (const gnnc::sema::BoundTrain &train : program.trains)
    if (train.config.memory)
      for (const gnnc::sema::LayerOp &op : train.model.ops)
        if (op.kind == gnnc::sema::OpKind::GatConv)
          return true;
  return false;
}
} // namespace

std::optional<Stage> gnnc::parseStage(llvm::StringRef name) {
  for (const StageInfo &s : kStages)
    if (s.name == name)
      return s.stage;
  return std::nullopt;
}

llvm::StringRef gnnc::stageName(Stage stage) {
  for (const StageInfo &s : kStages)
    if (s.stage == stage)
      return s.name;
  return "?";
}

std::string gnnc::stageList() {
  std::string s;
  for (const StageInfo &info : kStages)
    s += (s.empty() ? "" : ", ") + info.name.str();
  return s;
}

std::string gnnc::versionString() {
  return std::string("gnnc version ") + GNNC_VERSION +
         " (language v1, LLVM " LLVM_VERSION_STRING ")";
}

llvm::Expected<uint64_t> gnnc::parseSizeSpelling(llvm::StringRef text) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + text + "': " + why);
  };
  llvm::StringRef s = text.trim();
  // The number as the grammar's NUM reads it (Gnn.g4): digits, an optional
  // fraction, an optional exponent; the unit is whatever follows.
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && llvm::isDigit(s[i]))
      ++i;
    return i > start;
  };
  if (!digits())
    return fail("a size is a number and an optional unit (3MiB, 3 MiB, "
                "3145728)");
  if (i < s.size() && s[i] == '.') {
    ++i;
    digits();
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t mark = i++;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    if (!digits())
      i = mark; // Not an exponent: "3 EiB"-like units start here.
  }
  llvm::StringRef number = s.take_front(i);
  llvm::StringRef unit = s.drop_front(i).ltrim(" \t");
  if (unit.empty())
    unit = "B";
  if (sizeUnitBytes(unit) == 0) {
    std::string known;
    for (llvm::StringRef u : sizeUnitNames())
      known += (known.empty() ? "" : ", ") + u.str();
    return fail("unknown size unit '" + unit + "'" +
                didYouMean(unit, sizeUnitNames()) + " (units: " + known + ")");
  }
  uint64_t bytes = 0;
  LiteralResult r = decodeSize(number, unit, bytes);
  if (!r.ok)
    return fail(r.error);
  if (bytes == 0)
    return fail("a memory budget must be at least 1 B");
  return bytes;
}

void gnnc::reportToolError(llvm::raw_ostream &os, const llvm::Twine &message) {
  llvm::WithColor::error(os, "gnnc") << message << "\n";
}

Compilation::Compilation(DriverOptions options, llvm::raw_ostream &diagOS)
    : options(std::move(options)), diagOS(diagOS),
      sourceMgr(std::make_unique<llvm::SourceMgr>()) {}

Compilation::~Compilation() = default;

bool Compilation::readInput(const std::string *source) {
  std::unique_ptr<llvm::MemoryBuffer> input;
  if (source) {
    input = llvm::MemoryBuffer::getMemBufferCopy(*source, options.inputFile);
  } else {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(options.inputFile,
                                                     /*IsText=*/true);
    if (std::error_code ec = buffer.getError()) {
      reportToolError(diagOS, "cannot read '" + options.inputFile +
                                  "': " + ec.message());
      return false;
    }
    input = std::move(*buffer);
  }
  unsigned id = sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  diags = std::make_unique<DiagnosticEngine>(*sourceMgr, id, &diagOS,
                                             options.showColors);
  return true;
}

bool Compilation::runFrontend() { return runFrontendOn(nullptr); }

bool Compilation::runFrontendOn(const std::string &source) {
  return runFrontendOn(&source);
}

bool Compilation::runFrontendOn(const std::string *source) {
  if (!readInput(source))
    return false;
  ast = parseProgram(*diags);
  // Semantic checks on a tree rebuilt by error recovery would mostly report
  // the syntax errors again in other words.
  if (diags->hasErrors())
    return false;

  SemaOptions semaOptions;
  semaOptions.dataSearchPath = defaultDataSearchPath(options.dataDirs);
  if (options.inputFile != "-" && !source)
    semaOptions.sourceDir =
        llvm::sys::path::parent_path(options.inputFile).str();
  // --memory replaces the budget everywhere it is read: Sema's lower
  // bound, MLIRGen's train.config (the planner, its errors) and the
  // runtime's arena.
  semaOptions.memory = options.memory;
  checked = checkProgram(*ast, *diags, semaOptions);
  if (diags->hasErrors())
    return false;
  return applyOnly();
}

bool Compilation::applyOnly() {
  if (options.only.empty())
    return true;
  std::vector<sema::BoundTrain> kept;
  std::vector<llvm::StringRef> names;
  for (sema::BoundTrain &t : checked.trains) {
    names.push_back(t.model.name);
    if (t.model.name == options.only)
      kept.push_back(std::move(t));
  }
  if (kept.empty()) {
    reportToolError(
        diagOS, "--only " + options.only + ": no train block trains model '" +
                    options.only + "'" + didYouMean(options.only, names));
    return false;
  }
  checked.trains = std::move(kept);
  return true;
}

bool Compilation::emit(Stage stage, llvm::raw_ostream &os) {
  switch (stage) {
  case Stage::AST:
    ast::dump(*ast, os);
    sema::dump(checked, os);
    return true;
  case Stage::GNN:
  case Stage::Decomposed:
  case Stage::Train:
  case Stage::Plan: {
    // The IR the chosen target compiles: the CUDA target plans without
    // row restriction, cache rooms, signs or host reads (lowerTo).
    mlir::OwningOpRef<mlir::ModuleOp> module =
        lowerTo(stage, /*cpuTarget=*/options.target != "cuda");
    if (!module)
      return false;
    mlir::OpPrintingFlags flags;
    if (options.printDebugInfo)
      flags.enableDebugInfo().useLocalScope();
    module->print(os, flags);
    os << "\n";
    return true;
  }
  case Stage::Cpp: {
    mlir::OwningOpRef<mlir::ModuleOp> module = lowerTo(stage);
    return module &&
           succeeded(mlir::gnn::emitCpp(*module, os, cppEmitOptions()));
  }
  case Stage::Cuda: {
    // The CPU target's lowest stage, without the row restriction: the
    // CUDA target has no row kernels yet.
    mlir::OwningOpRef<mlir::ModuleOp> module =
        lowerTo(Stage::Cpp, /*cpuTarget=*/false);
    return module &&
           succeeded(mlir::gnn::emitCuda(*module, os, cppEmitOptions()));
  }
  }
  llvm_unreachable("unknown stage");
}

mlir::gnn::CppEmitOptions Compilation::cppEmitOptions() const {
  mlir::gnn::CppEmitOptions result;
  result.source = options.inputFile;
  result.generatedDropout = !options.cudaLibraryDropout;
  result.generatedOpKernels = !options.cudaLibraryKernels;
  for (const sema::BoundTrain &t : checked.trains)
    if (t.data.kind == sema::DataSource::Kind::Dataset && t.data.resolved)
      result.dataDirs[t.data.name] = t.data.dir;
  return result;
}

mlir::OwningOpRef<mlir::ModuleOp> Compilation::lowerTo(Stage stage,
                                                       bool cpuTarget) {
  assert(stage >= Stage::GNN && stage <= Stage::Cpp && "not an IR stage");
  if (!context) {
    context = std::make_unique<mlir::MLIRContext>();
    mlir::gnn::loadGnncDialects(*context);
    // Errors from MLIRGen and every pass print like the front end's:
    // file:line:col, the source line and a caret.
    mlirDiagHandler = std::make_unique<mlir::SourceMgrDiagnosticHandler>(
        *sourceMgr, context.get(), diagOS);
  }
  mlir::gnn::PipelineOptions pipelineOptions;
  pipelineOptions.stage = stageName(stage).str();
  pipelineOptions.restrictRows = cpuTarget && !options.allRows;
  pipelineOptions.splitHeads = options.splitHeads;
  pipelineOptions.cache = cpuTarget;
  pipelineOptions.signs = cpuTarget;
  pipelineOptions.hostReads = cpuTarget;
  pipelineOptions.hoistPrefetches = !cpuTarget;
  if (options.denseFeatures)
    pipelineOptions.sparseFeatures = 0.0;
  // The machine profile the planner prices fates with: --profile, else
  // $GNNC_PROFILE, else `gnnc calibrate`'s output, else the target's
  // built-in one.
  std::string profileSource;
  llvm::Expected<mlir::gnn::MachineProfile> profile = mlir::gnn::resolveProfile(
      options.profile, cpuTarget ? "cpu" : "cuda", &profileSource);
  if (!profile) {
    reportToolError(diagOS, llvm::toString(profile.takeError()));
    return nullptr;
  }
  // gnn-plan-memory reads the file again, by an absolute path (a relative
  // one could spell a shipped profile's name), or takes the built-in
  // profile by its name.
  if (llvm::sys::fs::exists(profileSource)) {
    llvm::SmallString<256> path(profileSource);
    llvm::sys::fs::make_absolute(path);
    pipelineOptions.profile = std::string(path);
  } else {
    pipelineOptions.profile = profile->name;
  }
  pipelineOptions.policy = options.policy;
  pipelineOptions.solver = options.solver;
  auto lower = [&]() -> mlir::OwningOpRef<mlir::ModuleOp> {
    mlir::OwningOpRef<mlir::ModuleOp> module = mlirGen(*context, checked);
    if (!module)
      return nullptr;
    mlir::PassManager pm(context.get());
    if (failed(mlir::gnn::buildGnncPipeline(pm, pipelineOptions)) ||
        failed(pm.run(*module)))
      return nullptr;
    return module;
  };
  // Where a budget has no plan, cheaper forms in memory are tried before
  // giving up, each only where it differs from the attempts before:
  //  * Under split-heads=auto gnn-decompose splits a multi-head GAT layer
  //    only below its whole aggregation's need, but the smallest plan of
  //    the whole layers can sit above that need (fragmentation, the
  //    layer's backward): GAT on 2M nodes planned at 25% of keep-all split
  //    and was refused at 30% whole. So auto then plans the heads one by
  //    one (not where it split them already: the same attempt again).
  //  * The edge sets that restrict GAT's element-wise edge ops
  //    (gnn-restrict-rows' edge-rows) are 1.25 integers an edge, live over
  //    the attention (60 MB on 12 M edges): without them those ops compute
  //    every edge, slower, but the smallest plan is that much lower.
  // Each failed attempt's diagnostics are held back; the last attempt's
  // are shown whatever it gives, a successful one's too.
  bool splitLater = options.splitHeads == "auto" && hasHeadsKeptWhole(checked);
  bool edgesLater = pipelineOptions.restrictRows && pipelineOptions.edgeRows &&
                    hasBudgetedAttention(checked);
  std::vector<std::pair<std::string, bool>> attempts = {
      {pipelineOptions.splitHeads, true}};
  if (edgesLater)
    attempts.push_back({pipelineOptions.splitHeads, false});
  if (splitLater) {
    attempts.push_back({"always", true});
    if (edgesLater)
      attempts.push_back({"always", false});
  }
  for (size_t i = 0; i + 1 < attempts.size(); ++i) {
    pipelineOptions.splitHeads = attempts[i].first;
    pipelineOptions.edgeRows = attempts[i].second;
    std::vector<mlir::Diagnostic> held;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    {
      mlir::ScopedDiagnosticHandler hold(context.get(),
                                         [&](mlir::Diagnostic &d) {
                                           held.push_back(std::move(d));
                                           return mlir::success();
                                         });
      module = lower();
    }
    if (module) {
      for (mlir::Diagnostic &d : held)
        context->getDiagEngine().emit(std::move(d));
      return module;
    }
  }
  pipelineOptions.splitHeads = attempts.back().first;
  pipelineOptions.edgeRows = attempts.back().second;
  return lower();
}
