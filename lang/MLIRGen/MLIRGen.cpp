//===- MLIRGen.cpp - The one bridge from the front end to MLIR ------------===//
//
// Builds the `gnn` dialect from the checked program: one function per train
// block, static shapes from the bound data source, one layer op or
// primitive per operator call, parameters as function arguments carrying
// their names and initialisers, and the resolved settings as `train.config`
// (docs/Dialects/Gnn.md, "MLIRGen's output"). Nothing is decided here
// beyond what the contract spells out; later passes do the rest.
//
//===----------------------------------------------------------------------===//
#include "lang/MLIRGen/MLIRGen.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Train/TrainOps.h"
#include "lang/Sema/CheckedProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringSet.h"

#include <optional>

using namespace mlir;

using namespace gnnc::sema;

namespace {

/// One trainable parameter, which becomes one function argument.
struct Param {
  std::string name; ///< "<op>_<k>.<slot>".
  SmallVector<int64_t, 2> shape;
  train::InitKind init;
  /// `train.fan` for random initialisers; absent for zeros and ones.
  std::optional<std::pair<int64_t, int64_t>> fan;
};

//===----------------------------------------------------------------------===//
// Reading resolved operator arguments
//===----------------------------------------------------------------------===//

int64_t attrInt(const LayerOp &op, StringRef name, int64_t def) {
  const AttrValue *v = op.getAttr(name);
  return v && v->kind == AttrValue::Kind::Int ? v->i : def;
}

double attrReal(const LayerOp &op, StringRef name, double def) {
  const AttrValue *v = op.getAttr(name);
  if (!v)
    return def;
  // A whole number written for a real argument may still be an Int.
  if (v->kind == AttrValue::Kind::Int)
    return static_cast<double>(v->i);
  return v->kind == AttrValue::Kind::Real ? v->r : def;
}

bool attrBool(const LayerOp &op, StringRef name, bool def) {
  const AttrValue *v = op.getAttr(name);
  return v && v->kind == AttrValue::Kind::Bool ? v->b : def;
}

StringRef attrString(const LayerOp &op, StringRef name, StringRef def) {
  const AttrValue *v = op.getAttr(name);
  return v && v->kind == AttrValue::Kind::String ? StringRef(v->s) : def;
}

std::optional<gnn::Activation> activationOf(OpKind kind) {
  switch (kind) {
  case OpKind::Relu:
    return gnn::Activation::relu;
  case OpKind::LeakyRelu:
    return gnn::Activation::leaky_relu;
  case OpKind::Elu:
    return gnn::Activation::elu;
  case OpKind::Gelu:
    return gnn::Activation::gelu;
  case OpKind::Sigmoid:
    return gnn::Activation::sigmoid;
  case OpKind::Tanh:
    return gnn::Activation::tanh;
  default:
    return std::nullopt;
  }
}

/// True for ops that draw random numbers, and therefore take the function's
/// key and a stream number.
bool isRandom(const LayerOp &op) {
  return op.kind == OpKind::Dropout ||
         (op.kind == OpKind::GatConv && attrReal(op, "attn_dropout", 0) > 0);
}

//===----------------------------------------------------------------------===//
// One model function
//===----------------------------------------------------------------------===//

class ModelGen {
public:
  ModelGen(MLIRContext &context, const CheckedProgram &program,
           const BoundTrain &train)
      : context(context), builder(&context), program(program), train(train),
        model(train.model) {}

  /// Builds the function into \p module under \p funcName. Returns null
  /// after reporting an error.
  func::FuncOp build(ModuleOp module, StringRef funcName);

private:
  Location loc(gnnc::Location l) const {
    if (!l.isValid())
      return UnknownLoc::get(&context);
    return FileLineColLoc::get(&context, program.filename, l.line, l.col);
  }
  int64_t width(unsigned opIndex) const { return *model.ops[opIndex].width; }
  RankedTensorType nodeTensor(int64_t w) const {
    return RankedTensorType::get({train.data.nodes, w}, elementType);
  }

  void collectParams();
  void addParam(const LayerOp &op, StringRef slot, ArrayRef<int64_t> shape,
                train::InitKind init,
                std::optional<std::pair<int64_t, int64_t>> fan);
  void addWeight(const LayerOp &op, StringRef slot, int64_t rows,
                 int64_t cols) {
    addParam(op, slot, {rows, cols}, weightInit, std::make_pair(rows, cols));
  }
  void addZeros(const LayerOp &op, StringRef slot, int64_t len) {
    addParam(op, slot, {len}, train::InitKind::zeros, std::nullopt);
  }

  DictionaryAttr buildConfig();
  Value emitOp(const LayerOp &op, ArrayRef<Value> operands);
  /// Parameters are consumed in the order collectParams() declared them.
  Value nextParam() {
    assert(nextParamIndex < paramArgs.size() &&
           "more parameters than declared");
    return paramArgs[nextParamIndex++];
  }

  MLIRContext &context;
  OpBuilder builder;
  const CheckedProgram &program;
  const BoundTrain &train;
  const ModelInstance &model;

  Type elementType;
  train::InitKind weightInit = train::InitKind::glorot;
  std::vector<Param> params;
  bool needsKey = false;

  Value graph, features, key;
  SmallVector<Value> paramArgs;
  unsigned nextParamIndex = 0;
  int64_t nextStream = 0;
};

void ModelGen::addParam(const LayerOp &op, StringRef slot,
                        ArrayRef<int64_t> shape, train::InitKind init,
                        std::optional<std::pair<int64_t, int64_t>> fan) {
  Param p;
  p.name = op.name + "." + slot.str();
  p.shape.assign(shape.begin(), shape.end());
  p.init = init;
  p.fan = fan;
  params.push_back(std::move(p));
}

/// The parameter table of docs/Dialects/Gnn.md: slots in order, shapes from
/// the input width and the op's output width.
void ModelGen::collectParams() {
  for (const LayerOp &op : model.ops) {
    if (isRandom(op))
      needsKey = true;
    if (!hasParameters(op.kind))
      continue;
    int64_t in = width(op.operands.front());
    int64_t out = *op.width;
    switch (op.kind) {
    case OpKind::GcnConv:
    case OpKind::Linear:
      addWeight(op, "weight", in, out);
      if (attrBool(op, "bias", true))
        addZeros(op, "bias", out);
      break;
    case OpKind::SageConv:
      addWeight(op, "weight", in, out);
      if (attrBool(op, "root_weight", true))
        addWeight(op, "root_weight", in, out);
      addZeros(op, "bias", out);
      break;
    case OpKind::GraphConv:
      addWeight(op, "weight", in, out);
      addWeight(op, "root_weight", in, out);
      addZeros(op, "bias", out);
      break;
    case OpKind::GinConv:
      addWeight(op, "weight1", in, out);
      addZeros(op, "bias1", out);
      addWeight(op, "weight2", out, out);
      addZeros(op, "bias2", out);
      break;
    case OpKind::GatConv: {
      int64_t heads = attrInt(op, "heads", 1);
      int64_t perHead = attrInt(op, "out", 0);
      int64_t hf = heads * perHead;
      addWeight(op, "weight", in, hf);
      // As PyTorch Geometric: the attention vectors are [1, heads, out]
      // tensors initialised with glorot over those two dimensions.
      auto attFan = std::make_pair(heads, perHead);
      addParam(op, "att_src", {hf}, train::InitKind::glorot, attFan);
      addParam(op, "att_dst", {hf}, train::InitKind::glorot, attFan);
      addZeros(op, "bias", out);
      break;
    }
    case OpKind::BatchNorm:
    case OpKind::LayerNorm:
      addParam(op, "weight", {out}, train::InitKind::ones, std::nullopt);
      addZeros(op, "bias", out);
      break;
    default:
      break;
    }
  }
}

DictionaryAttr ModelGen::buildConfig() {
  const TrainConfig &c = train.config;
  const OptimizerConfig &o = c.optimizer;
  Builder &b = builder;
  NamedAttrList cfg;
  auto real = [&](StringRef name, double v) {
    cfg.append(name, b.getF64FloatAttr(v));
  };
  auto integer = [&](StringRef name, int64_t v) {
    cfg.append(name, b.getI64IntegerAttr(v));
  };
  auto string = [&](StringRef name, StringRef v) {
    cfg.append(name, b.getStringAttr(v));
  };

  string("loss", "cross_entropy");
  real("label_smoothing", c.loss.labelSmoothing);
  string("class_weights", c.loss.balancedClassWeights ? "balanced" : "none");
  string("optimizer", o.kind == OptimizerConfig::Kind::Adam    ? "adam"
                      : o.kind == OptimizerConfig::Kind::AdamW ? "adamw"
                                                               : "sgd");
  real("lr", o.lr);
  real("beta1", o.beta1);
  real("beta2", o.beta2);
  real("eps", o.eps);
  real("weight_decay", o.weightDecay);
  real("momentum", o.momentum);
  cfg.append("nesterov", b.getBoolAttr(o.nesterov));
  integer("epochs", c.epochs);
  integer("seed", c.seed);
  integer("accumulate", c.accumulate);
  integer("eval_every", c.evalEvery);
  string("init", toString(c.init));
  string("precision", toString(c.precision));
  string("saved_precision", toString(c.savedPrecision));
  string("plan", toString(c.plan));
  SmallVector<Attribute> metrics;
  for (Metric m : c.metrics)
    metrics.push_back(b.getStringAttr(toString(m)));
  cfg.append("metrics", b.getArrayAttr(metrics));
  string("dataset", train.data.kind == DataSource::Kind::Synthetic
                        ? StringRef("synthetic")
                        : StringRef(train.data.name));
  if (train.data.normalizeFeatures)
    cfg.append("normalize_features", b.getBoolAttr(true));
  if (train.data.trainNodes >= 0)
    integer("train_nodes", train.data.trainNodes);
  if (train.data.kind == DataSource::Kind::Synthetic) {
    // What the runtime needs to generate the same graph again.
    NamedAttrList spec;
    spec.append("nodes", b.getI64IntegerAttr(train.data.nodes));
    spec.append("avg_degree", b.getF64FloatAttr(train.data.avgDegree));
    spec.append("features", b.getI64IntegerAttr(train.data.features));
    spec.append("classes", b.getI64IntegerAttr(train.data.classes));
    spec.append("seed", b.getI64IntegerAttr(train.data.seed));
    cfg.append("synthetic", spec.getDictionary(&context));
  }
  if (c.memory)
    integer("memory", static_cast<int64_t>(*c.memory));
  if (c.hostMemory)
    integer("host_memory", static_cast<int64_t>(*c.hostMemory));
  if (c.disk) {
    NamedAttrList disk;
    disk.append("dir", b.getStringAttr(c.disk->dir));
    disk.append("bytes",
                b.getI64IntegerAttr(static_cast<int64_t>(c.disk->bytes)));
    cfg.append("disk", disk.getDictionary(&context));
  }
  return cfg.getDictionary(&context);
}

Value ModelGen::emitOp(const LayerOp &op, ArrayRef<Value> operands) {
  Location l = loc(op.loc);
  OpBuilder &b = builder;
  RankedTensorType resultType = nodeTensor(*op.width);
  Value x = operands.empty() ? Value() : operands.front();

  if (std::optional<gnn::Activation> act = activationOf(op.kind)) {
    FloatAttr slope;
    if (op.kind == OpKind::LeakyRelu)
      slope = b.getF64FloatAttr(attrReal(op, "slope", 0.01));
    return b.create<gnn::ActivationOp>(
        l, resultType, gnn::ActivationAttr::get(&context, *act), x, slope);
  }

  switch (op.kind) {
  case OpKind::GcnConv: {
    Value w = nextParam();
    Value bias = attrBool(op, "bias", true) ? nextParam() : Value();
    return b.create<gnn::GcnConvOp>(
        l, resultType, graph, x, w, bias,
        b.getBoolAttr(attrBool(op, "self_loops", true)),
        b.getBoolAttr(attrBool(op, "normalize", true)));
  }
  case OpKind::SageConv: {
    Value w = nextParam();
    Value root = attrBool(op, "root_weight", true) ? nextParam() : Value();
    Value bias = nextParam();
    auto aggr = gnn::symbolizeAggregation(attrString(op, "aggr", "mean"));
    if (!aggr)
      break;
    return b.create<gnn::SageConvOp>(
        l, resultType, graph, x, w, root, bias,
        gnn::AggregationAttr::get(&context, *aggr));
  }
  case OpKind::GraphConv: {
    Value w = nextParam();
    Value root = nextParam();
    Value bias = nextParam();
    auto aggr = gnn::symbolizeAggregation(attrString(op, "aggr", "sum"));
    if (!aggr)
      break;
    return b.create<gnn::GraphConvOp>(
        l, resultType, graph, x, w, root, bias,
        gnn::AggregationAttr::get(&context, *aggr));
  }
  case OpKind::GinConv: {
    Value w1 = nextParam(), b1 = nextParam();
    Value w2 = nextParam(), b2 = nextParam();
    return b.create<gnn::GinConvOp>(l, resultType, graph, x, w1, b1, w2, b2,
                                    b.getF64FloatAttr(attrReal(op, "eps", 0)));
  }
  case OpKind::GatConv: {
    Value w = nextParam(), attSrc = nextParam(), attDst = nextParam();
    Value bias = nextParam();
    double attnDropout = attrReal(op, "attn_dropout", 0);
    bool random = attnDropout > 0;
    return b.create<gnn::GatConvOp>(
        l, resultType, graph, x, w, attSrc, attDst, bias,
        random ? key : Value(), b.getI64IntegerAttr(attrInt(op, "heads", 1)),
        b.getBoolAttr(attrBool(op, "concat", true)),
        b.getF64FloatAttr(attrReal(op, "negative_slope", 0.2)),
        b.getF64FloatAttr(attnDropout),
        random ? b.getI64IntegerAttr(nextStream++) : IntegerAttr());
  }
  case OpKind::Linear: {
    Value w = nextParam();
    Value bias = attrBool(op, "bias", true) ? nextParam() : Value();
    return b.create<gnn::LinearOp>(l, resultType, x, w, bias);
  }
  case OpKind::BatchNorm: {
    Value w = nextParam(), bias = nextParam();
    return b.create<gnn::BatchNormOp>(l, resultType, x, w, bias, FloatAttr());
  }
  case OpKind::LayerNorm: {
    Value w = nextParam(), bias = nextParam();
    return b.create<gnn::LayerNormOp>(l, resultType, x, w, bias, FloatAttr());
  }
  case OpKind::Dropout:
    return b.create<gnn::DropoutOp>(l, resultType, x, key,
                                    b.getF64FloatAttr(attrReal(op, "p", 0.5)),
                                    b.getI64IntegerAttr(nextStream++));
  case OpKind::Concat:
    return b.create<gnn::ConcatOp>(l, resultType, operands);
  case OpKind::Add:
    return b.create<gnn::AddOp>(l, resultType, operands[0], operands[1]);
  case OpKind::Sub:
    return b.create<gnn::SubOp>(l, resultType, operands[0], operands[1]);
  case OpKind::Mul:
    return b.create<gnn::MulOp>(l, resultType, operands[0], operands[1]);
  case OpKind::Scale:
    return b.create<gnn::ScaleOp>(l, resultType, x,
                                  b.getF64FloatAttr(attrReal(op, "factor", 1)));
  default:
    break;
  }
  emitError(l) << "operator '" << getOpName(op.kind)
               << "' with these arguments has no gnn dialect form";
  return nullptr;
}

func::FuncOp ModelGen::build(ModuleOp module, StringRef funcName) {
  Location trainLoc = loc(train.loc);
  const DataSource &data = train.data;
  if (!data.resolved) {
    emitError(trainLoc) << "the sizes of the data of '" << model.name
                        << "' are unknown, so its IR cannot be built";
    return nullptr;
  }
  for (const LayerOp &op : model.ops)
    if (!op.width) {
      emitError(loc(op.loc)) << "the width of '" << op.name
                             << "' is unknown, so its IR cannot be built";
      return nullptr;
    }
  elementType = train.config.precision == Precision::FP64
                    ? Type(builder.getF64Type())
                    : Type(builder.getF32Type());
  weightInit = train.config.init == InitScheme::Kaiming
                   ? train::InitKind::kaiming
                   : train::InitKind::glorot;
  collectParams();

  // Arguments: graph, features, [key], parameters in op order.
  SmallVector<Type> argTypes;
  argTypes.push_back(gnn::GraphType::get(&context, data.nodes, data.edges));
  argTypes.push_back(nodeTensor(data.features));
  if (needsKey)
    argTypes.push_back(gnn::RngKeyType::get(&context));
  unsigned firstParam = argTypes.size();
  for (const Param &p : params)
    argTypes.push_back(RankedTensorType::get(p.shape, elementType));
  Type resultType = nodeTensor(width(model.result));

  auto func = func::FuncOp::create(
      trainLoc, funcName, builder.getFunctionType(argTypes, {resultType}));
  module.push_back(func);
  func->setAttr("gnn.model", builder.getStringAttr(model.name));
  func->setAttr("train.config", buildConfig());

  func.setArgAttr(0, "gnn.input", builder.getStringAttr("graph"));
  func.setArgAttr(1, "gnn.input", builder.getStringAttr("features"));
  // How many of the features are stored: gnn-sparse-features' evidence.
  if (data.featureNnz >= 0)
    func.setArgAttr(1, "gnn.nnz", builder.getI64IntegerAttr(data.featureNnz));
  if (needsKey)
    func.setArgAttr(2, "gnn.input", builder.getStringAttr("rng_key"));
  for (auto [i, p] : llvm::enumerate(params)) {
    unsigned arg = firstParam + i;
    func.setArgAttr(arg, "gnn.param", builder.getStringAttr(p.name));
    func.setArgAttr(arg, "train.init",
                    train::InitKindAttr::get(&context, p.init));
    if (p.fan)
      func.setArgAttr(
          arg, "train.fan",
          builder.getDenseI64ArrayAttr({p.fan->first, p.fan->second}));
  }

  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  graph = entry->getArgument(0);
  features = entry->getArgument(1);
  if (needsKey)
    key = entry->getArgument(2);
  for (unsigned i = firstParam, e = entry->getNumArguments(); i < e; ++i)
    paramArgs.push_back(entry->getArgument(i));

  SmallVector<Value> values(model.ops.size());
  for (auto [i, op] : llvm::enumerate(model.ops)) {
    if (op.kind == OpKind::Input) {
      values[i] = features;
      continue;
    }
    SmallVector<Value> operands;
    for (unsigned o : op.operands)
      operands.push_back(values[o]);
    values[i] = emitOp(op, operands);
    if (!values[i])
      return nullptr;
  }
  builder.create<func::ReturnOp>(loc(model.ops[model.result].loc),
                                 values[model.result]);
  assert(nextParamIndex == paramArgs.size() && "a parameter was not used");
  return func;
}

/// Reports the settings no later stage implements yet. Returns true if the
/// train block can be lowered.
bool checkSupported(MLIRContext &context, const CheckedProgram &program,
                    const BoundTrain &train) {
  // At the setting's line when the block writes it, else the block's.
  auto at = [&](const std::string &setting) -> Location {
    auto it = train.settingLocs.find(setting);
    const gnnc::Location &where =
        it != train.settingLocs.end() ? it->second : train.loc;
    return where.isValid()
               ? Location(FileLineColLoc::get(&context, program.filename,
                                              where.line, where.col))
               : Location(UnknownLoc::get(&context));
  };
  bool ok = true;
  const TrainConfig &c = train.config;
  if (c.sampling.kind != SamplingConfig::Kind::FullGraph) {
    StringRef name =
        c.sampling.kind == SamplingConfig::Kind::Neighbor  ? "neighbor"
        : c.sampling.kind == SamplingConfig::Kind::Cluster ? "cluster"
                                                           : "saint_rw";
    emitError(at("sampling"))
        << "sampling = " << name
        << " is not supported yet: this gnnc trains on the full "
           "graph only (sampling = full_graph)";
    ok = false;
  }
  if (c.precision == Precision::BF16 || c.precision == Precision::FP16) {
    emitError(at("precision")) << "precision = " << toString(c.precision)
                               << " is not supported yet: use fp32 or fp64";
    ok = false;
  }
  return ok;
}

} // namespace

OwningOpRef<ModuleOp> gnnc::mlirGen(MLIRContext &context,
                                    const CheckedProgram &program) {
  context.getOrLoadDialect<gnn::GnnDialect>();
  context.getOrLoadDialect<train::TrainDialect>();
  context.getOrLoadDialect<func::FuncDialect>();

  // Every unsupported setting of every train block is reported before
  // giving up, as the front end reports every error.
  bool supported = true;
  for (const BoundTrain &train : program.trains)
    supported &= checkSupported(context, program, train);
  if (!supported)
    return nullptr;

  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(&context, program.filename, 0, 0));
  SymbolTable symbols(*module);
  llvm::StringMap<unsigned> trained;
  for (const BoundTrain &train : program.trains) {
    // @GCN, then @GCN_1, ...; skip a suffix that names another model.
    std::string name = train.model.name;
    unsigned &count = trained[train.model.name];
    while (symbols.lookup(name))
      name = train.model.name + "_" + std::to_string(++count);
    ModelGen gen(context, program, train);
    func::FuncOp func = gen.build(*module, name);
    if (!func)
      return nullptr;
    symbols.insert(func);
  }
  if (failed(verify(*module))) {
    emitError(module->getLoc())
        << "MLIRGen produced invalid IR; this is a bug in gnnc";
    return nullptr;
  }
  return module;
}
