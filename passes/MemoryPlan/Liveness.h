//===- Liveness.h - The memory planner's view of one function ---*- C++ -*-===//
//
// What the memory planner (issue 5) and buffer assignment need to know about
// a single-block function before deciding anything: the schedule (the op
// order, fixed), every value's exact storage in bytes, its live interval over
// that schedule, which values the backward pass needs from the forward pass
// ("saved": the candidates for keep, recompute, offload and lower-precision
// fates), and the live-bytes curve of the arena with its peak.
//
// The byte formula lives here and only here: gnn-assign-buffers places the
// values this analysis sizes, so the predicted peak and the arena the
// runtime allocates cannot disagree about how large a tensor is.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_MEMORYPLAN_LIVENESS_H
#define GNNC_PASSES_MEMORYPLAN_LIVENESS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::gnn {

/// The arena's allocation unit: every slot's offset and size are multiples
/// of it (the runtime's kernels vectorise on 64-byte lines).
constexpr int64_t kArenaAlignment = 64;

/// \p bytes rounded up to kArenaAlignment: what a value takes in the arena.
inline int64_t alignToArena(int64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

/// The bytes \p value needs as the runtime lays it out: std::nullopt for no
/// storage of its own (graph views, caller-bound graphs, rng keys, integer
/// scalars), -1 when it needs storage whose size is not static (an error for
/// the caller to report). A statically shaped tensor takes its elements
/// times their width (i1 as a byte); a `#gnn.csr` matrix takes
/// gnnrt_csr_matrix_bytes; a `gnn.add_self_loops` result takes the int32
/// arrays of both of its CSR views.
std::optional<int64_t> storageBytes(Value value);

/// Bytes [begin, end) of a function's arena.
struct ArenaBytes {
  int64_t begin, end;
  bool overlaps(const ArenaBytes &other) const {
    return begin < other.end && other.begin < end;
  }
};

/// Where gnn-assign-buffers put \p value: the arena bytes its defining op's
/// `gnn.offsets` and storageBytes give; std::nullopt when it lives outside
/// the arena (an argument, a result slot, an op without `gnn.offsets`);
/// failure when its place cannot be told (`gnn.offsets` does not cover it,
/// or its size is not known).
FailureOr<std::optional<ArenaBytes>> assignedArenaBytes(Value value);

/// The value whose storage \p value only views (the graph of a
/// `gnn.transpose`, the bits of a packed `mem.load_sign`), or a null Value.
/// A view's uses keep its source alive; it takes no storage of its own.
Value getViewSource(Value value);

/// The operands whose slot \p op's result may take over when one dies at
/// \p op, each with whether it is broadcast (read at the column, so not
/// element for element: never taken over); empty when \p op's kernels may
/// not write over their inputs. Element-wise ops and dense dropout read an
/// element before writing it; so do an edge softmax and its gradient,
/// one destination node and head at a time, and a product `a b` whose
/// result has a's type, a tile of rows at a time.
SmallVector<std::pair<Value, bool>> inPlaceReads(Operation *op);

/// Whether \p value's storage is a function argument's: the argument
/// itself, or a view of it. A @M.prepare result that does this keeps the
/// bound graph alive (the session may not free it after prepare); the
/// planner and the emitter's GNNRT_VALUE_VIEWS_GRAPH ask this one question.
bool sharesArgumentStorage(Value value);

/// Where a value's bytes live during a call.
enum class Storage {
  None,     ///< No storage of its own (a view, a key, a scalar).
  Argument, ///< A function argument: the caller's buffer.
  Arena,    ///< An intermediate: a slot in the function's arena.
  Result,   ///< Returned: written straight into the caller's result buffer.
};
llvm::StringRef stringifyStorage(Storage storage);

/// What a function argument is, from its `gnn.input`, `train.role` and
/// `gnn.param` attributes; the planner treats each kind differently
/// (parameters and optimizer state may be offloaded, graph data may not).
enum class ArgumentKind {
  Input,     ///< gnn.input: graph, features, labels, train_mask, seed, ...
  Prepared,  ///< gnn.input = "prepared": a result of @M.prepare.
  Parameter, ///< train.role = "param", or gnn.param on a model function.
  State,     ///< Any other train.role: adam.m, adam.v, grad_acc, ...
  Unknown,   ///< None of these attributes (hand-written IR).
};

struct ArgumentRole {
  ArgumentKind kind = ArgumentKind::Unknown;
  /// The attribute's value ("graph", "param", "adam.m", "prepared"), or
  /// empty for ArgumentKind::Unknown.
  std::string role;
  /// The parameter's name (`gnn.param`), the prepared value's index
  /// (`gnn.prepared`), or empty.
  std::string detail;
};
ArgumentRole getArgumentRole(func::FuncOp func, unsigned index);

/// One value of the function: an argument or an op result.
struct ValueLiveness {
  Value value;
  Storage storage = Storage::None;
  /// Exact bytes (not aligned); 0 for Storage::None, -1 for an argument
  /// whose size is not static.
  int64_t bytes = 0;
  /// Schedule index of the defining op; StepLiveness::kEntry for arguments.
  int64_t def = 0;
  /// Schedule index of the last op that reads the value or a view of it
  /// (the func.return counts); `def` for an unused result, kEntry for an
  /// unused argument.
  int64_t lastUse = 0;
  /// The first function result the value is written to (Storage::Result,
  /// or Storage::Arena in a function marked kResultsInArenaAttr); -1 for a
  /// value the function does not return.
  int64_t resultSlot = -1;
  /// An arena value the backward pass reads: defined by a forward op and
  /// read, directly or through a view, by an op outside the forward part.
  bool saved = false;
  /// The operand whose arena slot this result takes over, or null: an
  /// element-wise op (dialects/Gnn/Elementwise.h) writes its result over
  /// an operand that dies at it and has the same slot size, so that op
  /// needs one slot where it would need two. The first such operand, in
  /// operand order, is taken.
  Value inPlaceOf;
  /// The converse: a result of this value's last user takes its slot over.
  /// Its own bytes then count until just before `lastUse`, the result's
  /// from `lastUse` on (the slot is counted once at that op).
  bool handedOn = false;
};

/// The analyses of one single-block function, computed once on
/// construction. The IR must not change while the object is in use.
class StepLiveness {
public:
  /// The `def` of arguments: live before the first op.
  static constexpr int64_t kEntry = -1;

  /// Analyses \p func. Fails, with an error prefixed by \p client (the pass
  /// asking), on a function that is not one block ending in func.return,
  /// an op with regions, a returned value that is neither a tensor nor a
  /// graph, or an arena value without a static size.
  static FailureOr<StepLiveness> compute(func::FuncOp func,
                                         llvm::StringRef client);

  func::FuncOp getFunction() const { return func; }

  /// The ops in execution order, the terminator last.
  llvm::ArrayRef<Operation *> getSchedule() const { return schedule; }
  int64_t getIndex(Operation *op) const { return index.lookup(op); }

  /// Arguments in order, then op results in schedule order.
  llvm::ArrayRef<ValueLiveness> getValues() const { return values; }
  const ValueLiveness &lookup(Value value) const {
    return values[valueIndex.at(value)];
  }

  /// The op whose result the function returns as `train.role = "loss"`,
  /// or null (init, predict, prepare, apply_step).
  Operation *getLossOp() const { return lossOp; }
  /// Whether \p op belongs to the forward part: the loss op and every op it
  /// transitively depends on. Nothing is forward without a loss.
  bool isForward(Operation *op) const { return forward.contains(op); }

  /// Arena bytes live at each schedule point, every value counted at its
  /// aligned slot size (a handed-on value until just before its last use):
  /// the quantity first fit packs, so the peak is a lower
  /// bound of any placement's arena size (gnn.arena_bytes).
  llvm::ArrayRef<int64_t> getLiveBytes() const { return liveBytes; }
  int64_t getPeakBytes() const { return peakBytes; }
  /// The first schedule index where the peak is reached; -1 when nothing
  /// is ever live.
  int64_t getPeakIndex() const { return peakIndex; }

  /// Caller-owned bytes: every argument with storage, and every tensor
  /// result slot (the caller passes one buffer per result, even when two
  /// results are the same value). Never in the arena.
  int64_t getArgumentBytes() const { return argumentBytes; }
  int64_t getResultBytes() const { return resultBytes; }
  int64_t getResidentBytes() const { return argumentBytes + resultBytes; }

private:
  explicit StepLiveness(func::FuncOp func) : func(func) {}
  LogicalResult run(llvm::StringRef client);

  func::FuncOp func;
  std::vector<Operation *> schedule;
  llvm::DenseMap<Operation *, int64_t> index;
  std::vector<ValueLiveness> values;
  llvm::DenseMap<Value, size_t> valueIndex;
  Operation *lossOp = nullptr;
  llvm::DenseSet<Operation *> forward;
  std::vector<int64_t> liveBytes;
  int64_t peakBytes = 0, peakIndex = -1;
  int64_t argumentBytes = 0, resultBytes = 0;
};

/// Where first fit puts every arena value of a function: the offset of each
/// Storage::Arena value and the arena's size. gnn-assign-buffers records
/// it; the memory planner checks its plans against it, since fragmentation
/// can make the arena larger than the live-bytes peak.
struct ArenaLayout {
  llvm::DenseMap<Value, int64_t> offsets;
  int64_t arenaBytes = 0;
};
/// Places the arena values of \p live, each at a 64-byte-aligned offset
/// free over its whole interval (placeSlots, Placement.h), down to the live
/// peak where the search reaches it. A chain of in-place results
/// (ValueLiveness::inPlaceOf) is one slot over the union of its intervals.
ArenaLayout placeFirstFit(const StepLiveness &live);

} // namespace mlir::gnn

#endif // GNNC_PASSES_MEMORYPLAN_LIVENESS_H
