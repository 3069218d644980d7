//===- Sema.cpp - Semantic analysis of .gnn programs ----------------------===//
//
// Models are instantiated per `train` block, like templates: the same model
// body is checked with that block's parameter values and that dataset's
// `features` and `classes`. A model no `train` uses is still checked once,
// with unknown widths, so its mistakes are not silently skipped. Identical
// diagnostics from several instantiations are reported once (see
// DiagnosticEngine).
//
//===----------------------------------------------------------------------===//
#include "lang/Sema/Sema.h"

#include "lang/Basic/Diagnostics.h"
#include "lang/Basic/Suggest.h"
#include "lang/Sema/Builtins.h"
#include "lang/Sema/DataSource.h"
#include "lang/Sema/Value.h"

#include "gnnrt/Dataset.h"
#include "gnnrt/Footprint.h"
#include "gnnrt/Kernels.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace gnnc;
using namespace gnnc::sema;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

std::string Value::describe() const {
  switch (kind) {
  case Kind::Unknown:
    return "an unknown value";
  case Kind::Int:
    return "an integer (" + std::to_string(i) + ")";
  case Kind::Real:
    return "a number (" + formatReal(r) + ")";
  case Kind::Bool:
    return std::string("a bool (") + (b ? "true" : "false") + ")";
  case Kind::String:
    return "a string (\"" + s + "\")";
  case Kind::Size:
    return "a size (" + formatBytes(bytes) + ")";
  case Kind::List:
    return "a list";
  case Kind::Word:
    return "the word '" + s + "'";
  case Kind::Tensor:
    return width ? "a node tensor of width " + std::to_string(*width)
                 : std::string("a node tensor");
  }
  return "a value";
}

namespace {

/// A name's current value inside a model body or a compile-time context.
struct Binding {
  Value value;
  Location defLoc;
  bool used = false;
  bool local = false; ///< Assigned in the body (eligible for "unused").
};

class Scope {
public:
  Binding *lookup(llvm::StringRef name) {
    auto it = bindings.find(name);
    return it == bindings.end() ? nullptr : &it->second;
  }
  void set(llvm::StringRef name, Binding b) {
    if (!bindings.count(name))
      order.push_back(name.str());
    bindings[name] = std::move(b);
  }
  std::vector<llvm::StringRef> names() const {
    return std::vector<llvm::StringRef>(order.begin(), order.end());
  }
  const std::vector<std::string> &orderedNames() const { return order; }

private:
  llvm::StringMap<Binding> bindings;
  std::vector<std::string> order;
};

/// State of one model instantiation.
struct Instance {
  const ast::ModelDecl *decl = nullptr;
  ModelInstance result;
  std::map<OpKind, unsigned> counters;
  unsigned statements = 0;
  bool aborted = false;
  bool returned = false;
  unsigned repeatDepth = 0; ///< > 0 while unrolling a `repeat` body.
  std::optional<Value> returnValue;
  Location returnLoc;
};

struct EvalContext {
  Scope *scope = nullptr;
  Instance *model = nullptr; ///< Non-null inside a model body.
  bool allowWords = false;   ///< Unbound identifiers read as words.
};

/// Unsigned 64-bit values in an int64 setting, e.g. counts of bytes.
constexpr double kTwo53 = 9007199254740992.0;

class SemaImpl {
public:
  SemaImpl(DiagnosticEngine &diags, const SemaOptions &options)
      : diags(diags), options(options) {}

  CheckedProgram run(const ast::Program &program);

private:
  // Declarations.
  void collectModels(const ast::Program &program);
  void checkModelStructure(const ast::ModelDecl &model);
  void checkReturnsIn(const ast::Block &block, bool inRepeat,
                      const ast::ModelDecl &model);

  // Train blocks.
  std::optional<BoundTrain> checkTrain(const ast::TrainDecl &train);
  DataSource checkData(const ast::Expr &expr);
  void checkSettings(const ast::TrainDecl &train, TrainConfig &config,
                     std::map<std::string, Location> &settingLocs);
  void checkMemoryLowerBound(const BoundTrain &bt, const ast::TrainDecl &train);
  const CallSpec *resolveConstructor(const ast::Expr &expr,
                                     const std::vector<CallSpec> &specs,
                                     llvm::StringRef settingName,
                                     llvm::StringRef kindName,
                                     const std::vector<ast::Arg> *&args);

  // Models.
  std::optional<ModelInstance> instantiate(const ast::ModelDecl &model,
                                           const ast::TrainDecl *train,
                                           const DataSource *data);
  void execBlock(const ast::Block &block, Instance &inst, Scope &scope);
  void assign(Scope &scope, const std::string &name, Value value, Location loc);
  void warnUnused(Scope &scope);
  unsigned addOp(Instance &inst, OpKind kind, std::vector<unsigned> operands,
                 std::vector<NamedAttr> attrs, std::optional<int64_t> width,
                 Location loc);

  // Expressions.
  Value eval(const ast::Expr &expr, EvalContext &ctx);
  Value evalBinary(const ast::BinaryExpr &expr, EvalContext &ctx);
  Value evalNeg(const ast::UnaryExpr &expr, EvalContext &ctx);
  Value evalOpCall(const ast::CallExpr &call, EvalContext &ctx);
  Value arith(char op, const Value &a, const Value &b, Location loc);

  // Argument binding.
  struct Bound {
    std::vector<Value> values;   ///< One per spec argument.
    std::vector<Value> variadic; ///< Extra values of a variadic argument.
    bool ok = true;
  };
  Bound bind(const CallSpec &spec, llvm::StringRef what,
             const std::vector<ast::Arg> &args, Location callLoc,
             EvalContext &ctx);
  Value convert(const ArgSpec &spec, const Value &v,
                const std::string &argDesc);
  Value defaultValue(const ArgSpec &spec, Location loc);
  static AttrValue toAttr(const Value &v);

  DiagnosticEngine &diags;
  const SemaOptions &options;
  std::map<std::string, const ast::ModelDecl *> models;
  std::vector<llvm::StringRef> modelNames;
  Scope emptyScope;
};

} // namespace

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

CheckedProgram SemaImpl::run(const ast::Program &program) {
  CheckedProgram result;
  result.filename = program.filename;
  collectModels(program);

  std::map<std::string, bool> trained;
  for (const auto &decl : program.decls) {
    if (diags.shouldStop())
      break;
    const auto *train = dyn_cast<ast::TrainDecl>(decl.get());
    if (!train)
      continue;
    trained[train->getName()] = true;
    if (auto bt = checkTrain(*train))
      result.trains.push_back(std::move(*bt));
  }

  // Models nobody trains are still checked, with unknown dataset widths.
  for (const auto &decl : program.decls) {
    if (diags.shouldStop())
      break;
    const auto *model = dyn_cast<ast::ModelDecl>(decl.get());
    if (!model || trained.count(model->getName()) ||
        models[model->getName()] != model)
      continue;
    diags.warning(model->getNameLoc(),
                  "model '" + model->getName() + "' is never trained");
    instantiate(*model, nullptr, nullptr);
  }
  if (program.decls.empty() && !diags.hasErrors())
    diags.warning({1, 1}, "the program has no model and no train block");
  return result;
}

void SemaImpl::collectModels(const ast::Program &program) {
  for (const auto &decl : program.decls) {
    const auto *model = dyn_cast<ast::ModelDecl>(decl.get());
    if (!model)
      continue;
    auto [it, inserted] = models.emplace(model->getName(), model);
    if (!inserted) {
      diags.error(model->getNameLoc(),
                  "redefinition of model '" + model->getName() + "'");
      diags.note(it->second->getNameLoc(), "previous definition is here");
      continue;
    }
    modelNames.push_back(it->first);
    checkModelStructure(*model);
  }
}

void SemaImpl::checkModelStructure(const ast::ModelDecl &model) {
  std::map<std::string, Location> params;
  for (const ast::Param &p : model.getParams()) {
    if (p.name == "x" || p.name == "features" || p.name == "classes") {
      diags.error(p.loc, "parameter '" + p.name +
                             "' would hide the built-in name '" + p.name + "'");
      continue;
    }
    auto [it, inserted] = params.emplace(p.name, p.loc);
    if (!inserted) {
      diags.error(p.loc, "duplicate parameter '" + p.name + "' in model '" +
                             model.getName() + "'");
      diags.note(it->second, "previous declaration is here");
    }
  }
  checkReturnsIn(model.getBody(), false, model);
  const ast::Block &body = model.getBody();
  if (body.empty() || !isa<ast::ReturnStmt>(body.back().get()))
    diags.error(model.getEndLoc(), "model '" + model.getName() +
                                       "' must end with a 'return' statement");
}

void SemaImpl::checkReturnsIn(const ast::Block &block, bool inRepeat,
                              const ast::ModelDecl &model) {
  for (size_t i = 0; i < block.size(); ++i) {
    const ast::Stmt *stmt = block[i].get();
    if (const auto *rep = dyn_cast<ast::RepeatStmt>(stmt)) {
      checkReturnsIn(rep->getBody(), true, model);
      continue;
    }
    if (!isa<ast::ReturnStmt>(stmt))
      continue;
    if (inRepeat)
      diags.error(stmt->getLoc(), "'return' is not allowed inside 'repeat'");
    else if (i + 1 != block.size())
      diags.error(stmt->getLoc(), "'return' must be the last statement of "
                                  "model '" +
                                      model.getName() + "'");
  }
}

//===----------------------------------------------------------------------===//
// Train blocks
//===----------------------------------------------------------------------===//

std::optional<BoundTrain> SemaImpl::checkTrain(const ast::TrainDecl &train) {
  BoundTrain bt;
  bt.loc = train.getLoc();
  bt.data = checkData(train.getData());
  checkSettings(train, bt.config, bt.settingLocs);
  const std::map<std::string, Location> &settingLocs = bt.settingLocs;

  auto it = models.find(train.getName());
  if (it == models.end()) {
    diags.error(train.getNameLoc(),
                "train of unknown model '" + train.getName() + "'" +
                    didYouMean(train.getName(), modelNames));
    // Arguments are still checked for their own errors.
    EvalContext ctx{&emptyScope};
    for (const ast::Arg &a : train.getArgs())
      eval(*a.value, ctx);
    return std::nullopt;
  }
  auto inst = instantiate(*it->second, &train, &bt.data);
  const SamplingConfig &sampling = bt.config.sampling;
  if (sampling.kind == SamplingConfig::Kind::Cluster && bt.data.resolved &&
      sampling.parts > bt.data.nodes) {
    auto loc = settingLocs.find("sampling");
    diags.error(loc != settingLocs.end() ? loc->second : train.getLoc(),
                "cluster parts = " + std::to_string(sampling.parts) +
                    " is more than the " + std::to_string(bt.data.nodes) +
                    " nodes of '" + bt.data.name + "'");
  }
  if (!inst)
    return std::nullopt;
  bt.model = std::move(*inst);
  if (options.memory)
    bt.config.memory = *options.memory;
  checkMemoryLowerBound(bt, train);
  return bt;
}

DataSource SemaImpl::checkData(const ast::Expr &expr) {
  DataSource data;
  data.loc = expr.getLoc();
  if (const auto *id = dyn_cast<ast::IdentExpr>(&expr)) {
    diags.error(expr.getLoc(), "expected dataset(\"" + id->getName() +
                                   "\") or synthetic(...) after 'on'");
    return data;
  }
  const auto *call = dyn_cast<ast::CallExpr>(&expr);
  if (!call) {
    diags.error(expr.getLoc(),
                "expected dataset(\"name\") or synthetic(...) after 'on'");
    return data;
  }
  const CallSpec *spec = findIn(dataSpecs(), call->getCallee());
  if (!spec) {
    diags.error(expr.getLoc(),
                "unknown data source '" + call->getCallee() + "'" +
                    didYouMean(call->getCallee(), namesOf(dataSpecs())) +
                    " (expected dataset or synthetic)");
    return data;
  }
  EvalContext ctx{&emptyScope};
  Bound b = bind(*spec, spec->name, call->getArgs(), call->getLoc(), ctx);
  if (!b.ok)
    return data;
  if (spec->name == "dataset") {
    data.kind = DataSource::Kind::Dataset;
    const Value &name = b.values[0];
    data.name = name.s;
    data.normalizeFeatures = b.values[1].b;
    if (name.s.empty()) {
      diags.error(name.loc, "dataset name is empty");
      return data;
    }
    resolveDataset(data, name.loc, options, diags);
    if (data.resolved && !data.hasFeatures)
      diags.warning(name.loc,
                    "dataset '" + data.name +
                        "' ships no node features (has_features = 0 in "
                        "meta.json); x has width " +
                        std::to_string(data.features) +
                        " but its values will not be real data");
    return data;
  }
  data.kind = DataSource::Kind::Synthetic;
  data.name = "synthetic";
  data.nodes = b.values[0].i;
  data.avgDegree = b.values[1].r;
  data.features = b.values[2].i;
  data.classes = b.values[3].i;
  data.seed = b.values[4].i;
  data.normalizeFeatures = b.values[5].b;
  if (data.avgDegree > double(data.nodes - 1)) {
    diags.error(b.values[1].loc, "avg_degree = " + formatReal(data.avgDegree) +
                                     " is larger than nodes - 1 = " +
                                     std::to_string(data.nodes - 1));
    return data;
  }
  double edges = std::round(double(data.nodes) * data.avgDegree);
  if (edges > 2147483647.0) {
    diags.error(call->getLoc(),
                "synthetic graph would have " + formatReal(edges) +
                    " edges; the limit is 2147483647 (int32 edge ids)");
    return data;
  }
  data.edges = static_cast<int64_t>(edges);
  data.featureNnz = gnnrt::syntheticFeatureNnz(data.nodes, data.features);
  data.trainNodes = gnnrt::syntheticTrainCount(data.nodes, data.classes);
  data.resolved = true;
  return data;
}

const CallSpec *SemaImpl::resolveConstructor(
    const ast::Expr &expr, const std::vector<CallSpec> &specs,
    llvm::StringRef settingName, llvm::StringRef kindName,
    const std::vector<ast::Arg> *&args) {
  static const std::vector<ast::Arg> noArgs;
  std::string name;
  if (const auto *id = dyn_cast<ast::IdentExpr>(&expr)) {
    name = id->getName();
    args = &noArgs;
  } else if (const auto *call = dyn_cast<ast::CallExpr>(&expr)) {
    name = call->getCallee();
    args = &call->getArgs();
  } else {
    diags.error(expr.getLoc(), "setting '" + settingName + "' expects " +
                                   kindName + " such as " + specs.front().name +
                                   "(...), got '" + ast::toSource(expr) + "'");
    return nullptr;
  }
  const CallSpec *spec = findIn(specs, name);
  if (!spec) {
    std::string known;
    for (llvm::StringRef n : namesOf(specs))
      known += (known.empty() ? "" : ", ") + n.str();
    llvm::StringRef noun = kindName.substr(kindName.find(' ') + 1);
    diags.error(expr.getLoc(), "unknown " + noun.str() + " '" + name + "'" +
                                   didYouMean(name, namesOf(specs)) +
                                   " (known: " + known + ")");
  }
  return spec;
}

void SemaImpl::checkSettings(const ast::TrainDecl &train, TrainConfig &config,
                             std::map<std::string, Location> &settingLocs) {
  std::vector<llvm::StringRef> settingNames;
  for (const SettingSpec &s : settingSpecs())
    settingNames.push_back(s.name);

  for (const ast::Setting &setting : train.getSettings()) {
    if (diags.shouldStop())
      return;
    const SettingSpec *spec = findSetting(setting.name);
    if (!spec) {
      diags.error(setting.loc, "unknown setting '" + setting.name + "'" +
                                   didYouMean(setting.name, settingNames));
      continue;
    }
    auto [it, inserted] = settingLocs.emplace(setting.name, setting.loc);
    if (!inserted) {
      diags.error(setting.loc, "setting '" + setting.name + "' is set twice");
      diags.note(it->second, "first set here");
      continue;
    }
    const ast::Expr &expr = *setting.value;
    EvalContext ctx{&emptyScope};
    std::string desc = "setting '" + setting.name + "'";

    switch (spec->kind) {
    case SettingKind::Loss: {
      const std::vector<ast::Arg> *args = nullptr;
      const CallSpec *c =
          resolveConstructor(expr, lossSpecs(), setting.name, "a loss", args);
      if (!c)
        break;
      Bound b = bind(*c, c->name, *args, expr.getLoc(), ctx);
      if (!b.ok)
        break;
      config.loss.kind = LossConfig::Kind::CrossEntropy;
      config.loss.labelSmoothing = b.values[0].r;
      config.loss.balancedClassWeights = b.values[1].s == "balanced";
      break;
    }
    case SettingKind::Optimizer: {
      const std::vector<ast::Arg> *args = nullptr;
      const CallSpec *c = resolveConstructor(
          expr, optimizerSpecs(), setting.name, "an optimizer", args);
      if (!c)
        break;
      Bound b = bind(*c, c->name, *args, expr.getLoc(), ctx);
      if (!b.ok)
        break;
      OptimizerConfig &opt = config.optimizer;
      opt = OptimizerConfig();
      opt.lr = b.values[0].r;
      if (c->name == "sgd") {
        opt.kind = OptimizerConfig::Kind::SGD;
        opt.momentum = b.values[1].r;
        opt.weightDecay = b.values[2].r;
        opt.nesterov = b.values[3].b;
        if (opt.nesterov && opt.momentum == 0)
          diags.error(expr.getLoc(),
                      "sgd with nesterov = true needs momentum > 0");
      } else {
        opt.kind = c->name == "adam" ? OptimizerConfig::Kind::Adam
                                     : OptimizerConfig::Kind::AdamW;
        opt.beta1 = b.values[1].r;
        opt.beta2 = b.values[2].r;
        opt.eps = b.values[3].r;
        opt.weightDecay = b.values[4].r;
      }
      break;
    }
    case SettingKind::Sampling: {
      const std::vector<ast::Arg> *args = nullptr;
      const CallSpec *c = resolveConstructor(expr, samplingSpecs(),
                                             setting.name, "a sampler", args);
      if (!c)
        break;
      Bound b = bind(*c, c->name, *args, expr.getLoc(), ctx);
      if (!b.ok)
        break;
      SamplingConfig &s = config.sampling;
      if (c->name == "full_graph") {
        s.kind = SamplingConfig::Kind::FullGraph;
      } else if (c->name == "neighbor") {
        s.kind = SamplingConfig::Kind::Neighbor;
        for (const Value &v : b.values[0].list)
          s.fanout.push_back(v.i);
        s.batch = b.values[1].i;
        s.shuffle = b.values[2].b;
      } else if (c->name == "cluster") {
        s.kind = SamplingConfig::Kind::Cluster;
        s.parts = b.values[0].i;
        s.batch = b.values[1].i;
        if (s.batch > s.parts)
          diags.error(b.values[1].loc,
                      "cluster batch = " + std::to_string(s.batch) +
                          " is larger than parts = " + std::to_string(s.parts));
      } else {
        s.kind = SamplingConfig::Kind::SaintRW;
        s.roots = b.values[0].i;
        s.length = b.values[1].i;
        s.steps = b.values[2].i;
      }
      break;
    }
    case SettingKind::Disk: {
      const auto *call = dyn_cast<ast::CallExpr>(&expr);
      if (!call || call->getCallee() != "spill") {
        diags.error(expr.getLoc(), "setting 'disk' expects spill(\"dir\", "
                                   "size), got '" +
                                       ast::toSource(expr) + "'");
        break;
      }
      Bound b =
          bind(spillSpec(), "spill", call->getArgs(), call->getLoc(), ctx);
      if (!b.ok)
        break;
      if (b.values[0].s.empty()) {
        diags.error(b.values[0].loc, "spill directory is empty");
        break;
      }
      config.disk = DiskConfig{b.values[0].s, b.values[1].bytes};
      break;
    }
    case SettingKind::Int: {
      ArgSpec as{spec->name, ArgKind::Int};
      as.min = double(spec->min);
      // Seeds take any non-negative int64; counts stay below 1e9.
      as.max =
          spec->name == "seed" ? std::numeric_limits<double>::infinity() : 1e9;
      Value v = convert(as, eval(expr, ctx), desc);
      if (v.isUnknown())
        break;
      if (spec->name == "epochs")
        config.epochs = v.i;
      else if (spec->name == "accumulate")
        config.accumulate = v.i;
      else if (spec->name == "eval_every")
        config.evalEvery = v.i;
      else
        config.seed = v.i;
      break;
    }
    case SettingKind::Size: {
      ArgSpec as{spec->name, ArgKind::Size};
      as.min = 1;
      Value v = convert(as, eval(expr, ctx), desc);
      if (v.isUnknown())
        break;
      if (spec->name == "memory")
        config.memory = v.bytes;
      else
        config.hostMemory = v.bytes;
      break;
    }
    case SettingKind::Choice: {
      ArgSpec as{spec->name, ArgKind::Choice};
      as.choices = spec->choices;
      EvalContext wctx{&emptyScope, nullptr, /*allowWords=*/true};
      Value v = convert(as, eval(expr, wctx), desc);
      if (v.isUnknown())
        break;
      unsigned idx =
          std::find(spec->choices.begin(), spec->choices.end(), v.s) -
          spec->choices.begin();
      if (spec->name == "init")
        config.init = static_cast<InitScheme>(idx);
      else if (spec->name == "precision")
        config.precision = static_cast<Precision>(idx);
      else if (spec->name == "saved_precision")
        config.savedPrecision = static_cast<SavedPrecision>(idx);
      else
        config.plan = static_cast<PlanPolicy>(idx);
      break;
    }
    case SettingKind::MetricList: {
      EvalContext wctx{&emptyScope, nullptr, /*allowWords=*/true};
      Value v = eval(expr, wctx);
      if (v.isUnknown())
        break;
      std::vector<Value> items;
      if (v.kind == Value::Kind::List)
        items = v.list;
      else
        items.push_back(v);
      if (items.empty()) {
        diags.error(expr.getLoc(), "metrics needs at least one metric");
        break;
      }
      ArgSpec as{"metrics", ArgKind::Choice};
      as.choices = spec->choices;
      std::vector<Metric> metrics;
      std::map<std::string, Location> seen;
      bool ok = true;
      for (const Value &item : items) {
        Value m = convert(as, item, "an element of 'metrics'");
        if (m.isUnknown()) {
          ok = false;
          continue;
        }
        auto [sit, fresh] = seen.emplace(m.s, m.loc);
        if (!fresh) {
          diags.warning(m.loc, "metric '" + m.s + "' is listed twice");
          diags.note(sit->second, "first listed here");
          continue;
        }
        unsigned idx =
            std::find(spec->choices.begin(), spec->choices.end(), m.s) -
            spec->choices.begin();
        metrics.push_back(static_cast<Metric>(idx));
      }
      if (ok)
        config.metrics = metrics;
      break;
    }
    }
  }

  for (const SettingSpec &s : settingSpecs()) {
    if (!s.required || settingLocs.count(s.name.str()))
      continue;
    std::string example = s.name == "loss" ? "loss = cross_entropy();"
                          : s.name == "optimizer"
                              ? "optimizer = adam(lr = 0.01);"
                              : "epochs = 200;";
    diags.error(train.getLoc(), "missing required setting '" + s.name +
                                    "' in train of '" + train.getName() +
                                    "' (for example: " + example + ")");
  }

  if (config.accumulate > 1 &&
      config.sampling.kind == SamplingConfig::Kind::FullGraph) {
    auto it = settingLocs.find("accumulate");
    diags.error(it != settingLocs.end() ? it->second : train.getLoc(),
                "accumulate = " + std::to_string(config.accumulate) +
                    " needs mini-batches, but sampling = full_graph makes "
                    "every micro-batch the whole graph");
  }
}

/// Bytes of an operator's fp32 master weights: it needs them on the device
/// while it runs, whatever the plan does between uses.
static uint64_t weightBytes(const LayerOp &op, const ModelInstance &model) {
  if (!hasParameters(op.kind) || op.operands.empty() || !op.width)
    return 0;
  const LayerOp &in = model.ops[op.operands[0]];
  if (!in.width)
    return 0;
  uint64_t fanIn = uint64_t(*in.width), out = uint64_t(*op.width);
  switch (op.kind) {
  case OpKind::SageConv: {
    const AttrValue *root = op.getAttr("root_weight");
    return 4 * (root && !root->b ? 1 : 2) * fanIn * out;
  }
  case OpKind::GraphConv:
    return 4 * 2 * fanIn * out; // root and neighbour weights
  case OpKind::GinConv:
    return 4 * (fanIn * out + out * out); // the 2-layer MLP
  case OpKind::BatchNorm:
  case OpKind::LayerNorm:
    return 4 * 2 * out; // scale and shift
  default:
    return 4 * fanIn * out; // gat_conv: out already counts the heads
  }
}

bool gnnc::concatenatesHeads(const LayerOp &op) {
  const AttrValue *heads = op.getAttr("heads");
  const AttrValue *concat = op.getAttr("concat");
  return op.kind == OpKind::GatConv && heads && heads->i > 1 &&
         (!concat || concat->b);
}

bool gnnc::splitsHeadsUnderAuto(const LayerOp &op, const DataSource &data,
                                uint64_t elt, std::optional<uint64_t> budget) {
  if (!concatenatesHeads(op) || !budget)
    return false;
  const uint64_t h = uint64_t(op.getAttr("heads")->i);
  const AttrValue *out = op.getAttr("out");
  return *budget < gnnrt::footprint::gatWholeAggregationBytes(
                       uint64_t(data.edges + data.nodes), uint64_t(data.nodes),
                       h, h * uint64_t(out ? out->i : 1), elt);
}

/// What one of gat_conv's steps needs on the device at once, the most of
/// them: the projection (the weights and the projected features, N x heads
/// x out), the scores (one logit per edge, self loops included, and head,
/// and the graph with self loops, \p graphBytes, which gnn.edge_add reads
/// whole), and the aggregation by the attention (the projected features,
/// its output as wide, and the logits; it, SDDMM and the edge soft-max may
/// read the graph a tile at a time). The projection also reads the layer's
/// input, \p operandBytes unless it is x.
///
/// Below that last need, a layer that concatenates several heads goes head
/// by head (gnn-decompose's split-heads = auto, by the same sum): each
/// head's scores and aggregation need a head's share of the attention and
/// of the features, beside the heads' outputs before they are joined (at
/// the last head, all of them and its own block).
static uint64_t gatBytes(const LayerOp &op, const ModelInstance &model,
                         const DataSource &data, uint64_t operandBytes,
                         uint64_t graphBytes, uint64_t elt,
                         std::optional<uint64_t> budget) {
  const AttrValue *heads = op.getAttr("heads");
  const AttrValue *out = op.getAttr("out");
  const uint64_t h = heads ? uint64_t(heads->i) : 1;
  const uint64_t n = uint64_t(data.nodes);
  const uint64_t edges = uint64_t(data.edges + data.nodes); // Self loops too.
  const uint64_t width = h * uint64_t(out ? out->i : 1);
  const uint64_t projected = n * width * elt;
  const uint64_t attention = edges * h * elt;
  const uint64_t projection = operandBytes + weightBytes(op, model) + projected;
  const uint64_t whole =
      gnnrt::footprint::gatWholeAggregationBytes(edges, n, h, width, elt);
  if (gnnc::splitsHeadsUnderAuto(op, data, elt, budget))
    return std::max({projection, graphBytes + attention / h,
                     projected + (attention + projected) / h});
  return std::max({projection, graphBytes + attention, whole});
}

void SemaImpl::checkMemoryLowerBound(const BoundTrain &bt,
                                     const ast::TrainDecl &train) {
  // With a sampler the device holds mini-batch sub-graphs whose size is only
  // known at run time, so the full-graph bound below would not be a bound.
  if (!bt.config.memory || !bt.data.resolved ||
      bt.config.sampling.kind != SamplingConfig::Kind::FullGraph)
    return;
  // A lower bound no plan can beat, however much it recomputes or offloads:
  // an operator needs its output, its non-input operands and, when it
  // aggregates by attention or max, the graph's CSR (with self loops) on
  // the device at once.
  // The memory planner reports the exact smallest plan; this catches
  // budgets that cannot work before anything else runs.
  const uint64_t elt = elementBytes(bt.config.precision);
  const uint64_t n = static_cast<uint64_t>(bt.data.nodes);
  const uint64_t graphBytes =
      4 * (n + 1 + static_cast<uint64_t>(bt.data.edges));
  // The bytes of a value: dropout over the input features may be kept
  // as CSR (gnn-sparse-features decides later), so a bound counts the
  // smaller of its two layouts.
  // Whether \p in is the input features or dropout over them, in a CSR
  // layout when the features are sparse.
  auto sparseInput = [&](const LayerOp &in) {
    const LayerOp *chain = &in;
    while (chain->kind == OpKind::Dropout && !chain->operands.empty())
      chain = &bt.model.ops[chain->operands[0]];
    return chain->kind == OpKind::Input && bt.data.featureNnz >= 0;
  };
  auto valueBytes = [&](const LayerOp &in) -> uint64_t {
    uint64_t dense = n * uint64_t(*in.width) * elt;
    if (!sparseInput(in))
      return dense;
    auto csr = static_cast<uint64_t>(gnnrt_csr_matrix_bytes(
        bt.data.nodes, bt.data.features, bt.data.featureNnz));
    return std::min(dense, csr);
  };
  // What an operand adds to its reader's need: nothing for the sparse
  // features dropped out, which a product may read from host memory a tile
  // at a time (gnnrt_cpu_csr_matmul_tiles); where none can, the planner's
  // exact error states the larger smallest plan. A bound may be low, never
  // high: it once claimed GCN-3 on Facebook needs its first layer's whole
  // dropped-out features, 12,101,376 bytes, above plans that exist.
  auto operandBytesOf = [&](const LayerOp &in) -> uint64_t {
    return sparseInput(in) ? 0 : valueBytes(in);
  };
  uint64_t worst = 0;
  const LayerOp *worstOp = nullptr;
  for (const LayerOp &op : bt.model.ops) {
    if (op.kind == OpKind::Input || !op.width)
      continue;
    // Element-wise ops and normalisations may write over their first
    // operand, so only the output and the other operands count; concat may
    // assemble its result around its operands, so only the output counts;
    // layers need input and output at once.
    bool inPlace = !isGraphOp(op.kind) && op.kind != OpKind::Linear;
    // A layer whose first step is a product of its input (gcn_conv's and
    // gat_conv's projection, linear) may read that input from host memory
    // a tile of rows at a time (gnnrt_cpu_matmul_tiles), for its weight
    // gradient too: then only its output need be whole on the device.
    bool inputInTiles = op.kind == OpKind::GcnConv ||
                        op.kind == OpKind::GatConv || op.kind == OpKind::Linear;
    uint64_t operandBytes = 0;
    for (size_t k = inPlace || inputInTiles ? 1 : 0; k < op.operands.size();
         ++k) {
      const LayerOp &in = bt.model.ops[op.operands[k]];
      if (in.kind != OpKind::Input && in.width)
        operandBytes += operandBytesOf(in);
    }
    uint64_t bytes;
    if (op.kind == OpKind::GatConv) {
      // Its steps need their operands at different times.
      bytes = gatBytes(op, bt.model, bt.data, operandBytes, graphBytes + 4 * n,
                       elt, bt.config.memory);
    } else {
      bytes = op.kind == OpKind::Concat ? n * uint64_t(*op.width) * elt
                                        : valueBytes(op) + operandBytes;
      // An aggregation by sum or mean may read the graph from host memory a
      // tile at a time (gnnrt_cpu_spmm_tiles); a max needs it on the device.
      const AttrValue *aggr = op.getAttr("aggr");
      if (isGraphOp(op.kind) && aggr && aggr->s == "max") {
        bytes += graphBytes;
        // gcn_conv (A + I) adds a self loop per node.
        const AttrValue *loops = op.getAttr("self_loops");
        if (op.kind == OpKind::GcnConv && (!loops || loops->b))
          bytes += 4 * n;
      }
      bytes += weightBytes(op, bt.model);
    }
    if (bytes > worst) {
      worst = bytes;
      worstOp = &op;
    }
  }
  if (!worstOp || *bt.config.memory >= worst)
    return;
  Location loc = train.getLoc();
  std::string spelled = formatBytes(*bt.config.memory);
  if (options.memory)
    spelled += " (--memory)";
  else
    for (const ast::Setting &s : train.getSettings()) {
      if (s.name != "memory")
        continue;
      loc = s.loc;
      if (const auto *size = dyn_cast<ast::SizeExpr>(s.value.get()))
        spelled = size->getSpelling();
    }
  diags.error(loc, "memory = " + spelled +
                       " is below the smallest plan for this program on '" +
                       bt.data.name + "' (at least " + formatBytes(worst) +
                       ", " + std::to_string(worst) + " bytes); the " +
                       getOpName(worstOp->kind).str() + " '" + worstOp->name +
                       "' alone needs that much on the device at once");
  diags.note(worstOp->loc, "'" + worstOp->name + "' is here");
}

//===----------------------------------------------------------------------===//
// Model instantiation
//===----------------------------------------------------------------------===//

std::optional<ModelInstance> SemaImpl::instantiate(const ast::ModelDecl &model,
                                                   const ast::TrainDecl *train,
                                                   const DataSource *data) {
  std::optional<DiagnosticContext> context;
  if (train)
    context.emplace(diags, train->getLoc(),
                    "while checking model '" + model.getName() +
                        "' for this train block");
  Instance inst;
  inst.decl = &model;
  inst.result.name = model.getName();
  bool known = data && data->resolved;
  unsigned errorsBefore = diags.errorCount();

  // Built-in names and the dataset's widths.
  Scope scope;
  Location modelLoc = model.getLoc();
  Value features =
      known ? Value::ofInt(data->features, modelLoc) : Value::unknown(modelLoc);
  Value classes =
      known ? Value::ofInt(data->classes, modelLoc) : Value::unknown(modelLoc);
  scope.set("features", {features, modelLoc, true, false});
  scope.set("classes", {classes, modelLoc, true, false});

  // Bind parameters: train arguments first, then defaults in order (a
  // default may use earlier parameters and the dataset's widths).
  const auto &params = model.getParams();
  std::vector<std::optional<Value>> given(params.size());
  std::vector<Location> givenLoc(params.size());
  if (train) {
    EvalContext ctx{&scope};
    bool seenNamed = false;
    size_t nextPos = 0;
    std::vector<llvm::StringRef> paramNames;
    for (const ast::Param &p : params)
      paramNames.push_back(p.name);
    for (const ast::Arg &arg : train->getArgs()) {
      size_t idx;
      if (arg.isNamed()) {
        seenNamed = true;
        auto it = llvm::find(paramNames, arg.name);
        if (it == paramNames.end()) {
          diags.error(arg.nameLoc, "model '" + model.getName() +
                                       "' has no parameter '" + arg.name + "'" +
                                       didYouMean(arg.name, paramNames));
          eval(*arg.value, ctx);
          continue;
        }
        idx = it - paramNames.begin();
      } else {
        if (seenNamed) {
          diags.error(arg.nameLoc, "positional argument after named arguments");
          continue;
        }
        if (nextPos >= params.size()) {
          diags.error(arg.nameLoc, "too many arguments for model '" +
                                       model.getName() + "' (it has " +
                                       std::to_string(params.size()) +
                                       " parameters)");
          continue;
        }
        idx = nextPos++;
      }
      if (given[idx]) {
        diags.error(arg.nameLoc,
                    "parameter '" + params[idx].name + "' is given twice");
        diags.note(givenLoc[idx], "first given here");
        continue;
      }
      given[idx] = eval(*arg.value, ctx);
      givenLoc[idx] = arg.nameLoc;
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ast::Param &p = params[i];
    Value v;
    if (given[i]) {
      v = *given[i];
      // The default is still checked: a mistake in it must not hide behind
      // every train block happening to pass the parameter.
      if (p.defaultValue) {
        EvalContext ctx{&scope};
        eval(*p.defaultValue, ctx);
      }
    } else if (p.defaultValue) {
      EvalContext ctx{&scope};
      v = eval(*p.defaultValue, ctx);
    } else if (train && p.name != "x" && p.name != "features" &&
               p.name != "classes") {
      diags.error(train->getNameLoc(), "model '" + model.getName() +
                                           "' needs a value for "
                                           "parameter '" +
                                           p.name + "'; write train " +
                                           model.getName() + "(" + p.name +
                                           " = ...)");
      diags.note(p.loc, "parameter '" + p.name + "' is declared here");
      v = Value::unknown(p.loc);
    } else {
      v = Value::unknown(p.loc);
    }
    if (p.name == "x" || p.name == "features" || p.name == "classes")
      continue; // Already reported; never hide the built-ins.
    scope.set(p.name, {v, p.loc, true, false});
    inst.result.args.push_back({p.name, toAttr(v)});
  }

  // The input features are op 0.
  std::optional<int64_t> inWidth;
  if (known)
    inWidth = data->features;
  unsigned input = addOp(inst, OpKind::Input, {}, {}, inWidth, modelLoc);
  inst.result.ops[input].name = "x";
  scope.set("x",
            {Value::ofTensor(input, inWidth, modelLoc), modelLoc, true, false});

  execBlock(model.getBody(), inst, scope);
  if (!inst.aborted && !diags.shouldStop())
    warnUnused(scope);

  // The return value: a node tensor of width `classes`.
  if (inst.returnValue && !inst.returnValue->isUnknown()) {
    const Value &ret = *inst.returnValue;
    if (ret.kind != Value::Kind::Tensor) {
      diags.error(ret.loc, "model '" + model.getName() +
                               "' must return a node tensor, got " +
                               ret.describe());
    } else {
      inst.result.result = ret.op;
      if (known && ret.width && *ret.width != data->classes) {
        diags.error(inst.returnLoc,
                    "model '" + model.getName() + "' returns width " +
                        std::to_string(*ret.width) + ", but '" + data->name +
                        "' has " + std::to_string(data->classes) + " classes");
        diags.note(ret.loc, "the returned value has width " +
                                std::to_string(*ret.width) +
                                "; node classification needs out = classes");
      }
    }
  }
  if (diags.errorCount() != errorsBefore || !inst.returnValue)
    return std::nullopt;
  return std::move(inst.result);
}

void SemaImpl::execBlock(const ast::Block &block, Instance &inst,
                         Scope &scope) {
  EvalContext ctx{&scope, &inst};
  for (const ast::StmtPtr &stmt : block) {
    if (inst.aborted || inst.returned || diags.shouldStop())
      return;
    if (++inst.statements > options.maxUnrolledStatements) {
      diags.error(stmt->getLoc(),
                  "model '" + inst.decl->getName() + "' unrolls to more than " +
                      std::to_string(options.maxUnrolledStatements) +
                      " statements");
      inst.aborted = true;
      return;
    }
    if (const auto *as = dyn_cast<ast::AssignStmt>(stmt.get())) {
      Value v = eval(as->getValue(), ctx);
      if (v.kind == Value::Kind::Word)
        v = Value::unknown(v.loc);
      if (as->getName() == "features" || as->getName() == "classes") {
        diags.error(as->getLoc(), "cannot assign to the built-in name '" +
                                      as->getName() + "'");
        continue;
      }
      assign(scope, as->getName(), v, as->getLoc());
      continue;
    }
    if (const auto *rep = dyn_cast<ast::RepeatStmt>(stmt.get())) {
      Value count = eval(rep->getCount(), ctx);
      if (count.isUnknown())
        continue;
      ArgSpec as{"repeat", ArgKind::Int};
      as.min = 1;
      as.max = options.maxUnrolledStatements;
      Value c = convert(as, count, "the count of 'repeat'");
      if (c.isUnknown())
        continue;
      ++inst.repeatDepth;
      for (int64_t k = 0; k < c.i && !inst.aborted && !diags.shouldStop(); ++k)
        execBlock(rep->getBody(), inst, scope);
      --inst.repeatDepth;
      continue;
    }
    const auto *ret = cast<ast::ReturnStmt>(stmt.get());
    // A `return` inside `repeat` was already reported by
    // checkModelStructure; only the model's final return is the result.
    if (inst.repeatDepth > 0)
      continue;
    inst.returnValue = eval(ret->getValue(), ctx);
    inst.returnLoc = ret->getLoc();
    inst.returned = true;
  }
}

void SemaImpl::assign(Scope &scope, const std::string &name, Value value,
                      Location loc) {
  if (Binding *old = scope.lookup(name)) {
    if (old->local && !old->used && !old->value.isUnknown() &&
        !(old->defLoc == loc))
      diags.warning(old->defLoc, "value assigned to '" + name +
                                     "' is overwritten before it is used");
  }
  scope.set(name, {std::move(value), loc, false, true});
}

void SemaImpl::warnUnused(Scope &scope) {
  for (const std::string &name : scope.orderedNames()) {
    Binding *b = scope.lookup(name);
    if (b->local && !b->used && !b->value.isUnknown())
      diags.warning(b->defLoc, "value of '" + name + "' is never used");
  }
}

unsigned SemaImpl::addOp(Instance &inst, OpKind kind,
                         std::vector<unsigned> operands,
                         std::vector<NamedAttr> attrs,
                         std::optional<int64_t> width, Location loc) {
  LayerOp op;
  op.kind = kind;
  op.name = getOpName(kind).str() + "_" + std::to_string(inst.counters[kind]++);
  op.operands = std::move(operands);
  op.attrs = std::move(attrs);
  op.width = width;
  op.loc = loc;
  inst.result.ops.push_back(std::move(op));
  return inst.result.ops.size() - 1;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Value SemaImpl::eval(const ast::Expr &expr, EvalContext &ctx) {
  Location loc = expr.getLoc();
  switch (expr.getKind()) {
  case ast::Expr::Kind::Number: {
    const auto &num = cast<ast::NumberExpr>(expr);
    if (num.isInteger()) {
      int64_t v = 0;
      if (llvm::StringRef(num.getSpelling()).getAsInteger(10, v))
        return Value::unknown(loc); // Already diagnosed by the parser.
      return Value::ofInt(v, loc);
    }
    return Value::ofReal(num.getValue(), loc);
  }
  case ast::Expr::Kind::Size:
    return Value::ofSize(cast<ast::SizeExpr>(expr).getBytes(), loc);
  case ast::Expr::Kind::String:
    return Value::ofString(cast<ast::StringExpr>(expr).getValue(), loc);
  case ast::Expr::Kind::Bool:
    return Value::ofBool(cast<ast::BoolExpr>(expr).getValue(), loc);
  case ast::Expr::Kind::Ident: {
    const std::string &name = cast<ast::IdentExpr>(expr).getName();
    if (Binding *b = ctx.scope->lookup(name)) {
      b->used = true;
      Value v = b->value;
      v.loc = loc;
      return v;
    }
    if (ctx.allowWords)
      return Value::ofString(name, loc, Value::Kind::Word);
    std::vector<llvm::StringRef> candidates = ctx.scope->names();
    if (ctx.model)
      candidates.push_back("x");
    std::string hint = didYouMean(name, candidates);
    if (hint.empty() && findIn(operatorSpecs(), name))
      hint = "; '" + name + "' is an operator: call it as " + name + "(...)";
    diags.error(loc, "use of undefined name '" + name + "'" + hint);
    return Value::unknown(loc);
  }
  case ast::Expr::Kind::Unary:
    return evalNeg(cast<ast::UnaryExpr>(expr), ctx);
  case ast::Expr::Kind::Binary:
    return evalBinary(cast<ast::BinaryExpr>(expr), ctx);
  case ast::Expr::Kind::Call: {
    const auto &call = cast<ast::CallExpr>(expr);
    if (ctx.model)
      return evalOpCall(call, ctx);
    if (findIn(operatorSpecs(), call.getCallee()))
      diags.error(loc, "operator '" + call.getCallee() +
                           "' can only be used inside a model body");
    else
      diags.error(loc, "'" + call.getCallee() +
                           "(...)' cannot be used here; a compile-time "
                           "value is expected");
    return Value::unknown(loc);
  }
  case ast::Expr::Kind::List: {
    Value v;
    v.kind = Value::Kind::List;
    v.loc = loc;
    bool unknown = false;
    for (const ast::ExprPtr &e : cast<ast::ListExpr>(expr).getElements()) {
      v.list.push_back(eval(*e, ctx));
      if (v.list.back().kind == Value::Kind::Tensor) {
        diags.error(e->getLoc(), "a list cannot hold node tensors");
        unknown = true;
      }
      unknown |= v.list.back().isUnknown();
    }
    return unknown ? Value::unknown(loc) : v;
  }
  }
  return Value::unknown(loc);
}

Value SemaImpl::evalNeg(const ast::UnaryExpr &expr, EvalContext &ctx) {
  Value v = eval(expr.getOperand(), ctx);
  Location loc = expr.getLoc();
  switch (v.kind) {
  case Value::Kind::Unknown:
    return Value::unknown(loc);
  case Value::Kind::Int:
    if (v.i == INT64_MIN) {
      diags.error(loc, "integer overflow in compile-time arithmetic");
      return Value::unknown(loc);
    }
    return Value::ofInt(-v.i, loc);
  case Value::Kind::Real:
    return Value::ofReal(-v.r, loc);
  case Value::Kind::Tensor: {
    std::vector<NamedAttr> attrs = {{"factor", AttrValue::getReal(-1)}};
    unsigned op = addOp(*ctx.model, OpKind::Scale, {v.op}, std::move(attrs),
                        v.width, loc);
    return Value::ofTensor(op, v.width, loc);
  }
  default:
    diags.error(loc, "unary '-' cannot be applied to " + v.describe());
    return Value::unknown(loc);
  }
}

Value SemaImpl::evalBinary(const ast::BinaryExpr &expr, EvalContext &ctx) {
  Value a = eval(expr.getLHS(), ctx);
  Value b = eval(expr.getRHS(), ctx);
  Location loc = expr.getLoc();
  char op = expr.getOp();
  if (a.isUnknown() || b.isUnknown())
    return Value::unknown(loc);
  bool ta = a.kind == Value::Kind::Tensor, tb = b.kind == Value::Kind::Tensor;
  if (ta && tb) {
    if (a.width && b.width && *a.width != *b.width) {
      diags.error(loc,
                  std::string("operands of '") + op +
                      "' have different widths: " + std::to_string(*a.width) +
                      " and " + std::to_string(*b.width));
      return Value::unknown(loc);
    }
    OpKind kind = op == '+'   ? OpKind::Add
                  : op == '-' ? OpKind::Sub
                              : OpKind::Mul;
    std::optional<int64_t> width = a.width ? a.width : b.width;
    unsigned id = addOp(*ctx.model, kind, {a.op, b.op}, {}, width, loc);
    return Value::ofTensor(id, width, loc);
  }
  if (ta || tb) {
    const Value &t = ta ? a : b;
    const Value &s = ta ? b : a;
    if (op == '*' && s.isNumber()) {
      std::vector<NamedAttr> attrs = {
          {"factor", AttrValue::getReal(s.asReal())}};
      unsigned id = addOp(*ctx.model, OpKind::Scale, {t.op}, std::move(attrs),
                          t.width, loc);
      return Value::ofTensor(id, t.width, loc);
    }
    diags.error(loc, std::string("'") + op + "' cannot combine " +
                         a.describe() + " and " + b.describe() +
                         (s.isNumber() ? "; only '*' scales a node tensor by "
                                         "a number"
                                       : ""));
    return Value::unknown(loc);
  }
  return arith(op, a, b, loc);
}

Value SemaImpl::arith(char op, const Value &a, const Value &b, Location loc) {
  using K = Value::Kind;
  auto fail = [&]() {
    diags.error(loc, std::string("'") + op + "' cannot combine " +
                         a.describe() + " and " + b.describe());
    return Value::unknown(loc);
  };
  auto overflow = [&]() {
    diags.error(loc, "integer overflow in compile-time arithmetic");
    return Value::unknown(loc);
  };
  if (a.kind == K::Int && b.kind == K::Int) {
    int64_t r;
    bool o = op == '+'   ? __builtin_add_overflow(a.i, b.i, &r)
             : op == '-' ? __builtin_sub_overflow(a.i, b.i, &r)
                         : __builtin_mul_overflow(a.i, b.i, &r);
    return o ? overflow() : Value::ofInt(r, loc);
  }
  if (a.isNumber() && b.isNumber()) {
    double x = a.asReal(), y = b.asReal();
    double r = op == '+' ? x + y : op == '-' ? x - y : x * y;
    if (!std::isfinite(r)) {
      diags.error(loc, "compile-time arithmetic overflows");
      return Value::unknown(loc);
    }
    return Value::ofReal(r, loc);
  }
  // Sizes: size +- size, size * number, number * size.
  if (a.kind == K::Size && b.kind == K::Size && op != '*') {
    if (op == '-' && b.bytes > a.bytes) {
      diags.error(loc, "size arithmetic gives a negative size");
      return Value::unknown(loc);
    }
    uint64_t r;
    if (op == '+' ? __builtin_add_overflow(a.bytes, b.bytes, &r)
                  : __builtin_sub_overflow(a.bytes, b.bytes, &r))
      return overflow();
    return Value::ofSize(r, loc);
  }
  if (op == '*' && (a.kind == K::Size) != (b.kind == K::Size) &&
      (a.isNumber() || b.isNumber())) {
    const Value &size = a.kind == K::Size ? a : b;
    const Value &num = a.kind == K::Size ? b : a;
    if (num.kind == K::Int) {
      if (num.i < 0) {
        diags.error(loc, "size arithmetic gives a negative size");
        return Value::unknown(loc);
      }
      uint64_t r;
      if (__builtin_mul_overflow(size.bytes, uint64_t(num.i), &r))
        return overflow();
      return Value::ofSize(r, loc);
    }
    double r = double(size.bytes) * num.r;
    if (r < 0 || r >= 18446744073709551616.0 || r != std::floor(r)) {
      diags.error(loc, "size arithmetic does not give a whole number of "
                       "bytes (" +
                           formatReal(r) + ")");
      return Value::unknown(loc);
    }
    return Value::ofSize(static_cast<uint64_t>(r), loc);
  }
  return fail();
}

Value SemaImpl::evalOpCall(const ast::CallExpr &call, EvalContext &ctx) {
  const std::string &name = call.getCallee();
  Location loc = call.getLoc();
  const CallSpec *spec = findIn(operatorSpecs(), name);
  if (!spec) {
    if (models.count(name))
      diags.error(loc, "calling model '" + name +
                           "' from a model is not supported yet (language "
                           "v1 has no sub-models)");
    else if (findIn(lossSpecs(), name) || findIn(optimizerSpecs(), name) ||
             findIn(samplingSpecs(), name) || findIn(dataSpecs(), name) ||
             name == "spill")
      diags.error(loc, "'" + name +
                           "' belongs in a train block's settings, not in a "
                           "model body");
    else
      diags.error(loc, "unknown operator '" + name + "'" +
                           didYouMean(name, namesOf(operatorSpecs())));
    for (const ast::Arg &a : call.getArgs())
      eval(*a.value, ctx);
    return Value::unknown(loc);
  }
  Bound b = bind(*spec, name, call.getArgs(), loc, ctx);
  if (!b.ok)
    return Value::unknown(loc);

  std::vector<unsigned> operands;
  std::vector<NamedAttr> attrs;
  std::vector<std::optional<int64_t>> inWidths;
  for (size_t i = 0; i < spec->args.size(); ++i) {
    const ArgSpec &as = spec->args[i];
    if (as.kind == ArgKind::Tensor) {
      operands.push_back(b.values[i].op);
      inWidths.push_back(b.values[i].width);
      for (const Value &extra : b.variadic) {
        operands.push_back(extra.op);
        inWidths.push_back(extra.width);
      }
      continue;
    }
    NamedAttr attr{as.name.str(), toAttr(b.values[i])};
    // PyG spells summation "add" or "sum"; later stages see one word.
    if (as.name == "aggr" && attr.value.s == "add")
      attr.value.s = "sum";
    attrs.push_back(std::move(attr));
  }

  std::optional<int64_t> width;
  auto attrInt = [&](llvm::StringRef n) {
    for (const NamedAttr &a : attrs)
      if (a.name == n)
        return a.value.i;
    return int64_t(0);
  };
  switch (spec->op) {
  case OpKind::GatConv: {
    int64_t out = attrInt("out"), heads = attrInt("heads");
    bool concat = true;
    for (const NamedAttr &a : attrs)
      if (a.name == "concat")
        concat = a.value.b;
    width = concat ? out * heads : out;
    if (*width > (1 << 24)) {
      diags.error(loc, "gat_conv output width out * heads = " +
                           std::to_string(*width) + " is too large");
      return Value::unknown(loc);
    }
    break;
  }
  case OpKind::GcnConv:
  case OpKind::SageConv:
  case OpKind::GraphConv:
  case OpKind::GinConv:
  case OpKind::Linear:
    width = attrInt("out");
    break;
  case OpKind::Concat: {
    int64_t sum = 0;
    for (const auto &w : inWidths) {
      if (!w) {
        sum = -1;
        break;
      }
      sum += *w;
    }
    if (sum >= 0)
      width = sum;
    break;
  }
  default:
    width = inWidths.front();
    break;
  }
  unsigned id = addOp(*ctx.model, spec->op, std::move(operands),
                      std::move(attrs), width, loc);
  return Value::ofTensor(id, width, loc);
}

//===----------------------------------------------------------------------===//
// Argument binding
//===----------------------------------------------------------------------===//

SemaImpl::Bound SemaImpl::bind(const CallSpec &spec, llvm::StringRef what,
                               const std::vector<ast::Arg> &args,
                               Location callLoc, EvalContext &ctx) {
  Bound b;
  size_t n = spec.args.size();
  std::vector<std::optional<Value>> values(n);
  std::vector<Location> givenAt(n);
  bool seenNamed = false;
  bool placementError = false; // an argument that found no place
  size_t nextPos = 0;
  std::vector<llvm::StringRef> argNames = spec.argNames();

  for (const ast::Arg &arg : args) {
    size_t idx;
    if (arg.isNamed()) {
      seenNamed = true;
      const ArgSpec *as = spec.find(arg.name);
      if (!as) {
        std::string hint = didYouMean(arg.name, argNames);
        if (hint.empty() && !argNames.empty()) {
          std::string list;
          for (llvm::StringRef a : argNames)
            list += (list.empty() ? "" : ", ") + a.str();
          hint = " (arguments: " + list + ")";
        }
        diags.error(arg.nameLoc, "unknown argument '" + arg.name + "' for '" +
                                     what + "'" + hint);
        EvalContext quiet = ctx;
        eval(*arg.value, quiet);
        b.ok = false;
        placementError = true;
        continue;
      }
      idx = as - spec.args.data();
    } else {
      if (seenNamed) {
        diags.error(arg.nameLoc, "positional argument after named arguments "
                                 "in call to '" +
                                     what + "'");
        b.ok = false;
        placementError = true;
        continue;
      }
      if (nextPos < n && spec.args[nextPos].variadic && values[nextPos]) {
        Value v = convert(spec.args[nextPos], eval(*arg.value, ctx),
                          "argument '" + spec.args[nextPos].name.str() +
                              "' of '" + what.str() + "'");
        if (v.isUnknown())
          b.ok = false;
        b.variadic.push_back(v);
        continue;
      }
      if (nextPos >= n) {
        diags.error(arg.nameLoc, "too many arguments for '" + what +
                                     "' (it takes " + std::to_string(n) + ")");
        b.ok = false;
        placementError = true;
        continue;
      }
      idx = nextPos++;
      if (spec.args[idx].variadic)
        --nextPos; // Later positionals extend the variadic argument.
    }
    if (values[idx]) {
      diags.error(arg.nameLoc, "argument '" + spec.args[idx].name + "' of '" +
                                   what + "' is given twice");
      diags.note(givenAt[idx], "first given here");
      b.ok = false;
      placementError = true;
      continue;
    }
    const ArgSpec &as = spec.args[idx];
    EvalContext actx = ctx;
    actx.allowWords = as.kind == ArgKind::Choice;
    Value v =
        convert(as, eval(*arg.value, actx),
                "argument '" + as.name.str() + "' of '" + what.str() + "'");
    if (v.isUnknown())
      b.ok = false;
    values[idx] = v;
    givenAt[idx] = arg.nameLoc;
  }

  // After a misspelt or misplaced argument, "missing argument" would only
  // restate that error.
  bool quietMissing = placementError;
  for (size_t i = 0; i < n; ++i) {
    if (values[i])
      continue;
    const ArgSpec &as = spec.args[i];
    if (as.required) {
      if (!quietMissing)
        diags.error(callLoc,
                    "missing argument '" + as.name + "' for '" + what + "'");
      b.ok = false;
      values[i] = Value::unknown(callLoc);
      continue;
    }
    values[i] = defaultValue(as, callLoc);
  }
  for (auto &v : values)
    b.values.push_back(std::move(*v));
  return b;
}

Value SemaImpl::defaultValue(const ArgSpec &as, Location loc) {
  switch (as.kind) {
  case ArgKind::Int:
    return Value::ofInt(as.defInt, loc);
  case ArgKind::Real:
    return Value::ofReal(as.defReal, loc);
  case ArgKind::Bool:
    return Value::ofBool(as.defBool, loc);
  case ArgKind::Choice:
  case ArgKind::String:
    return Value::ofString(as.defString.str(), loc);
  case ArgKind::IntList: {
    Value v;
    v.kind = Value::Kind::List;
    v.loc = loc;
    for (int64_t x : as.defList)
      v.list.push_back(Value::ofInt(x, loc));
    return v;
  }
  case ArgKind::Tensor:
  case ArgKind::Size:
    break;
  }
  return Value::unknown(loc);
}

Value SemaImpl::convert(const ArgSpec &as, const Value &v,
                        const std::string &desc) {
  if (v.isUnknown())
    return v;
  auto wrong = [&](llvm::StringRef expected) {
    std::string extra;
    if (as.kind == ArgKind::Size && v.isNumber())
      extra =
          "; add a unit, e.g. " +
          (v.kind == Value::Kind::Int ? std::to_string(v.i) : formatReal(v.r)) +
          " MiB";
    if (v.kind == Value::Kind::Word)
      diags.error(v.loc, "use of undefined name '" + v.s + "'");
    else
      diags.error(v.loc, desc + " must be " + expected + ", got " +
                             v.describe() + extra);
    return Value::unknown(v.loc);
  };
  auto checkRange = [&](double x) {
    bool lowOk = as.minExclusive ? x > as.min : x >= as.min;
    bool highOk = as.maxExclusive ? x < as.max : x <= as.max;
    if (lowOk && highOk)
      return true;
    std::string range = as.rangeText();
    if (range[0] == '[' || range[0] == '(')
      range = "in " + range;
    diags.error(v.loc, desc + " must be " + range + ", got " +
                           (v.kind == Value::Kind::Int ? std::to_string(v.i)
                                                       : formatReal(x)));
    return false;
  };
  switch (as.kind) {
  case ArgKind::Tensor:
    if (v.kind != Value::Kind::Tensor)
      return wrong("a node tensor");
    return v;
  case ArgKind::Int: {
    int64_t x;
    if (v.kind == Value::Kind::Int)
      x = v.i;
    else if (v.kind == Value::Kind::Real && std::floor(v.r) == v.r &&
             std::fabs(v.r) <= kTwo53)
      x = static_cast<int64_t>(v.r);
    else
      return wrong("an integer");
    if (!checkRange(double(x)))
      return Value::unknown(v.loc);
    return Value::ofInt(x, v.loc);
  }
  case ArgKind::Real:
    if (!v.isNumber())
      return wrong("a number");
    if (!checkRange(v.asReal()))
      return Value::unknown(v.loc);
    return Value::ofReal(v.asReal(), v.loc);
  case ArgKind::Bool:
    if (v.kind != Value::Kind::Bool)
      return wrong("true or false");
    return v;
  case ArgKind::String:
    if (v.kind != Value::Kind::String)
      return wrong("a string");
    return v;
  case ArgKind::Size:
    if (v.kind != Value::Kind::Size)
      return wrong("a size such as 256 MiB");
    if (double(v.bytes) < as.min) {
      diags.error(v.loc, desc + " must be at least 1 B");
      return Value::unknown(v.loc);
    }
    return v;
  case ArgKind::Choice: {
    if (v.kind != Value::Kind::Word && v.kind != Value::Kind::String)
      return wrong(as.rangeText());
    if (llvm::is_contained(as.choices, v.s))
      return Value::ofString(v.s, v.loc);
    std::string list;
    for (llvm::StringRef c : as.choices)
      list += (list.empty() ? "" : ", ") + c.str();
    diags.error(v.loc, "'" + v.s + "' is not a valid value for " + desc +
                           didYouMean(v.s, as.choices) + " (one of " + list +
                           ")");
    return Value::unknown(v.loc);
  }
  case ArgKind::IntList: {
    Value list = v;
    if (v.kind == Value::Kind::Int) {
      list.kind = Value::Kind::List;
      list.list = {v};
    } else if (v.kind != Value::Kind::List) {
      return wrong("a list of integers");
    }
    if (list.list.empty()) {
      diags.error(v.loc, desc + " must not be empty");
      return Value::unknown(v.loc);
    }
    ArgSpec elem = as;
    elem.kind = ArgKind::Int;
    Value out = list;
    out.list.clear();
    for (const Value &item : list.list) {
      if (as.listSentinel && item.kind == Value::Kind::Int &&
          item.i == *as.listSentinel) {
        out.list.push_back(item);
        continue;
      }
      Value e = convert(elem, item, "each element of " + desc);
      if (e.isUnknown())
        return e;
      out.list.push_back(e);
    }
    return out;
  }
  }
  return Value::unknown(v.loc);
}

AttrValue SemaImpl::toAttr(const Value &v) {
  switch (v.kind) {
  case Value::Kind::Int:
    return AttrValue::getInt(v.i);
  case Value::Kind::Real:
    return AttrValue::getReal(v.r);
  case Value::Kind::Bool:
    return AttrValue::getBool(v.b);
  case Value::Kind::Size:
    return AttrValue::getInt(static_cast<int64_t>(v.bytes));
  case Value::Kind::String:
  case Value::Kind::Word:
    return AttrValue::getString(v.s);
  case Value::Kind::List: {
    AttrValue list;
    list.kind = AttrValue::Kind::List;
    for (const Value &item : v.list)
      list.list.push_back(toAttr(item));
    return list;
  }
  default:
    return AttrValue::getString("?");
  }
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

CheckedProgram gnnc::checkProgram(const ast::Program &program,
                                  DiagnosticEngine &diags,
                                  const SemaOptions &options) {
  return SemaImpl(diags, options).run(program);
}
