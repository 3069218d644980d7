//===- EmitCpp.cpp - The CPU target: train IR as C++ ----------------------===//
//
// One kernel call per op, each status checked, every tensor at the place
// gnn-assign-buffers chose. Decisions (placement, in-place updates) belong
// to passes; this file only spells them in C++, split by op family: graph
// ops, aggregation, dense, element-wise, train, and the func/arith glue.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CPU/EmitCpp.h"

#include "compiler/Target/CUDA/Kernels.h"
#include "compiler/Target/ElementwiseRuns.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"
#include "dialects/Mem/MemOps.h"
#include "dialects/Train/TrainOps.h"
#include "gnnrt/Kernels.h"
#include "passes/MemoryPlan/Liveness.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// `GCN.step` -> `GCN_step`: any character C identifiers cannot hold
/// becomes `_`.
std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) ? c : '_');
  return out;
}

/// A double that reads back exactly.
std::string literal(double value) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.17g", value);
  return s;
}

/// A float literal that reads back exactly (C++17 hexadecimal).
std::string floatLiteral(float value) {
  std::string s;
  llvm::raw_string_ostream(s)
      << llvm::format("%af", static_cast<double>(value));
  return s;
}

/// The number of hops of gnn.receptive_rows' \p sets for the node tensor
/// \p rows (2 N + hops + 1 integers), which the row kernels check against.
int64_t rowSetsHops(Value sets, Value rows) {
  return gnn::rowSetsHops(cast<RankedTensorType>(sets.getType()).getDimSize(0),
                          cast<RankedTensorType>(rows.getType()).getDimSize(0));
}

/// A row kernel's zero_rest argument: 0 when gnn-restrict-rows found that no
/// op reads the rows of \p op's result outside its set.
std::string zeroRest(Operation *op) {
  return op->hasAttr(kRestUnreadAttr) ? "0" : "1";
}

/// The C type of one element as the runtime stores it.
std::optional<StringRef> elementCType(Type type) {
  if (type.isF32())
    return StringRef("float");
  if (type.isInteger(32))
    return StringRef("int32_t");
  // Booleans a byte each; mem.store_sign's packed bits.
  if (type.isInteger(1) || type.isInteger(8))
    return StringRef("uint8_t");
  // Narrow storage of mem.store_as: bits only, no kernel computes on them.
  if (type.isBF16() || type.isF16())
    return StringRef("uint16_t");
  return std::nullopt;
}

/// The C type a tensor's buffer is declared with. A CSR matrix is one
/// opaque buffer (gnnrt_csr_matrix): only the CSR kernels take it, and a
/// dense kernel given one would not compile.
std::optional<StringRef> bufferCType(RankedTensorType tensor) {
  std::optional<StringRef> element = elementCType(tensor.getElementType());
  if (element && isCsr(tensor))
    return StringRef("void");
  return element;
}

int64_t dim(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}
int64_t numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

/// The bytes of a tensor's buffer, by the planner's one size formula
/// (Liveness.h), which also sized the arena slot it lives in.
std::string bufferBytes(Value v) { return std::to_string(*storageBytes(v)); }

/// The trailing arguments of the runtime's row copies
/// (gnnrt_offload_rows_to_host, gnnrt_prefetch_rows, gnnrt_home_load_rows)
/// for the dense matrix \p v: its rows, the bytes of one, and R_level of
/// \p sets (named \p setsName).
SmallVector<std::string> rowCopyArgs(Value v, Value sets,
                                     const std::string &setsName,
                                     std::optional<uint64_t> level) {
  auto type = cast<RankedTensorType>(v.getType());
  return {std::to_string(type.getDimSize(0)),
          std::to_string(*storageBytes(v) / type.getDimSize(0)), setsName,
          std::to_string(rowSetsHops(sets, v)), std::to_string(*level)};
}

/// The most ops one gnnrt_cpu_fused call takes: GNNRT_FUSED_MAX_OPS of
/// gnnrt/Kernels.h (the runtime rejects a longer table).
constexpr size_t kMaxFusedOps = 32;

/// The packed mem.load_sign \p op (a relu or leaky_relu gradient) reads its
/// input from, or null: such a gradient has a kernel of its own
/// (gnnrt_cpu_activation_grad_sign), outside any fused run.
mem::LoadSignOp packedSignsRead(Operation *op) {
  auto grad = dyn_cast<ActivationGradOp>(op);
  auto load = grad ? grad.getInput().getDefiningOp<mem::LoadSignOp>()
                   : mem::LoadSignOp();
  return load && load.getPacked() ? load : mem::LoadSignOp();
}

/// What gnnrt_cpu_fused computes: the element-wise ops both targets fuse,
/// and dropout of a plain f32 tensor (gnnrt_cpu_fused's tiles are whole
/// Philox blocks).
bool cpuFusible(Operation *op) {
  // A dropout of some columns (mask_columns) indexes its mask by the whole
  // matrix's columns, which a fused chain's tiles do not know.
  auto dropout = dyn_cast<DropoutOp>(op);
  if (dropout && dropout.getMaskColumns())
    return false;
  return (isElementwiseOp(op) || isDenseDropout(op)) && !packedSignsRead(op);
}

class FunctionEmitter {
public:
  FunctionEmitter(func::FuncOp func, llvm::raw_ostream &os,
                  const CppEmitOptions &options)
      : func(func), os(os), options(options) {}

  LogicalResult emit();

private:
  // Names of values as C expressions.
  std::string &name(Value v) { return names[v]; }
  /// The row-set arguments of a restricted kernel: the sets \p sets, their
  /// hops (from their length and the node count of \p rows, a matrix with
  /// a row per node) and R_level's \p level.
  SmallVector<std::string> setArgs(Value sets, Value rows, int64_t level) {
    return {name(sets), std::to_string(rowSetsHops(sets, rows)),
            std::to_string(level)};
  }
  /// A restricted aggregation's `skip`: its input's rows outside R_skip are
  /// zeros whose edges it need not read; hops + 1 (every row read) when it
  /// has none.
  template <typename AggregationOp>
  static std::string skipArg(AggregationOp op) {
    if (std::optional<uint64_t> skip = op.getSkip())
      return std::to_string(*skip);
    return std::to_string(rowSetsHops(op.getRowSets(), op.getResult()) + 1);
  }
  /// An edge kernel's row-set arguments: its sets, their hops (from their
  /// length and the node count of \p graph, whose destinations the level
  /// names) and R_level's level.
  SmallVector<std::string> edgeSetArgs(Operation *op, Value graph) {
    std::optional<RowRestriction> rows = getEdgeRestriction(op);
    int64_t nodes = cast<GraphType>(graph.getType()).getNodes();
    return {name(rows->rowSets),
            std::to_string(gnn::rowSetsHops(
                cast<RankedTensorType>(rows->rowSets.getType()).getDimSize(0),
                nodes)),
            std::to_string(rows->level)};
  }
  /// An edge kernel: \p callee(args..., result), its `_rows` form when
  /// gnn-restrict-rows restricted it (with zero_rest), its `_tiles` form
  /// when its graph is read a tile at a time, or `_rows_tiles` when both
  /// (no zero_rest: it leaves the other edges as they were, and
  /// mem::readsGraphInTiles allows it only for a result whose rest is
  /// unread).
  void callEdgeKernel(Operation *op, StringRef callee, Value graph,
                      SmallVector<std::string> args) {
    std::string result = names[op->getResult(0)];
    if (!getEdgeRestriction(op)) {
      callMaybeTiled(callee, graph, std::move(args), std::move(result));
      return;
    }
    llvm::append_range(args, edgeSetArgs(op, graph));
    auto tile = tileOf.find(graph);
    if (tile == tileOf.end()) {
      args.append({zeroRest(op), std::move(result)});
      call((callee + "_rows").str(), args);
      return;
    }
    args.append({tile->second.first, tile->second.second, std::move(result)});
    callTiled((callee + "_rows_tiles").str(), std::move(args));
  }
  /// Declares result \p index of \p op at its assigned place.
  LogicalResult define(Operation *op, unsigned index);
  LogicalResult defineAll(Operation *op) {
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      if (failed(define(op, i)))
        return failure();
    return success();
  }
  bool cuda() const { return options.target == CppEmitOptions::Target::Cuda; }
  /// "CPU" or "CUDA", for messages.
  StringRef targetName() const { return cuda() ? "CUDA" : "CPU"; }
  /// Prints one checked kernel call. The CUDA target calls the operation
  /// of the same name and arguments in gnnrt/Cuda.h.
  void call(StringRef callee, ArrayRef<std::string> args) {
    os << "  GNNC_CALL(";
    if (cuda() && callee.consume_front("gnnrt_cpu_"))
      os << "gnnrt_cuda_";
    os << callee << "(";
    llvm::interleaveComma(args, os);
    os << "));\n";
  }
  /// Calls a kernel that reads host copies a tile at a time, with \p args
  /// and then the count of the bytes it copies, which go on as bytes from
  /// the host tier.
  void callTiled(StringRef callee, SmallVector<std::string> args) {
    std::string moved = "v" + std::to_string(counter++);
    os << "  int64_t " << moved << " = 0;\n";
    args.push_back("&" + moved);
    call(callee, args);
    call("gnnrt_home_note_loaded", {"tiers", moved});
  }
  /// \p callee(args..., result), or when \p graph (or a product's left
  /// operand) is read from host memory a tile at a time (a
  /// mem.load_graph_home, mem.load_home or mem.prefetch with tile_bytes),
  /// its `_tiles` form, which takes the tile before the result.
  void callMaybeTiled(StringRef callee, Value graph,
                      SmallVector<std::string> args, std::string result) {
    auto tile = tileOf.find(graph);
    if (tile == tileOf.end()) {
      args.push_back(std::move(result));
      call(callee, args);
      return;
    }
    args.push_back(tile->second.first);
    args.push_back(tile->second.second);
    args.push_back(std::move(result));
    callTiled((callee + "_tiles").str(), std::move(args));
  }
  /// Every tensor the op touches is fp32 (or i32 labels, i1 masks).
  LogicalResult checkTypes(Operation *op);
  /// #gnn.csr values only where the CSR kernels take them.
  LogicalResult checkCsr(Operation *op);

  LogicalResult emitOp(Operation *op);
  LogicalResult emitReturn(func::ReturnOp op);
  LogicalResult emitConstant(arith::ConstantOp op);
  /// CUDA: one generated kernel for the element-wise run \p group.
  LogicalResult emitFused(ArrayRef<Operation *> group);
  /// CUDA: the generated kernels computing \p op (cuda::KernelUnit::
  /// generate) with the runs fused into it, launched in order with the
  /// scratch they share.
  LogicalResult emitGenerated(Operation *op);
  /// CUDA: the launches of \p generated (a fused run, a fill, an op's
  /// kernels) in a block of their own, after the scratch they share.
  void printLaunches(const cuda::GeneratedOp &generated);
  /// CUDA: picks the element-wise runs that generated op kernels compute
  /// themselves (prologueOf, epilogueOf, fusedIntoOp).
  void planOpFusions();
  /// Whether \p run, just before \p op, can be computed where \p op reads
  /// its last result: nothing else reads the run's results, and the op's
  /// results may be stored while the run's inputs are read.
  bool prologueFits(Operation *op, ArrayRef<Operation *> run) const;
  /// Whether \p run, just after \p op, can be computed as each element of
  /// the op's result is final: it reads that result element-wise only, and
  /// its results may be stored while the op's operands are read.
  bool epilogueFits(Operation *op, ArrayRef<Operation *> run) const;
  /// CPU: one gnnrt_cpu_fused call for the element-wise run \p group.
  LogicalResult emitFusedCpu(ArrayRef<Operation *> group);
  /// Whether \p v, a result of the run \p inGroup, is read after it
  /// (mem.free of a device buffer prints nothing: not a reader).
  static bool escapes(Value v,
                      const llvm::SmallPtrSetImpl<Operation *> &inGroup) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return !inGroup.contains(user) && !isa<mem::FreeOp>(user);
    });
  }

  func::FuncOp func;
  llvm::raw_ostream &os;
  const CppEmitOptions &options;
  /// The run of two or more ops each fused op belongs to (CUDA:
  /// cuda::fusionGroups, every run; CPU: cpuFusible's runs).
  llvm::DenseMap<Operation *, unsigned> groupOf;
  SmallVector<SmallVector<Operation *>> groups;
  /// CUDA: the groups a generated op kernel computes (never launched on
  /// their own), and the group before or after each such op.
  llvm::DenseSet<unsigned> fusedIntoOp;
  llvm::DenseMap<Operation *, unsigned> prologueOf, epilogueOf;
  /// CUDA: runs of train.adam or train.sgd ops updated by one launch
  /// (cuda::KernelUnit::optimizerGroups), and the run of each of their ops.
  SmallVector<SmallVector<Operation *>> optimizerRuns;
  llvm::DenseMap<Operation *, unsigned> optimizerRunOf;
  llvm::DenseMap<Value, std::string> names;
  llvm::DenseMap<Value, std::string> keySeed, keyStep;
  /// Loads that copy nothing (`tile_bytes`): the value's name is the host
  /// copy; here the device tile its reader copies through, and its bytes.
  llvm::DenseMap<Value, std::pair<std::string, std::string>> tileOf;
  /// Of those, dense matrices whose host copy holds the rows of one set
  /// only, in the sets' order.
  llvm::DenseSet<Value> listedRows;
  unsigned counter = 0;

  // CUDA: copies to and from the host tier run on the copy stream, ordered
  // against the compute stream by events (numbered from 0 per function;
  // the context creates them on first use), so that they overlap the
  // kernels between the copy and the first op that must wait for it.
  /// A copy out of arena bytes that no op may overwrite before it ends (the
  /// slot is free again once it was issued).
  struct PendingOut {
    ArenaBytes bytes;
    unsigned event;
  };
  SmallVector<PendingOut> pendingOut;
  /// Copies into a value that no op may read before they end.
  llvm::MapVector<Value, unsigned> pendingIn;
  unsigned events = 0;
  /// Records a new event on \p stream and returns its number.
  unsigned record(StringRef stream) {
    unsigned event = events++;
    call("gnnrt_cuda_record", {"ctx", stream.str(), std::to_string(event)});
    return event;
  }
  /// Makes \p stream wait for event \p event.
  void wait(StringRef stream, unsigned event) {
    call("gnnrt_cuda_wait", {"ctx", stream.str(), std::to_string(event)});
  }
  /// Makes the compute stream wait for the copies \p ops depend on: those
  /// into a value they read, and those out of bytes they write.
  void waitForCopies(ArrayRef<Operation *> ops);
  /// Makes the compute stream wait for every copy still pending.
  void waitForAllCopies();
  /// CUDA: mem.offload, mem.prefetch and mem.free of a copy.
  LogicalResult emitCudaTransfer(Operation *op);
};

/// The arena bytes \p v occupies, when it has a slot there and its place
/// can be told.
static std::optional<ArenaBytes> arenaRange(Value v) {
  FailureOr<std::optional<ArenaBytes>> bytes = assignedArenaBytes(v);
  return succeeded(bytes) ? *bytes : std::nullopt;
}

void FunctionEmitter::waitForCopies(ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (auto it = pendingIn.find(operand); it != pendingIn.end()) {
        wait("GNNRT_CUDA_COMPUTE", it->second);
        pendingIn.erase(it);
      }
    for (Value result : op->getResults()) {
      std::optional<ArenaBytes> range = arenaRange(result);
      if (!range)
        continue;
      llvm::erase_if(pendingOut, [&](const PendingOut &copy) {
        if (!copy.bytes.overlaps(*range))
          return false;
        wait("GNNRT_CUDA_COMPUTE", copy.event);
        return true;
      });
    }
  }
}

void FunctionEmitter::waitForAllCopies() {
  for (const PendingOut &copy : pendingOut)
    wait("GNNRT_CUDA_COMPUTE", copy.event);
  for (auto &[value, event] : pendingIn)
    wait("GNNRT_CUDA_COMPUTE", event);
  pendingOut.clear();
  pendingIn.clear();
}

LogicalResult FunctionEmitter::emitCudaTransfer(Operation *op) {
  auto i64 = [](int64_t v) { return std::to_string(v); };
  if (auto free = dyn_cast<mem::FreeOp>(op)) {
    // A host block may still be read by a copy in flight: the copy stream
    // runs in order, so whatever reuses the block is copied after it.
    call("gnnrt_offload_free", {"tiers", name(free.getValue())});
    return success();
  }
  auto rowsOrTiles = [&]() {
    return op->emitError()
           << "'" << op->getName()
           << "' of some rows or read a tile at a time is not supported yet "
              "by the CUDA target (gnn-plan-memory with host-reads=false "
              "does not choose it)";
  };
  if (auto offload = dyn_cast<mem::OffloadOp>(op)) {
    auto handle = op->getAttrOfType<IntegerAttr>("mem.handle");
    if (!handle)
      return op->emitError("no mem.handle: the CUDA target needs offloads "
                           "numbered by gnn-plan-memory");
    if (offload.getRowSets())
      return rowsOrTiles();
    Value x = offload.getInput();
    std::string h = i64(handle.getInt()), bytes = bufferBytes(x);
    std::string block = "v" + std::to_string(counter++);
    os << "  void *" << block << " = nullptr;\n";
    if (offload.getTier() == mem::Tier::disk) {
      // Through the context's pinned staging buffer, synchronously; the
      // tiers write the file behind the step.
      call("gnnrt_cuda_staging", {"ctx", bytes, "&" + block});
      call("gnnrt_cuda_copy", {"ctx", block, name(x), bytes});
      call("gnnrt_offload_to_disk", {"tiers", h, block, bytes});
    } else {
      // The copy stream takes x once the kernels computing it are done;
      // the compute stream goes on until an op overwrites x's bytes.
      call("gnnrt_offload_host_reserve", {"tiers", h, bytes, "&" + block});
      unsigned computed = record("GNNRT_CUDA_COMPUTE");
      wait("GNNRT_CUDA_COPY", computed);
      call("gnnrt_cuda_copy_async",
           {"ctx", "GNNRT_CUDA_COPY", block, name(x), bytes});
      unsigned copied = record("GNNRT_CUDA_COPY");
      if (std::optional<ArenaBytes> range = arenaRange(x))
        pendingOut.push_back({*range, copied});
      else
        wait("GNNRT_CUDA_COMPUTE", copied);
    }
    names[offload.getResult()] = h;
    return success();
  }
  auto prefetch = cast<mem::PrefetchOp>(op);
  if (prefetch.getTileBytes() || prefetch.getRowSets())
    return rowsOrTiles();
  auto from = prefetch.getHandle().getDefiningOp<mem::OffloadOp>();
  if (!from)
    return op->emitError("the CUDA target needs the mem.offload of a "
                         "prefetched copy in the same function");
  if (failed(defineAll(op)))
    return failure();
  Value y = prefetch.getResult();
  std::string h = name(prefetch.getHandle()), bytes = bufferBytes(prefetch);
  std::string block = "v" + std::to_string(counter++);
  if (from.getTier() == mem::Tier::disk) {
    os << "  void *" << block << " = nullptr;\n";
    call("gnnrt_cuda_staging", {"ctx", bytes, "&" + block});
    call("gnnrt_prefetch", {"tiers", h, block, bytes});
    call("gnnrt_cuda_copy", {"ctx", names[y], block, bytes});
    return success();
  }
  // Into y's slot once the ops before, which freed it, are done; the
  // compute stream waits only at y's first reader.
  os << "  const void *" << block << " = nullptr;\n";
  call("gnnrt_offload_host_block", {"tiers", h, bytes, "&" + block});
  call("gnnrt_home_note_loaded", {"tiers", bytes});
  unsigned freed = record("GNNRT_CUDA_COMPUTE");
  wait("GNNRT_CUDA_COPY", freed);
  call("gnnrt_cuda_copy_async",
       {"ctx", "GNNRT_CUDA_COPY", names[y], "(void *)" + block, bytes});
  pendingIn[y] = record("GNNRT_CUDA_COPY");
  return success();
}

LogicalResult FunctionEmitter::checkTypes(Operation *op) {
  auto bad = [&](Type t) {
    auto tensor = dyn_cast<TensorType>(t);
    return tensor && !elementCType(tensor.getElementType());
  };
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type t : types)
    if (bad(t))
      return op->emitError()
             << "'" << op->getName() << "' on " << t
             << " is not supported yet by the " << targetName() << " target";
  return success();
}

LogicalResult FunctionEmitter::checkCsr(Operation *op) {
  auto csrAt = [](ValueRange values) {
    return llvm::find_if(values, [](Value v) { return isCsr(v.getType()); }) !=
           values.end();
  };
  if (!csrAt(op->getOperands()) && !csrAt(op->getResults()))
    return success();
  // Dropout keeps the pattern; copies to and from the tiers move the whole
  // buffer, whatever its layout.
  if (isa<DropoutOp, mem::OffloadOp, mem::PrefetchOp, mem::LoadHomeOp,
          mem::StoreHomeOp>(op))
    return success();
  if (auto matmul = dyn_cast<MatmulOp>(op); matmul && !matmul.getTransposeB() &&
                                            !csrAt(op->getResults()) &&
                                            !isCsr(matmul.getRhs().getType()))
    return success();
  return op->emitError() << "'" << op->getName()
                         << "' with a #gnn.csr operand or result is not "
                            "supported yet by the "
                         << targetName() << " target";
}

LogicalResult FunctionEmitter::define(Operation *op, unsigned index) {
  Value result = op->getResult(index);
  std::string var = "v" + std::to_string(counter++);
  auto offsets = op->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
  if (!offsets || offsets.size() != static_cast<int64_t>(op->getNumResults()))
    return op->emitError("no buffer assignment: run gnn-assign-buffers "
                         "before the ")
           << targetName() << " target";
  int64_t offset = offsets[index];
  auto tensor = dyn_cast<RankedTensorType>(result.getType());
  if (!tensor)
    return op->emitError("the ")
           << targetName() << " target cannot place a " << result.getType();
  StringRef ctype = *bufferCType(tensor);
  if (offset >= 0) {
    os << "  " << ctype << " *" << var << " = (" << ctype << " *)(arena + "
       << offset << ");\n";
  } else if (offset == -2) {
    auto slots = op->getAttrOfType<DenseI64ArrayAttr>("gnn.result_slots");
    if (!slots || slots.size() != offsets.size() || slots[index] < 0)
      return op->emitError("gnn.offsets names a result slot that "
                           "gnn.result_slots does not give");
    os << "  " << ctype << " *" << var << " = (" << ctype << " *)results["
       << slots[index] << "];\n";
  } else {
    return op->emitError("a tensor without storage in gnn.offsets");
  }
  names[result] = var;
  return success();
}

LogicalResult FunctionEmitter::emitConstant(arith::ConstantOp op) {
  Value result = op.getResult();
  if (isa<IndexType, IntegerType>(result.getType())) {
    auto attr = cast<IntegerAttr>(op.getValue());
    std::string var = "v" + std::to_string(counter++);
    os << "  const int64_t " << var << " = INT64_C(" << attr.getInt() << ");\n";
    names[result] = var;
    return success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || failed(checkTypes(op)))
    return dense ? failure()
                 : op.emitError("this constant is not supported yet by the ")
                       << targetName() << " target";
  if (failed(define(op, 0)))
    return failure();
  const std::string &var = names[result];
  Type element = dense.getElementType();
  auto value = [&](int64_t i) -> std::string {
    int64_t at = dense.isSplat() ? 0 : i;
    if (isa<FloatType>(element))
      return floatLiteral(dense.getValues<APFloat>()[at].convertToFloat());
    if (element.isInteger(1))
      return dense.getValues<bool>()[at] ? "1" : "0";
    return std::to_string(dense.getValues<APInt>()[at].getSExtValue());
  };
  int64_t n = dense.getNumElements();
  if (cuda()) {
    // The buffer is device memory: a splat is filled by a generated
    // kernel, other constants are copied from a host array.
    StringRef ctype = *elementCType(element);
    if (dense.isSplat()) {
      StringRef kernelType = ctype == "int32_t"   ? "int"
                             : ctype == "uint8_t" ? "unsigned char"
                                                  : "float";
      printLaunches(options.kernels->fill(kernelType, n, value(0), result));
      return success();
    }
    std::string host = var + "_host";
    os << "  static const " << ctype << " " << host << "[] = {";
    for (int64_t i = 0; i < n; ++i)
      os << (i ? ", " : "") << value(i);
    os << "};\n";
    call("gnnrt_cuda_copy", {"ctx", var, host, "sizeof " + host});
    return success();
  }
  if (dense.isSplat()) {
    os << "  for (int64_t i = 0; i < " << n << "; ++i)\n    " << var
       << "[i] = " << value(0) << ";\n";
    return success();
  }
  for (int64_t i = 0; i < n; ++i)
    os << "  " << var << "[" << i << "] = " << value(i) << ";\n";
  return success();
}

LogicalResult FunctionEmitter::emitReturn(func::ReturnOp op) {
  // The copies below read results on the compute stream, and the next
  // call's ops may overwrite the bytes a copy still reads.
  if (cuda())
    waitForAllCopies();
  // Values produced into their slot are already there, and so are those the
  // caller reads from the arena (gnn.result_offsets); anything else (an
  // argument, a value returned twice) is copied.
  auto inArena = func->getAttrOfType<DenseI64ArrayAttr>("gnn.result_offsets");
  for (auto [k, operand] : llvm::enumerate(op.getOperands())) {
    if (inArena && static_cast<int64_t>(k) < inArena.size() && inArena[k] >= 0)
      continue;
    Operation *def = operand.getDefiningOp();
    if (def) {
      auto offsets = def->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
      auto slots = def->getAttrOfType<DenseI64ArrayAttr>("gnn.result_slots");
      unsigned index = cast<OpResult>(operand).getResultNumber();
      if (offsets && slots && offsets[index] == -2 &&
          slots[index] == static_cast<int64_t>(k))
        continue;
    }
    if (isa<GraphType>(operand.getType())) {
      // The struct; its arrays stay where they are (for @M.prepare, in an
      // arena the caller keeps).
      os << "  *(gnnrt_graph *)results[" << k << "] = *" << names[operand]
         << ";\n";
      continue;
    }
    auto tensor = dyn_cast<RankedTensorType>(operand.getType());
    if (!tensor || !elementCType(tensor.getElementType()) || isCsr(tensor))
      return op.emitError("returning ")
             << operand.getType() << " is not supported yet by the "
             << targetName() << " target";
    int64_t bytes = tensor.getNumElements() *
                    (tensor.getElementType().isInteger(1) ? 1 : 4);
    if (cuda()) {
      call("gnnrt_cuda_copy", {"ctx", "results[" + std::to_string(k) + "]",
                               names[operand], std::to_string(bytes)});
      continue;
    }
    os << "  memcpy(results[" << k << "], " << names[operand] << ", " << bytes
       << ");\n";
  }
  // Every spill write has finished and none failed unreported.
  if (auto n = func->getAttrOfType<IntegerAttr>("mem.num_handles");
      n && n.getInt() > 0)
    call("gnnrt_offload_sync", {"tiers"});
  os << "  return GNNRT_OK;\n";
  return success();
}

LogicalResult FunctionEmitter::emitOp(Operation *op) {
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return emitReturn(ret);
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return emitConstant(constant);
  if (failed(checkTypes(op)))
    return failure();
  if (failed(checkCsr(op)))
    return failure();
  if (cuda() &&
      (getAnyRestriction(op) || isa<ReceptiveRowsOp, ReceptiveEdgesOp>(op)))
    return op->emitError()
           << "'" << op->getName()
           << "' with row sets (gnn-restrict-rows) is not supported yet by "
              "the CUDA target";
  if (auto it = groupOf.find(op); it != groupOf.end()) {
    // The run's first op launches the kernel computing all of it.
    ArrayRef<Operation *> group = groups[it->second];
    if (op != group.front() || fusedIntoOp.contains(it->second))
      return success();
    if (!cuda())
      return emitFusedCpu(group);
    waitForCopies(group);
    return emitFused(group);
  }
  if (auto it = optimizerRunOf.find(op); it != optimizerRunOf.end()) {
    // The run's first op launches the update of every parameter of it.
    ArrayRef<Operation *> run = optimizerRuns[it->second];
    if (op != run.front())
      return success();
    waitForCopies(run);
    for (Operation *member : run)
      if (failed(defineAll(member)))
        return failure();
    FailureOr<cuda::GeneratedOp> generated =
        options.kernels->fusedOptimizer(run);
    if (failed(generated))
      return failure();
    printLaunches(*generated);
    return success();
  }
  if (cuda())
    waitForCopies(op);
  if (cuda() &&
      isa<mem::LoadHomeOp, mem::LoadGraphHomeOp, mem::StoreHomeOp>(op))
    return op->emitError()
           << "'" << op->getName()
           << "' is not supported yet by the CUDA target: plans that keep "
              "parameters, optimizer state, features or graph-derived values "
              "in host memory run on the CPU target only (--target=cpu, or a "
              "larger `memory` budget)";
  if (cuda() && isa<mem::StoreSignOp, mem::LoadSignOp>(op))
    return op->emitError()
           << "'" << op->getName()
           << "' is not supported yet by the CUDA target: plans that keep a "
              "tensor as its signs run on the CPU target only (--target=cpu; "
              "gnn-plan-memory with signs=false does not choose them)";
  if (cuda() && (isa<mem::OffloadOp, mem::PrefetchOp>(op) ||
                 (isa<mem::FreeOp>(op) &&
                  isa<mem::OffloadedType>(op->getOperand(0).getType()))))
    return emitCudaTransfer(op);
  auto n = [](Value v) { return std::to_string(numElements(v)); };
  auto d = [](Value v, unsigned i) { return std::to_string(dim(v, i)); };
  auto i64 = [](int64_t v) { return std::to_string(v); };
  auto f64 = [](APFloat v) { return literal(v.convertToDouble()); };
  auto ival = [](auto e) { return std::to_string(static_cast<int>(e)); };
  auto unsupported = [&]() {
    return op->emitError() << "'" << op->getName()
                           << "' is not supported yet by the " << targetName()
                           << " target";
  };

  // Values that are not tensors: graphs, keys, integer scalars.
  // A graph built into its arena slot by \p callee, whose arguments are
  // \p args, then the slot, then the gnnrt_graph it fills.
  auto graphInSlot = [&](StringRef callee,
                         SmallVector<std::string> args) -> LogicalResult {
    auto offsets = op->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
    if (!offsets || offsets.size() != 1 || offsets[0] < 0)
      return op->emitError("no arena storage for the graph: run "
                           "gnn-assign-buffers before the CPU target");
    std::string var = "v" + std::to_string(counter++);
    os << "  gnnrt_graph " << var << ";\n";
    args.push_back("(int32_t *)(arena + " + i64(offsets[0]) + ")");
    args.push_back("&" + var);
    call(callee, args);
    names[op->getResult(0)] = "&" + var;
    return success();
  };
  if (auto loops = dyn_cast<AddSelfLoopsOp>(op))
    return graphInSlot("gnnrt_cpu_add_self_loops", {name(loops.getGraph())});
  if (auto load = dyn_cast<mem::LoadGraphHomeOp>(op);
      load && load.getTileBytes()) {
    // Nothing copied here: gnnrt_cpu_spmm_tiles reads the host copy through
    // the tile, the value's arena slot.
    auto offsets = op->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
    if (!offsets || offsets.size() != 1 || offsets[0] < 0)
      return op->emitError("no arena storage for the graph's tile: run "
                           "gnn-assign-buffers before the CPU target");
    // A copy first: name() refers into `names`, which the insertion may
    // grow.
    std::string home = name(load.getHome());
    names[load.getResult()] = home;
    tileOf[load.getResult()] = {
        "(void *)(arena + " + i64(offsets[0]) + ")",
        i64(static_cast<int64_t>(*load.getTileBytes()))};
    return success();
  }
  if (auto load = dyn_cast<mem::LoadGraphHomeOp>(op))
    // One view of a host-homed graph.
    return graphInSlot("gnnrt_home_load_graph", {"tiers", name(load.getHome()),
                                                 load.getOut() ? "1" : "0"});
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    std::string var = "v" + std::to_string(counter++);
    os << "  const gnnrt_graph " << var << " = gnnrt_graph_transposed(*"
       << name(transpose.getGraph()) << ");\n";
    names[transpose.getResult()] = "&" + var;
    return success();
  }
  if (auto key = dyn_cast<RngKeyOp>(op)) {
    keySeed[key.getResult()] = "(uint64_t)" + name(key.getSeed());
    keyStep[key.getResult()] = "(uint64_t)" + name(key.getStep());
    return success();
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op)) {
    StringRef sign = isa<arith::AddIOp>(op)   ? "+"
                     : isa<arith::SubIOp>(op) ? "-"
                                              : "*";
    std::string var = "v" + std::to_string(counter++);
    os << "  const int64_t " << var << " = " << name(op->getOperand(0)) << " "
       << sign << " " << name(op->getOperand(1)) << ";\n";
    names[op->getResult(0)] = var;
    return success();
  }

  // The memory plan's decisions (gnn-plan-memory): copies to and from the
  // host and disk tiers under the handle the planner numbered, and narrow
  // storage. mem.recompute regions were inlined by mem-expand-recompute.
  if (auto offload = dyn_cast<mem::OffloadOp>(op)) {
    auto handle = op->getAttrOfType<IntegerAttr>("mem.handle");
    if (!handle)
      return op->emitError("no mem.handle: the CPU target needs offloads "
                           "numbered by gnn-plan-memory");
    Value x = offload.getInput();
    if (Value sets = offload.getRowSets()) {
      SmallVector<std::string> args = {"tiers", i64(handle.getInt()), name(x)};
      llvm::append_range(args,
                         rowCopyArgs(x, sets, name(sets), offload.getLevel()));
      call("gnnrt_offload_rows_to_host", args);
    } else {
      call(offload.getTier() == mem::Tier::disk ? "gnnrt_offload_to_disk"
                                                : "gnnrt_offload_to_host",
           {"tiers", i64(handle.getInt()), name(x), bufferBytes(x)});
    }
    names[offload.getResult()] = i64(handle.getInt());
    return success();
  }
  if (auto prefetch = dyn_cast<mem::PrefetchOp>(op)) {
    if (failed(defineAll(op)))
      return failure();
    Value y = prefetch.getResult();
    if (std::optional<uint64_t> tile = prefetch.getTileBytes()) {
      // Nothing copied here: gnnrt_cpu_csr_matmul_tiles reads the host copy
      // through the tile, the value's arena slot.
      // A dense copy of some rows holds those of R_level alone
      // (gnnrt_offload_rows_to_host), which gnnrt_cpu_matmul_tiles reads
      // as listed.
      auto type = cast<RankedTensorType>(y.getType());
      std::string block = "v" + std::to_string(counter++);
      os << "  const void *" << block << " = nullptr;\n";
      if (Value sets = prefetch.getRowSets()) {
        // The value's storage is the tile: its rows' bytes are the type's.
        SmallVector<std::string> args = {
            "tiers", name(prefetch.getHandle()),
            std::to_string(type.getDimSize(0)),
            std::to_string(type.getDimSize(1) * 4)};
        llvm::append_range(args, setArgs(sets, y, *prefetch.getLevel()));
        args.push_back("&" + block);
        call("gnnrt_offload_host_rows_block", args);
        listedRows.insert(y);
      } else {
        auto csr = getCsrEncoding(type);
        call("gnnrt_offload_host_block",
             {"tiers", name(prefetch.getHandle()),
              std::to_string(csr ? gnnrt_csr_matrix_bytes(type.getDimSize(0),
                                                          type.getDimSize(1),
                                                          csr.getNnz())
                                 : type.getNumElements() * 4),
              "&" + block});
      }
      tileOf[y] = {"(void *)" + names[y], std::to_string(*tile)};
      names[y] = block;
      return success();
    }
    if (Value sets = prefetch.getRowSets()) {
      SmallVector<std::string> args = {"tiers", name(prefetch.getHandle()),
                                       names[y]};
      llvm::append_range(args,
                         rowCopyArgs(y, sets, name(sets), prefetch.getLevel()));
      call("gnnrt_prefetch_rows", args);
      return success();
    }
    call("gnnrt_prefetch", {"tiers", name(prefetch.getHandle()), names[y],
                            bufferBytes(prefetch)});
    return success();
  }
  if (auto free = dyn_cast<mem::FreeOp>(op)) {
    // A device buffer's slot is simply not used again (gnn-assign-buffers
    // ended its interval here); a host or disk copy is released.
    if (isa<mem::OffloadedType>(free.getValue().getType()))
      call("gnnrt_offload_free", {"tiers", name(free.getValue())});
    return success();
  }
  // Host homes: the caller's buffer of the argument or result is host
  // memory (the session's host tier), copied in or out here.
  if (isa<mem::LoadHomeOp, mem::StoreHomeOp>(op)) {
    if (failed(defineAll(op)))
      return failure();
    Value result = op->getResult(0);
    if (auto load = dyn_cast<mem::LoadHomeOp>(op);
        load && load.getTileBytes()) {
      // Edge weights its aggregation reads, or a CSR matrix its products
      // read, a tile at a time: nothing here.
      tileOf[result] = {"(void *)" + names[result],
                        std::to_string(*load.getTileBytes())};
      std::string home = name(load.getHome()); // a copy, as above
      names[result] = home;
      return success();
    }
    if (auto load = dyn_cast<mem::LoadHomeOp>(op))
      if (Value sets = load.getRowSets()) {
        SmallVector<std::string> args = {"tiers", names[result],
                                         name(load.getHome())};
        llvm::append_range(
            args, rowCopyArgs(result, sets, name(sets), load.getLevel()));
        call("gnnrt_home_load_rows", args);
        return success();
      }
    call(
        isa<mem::LoadHomeOp>(op) ? "gnnrt_home_load" : "gnnrt_home_store",
        {"tiers", names[result], name(op->getOperand(0)), bufferBytes(result)});
    return success();
  }
  if (isa<mem::StoreAsOp, mem::LoadAsOp>(op)) {
    Value in = op->getOperand(0), result = op->getResult(0);
    Type narrow =
        isa<mem::StoreAsOp>(op)
            ? cast<RankedTensorType>(result.getType()).getElementType()
            : cast<RankedTensorType>(in.getType()).getElementType();
    StringRef width = narrow.isBF16() ? "bf16" : "f16";
    if (failed(defineAll(op)))
      return failure();
    std::string callee = isa<mem::StoreAsOp>(op)
                             ? ("gnnrt_cpu_f32_to_" + width).str()
                             : ("gnnrt_cpu_" + width + "_to_f32").str();
    call(callee, {name(in), names[result], n(in)});
    return success();
  }

  if (auto load = dyn_cast<mem::LoadSignOp>(op); load && load.getPacked()) {
    // Nothing unpacked: the gradients read the bits.
    std::string bits = name(load.getInput());
    names[load.getResult()] = bits;
    return success();
  }
  if (mem::LoadSignOp load = packedSignsRead(op)) {
    auto grad = cast<ActivationGradOp>(op);
    if (failed(defineAll(op)))
      return failure();
    Value x = grad.getInput();
    const int64_t rows = dim(x, 0);
    SmallVector<std::string> args = {ival(grad.getKind()),
                                     name(x),
                                     name(grad.getResultGrad()),
                                     i64(rows),
                                     i64(rows == 0 ? 0 : numElements(x) / rows),
                                     f64(grad.getSlopeAttr().getValue())};
    if (Value sets = grad.getRowSets()) {
      llvm::append_range(args, setArgs(sets, x, *grad.getLevel()));
      args.push_back(zeroRest(op));
    } else
      llvm::append_range(args,
                         SmallVector<std::string>{"nullptr", "0", "0", "0"});
    args.push_back(names[grad.getResult()]);
    call("gnnrt_cpu_activation_grad_sign", args);
    return success();
  }
  if (isa<mem::StoreSignOp, mem::LoadSignOp>(op)) {
    auto store = dyn_cast<mem::StoreSignOp>(op);
    auto load = dyn_cast<mem::LoadSignOp>(op);
    Value in = op->getOperand(0), result = op->getResult(0);
    Value floats = store ? in : result;
    Value sets = store ? store.getRowSets() : load.getRowSets();
    std::optional<uint64_t> level = store ? store.getLevel() : load.getLevel();
    if (failed(defineAll(op)))
      return failure();
    const int64_t rows = dim(floats, 0);
    SmallVector<std::string> args = {
        name(in), std::to_string(rows),
        std::to_string(rows == 0 ? 0 : numElements(floats) / rows)};
    if (sets)
      llvm::append_range(args, setArgs(sets, floats, *level));
    args.push_back(names[result]);
    call((Twine(store ? "gnnrt_cpu_store_sign" : "gnnrt_cpu_load_sign") +
          (sets ? "_rows" : ""))
             .str(),
         args);
    return success();
  }

  // Everything else is one kernel writing tensors at their places.
  bool known =
      isa<EdgeNormOp, ReceptiveRowsOp, ReceptiveEdgesOp, SpmmOp, SpmmMaxGradOp,
          SddmmOp, GatherOp, EdgeAddOp, ScatterOp, EdgeSoftmaxOp,
          EdgeSoftmaxGradOp, MatmulOp, BiasAddOp, RowMulOp, ReduceOp,
          HeadMatrixOp, ZerosOp, AddOp, SubOp, MulOp, ScaleOp, ActivationOp,
          ActivationGradOp, DropoutOp, ConcatOp, SliceOp, InsertColumnsOp,
          NormalizeOp, NormalizeGradOp, train::InitOp, train::CrossEntropyOp,
          train::CrossEntropyGradOp, train::AdamOp, train::SgdOp>(op);
  if (!known)
    return unsupported();
  // Element-wise ops with row sets are fused runs (above); any other op
  // here that has them has its own row kernel below.
  if (getRowRestriction(op) &&
      !isa<SpmmOp, MatmulOp, DropoutOp, ReduceOp, SliceOp, InsertColumnsOp,
           ScatterOp, ConcatOp>(op))
    return op->emitError() << "'" << op->getName()
                           << "' with row sets is not supported by the "
                           << targetName()
                           << " target unless it is fused (plain f32 tensors)";
  if (failed(defineAll(op)))
    return failure();
  if (cuda() && options.generatedOpKernels &&
      cuda::KernelUnit::generates(op, op->getPrevNode()))
    return emitGenerated(op);
  auto out = [&](unsigned i = 0) { return names[op->getResult(i)]; };
  // A column copy (gnn.slice, gnn.insert_columns): \p callee, or its _rows
  // kernel with the op's row sets (and zero_rest where it takes one).
  auto columnsCall = [&](StringRef callee, SmallVector<std::string> args,
                         bool zeroRestArg) {
    std::optional<RowRestriction> rows = getRowRestriction(op);
    if (rows) {
      llvm::append_range(args,
                         setArgs(rows->rowSets, op->getResult(0), rows->level));
      if (zeroRestArg)
        args.push_back(zeroRest(op));
    }
    args.push_back(out());
    call(rows ? (callee + "_rows").str() : callee.str(), args);
    return success();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // Aggregation over the graph.
      .Case([&](EdgeNormOp o) {
        call("gnnrt_cpu_edge_norm",
             {name(o.getGraph()), ival(o.getKind()), out()});
        return success();
      })
      // The searches read a graph left in host memory through a tile.
      .Case([&](ReceptiveRowsOp o) {
        callMaybeTiled(
            "gnnrt_cpu_receptive_rows", o.getGraph(),
            {name(o.getGraph()), name(o.getMask()), i64(o.getHops())}, out());
        return success();
      })
      .Case([&](ReceptiveEdgesOp o) {
        int64_t nodes = o.getGraph().getType().getNodes();
        callMaybeTiled("gnnrt_cpu_receptive_edges", o.getGraph(),
                       {name(o.getGraph()), name(o.getSets()),
                        i64(gnn::rowSetsHops(dim(o.getSets(), 0), nodes)),
                        i64(o.getHops())},
                       out());
        return success();
      })
      .Case([&](SpmmOp o) {
        Value w = o.getWeights();
        if (auto tile = tileOf.find(o.getGraph()); tile != tileOf.end()) {
          // The graph (and maybe its weights) read from host memory a tile
          // at a time; the bytes copied count as bytes from the host tier.
          auto weightTile = w ? tileOf.find(w) : tileOf.end();
          bool tiledWeights = weightTile != tileOf.end();
          std::string heads =
              w && cast<RankedTensorType>(w.getType()).getRank() == 2 ? d(w, 1)
                                                                      : "1";
          SmallVector<std::string> sets = {"nullptr", "0", "0", "0", "0"};
          if (Value rs = o.getRowSets()) {
            sets = setArgs(rs, o.getResult(), *o.getLevel());
            sets.append({skipArg(o), zeroRest(op)});
          }
          SmallVector<std::string> args = {
              name(o.getGraph()), ival(o.getAggr()),       name(o.getInput()),
              d(o.getInput(), 1), w ? name(w) : "nullptr", heads};
          llvm::append_range(args, sets);
          llvm::append_range(
              args, SmallVector<std::string>{
                        tile->second.first, tile->second.second,
                        tiledWeights ? weightTile->second.first : "nullptr",
                        tiledWeights ? weightTile->second.second : "0", out()});
          callTiled("gnnrt_cpu_spmm_tiles", std::move(args));
          return success();
        }
        if (Value sets = o.getRowSets()) {
          // Weights per head (GAT's attention) have their own kernel;
          // [E, 1] weights are laid out as [E].
          bool perHead = w &&
                         cast<RankedTensorType>(w.getType()).getRank() == 2 &&
                         cast<RankedTensorType>(w.getType()).getDimSize(1) != 1;
          SmallVector<std::string> args = {
              name(o.getGraph()), ival(o.getAggr()), name(o.getInput()),
              d(o.getInput(), 1), w ? name(w) : "nullptr"};
          if (perHead)
            args.push_back(d(w, 1));
          llvm::append_range(args, setArgs(sets, o.getResult(), *o.getLevel()));
          args.append({skipArg(o), zeroRest(op), out()});
          call(perHead ? "gnnrt_cpu_spmm_heads_rows" : "gnnrt_cpu_spmm_rows",
               args);
          return success();
        }
        std::string heads =
            w && cast<RankedTensorType>(w.getType()).getRank() == 2 ? d(w, 1)
                                                                    : "1";
        call("gnnrt_cpu_spmm",
             {name(o.getGraph()), ival(o.getAggr()), name(o.getInput()),
              d(o.getInput(), 1), w ? name(w) : "nullptr", heads, out()});
        return success();
      })
      .Case([&](SpmmMaxGradOp o) {
        call("gnnrt_cpu_spmm_max_grad",
             {name(o.getGraph()), name(o.getInput()), name(o.getResultGrad()),
              d(o.getInput(), 1), out()});
        return success();
      })
      .Case([&](SddmmOp o) {
        SmallVector<std::string> args = {name(o.getGraph()), name(o.getLhs()),
                                         name(o.getRhs()), d(o.getLhs(), 1),
                                         i64(o.getHeads())};
        callEdgeKernel(op, "gnnrt_cpu_sddmm", o.getGraph(), std::move(args));
        return success();
      })
      .Case([&](GatherOp o) {
        call("gnnrt_cpu_gather",
             {name(o.getGraph()), ival(o.getEnd()), name(o.getInput()),
              d(o.getInput(), 1), out()});
        return success();
      })
      .Case([&](EdgeAddOp o) {
        callEdgeKernel(op, "gnnrt_cpu_edge_add", o.getGraph(),
                       {name(o.getGraph()), name(o.getSrcInput()),
                        name(o.getDstInput()), d(o.getSrcInput(), 1)});
        return success();
      })
      .Case([&](ScatterOp o) {
        SmallVector<std::string> args = {name(o.getGraph()), ival(o.getEnd()),
                                         name(o.getInput()),
                                         d(o.getInput(), 1)};
        if (Value sets = o.getRowSets()) {
          llvm::append_range(args, setArgs(sets, o.getResult(), *o.getLevel()));
          args.append({skipArg(o), zeroRest(op)});
          if (auto tile = tileOf.find(o.getGraph()); tile != tileOf.end()) {
            args.append({tile->second.first, tile->second.second, out()});
            callTiled("gnnrt_cpu_scatter_rows_tiles", std::move(args));
            return success();
          }
        }
        args.push_back(out());
        call(o.getRowSets() ? "gnnrt_cpu_scatter_rows" : "gnnrt_cpu_scatter",
             args);
        return success();
      })
      .Case([&](EdgeSoftmaxOp o) {
        callEdgeKernel(
            op, "gnnrt_cpu_edge_softmax", o.getGraph(),
            {name(o.getGraph()), name(o.getInput()), d(o.getInput(), 1)});
        return success();
      })
      .Case([&](EdgeSoftmaxGradOp o) {
        callEdgeKernel(op, "gnnrt_cpu_edge_softmax_grad", o.getGraph(),
                       {name(o.getGraph()), name(o.getOutput()),
                        name(o.getResultGrad()), d(o.getOutput(), 1)});
        return success();
      })
      // Dense.
      .Case([&](MatmulOp o) {
        Value result = o.getResult();
        auto csr = getCsrEncoding(o.getLhs().getType());
        // The leading arguments of every gnnrt_cpu_csr_matmul* call: the CSR
        // left operand, its transpose flag, and the dense right one.
        auto csrProductArgs = [&]() -> SmallVector<std::string> {
          return {name(o.getLhs()),
                  d(o.getLhs(), 0),
                  d(o.getLhs(), 1),
                  i64(csr.getNnz()),
                  o.getTransposeA() ? "1" : "0",
                  name(o.getRhs()),
                  d(result, 1)};
        };
        if (auto tile = tileOf.find(o.getLhs()); tile != tileOf.end() && !csr) {
          // A dense left operand read from host memory a tile of rows at a
          // time; the bytes copied count as bytes from the host tier.
          SmallVector<std::string> sets = {"nullptr", "0", "0", "0", "0"};
          if (Value rs = o.getRowSets()) {
            sets = setArgs(rs, o.getLhs(), *o.getLevel());
            sets.append(
                {listedRows.contains(o.getLhs()) ? "1" : "0", zeroRest(op)});
          }
          SmallVector<std::string> args = {
              "(const float *)" + name(o.getLhs()),
              name(o.getRhs()),
              d(result, 0),
              d(result, 1),
              d(o.getLhs(), o.getTransposeA() ? 0 : 1),
              o.getTransposeA() ? "1" : "0",
              o.getTransposeB() ? "1" : "0"};
          llvm::append_range(args, sets);
          callMaybeTiled("gnnrt_cpu_matmul", o.getLhs(), std::move(args),
                         out());
          return success();
        }
        if (auto tile = tileOf.find(o.getLhs()); tile != tileOf.end()) {
          // The CSR matrix read from host memory a tile at a time; the
          // bytes copied count as bytes from the host tier.
          SmallVector<std::string> sets = {"nullptr", "0", "0", "0"};
          if (Value rs = o.getRowSets()) {
            sets = setArgs(rs, o.getLhs(), *o.getLevel());
            sets.push_back(zeroRest(op));
          }
          SmallVector<std::string> args = csrProductArgs();
          llvm::append_range(args, sets);
          callMaybeTiled("gnnrt_cpu_csr_matmul", o.getLhs(), std::move(args),
                         out());
          return success();
        }
        if (Value sets = o.getRowSets(); sets && csr) {
          SmallVector<std::string> args = csrProductArgs();
          llvm::append_range(args, setArgs(sets, o.getLhs(), *o.getLevel()));
          args.append({zeroRest(op), out()});
          call("gnnrt_cpu_csr_matmul_rows", args);
          return success();
        }
        if (csr) {
          SmallVector<std::string> args = csrProductArgs();
          args.push_back(out());
          call("gnnrt_cpu_csr_matmul", args);
          return success();
        }
        std::string k = d(o.getLhs(), o.getTransposeA() ? 0 : 1);
        if (Value sets = o.getRowSets()) {
          SmallVector<std::string> args = {name(o.getLhs()),
                                           name(o.getRhs()),
                                           d(result, 0),
                                           d(result, 1),
                                           k,
                                           o.getTransposeA() ? "1" : "0",
                                           o.getTransposeB() ? "1" : "0"};
          llvm::append_range(args, setArgs(sets, o.getLhs(), *o.getLevel()));
          args.append({zeroRest(op), out()});
          call("gnnrt_cpu_matmul_rows", args);
          return success();
        }
        call("gnnrt_cpu_matmul",
             {name(o.getLhs()), name(o.getRhs()), d(result, 0), d(result, 1), k,
              o.getTransposeA() ? "1" : "0", o.getTransposeB() ? "1" : "0",
              out()});
        return success();
      })
      .Case([&](BiasAddOp o) {
        call("gnnrt_cpu_bias_add",
             {name(o.getInput()), name(o.getBias()), d(o.getInput(), 0),
              d(o.getInput(), 1), out()});
        return success();
      })
      .Case([&](RowMulOp o) {
        call("gnnrt_cpu_row_mul",
             {name(o.getInput()), name(o.getScale()), d(o.getInput(), 0),
              d(o.getInput(), 1), out()});
        return success();
      })
      .Case([&](ReduceOp o) {
        if (Value sets = o.getRowSets()) {
          SmallVector<std::string> args = {
              ival(o.getKind()), name(o.getInput()), d(o.getInput(), 0),
              d(o.getInput(), 1)};
          llvm::append_range(args, setArgs(sets, o.getInput(), *o.getLevel()));
          args.push_back(out());
          call("gnnrt_cpu_reduce_rows", args);
          return success();
        }
        call("gnnrt_cpu_reduce",
             {ival(o.getKind()), name(o.getInput()), d(o.getInput(), 0),
              d(o.getInput(), 1), i64(o.getDim()), out()});
        return success();
      })
      .Case([&](HeadMatrixOp o) {
        call("gnnrt_cpu_head_matrix",
             {ival(o.getKind()), i64(o.getHeads()), i64(o.getWidth()), out()});
        return success();
      })
      .Case([&](ZerosOp o) {
        call("gnnrt_cpu_zeros", {out(), n(o.getResult())});
        return success();
      })
      .Case([&](ConcatOp o) {
        std::string inputs = out() + "_inputs", widths = out() + "_widths";
        os << "  const float *const " << inputs << "[] = {";
        llvm::interleaveComma(o.getInputs(), os,
                              [&](Value v) { os << name(v); });
        os << "};\n  const int64_t " << widths << "[] = {";
        llvm::interleaveComma(o.getInputs(), os,
                              [&](Value v) { os << dim(v, 1); });
        os << "};\n";
        return columnsCall(
            "gnnrt_cpu_concat",
            {inputs, widths, i64(o.getInputs().size()), d(o.getResult(), 0)},
            /*zeroRestArg=*/true);
      })
      .Case([&](SliceOp o) {
        return columnsCall("gnnrt_cpu_slice",
                           {name(o.getInput()), d(o.getInput(), 0),
                            d(o.getInput(), 1), i64(o.getOffset()),
                            d(o.getResult(), 1)},
                           /*zeroRestArg=*/true);
      })
      .Case([&](InsertColumnsOp o) {
        return columnsCall("gnnrt_cpu_insert_columns",
                           {name(o.getInput()), name(o.getBlock()),
                            d(o.getInput(), 0), d(o.getInput(), 1),
                            i64(o.getOffset()), d(o.getBlock(), 1)},
                           /*zeroRestArg=*/false);
      })
      .Case([&](NormalizeOp o) {
        call("gnnrt_cpu_normalize",
             {name(o.getInput()), d(o.getInput(), 0), d(o.getInput(), 1),
              i64(o.getDim()), f64(o.getEpsAttr().getValue()), out()});
        return success();
      })
      .Case([&](NormalizeGradOp o) {
        call("gnnrt_cpu_normalize_grad",
             {name(o.getInput()), name(o.getResultGrad()), d(o.getInput(), 0),
              d(o.getInput(), 1), i64(o.getDim()),
              f64(o.getEpsAttr().getValue()), out()});
        return success();
      })
      // Element-wise.
      .Case<AddOp, SubOp, MulOp>([&](auto o) {
        StringRef callee = isa<AddOp>(op)   ? "gnnrt_cpu_add"
                           : isa<SubOp>(op) ? "gnnrt_cpu_sub"
                                            : "gnnrt_cpu_mul";
        call(callee,
             {name(o.getLhs()), name(o.getRhs()), n(o.getResult()), out()});
        return success();
      })
      .Case([&](ScaleOp o) {
        call("gnnrt_cpu_scale", {name(o.getInput()), n(o.getInput()),
                                 f64(o.getFactorAttr().getValue()), out()});
        return success();
      })
      .Case([&](ActivationOp o) {
        call("gnnrt_cpu_activation",
             {ival(o.getKind()), name(o.getInput()), n(o.getInput()),
              f64(o.getSlopeAttr().getValue()), out()});
        return success();
      })
      .Case([&](ActivationGradOp o) {
        call("gnnrt_cpu_activation_grad",
             {ival(o.getKind()), name(o.getInput()), name(o.getResultGrad()),
              n(o.getInput()), f64(o.getSlopeAttr().getValue()), out()});
        return success();
      })
      .Case([&](DropoutOp o) {
        std::optional<ArrayRef<int64_t>> mask = o.getMaskColumns();
        if (Value sets = o.getRowSets()) {
          if (mask) {
            // Some columns' masks (a GAT head's attention) at R_level's
            // rows: its edges, when the sets are gnn.receptive_edges'.
            SmallVector<std::string> args = {name(o.getInput()),
                                             d(o.getInput(), 0),
                                             d(o.getInput(), 1),
                                             i64((*mask)[0]),
                                             i64((*mask)[1]),
                                             keySeed[o.getKey()],
                                             keyStep[o.getKey()],
                                             "UINT64_C(" + i64(o.getStream()) +
                                                 ")",
                                             f64(o.getPAttr().getValue())};
            llvm::append_range(args,
                               setArgs(sets, o.getInput(), *o.getLevel()));
            args.push_back(zeroRest(op));
            args.push_back(out());
            call("gnnrt_cpu_dropout_columns_rows", args);
            return success();
          }
          auto csr = getCsrEncoding(o.getInput().getType());
          if (!csr)
            return LogicalResult(unsupported());
          SmallVector<std::string> args = {name(o.getInput()),
                                           d(o.getInput(), 0),
                                           d(o.getInput(), 1),
                                           i64(csr.getNnz()),
                                           keySeed[o.getKey()],
                                           keyStep[o.getKey()],
                                           "UINT64_C(" + i64(o.getStream()) +
                                               ")",
                                           f64(o.getPAttr().getValue())};
          llvm::append_range(args, setArgs(sets, o.getInput(), *o.getLevel()));
          args.push_back(out());
          call("gnnrt_cpu_csr_dropout_rows", args);
          return success();
        }
        if (auto csr = getCsrEncoding(o.getInput().getType())) {
          call("gnnrt_cpu_csr_dropout",
               {name(o.getInput()), d(o.getInput(), 0), d(o.getInput(), 1),
                i64(csr.getNnz()), keySeed[o.getKey()], keyStep[o.getKey()],
                "UINT64_C(" + i64(o.getStream()) + ")",
                f64(o.getPAttr().getValue()), out()});
          return success();
        }
        if (mask) {
          call("gnnrt_cpu_dropout_columns",
               {name(o.getInput()), d(o.getInput(), 0), d(o.getInput(), 1),
                i64((*mask)[0]), i64((*mask)[1]), keySeed[o.getKey()],
                keyStep[o.getKey()], "UINT64_C(" + i64(o.getStream()) + ")",
                f64(o.getPAttr().getValue()), out()});
          return success();
        }
        call("gnnrt_cpu_dropout",
             {name(o.getInput()), n(o.getInput()), keySeed[o.getKey()],
              keyStep[o.getKey()], "UINT64_C(" + i64(o.getStream()) + ")",
              f64(o.getPAttr().getValue()), out()});
        return success();
      })
      // train.
      .Case([&](train::InitOp o) {
        call("gnnrt_cpu_init",
             {ival(o.getKind()), "(uint64_t)" + name(o.getSeed()),
              "UINT64_C(" + i64(o.getStream()) + ")", i64(o.getFanIn()),
              i64(o.getFanOut()), n(o.getResult()), out()});
        return success();
      })
      .Case([&](train::CrossEntropyOp o) {
        call("gnnrt_cpu_cross_entropy",
             {name(o.getLogits()), name(o.getLabels()), name(o.getMask()),
              d(o.getLogits(), 0), d(o.getLogits(), 1),
              f64(o.getLabelSmoothingAttr().getValue()),
              ival(o.getClassWeights()), out()});
        return success();
      })
      .Case([&](train::CrossEntropyGradOp o) {
        call("gnnrt_cpu_cross_entropy_grad",
             {name(o.getLogits()), name(o.getLabels()), name(o.getMask()),
              name(o.getLossGrad()), d(o.getLogits(), 0), d(o.getLogits(), 1),
              f64(o.getLabelSmoothingAttr().getValue()),
              ival(o.getClassWeights()), out()});
        return success();
      })
      .Case([&](train::AdamOp o) {
        call("gnnrt_cpu_adam",
             {name(o.getParam()), name(o.getGrad()), name(o.getM()),
              name(o.getV()), n(o.getParam()), name(o.getStep()),
              f64(o.getLrAttr().getValue()), f64(o.getBeta1Attr().getValue()),
              f64(o.getBeta2Attr().getValue()), f64(o.getEpsAttr().getValue()),
              f64(o.getWeightDecayAttr().getValue()),
              o.getDecoupled() ? "1" : "0", out(0), out(1), out(2)});
        return success();
      })
      .Case([&](train::SgdOp o) {
        Value buffer = o.getMomentumBuffer();
        call("gnnrt_cpu_sgd", {name(o.getParam()), name(o.getGrad()),
                               buffer ? name(buffer) : "nullptr",
                               n(o.getParam()), f64(o.getLrAttr().getValue()),
                               f64(o.getMomentumAttr().getValue()),
                               f64(o.getWeightDecayAttr().getValue()),
                               o.getNesterov() ? "1" : "0", out(0),
                               op->getNumResults() > 1 ? out(1) : "nullptr"});
        return success();
      })
      .Default([&](Operation *) { return unsupported(); });
}

LogicalResult FunctionEmitter::emitFused(ArrayRef<Operation *> group) {
  llvm::SmallPtrSet<Operation *, 8> inGroup(group.begin(), group.end());
  FailureOr<cuda::GeneratedOp> launch = options.kernels->fuse(
      group, [&](Value v) { return escapes(v, inGroup); });
  if (failed(launch))
    return failure();
  for (Value out : launch->stored)
    if (failed(
            define(out.getDefiningOp(), cast<OpResult>(out).getResultNumber())))
      return failure();
  printLaunches(*launch);
  return success();
}

bool FunctionEmitter::prologueFits(Operation *op,
                                   ArrayRef<Operation *> run) const {
  Value operand = cuda::KernelUnit::prologueOperand(op);
  if (!cuda::KernelUnit::fusibleIntoOp(run) ||
      run.back()->getResult(0) != operand ||
      llvm::count(op->getOperands(), operand) != 1)
    return false;
  llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
  for (Operation *member : run)
    for (Operation *user : member->getResult(0).getUsers())
      if (user != op && !inRun.contains(user) && !isa<mem::FreeOp>(user))
        return false;
  // The edge softmax kernels read and write an [E, H] element in one
  // thread; a reduction writes a smaller result, which must lie apart.
  const bool sameElements = isa<EdgeSoftmaxOp, EdgeSoftmaxGradOp>(op);
  for (Operation *member : run)
    for (auto [in, broadcast] : elementwiseReads(member)) {
      if (in.getDefiningOp() && inRun.contains(in.getDefiningOp()))
        continue;
      for (Value out : op->getResults())
        if (!buffersAllowOnePass(
                in, sameElements && !broadcast && in.getType() == out.getType(),
                out))
          return false;
    }
  return true;
}

bool FunctionEmitter::epilogueFits(Operation *op,
                                   ArrayRef<Operation *> run) const {
  Value result = op->getResult(0);
  if (!cuda::KernelUnit::fusibleIntoOp(run) ||
      !cuda::KernelUnit::acceptsEpilogue(op) ||
      run.front()->getResult(0).getType() != result.getType())
    return false;
  bool reads = false;
  for (Operation *member : run)
    for (auto [in, broadcast] : elementwiseReads(member))
      if (in == result) {
        if (broadcast)
          return false;
        reads = true;
      }
  if (!reads)
    return false;
  for (Operation *member : run)
    for (Value out : member->getResults()) {
      for (Value in : op->getOperands())
        if (isa<RankedTensorType>(in.getType()) &&
            !buffersAllowOnePass(in, in.getType() == out.getType(), out))
          return false;
      if (!buffersAllowOnePass(result, true, out))
        return false;
    }
  return true;
}

void FunctionEmitter::planOpFusions() {
  for (Operation &each : func.getBody().front()) {
    Operation *op = &each;
    if (!cuda::KernelUnit::generates(op, op->getPrevNode()))
      continue;
    Value operand = cuda::KernelUnit::prologueOperand(op);
    Operation *before = op->getPrevNode();
    if (auto it = before ? groupOf.find(before) : groupOf.end();
        operand && it != groupOf.end() && groups[it->second].back() == before &&
        !fusedIntoOp.contains(it->second) &&
        prologueFits(op, groups[it->second])) {
      prologueOf[op] = it->second;
      fusedIntoOp.insert(it->second);
    }
    Operation *after = op->getNextNode();
    if (auto it = after ? groupOf.find(after) : groupOf.end();
        it != groupOf.end() && groups[it->second].front() == after &&
        !fusedIntoOp.contains(it->second) &&
        epilogueFits(op, groups[it->second])) {
      epilogueOf[op] = it->second;
      fusedIntoOp.insert(it->second);
    }
  }
}

LogicalResult FunctionEmitter::emitGenerated(Operation *op) {
  ArrayRef<Operation *> prologue, epilogue;
  if (auto it = prologueOf.find(op); it != prologueOf.end())
    prologue = groups[it->second];
  if (auto it = epilogueOf.find(op); it != epilogueOf.end())
    epilogue = groups[it->second];
  llvm::SmallPtrSet<Operation *, 8> inKernel(prologue.begin(), prologue.end());
  inKernel.insert(epilogue.begin(), epilogue.end());
  inKernel.insert(op);
  auto escapesKernel = [&](Value v) { return escapes(v, inKernel); };
  waitForCopies(prologue);
  waitForCopies(epilogue);
  // The epilogue's stored results are named before the launch.
  for (Operation *member : epilogue)
    if (escapesKernel(member->getResult(0)) && failed(define(member, 0)))
      return failure();
  FailureOr<cuda::GeneratedOp> generated =
      options.kernels->generate(op, prologue, epilogue, escapesKernel);
  if (failed(generated))
    return failure();
  printLaunches(*generated);
  return success();
}

void FunctionEmitter::printLaunches(const cuda::GeneratedOp &generated) {
  os << "  {\n";
  if (generated.scratchBytes > 0) {
    os << "    char *gnnc_scratch = nullptr;\n  ";
    call("gnnrt_cuda_scratch", {"ctx", std::to_string(generated.scratchBytes),
                                "(void **)&gnnc_scratch"});
  }
  for (const cuda::KernelStep &step : generated.steps) {
    os << "    {\n";
    std::string params;
    for (auto [k, arg] : llvm::enumerate(step.args)) {
      std::string expr;
      switch (arg.kind) {
      case cuda::KernelArg::Kind::Tensor:
        expr = name(arg.value);
        break;
      case cuda::KernelArg::Kind::Indptr:
        expr = name(arg.value) + "->in.indptr";
        break;
      case cuda::KernelArg::Kind::EdgeId:
        expr = name(arg.value) + "->in.edge_id";
        break;
      case cuda::KernelArg::Kind::Scratch:
        expr = "(" + arg.ctype + ")(gnnc_scratch + " +
               std::to_string(arg.offset) + ")";
        break;
      case cuda::KernelArg::Kind::BiasCorrection:
        // adamConstants' 1 - pow(beta, step), with the same pow.
        expr = "1.0 - pow(" + literal(arg.base) + ", (double)" +
               name(arg.value) + ")";
        break;
      case cuda::KernelArg::Kind::KeySeed:
        expr = keySeed[arg.value];
        break;
      case cuda::KernelArg::Kind::KeyStep:
        expr = keyStep[arg.value];
        break;
      case cuda::KernelArg::Kind::Literal:
        expr = arg.literal;
        break;
      }
      std::string var = "gnnc_p" + std::to_string(k);
      os << "      " << arg.ctype << var << " = " << expr << ";\n";
      params += (k ? ", &" : "&") + var;
    }
    os << "      void *gnnc_params[] = {" << params << "};\n    ";
    call("gnnrt_cuda_launch",
         {"ctx", "&gnnc_kernels", "\"" + step.kernel + "\"",
          std::to_string(step.items), "gnnc_params"});
    os << "    }\n";
  }
  os << "  }\n";
}

LogicalResult FunctionEmitter::emitFusedCpu(ArrayRef<Operation *> group) {
  llvm::SmallPtrSet<Operation *, 8> inGroup(group.begin(), group.end());
  // Value numbers (gnnrt_fused_op): the inputs in order of first use, then
  // the ops' results.
  SmallVector<Value> inputs;
  llvm::DenseMap<Value, int> number;
  for (Operation *op : group)
    for (auto [v, broadcast] : elementwiseReads(op)) {
      Operation *def = v.getDefiningOp();
      if ((!def || !inGroup.contains(def)) && !number.count(v)) {
        number[v] = inputs.size();
        inputs.push_back(v);
      }
    }
  for (auto [k, op] : llvm::enumerate(group))
    number[op->getResult(0)] = inputs.size() + k;

  SmallVector<Value> outputs;
  for (Operation *op : group)
    if (escapes(op->getResult(0), inGroup)) {
      if (failed(define(op, 0)))
        return failure();
      outputs.push_back(op->getResult(0));
    }

  auto f64 = [](APFloat v) { return literal(v.convertToDouble()); };
  os << "  {\n    const gnnrt_fused_op gnnc_ops[] = {\n";
  for (Operation *op : group) {
    // One gnnrt_fused_op; the fields an op's kind does not read stay as
    // here.
    StringRef kind;
    int activation = 0;
    Value a, b;
    std::string param = "0", seed = "0", step = "0", stream = "0";
    bool known = llvm::TypeSwitch<Operation *, bool>(op)
                     .Case<AddOp, SubOp, MulOp>([&](auto o) {
                       kind = isa<AddOp>(op)   ? "GNNRT_FUSED_ADD"
                              : isa<SubOp>(op) ? "GNNRT_FUSED_SUB"
                                               : "GNNRT_FUSED_MUL";
                       a = o.getLhs();
                       b = o.getRhs();
                       return true;
                     })
                     .Case([&](ScaleOp o) {
                       kind = "GNNRT_FUSED_SCALE";
                       a = o.getInput();
                       param = f64(o.getFactorAttr().getValue());
                       return true;
                     })
                     .Case([&](ActivationOp o) {
                       kind = "GNNRT_FUSED_ACTIVATION";
                       activation = static_cast<int>(o.getKind());
                       a = o.getInput();
                       param = f64(o.getSlopeAttr().getValue());
                       return true;
                     })
                     .Case([&](ActivationGradOp o) {
                       kind = "GNNRT_FUSED_ACTIVATION_GRAD";
                       activation = static_cast<int>(o.getKind());
                       a = o.getInput();
                       b = o.getResultGrad();
                       param = f64(o.getSlopeAttr().getValue());
                       return true;
                     })
                     .Case([&](BiasAddOp o) {
                       kind = "GNNRT_FUSED_BIAS_ADD";
                       a = o.getInput();
                       b = o.getBias();
                       return true;
                     })
                     .Case([&](RowMulOp o) {
                       kind = "GNNRT_FUSED_ROW_MUL";
                       a = o.getInput();
                       b = o.getScale();
                       return true;
                     })
                     .Case([&](ZerosOp) {
                       kind = "GNNRT_FUSED_ZEROS";
                       return true;
                     })
                     .Case([&](DropoutOp o) {
                       kind = "GNNRT_FUSED_DROPOUT";
                       a = o.getInput();
                       param = f64(o.getPAttr().getValue());
                       seed = keySeed[o.getKey()];
                       step = keyStep[o.getKey()];
                       stream =
                           "UINT64_C(" + std::to_string(o.getStream()) + ")";
                       return true;
                     })
                     .Default([](Operation *) { return false; });
    if (!known)
      return op->emitError("not an op the CPU target fuses");
    auto operand = [&](Value v) { return v ? number.lookup(v) : -1; };
    os << llvm::formatv("      {{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}, // ",
                        kind, activation, operand(a), operand(b), param, seed,
                        step, stream)
       << op->getName().stripDialect() << "\n";
  }
  os << "    };\n";
  auto type = cast<RankedTensorType>(group.front()->getResult(0).getType());
  int64_t cols = type.getRank() == 0 ? 1 : type.getShape().back();
  std::string in = "nullptr", out = "nullptr", values = "nullptr";
  if (!inputs.empty()) {
    os << "    const float *const gnnc_in[] = {";
    llvm::interleaveComma(inputs, os, [&](Value v) { os << name(v); });
    os << "};\n";
    in = "gnnc_in";
  }
  if (!outputs.empty()) {
    os << "    float *const gnnc_out[] = {";
    llvm::interleaveComma(outputs, os, [&](Value v) { os << name(v); });
    os << "};\n    const int32_t gnnc_out_values[] = {";
    llvm::interleaveComma(outputs, os,
                          [&](Value v) { os << number.lookup(v); });
    os << "};\n";
    out = "gnnc_out";
    values = "gnnc_out_values";
  }
  os << "  ";
  SmallVector<std::string> args = {"gnnc_ops",
                                   std::to_string(group.size()),
                                   std::to_string(type.getNumElements()),
                                   std::to_string(cols),
                                   in,
                                   std::to_string(inputs.size()),
                                   out,
                                   values,
                                   std::to_string(outputs.size())};
  // elementwiseRuns gave every op of the run the same rows.
  if (std::optional<RowRestriction> rows = getRowRestriction(group.front())) {
    // The outputs' other rows are zeroed unless no op reads any of them.
    bool unread = llvm::all_of(outputs, [](Value v) {
      return v.getDefiningOp()->hasAttr(kRestUnreadAttr);
    });
    llvm::append_range(
        args, setArgs(rows->rowSets, group.front()->getResult(0), rows->level));
    args.push_back(unread ? "0" : "1");
    call("gnnrt_cpu_fused_rows", args);
  } else {
    call("gnnrt_cpu_fused", args);
  }
  os << "  }\n";
  return success();
}

LogicalResult FunctionEmitter::emit() {
  auto arena = func->getAttrOfType<IntegerAttr>("gnn.arena_bytes");
  if (!arena)
    return func.emitError("no gnn.arena_bytes: run gnn-assign-buffers "
                          "before the ")
           << targetName() << " target";
  if (!func.getBody().hasOneBlock())
    return func.emitError("the ")
           << targetName() << " target needs single-block functions";
  std::string id = "gnnc_" + sanitize(func.getSymName());
  os << "// @" << func.getSymName() << "\n";
  os << "extern \"C\" int64_t " << id << "_arena_bytes(void) { return INT64_C("
     << arena.getInt() << "); }\n\n";
  os << "extern \"C\" int " << id
     << "(void *const *args, void *const *results, char *arena, "
        "gnnrt_offload *tiers) {\n";
  os << "  (void)args;\n  (void)results;\n  (void)arena;\n  (void)tiers;\n";
  if (cuda()) {
    // The session's context (gnnrt/Cuda.h), set before it calls.
    os << "  gnnrt_cuda *const ctx = gnnrt_cuda_current();\n"
       << "  if (!ctx)\n    return GNNRT_ERR_NO_DEVICE;\n";
    groups =
        cuda::fusionGroups(func.getBody().front(), options.generatedDropout);
  } else {
    // One op alone is its own kernel's call; a run of two or more is one
    // pass over memory.
    // gnnrt_cpu_fused takes kMaxFusedOps ops at most; any part of a
    // run is itself a run.
    // An op restricted to row sets is a run of its own if need be: only
    // gnnrt_cpu_fused_rows computes element-wise ops at some rows.
    for (auto &run : elementwiseRuns(func.getBody().front(), cpuFusible))
      for (size_t at = 0; at < run.size(); at += kMaxFusedOps) {
        ArrayRef<Operation *> part = ArrayRef<Operation *>(run).slice(
            at, std::min(kMaxFusedOps, run.size() - at));
        if (part.size() > 1 || getRowRestriction(part.front()))
          groups.emplace_back(part);
      }
  }
  for (auto [index, group] : llvm::enumerate(groups))
    for (Operation *op : group)
      groupOf[op] = index;
  if (cuda() && options.generatedOpKernels) {
    planOpFusions();
    optimizerRuns = cuda::KernelUnit::optimizerGroups(func.getBody().front());
    for (auto [index, run] : llvm::enumerate(optimizerRuns))
      for (Operation *op : run)
        optimizerRunOf[op] = index;
  }
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string var = "a" + std::to_string(i);
    Type type = arg.getType();
    if (isa<GraphType>(type)) {
      os << "  const gnnrt_graph *" << var << " = (const gnnrt_graph *)args["
         << i << "];\n";
    } else if (type.isInteger(64) || type.isIndex()) {
      os << "  const int64_t " << var << " = *(const int64_t *)args[" << i
         << "];\n";
    } else if (auto tensor = dyn_cast<RankedTensorType>(type);
               tensor && tensor.hasStaticShape() &&
               elementCType(tensor.getElementType())) {
      StringRef ctype = *bufferCType(tensor);
      os << "  const " << ctype << " *" << var << " = (const " << ctype
         << " *)args[" << i << "];\n";
    } else {
      return func.emitError("argument ")
             << i << " of type " << type << " is not supported yet by the "
             << targetName() << " target";
    }
    names[arg] = var;
    // A host home is host memory: only its copy to the device reads it.
    if (func.getArgAttr(i, "mem.home"))
      for (Operation *user : arg.getUsers())
        if (!isa<mem::LoadHomeOp, mem::LoadGraphHomeOp>(user))
          return user->emitError("reads argument ")
                 << i << ", whose home is host memory, directly: only "
                 << "mem.load_home and mem.load_graph_home may "
                 << "(gnn-plan-memory places them)";
  }
  Operation *ret = func.getBody().front().getTerminator();
  for (unsigned k = 0; k < func.getNumResults(); ++k)
    if (func.getResultAttr(k, "mem.home") &&
        !ret->getOperand(k).getDefiningOp<mem::StoreHomeOp>())
      return ret->emitError("result ")
             << k << ", whose home is host memory, does not come from "
             << "mem.store_home";
  for (Operation &op : func.getBody().front())
    if (failed(emitOp(&op)))
      return failure();
  os << "}\n\n";
  return success();
}

/// A C string literal holding \p s.
std::string cString(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// A setting's value as a user wrote it: 0.01, "cora" -> cora, [a, b].
std::string settingValue(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto str = dyn_cast<StringAttr>(a))
    os << str.getValue();
  else if (auto b = dyn_cast<BoolAttr>(a))
    os << (b.getValue() ? "true" : "false");
  else if (auto i = dyn_cast<IntegerAttr>(a))
    os << i.getInt();
  else if (auto f = dyn_cast<FloatAttr>(a))
    os << llvm::format("%g", f.getValueAsDouble());
  else if (auto arr = dyn_cast<ArrayAttr>(a)) {
    os << "[";
    llvm::interleaveComma(arr, os, [&](Attribute e) { os << settingValue(e); });
    os << "]";
  } else if (auto dict = dyn_cast<DictionaryAttr>(a)) {
    os << "(";
    llvm::interleaveComma(dict, os, [&](NamedAttribute e) {
      os << e.getName().getValue() << " = " << settingValue(e.getValue());
    });
    os << ")";
  } else {
    a.print(os);
  }
  return s;
}

/// Prints the gnnrt/Model.h tables of one train block.
class DescriptorEmitter {
public:
  DescriptorEmitter(llvm::raw_ostream &os, const CppEmitOptions &options)
      : os(os), options(options) {}

  /// The table of the functions \p funcs (keyed by suffix: init, step,
  /// predict) of train block \p base; returns its C name.
  FailureOr<std::string> emit(StringRef base,
                              const llvm::StringMap<func::FuncOp> &funcs);

private:
  /// Prints a value table; returns its name.
  std::string values(StringRef id, func::FuncOp f, bool results);
  FailureOr<std::string> function(StringRef id, func::FuncOp f);
  /// The gnnrt_plan_desc initializer: the step's #mem.plan and the tier
  /// settings.
  std::string planDesc(const llvm::StringMap<func::FuncOp> &funcs,
                       DictionaryAttr config);

  llvm::raw_ostream &os;
  const CppEmitOptions &options;
};

std::string DescriptorEmitter::values(StringRef id, func::FuncOp f,
                                      bool results) {
  unsigned count = results ? f.getNumResults() : f.getNumArguments();
  std::string table = (id + (results ? "_results" : "_args")).str();
  std::string entries;
  llvm::raw_string_ostream e(entries);
  for (unsigned i = 0; i < count; ++i) {
    Type type = results ? f.getResultTypes()[i] : f.getArgumentTypes()[i];
    auto attr = [&](StringRef name) {
      return results ? f.getResultAttrOfType<StringAttr>(i, name)
                     : f.getArgAttrOfType<StringAttr>(i, name);
    };
    StringAttr role = attr("gnn.input");
    if (!role)
      role = attr("train.role");
    StringAttr param = attr("gnn.param");
    std::string roleName = role ? role.str() : "";
    std::string paramName = param ? param.str() : "";
    // gnn-hoist-graph-prep's values: the index of @M.prepare's result.
    auto prepared = results
                        ? f.getResultAttrOfType<IntegerAttr>(i, "gnn.prepared")
                        : f.getArgAttrOfType<IntegerAttr>(i, "gnn.prepared");
    if (prepared) {
      roleName = "prepared";
      paramName = std::to_string(prepared.getInt());
    }
    if (roleName.empty() && results && f.getSymName().ends_with(".predict"))
      roleName = "logits";
    SmallVector<int64_t> shape;
    const char *dtype = "GNNRT_DTYPE_F32";
    if (auto g = dyn_cast<GraphType>(type)) {
      dtype = "GNNRT_DTYPE_GRAPH";
      shape = {g.getNodes(), g.getEdges()};
    } else if (auto csr = getCsrEncoding(type)) {
      dtype = "GNNRT_DTYPE_CSR_F32";
      auto t = cast<RankedTensorType>(type);
      shape = {t.getDimSize(0), t.getDimSize(1), csr.getNnz()};
    } else if (auto t = dyn_cast<RankedTensorType>(type)) {
      llvm::append_range(shape, t.getShape());
      dtype = t.getElementType().isInteger(32)  ? "GNNRT_DTYPE_I32"
              : t.getElementType().isInteger(1) ? "GNNRT_DTYPE_BOOL"
                                                : "GNNRT_DTYPE_F32";
    } else {
      dtype = "GNNRT_DTYPE_I64";
    }
    // gnnrt_value_flags: what the plan decided about the value's place.
    SmallVector<StringRef, 2> flags;
    if (!results && f.getArgument(i).use_empty())
      flags.push_back("GNNRT_VALUE_UNUSED");
    if (results ? f.getResultAttr(i, "mem.home") : f.getArgAttr(i, "mem.home"))
      flags.push_back("GNNRT_VALUE_HOME_HOST");
    if (results && isa<GraphType>(type) &&
        sharesArgumentStorage(
            f.getBody().front().getTerminator()->getOperand(i)))
      flags.push_back("GNNRT_VALUE_VIEWS_GRAPH");
    // A result the function leaves in its arena (gnn.result_offsets).
    std::optional<int64_t> arenaOffset;
    if (auto inArena =
            f->getAttrOfType<DenseI64ArrayAttr>("gnn.result_offsets");
        results && inArena && static_cast<int64_t>(i) < inArena.size() &&
        inArena[i] >= 0) {
      flags.push_back("GNNRT_VALUE_IN_ARENA");
      arenaOffset = inArena[i];
    }
    std::string flagBits = flags.empty() ? "0u" : llvm::join(flags, " | ");
    std::string shapeName = "nullptr";
    if (!shape.empty()) {
      shapeName = table + "_shape" + std::to_string(i);
      os << "static const int64_t " << shapeName << "[] = {";
      llvm::interleaveComma(shape, os);
      os << "};\n";
    }
    e << "    {" << cString(roleName) << ", " << cString(paramName) << ", "
      << dtype << ", " << shape.size() << ", " << shapeName << ", " << flagBits;
    if (arenaOffset)
      e << ", INT64_C(" << *arenaOffset << ")";
    e << "},\n";
  }
  if (count == 0)
    return "nullptr";
  os << "static const gnnrt_value_desc " << table << "[] = {\n"
     << entries << "};\n";
  return table;
}

FailureOr<std::string> DescriptorEmitter::function(StringRef id,
                                                   func::FuncOp f) {
  std::string args = values(id, f, /*results=*/false);
  std::string results = values(id, f, /*results=*/true);
  std::string entry = "gnnc_" + sanitize(f.getSymName());
  auto arena = f->getAttrOfType<IntegerAttr>("gnn.arena_bytes");
  int64_t handles = 0;
  if (auto n = f->getAttrOfType<IntegerAttr>("mem.num_handles"))
    handles = n.getInt();
  std::string table = (id + "_fn").str();
  os << "static const gnnrt_function_desc " << table << " = {"
     << cString(f.getSymName()) << ", " << entry << ", INT64_C("
     << arena.getInt() << "), " << f.getNumArguments() << ", " << args << ", "
     << f.getNumResults() << ", " << results << ", INT64_C(" << handles
     << ")};\n";
  return table;
}

std::string
DescriptorEmitter::planDesc(const llvm::StringMap<func::FuncOp> &funcs,
                            DictionaryAttr config) {
  mem::PlanAttr plan;
  auto step = funcs.find("step");
  if (step != funcs.end())
    plan = step->second->getAttrOfType<mem::PlanAttr>("mem.plan");
  int64_t hostMemory = -1, spillBytes = 0;
  std::string spillDir;
  if (auto a = config.getAs<IntegerAttr>("host_memory"))
    hostMemory = a.getInt();
  if (auto disk = config.getAs<DictionaryAttr>("disk")) {
    if (auto dir = disk.getAs<StringAttr>("dir"))
      spillDir = dir.getValue().str();
    if (auto bytes = disk.getAs<IntegerAttr>("bytes"))
      spillBytes = bytes.getInt();
  }
  std::string out;
  llvm::raw_string_ostream e(out);
  e << "{" << cString(plan ? plan.getPolicy() : "") << ", INT64_C("
    << (plan ? plan.getBudget() : 0) << "), INT64_C("
    << (plan ? plan.getPeakDevice() : 0) << "), INT64_C("
    << (plan ? plan.getPeakHost() : 0) << "), INT64_C("
    << (plan ? plan.getPeakDisk() : 0) << "), "
    << literal(plan ? plan.getPredictedSeconds().convertToDouble() : 0) << ", "
    << literal(plan ? plan.getKeepAllSeconds().convertToDouble() : 0)
    << ", INT64_C(" << hostMemory << "), " << cString(spillDir) << ", INT64_C("
    << spillBytes << ")}";
  return out;
}

FailureOr<std::string>
DescriptorEmitter::emit(StringRef base,
                        const llvm::StringMap<func::FuncOp> &funcs) {
  std::string id = "gnnc_desc_" + sanitize(base);
  func::FuncOp any = funcs.begin()->second;
  auto config = any->getAttrOfType<DictionaryAttr>("train.config");
  auto model = any->getAttrOfType<StringAttr>("gnn.model");
  if (!config || !model)
    return any.emitError("no gnn.model and train.config: the CPU target "
                         "needs functions made by gnn-autodiff");
  std::string fns[4];
  const char *suffixes[4] = {"init", "step", "predict", "prepare"};
  for (int k = 0; k < 4; ++k) {
    auto it = funcs.find(suffixes[k]);
    if (it == funcs.end()) {
      fns[k] = "nullptr";
      continue;
    }
    FailureOr<std::string> fn = function(id + "_" + suffixes[k], it->second);
    if (failed(fn))
      return failure();
    fns[k] = "&" + *fn;
  }

  auto integer = [&](StringRef name, int64_t fallback) {
    auto a = config.getAs<IntegerAttr>(name);
    return a ? a.getInt() : fallback;
  };
  std::string dataset;
  if (auto a = config.getAs<StringAttr>("dataset"))
    dataset = a.str();
  auto synthetic = config.getAs<DictionaryAttr>("synthetic");
  int64_t nodes = 0, features = 0, classes = 0, seed = 0;
  double avgDegree = 0;
  if (synthetic) {
    auto field = [&](StringRef name) {
      auto a = synthetic.getAs<IntegerAttr>(name);
      return a ? a.getInt() : 0;
    };
    nodes = field("nodes");
    features = field("features");
    classes = field("classes");
    seed = field("seed");
    if (auto a = synthetic.getAs<FloatAttr>("avg_degree"))
      avgDegree = a.getValueAsDouble();
  }
  std::string dir;
  if (!synthetic)
    dir = options.dataDirs.lookup(dataset);

  uint32_t metricBits = 0;
  if (auto list = config.getAs<ArrayAttr>("metrics"))
    for (Attribute m : list) {
      StringRef name = cast<StringAttr>(m).getValue();
      metricBits |= llvm::StringSwitch<uint32_t>(name)
                        .Case("accuracy", 1)
                        .Case("precision", 2)
                        .Case("recall", 4)
                        .Case("f1", 8)
                        .Case("auc_roc", 16)
                        .Case("auc_pr", 32)
                        .Default(0);
    }
  std::string settings;
  for (NamedAttribute a : config)
    settings +=
        (a.getName().getValue() + " = " + settingValue(a.getValue()) + "\n")
            .str();

  os << "static const gnnrt_model_desc " << id << " = {\n"
     << "    GNNRT_MODEL_ABI_VERSION, " << cString(model.getValue()) << ", "
     << cString(options.source) << ",\n"
     << "    {" << (synthetic ? 1 : 0) << ", " << cString(dataset) << ", "
     << cString(dir) << ", INT64_C(" << nodes << "), INT64_C(" << features
     << "), INT64_C(" << classes << "), INT64_C(" << seed << "), "
     << literal(avgDegree) << ", " << (config.get("normalize_features") ? 1 : 0)
     << "},\n"
     << "    INT64_C(" << integer("epochs", 1) << "), INT64_C("
     << integer("seed", 0) << "), INT64_C(" << integer("eval_every", 1)
     << "), INT64_C(" << integer("memory", -1) << "), " << metricBits << "u,\n"
     << "    " << cString(settings) << ",\n"
     << "    " << fns[0] << ", " << fns[1] << ", " << fns[2] << ", " << fns[3]
     << ",\n    " << planDesc(funcs, config) << ",\n    "
     << (options.target == CppEmitOptions::Target::Cuda ? "GNNRT_TARGET_CUDA"
                                                        : "GNNRT_TARGET_CPU")
     << "};\n\n";
  return id;
}

} // namespace

LogicalResult mlir::gnn::emitCpp(ModuleOp module, llvm::raw_ostream &os,
                                 const CppEmitOptions &options) {
  // Print into a buffer: on an error nothing is printed.
  std::string text;
  llvm::raw_string_ostream body(text);
  if (options.target == CppEmitOptions::Target::Cpu) {
    body
        << "// Generated by gnnc (stage cpp): the train functions as calls to\n"
           "// the CPU kernels of gnnrt/Kernels.h. Do not edit.\n"
           "#include \"gnnrt/Convert.h\"\n"
           "#include \"gnnrt/Kernels.h\"\n"
           "#include \"gnnrt/Model.h\"\n"
           "#include \"gnnrt/Offload.h\"\n\n"
           "#include <stdint.h>\n"
           "#include <string.h>\n\n"
           "// Every kernel's status is checked; the first failure is "
           "returned.\n"
           "#define GNNC_CALL(call)                                        "
           "      \\\n"
           "  do {                                                        "
           "      \\\n"
           "    int gnnc_status = (call);                                 "
           "      \\\n"
           "    if (gnnc_status != GNNRT_OK)                              "
           "      \\\n"
           "      return gnnc_status;                                     "
           "      \\\n"
           "  } while (0)\n\n";
  }
  // Train blocks in module order, each with its functions by suffix.
  SmallVector<std::string> blocks;
  llvm::StringMap<llvm::StringMap<func::FuncOp>> byBlock;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (failed(FunctionEmitter(func, body, options).emit()))
      return failure();
    auto [base, suffix] = func.getSymName().rsplit('.');
    if (suffix.empty() || !func->hasAttr("gnn.model"))
      continue;
    if (!byBlock.count(base))
      blocks.push_back(base.str());
    byBlock[base][suffix] = func;
  }
  if (options.descriptors) {
    body << "// The tables of gnnrt/Model.h.\n";
    DescriptorEmitter descriptors(body, options);
    SmallVector<std::string> tables;
    for (const std::string &base : blocks) {
      FailureOr<std::string> table = descriptors.emit(base, byBlock[base]);
      if (failed(table))
        return failure();
      tables.push_back(*table);
    }
    body << "static const gnnrt_model_desc *const gnnc_model_list[] = {";
    for (const std::string &t : tables)
      body << "&" << t << ", ";
    body << "nullptr};\n\n"
         << "extern \"C\" const gnnrt_model_desc *const *\n"
         << "gnnc_models(int64_t *count) {\n"
         << "  *count = " << tables.size() << ";\n"
         << "  return gnnc_model_list;\n}\n";
  }
  os << text;
  return success();
}
