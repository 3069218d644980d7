//===- ExpandRecompute.cpp - mem-expand-recompute -------------------------===//
//
// Inlines `mem.recompute` regions where they stand (ExpandRecompute.h).
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/ExpandRecompute.h"

#include "dialects/Mem/MemOps.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gnn {
#define GEN_PASS_DEF_MEMEXPANDRECOMPUTE
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

int64_t mlir::gnn::expandRecomputes(func::FuncOp func) {
  SmallVector<mem::RecomputeOp> recomputes;
  func.walk([&](mem::RecomputeOp op) { recomputes.push_back(op); });
  for (mem::RecomputeOp rec : recomputes) {
    Block &body = rec.getBody().front();
    IRMapping map;
    for (auto [arg, input] : llvm::zip(body.getArguments(), rec.getInputs()))
      map.map(arg, input);
    OpBuilder b(rec);
    for (Operation &op : body.without_terminator())
      b.clone(op, map);
    auto yield = cast<mem::YieldOp>(body.getTerminator());
    for (auto [result, value] : llvm::zip(rec.getResults(), yield.getValues()))
      result.replaceAllUsesWith(map.lookupOrDefault(value));
    rec.erase();
  }
  return static_cast<int64_t>(recomputes.size());
}

namespace {
struct ExpandRecomputePass
    : mlir::gnn::impl::MemExpandRecomputeBase<ExpandRecomputePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      numExpanded += expandRecomputes(func);
  }
};
} // namespace
