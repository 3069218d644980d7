//===- Autodiff.cpp - gnn-autodiff ----------------------------------------===//
//
// Turns each decomposed model function @M (MLIRGen's contract in
// docs/Dialects/Gnn.md) into the step functions of docs/Dialects/Train.md:
// @M.init, @M.step (or @M.grad_step + @M.apply_step) and @M.predict. The
// forward pass is cloned into each; the gradients come from the reverse
// sweep of ReverseMode.h, so the step holds no model-specific calculus.
//
//===----------------------------------------------------------------------===//
#include "passes/Autodiff/Adjoints.h"
#include "passes/Autodiff/ReverseMode.h"
#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"

#include <optional>

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNAUTODIFF
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {
constexpr StringLiteral kConfig = "train.config";
constexpr StringLiteral kModel = "gnn.model";
constexpr StringLiteral kInput = "gnn.input";
constexpr StringLiteral kParam = "gnn.param";
constexpr StringLiteral kRole = "train.role";
constexpr StringLiteral kInit = "train.init";
constexpr StringLiteral kFan = "train.fan";

enum class Optimizer { adam, adamw, sgd };

/// The part of `train.config` the step depends on.
struct TrainConfig {
  double labelSmoothing = 0;
  train::ClassWeights classWeights = train::ClassWeights::none;
  Optimizer optimizer = Optimizer::adam;
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weightDecay = 0, momentum = 0;
  bool nesterov = false;
  int64_t accumulate = 1;

  /// Optimizer state roles per parameter, in the order they are passed.
  SmallVector<StringRef, 2> stateRoles() const {
    if (optimizer != Optimizer::sgd)
      return {"adam.m", "adam.v"};
    if (momentum > 0)
      return {"sgd.momentum"};
    return {};
  }
};

/// Reads and checks `train.config`, reporting at the function.
class ConfigReader {
public:
  ConfigReader(func::FuncOp f, DictionaryAttr dict) : f(f), dict(dict) {}

  FailureOr<TrainConfig> read() {
    TrainConfig c;
    FailureOr<StringRef> loss = string("loss");
    if (failed(loss))
      return failure();
    if (*loss != "cross_entropy")
      return f.emitError("unsupported loss '")
             << *loss << "' in 'train.config' (expected cross_entropy)";
    FailureOr<StringRef> optimizer = string("optimizer");
    if (failed(optimizer))
      return failure();
    if (*optimizer == "adam")
      c.optimizer = Optimizer::adam;
    else if (*optimizer == "adamw")
      c.optimizer = Optimizer::adamw;
    else if (*optimizer == "sgd")
      c.optimizer = Optimizer::sgd;
    else
      return f.emitError("unknown optimizer '")
             << *optimizer << "' in 'train.config' (expected adam, adamw or "
             << "sgd)";
    FailureOr<StringRef> weights = string("class_weights");
    if (failed(weights))
      return failure();
    std::optional<train::ClassWeights> cw =
        train::symbolizeClassWeights(*weights);
    if (!cw)
      return f.emitError("unknown class_weights '")
             << *weights << "' in 'train.config' (expected none or balanced)";
    c.classWeights = *cw;
    if (failed(number("label_smoothing", c.labelSmoothing)) ||
        failed(number("lr", c.lr)) ||
        failed(number("weight_decay", c.weightDecay)))
      return failure();
    if (c.labelSmoothing < 0 || c.labelSmoothing >= 1)
      return f.emitError("'train.config' label_smoothing must be in [0, 1)");
    if (c.optimizer == Optimizer::sgd) {
      if (failed(number("momentum", c.momentum)) ||
          failed(flag("nesterov", c.nesterov)))
        return failure();
      if (c.nesterov && c.momentum <= 0)
        return f.emitError("'train.config' nesterov needs momentum > 0");
    } else if (failed(number("beta1", c.beta1)) ||
               failed(number("beta2", c.beta2)) ||
               failed(number("eps", c.eps))) {
      return failure();
    }
    auto accumulate = dict.getAs<IntegerAttr>("accumulate");
    if (!accumulate)
      return missing("accumulate", "an integer");
    c.accumulate = accumulate.getInt();
    if (c.accumulate < 1)
      return f.emitError("'train.config' accumulate must be at least 1, got ")
             << c.accumulate;
    return c;
  }

private:
  InFlightDiagnostic missing(StringRef key, StringRef what) {
    return f.emitError("'train.config' needs '") << key << "' (" << what << ")";
  }
  FailureOr<StringRef> string(StringRef key) {
    if (auto s = dict.getAs<StringAttr>(key))
      return s.getValue();
    return missing(key, "a string");
  }
  LogicalResult number(StringRef key, double &out) {
    auto v = dict.getAs<FloatAttr>(key);
    if (!v)
      return missing(key, "a float");
    out = v.getValueAsDouble();
    return success();
  }
  LogicalResult flag(StringRef key, bool &out) {
    auto v = dict.getAs<BoolAttr>(key);
    if (!v)
      return missing(key, "a bool");
    out = v.getValue();
    return success();
  }

  func::FuncOp f;
  DictionaryAttr dict;
};

/// A model function and what its arguments are.
struct Model {
  func::FuncOp func;
  TrainConfig config;
  unsigned graphArg = 0, featuresArg = 0;
  std::optional<unsigned> keyArg;
  SmallVector<unsigned> paramArgs;
  SmallVector<StringAttr> paramNames;
  RankedTensorType logitsType;

  Type elementType() { return logitsType.getElementType(); }
  Type argType(unsigned i) { return func.getFunctionType().getInput(i); }
  SmallVector<Type> paramTypes() {
    SmallVector<Type> types;
    for (unsigned i : paramArgs)
      types.push_back(argType(i));
    return types;
  }
};

FailureOr<Model> analyse(func::FuncOp f) {
  Model m;
  m.func = f;
  auto dict = f->getAttrOfType<DictionaryAttr>(kConfig);
  if (!dict)
    return f.emitError("'train.config' must be a dictionary");
  FailureOr<TrainConfig> config = ConfigReader(f, dict).read();
  if (failed(config))
    return failure();
  m.config = *config;

  if (!f.getBody().hasOneBlock())
    return f.emitError("a model function must have one block");
  FunctionType type = f.getFunctionType();
  if (type.getNumResults() != 1)
    return f.emitError("a model function must return one tensor (the "
                       "logits), got ")
           << type.getNumResults() << " results";
  m.logitsType = dyn_cast<RankedTensorType>(type.getResult(0));
  if (!m.logitsType || m.logitsType.getRank() != 2 ||
      !isa<FloatType>(m.logitsType.getElementType()))
    return f.emitError("a model function must return [N, C] float logits, "
                       "got ")
           << type.getResult(0);

  std::optional<unsigned> graph, features;
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    if (auto name = f.getArgAttrOfType<StringAttr>(i, kParam)) {
      m.paramArgs.push_back(i);
      m.paramNames.push_back(name);
      continue;
    }
    auto input = f.getArgAttrOfType<StringAttr>(i, kInput);
    if (input && input.getValue() == "graph" && !graph &&
        isa<GraphType>(type.getInput(i))) {
      graph = i;
    } else if (input && input.getValue() == "features" && !features &&
               isa<RankedTensorType>(type.getInput(i))) {
      features = i;
    } else if (input && input.getValue() == "rng_key" && !m.keyArg &&
               isa<RngKeyType>(type.getInput(i))) {
      m.keyArg = i;
    } else {
      return f.emitError("argument ")
             << i << " of a model function must be the graph, the features, "
             << "the rng key (gnn.input) or a parameter (gnn.param)";
    }
  }
  if (!graph || !features)
    return f.emitError("a model function needs a graph and a features "
                       "argument");
  if (m.paramArgs.empty())
    return f.emitError("a model function needs parameters to train");
  m.graphArg = *graph;
  m.featuresArg = *features;

  WalkResult layers = f.walk([](Operation *op) {
    if (!op->hasTrait<gnn::Layer>())
      return WalkResult::advance();
    op->emitError() << "op '" << op->getName()
                    << "' must be decomposed before gnn-autodiff";
    return WalkResult::interrupt();
  });
  if (layers.wasInterrupted())
    return failure();
  return m;
}

/// Builds the step functions of one model next to it.
class StepBuilder {
public:
  StepBuilder(Model &m, uint64_t &numAdjoints)
      : m(m), loc(m.func.getLoc()), b(m.func), numAdjoints(numAdjoints) {
    b.setInsertionPointAfter(m.func);
  }

  LogicalResult build() {
    if (failed(buildInit()))
      return failure();
    if (m.config.accumulate == 1) {
      if (failed(buildStep(/*accumulate=*/false)))
        return failure();
    } else if (failed(buildStep(/*accumulate=*/true)) ||
               failed(buildApplyStep())) {
      return failure();
    }
    return buildPredict();
  }

  /// Erases what build() created (after a failure).
  void eraseCreated() {
    for (func::FuncOp f : created)
      f.erase();
  }

private:
  //===--------------------------------------------------------------------===//
  // Signatures
  //===--------------------------------------------------------------------===//

  func::FuncOp createFunc(StringRef suffix, ArrayRef<Type> inputs,
                          ArrayRef<Type> results) {
    auto f =
        b.create<func::FuncOp>(loc, (m.func.getSymName() + "." + suffix).str(),
                               b.getFunctionType(inputs, results));
    for (StringRef attr : {kModel, kConfig})
      if (Attribute a = m.func->getAttr(attr))
        f->setAttr(attr, a);
    f.addEntryBlock();
    created.push_back(f);
    b.setInsertionPointAfter(f);
    return f;
  }

  DictionaryAttr inputAttrs(StringRef what) {
    return b.getDictionaryAttr(b.getNamedAttr(kInput, b.getStringAttr(what)));
  }
  DictionaryAttr roleAttrs(StringRef role, StringAttr param) {
    return b.getDictionaryAttr({b.getNamedAttr(kRole, b.getStringAttr(role)),
                                b.getNamedAttr(kParam, param)});
  }

  /// A signature under construction: types plus per-position attributes.
  struct Signature {
    SmallVector<Type> types;
    SmallVector<DictionaryAttr> attrs;
    unsigned add(Type t, DictionaryAttr a) {
      types.push_back(t);
      attrs.push_back(a);
      return types.size() - 1;
    }
    unsigned add(const Signature &s) {
      unsigned first = types.size();
      llvm::append_range(types, s.types);
      llvm::append_range(attrs, s.attrs);
      return first;
    }
  };

  /// Parameters, their state (all of one parameter's state together) and
  /// gradient accumulators, each tagged with its role and parameter.
  Signature params() { return perParam("param"); }
  Signature state() {
    Signature s;
    for (auto [i, name] : llvm::zip_equal(m.paramArgs, m.paramNames))
      for (StringRef role : m.config.stateRoles())
        s.add(m.argType(i), roleAttrs(role, name));
    return s;
  }
  Signature accumulators() { return perParam("grad_acc"); }
  /// One value with \p role per parameter, shaped like it.
  Signature perParam(StringRef role) {
    Signature s;
    for (auto [i, name] : llvm::zip_equal(m.paramArgs, m.paramNames))
      s.add(m.argType(i), roleAttrs(role, name));
    return s;
  }

  func::FuncOp createFunc(StringRef suffix, const Signature &in,
                          const Signature &out) {
    func::FuncOp f = createFunc(suffix, in.types, out.types);
    for (auto [i, a] : llvm::enumerate(in.attrs))
      if (a)
        f.setArgAttrs(i, a);
    for (auto [i, a] : llvm::enumerate(out.attrs))
      if (a)
        f.setResultAttrs(i, a);
    return f;
  }

  //===--------------------------------------------------------------------===//
  // Bodies
  //===--------------------------------------------------------------------===//

  /// Clones the model's forward pass at the builder's insertion point, with
  /// `map` giving the graph, features, parameters and (if any) key. Without a
  /// key, dropouts are the identity (evaluation).
  FailureOr<Value> cloneForward(OpBuilder &ob, IRMapping &map, bool training) {
    Block &body = m.func.getBody().front();
    for (Operation &op : body.without_terminator()) {
      if (auto dropout = dyn_cast<DropoutOp>(op); dropout && !training) {
        map.map(dropout.getResult(), map.lookup(dropout.getInput()));
        continue;
      }
      for (Value v : op.getOperands())
        if (!map.contains(v) && isa<BlockArgument>(v) &&
            cast<BlockArgument>(v).getOwner() == &body)
          return op.emitError("the rng key is used outside gnn.dropout, so "
                              "the model has no deterministic evaluation");
      ob.clone(op, map);
    }
    return map.lookup(body.getTerminator()->getOperand(0));
  }

  void mapModelArgs(IRMapping &map, Value graph, Value features,
                    ValueRange params) {
    map.map(m.func.getArgument(m.graphArg), graph);
    map.map(m.func.getArgument(m.featuresArg), features);
    for (auto [i, p] : llvm::zip_equal(m.paramArgs, params))
      map.map(m.func.getArgument(i), p);
  }

  /// One optimizer update per parameter; appends the new parameters and new
  /// state (in the state's order) to the outputs.
  void emitUpdates(OpBuilder &ob, Value step, ValueRange params,
                   ValueRange grads, ValueRange state,
                   SmallVectorImpl<Value> &newParams,
                   SmallVectorImpl<Value> &newState) {
    const TrainConfig &c = m.config;
    unsigned perParam = c.stateRoles().size();
    auto f64 = [&](double v) { return ob.getF64FloatAttr(v); };
    for (auto [k, param, grad] : llvm::enumerate(params, grads)) {
      ValueRange s = state.slice(k * perParam, perParam);
      if (c.optimizer != Optimizer::sgd) {
        auto adam = ob.create<train::AdamOp>(
            loc, param, grad, s[0], s[1], step, f64(c.lr), f64(c.beta1),
            f64(c.beta2), f64(c.eps), f64(c.weightDecay),
            c.optimizer == Optimizer::adamw ? ob.getUnitAttr() : UnitAttr());
        newParams.push_back(adam.getNewParam());
        newState.push_back(adam.getNewM());
        newState.push_back(adam.getNewV());
        continue;
      }
      SmallVector<Type> types(perParam + 1, param.getType());
      auto sgd = ob.create<train::SgdOp>(
          loc, types, param, grad, perParam ? s[0] : Value(), f64(c.lr),
          f64(c.momentum), f64(c.weightDecay),
          c.nesterov ? ob.getUnitAttr() : UnitAttr());
      newParams.push_back(sgd.getNewParam());
      if (perParam)
        newState.push_back(sgd.getNewMomentumBuffer());
    }
  }

  LogicalResult buildInit() {
    Signature in, out;
    in.add(b.getI64Type(), inputAttrs("seed"));
    out.add(params());
    out.add(state());
    if (m.config.accumulate > 1)
      out.add(accumulators());
    SmallVector<train::InitKind> kinds;
    SmallVector<std::pair<int64_t, int64_t>> fans;
    for (auto [i, name] : llvm::zip_equal(m.paramArgs, m.paramNames)) {
      auto kind = m.func.getArgAttrOfType<train::InitKindAttr>(i, kInit);
      if (!kind)
        return m.func.emitError("parameter '")
               << name.getValue() << "' needs a '" << kInit << "' attribute";
      kinds.push_back(kind.getValue());
      auto fan = m.func.getArgAttrOfType<DenseI64ArrayAttr>(i, kFan);
      if (fan && fan.size() != 2)
        return m.func.emitError("parameter '")
               << name.getValue() << "' has a '" << kFan
               << "' that is not [in, out]";
      fans.push_back(fan ? std::make_pair(fan[0], fan[1])
                         : std::make_pair<int64_t, int64_t>(0, 0));
    }

    func::FuncOp f = createFunc("init", in, out);
    OpBuilder ob = OpBuilder::atBlockBegin(&f.getBody().front());
    Value seed = f.getArgument(0);
    SmallVector<Value> results;
    for (auto [k, type] : llvm::enumerate(m.paramTypes()))
      results.push_back(ob.create<train::InitOp>(
          loc, type, kinds[k], seed, fans[k].first, fans[k].second, k));
    for (Type t : ArrayRef<Type>(out.types).drop_front(results.size()))
      results.push_back(ob.create<ZerosOp>(loc, t));
    ob.create<func::ReturnOp>(loc, results);
    return success();
  }

  /// @M.step, or @M.grad_step when accumulating.
  LogicalResult buildStep(bool accumulate) {
    Type features = m.argType(m.featuresArg);
    int64_t nodes = cast<RankedTensorType>(features).getDimSize(0);
    Type lossType = RankedTensorType::get({}, m.elementType());

    Signature in, out;
    unsigned graphPos =
        in.add(m.argType(m.graphArg), m.func.getArgAttrDict(m.graphArg));
    unsigned featuresPos =
        in.add(features, m.func.getArgAttrDict(m.featuresArg));
    unsigned labelsPos = in.add(RankedTensorType::get({nodes}, b.getI32Type()),
                                inputAttrs("labels"));
    unsigned maskPos = in.add(RankedTensorType::get({nodes}, b.getI1Type()),
                              inputAttrs("train_mask"));
    unsigned seedPos = in.add(b.getI64Type(), inputAttrs("seed"));
    unsigned stepPos = in.add(b.getI64Type(), inputAttrs("step"));
    unsigned paramsPos = in.add(params());
    unsigned statePos = in.add(accumulate ? accumulators() : state());
    out.add(lossType, b.getDictionaryAttr(
                          b.getNamedAttr(kRole, b.getStringAttr("loss"))));
    if (!accumulate)
      out.add(params());
    out.add(accumulate ? accumulators() : state());

    func::FuncOp f = createFunc(accumulate ? "grad_step" : "step", in, out);
    Block &entry = f.getBody().front();
    OpBuilder ob = OpBuilder::atBlockBegin(&entry);
    unsigned numParams = m.paramArgs.size();
    ValueRange args = entry.getArguments();
    ValueRange paramValues = args.slice(paramsPos, numParams);
    ValueRange stateValues = args.drop_front(statePos);

    IRMapping map;
    mapModelArgs(map, args[graphPos], args[featuresPos], paramValues);
    if (m.keyArg)
      map.map(m.func.getArgument(*m.keyArg),
              ob.create<RngKeyOp>(loc, args[seedPos], args[stepPos]));
    FailureOr<Value> logits = cloneForward(ob, map, /*training=*/true);
    if (failed(logits))
      return failure();
    Value loss = ob.create<train::CrossEntropyOp>(
        loc, lossType, *logits, args[labelsPos], args[maskPos],
        ob.getF64FloatAttr(m.config.labelSmoothing),
        train::ClassWeightsAttr::get(b.getContext(), m.config.classWeights));

    SmallVector<Operation *> forward;
    for (Operation &op : entry)
      forward.push_back(&op);
    // d loss / d loss = 1 seeds the sweep.
    Value one = ob.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(cast<ShapedType>(lossType),
                                    ob.getFloatAttr(m.elementType(), 1.0)));
    uint64_t count = 0;
    FailureOr<SmallVector<Value>> grads = buildReverseSweep(
        ob, forward, {{loss, one}}, SmallVector<Value>(paramValues), &count);
    if (failed(grads))
      return failure();
    numAdjoints += count;

    SmallVector<Value> results{loss};
    if (accumulate) {
      for (auto [acc, grad] : llvm::zip_equal(stateValues, *grads))
        results.push_back(ob.create<AddOp>(loc, acc, grad));
    } else {
      SmallVector<Value> newParams, newState;
      emitUpdates(ob, args[stepPos], paramValues, *grads, stateValues,
                  newParams, newState);
      llvm::append_range(results, newParams);
      llvm::append_range(results, newState);
    }
    ob.create<func::ReturnOp>(loc, results);
    return success();
  }

  LogicalResult buildApplyStep() {
    Signature in, out;
    in.add(b.getI64Type(), inputAttrs("step"));
    unsigned paramsPos = in.add(params());
    unsigned accPos = in.add(accumulators());
    unsigned statePos = in.add(state());
    out.add(params());
    out.add(state());
    out.add(accumulators());

    func::FuncOp f = createFunc("apply_step", in, out);
    Block &entry = f.getBody().front();
    OpBuilder ob = OpBuilder::atBlockBegin(&entry);
    unsigned numParams = m.paramArgs.size();
    ValueRange args = entry.getArguments();
    ValueRange accs = args.slice(accPos, numParams);
    // The update uses the mean over the micro-batches, as one step over
    // their union would (each micro-batch's loss is already a mean).
    SmallVector<Value> means;
    for (Value acc : accs)
      means.push_back(ob.create<ScaleOp>(
          loc, acc, ob.getF64FloatAttr(1.0 / double(m.config.accumulate))));
    SmallVector<Value> results, newState;
    emitUpdates(ob, args[0], args.slice(paramsPos, numParams), means,
                args.drop_front(statePos), results, newState);
    llvm::append_range(results, newState);
    for (Value acc : accs)
      results.push_back(ob.create<ZerosOp>(loc, acc.getType()));
    ob.create<func::ReturnOp>(loc, results);
    return success();
  }

  LogicalResult buildPredict() {
    Signature in, out;
    unsigned graphPos =
        in.add(m.argType(m.graphArg), m.func.getArgAttrDict(m.graphArg));
    unsigned featuresPos =
        in.add(m.argType(m.featuresArg), m.func.getArgAttrDict(m.featuresArg));
    unsigned paramsPos = in.add(params());
    out.add(m.logitsType, DictionaryAttr());

    func::FuncOp f = createFunc("predict", in, out);
    // The session reads the logits from predict's arena before the step
    // next writes it, so they need no buffer of their own (GnnDialect.h).
    f->setAttr(kResultsInArenaAttr, UnitAttr::get(f.getContext()));
    Block &entry = f.getBody().front();
    OpBuilder ob = OpBuilder::atBlockBegin(&entry);
    ValueRange args = entry.getArguments();
    IRMapping map;
    mapModelArgs(map, args[graphPos], args[featuresPos],
                 args.slice(paramsPos, m.paramArgs.size()));
    FailureOr<Value> logits = cloneForward(ob, map, /*training=*/false);
    if (failed(logits))
      return failure();
    ob.create<func::ReturnOp>(loc, *logits);
    return success();
  }

  Model &m;
  Location loc;
  OpBuilder b;
  uint64_t &numAdjoints;
  SmallVector<func::FuncOp> created;
};

/// Step functions already carry roles; only MLIRGen's model functions (a
/// config, no roles) are differentiated, so running the pass twice is safe.
bool isModelFunction(func::FuncOp f) {
  if (!f->hasAttr(kConfig) || f.isExternal())
    return false;
  auto hasRole = [](DictionaryAttr d) { return d && d.contains(kRole); };
  for (unsigned i = 0, e = f.getNumArguments(); i < e; ++i)
    if (hasRole(f.getArgAttrDict(i)))
      return false;
  for (unsigned i = 0, e = f.getNumResults(); i < e; ++i)
    if (hasRole(f.getResultAttrDict(i)))
      return false;
  return true;
}

struct AutodiffPass : mlir::gnn::impl::GnnAutodiffBase<AutodiffPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    GnnAutodiffBase::getDependentDialects(registry);
    // The rules are external models; the pass must work in any context that
    // loads the dialects, not only in gnnc-opt's.
    registerDifferentiableOpInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    SmallVector<func::FuncOp> models;
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (isModelFunction(f))
        models.push_back(f);
    bool failedAny = false;
    for (func::FuncOp f : models) {
      FailureOr<Model> model = analyse(f);
      if (failed(model)) {
        failedAny = true;
        continue;
      }
      uint64_t count = 0;
      StepBuilder builder(*model, count);
      if (failed(builder.build())) {
        builder.eraseCreated();
        failedAny = true;
        continue;
      }
      numAdjoints += count;
      f.erase();
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
