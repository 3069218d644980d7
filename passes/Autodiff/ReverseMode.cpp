//===- ReverseMode.cpp - Reverse sweeps over gnn primitives ---------------===//
//
// A reverse sweep over straight-line code needs no tape: every forward value
// still dominates the sweep, so the rules read the op's operands and results
// directly. Activity analysis keeps the sweep to the ops that matter, which
// is also what makes "no derivative rule" an error only where a derivative
// is actually needed.
//
//===----------------------------------------------------------------------===//
#include "passes/Autodiff/ReverseMode.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Interfaces/DifferentiableOpInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::gnn;

namespace {
bool isFloatTensor(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  return tt && isa<FloatType>(tt.getElementType());
}

/// Records what the rules insert, so that the cotangents nobody asked for
/// (a graph weight's, a label's) can be erased again and tests see only the
/// sweep that matters.
struct RecordingListener : OpBuilder::Listener {
  SmallVector<Operation *> inserted;
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    inserted.push_back(op);
  }
};
} // namespace

FailureOr<SmallVector<Value>>
mlir::gnn::buildReverseSweep(OpBuilder &builder, ArrayRef<Operation *> forward,
                             ArrayRef<CotangentSeed> seeds, ArrayRef<Value> wrt,
                             uint64_t *numAdjoints) {
  // Varied: depends on some value of `wrt`. Useful: some seed depends on it.
  // Only ops with a varied operand and a useful result are differentiated.
  for (const CotangentSeed &seed : seeds)
    if (seed.first.getType() != seed.second.getType())
      return emitError(seed.second.getLoc())
             << "cotangent of type " << seed.second.getType()
             << " seeds a value of type " << seed.first.getType();

  llvm::DenseSet<Value> varied(wrt.begin(), wrt.end());
  for (Operation *op : forward)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return varied.contains(v); }))
      for (Value r : op->getResults())
        if (isFloatTensor(r.getType()))
          varied.insert(r);
  llvm::DenseSet<Value> useful;
  for (const CotangentSeed &seed : seeds)
    useful.insert(seed.first);
  for (Operation *op : llvm::reverse(forward))
    if (llvm::any_of(op->getResults(),
                     [&](Value v) { return useful.contains(v); }))
      useful.insert(op->operand_begin(), op->operand_end());

  RecordingListener listener;
  OpBuilder b(builder.getContext(), &listener);
  b.restoreInsertionPoint(builder.saveInsertionPoint());

  llvm::DenseMap<Value, Value> cotangents;
  auto accumulate = [&](Value v, Value cotangent, Location loc) {
    auto [it, inserted] = cotangents.try_emplace(v, cotangent);
    if (!inserted)
      it->second = b.create<AddOp>(loc, it->second, cotangent);
  };
  for (const CotangentSeed &seed : seeds)
    accumulate(seed.first, seed.second, seed.second.getLoc());

  auto fail = [&]() -> FailureOr<SmallVector<Value>> {
    for (Operation *op : llvm::reverse(listener.inserted)) {
      op->dropAllUses();
      op->erase();
    }
    return failure();
  };

  for (Operation *op : llvm::reverse(forward)) {
    bool active = llvm::any_of(op->getOperands(),
                               [&](Value v) { return varied.contains(v); }) &&
                  llvm::any_of(op->getResults(),
                               [&](Value v) { return useful.contains(v); });
    if (!active)
      continue;
    // A rule may have declined to propagate (an operand that is not
    // differentiable), so a useful result can still have no cotangent.
    if (llvm::none_of(op->getResults(),
                      [&](Value r) { return cotangents.count(r); }))
      continue;
    if (op->hasTrait<gnn::Layer>()) {
      op->emitError() << "op '" << op->getName()
                      << "' must be decomposed before gnn-autodiff";
      return fail();
    }
    auto differentiable = dyn_cast<DifferentiableOpInterface>(op);
    if (!differentiable) {
      op->emitError() << "op '" << op->getName() << "' has no derivative rule";
      return fail();
    }
    SmallVector<Value> resultCotangents;
    for (Value r : op->getResults()) {
      if (Value c = cotangents.lookup(r)) {
        resultCotangents.push_back(c);
        continue;
      }
      if (!isFloatTensor(r.getType())) {
        op->emitError() << "op '" << op->getName()
                        << "' has a result that cannot carry a cotangent";
        return fail();
      }
      // The interface promises one cotangent per result; a structurally
      // zero one is the honest value for a result nothing depends on.
      resultCotangents.push_back(b.create<ZerosOp>(op->getLoc(), r.getType()));
    }
    SmallVector<Value> operandCotangents;
    if (failed(differentiable.buildAdjoint(b, resultCotangents,
                                           operandCotangents)))
      return fail();
    if (operandCotangents.size() != op->getNumOperands()) {
      op->emitError() << "derivative rule of '" << op->getName()
                      << "' returned " << operandCotangents.size()
                      << " cotangents for " << op->getNumOperands()
                      << " operands";
      return fail();
    }
    if (numAdjoints)
      ++*numAdjoints;
    for (auto [operand, cotangent] :
         llvm::zip_equal(op->getOperands(), operandCotangents)) {
      if (!cotangent || !varied.contains(operand))
        continue;
      if (cotangent.getType() != operand.getType()) {
        op->emitError() << "derivative rule of '" << op->getName()
                        << "' produced a cotangent of type "
                        << cotangent.getType() << " for an operand of type "
                        << operand.getType();
        return fail();
      }
      accumulate(operand, cotangent, op->getLoc());
    }
  }

  SmallVector<Value> gradients;
  llvm::DenseSet<Operation *> keep;
  for (Value v : wrt) {
    Value g = cotangents.lookup(v);
    if (!g) {
      if (!isFloatTensor(v.getType())) {
        emitError(v.getLoc())
            << "cannot differentiate with respect to a " << v.getType();
        return fail();
      }
      g = b.create<ZerosOp>(v.getLoc(), v.getType());
    }
    gradients.push_back(g);
    if (Operation *def = g.getDefiningOp())
      keep.insert(def);
  }
  // Reverse order of creation visits users before what they use.
  for (Operation *op : llvm::reverse(listener.inserted))
    if (!keep.contains(op) && op->use_empty())
      op->erase();
  return gradients;
}

FailureOr<func::FuncOp> mlir::gnn::buildVJP(func::FuncOp f,
                                            ArrayRef<unsigned> wrtArgs) {
  if (!f.getBody().hasOneBlock())
    return f.emitError("buildVJP needs a function with one block");
  FunctionType type = f.getFunctionType();
  for (Type t : type.getResults())
    if (!isFloatTensor(t))
      return f.emitError("buildVJP needs float tensor results, got ") << t;
  for (unsigned i : wrtArgs)
    if (i >= type.getNumInputs() || !isFloatTensor(type.getInput(i)))
      return f.emitError("buildVJP cannot differentiate with respect to "
                         "argument ")
             << i;
  std::string name = (f.getSymName() + ".vjp").str();
  if (SymbolTable::lookupNearestSymbolFrom(
          f, StringAttr::get(f.getContext(), name)))
    return f.emitError("'") << name << "' already exists";

  SmallVector<Type> inputs(type.getInputs()), results(type.getResults());
  llvm::append_range(inputs, type.getResults());
  for (unsigned i : wrtArgs)
    results.push_back(type.getInput(i));
  OpBuilder b(f);
  b.setInsertionPointAfter(f);
  auto vjp = b.create<func::FuncOp>(f.getLoc(), name,
                                    b.getFunctionType(inputs, results));
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i)
    if (DictionaryAttr attrs = f.getArgAttrDict(i))
      vjp.setArgAttrs(i, attrs);
  Block *entry = vjp.addEntryBlock();
  b.setInsertionPointToStart(entry);

  IRMapping map;
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i)
    map.map(f.getArgument(i), entry->getArgument(i));
  Block &body = f.getBody().front();
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator())
    forward.push_back(b.clone(op, map));

  Operation *terminator = body.getTerminator();
  SmallVector<Value> returned;
  SmallVector<CotangentSeed> seeds;
  for (auto [k, v] : llvm::enumerate(terminator->getOperands())) {
    returned.push_back(map.lookupOrDefault(v));
    seeds.push_back(
        {returned.back(), entry->getArgument(type.getNumInputs() + k)});
  }
  SmallVector<Value> wrt;
  for (unsigned i : wrtArgs)
    wrt.push_back(entry->getArgument(i));
  FailureOr<SmallVector<Value>> grads =
      buildReverseSweep(b, forward, seeds, wrt);
  if (failed(grads)) {
    vjp.erase();
    return failure();
  }
  llvm::append_range(returned, *grads);
  b.create<func::ReturnOp>(f.getLoc(), returned);
  return vjp;
}
