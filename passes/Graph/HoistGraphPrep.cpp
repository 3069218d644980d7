//===- HoistGraphPrep.cpp - Graph-derived values once per bound graph -----===//
//
// The graph with self loops, GCN's edge weights and their transposes depend
// on the bound graph alone, yet every step and every predict rebuilt them
// (10% of a Cora epoch on the CPU). This pass moves them into one function
// per train block, `@M.prepare(graph) -> (prepared values)`, which the
// runtime calls once when it binds a graph; the other functions take what
// they used as arguments marked `gnn.prepared = k`, the index of the
// prepare result. The values are the same ops on the same graph, so the
// numbers do not change; the planner then sees them as graph data that is
// resident, not as per-step work.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "passes/Graph/InputArguments.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNHOISTGRAPHPREP
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// Builds @M.prepare for the functions of one train block and rewrites
/// them to take its results.
class BlockHoister {
public:
  BlockHoister(ModuleOp module, StringRef base) : module(module), base(base) {}

  LogicalResult run(ArrayRef<func::FuncOp> funcs);

private:
  /// The prepare op equal to \p op with operands \p operands (same name,
  /// attributes and result types), creating it if there is none.
  Operation *prepareOp(Operation *op, ArrayRef<Value> operands);

  ModuleOp module;
  StringRef base;
  func::FuncOp prepare;
  Block *body = nullptr;
  Value prepareGraph;
};

Operation *BlockHoister::prepareOp(Operation *op, ArrayRef<Value> operands) {
  // Step and predict decompose the same layers the same way: match instead
  // of cloning twice, so each value is prepared and stored once.
  for (Operation &candidate : *body) {
    if (candidate.getName() != op->getName() ||
        candidate.getAttrDictionary() != op->getAttrDictionary() ||
        candidate.getResultTypes() != op->getResultTypes() ||
        !llvm::equal(candidate.getOperands(), operands))
      continue;
    return &candidate;
  }
  OpBuilder builder(body, body->end());
  IRMapping mapping;
  for (auto [from, to] : llvm::zip(op->getOperands(), operands))
    mapping.map(from, to);
  return builder.clone(*op, mapping);
}

LogicalResult BlockHoister::run(ArrayRef<func::FuncOp> funcs) {
  // Per function: the graph-derived ops, and the prepare value of each of
  // their results.
  struct Plan {
    func::FuncOp func;
    SmallVector<Operation *> ops;
    llvm::MapVector<Value, Value> toPrepare; // function value -> prepare value
  };
  SmallVector<Plan> plans;
  for (func::FuncOp func : funcs) {
    BlockArgument graph = inputArgument(func, "graph");
    if (!graph || !func.getBody().hasOneBlock())
      continue;
    Plan plan{func, {}, {}};
    llvm::DenseSet<Value> derived{graph};
    for (Operation &op : func.getBody().front()) {
      if (!op.hasTrait<gnn::GraphDerived>() || op.getNumRegions() != 0 ||
          op.getNumOperands() == 0 ||
          !llvm::all_of(op.getOperands(),
                        [&](Value v) { return derived.contains(v); }))
        continue;
      for (Value r : op.getResults())
        derived.insert(r);
      plan.ops.push_back(&op);
    }
    if (!plan.ops.empty())
      plans.push_back(std::move(plan));
  }
  if (plans.empty())
    return success();

  // @M.prepare(graph), placed before the block's first function.
  BlockArgument firstGraph = inputArgument(plans.front().func, "graph");
  OpBuilder builder(plans.front().func);
  auto type = builder.getFunctionType({firstGraph.getType()}, {});
  prepare = builder.create<func::FuncOp>(plans.front().func.getLoc(),
                                         (base + ".prepare").str(), type);
  prepare.setArgAttr(0, "gnn.input", builder.getStringAttr("graph"));
  for (StringRef name : {"gnn.model", "train.config"})
    if (Attribute a = plans.front().func->getAttr(name))
      prepare->setAttr(name, a);
  body = prepare.addEntryBlock();
  prepareGraph = prepare.getArgument(0);

  llvm::SetVector<Value> outputs; // prepare values that become results
  for (Plan &plan : plans) {
    BlockArgument graph = inputArgument(plan.func, "graph");
    if (graph.getType() != prepareGraph.getType())
      return plan.func.emitError("gnn-hoist-graph-prep: the functions of '")
             << base << "' take graphs of different types";
    plan.toPrepare[graph] = prepareGraph;
    for (Operation *op : plan.ops) {
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(plan.toPrepare.lookup(v));
      Operation *twin = prepareOp(op, operands);
      for (auto [from, to] : llvm::zip(op->getResults(), twin->getResults()))
        plan.toPrepare[from] = to;
    }
    // A result used by anything that stays in the function is an output.
    for (Operation *op : plan.ops)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *user) {
              return !llvm::is_contained(plan.ops, user);
            }))
          outputs.insert(plan.toPrepare[r]);
  }

  builder.setInsertionPointToEnd(body);
  builder.create<func::ReturnOp>(prepare.getLoc(), outputs.getArrayRef());
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  prepare.setType(
      builder.getFunctionType({prepareGraph.getType()}, resultTypes));
  for (unsigned k = 0; k < outputs.size(); ++k)
    prepare.setResultAttr(k, "gnn.prepared", builder.getI64IntegerAttr(k));

  // Each function takes the outputs it uses, in output order, after its
  // own arguments, and loses the ops.
  for (Plan &plan : plans) {
    for (auto [k, output] : llvm::enumerate(outputs)) {
      SmallVector<Value> users;
      for (auto &[value, prepared] : plan.toPrepare)
        if (prepared == output && value.getDefiningOp())
          users.push_back(value);
      if (users.empty() || llvm::all_of(users, [&](Value v) {
            return llvm::all_of(v.getUsers(), [&](Operation *user) {
              return llvm::is_contained(plan.ops, user);
            });
          }))
        continue;
      unsigned index = plan.func.getNumArguments();
      plan.func.insertArgument(
          index, output.getType(),
          builder.getDictionaryAttr(
              {builder.getNamedAttr("gnn.input",
                                    builder.getStringAttr("prepared")),
               builder.getNamedAttr("gnn.prepared",
                                    builder.getI64IntegerAttr(k))}),
          plan.func.getLoc());
      for (Value v : users)
        v.replaceAllUsesWith(plan.func.getArgument(index));
    }
    for (Operation *op : llvm::reverse(plan.ops)) {
      if (!op->use_empty())
        return op->emitError("gnn-hoist-graph-prep: a hoisted value is "
                             "still used");
      op->erase();
    }
  }
  return success();
}

struct HoistGraphPrepPass
    : mlir::gnn::impl::GnnHoistGraphPrepBase<HoistGraphPrepPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The functions of each train block, `M.init`, `M.step`, ..., in
    // module order.
    llvm::MapVector<StringRef, SmallVector<func::FuncOp>> blocks;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func->hasAttr("gnn.model"))
        continue;
      auto [base, suffix] = func.getSymName().rsplit('.');
      if (suffix.empty())
        continue;
      if (suffix == "prepare") {
        func.emitError("gnn-hoist-graph-prep: '")
            << func.getSymName() << "' exists already";
        return signalPassFailure();
      }
      blocks[base].push_back(func);
    }
    for (auto &[base, funcs] : blocks) {
      // The names are owned by the functions, which stay alive.
      if (failed(BlockHoister(module, base).run(funcs)))
        return signalPassFailure();
      if (auto prepare =
              module.lookupSymbol<func::FuncOp>((base + ".prepare").str()))
        numPrepared += prepare.getNumResults();
    }
  }
};

} // namespace
