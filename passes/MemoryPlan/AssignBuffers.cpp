//===- AssignBuffers.cpp - gnn-assign-buffers: one static arena -----------===//
//
// Gives every intermediate value that needs memory a fixed byte offset in a
// single arena per function, so generated code allocates nothing: the host
// allocates `gnn.arena_bytes` once and every kernel writes at its offset.
// Offsets come from the planner's live intervals and sizes over the op order
// (Liveness.h; first fit, 64-byte alignment); values returned by the
// function are written straight into the caller's result buffers instead
// (offset -2 and `gnn.result_slots`), except in a function marked
// `gnn.results_in_arena`, whose computed results are arena values and whose
// `gnn.result_offsets` tell the caller where to read them.
// Passes decide, emitters print: code generators read these attributes and
// never place a buffer themselves.
//
//===----------------------------------------------------------------------===//
#include "dialects/Gnn/GnnDialect.h"
#include "passes/MemoryPlan/Liveness.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNASSIGNBUFFERS
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// `gnn.offsets` entries that are not arena offsets.
constexpr int64_t kNoStorage = -1;
constexpr int64_t kResultSlot = -2;

struct AssignBuffersPass
    : mlir::gnn::impl::GnnAssignBuffersBase<AssignBuffersPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(assign(func)))
        return signalPassFailure();
  }

  LogicalResult assign(func::FuncOp func) {
    // Sizes, intervals and who owns each value come from the planner's
    // analysis, so the arena is sized by the same formula it predicts with.
    FailureOr<StepLiveness> live =
        StepLiveness::compute(func, "gnn-assign-buffers");
    if (failed(live))
      return failure();

    ArenaLayout layout = placeFirstFit(*live);
    OpBuilder builder(func.getContext());
    SmallVector<int64_t> resultOffsets(func.getNumResults(), kNoStorage);
    for (Operation *op : live->getSchedule()) {
      if (op->getNumResults() == 0)
        continue;
      SmallVector<int64_t> offsets, slots;
      bool anySlot = false;
      for (Value result : op->getResults()) {
        const ValueLiveness &info = live->lookup(result);
        slots.push_back(info.resultSlot);
        switch (info.storage) {
        case Storage::Result:
          offsets.push_back(kResultSlot);
          anySlot = true;
          break;
        case Storage::Arena:
          offsets.push_back(layout.offsets.lookup(result));
          if (info.resultSlot >= 0)
            for (auto [k, operand] : llvm::enumerate(
                     func.getBody().front().getTerminator()->getOperands()))
              if (operand == result)
                resultOffsets[k] = offsets.back();
          ++numBuffers;
          break;
        case Storage::None:
        case Storage::Argument:
          offsets.push_back(kNoStorage);
          break;
        }
      }
      op->setAttr("gnn.offsets", builder.getDenseI64ArrayAttr(offsets));
      if (anySlot)
        op->setAttr("gnn.result_slots", builder.getDenseI64ArrayAttr(slots));
      else
        op->removeAttr("gnn.result_slots");
    }
    if (func->hasAttr(kResultsInArenaAttr))
      func->setAttr("gnn.result_offsets",
                    builder.getDenseI64ArrayAttr(resultOffsets));
    int64_t arenaBytes = layout.arenaBytes;
    func->setAttr("gnn.arena_bytes", builder.getI64IntegerAttr(arenaBytes));
    return success();
  }
};

} // namespace
