//===- Liveness.cpp - The memory planner's view of one function -----------===//
//
// Sizes, live intervals, the forward/backward split and the live-bytes
// curve of a single-block function (see Liveness.h). Everything is computed
// in two walks over the block: a backward one for last uses (so that a
// view's own extended lifetime is known before it extends its source's), and
// a forward one that classifies and sizes every value.
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/Liveness.h"
#include "passes/MemoryPlan/Placement.h"

#include "dialects/Gnn/Elementwise.h"
#include "dialects/Gnn/GnnOps.h"
#include "dialects/Mem/MemOps.h"
#include "gnnrt/Kernels.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gnn;

/// Bytes of one element as the runtime stores it (i1 masks as bytes).
static std::optional<int64_t> elementBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return std::nullopt;
}

std::optional<int64_t> mlir::gnn::storageBytes(Value value) {
  // A host copy read a tile at a time: the device holds the tile buffer.
  if (std::optional<uint64_t> tile = mem::tileBytesRead(value))
    return static_cast<int64_t>(*tile);
  // Signs read from their bits: a view of mem.store_sign's result.
  if (getViewSource(value))
    return std::nullopt;
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
    // A host-homed graph's in view, copied to the device: indptr [N + 1],
    // src and edge_id [E] (gnnrt_home_load_graph).
    if (value.getDefiningOp<mem::LoadGraphHomeOp>()) {
      if (!graph.hasStaticNodes() || !graph.hasStaticEdges())
        return -1;
      return 4 * (graph.getNodes() + 1 + 2 * graph.getEdges());
    }
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

SmallVector<std::pair<Value, bool>> mlir::gnn::inPlaceReads(Operation *op) {
  // An activation's gradient writes over its incoming gradient first: its
  // input, when kept as signs, is read from their bits (a packed
  // mem.load_sign), which no result takes over, so the planner's picture
  // of the step (built on this liveness) is the planned step's.
  if (auto grad = dyn_cast<ActivationGradOp>(op)) {
    SmallVector<std::pair<Value, bool>> reads = elementwiseReads(op);
    std::stable_partition(reads.begin(), reads.end(), [&](auto read) {
      return read.first == grad.getResultGrad();
    });
    return reads;
  }
  if (isElementwiseOp(op) || isDenseDropout(op))
    return elementwiseReads(op);
  // Every kernel of these ops reads an element before it writes it, on
  // both targets. The edge softmax and its gradient work one destination
  // node and head at a time, reading each edge's element before writing
  // it (gnnrt_cpu_edge_softmax{,_grad} and the CUDA kernels): on GAT the
  // gradient's [E, heads] result was the third such tensor live at once,
  // the step's peak at the tightest budgets.
  if (auto softmax = dyn_cast<EdgeSoftmaxOp>(op))
    return {{softmax.getInput(), false}};
  if (auto grad = dyn_cast<EdgeSoftmaxGradOp>(op))
    return {{grad.getResultGrad(), false}, {grad.getOutput(), false}};
  // Writes only the block's columns (gnnrt_cpu_insert_columns).
  if (auto insert = dyn_cast<InsertColumnsOp>(op))
    return {{insert.getInput(), false}};
  // A product whose every row comes from the same row of its dense left
  // operand alone, into as many floats (a 64 -> 64 layer's projection, or
  // its input gradient `dz W^T`): the kernels compute a tile of rows at a
  // time before writing them (gnnrt_cpu_matmul, gnnrt_cuda_matmul). On a
  // 2M-node graph that is 512 MB fewer at each such product.
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto lhs = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
    if (!matmul.getTransposeA() && matmul.getLhs() != matmul.getRhs() && lhs &&
        !getCsrEncoding(lhs) && lhs == matmul.getType())
      return {{matmul.getLhs(), false}};
  }
  return {};
}

FailureOr<std::optional<ArenaBytes>>
mlir::gnn::assignedArenaBytes(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return std::optional<ArenaBytes>();
  auto offsets =
      result.getOwner()->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
  if (!offsets)
    return std::optional<ArenaBytes>();
  if (static_cast<int64_t>(result.getResultNumber()) >= offsets.size())
    return failure();
  int64_t offset = offsets[result.getResultNumber()];
  if (offset < 0)
    return std::optional<ArenaBytes>();
  std::optional<int64_t> bytes = storageBytes(value);
  if (!bytes || *bytes < 0)
    return failure();
  return std::optional<ArenaBytes>(ArenaBytes{offset, offset + *bytes});
}

Value mlir::gnn::getViewSource(Value value) {
  // gnnrt_graph_transposed swaps the two CSR views of the same arrays.
  if (auto view = value.getDefiningOp<TransposeOp>())
    return view.getGraph();
  // The gradients reading a packed mem.load_sign read the bits themselves.
  if (auto load = value.getDefiningOp<mem::LoadSignOp>();
      load && load.getPacked())
    return load.getInput();
  return {};
}

bool mlir::gnn::sharesArgumentStorage(Value value) {
  if (Value source = getViewSource(value))
    value = source;
  return isa<BlockArgument>(value);
}

StringRef mlir::gnn::stringifyStorage(Storage storage) {
  switch (storage) {
  case Storage::None:
    return "none";
  case Storage::Argument:
    return "argument";
  case Storage::Arena:
    return "arena";
  case Storage::Result:
    return "result";
  }
  llvm_unreachable("unknown storage");
}

ArgumentRole mlir::gnn::getArgumentRole(func::FuncOp func, unsigned index) {
  ArgumentRole role;
  auto param = func.getArgAttrOfType<StringAttr>(index, "gnn.param");
  if (param)
    role.detail = param.getValue().str();
  // train.role first: the step's parameters and state carry both it and
  // gnn.param, the model function's parameters gnn.param alone.
  if (auto train = func.getArgAttrOfType<StringAttr>(index, "train.role")) {
    role.role = train.getValue().str();
    role.kind =
        role.role == "param" ? ArgumentKind::Parameter : ArgumentKind::State;
    return role;
  }
  if (auto input = func.getArgAttrOfType<StringAttr>(index, "gnn.input")) {
    role.role = input.getValue().str();
    role.kind = ArgumentKind::Input;
    if (role.role == "prepared") {
      role.kind = ArgumentKind::Prepared;
      if (auto k = func.getArgAttrOfType<IntegerAttr>(index, "gnn.prepared"))
        role.detail = std::to_string(k.getInt());
    }
    return role;
  }
  if (param) {
    role.role = "param";
    role.kind = ArgumentKind::Parameter;
  }
  return role;
}

FailureOr<StepLiveness> StepLiveness::compute(func::FuncOp func,
                                              StringRef client) {
  StepLiveness live(func);
  if (failed(live.run(client)))
    return failure();
  return live;
}

LogicalResult StepLiveness::run(StringRef client) {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << client << " needs a single-block function";
  Block &block = func.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
  if (!ret)
    return func.emitError() << client << " needs a func.return";

  for (Operation &op : block) {
    index[&op] = static_cast<int64_t>(schedule.size());
    schedule.push_back(&op);
  }

  // The forward part is the loss's backward slice: the loss op and every
  // op it transitively depends on. Everything else (the loss's seed
  // cotangent, the adjoints, the optimizer update) is the backward part.
  // A split at the loss's position in the schedule would be simpler but
  // wrong: canonicalize hoists constants such as the seed cotangent `1.0`
  // to the entry, ahead of the forward pass, and a scheduler is free to
  // interleave independent ops; membership in the slice does not depend on
  // where an op lands, only on what it computes.
  for (auto [k, operand] : llvm::enumerate(ret.getOperands())) {
    auto role = func.getResultAttrOfType<StringAttr>(k, "train.role");
    if (role && role.getValue() == "loss") {
      lossOp = operand.getDefiningOp();
      break;
    }
  }
  if (lossOp) {
    SmallVector<Operation *> worklist = {lossOp};
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!forward.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
    }
  }

  // Last uses and reads by the backward part, with views keeping their
  // source alive: walk backwards so a view's own extended lifetime is known
  // before it extends its source's.
  llvm::DenseMap<Value, int64_t> lastUse;
  llvm::DenseMap<Value, bool> readByBackward;
  auto noteUses = [&](Value value, int64_t def) {
    int64_t last = def;
    bool backward = false;
    for (Operation *user : value.getUsers()) {
      Operation *op = block.findAncestorOpInBlock(*user);
      last = std::max(last, index[op]);
      // The return hands values to the caller; it computes nothing.
      backward |= lossOp && op != ret && !forward.contains(op);
    }
    auto it = lastUse.find(value);
    if (it != lastUse.end())
      last = std::max(last, it->second);
    lastUse[value] = last;
    readByBackward[value] |= backward;
  };
  for (Operation &op : llvm::reverse(block)) {
    if (op.getNumRegions() != 0)
      return op.emitError() << client << " does not handle regions";
    for (Value result : op.getResults())
      noteUses(result, index[&op]);
    for (Value result : op.getResults())
      if (Value source = getViewSource(result)) {
        int64_t &last = lastUse.try_emplace(source, kEntry).first->second;
        last = std::max(last, lastUse[result]);
        readByBackward[source] |= readByBackward[result];
      }
  }
  for (BlockArgument arg : block.getArguments())
    noteUses(arg, kEntry);

  // Arguments are the caller's, whatever their role.
  for (BlockArgument arg : block.getArguments()) {
    ValueLiveness info;
    info.value = arg;
    info.storage = Storage::Argument;
    info.bytes = storageBytes(arg).value_or(0);
    info.def = kEntry;
    info.lastUse = lastUse[arg];
    if (info.bytes > 0)
      argumentBytes += info.bytes;
    valueIndex[arg] = values.size();
    values.push_back(info);
  }

  // The first result slot each returned op result goes to.
  llvm::DenseMap<Value, int64_t> slotOf;
  // A function marked gnn.results_in_arena (@M.predict) leaves the tensors
  // its ops compute for the caller in its own arena, live to the end.
  const bool resultsInArena = func->hasAttr(kResultsInArenaAttr);
  for (auto [k, operand] : llvm::enumerate(ret.getOperands())) {
    bool computed = operand.getDefiningOp() != nullptr;
    if (computed)
      slotOf.try_emplace(operand, static_cast<int64_t>(k));
    // One caller buffer per tensor result slot. A returned graph is a
    // struct whose arrays stay in the arena (the caller of @M.prepare keeps
    // it), so it is counted there.
    if (isa<TensorType>(operand.getType()) && !(resultsInArena && computed))
      if (std::optional<int64_t> bytes = storageBytes(operand);
          bytes && *bytes > 0)
        resultBytes += *bytes;
  }

  for (Operation *op : schedule) {
    for (Value result : op->getResults()) {
      ValueLiveness info;
      info.value = result;
      info.def = index[op];
      info.lastUse = lastUse[result];
      std::optional<int64_t> bytes = storageBytes(result);
      auto slot = slotOf.find(result);
      bool returned = slot != slotOf.end() && !isa<GraphType>(result.getType());
      if (returned && !isa<TensorType>(result.getType()))
        return op->emitError()
               << client
               << ": only tensors and graphs can be returned to the caller";
      if (returned)
        info.resultSlot = slot->second;
      if (returned && !resultsInArena) {
        info.storage = Storage::Result;
        info.bytes = bytes.value_or(0);
      } else if (bytes) {
        if (*bytes < 0)
          return op->emitError()
                 << client << " needs a static size for " << result.getType();
        info.storage = Storage::Arena;
        info.bytes = *bytes;
        info.saved = forward.contains(op) && readByBackward[result];
      }
      valueIndex[result] = values.size();
      values.push_back(info);
    }
  }

  // In-place results: an op's result takes over the slot of an operand
  // that dies at the op (inPlaceReads: read at the element, not broadcast;
  // the same slot size; not already taken over).
  for (Operation *op : schedule) {
    SmallVector<std::pair<Value, bool>> reads = inPlaceReads(op);
    if (reads.empty())
      continue;
    ValueLiveness &result = values[valueIndex.at(op->getResult(0))];
    if (result.storage != Storage::Arena)
      continue;
    for (auto [operand, broadcast] : reads) {
      auto it = valueIndex.find(operand);
      if (broadcast || it == valueIndex.end())
        continue;
      ValueLiveness &in = values[it->second];
      if (in.storage != Storage::Arena || in.handedOn ||
          in.lastUse != result.def ||
          alignToArena(in.bytes) != alignToArena(result.bytes))
        continue;
      in.handedOn = true;
      result.inPlaceOf = operand;
      break;
    }
  }

  // Every arena value occupies its aligned slot over [def, lastUse] (a
  // handed-on one over [def, lastUse - 1]): a difference array turns the
  // intervals into the curve in one pass.
  std::vector<int64_t> delta(schedule.size() + 1, 0);
  for (const ValueLiveness &info : values) {
    if (info.storage != Storage::Arena)
      continue;
    delta[info.def] += alignToArena(info.bytes);
    delta[info.lastUse + (info.handedOn ? 0 : 1)] -= alignToArena(info.bytes);
  }
  liveBytes.resize(schedule.size());
  int64_t live = 0;
  for (size_t i = 0; i < schedule.size(); ++i) {
    live += delta[i];
    liveBytes[i] = live;
    if (live > peakBytes) {
      peakBytes = live;
      peakIndex = static_cast<int64_t>(i);
    }
  }
  return success();
}

ArenaLayout mlir::gnn::placeFirstFit(const StepLiveness &live) {
  // One slot per arena value: an in-place result extends its chain's.
  std::vector<Slot> slots;
  llvm::DenseMap<Value, size_t> slotOf;
  for (const ValueLiveness &info : live.getValues()) {
    if (info.storage != Storage::Arena)
      continue;
    if (info.inPlaceOf) {
      size_t k = slotOf.at(info.inPlaceOf);
      slots[k].end = std::max(slots[k].end, info.lastUse);
      slotOf[info.value] = k;
      continue;
    }
    slotOf[info.value] = slots.size();
    slots.push_back({info.def, info.lastUse, alignToArena(info.bytes)});
  }
  // The live-bytes peak bounds every placement from below: the slots are
  // what the liveness curve counts (a chain of in-place results hands its
  // slot on at the op that takes it over).
  SlotPlacement placed = placeSlots(slots, live.getPeakBytes());
  ArenaLayout layout;
  layout.arenaBytes = placed.arenaBytes;
  for (auto [value, k] : slotOf)
    layout.offsets[value] = placed.offsets[k];
  return layout;
}
