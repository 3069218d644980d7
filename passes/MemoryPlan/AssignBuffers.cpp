//===- AssignBuffers.cpp - gnn-assign-buffers: one static arena -----------===//
//
// Gives every intermediate value that needs memory a fixed byte offset in a
// single arena per function, so generated code allocates nothing: the host
// allocates `gnn.arena_bytes` once and every kernel writes at its offset.
// Offsets come from live intervals over the op order (first fit, 64-byte
// alignment); values returned by the function are written straight into the
// caller's result buffers instead (offset -2 and `gnn.result_slots`).
// Passes decide, emitters print: code generators read these attributes and
// never place a buffer themselves.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Gnn/GnnOps.h"
#include "gnnrt/Kernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNASSIGNBUFFERS
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {

constexpr int64_t kAlignment = 64;
/// `gnn.offsets` entries that are not arena offsets.
constexpr int64_t kNoStorage = -1;
constexpr int64_t kResultSlot = -2;

int64_t alignUp(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// Bytes of one element as the runtime stores it (i1 masks as bytes).
std::optional<int64_t> elementBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return std::nullopt;
}

/// What a value needs: std::nullopt for no storage, -1 when it needs
/// storage whose size is not static (an error for the caller to report).
std::optional<int64_t> storageBytes(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType())) {
    std::optional<int64_t> element = elementBytes(tensor.getElementType());
    if (!element || !tensor.hasStaticShape())
      return -1;
    // The pattern and the values, as the runtime lays them out.
    if (auto csr = getCsrEncoding(tensor))
      return gnnrt_csr_matrix_bytes(tensor.getDimSize(0), tensor.getDimSize(1),
                                    csr.getNnz());
    return tensor.getNumElements() * *element;
  }
  if (isa<TensorType>(value.getType()))
    return -1;
  if (auto graph = dyn_cast<GraphType>(value.getType())) {
    // A view of another graph's arrays, or a caller-bound graph.
    if (!value.getDefiningOp<AddSelfLoopsOp>())
      return std::nullopt;
    if (!graph.hasStaticNodes() || !graph.hasStaticEdges())
      return -1;
    // Both CSR views of the result, as gnnrt_cpu_add_self_loops_storage:
    // indptr [N + 1], src and edge_id [E] each.
    return 4 * 2 * (graph.getNodes() + 1 + 2 * graph.getEdges());
  }
  return std::nullopt;
}

struct Interval {
  Value value;
  int64_t begin, end; // Op indices, inclusive.
  int64_t bytes;
  int64_t offset = 0;
};

struct AssignBuffersPass
    : mlir::gnn::impl::GnnAssignBuffersBase<AssignBuffersPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(assign(func)))
        return signalPassFailure();
  }

  LogicalResult assign(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("gnn-assign-buffers needs a single-block function");
    Block &block = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!ret)
      return func.emitError("gnn-assign-buffers needs a func.return");

    llvm::DenseMap<Operation *, int64_t> index;
    for (auto [i, op] : llvm::enumerate(block))
      index[&op] = static_cast<int64_t>(i);

    // The first result slot each returned op result goes to.
    llvm::DenseMap<Value, int64_t> slotOf;
    for (auto [k, operand] : llvm::enumerate(ret.getOperands()))
      if (operand.getDefiningOp())
        slotOf.try_emplace(operand, static_cast<int64_t>(k));

    // Last uses, with views keeping their source alive: walk backwards so a
    // view's own extended lifetime is known before it extends its source's.
    llvm::DenseMap<Value, int64_t> lastUse;
    for (Operation &op : llvm::reverse(block)) {
      if (op.getNumRegions() != 0)
        return op.emitError("gnn-assign-buffers does not handle regions");
      for (Value result : op.getResults()) {
        int64_t last = index[&op];
        for (Operation *user : result.getUsers())
          last = std::max(last, index[block.findAncestorOpInBlock(*user)]);
        auto it = lastUse.find(result);
        if (it != lastUse.end())
          last = std::max(last, it->second);
        lastUse[result] = last;
      }
      if (auto view = dyn_cast<TransposeOp>(op)) {
        int64_t &source = lastUse[view.getGraph()];
        source = std::max(source, lastUse[view.getResult()]);
      }
    }

    std::vector<Interval> intervals;
    OpBuilder builder(func.getContext());
    for (Operation &op : block) {
      if (op.getNumResults() == 0)
        continue;
      SmallVector<int64_t> offsets, slots;
      bool anySlot = false;
      for (Value result : op.getResults()) {
        std::optional<int64_t> bytes = storageBytes(result);
        auto slot = slotOf.find(result);
        // A returned graph is a struct the caller receives; its arrays
        // stay in the arena (live to the return), which the caller of
        // @M.prepare keeps.
        if (slot != slotOf.end() && !isa<GraphType>(result.getType())) {
          if (!isa<TensorType>(result.getType()))
            return op.emitError("gnn-assign-buffers: only tensors and graphs "
                                "can be returned to the caller");
          offsets.push_back(kResultSlot);
          slots.push_back(slot->second);
          anySlot = true;
          continue;
        }
        slots.push_back(-1);
        if (!bytes) {
          offsets.push_back(kNoStorage);
          continue;
        }
        if (*bytes < 0)
          return op.emitError("gnn-assign-buffers needs a static size for ")
                 << result.getType();
        // Filled in below; the index into `intervals` for now.
        offsets.push_back(static_cast<int64_t>(intervals.size()));
        intervals.push_back(
            {result, index[&op], lastUse[result], alignUp(*bytes)});
      }
      // Keep the interval indices until offsets are known.
      op.setAttr("gnn.offsets", builder.getDenseI64ArrayAttr(offsets));
      if (anySlot)
        op.setAttr("gnn.result_slots", builder.getDenseI64ArrayAttr(slots));
      else
        op.removeAttr("gnn.result_slots");
    }

    // First fit in definition order: the lowest offset whose bytes no
    // already placed, overlapping interval uses.
    int64_t arenaBytes = 0;
    for (size_t i = 0; i < intervals.size(); ++i) {
      Interval &cur = intervals[i];
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (size_t j = 0; j < i; ++j) {
        const Interval &other = intervals[j];
        if (other.begin <= cur.end && cur.begin <= other.end && other.bytes > 0)
          busy.push_back({other.offset, other.offset + other.bytes});
      }
      llvm::sort(busy);
      int64_t offset = 0;
      for (auto [lo, hi] : busy) {
        if (offset + cur.bytes <= lo)
          break;
        offset = std::max(offset, hi);
      }
      cur.offset = offset;
      arenaBytes = std::max(arenaBytes, offset + cur.bytes);
      ++numBuffers;
    }

    for (Operation &op : block) {
      auto attr = op.getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
      if (!attr)
        continue;
      SmallVector<int64_t> offsets(attr.asArrayRef());
      for (int64_t &entry : offsets)
        if (entry >= 0)
          entry = intervals[entry].offset;
      op.setAttr("gnn.offsets", builder.getDenseI64ArrayAttr(offsets));
    }
    func->setAttr("gnn.arena_bytes", builder.getI64IntegerAttr(arenaBytes));
    return success();
  }
};

} // namespace
