//===- PlanMemory.cpp - gnn-plan-memory: a fate for every saved tensor ----===//
//
// For each training step (a function with `train.config` returning a loss),
// turns the step's liveness and the cost model into a plan::Problem, solves
// it under the device budget, and rewrites the chosen fates into `mem` ops:
//
//   keep       nothing changes;
//   recompute  `mem.recompute` before the first backward use re-derives the
//              value from inputs that are live there anyway (arguments,
//              values live across that point, or other saved values the
//              plan keeps), recursively through the forward ops otherwise;
//   host/disk  `mem.offload` after the last forward use, `mem.prefetch`
//              before the first backward use, `mem.free` of the copy;
//   narrow     `mem.store_as` bf16/f16 after the last forward use and
//              `mem.load_as` before the first backward use, only when the
//              program's `saved_precision` allows it.
//
// A weight gradient idle until the optimizer reads it is a candidate too
// ("parked"): kept, or host/disk from its op to its first reader.
//
// The timeline has two points per op k: 2k, the boundary before it (where
// `mem` ops go), and 2k + 1, the op itself. The device tier is the step's
// arena; what the session holds besides it (graph, inputs, parameters and
// optimizer state twice, outputs, @M.prepare's arena) is subtracted from
// the budget first, summed as runtime/exec/Session.cpp sums it. Every plan
// is checked by the first-fit placement gnn-assign-buffers will make, and
// re-solved with less room while fragmentation pushes it over.
//
//===----------------------------------------------------------------------===//
#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"
#include "dialects/Mem/MemOps.h"
#include "passes/MemoryPlan/CostModel.h"
#include "passes/MemoryPlan/ExpandRecompute.h"
#include "passes/MemoryPlan/Liveness.h"
#include "passes/MemoryPlan/PlanProblem.h"
#include "passes/MemoryPlan/SplitAggregations.h"
#include "passes/Passes.h"

#include "gnnrt/Footprint.h"
#include "gnnrt/Kernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cmath>
#include <map>
#include <optional>

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNPLANMEMORY
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;
using plan::Fate;
using plan::Tier;

namespace {

/// The exact search's node budget under `solver = auto`: enough to prove
/// the optimum of steps with a few dozen candidates, small enough that
/// planning a deep model stays well under a second (each node checks
/// every timeline point). Halved from 100,000, it gave the same plans in
/// every cell of bench/memory_sweep.py's budgets on Facebook and 2M nodes
/// (the smallest Facebook GAT plan 256 bytes larger) and took the 2M-node
/// GAT's smallest plan from 1.1 to 0.9 s.
constexpr int64_t kAutoExactNodes = 50'000;
/// The smallest-plan search bisects rooms to a 64-byte slot or to this
/// fraction of the room, whichever is coarser: on steps of hundreds of
/// megabytes the last rounds near the boundary cost the most (the exact
/// search runs out of nodes there) and moved the plan found by a few
/// kilobytes at most.
constexpr int64_t kSearchPrecision = 32768;
/// How many slots below the least a plan needed the smallest-plan search
/// tries before it stops (see its use).
constexpr int64_t kDownProbes = 4;

std::string formatBytes(int64_t bytes) {
  double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024)
    return llvm::formatv("{0:f2} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024)
    return llvm::formatv("{0:f2} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0)
    return llvm::formatv("{0:f1} KiB", b / 1024.0);
  return llvm::formatv("{0} bytes", bytes);
}

/// `file:line:col` of the first FileLineColLoc in \p loc (the `.gnn` call
/// MLIRGen recorded, possibly under a name or fused), the way diagnostics
/// name a place; the printed location when it has none.
std::string formatLocation(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location l) {
    if (auto fl = dyn_cast<FileLineColLoc>(l)) {
      found = fl;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  std::string s;
  llvm::raw_string_ostream os(s);
  if (found)
    os << found->getFilename().getValue() << ":" << found->getLine() << ":"
       << found->getColumn();
  else
    loc.print(os);
  return s;
}

/// The first argument of \p func whose `gnn.input` or `train.role` is
/// \p role.
BlockArgument argumentWithRole(func::FuncOp func, StringRef role) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (getArgumentRole(func, i).role == role)
      return func.getArgument(i);
  return {};
}

/// Device bytes the session holds besides the step's arena
/// (gnnrt/Footprint.h, the sums Session::bind allocates), in its two
/// phases: @M.prepare's arena and tensors and the graph's two CSR views
/// while prepare runs; then the prepared values again, the inputs (features
/// dense and/or CSR as the functions take them, the labels and masks some
/// function takes), every parameter and optimizer state twice, the loss, and
/// one workspace shared by the step with init and predict (which writes the
/// logits there). The graph is freed after prepare when no other function reads
/// it. Parameters, optimizer state, the inputs and prepare's values are the
/// planner's candidates for a host home, so their bytes are left out of `rest`
/// and `prepared` (once the planner has taken them, movePreparedToCandidates)
/// and counted by their options.
struct SessionFootprint {
  int64_t prepared = 0, graph = 0, rest = 0;
  /// The bound graph's nodes and predict's classes: the logits predict
  /// leaves in the shared workspace (in its arena, or after it) are part of
  /// its need (footprint::predictWorkspace), not a resident.
  int64_t nodes = 0, classes = 0;
  bool graphReleased = false;
  /// Whether the features may get a host home: every function that takes
  /// them takes the same form (dense or CSR), so one buffer serves all.
  bool featuresMovable = false;
  /// Whether prepare's graphs may get a host home (graphsMovable), and the
  /// bytes of prepare's arena, where they live.
  bool graphsMovable = false;
  int64_t prepareArena = 0;
  std::string dataset;

  /// What the budget must cover besides the step's arena and the residents
  /// kept on the device, in the training phase.
  int64_t fixed() const {
    return prepared + rest + (graphReleased ? 0 : graph);
  }
  /// The session's device peak: what the run measures. \p keptPrepared of
  /// the kept residents' bytes are prepare's values (present while prepare
  /// runs too), \p keptOther the rest; \p graphOnDevice says whether the
  /// bound graph comes to the device for prepare (not when prepare's
  /// graphs have a host home); \p workspace is the shared arena.
  int64_t peak(int64_t keptPrepared, int64_t keptOther, int64_t workspace,
               bool graphOnDevice = true) const {
    return static_cast<int64_t>(gnnrt::footprint::sessionPeak(
        prepared + keptPrepared, graphOnDevice ? graph : 0,
        rest + keptOther + workspace, graphReleased));
  }
  /// The device bytes while prepare runs, when the graph is freed after it
  /// (else that phase is part of the training phase's).
  int64_t preparePhase(int64_t keptPrepared, bool graphOnDevice) const {
    return graphReleased ? prepared + keptPrepared + (graphOnDevice ? graph : 0)
                         : 0;
  }
};

/// Whether every op reading \p graph reads one of its two CSR views (the
/// graph kernels do; the ops building graphs from graphs read both), which
/// mem.load_graph_home can bring alone.
bool readsOneView(Value graph) {
  return llvm::all_of(graph.getUsers(), [](Operation *user) {
    return mem::graphViewReadBy(user).has_value();
  });
}

/// Whether \p user can read \p graph from host memory a tile at a time
/// wherever it reads it (mem::readsGraphInTiles): an aggregation by sum or
/// mean, an SDDMM, an edge soft-max or its gradient over it.
bool readsInTiles(Operation *user, Value graph) {
  bool reads = false;
  for (OpOperand &use : user->getOpOperands())
    if (use.get() == graph) {
      if (!mem::readsGraphInTiles(use))
        return false;
      reads = true;
    }
  return reads;
}

/// The slots of a plan's tile of a graph of \p edges edges: the runtime's
/// tileSlots, or with \p small a quarter of them (at least 1024), for the
/// tightest budgets: four times the tiles, each paying its fixed cost, for
/// a quarter of the bytes.
int64_t graphTileSlots(int64_t edges, bool small) {
  const int64_t slots = static_cast<int64_t>(
      gnnrt::footprint::tileSlots(static_cast<uint64_t>(edges)));
  return small ? std::max<int64_t>(1024, slots / 4) : slots;
}

/// The device bytes of a graph's tile of \p slots slots, and of its
/// weights' (\p heads per edge).
int64_t graphTileBytes(int64_t slots) {
  namespace fp = gnnrt::footprint;
  return static_cast<int64_t>(
      fp::align64(static_cast<uint64_t>(slots) * fp::kGraphTileBytesPerSlot));
}
int64_t weightTileBytes(int64_t slots, int64_t heads) {
  namespace fp = gnnrt::footprint;
  return static_cast<int64_t>(
      fp::align64(static_cast<uint64_t>(slots) * fp::kWeightTileBytesPerSlot *
                  static_cast<uint64_t>(heads)));
}

/// The device bytes of a tile of a CSR matrix of \p nnz stored values
/// (gnnrt_cpu_csr_matmul_tiles): tileSlots' slots, but never more than
/// the matrix has.
int64_t csrTileBytes(int64_t nnz) {
  namespace fp = gnnrt::footprint;
  const uint64_t slots =
      std::min(fp::tileSlots(static_cast<uint64_t>(nnz)),
               static_cast<uint64_t>(std::max<int64_t>(nnz, 1)));
  return static_cast<int64_t>(fp::align64(slots * fp::kCsrTileBytesPerSlot));
}

/// Whether \p type is a dense matrix of static shape: the tensors whose
/// rows a copy may move alone.
bool isDenseMatrix(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 2 && tensor.hasStaticShape() &&
         !getCsrEncoding(tensor);
}

/// The rows a host copy of \p value must hold, when not all: \p value is
/// a dense matrix that its op computed at the rows of one set alone (an
/// edge kernel's, the edges into one: their edge sets), and no op reads
/// its other rows (gnn.rest_unread), so `mem.offload ... rows` copies only
/// that set.
std::optional<RowRestriction> transferRows(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || !def->hasAttr(kRestUnreadAttr) || def->getNumResults() != 1 ||
      !isDenseMatrix(value.getType()))
    return std::nullopt;
  if (std::optional<RowRestriction> rows = getRowRestriction(def))
    return rows;
  // The copies read the sets where the value leaves and comes back, which
  // the plan takes to be within the sets' own lifetime (they are not a
  // candidate): so only a value none of whose readers outlives them.
  std::optional<RowRestriction> edges = getEdgeRows(def);
  if (!edges)
    return std::nullopt;
  Operation *lastSetsUse = nullptr;
  for (Operation *user : edges->rowSets.getUsers())
    if (user->getBlock() == def->getBlock() &&
        (!lastSetsUse || lastSetsUse->isBeforeInBlock(user)))
      lastSetsUse = user;
  if (!lastSetsUse)
    return std::nullopt;
  for (Operation *user : value.getUsers())
    if (user->getBlock() != def->getBlock() ||
        (user != lastSetsUse && lastSetsUse->isBeforeInBlock(user)))
      return std::nullopt;
  return edges;
}

/// The tile bytes through which products would read a dense \p value
/// from host memory (gnnrt_cpu_matmul_tiles): a static f32 matrix that
/// products alone read, as their left operand, larger than a tile. A value
/// computed at one set's rows (transferRows) has only those rows copied,
/// which a product reads as listed rows when it computes at the same set.
std::optional<int64_t> denseProductTileBytes(Value value) {
  if (!mem::isDenseF32Matrix(value.getType()) || value.use_empty() ||
      mem::nonProductReader(value))
    return std::nullopt;
  auto type = cast<RankedTensorType>(value.getType());
  std::optional<RowRestriction> rows;
  if (!isa<BlockArgument>(value))
    rows = transferRows(value);
  for (Operation *user : value.getUsers()) {
    auto matmul = cast<MatmulOp>(user);
    std::optional<RowRestriction> read = getRowRestriction(matmul);
    // gnnrt_cpu_matmul_rows has no transposed pair; listed rows are read
    // at their own set only.
    if ((read && matmul.getTransposeA() && matmul.getTransposeB()) ||
        (rows && (!read || read->rowSets != rows->rowSets ||
                  read->level != rows->level)))
      return std::nullopt;
  }
  const auto tile = static_cast<int64_t>(gnnrt::footprint::denseTileBytes(
      static_cast<uint64_t>(type.getDimSize(1)) * 4));
  if (tile >= type.getNumElements() * 4)
    return std::nullopt;
  return tile;
}

/// The tile bytes through which products would read \p value, a CSR
/// matrix (gnnrt_cpu_csr_matmul_tiles) or a dense one
/// (denseProductTileBytes), from host memory: when only products read it
/// and a tile is smaller than the matrix (a small matrix's tile, at 28
/// bytes a slot, is not).
std::optional<int64_t> productTileBytes(Value value) {
  auto csr = getCsrEncoding(value.getType());
  if (!csr)
    return denseProductTileBytes(value);
  if (value.use_empty() || mem::nonProductReader(value))
    return std::nullopt;
  auto type = cast<RankedTensorType>(value.getType());
  const int64_t tile = csrTileBytes(csr.getNnz());
  if (tile >= gnnrt_csr_matrix_bytes(type.getDimSize(0), type.getDimSize(1),
                                     csr.getNnz()))
    return std::nullopt;
  return tile;
}

/// Before \p user, a product reading \p arg (a host-homed matrix,
/// productTileBytes) a tile of \p tile bytes at a time, a load from the
/// home that copies nothing, which \p user then reads.
void loadProductTiles(OpBuilder &b, Value arg, Operation *user, int64_t tile) {
  b.setInsertionPoint(user);
  auto load = b.create<mem::LoadHomeOp>(arg.getLoc(), arg.getType(), arg);
  load.setTileBytes(static_cast<uint64_t>(tile));
  user->replaceUsesOfWith(arg, load);
}

/// Gives \p load, a copy in of the edge weights that \p spmm reads over a
/// graph read in tiles of \p slots slots, the tile of those weights: it
/// then copies nothing.
void setWeightTile(mem::LoadHomeOp load, int64_t slots) {
  auto type = cast<RankedTensorType>(load.getType());
  load.setTileBytes(static_cast<uint64_t>(
      weightTileBytes(slots, type.getRank() == 2 ? type.getDimSize(1) : 1)));
}

/// The copies in of a host-homed graph argument: one per view its users
/// read, with their schedule indices.
struct GraphLoad {
  BlockArgument arg;
  mem::GraphView view;
  SmallVector<int64_t> uses;
};

/// Gives \p arg, a graph argument with a host home, its copies in: for
/// each view its readers read (in block order), one mem.load_graph_home
/// before the first reader, or before each when \p perUse. With \p tiles
/// (and perUse), the loads of the readers that can read in tiles copy
/// nothing (`tile_bytes` = \p tiles).
void loadGraphViews(OpBuilder &b, BlockArgument arg, bool perUse,
                    std::optional<int64_t> tiles = std::nullopt) {
  for (mem::GraphView view : {mem::GraphView::In, mem::GraphView::Out}) {
    mem::LoadGraphHomeOp load;
    for (Operation &op : llvm::make_early_inc_range(*arg.getOwner())) {
      if (!llvm::is_contained(op.getOperands(), Value(arg)) ||
          mem::graphViewReadBy(&op) != view)
        continue;
      if (!load || perUse) {
        b.setInsertionPoint(&op);
        load = b.create<mem::LoadGraphHomeOp>(arg.getLoc(), arg.getType(), arg);
        load.setOut(view == mem::GraphView::Out);
        if (tiles && perUse && readsInTiles(&op, arg))
          load.setTileBytes(static_cast<uint64_t>(*tiles));
      }
      op.replaceUsesOfWith(arg, load);
    }
  }
}

/// init, predict and prepare beside \p step (`M.step` -> `M.init`, ...).
func::FuncOp siblingOf(ModuleOp module, func::FuncOp step, StringRef suffix) {
  StringRef name = step.getSymName();
  StringRef base = name.drop_back(name.size() - name.rfind('.'));
  return module.lookupSymbol<func::FuncOp>((base + "." + suffix).str());
}

/// What the table calls prepare's result \p index: the op computing it
/// (`gnn.edge_norm`: the edge weights), else the index.
std::string preparedName(func::FuncOp step, StringRef index) {
  auto module = step->getParentOfType<ModuleOp>();
  func::FuncOp prepare = module ? siblingOf(module, step, "prepare") : nullptr;
  unsigned k = 0;
  if (prepare && !index.getAsInteger(10, k) && k < prepare.getNumResults())
    if (Operation *def = prepare.getBody()
                             .front()
                             .getTerminator()
                             ->getOperand(k)
                             .getDefiningOp())
      return def->getName().getStringRef().str();
  return index.str();
}

/// The arena first fit gives \p f (0 without a function).
FailureOr<int64_t> arenaOf(func::FuncOp f) {
  if (!f)
    return 0;
  FailureOr<StepLiveness> live = StepLiveness::compute(f, "gnn-plan-memory");
  if (failed(live))
    return failure();
  return placeFirstFit(*live).arenaBytes;
}

FailureOr<SessionFootprint> sessionFootprint(ModuleOp module,
                                             func::FuncOp step) {
  namespace fp = gnnrt::footprint;
  SessionFootprint result;
  auto sibling = [&](StringRef suffix) {
    return siblingOf(module, step, suffix);
  };
  BlockArgument graph = argumentWithRole(step, "graph");
  auto graphType = graph ? dyn_cast<GraphType>(graph.getType()) : GraphType();
  if (!graphType || !graphType.hasStaticNodes() || !graphType.hasStaticEdges())
    return step.emitError("gnn-plan-memory needs the step's graph argument "
                          "with static node and edge counts (a bound graph)");
  int64_t nodes = graphType.getNodes();
  result.graph = fp::graphBytes(nodes, graphType.getEdges());

  func::FuncOp prepare = sibling("prepare"), predict = sibling("predict"),
               init = sibling("init");
  if (prepare) {
    FailureOr<int64_t> arena = arenaOf(prepare);
    if (failed(arena))
      return failure();
    result.prepareArena = static_cast<int64_t>(fp::align64(*arena));
    result.prepared += result.prepareArena;
    for (Type t : prepare.getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(t))
        result.prepared += fp::preparedTensorBytes(tensor.getNumElements());
  }
  // Released when prepare exists, returns nothing that shares the graph's
  // arrays (a transpose of it), and nothing else reads the graph.
  result.graphReleased = static_cast<bool>(prepare);
  if (prepare)
    for (Value r : prepare.getBody().front().getTerminator()->getOperands())
      result.graphReleased &= !sharesArgumentStorage(r);
  for (func::FuncOp f : {step, predict, init})
    if (BlockArgument g = f ? argumentWithRole(f, "graph") : BlockArgument())
      result.graphReleased &= g.use_empty();
  // prepare's graphs may live in host memory when the bound graph may too
  // (it goes once prepare has run) and every op reading them reads one
  // view, which mem.load_graph_home brings.
  result.graphsMovable = result.graphReleased;
  for (func::FuncOp f : {step, predict, init})
    for (BlockArgument arg : f ? f.getArguments() : ArrayRef<BlockArgument>())
      if (isa<GraphType>(arg.getType()) &&
          getArgumentRole(f, arg.getArgNumber()).kind == ArgumentKind::Prepared)
        result.graphsMovable &= readsOneView(arg);

  bool dense = false;
  int64_t csrNnz = -1, features = 0, classes = 0;
  for (func::FuncOp f : {step, predict}) {
    if (!f)
      continue;
    BlockArgument x = argumentWithRole(f, "features");
    if (!x)
      continue;
    auto type = cast<RankedTensorType>(x.getType());
    features = type.getDimSize(1);
    if (auto csr = getCsrEncoding(type))
      csrNnz = csr.getNnz();
    else
      dense = true;
  }
  result.featuresMovable = dense != (csrNnz >= 0);
  // The features are a candidate when movable.
  if (!result.featuresMovable)
    result.rest += fp::featureBytes(nodes, features, dense, csrNnz);
  // The labels and masks some function takes (the session brings no
  // other): held, unless the step reads them, which makes them candidates
  // (addResidents).
  for (StringRef role : fp::kLabelAndMaskRoles) {
    BlockArgument inStep = argumentWithRole(step, role);
    if (inStep && !inStep.use_empty())
      continue;
    bool taken = static_cast<bool>(inStep);
    for (func::FuncOp f : {predict, init})
      taken |= f && argumentWithRole(f, role);
    if (taken)
      result.rest +=
          role == "labels" ? fp::labelBytes(nodes) : fp::maskBytes(nodes);
  }
  if (predict && predict.getNumResults() == 1)
    if (auto t = dyn_cast<RankedTensorType>(predict.getResultTypes()[0]))
      classes = t.getDimSize(1);
  result.rest += fp::outputBytes();
  result.nodes = nodes;
  result.classes = classes;
  if (auto config = step->getAttrOfType<DictionaryAttr>("train.config"))
    if (auto dataset = config.getAs<StringAttr>("dataset"))
      result.dataset = dataset.getValue().str();
  return result;
}

/// How one candidate's non-keep option is rewritten.
struct RecomputeRecipe {
  /// Forward ops to run again, in schedule order.
  SmallVector<Operation *> ops;
  /// Their operands produced outside them, in first-use order.
  SmallVector<Value> inputs;
};

/// The rows a host home's copy to the device must bring, when not all:
/// \p arg is a dense matrix that its function reads at the rows of R_k
/// only (gnn.rows_read = k, from gnn-restrict-rows), and the function's row
/// sets, defined before any op reads \p arg, reach k hops.
std::optional<RowRestriction> homeRows(BlockArgument arg) {
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func || !isDenseMatrix(arg.getType()))
    return std::nullopt;
  auto level =
      func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kRowsReadAttr);
  if (!level || level.getInt() < 0)
    return std::nullopt;
  for (Operation &op : func.getBody().front()) {
    if (llvm::is_contained(op.getOperands(), Value(arg)))
      return std::nullopt; // read before any row sets exist
    if (auto sets = dyn_cast<ReceptiveRowsOp>(op))
      if (static_cast<int64_t>(sets.getHops()) >= level.getInt())
        return RowRestriction{sets.getResult(), level.getInt()};
  }
  return std::nullopt;
}

/// The bytes a copy of \p rows of the matrix \p value (\p bytes in all)
/// moves, estimated: their share of its rows (transferredRowShare).
int64_t rowBytesMoved(int64_t bytes, const RowRestriction &rows, Value value) {
  return static_cast<int64_t>(
      std::ceil(static_cast<double>(bytes) *
                transferredRowShare(
                    rows.rowSets, rows.level,
                    cast<RankedTensorType>(value.getType()).getDimSize(0))));
}

/// Sign options taken out of a problem, with their candidates' indices.
using SignOptions = std::vector<std::pair<size_t, plan::Option>>;

/// Takes every candidate's sign option (always its last) out of
/// \p problem: the other options keep their indices.
SignOptions takeSignOptions(plan::Problem &problem) {
  SignOptions taken;
  for (auto [c, cand] : llvm::enumerate(problem.candidates))
    if (!cand.options.empty() && cand.options.back().fate == Fate::Sign) {
      taken.emplace_back(c, std::move(cand.options.back()));
      cand.options.pop_back();
    }
  return taken;
}

/// Puts back what takeSignOptions took.
void restoreSignOptions(plan::Problem &problem, SignOptions taken) {
  for (auto &[c, option] : taken)
    problem.candidates[c].options.push_back(std::move(option));
}

struct CandidateInfo {
  Value value;
  int64_t def = 0, lastForward = 0, firstBackward = 0, lastUse = 0;
  /// The last point its device bytes occupy (StepPlanner::lastPoint).
  int64_t end = 0;
  /// The two consecutive backward readers of a saved tensor furthest
  /// apart, with at least one op between them (gapTo >= gapFrom + 2), or
  /// none (gapTo = 0): where SavedHost's RestoreTwice parks it.
  int64_t gapFrom = 0, gapTo = 0;
  /// Whether its last forward reader can write its result over it once
  /// the value has left the device (takesOverWhenGone): a fate that takes
  /// it away then does so just before that reader, not after it.
  bool handsOff = false;
  int64_t bytes = 0;                    // Aligned.
  std::vector<RecomputeRecipe> recipes; // Indexed by Option::detail.
  /// Not saved but idle from its op to its first reader (`lastForward`
  /// is its op, `firstBackward` that reader): a weight gradient waiting for
  /// the optimizer. Kept, or parked in host memory or on disk meanwhile;
  /// never recomputed or narrowed (the optimizer must read the exact bits).
  bool parked = false;

  /// A resident: a parameter, optimizer state or an input, an argument
  /// the session holds between steps, whose home may be host memory.
  /// `value` is the argument; `uses` the schedule indices of the ops
  /// reading it; a state value also has the result it is returned as
  /// (`resultIndex`, defined by op `def`), which goes home after that op.
  bool resident = false;
  std::string role, param;
  llvm::SmallVector<int64_t> uses;
  int64_t resultIndex = -1;
  /// Device bytes while kept: both copies of a state value, one of the
  /// features.
  int64_t keepBytes = 0;
  /// A value of @M.prepare: a tensor (the edge weights), or its graphs, one
  /// candidate since they share prepare's arena (keepBytes). Then
  /// `graphArgs` are the step's arguments that are those graphs (the graph
  /// and its transpose), each copied in by its in view (`bytes`).
  bool prepared = false;
  SmallVector<BlockArgument, 2> graphArgs;
};

/// Device bytes that no room holds: an option using them at a point is
/// infeasible under any budget, but not when nothing limits the device.
constexpr int64_t kForbiddenBytes = std::numeric_limits<int64_t>::max() / 8;

/// How a resident with a host home is brought to the device
/// (Option::detail): once before its first use, kept until its last; or
/// before each use and dropped after it.
/// Or, for prepare's graphs and edge weights, before each use, but read a
/// tile at a time by the aggregations that can (gnnrt_cpu_spmm_tiles), in
/// tiles of the runtime's size or a quarter of it (graphTileSlots).
enum HomeStaging : int64_t {
  StageOnce = 0,
  StagePerUse = 1,
  StageTiles = 2,
  StageSmallTiles = 3
};

/// The slots of the graph tiles that \p staging reads a graph of \p edges
/// edges through (graphTileSlots), or none when it does not read in tiles.
std::optional<int64_t> stagedTileSlots(int64_t staging, int64_t edges) {
  if (staging != StageTiles && staging != StageSmallTiles)
    return std::nullopt;
  return graphTileSlots(edges, staging == StageSmallTiles);
}

/// How a saved tensor with a host fate comes back (Option::detail): copied
/// to the device before its first backward use; or, for a CSR matrix that
/// only products read, offloaded as soon as it is computed and read from
/// the host a tile at a time by every product, the forward's too.
/// Or, for a tensor the backward pass reads at two ops far apart (GAT's
/// projected features: by the attention's SDDMM, then by the attention
/// vectors' gradients), parked in host memory between those two readers
/// too, and brought back once more: its device copy is gone over the
/// backward ops between them, where the attention's gradients peak.
enum SavedHost : int64_t {
  RestoreWhole = 0,
  ReadInTiles = 1,
  RestoreTwice = 2
};

/// Builds the Problem of one step and rewrites solutions into IR.
class StepPlanner {
public:
  StepPlanner(func::FuncOp func, const StepLiveness &live,
              const MachineProfile &profile)
      : func(func), live(live), profile(profile) {}

  /// Fills `problem` and `candidates`; capacities are the caller's.
  /// \p featuresMovable: whether the features may get a host home.
  /// \p layerRecipes: also give every saved tensor a recompute recipe that
  /// stops at the layers' inputs (checkpoint_layers' recipes).
  void build(bool allowNarrow, Type narrowType, const SessionFootprint &fp,
             bool layerRecipes);

  /// Whether saved tensors that only relu and leaky_relu gradients read
  /// may be kept as their signs (gnn-plan-memory's `signs`).
  bool offerSigns = true;
  /// Whether device kernels may read host memory: host homes of residents
  /// and prepare's graphs, and saved matrices read a tile at a time from
  /// host memory (gnn-plan-memory's `host-reads`; the CPU target's).
  bool offerHostReads = true;

  /// The inputs of the model's layers (see markLayerInputs), filled when
  /// build() was asked for layer recipes.
  llvm::DenseSet<Value> layerInputs;

  plan::Problem problem;
  std::vector<CandidateInfo> candidates;
  double keepAllSeconds = 0;
  /// Device bytes of parameters and state that cannot be candidates (a
  /// state returned unchanged, say): held as before, besides the arena.
  int64_t fixedResidentBytes = 0;

  /// Device bytes of the residents \p choice keeps on the device (besides
  /// fixedResidentBytes): all of them, or prepare's values only.
  int64_t keptResidentBytes(const std::vector<int> &choice,
                            bool preparedOnly = false) const;
  /// Device bytes of prepare's values that are candidates, were all kept.
  int64_t preparedCandidateBytes() const;
  /// The candidate of prepare's graphs, or -1; its option that reads them
  /// in tiles, or -1 (the one with small tiles follows it).
  int graphCandidate = -1, graphTilesOption = -1;
  /// Set before build(): whether keeping prepare's graphs must be refused
  /// (the budget cannot hold them and the bound graph while prepare runs).
  bool forbidGraphKeep = false;
  /// Whether \p choice keeps prepare's graphs (and so the bound graph
  /// while prepare runs) on the device.
  bool keepsGraphs(const std::vector<int> &choice) const {
    return graphCandidate < 0 || choice[graphCandidate] == 0;
  }

  /// Rewrites \p choice into mem ops in \p target, a clone of the
  /// analysed function (same op order), and returns the offload handles
  /// used.
  int64_t rewrite(func::FuncOp target, const std::vector<int> &choice,
                  Type narrowType, bool handOffs = true);

private:
  int64_t point(int64_t op) const { return 2 * op + 1; }
  int64_t boundary(int64_t op) const { return 2 * op; }
  /// The last point \p v's own device bytes occupy: its last use, or the
  /// boundary before it when its last user's result takes its slot over.
  int64_t lastPoint(const ValueLiveness &v) const {
    return v.handedOn ? boundary(v.lastUse) : point(v.lastUse);
  }
  bool recomputable(Operation *op) const;
  /// Whether the op at \p reader, the last forward reader of saved value
  /// \p v, could write its result over \p v were \p v to die there: the
  /// liveness would then hand \p v on to it (inPlaceReads), and it hands
  /// no other operand on, so that nothing else changes.
  bool takesOverWhenGone(const ValueLiveness &v, int64_t reader) const;
  /// The op before which a fate taking candidate \p info away after the
  /// forward pass puts its transfer: its last forward reader when it hands
  /// off (and \p handOffs allows it), else the op after that reader.
  int64_t leavesBefore(const CandidateInfo &info, bool handOffs = true) const {
    return handOffs && info.handsOff ? info.lastForward : info.lastForward + 1;
  }
  /// The boundary after which candidate \p info's device bytes are gone
  /// when its fate takes it away after the forward pass.
  int64_t releasedAt(const CandidateInfo &info) const {
    return boundary(leavesBefore(info));
  }
  /// Whether every backward reader of \p info needs it only through
  /// `x > 0` (mem::readsSignOnly), and it has one.
  bool readBySignsOnly(const CandidateInfo &info) const;
  /// Adds the residents to `candidates` (after the saved tensors).
  void addResidents(const SessionFootprint &fp);
  /// Resident \p c's options: keep on the device, or a host home staged
  /// once or per use.
  void residentOptions(int c);
  /// The options of prepare's graphs: keep, or a host home whose views
  /// are copied in once (per argument and view) or before each use, or
  /// read a tile at a time by the aggregations that can.
  void graphOptions(int c);
  /// A host home of resident \p info staged as \p staging: its copy in
  /// host memory for the whole step, and no device bytes or seconds yet.
  plan::Option homeOption(HomeStaging staging, const CandidateInfo &info) const;
  /// Adds to \p o the whole copy in (\p bytes, \p seconds) that the use
  /// at op \p u needs, on the device for that op only.
  void copyInFor(plan::Option &o, int64_t u, int64_t bytes,
                 double seconds) const;
  /// Whether \p user reads \p weights as the edge weights of an aggregation
  /// that can read its graph, one of prepare's, a tile at a time.
  bool readsWeightsInTiles(Operation *user, Value weights) const;
  /// The copies in that prepare's graphs (candidate \p info) need.
  SmallVector<GraphLoad> graphLoads(const CandidateInfo &info) const;
  /// Adds candidate \p c's recompute options: the forward ops from inputs
  /// readable at its first backward use without changing their lifetime,
  /// stopping at other saved values the plan must then keep, or going
  /// through them, or (with layerInputs filled) stopping at layer inputs
  /// only.
  void makeRecipes(int c);
  /// Fills layerInputs: the tensors a layer (the forward ops of one layer
  /// call, found by the parameters they read) reads from outside itself.
  void markLayerInputs();

  func::FuncOp func;
  const StepLiveness &live;
  const MachineProfile &profile;
  llvm::DenseMap<Value, int> candidateOf;
};

bool StepPlanner::recomputable(Operation *op) const {
  if (op->getNumRegions() != 0 || isa<func::ReturnOp>(op) ||
      !isMemoryEffectFree(op))
    return false;
  for (Value r : op->getResults()) {
    Storage s = live.lookup(r).storage;
    if (s == Storage::Result || s == Storage::Argument)
      return false;
  }
  return true;
}

void StepPlanner::makeRecipes(int c) {
  CandidateInfo &info = candidates[c];
  int64_t at = info.firstBackward;
  auto availableAnyway = [&](Value v) {
    if (isa<BlockArgument>(v))
      return true;
    const ValueLiveness &l = live.lookup(v);
    if (l.storage == Storage::None)
      return true;
    // Live across the boundary and not a candidate: its life is not
    // decided by the plan.
    return l.storage == Storage::Arena && !candidateOf.count(v) && l.def < at &&
           l.lastUse >= at;
  };
  // Two recipes: stop at saved values the plan must then keep (cheap), or
  // go through them back to what is live anyway (no requirements). With
  // layer inputs marked, a third stops at those only: a per-layer
  // checkpoint keeps them and re-runs each layer from its input.
  enum class Stop { AtSaved, Never, AtLayerInputs };
  for (Stop stop : {Stop::AtSaved, Stop::Never, Stop::AtLayerInputs}) {
    if (stop == Stop::AtLayerInputs && layerInputs.empty())
      continue;
    llvm::SetVector<Operation *> ops;
    SmallVector<int, 2>
      requires;
    SmallVector<Value> worklist = {info.value};
    bool ok = true;
    llvm::DenseSet<Value> seen;
    while (!worklist.empty() && ok) {
      Value v = worklist.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (v != info.value) {
        // A resident whose home may be the host: readable only if kept.
        auto it = candidateOf.find(v);
        if (it != candidateOf.end() && candidates[it->second].resident) {
          requires.push_back(it->second);
          continue;
        }
        if (availableAnyway(v))
          continue;
        bool stopsHere =
            stop == Stop::AtSaved ||
            (stop == Stop::AtLayerInputs && layerInputs.contains(v));
        if (stopsHere && it != candidateOf.end() &&
            candidates[it->second].lastUse >= at) {
          requires.push_back(it->second);
          continue;
        }
      }
      Operation *def = v.getDefiningOp();
      if (!def || !recomputable(def)) {
        ok = false;
        break;
      }
      if (ops.insert(def))
        for (Value operand : def->getOperands())
          worklist.push_back(operand);
    }
    if (!ok)
      continue;
    RecomputeRecipe recipe;
    recipe.ops.assign(ops.begin(), ops.end());
    llvm::sort(recipe.ops, [&](Operation *a, Operation *b) {
      return live.getIndex(a) < live.getIndex(b);
    });
    llvm::SetVector<Value> inputs;
    llvm::DenseSet<Operation *> inRecipe(ops.begin(), ops.end());
    plan::Option option;
    option.fate = Fate::Recompute;
    int64_t transient = 0;
    for (Operation *op : recipe.ops) {
      for (Value operand : op->getOperands())
        if (!operand.getDefiningOp() ||
            !inRecipe.contains(operand.getDefiningOp()))
          inputs.insert(operand);
      option.seconds += estimateOpCost(op, profile).seconds;
      for (Value r : op->getResults())
        if (r != info.value && live.lookup(r).storage == Storage::Arena)
          transient += alignToArena(live.lookup(r).bytes);
    }
    recipe.inputs.assign(inputs.begin(), inputs.end());
    // The same recipe another way (nothing saved on the path, say).
    if (llvm::any_of(info.recipes, [&](const RecomputeRecipe &other) {
          return other.ops == recipe.ops;
        }))
      continue;
    option.requiresKept.assign(requires.begin(), requires.end());
    option.detail = static_cast<int64_t>(info.recipes.size());
    option.usage.push_back(
        {Tier::Device, point(info.def),
         info.handsOff ? boundary(info.lastForward) : point(info.lastForward),
         info.bytes});
    option.usage.push_back({Tier::Device, boundary(at), info.end, info.bytes});
    if (transient > 0)
      option.usage.push_back(
          {Tier::Device, boundary(at), boundary(at), transient});
    info.recipes.push_back(std::move(recipe));
    problem.candidates[c].options.push_back(std::move(option));
  }
}

void StepPlanner::markLayerInputs() {
  // A layer is one layer call (`gcn_conv(...)`): its forward ops share the
  // call's location, and its parameters are named after it
  // ("gcn_conv_2.weight" belongs to "gcn_conv_2"). The location alone is
  // not enough: `repeat` unrolls one call site into several layers.
  ArrayRef<Operation *> schedule = live.getSchedule();
  llvm::DenseMap<Operation *, std::string> layerOf;
  llvm::DenseSet<Location> layerLocs;
  for (Operation *op : schedule) {
    if (!live.isForward(op))
      continue;
    for (Value operand : op->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg)
        continue;
      ArgumentRole role = getArgumentRole(func, arg.getArgNumber());
      if (role.kind != ArgumentKind::Parameter)
        continue;
      layerOf[op] = StringRef(role.detail).rsplit('.').first.str();
      layerLocs.insert(op->getLoc());
    }
  }
  // The layer's other ops: those at its location that read a layer op's
  // result (an aggregation after the matmul), then those whose result a
  // layer op reads (an aggregation before it, as in sage_conv).
  auto sameLayer = [&](Operation *op, Operation *other) {
    return other && other->getLoc() == op->getLoc() && layerOf.count(other);
  };
  for (Operation *op : schedule)
    if (live.isForward(op) && !layerOf.count(op) &&
        layerLocs.contains(op->getLoc()))
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp(); sameLayer(op, def)) {
          layerOf[op] = layerOf[def];
          break;
        }
  for (Operation *op : llvm::reverse(schedule))
    if (live.isForward(op) && !layerOf.count(op) &&
        layerLocs.contains(op->getLoc()))
      for (Operation *user : op->getUsers())
        if (sameLayer(op, user)) {
          layerOf[op] = layerOf[user];
          break;
        }
  for (auto [op, layer] : layerOf)
    for (Value operand : op->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()) ||
          isa<BlockArgument>(operand))
        continue;
      auto it = layerOf.find(operand.getDefiningOp());
      if (it == layerOf.end() || it->second != layer)
        layerInputs.insert(operand);
    }
}

void StepPlanner::addResidents(const SessionFootprint &fp) {
  // Residents in argument order. A state value qualifies when the step
  // returns it computed (train.adam's new value, say) by an op whose result
  // nothing else reads: the copy home then goes right after that op.
  CandidateInfo graphs;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    BlockArgument arg = func.getArgument(i);
    ArgumentRole role = getArgumentRole(func, i);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    bool state = role.kind == ArgumentKind::Parameter ||
                 role.kind == ArgumentKind::State;
    // The features when movable; the labels and masks always (one buffer
    // of their one form serves every function).
    bool input =
        role.kind == ArgumentKind::Input &&
        ((role.role == "features" && fp.featuresMovable) ||
         llvm::is_contained(gnnrt::footprint::kLabelAndMaskRoles, role.role));
    bool prepared = role.kind == ArgumentKind::Prepared;
    if (prepared && isa<GraphType>(arg.getType())) {
      if (fp.graphsMovable && !arg.use_empty())
        graphs.graphArgs.push_back(arg);
      continue;
    }
    if (!type || (!state && !input && !prepared))
      continue;
    int64_t bytes = alignToArena(live.lookup(arg).bytes);
    CandidateInfo info;
    info.value = arg;
    info.resident = true;
    info.role = role.role;
    info.param = role.detail;
    info.bytes = bytes;
    info.keepBytes = state ? 2 * bytes : bytes;
    info.prepared = prepared;
    if (prepared)
      info.param = preparedName(func, role.detail);
    for (Operation *user : arg.getUsers())
      info.uses.push_back(live.getIndex(user));
    llvm::sort(info.uses);
    info.uses.erase(std::unique(info.uses.begin(), info.uses.end()),
                    info.uses.end());
    bool ok = !info.uses.empty();
    if (state) {
      ok = false;
      for (unsigned k = 0; k < func.getNumResults(); ++k) {
        auto r = func.getResultAttrOfType<StringAttr>(k, "train.role");
        auto p = func.getResultAttrOfType<StringAttr>(k, "gnn.param");
        if (!r || r.getValue() != role.role || !p ||
            p.getValue() != role.detail)
          continue;
        Value v = func.getBody().front().getTerminator()->getOperand(k);
        Operation *def = v.getDefiningOp();
        ok = !info.uses.empty() && def && v.hasOneUse();
        info.resultIndex = k;
        if (def)
          info.def = live.getIndex(def);
        break;
      }
    }
    if (!ok) {
      // Held as before: the session's buffers, counted besides the arena.
      if (state)
        fixedResidentBytes += info.keepBytes;
      continue;
    }
    info.firstBackward = info.uses.front();
    info.lastUse = info.uses.back();
    candidateOf[arg] = static_cast<int>(candidates.size());
    candidates.push_back(std::move(info));
  }
  if (graphs.graphArgs.empty())
    return;
  // prepare's graphs: one candidate, read wherever any of them is.
  auto type = cast<GraphType>(graphs.graphArgs.front().getType());
  graphs.value = graphs.graphArgs.front();
  graphs.resident = graphs.prepared = true;
  graphs.role = "prepared";
  graphs.param = "graphs";
  graphs.keepBytes = fp.prepareArena;
  graphs.bytes = alignToArena(
      4 * (type.getNodes() + 1 + 2 * type.getEdges())); // one in view
  for (BlockArgument arg : graphs.graphArgs)
    for (Operation *user : arg.getUsers())
      graphs.uses.push_back(live.getIndex(user));
  llvm::sort(graphs.uses);
  graphs.uses.erase(std::unique(graphs.uses.begin(), graphs.uses.end()),
                    graphs.uses.end());
  graphs.firstBackward = graphs.uses.front();
  graphs.lastUse = graphs.uses.back();
  graphCandidate = static_cast<int>(candidates.size());
  for (BlockArgument arg : graphs.graphArgs) {
    candidateOf[arg] = graphCandidate;
    // graphOptions' fourth option, after keep, once and per use (the
    // fifth reads in small tiles).
    for (Operation *user : arg.getUsers())
      if (readsInTiles(user, arg))
        graphTilesOption = 3;
  }
  candidates.push_back(std::move(graphs));
}

plan::Option StepPlanner::homeOption(HomeStaging staging,
                                     const CandidateInfo &info) const {
  plan::Option o;
  o.fate = Fate::Host;
  o.detail = staging;
  o.usage.push_back({Tier::Host, 0, problem.numPoints - 1, info.keepBytes});
  return o;
}

void StepPlanner::copyInFor(plan::Option &o, int64_t u, int64_t bytes,
                            double seconds) const {
  o.seconds += seconds;
  o.usage.push_back({Tier::Device, boundary(u), point(u), bytes});
}

void StepPlanner::graphOptions(int c) {
  const CandidateInfo &info = candidates[c];
  plan::Candidate &cand = problem.candidates[c];
  int64_t end = problem.numPoints - 1;
  cand.name = "prepared graphs";
  cand.bytes = info.keepBytes;
  plan::Option keep;
  keep.usage.push_back({Tier::Device, 0, end, info.keepBytes});
  if (forbidGraphKeep)
    keep.usage.push_back({Tier::Device, 0, 0, kForbiddenBytes});
  cand.options.push_back(std::move(keep));
  if (!offerHostReads)
    return;
  double in = transferSeconds(info.bytes, TransferTier::Host, true, profile);
  SmallVector<GraphLoad> loads = graphLoads(info);
  for (HomeStaging staging : {StageOnce, StagePerUse}) {
    plan::Option o = homeOption(staging, info);
    for (const GraphLoad &load : loads) {
      if (staging == StageOnce) {
        o.seconds += in;
        o.usage.push_back({Tier::Device, boundary(load.uses.front()),
                           point(load.uses.back()), info.bytes});
        continue;
      }
      o.seconds += in * static_cast<double>(load.uses.size());
      for (int64_t u : load.uses)
        o.usage.push_back({Tier::Device, boundary(u), point(u), info.bytes});
    }
    cand.options.push_back(std::move(o));
  }
  if (graphTilesOption < 0)
    return;
  // Per use, the aggregations reading a tile at a time: the device holds a
  // tile during each, and they pay the copies (tiledReadSeconds).
  assert(graphTilesOption == static_cast<int>(cand.options.size()));
  for (HomeStaging staging : {StageTiles, StageSmallTiles}) {
    plan::Option o = homeOption(staging, info);
    for (const GraphLoad &load : loads)
      for (int64_t u : load.uses) {
        Operation *user = live.getSchedule()[u];
        if (!readsInTiles(user, load.arg)) {
          copyInFor(o, u, info.bytes, in);
          continue;
        }
        auto type = cast<GraphType>(load.arg.getType());
        const int64_t slots = *stagedTileSlots(staging, type.getEdges());
        double share = estimatedRowShare(user);
        o.seconds += tiledReadSeconds(
            static_cast<int64_t>(share * static_cast<double>(type.getNodes())),
            static_cast<int64_t>(share * static_cast<double>(type.getEdges())),
            0, slots, profile, tilesCarrySources(user));
        o.usage.push_back(
            {Tier::Device, boundary(u), point(u), graphTileBytes(slots)});
      }
    cand.options.push_back(std::move(o));
  }
}

SmallVector<GraphLoad>
StepPlanner::graphLoads(const CandidateInfo &info) const {
  SmallVector<GraphLoad> loads;
  for (BlockArgument arg : info.graphArgs)
    for (mem::GraphView view : {mem::GraphView::In, mem::GraphView::Out}) {
      GraphLoad load{arg, view, {}};
      for (Operation *user : arg.getUsers())
        if (mem::graphViewReadBy(user) == view)
          load.uses.push_back(live.getIndex(user));
      if (load.uses.empty())
        continue;
      llvm::sort(load.uses);
      load.uses.erase(std::unique(load.uses.begin(), load.uses.end()),
                      load.uses.end());
      loads.push_back(std::move(load));
    }
  return loads;
}

void StepPlanner::residentOptions(int c) {
  const CandidateInfo &info = candidates[c];
  plan::Candidate &cand = problem.candidates[c];
  int64_t end = problem.numPoints - 1;
  cand.name = info.param.empty() ? info.role : info.role + " " + info.param;
  cand.bytes = info.keepBytes;
  plan::Option keep;
  keep.usage.push_back({Tier::Device, 0, end, info.keepBytes});
  cand.options.push_back(std::move(keep));
  if (!offerHostReads)
    return;
  // An input the step reads at one set's rows only is copied in as those
  // rows (its home and its device copy still take the whole tensor).
  int64_t inBytes = info.bytes;
  if (auto arg = dyn_cast<BlockArgument>(info.value);
      arg && info.resultIndex < 0)
    if (std::optional<RowRestriction> rows = homeRows(arg))
      inBytes = rowBytesMoved(info.bytes, *rows, arg);
  double in = transferSeconds(inBytes, TransferTier::Host, true, profile);
  double out = transferSeconds(info.bytes, TransferTier::Host, false, profile);
  for (HomeStaging staging : {StageOnce, StagePerUse}) {
    if (staging == StagePerUse && info.uses.size() < 2)
      continue;
    plan::Option o = homeOption(staging, info);
    if (staging == StageOnce) {
      o.seconds = in;
      o.usage.push_back({Tier::Device, boundary(info.uses.front()),
                         point(info.uses.back()), info.bytes});
    } else {
      o.seconds = in * static_cast<double>(info.uses.size());
      for (int64_t u : info.uses)
        o.usage.push_back({Tier::Device, boundary(u), point(u), info.bytes});
    }
    if (info.resultIndex >= 0) {
      // The new value, from its op to the copy home right after it.
      o.seconds += out;
      o.usage.push_back(
          {Tier::Device, point(info.def), boundary(info.def + 1), info.bytes});
    }
    cand.options.push_back(std::move(o));
  }
  // Features that only products read (no input dropout): per use, read
  // from the home a tile at a time by each product.
  std::optional<int64_t> tile = productTileBytes(info.value);
  if (info.resultIndex < 0 && tile) {
    plan::Option o = homeOption(StageTiles, info);
    for (int64_t u : info.uses) {
      o.seconds +=
          tiledProductReads(live.getSchedule()[u], *tile, profile).seconds;
      o.usage.push_back({Tier::Device, boundary(u), point(u), *tile});
    }
    cand.options.push_back(std::move(o));
    return;
  }
  // prepare's edge weights, per use, read a tile at a time by the
  // aggregations that read their graph so: valid with the graphs' tiles of
  // the same size (each tile of weights holds its graph tile's slots).
  if (!info.prepared || graphTilesOption < 0 || info.resultIndex >= 0)
    return;
  auto type = cast<RankedTensorType>(info.value.getType());
  int64_t heads = type.getRank() == 2 ? type.getDimSize(1) : 1;
  for (HomeStaging staging : {StageTiles, StageSmallTiles}) {
    plan::Option o = homeOption(staging, info);
    o.requiresOption.push_back(
        {graphCandidate,
         graphTilesOption + (staging == StageSmallTiles ? 1 : 0)});
    bool anyTiled = false;
    for (int64_t u : info.uses) {
      Operation *user = live.getSchedule()[u];
      if (!readsWeightsInTiles(user, info.value)) {
        copyInFor(o, u, info.bytes, in);
        continue;
      }
      anyTiled = true;
      auto spmm = cast<SpmmOp>(user);
      int64_t edges = cast<GraphType>(spmm.getGraph().getType()).getEdges();
      double share = estimatedRowShare(user);
      o.seconds += tiledWeightSeconds(share * static_cast<double>(edges), heads,
                                      profile);
      o.usage.push_back(
          {Tier::Device, boundary(u), point(u),
           weightTileBytes(*stagedTileSlots(staging, edges), heads)});
    }
    if (anyTiled)
      cand.options.push_back(std::move(o));
  }
}

bool StepPlanner::readsWeightsInTiles(Operation *user, Value weights) const {
  auto spmm = dyn_cast<SpmmOp>(user);
  if (!spmm || spmm.getWeights() != weights || graphCandidate < 0)
    return false;
  auto graph = dyn_cast<BlockArgument>(spmm.getGraph());
  return graph &&
         llvm::is_contained(candidates[graphCandidate].graphArgs, graph) &&
         readsInTiles(user, graph);
}

int64_t StepPlanner::keptResidentBytes(const std::vector<int> &choice,
                                       bool preparedOnly) const {
  int64_t kept = 0;
  for (size_t c = 0; c < candidates.size(); ++c)
    if (candidates[c].resident && choice[c] == 0 &&
        (!preparedOnly || candidates[c].prepared))
      kept += candidates[c].keepBytes;
  return kept;
}

int64_t StepPlanner::preparedCandidateBytes() const {
  int64_t bytes = 0;
  for (const CandidateInfo &info : candidates)
    if (info.prepared)
      bytes += info.keepBytes;
  return bytes;
}

void StepPlanner::build(bool allowNarrow, Type narrowType,
                        const SessionFootprint &fp, bool layerRecipes) {
  if (layerRecipes)
    markLayerInputs();
  ArrayRef<Operation *> schedule = live.getSchedule();
  int64_t numOps = static_cast<int64_t>(schedule.size());
  problem = plan::Problem(2 * numOps);
  for (Operation *op : schedule)
    keepAllSeconds += estimateOpCost(op, profile).seconds;

  // Candidates: saved tensors with at least one op between their last
  // forward and first backward use, and no views (a view's users would
  // need the restored value too).
  // A reader's result takes over one operand's slot: the first candidate
  // that could hand itself on to a reader claims it.
  llvm::DenseSet<int64_t> claimedReaders;
  for (const ValueLiveness &v : live.getValues()) {
    if (!v.saved || !isa<RankedTensorType>(v.value.getType()))
      continue;
    CandidateInfo info;
    info.value = v.value;
    info.def = v.def;
    info.lastForward = v.def;
    info.firstBackward = v.lastUse;
    info.lastUse = v.lastUse;
    info.end = lastPoint(v);
    info.bytes = alignToArena(v.bytes);
    bool hasView = false;
    for (Operation *user : v.value.getUsers()) {
      int64_t k = live.getIndex(user);
      for (Value r : user->getResults())
        hasView |= getViewSource(r) == v.value;
      if (live.isForward(user))
        info.lastForward = std::max(info.lastForward, k);
      else if (!isa<func::ReturnOp>(user))
        info.firstBackward = std::min(info.firstBackward, k);
    }
    if (hasView || info.firstBackward < info.lastForward + 2)
      continue;
    info.handsOff = takesOverWhenGone(v, info.lastForward) &&
                    claimedReaders.insert(info.lastForward).second;
    SmallVector<int64_t> backward;
    for (Operation *user : v.value.getUsers())
      if (int64_t k = live.getIndex(user);
          k >= info.firstBackward && !isa<func::ReturnOp>(user))
        backward.push_back(k);
    llvm::sort(backward);
    for (auto [from, to] : llvm::zip(backward, llvm::drop_begin(backward)))
      if (to >= from + 2 && to - from > info.gapTo - info.gapFrom)
        std::tie(info.gapFrom, info.gapTo) = std::pair(from, to);
    candidateOf[v.value] = static_cast<int>(candidates.size());
    candidates.push_back(std::move(info));
  }
  // Parked candidates: other arena tensors idle for at least one op
  // between their op and their first reader, the weight gradients above
  // all (computed layer by layer in the backward pass, read by the
  // optimizer after the last). Below 4 KiB a value is left out: moving it
  // saves less than the row sets' and tiles' rounding, and each candidate
  // costs the solver time.
  constexpr int64_t kMinParkedBytes = 4096;
  for (const ValueLiveness &v : live.getValues()) {
    if (v.saved || v.storage != Storage::Arena ||
        !isa<RankedTensorType>(v.value.getType()) ||
        alignToArena(v.bytes) < kMinParkedBytes || candidateOf.count(v.value) ||
        makesRowSets(v.value.getDefiningOp()))
      continue;
    int64_t firstUse = std::numeric_limits<int64_t>::max();
    bool hasView = false;
    for (Operation *user : v.value.getUsers()) {
      firstUse = std::min(firstUse, live.getIndex(user));
      for (Value r : user->getResults())
        hasView |= getViewSource(r) == v.value;
    }
    if (hasView || firstUse == std::numeric_limits<int64_t>::max() ||
        firstUse < v.def + 2 || getCsrEncoding(v.value.getType()))
      continue;
    CandidateInfo info;
    info.value = v.value;
    info.def = info.lastForward = v.def;
    info.firstBackward = firstUse;
    info.lastUse = v.lastUse;
    info.end = lastPoint(v);
    info.bytes = alignToArena(v.bytes);
    info.parked = true;
    candidateOf[v.value] = static_cast<int>(candidates.size());
    candidates.push_back(std::move(info));
  }
  size_t numSaved = candidates.size();
  addResidents(fp);

  // The base: every arena value that is not a candidate, over its life.
  for (const ValueLiveness &v : live.getValues())
    if (v.storage == Storage::Arena && !candidateOf.count(v.value)) {
      std::vector<int64_t> &device = problem.base[0];
      for (int64_t p = point(v.def), end = lastPoint(v); p <= end; ++p)
        device[p] += alignToArena(v.bytes);
    }

  problem.candidates.resize(candidates.size());
  for (size_t c = numSaved; c < candidates.size(); ++c) {
    if (static_cast<int>(c) == graphCandidate)
      graphOptions(static_cast<int>(c));
    else
      residentOptions(static_cast<int>(c));
  }
  for (size_t c = 0; c < numSaved; ++c) {
    CandidateInfo &info = candidates[c];
    plan::Candidate &cand = problem.candidates[c];
    Operation *def = info.value.getDefiningOp();
    cand.name =
        llvm::formatv("{0}@{1}", def->getName().getStringRef(), info.def);
    cand.bytes = info.bytes;
    plan::Option keep;
    keep.usage.push_back({Tier::Device, point(info.def), info.end, info.bytes});
    cand.options.push_back(std::move(keep));
  }
  for (size_t c = 0; c < numSaved; ++c) {
    CandidateInfo &info = candidates[c];
    plan::Candidate &cand = problem.candidates[c];
    // Row sets stay: the copies of the values restricted to them read them
    // at offload and at prefetch, points this problem does not model (and
    // they are small next to what they restrict: about 1.25 integers per
    // row of it, a node's or, gnn.receptive_edges', an edge's).
    if (makesRowSets(info.value.getDefiningOp()))
      continue;
    if (!info.parked)
      makeRecipes(static_cast<int>(c));
    int64_t released = releasedAt(info);
    int64_t restored = boundary(info.firstBackward);
    // A value computed at one set's rows has only those rows copied to host
    // memory or packed into signs; it is still given the whole tensor's
    // room, an upper bound, since the set's size is only estimated here.
    int64_t rowsMoved = info.bytes;
    if (std::optional<RowRestriction> rows = transferRows(info.value))
      rowsMoved = rowBytesMoved(info.bytes, *rows, info.value);
    for (auto [fate, tier, transfer] :
         {std::tuple{Fate::Host, Tier::Host, TransferTier::Host},
          std::tuple{Fate::Disk, Tier::Disk, TransferTier::Disk}}) {
      plan::Option o;
      o.fate = fate;
      int64_t moved = tier == Tier::Host ? rowsMoved : info.bytes;
      o.seconds = transferSeconds(moved, transfer, false, profile) +
                  transferSeconds(moved, transfer, true, profile);
      o.usage.push_back({Tier::Device, point(info.def), released, info.bytes});
      // Host memory is an arena of 64-byte slots, like the device; a spill
      // file holds the tensor's bytes and nothing more.
      int64_t away = info.bytes;
      if (tier == Tier::Disk)
        away = storageBytes(info.value).value_or(info.bytes);
      o.usage.push_back({tier, released, restored, away});
      o.usage.push_back({Tier::Device, restored, info.end, info.bytes});
      cand.options.push_back(std::move(o));
    }
    if (info.gapTo > 0 && !info.parked) {
      // The host copy stays until the last copy back; the device holds the
      // tensor from its first backward reader to the gap's start.
      const int64_t parked = boundary(info.gapFrom + 1);
      const int64_t back = boundary(info.gapTo);
      const double out =
          transferSeconds(rowsMoved, TransferTier::Host, false, profile);
      const double in =
          transferSeconds(rowsMoved, TransferTier::Host, true, profile);
      plan::Option twice;
      twice.fate = Fate::Host;
      twice.detail = RestoreTwice;
      twice.seconds = out + 2 * in;
      twice.usage.push_back(
          {Tier::Device, point(info.def), released, info.bytes});
      twice.usage.push_back({Tier::Host, released, back, info.bytes});
      twice.usage.push_back({Tier::Device, restored, parked, info.bytes});
      twice.usage.push_back({Tier::Device, back, info.end, info.bytes});
      cand.options.push_back(std::move(twice));
    }
    // A matrix that only products read as their left operand (dropout's
    // features, CSR or dense; a hidden layer's input, which its projection
    // and its weight gradient read): to host memory right after its op, and
    // every product, the forward's too, reads it a tile at a time. The
    // device holds it only while its op writes it, and a tile during each
    // product. On a 2M-node graph that takes a 64-wide layer's input (512
    // MB) off the device at its weight gradient, beside the incoming
    // gradient.
    std::optional<int64_t> tile = productTileBytes(info.value);
    if (tile && offerHostReads) {
      const int64_t offloaded = boundary(info.def + 1);
      plan::Option o;
      o.fate = Fate::Host;
      o.detail = ReadInTiles;
      o.seconds =
          transferSeconds(rowsMoved, TransferTier::Host, false, profile);
      o.usage.push_back({Tier::Device, point(info.def), offloaded, info.bytes});
      o.usage.push_back({Tier::Host, offloaded, info.end, info.bytes});
      for (Operation *user : info.value.getUsers()) {
        const int64_t u = live.getIndex(user);
        o.usage.push_back({Tier::Device, boundary(u), point(u), *tile});
        o.seconds += tiledProductReads(user, *tile, profile).seconds;
      }
      cand.options.push_back(std::move(o));
    }
    auto type = cast<RankedTensorType>(info.value.getType());
    if (allowNarrow && !info.parked && type.getElementType().isF32() &&
        !getCsrEncoding(type)) {
      int64_t narrow = alignToArena(type.getNumElements() *
                                    narrowType.getIntOrFloatBitWidth() / 8);
      plan::Option o;
      o.fate = Fate::Narrow;
      o.seconds = 2 * convertSeconds(type.getNumElements(), profile);
      o.usage.push_back({Tier::Device, point(info.def), released, info.bytes});
      o.usage.push_back({Tier::Device, released, restored, narrow});
      o.usage.push_back({Tier::Device, restored, info.end, info.bytes});
      cand.options.push_back(std::move(o));
    }
    // Read only by relu or leaky_relu gradients, which need x > 0 alone:
    // its signs, a bit an element, exact at any saved_precision. The
    // gradients read the bits themselves (a packed mem.load_sign), so the
    // device holds them alone to the end, and they are packed once.
    RankedTensorType bits = mem::signBitsType(type);
    if (offerSigns && !info.parked && type.getElementType().isF32() && bits &&
        readBySignsOnly(info)) {
      int64_t packed = alignToArena(bits.getNumElements());
      plan::Option o;
      o.fate = Fate::Sign;
      o.seconds = signSeconds(static_cast<double>(rowsMoved), profile);
      o.usage.push_back({Tier::Device, point(info.def), released, info.bytes});
      o.usage.push_back({Tier::Device, released, info.end, packed});
      cand.options.push_back(std::move(o));
    }
  }
}

bool StepPlanner::takesOverWhenGone(const ValueLiveness &v,
                                    int64_t reader) const {
  if (reader <= v.def)
    return false;
  Operation *op = live.getSchedule()[reader];
  if (op->getNumResults() == 0)
    return false;
  const ValueLiveness &result = live.lookup(op->getResult(0));
  if (result.storage != Storage::Arena || result.inPlaceOf ||
      alignToArena(result.bytes) != alignToArena(v.bytes))
    return false;
  return llvm::any_of(inPlaceReads(op), [&](auto read) {
    return read.first == v.value && !read.second;
  });
}

bool StepPlanner::readBySignsOnly(const CandidateInfo &info) const {
  bool any = false;
  for (OpOperand &use : info.value.getUses()) {
    if (live.getIndex(use.getOwner()) < info.firstBackward)
      continue;
    if (!mem::readsSignOnly(use))
      return false;
    any = true;
  }
  return any;
}

int64_t StepPlanner::rewrite(func::FuncOp target,
                             const std::vector<int> &choice, Type narrowType,
                             bool handOffs) {
  // The clone has the same ops in the same order.
  SmallVector<Operation *> ops;
  for (Operation &op : target.getBody().front())
    ops.push_back(&op);
  IRMapping toTarget;
  for (auto [from, to] : llvm::zip(live.getSchedule(), ops))
    for (auto [a, b] : llvm::zip(from->getResults(), to->getResults()))
      toTarget.map(a, b);
  for (auto [a, b] : llvm::zip(func.getArguments(), target.getArguments()))
    toTarget.map(a, b);

  // Where each new op sits in the original order, so uses can be sorted
  // into before and after a restore point.
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [k, op] : llvm::enumerate(ops))
    position[op] = 2 * static_cast<int64_t>(k) + 1;
  MLIRContext *ctx = target.getContext();
  OpBuilder b(ctx);
  int64_t handles = 0;
  struct Restore {
    size_t candidate;
    Value handleOrNarrow;
  };
  SmallVector<Restore> restores;
  // A value computed at one set's rows alone (transferRows) is copied to
  // host memory, or packed into signs, at those rows only.
  auto restrictToRows = [&](auto op, Value original) {
    if (std::optional<RowRestriction> rows = transferRows(original)) {
      op.getRowSetsMutable().assign(toTarget.lookup(rows->rowSets));
      op.setLevel(static_cast<uint64_t>(rows->level));
    }
  };
  // Releases first, at each boundary before the acquires: the peak there
  // is then the lower one.
  for (size_t c = 0; c < candidates.size(); ++c) {
    if (candidates[c].resident)
      continue;
    const plan::Option &o = problem.candidates[c].options[choice[c]];
    const CandidateInfo &info = candidates[c];
    Value value = toTarget.lookup(info.value);
    // Just before its last forward reader when that reader then writes over
    // it (releasedAt): the copy or signs are taken first, on either target
    // in program order.
    const int64_t leaves = leavesBefore(info, handOffs);
    b.setInsertionPoint(ops[leaves]);
    Location loc = value.getLoc();
    auto type = cast<RankedTensorType>(value.getType());
    Value handle;
    const bool inTiles = o.fate == Fate::Host && o.detail == ReadInTiles;
    if (inTiles) {
      // Offloaded right after its op; the products read the host copy.
      b.setInsertionPoint(ops[info.def + 1]);
      auto op = b.create<mem::OffloadOp>(
          loc, mem::OffloadedType::get(ctx, mem::Tier::host, type), value,
          mem::Tier::host);
      // A dense matrix's rows of its set alone, which its products read
      // as listed rows (denseProductTileBytes).
      restrictToRows(op, info.value);
      op->setAttr("mem.handle", b.getI64IntegerAttr(handles++));
      position[op] = 2 * (info.def + 1);
      handle = op;
    } else if (o.fate == Fate::Host || o.fate == Fate::Disk) {
      mem::Tier tier = o.fate == Fate::Host ? mem::Tier::host : mem::Tier::disk;
      auto op = b.create<mem::OffloadOp>(
          loc, mem::OffloadedType::get(ctx, tier, type), value, tier);
      if (tier == mem::Tier::host)
        restrictToRows(op, info.value);
      op->setAttr("mem.handle", b.getI64IntegerAttr(handles++));
      position[op] = 2 * leaves;
      handle = op;
    } else if (o.fate == Fate::Narrow) {
      auto narrow = RankedTensorType::get(type.getShape(), narrowType);
      auto op = b.create<mem::StoreAsOp>(loc, narrow, value);
      position[op] = 2 * leaves;
      handle = op;
    } else if (o.fate == Fate::Sign) {
      auto op = b.create<mem::StoreSignOp>(loc, mem::signBitsType(type), value,
                                           Value(), IntegerAttr());
      restrictToRows(op, info.value);
      position[op] = 2 * leaves;
      handle = op;
    }
    restores.push_back({c, handle});
  }
  for (auto [c, handle] : restores) {
    const plan::Option &o = problem.candidates[c].options[choice[c]];
    if (o.fate == Fate::Keep)
      continue;
    const CandidateInfo &info = candidates[c];
    Value value = toTarget.lookup(info.value);
    if (o.fate == Fate::Host && o.detail == ReadInTiles) {
      // Each product reads the host copy through its own tile (the size
      // the option was priced at); the copy is freed after the last.
      const int64_t tile = *productTileBytes(info.value);
      SmallVector<OpOperand *> reads;
      for (OpOperand &use : value.getUses())
        if (isa<MatmulOp>(use.getOwner()))
          reads.push_back(&use);
      Operation *last = nullptr;
      for (OpOperand *use : reads) {
        Operation *user = use->getOwner();
        b.setInsertionPoint(user);
        auto prefetch =
            b.create<mem::PrefetchOp>(value.getLoc(), value.getType(), handle);
        prefetch.setTileBytes(static_cast<uint64_t>(tile));
        auto offload = handle.getDefiningOp<mem::OffloadOp>();
        if (Value sets = offload.getRowSets()) {
          prefetch.getRowSetsMutable().assign(sets);
          prefetch.setLevel(*offload.getLevel());
        }
        position[prefetch] = position.lookup(user) - 1;
        use->set(prefetch);
        if (!last || position.lookup(user) > position.lookup(last))
          last = user;
      }
      b.setInsertionPointAfter(last);
      auto free = b.create<mem::FreeOp>(value.getLoc(), handle);
      position[free] = position.lookup(last) + 1;
      continue;
    }
    Location loc = value.getLoc();
    // A copy back to the device at op \p k (the rows the offload took),
    // with the host copy freed after it when it is the last.
    auto prefetchAt = [&](int64_t k, bool last) -> Value {
      b.setInsertionPoint(ops[k]);
      auto prefetch = b.create<mem::PrefetchOp>(loc, value.getType(), handle);
      if (auto offload = handle.getDefiningOp<mem::OffloadOp>();
          offload && offload.getRowSets()) {
        prefetch.getRowSetsMutable().assign(offload.getRowSets());
        prefetch.setLevelAttr(offload.getLevelAttr());
      }
      position[prefetch] = 2 * k;
      if (last) {
        auto free = b.create<mem::FreeOp>(loc, handle);
        position[free] = 2 * k;
      }
      return prefetch;
    };
    // Uses at or after op \p k of \p from read \p to instead.
    auto readFrom = [&](Value from, Value to, int64_t k) {
      from.replaceUsesWithIf(to, [&](OpOperand &use) {
        auto it = position.find(use.getOwner());
        return it != position.end() && it->second >= 2 * k &&
               use.getOwner() != to.getDefiningOp();
      });
    };
    if (o.fate == Fate::Host && o.detail == RestoreTwice) {
      Value early = prefetchAt(info.firstBackward, /*last=*/false);
      Value late = prefetchAt(info.gapTo, /*last=*/true);
      readFrom(value, early, info.firstBackward);
      readFrom(early, late, info.gapTo);
      continue;
    }
    Operation *before = ops[info.firstBackward];
    b.setInsertionPoint(before);
    int64_t at = 2 * info.firstBackward;
    Value restored;
    if (o.fate == Fate::Host || o.fate == Fate::Disk) {
      restored = prefetchAt(info.firstBackward, /*last=*/true);
    } else if (o.fate == Fate::Narrow) {
      auto load = b.create<mem::LoadAsOp>(loc, value.getType(), handle);
      position[load] = at;
      restored = load;
    } else if (o.fate == Fate::Sign) {
      auto store = handle.getDefiningOp<mem::StoreSignOp>();
      auto load = b.create<mem::LoadSignOp>(loc, value.getType(), handle,
                                            /*packed=*/true, store.getRowSets(),
                                            store.getLevelAttr());
      position[load] = at;
      restored = load;
    } else {
      const RecomputeRecipe &recipe = info.recipes[o.detail];
      SmallVector<Value> inputs;
      for (Value in : recipe.inputs)
        inputs.push_back(toTarget.lookup(in));
      auto rec =
          b.create<mem::RecomputeOp>(loc, TypeRange{value.getType()}, inputs);
      Block *body = b.createBlock(&rec.getBody());
      IRMapping inside;
      for (Value in : inputs)
        inside.map(in, body->addArgument(in.getType(), in.getLoc()));
      OpBuilder ib = OpBuilder::atBlockEnd(body);
      for (Operation *op : recipe.ops) {
        Operation *twin = op->getBlock() == &func.getBody().front()
                              ? ops[live.getIndex(op)]
                              : op;
        ib.clone(*twin, inside);
      }
      ib.create<mem::YieldOp>(loc, inside.lookup(value));
      position[rec] = at;
      restored = rec.getResult(0);
    }
    readFrom(value, restored, info.firstBackward);
  }
  // Residents with a host home: copied in before their first use (or each
  // use), and a state value's new value copied home right after its op.
  Operation *ret = target.getBody().front().getTerminator();
  for (size_t c = 0; c < candidates.size(); ++c) {
    const CandidateInfo &info = candidates[c];
    const plan::Option &o = problem.candidates[c].options[choice[c]];
    if (!info.resident || o.fate != Fate::Host)
      continue;
    // prepare's graphs: the view each op reads, copied in before the
    // first op reading it or before each (as graphOptions priced them).
    for (BlockArgument graph : info.graphArgs) {
      auto arg = cast<BlockArgument>(toTarget.lookup(graph));
      target.setArgAttr(arg.getArgNumber(), "mem.home",
                        b.getStringAttr("host"));
      std::optional<int64_t> tiles;
      if (std::optional<int64_t> slots = stagedTileSlots(
              o.detail, cast<GraphType>(arg.getType()).getEdges()))
        tiles = graphTileBytes(*slots);
      loadGraphViews(b, arg, /*perUse=*/o.detail != StageOnce, tiles);
    }
    if (!info.graphArgs.empty())
      continue;
    auto arg = cast<BlockArgument>(toTarget.lookup(info.value));
    target.setArgAttr(arg.getArgNumber(), "mem.home", b.getStringAttr("host"));
    // The rows the copy in brings (residentOptions priced them so).
    std::optional<RowRestriction> rows;
    if (info.resultIndex < 0)
      rows = homeRows(cast<BlockArgument>(info.value));
    auto loadHome = [&]() {
      auto load = b.create<mem::LoadHomeOp>(arg.getLoc(), arg.getType(), arg);
      if (rows) {
        load.getRowSetsMutable().assign(toTarget.lookup(rows->rowSets));
        load.setLevel(static_cast<uint64_t>(rows->level));
      }
      return load;
    };
    if (o.detail == StageOnce) {
      b.setInsertionPoint(ops[info.uses.front()]);
      auto load = loadHome();
      arg.replaceAllUsesExcept(load, load);
    } else {
      // Features read a tile at a time by products: no copy, no rows.
      std::optional<int64_t> productTiles;
      if (o.detail == StageTiles)
        productTiles = productTileBytes(info.value);
      for (int64_t u : info.uses) {
        Operation *user = ops[u];
        if (productTiles) {
          loadProductTiles(b, arg, user, *productTiles);
          continue;
        }
        b.setInsertionPoint(user);
        auto load = loadHome();
        // Edge weights read a tile at a time with their graph (the graphs'
        // candidate comes last, so the aggregation still reads its
        // argument here).
        if (readsWeightsInTiles(live.getSchedule()[u], info.value))
          if (std::optional<int64_t> slots = stagedTileSlots(
                  o.detail,
                  cast<GraphType>(cast<SpmmOp>(user).getGraph().getType())
                      .getEdges()))
            setWeightTile(load, *slots);
        user->replaceUsesOfWith(arg, load);
      }
    }
    if (info.resultIndex >= 0) {
      target.setResultAttr(info.resultIndex, "mem.home",
                           b.getStringAttr("host"));
      Value result = ret->getOperand(info.resultIndex);
      b.setInsertionPointAfter(ops[info.def]);
      auto store =
          b.create<mem::StoreHomeOp>(result.getLoc(), result.getType(), result);
      ret->setOperand(info.resultIndex, store);
    }
  }
  return handles;
}

/// The cost model's seconds for every op of \p f's body, the copies from
/// and to homes and the tiled reads included.
double functionSeconds(func::FuncOp f, const MachineProfile &profile) {
  double seconds = 0;
  f.walk([&](Operation *op) {
    if (op != f.getOperation() && !isa<func::ReturnOp>(op))
      seconds += estimateOpCost(op, profile).seconds;
  });
  return seconds;
}

/// Gives init and predict the homes the step's plan chose: an argument
/// with the same (role, param) as a host-homed step argument is copied in
/// before its first use, a result copied home right after its op.
void applyHomes(func::FuncOp step, func::FuncOp f) {
  if (!f)
    return;
  auto key = [](func::FuncOp fn, unsigned i, bool result) {
    auto get = [&](StringRef name) -> std::string {
      auto a = result ? fn.getResultAttrOfType<StringAttr>(i, name)
                      : fn.getArgAttrOfType<StringAttr>(i, name);
      return a ? a.getValue().str() : std::string();
    };
    std::string role = get("train.role");
    if (role.empty())
      role = get("gnn.input");
    // prepare's values are told apart by their index.
    auto k = result ? fn.getResultAttrOfType<IntegerAttr>(i, "gnn.prepared")
                    : fn.getArgAttrOfType<IntegerAttr>(i, "gnn.prepared");
    return role + "\n" + get("gnn.param") +
           (k ? "\n" + std::to_string(k.getInt()) : std::string());
  };
  llvm::StringSet<> homes;
  for (unsigned i = 0; i < step.getNumArguments(); ++i)
    if (step.getArgAttr(i, "mem.home"))
      homes.insert(key(step, i, false));
  if (homes.empty())
    return;
  // Where the step reads prepare's graphs, and edge weights, a tile at a
  // time, so do they, through tiles of the step's sizes: their arenas must
  // not need more than the step's.
  std::optional<int64_t> graphTiles;
  llvm::StringMap<uint64_t> weightTiles;
  step.walk([&](mem::LoadGraphHomeOp load) {
    if (std::optional<uint64_t> tile = load.getTileBytes())
      graphTiles = static_cast<int64_t>(*tile);
  });
  step.walk([&](mem::LoadHomeOp load) {
    if (std::optional<uint64_t> tile = load.getTileBytes())
      weightTiles[key(step, cast<BlockArgument>(load.getHome()).getArgNumber(),
                      false)] = *tile;
  });
  OpBuilder b(f.getContext());
  StringAttr host = b.getStringAttr("host");
  // The graphs first: tiled weights need their aggregation's graph tiled.
  SmallVector<BlockArgument> args(f.getArguments());
  std::stable_partition(args.begin(), args.end(), [](BlockArgument a) {
    return isa<GraphType>(a.getType());
  });
  for (BlockArgument arg : args) {
    if (!homes.contains(key(f, arg.getArgNumber(), false)))
      continue;
    f.setArgAttr(arg.getArgNumber(), "mem.home", host);
    if (arg.use_empty())
      continue;
    if (isa<GraphType>(arg.getType())) {
      // Before each use: kept from its first use to its last, the graph
      // would be on the device beside values the step never holds with it
      // (a GAT layer split by heads joins its heads' outputs between two
      // attentions: 616 MB with the graph, 512 MB without, on 2M nodes).
      loadGraphViews(b, arg, /*perUse=*/true, graphTiles);
      continue;
    }
    if (std::optional<int64_t> tile = productTileBytes(arg)) {
      // Features that only products read (predict's, say): read from the
      // home a tile at a time, never whole on the device.
      for (Operation *user : llvm::to_vector(arg.getUsers()))
        loadProductTiles(b, arg, user, *tile);
      continue;
    }
    if (auto weightTile = weightTiles.find(key(f, arg.getArgNumber(), false));
        weightTile != weightTiles.end()) {
      for (OpOperand &use : llvm::make_early_inc_range(arg.getUses())) {
        Operation *user = use.getOwner();
        b.setInsertionPoint(user);
        auto load = b.create<mem::LoadHomeOp>(arg.getLoc(), arg.getType(), arg);
        auto spmm = dyn_cast<SpmmOp>(user);
        if (spmm && spmm.getWeights() == arg &&
            mem::tileBytesRead(spmm.getGraph()))
          load.setTileBytes(weightTile->second);
        use.set(load);
      }
      continue;
    }
    Operation *first = nullptr;
    for (Operation &op : f.getBody().front())
      if (llvm::is_contained(op.getOperands(), arg)) {
        first = &op;
        break;
      }
    b.setInsertionPoint(first);
    auto load = b.create<mem::LoadHomeOp>(arg.getLoc(), arg.getType(), arg);
    arg.replaceAllUsesExcept(load, load);
  }
  Operation *ret = f.getBody().front().getTerminator();
  for (unsigned k = 0; k < f.getNumResults(); ++k) {
    if (!homes.contains(key(f, k, true)))
      continue;
    f.setResultAttr(k, "mem.home", host);
    Value v = ret->getOperand(k);
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPoint(ret);
    ret->setOperand(k, b.create<mem::StoreHomeOp>(v.getLoc(), v.getType(), v));
  }
}

struct PlanMemoryPass : mlir::gnn::impl::GnnPlanMemoryBase<PlanMemoryPass> {
  using GnnPlanMemoryBase::GnnPlanMemoryBase;

  void runOnOperation() override {
    FailureOr<MachineProfile> prof = loadProfile();
    if (failed(prof))
      return signalPassFailure();
    for (auto func : llvm::to_vector(getOperation().getOps<func::FuncOp>()))
      if (!func.isExternal() && func->hasAttr("train.config") &&
          hasLoss(func) && failed(planStep(func, *prof)))
        return signalPassFailure();
  }

  FailureOr<MachineProfile> loadProfile() {
    if (profile.empty())
      return getDefaultProfile();
    // A shipped profile by name (the driver's default for --target=cuda).
    if (llvm::StringRef target = shippedProfileTarget(profile); !target.empty())
      return *getShippedProfile(target);
    llvm::Expected<MachineProfile> p = readProfile(profile);
    if (!p) {
      getOperation().emitError("gnn-plan-memory: ")
          << llvm::toString(p.takeError());
      return failure();
    }
    return *p;
  }

  static bool hasLoss(func::FuncOp f) {
    for (unsigned k = 0; k < f.getNumResults(); ++k)
      if (auto r = f.getResultAttrOfType<StringAttr>(k, "train.role"))
        if (r.getValue() == "loss")
          return true;
    return false;
  }

  /// Plans \p func. With \p unsplitKeepAllSeconds its aggregations have
  /// been split (SplitAggregations.h), and the unsplit step's time with
  /// every tensor kept is the one its overhead is stated against (its own
  /// keep-all already pays for the blocks); \p smallest, where no plan
  /// fits, then gets the smallest plan the error states. With
  /// \p probeBudget it plans for that budget instead of the configured one
  /// and only says whether its room places, by success, changing nothing.
  LogicalResult planStep(func::FuncOp func, const MachineProfile &prof,
                         std::optional<double> unsplitKeepAllSeconds = {},
                         std::optional<int64_t> *smallest = nullptr,
                         std::optional<int64_t> probeBudget = {});
};

LogicalResult PlanMemoryPass::planStep(func::FuncOp func,
                                       const MachineProfile &machine,
                                       std::optional<double> unsplitKeepAll,
                                       std::optional<int64_t> *splitSmallest,
                                       std::optional<int64_t> probeBudget) {
  const bool split = unsplitKeepAll.has_value();
  // Without the cache option (the CUDA target: its arena is device memory,
  // not the host's cache) the profile's cache terms are dropped.
  MachineProfile prof = machine;
  if (!cache)
    prof.cacheBytes = 0;
  auto config = func->getAttrOfType<DictionaryAttr>("train.config");
  auto getInt = [&](StringRef name) -> std::optional<int64_t> {
    if (auto a = config.getAs<IntegerAttr>(name))
      return a.getInt();
    return std::nullopt;
  };
  auto getStr = [&](StringRef name, StringRef fallback) -> std::string {
    if (auto a = config.getAs<StringAttr>(name))
      return a.getValue().str();
    return fallback.str();
  };
  std::optional<int64_t> budgetBytes = probeBudget ? probeBudget
                                       : budget >= 0
                                           ? std::optional<int64_t>(budget)
                                           : getInt("memory");
  std::string policyName = policy.empty() ? getStr("plan", "auto") : policy;
  if (!llvm::is_contained(plan::kPolicyNames, policyName))
    return func.emitError("gnn-plan-memory: unknown policy '")
           << policyName << "' (" << nameList(plan::kPolicyNames) << ")";
  std::string savedPrecision = getStr("saved_precision", "exact");
  Builder b(func.getContext());
  Type narrowType =
      savedPrecision == "fp16" ? Type(b.getF16Type()) : Type(b.getBF16Type());

  FailureOr<StepLiveness> live = StepLiveness::compute(func, "gnn-plan-memory");
  if (failed(live))
    return failure();
  FailureOr<SessionFootprint> fp = sessionFootprint(getOperation(), func);
  if (failed(fp))
    return failure();

  StepPlanner planner(func, *live, prof);
  planner.offerSigns = signs;
  planner.offerHostReads = hostReads;
  // Keeping prepare's graphs keeps the bound graph on the device beside
  // them while prepare runs. Where that cannot fit the budget with all of
  // prepare's values kept, they must go to host memory (a bound of this
  // planner: homing the edge weights alone might have made room).
  planner.forbidGraphKeep = budgetBytes && fp->graphsMovable &&
                            fp->prepared + fp->graph > *budgetBytes;
  planner.build(savedPrecision != "exact", narrowType, *fp,
                /*layerRecipes=*/policyName == "checkpoint_layers");
  plan::Problem &problem = planner.problem;
  // prepare's values that are candidates are counted by their options.
  fp->prepared -= planner.preparedCandidateBytes();

  // Capacities. The device: the budget less what the session holds
  // besides the step's arena; no budget plans nothing away.
  int64_t fixed = fp->fixed() + planner.fixedResidentBytes;
  int64_t unlimited = std::numeric_limits<int64_t>::max() / 4;
  std::optional<int64_t> host = getInt("host_memory");
  problem.capacity[1] = host ? *host : unlimited;
  int64_t diskBytes = 0;
  std::string spillDir;
  if (auto disk = config.getAs<DictionaryAttr>("disk")) {
    if (auto bytes = disk.getAs<IntegerAttr>("bytes"))
      diskBytes = bytes.getInt();
    if (auto dir = disk.getAs<StringAttr>("dir"))
      spillDir = dir.getValue().str();
  }
  problem.capacity[2] = diskBytes;
  if (llvm::Error err = problem.verify())
    return func.emitError("gnn-plan-memory: internal error: ")
           << llvm::toString(std::move(err));

  // A forced policy: every candidate takes the policy's fate where it has
  // an option of it that needs nothing kept (for recompute the last such
  // recipe, the one going furthest back), and is kept otherwise.
  // Residents: keep_all and recompute_all keep them on the device (so a
  // recompute may read them); offload_all gives them a host home, each
  // copied in once per step.
  auto forced = [&](Fate fate) {
    std::vector<int> choice(problem.candidates.size(), 0);
    bool away = fate == Fate::Host || fate == Fate::Disk;
    auto residentsKept = [&](const plan::Option &option) {
      return !away && llvm::all_of(option.requiresKept, [&](int r) {
        return planner.candidates[r].resident;
      });
    };
    for (auto [c, cand] : llvm::enumerate(problem.candidates)) {
      if (planner.candidates[c].resident) {
        if (away)
          for (auto [o, option] : llvm::enumerate(cand.options))
            if (option.fate == Fate::Host && option.detail == StageOnce)
              choice[c] = static_cast<int>(o);
        continue;
      }
      for (auto [o, option] : llvm::enumerate(cand.options))
        if (option.fate == fate &&
            (option.requiresKept.empty() || residentsKept(option)) &&
            (choice[c] == 0 || fate == Fate::Recompute))
          choice[c] = static_cast<int>(o);
    }
    return choice;
  };
  // offload_all: every candidate leaves the device, to host memory while
  // host_memory holds it and to the spill directory after that, in
  // schedule order, so a small host budget with a disk still offloads
  // everything instead of failing (residents, which have no disk home, then
  // stay on the device).
  auto offloadAll = [&]() {
    std::vector<int> choice(problem.candidates.size(), 0);
    std::vector<int> toDisk = forced(Fate::Disk);
    std::vector<int> toHost = forced(Fate::Host);
    for (size_t c = 0; c < choice.size(); ++c) {
      choice[c] = toHost[c];
      // Without a disk the host must take it (and an error says how much
      // host memory offload_all needs).
      if (problem.capacity[2] <= 0 ||
          plan::evaluate(problem, choice).peak[1] <= problem.capacity[1])
        continue;
      // A resident has no disk home: it stays on the device instead.
      choice[c] = planner.candidates[c].resident ? 0 : toDisk[c];
    }
    return choice;
  };

  // checkpoint_layers, what torch.utils.checkpoint around every layer does:
  // the layers' inputs and the residents stay on the device, and every
  // other saved tensor is recomputed, by the cheapest recipe that reads
  // only those (kept if it has none).
  auto checkpointLayers = [&]() {
    std::vector<int> choice(problem.candidates.size(), 0);
    auto kept = [&](int r) {
      return planner.candidates[r].resident ||
             planner.layerInputs.contains(planner.candidates[r].value);
    };
    for (auto [c, cand] : llvm::enumerate(problem.candidates)) {
      if (kept(static_cast<int>(c)))
        continue;
      for (auto [o, option] : llvm::enumerate(cand.options))
        if (option.fate == Fate::Recompute &&
            llvm::all_of(option.requiresKept, kept) &&
            (choice[c] == 0 ||
             option.seconds < cand.options[choice[c]].seconds))
          choice[c] = static_cast<int>(o);
    }
    return choice;
  };

  // The solver that chose the last solution ("none" for a forced policy),
  // recorded as `mem.solver` so `gnnc plan` can say what `auto` picked.
  std::string solverUsed = "none";
  // Whether tryRoom has taken the sign options out of the problem: the
  // only change the problem sees once built, so the two are the only
  // problems the solvers are asked.
  bool signsOut = false;
  // Per problem (indexed by signsOut), the greatest device capacity the
  // exact search proved to have no plan, and that answer. A capacity at or
  // below it has none either (its plans are among the larger one's), and
  // the searches below ask for many such: each room that does not place
  // ends at one, and the greedy pass before the exact one was a fifth of
  // their time.
  std::array<std::optional<std::pair<int64_t, plan::Solution>>, 2> noPlanBelow;
  auto solve = [&]() -> FailureOr<plan::Solution> {
    solverUsed = "none";
    if (policyName == "keep_all")
      return plan::evaluate(problem,
                            std::vector<int>(problem.candidates.size(), 0));
    if (policyName == "recompute_all")
      return plan::evaluate(problem, forced(Fate::Recompute));
    if (policyName == "offload_all")
      return plan::evaluate(problem, offloadAll());
    if (policyName == "checkpoint_layers")
      return plan::evaluate(problem, checkpointLayers());
    std::string which = solver;
    if (which == "auto") {
      // The greedy's plan first, then a bounded exact search that starts
      // from it: small steps get a proven optimum, large ones the best
      // plan the search found within its node budget (never worse than
      // the greedy's), and planning stays well under a second.
      std::optional<std::pair<int64_t, plan::Solution>> &known =
          noPlanBelow[signsOut];
      if (known && problem.capacity[0] <= known->first) {
        solverUsed = "exact";
        return known->second;
      }
      plan::Solution greedy = plan::solveGreedy(problem);
      plan::ExactLimits limits;
      limits.maxNodes = kAutoExactNodes;
      if (greedy.feasible)
        limits.incumbent = greedy.choice;
      plan::Solution exact = plan::solveExact(problem, limits);
      if (!exact.feasible && !exact.optimal) {
        solverUsed = "greedy";
        return greedy;
      }
      if (exact.optimal && !exact.feasible &&
          (!known || known->first < problem.capacity[0]))
        known.emplace(problem.capacity[0], exact);
      solverUsed = exact.optimal                    ? "exact"
                   : exact.seconds < greedy.seconds ? "greedy+exact"
                                                    : "greedy";
      return exact;
    }
    solverUsed = which;
    if (which == "ilp") {
      llvm::Expected<plan::Solution> s = plan::solveIlp(problem);
      if (!s) {
        func.emitError("gnn-plan-memory: ") << llvm::toString(s.takeError());
        return failure();
      }
      return *s;
    }
    if (which == "greedy")
      return plan::solveGreedy(problem);
    if (which != "exact") {
      func.emitError("gnn-plan-memory: unknown solver '")
          << which << "' (" << nameList(plan::kSolverNames) << ")";
      return failure();
    }
    plan::Solution s = plan::solveExact(problem);
    if (!s.optimal && !s.feasible) {
      solverUsed = "greedy";
      return plan::solveGreedy(problem);
    }
    return s;
  };

  // Solve, place, and shrink the room by what first fit adds, until the
  // placed arena fits (or the problem becomes infeasible).
  struct Attempt {
    bool placed = false;
    plan::Solution solution;
    std::string solver;
    OwningOpRef<func::FuncOp> planned;
    /// The step's arena; the residents the plan keeps on the device; the
    /// largest arena of init and predict given the plan's homes (they copy
    /// host-homed values in and out too), predict's holding its logits
    /// (footprint::predictWorkspace). The session's workspace is the
    /// largest of the three.
    int64_t arena = 0, handles = 0, kept = 0, others = 0;
    /// Predict's predicted seconds given the plan's homes (its copies in,
    /// its tiled reads), run once per validation pass.
    double predictSeconds = 0;
    /// Of `kept`, prepare's values; and whether prepare's graphs stay.
    int64_t keptPrepared = 0;
    bool graphsKept = true;
    /// What the room must hold: the workspace besides the kept residents.
    int64_t needs() const { return std::max(arena, others) + kept; }
    /// A copy with its own planned function.
    Attempt clone() const {
      Attempt copy;
      copy.placed = placed;
      copy.solution = solution;
      copy.solver = solver;
      copy.planned = planned.get().clone();
      copy.arena = arena;
      copy.handles = handles;
      copy.kept = kept;
      copy.others = others;
      copy.keptPrepared = keptPrepared;
      copy.graphsKept = graphsKept;
      copy.predictSeconds = predictSeconds;
      return copy;
    }
  };
  // Whether the budget holds \p a's prepare phase.
  auto prepareFits = [&](const Attempt &a) {
    return !budgetBytes ||
           fp->preparePhase(a.keptPrepared, a.graphsKept) <= *budgetBytes;
  };
  // The session's device peak under \p a: what the run measures.
  auto peakOf = [&](const Attempt &a) {
    return fp->peak(a.keptPrepared,
                    planner.fixedResidentBytes + a.kept - a.keptPrepared,
                    std::max(a.arena, a.others), a.graphsKept);
  };
  // Rewrites the step by \p solution and places it: the arena it needs.
  // The room searches below solve many rooms to the same choice, so each
  // choice is rewritten and placed once (rewriting, liveness and first fit
  // are most of their time). A choice means the same options with or
  // without the sign options (takeSignOptions keeps the others' indices).
  std::map<std::pair<std::vector<int>, bool>, Attempt> placedChoices;
  auto place = [&](Attempt &a, bool handOffs = true) -> LogicalResult {
    auto key = std::make_pair(a.solution.choice, handOffs);
    if (auto it = placedChoices.find(key); it != placedChoices.end()) {
      Attempt copy = it->second.clone();
      copy.placed = a.placed;
      copy.solution = std::move(a.solution);
      copy.solver = std::move(a.solver);
      a = std::move(copy);
      return success();
    }
    a.planned = func.clone();
    a.handles =
        planner.rewrite(*a.planned, a.solution.choice, narrowType, handOffs);
    OwningOpRef<func::FuncOp> flat = a.planned->clone();
    expandRecomputes(*flat);
    FailureOr<StepLiveness> after =
        StepLiveness::compute(*flat, "gnn-plan-memory");
    if (failed(after))
      return failure();
    a.arena = placeFirstFit(*after).arenaBytes;
    a.kept = planner.keptResidentBytes(a.solution.choice);
    a.keptPrepared = planner.keptResidentBytes(a.solution.choice, true);
    a.graphsKept = planner.keepsGraphs(a.solution.choice);
    a.others = 0;
    for (StringRef which : {"init", "predict"}) {
      func::FuncOp sibling = siblingOf(getOperation(), func, which);
      if (!sibling)
        continue;
      OwningOpRef<func::FuncOp> copy = sibling.clone();
      applyHomes(*a.planned, *copy);
      FailureOr<int64_t> other = arenaOf(*copy);
      if (failed(other))
        return failure();
      // Predict's arena holds its logits when it is marked so.
      if (which == "predict") {
        a.predictSeconds = functionSeconds(*copy, prof);
        *other = static_cast<int64_t>(gnnrt::footprint::predictWorkspace(
            static_cast<uint64_t>(*other), static_cast<uint64_t>(fp->nodes),
            static_cast<uint64_t>(fp->classes),
            (*copy)->hasAttr(kResultsInArenaAttr)));
      }
      a.others = std::max(a.others, *other);
    }
    placedChoices.emplace(std::move(key), a.clone());
    return success();
  };
  // The simple policies, placed once, as auto's fall-backs: the solver
  // sees byte curves, not placements, so in a tight room its plan can
  // fragment past the room where recompute_all's or offload_all's fits.
  // With them auto never needs a larger budget than a simple policy.
  std::optional<std::vector<Attempt>> simple;
  auto simplePlans = [&]() -> FailureOr<std::vector<Attempt> *> {
    if (simple)
      return &*simple;
    simple.emplace();
    int64_t device = problem.capacity[0];
    problem.capacity[0] = unlimited;
    for (auto [name, choice] :
         {std::pair{"recompute_all", forced(Fate::Recompute)},
          {"offload_all", offloadAll()}}) {
      Attempt a;
      a.solution = plan::evaluate(problem, choice);
      a.solver = name;
      if (!a.solution.feasible || failed(place(a)))
        continue;
      simple->push_back(std::move(a));
    }
    problem.capacity[0] = device;
    return &*simple;
  };
  // Whether the last placeWithin may have lost a plan to the sign options:
  // one of its rounds' plans took one, or the solver left a capacity
  // without a plan but did not prove it has none (kept here rather than in
  // the Attempt, which a round may replace by the same plan placed without
  // hand-offs). Otherwise the retry without signs below asks the same
  // capacities of a problem with fewer options, and over the test suite
  // and the benchmark's cells it placed none of 4,400 such rooms (it did
  // place 11 of the 64 others).
  bool signsMayHelp = false;
  // Solves and places at \p room, lowering the solver's capacity by what
  // the placement added, a few rounds; `placed` says whether one fit.
  auto placeWithin = [&](int64_t room) -> FailureOr<Attempt> {
    Attempt a;
    signsMayHelp = false;
    problem.capacity[0] = room;
    for (int round = 0; round < 8; ++round) {
      FailureOr<plan::Solution> s = solve();
      if (failed(s))
        return failure();
      a.solution = *s;
      a.solver = solverUsed;
      if (!a.solution.feasible)
        signsMayHelp |= !a.solution.optimal;
      else
        for (auto [c, cand] : llvm::enumerate(problem.candidates))
          signsMayHelp |= cand.options[a.solution.choice[c]].fate == Fate::Sign;
      // A forced policy is placed anyway, so an error can say what it
      // really needs; the other tiers are checked by their curves.
      bool otherTiersFit = a.solution.peak[1] <= problem.capacity[1] &&
                           a.solution.peak[2] <= problem.capacity[2];
      if (!a.solution.feasible && (policyName == "auto" || !otherTiersFit))
        break;
      if (failed(place(a)))
        return failure();
      // A value handed on to its last forward reader (releasedAt) joins
      // that reader's slot in one longer slot, which first fit may pack
      // worse than the two: the same plan is placed without hand-offs too.
      // Its peak is then above the curves' at those readers, but what the
      // room must hold is the placed arena either way.
      if (a.needs() > room && budgetBytes) {
        Attempt plain;
        plain.solution = a.solution;
        plain.solver = a.solver;
        if (failed(place(plain, /*handOffs=*/false)))
          return failure();
        if (plain.needs() < a.needs())
          a = std::move(plain);
      }
      if ((a.needs() <= room || !budgetBytes) && otherTiersFit) {
        a.placed = true;
        return a;
      }
      if (policyName != "auto")
        return a;
      // Below the plan's own peak, which may sit well under the capacity:
      // lowering the capacity alone would find the same plan again.
      problem.capacity[0] = std::min(problem.capacity[0], a.solution.peak[0]) -
                            (a.needs() - room);
      if (problem.capacity[0] < 0)
        break;
    }
    return a;
  };
  auto tryRoom = [&](int64_t room) -> FailureOr<Attempt> {
    FailureOr<Attempt> placed = placeWithin(room);
    if (failed(placed) || placed->placed || policyName != "auto")
      return placed;
    // Signs are cheap but keep a 32nd of their tensors on the device, where
    // host memory keeps nothing: the solvers, which are not exact on large
    // steps, may take them where only a plan without them fits. So a room
    // that no plan fits is tried again without them, where that may help
    // (signsMayHelp).
    if (SignOptions signs =
            signsMayHelp ? takeSignOptions(problem) : SignOptions();
        !signs.empty()) {
      signsOut = true;
      FailureOr<Attempt> without = placeWithin(room);
      signsOut = false;
      restoreSignOptions(problem, std::move(signs));
      if (failed(without) || without->placed)
        return without;
    }
    Attempt a = std::move(*placed);
    FailureOr<std::vector<Attempt> *> fallbacks = simplePlans();
    if (failed(fallbacks))
      return failure();
    Attempt *best = nullptr;
    for (Attempt &f : **fallbacks)
      if (f.needs() <= room && prepareFits(f) &&
          (!best || f.solution.seconds < best->solution.seconds))
        best = &f;
    if (!best)
      return a;
    Attempt copy = best->clone();
    copy.placed = true;
    copy.solver += " (fall-back)";
    return copy;
  };
  std::string on =
      fp->dataset.empty() ? std::string() : " on '" + fp->dataset + "'";
  int64_t room = budgetBytes ? *budgetBytes - fixed : unlimited;
  // Whether an attempt's plan compiles at the budget.
  auto fitsBudget = [&](const Attempt &a) {
    return budgetBytes && a.needs() <= room && prepareFits(a);
  };
  FailureOr<Attempt> result = tryRoom(room);
  if (failed(result))
    return failure();
  // While prepare runs the session holds the graph and what prepare
  // builds; with the graph freed afterwards that is a phase of its own. A
  // budget below it has no plan either; the error below then states the
  // larger of the two phases' smallest budgets.
  if (!prepareFits(*result))
    result->placed = false;
  if (probeBudget)
    return success(result->placed);
  if (!result->placed && policyName != "auto") {
    const plan::Solution &sol = result->solution;
    for (auto [tier, setting] :
         {std::pair{Tier::Host, "host_memory"}, {Tier::Disk, "disk"}}) {
      int t = static_cast<int>(tier);
      if (sol.peak[t] > problem.capacity[t])
        return mlir::emitError(func.getLoc())
               << setting << " = " << formatBytes(problem.capacity[t])
               << " is too small for plan = " << policyName << on
               << ": it needs " << formatBytes(sol.peak[t])
               << " there (plan = auto may fit)";
    }
    return mlir::emitError(func.getLoc())
           << "memory = " << formatBytes(*budgetBytes)
           << " is too small for plan = " << policyName << on << ": it needs "
           << formatBytes(peakOf(*result)) << " (plan = auto may fit)";
  }
  // Where no plan fits, the step and predict run their aggregations a
  // block of columns at a time (SplitAggregations.h) and are planned again:
  // each then needs its input and two blocks on the device instead of its
  // input and its result. Only then: a split aggregation walks its graph
  // once per block. Where that fails too, the functions are restored and
  // the error below states the smaller of the two smallest plans (the
  // split one may need more: more values to place).
  // The smallest plan of the split step and its error, where it has none.
  struct SplitFailure {
    int64_t smallest = 0;
    SmallVector<std::pair<Location, std::string>> errors;
  };
  std::optional<SplitFailure> splitFailure;
  func::FuncOp predict = siblingOf(getOperation(), func, "predict");
  // The everySize settings the split is tried with below; none where it
  // is not tried.
  SmallVector<bool, 2> splitSizes;
  // Plans the step and predict with their aggregations split (every size
  // or only the large ones): success keeps the split bodies planned; on
  // failure the bodies are restored, \p failed holds the errors and
  // \p smallest the split step's smallest plan, where it has one. With
  // \p probe, planned as planStep's probeBudget, the bodies are restored
  // either way.
  auto planSplit = [&](bool everySize, SplitFailure &failed,
                       std::optional<int64_t> &smallest,
                       std::optional<int64_t> probe = {}) -> LogicalResult {
    // The split is planned on copies of the bodies: the analyses above
    // refer to the ops of the originals, which are set aside meanwhile.
    SmallVector<std::pair<func::FuncOp, OwningOpRef<func::FuncOp>>> aside;
    for (func::FuncOp f : {func, predict}) {
      if (!f)
        continue;
      OwningOpRef<func::FuncOp> copy = f.clone();
      OwningOpRef<func::FuncOp> original = f.cloneWithoutRegions();
      original->getBody().takeBody(f.getBody());
      f.getBody().takeBody(copy->getBody());
      aside.emplace_back(f, std::move(original));
      if (f == predict)
        multiplyFirst(f, kAggregationBlocks);
      splitAggregations(f, kAggregationBlocks, everySize);
    }
    LogicalResult planned = success();
    {
      ScopedDiagnosticHandler capture(func.getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          failed.errors.emplace_back(d.getLocation(), d.str());
        return success();
      });
      planned =
          planStep(func, machine, planner.keepAllSeconds, &smallest, probe);
    }
    if (succeeded(planned) && !probe)
      return success();
    for (auto &[f, original] : aside)
      f.getBody().takeBody(original->getBody());
    return planned;
  };
  // Only a step with such an aggregation is tried (predict is split with
  // it): GAT's step has none (its first layer's weights are per head) while
  // its predict has one, and planning the split again took its error path
  // from 0.6 to 1.1 s for the same smallest plan.
  if (!result->placed && policyName == "auto" && !split &&
      !aggregationsToSplit(func, kAggregationBlocks, /*everySize=*/true)
           .empty()) {
    // First only the aggregations large enough to bind a plan, each split
    // one walking its graph once per block; then, where that splits fewer,
    // every one, in case the small ones bind after all (their smallest plan
    // is then the error's).
    // The aggregations of the step and predict split with every size or not;
    // predict's counted as the split below rewrites it, multiplied first (on
    // a copy), which moves its first layer's aggregation to the product's
    // width.
    OwningOpRef<func::FuncOp> predictMultipliedFirst;
    if (predict) {
      predictMultipliedFirst = predict.clone();
      multiplyFirst(*predictMultipliedFirst, kAggregationBlocks);
    }
    auto splitCount = [&](bool everySize) {
      size_t count =
          aggregationsToSplit(func, kAggregationBlocks, everySize).size();
      if (predictMultipliedFirst)
        count += aggregationsToSplit(*predictMultipliedFirst,
                                     kAggregationBlocks, everySize)
                     .size();
      return count;
    };
    splitSizes = {false};
    if (splitCount(true) > splitCount(false))
      splitSizes.push_back(true);
    for (bool everySize : splitSizes) {
      SplitFailure failed;
      std::optional<int64_t> smallest;
      if (succeeded(planSplit(everySize, failed, smallest)))
        return success();
      if (!smallest) {
        for (auto &[loc, message] : failed.errors)
          mlir::emitError(loc) << message;
        return failure();
      }
      failed.smallest = *smallest;
      if (!splitFailure || failed.smallest < splitFailure->smallest)
        splitFailure = std::move(failed);
    }
  }
  if (!result->placed) {
    // Placement can fail in a room where a smaller room's plan fits (first
    // fit fragments differently), so whether a room places is not monotone
    // in its size. The smallest room that places is therefore searched
    // over the same slots whatever the budget: bisect between nothing and
    // keeping everything (which always places when nothing limits it).
    // Every budget at or above the smallest plan it reports then compiles.
    //
    // Bisects rooms in whole 64-byte slots, to a 64-byte slot or
    // kSearchPrecision's fraction of the room, between a room that places
    // and one that does not (in either order); returns the placed room
    // next to the other and keeps in \p best its attempt or, with \p lowest,
    // the placed attempt that needs the least (a room's plan may need much less
    // than the room: the one the error states and a budget in between ships).
    //
    // With \p fits, the bisection stops at the first placed attempt (the
    // least so far) that fits the budget and sets *fits: see below.
    auto bisect = [&](int64_t placed, int64_t other,
                      std::optional<Attempt> &best, bool lowest = false,
                      bool *fits = nullptr) -> FailureOr<int64_t> {
      auto precision = [&] {
        return std::max(kArenaAlignment, alignToArena(std::max(placed, other) /
                                                      kSearchPrecision));
      };
      while (std::abs(placed - other) > precision()) {
        int64_t lo = std::min(placed, other), hi = std::max(placed, other);
        int64_t mid = lo + (hi - lo) / kArenaAlignment / 2 * kArenaAlignment;
        FailureOr<Attempt> a = tryRoom(mid);
        if (failed(a))
          return failure();
        if (!a->placed) {
          other = mid;
          continue;
        }
        placed = mid;
        if (!lowest || !best || a->needs() < best->needs())
          best = std::move(*a);
        if (fits && fitsBudget(*best)) {
          *fits = true;
          break;
        }
      }
      return placed;
    };
    FailureOr<Attempt> all = tryRoom(unlimited);
    if (failed(all))
      return failure();
    // A compile stops the search below (the bisection, then the down
    // search) at the first plan that fits its budget: the rooms tried up to
    // there are those of the whole search whatever the budget, and the
    // least plan of the whole search needs no more than that one, so the
    // smallest plan an error would state is no larger than the budget
    // either. The rest of the search only serves the error; at the
    // smallest plan's budget it was most of the planning time (GAT by
    // heads on 2M nodes: 1.7 s).
    bool fits = fitsBudget(*all);
    std::optional<Attempt> smallest;
    FailureOr<int64_t> boundary =
        fits ? FailureOr<int64_t>(room) // keeping everything fits
             : bisect(all->needs(), 0, smallest, /*lowest=*/true, &fits);
    if (failed(boundary))
      return failure();
    if (!smallest)
      smallest = std::move(*all);
    // Then down from the least a plan needed, while a room up to
    // kDownProbes slots less still places: a budget one slot below the plan
    // the error states then fails at once, without reaching this search.
    // Not only the next slot: whether a room places is not monotone (the
    // solver's plan changes with its capacity), and a room a few slots
    // lower placed where the next did not (a split GAT step of 129 nodes).
    // Each step needs strictly less, so this ends; the cap only bounds the
    // planning time. The rooms it finds not to place are kept: the checks
    // below the stated plan try the same rooms when this plan is stated.
    llvm::DenseSet<int64_t> refusedRooms;
    for (int step = 0; step < 64 && !fits; ++step) {
      std::optional<Attempt> lower;
      for (int64_t slots = 1;
           slots <= kDownProbes && smallest->needs() >= slots * kArenaAlignment;
           ++slots) {
        int64_t lowerRoom = smallest->needs() - slots * kArenaAlignment;
        FailureOr<Attempt> a = tryRoom(lowerRoom);
        if (failed(a))
          return failure();
        if (a->placed) {
          lower = std::move(*a);
          break;
        }
        refusedRooms.insert(lowerRoom);
      }
      if (!lower)
        break;
      smallest = std::move(*lower);
      fits = fitsBudget(*smallest);
    }
    int64_t hi = smallest->needs();
    int64_t preparePhase =
        fp->preparePhase(smallest->keptPrepared, smallest->graphsKept);
    if (!fits && (hi > room || !prepareFits(*smallest))) {
      int64_t needed = std::max(fixed + hi, preparePhase);
      if (splitSmallest)
        *splitSmallest = needed;
      // The least of the whole step's and the split steps' smallest plans
      // is the one stated. Each search above went down from its own least
      // plan, but a budget below the other's may place this one directly
      // (a room need not place for a lower one to: see the down search).
      // So a few slots below the stated plan, the whole step and the split
      // ones are each planned as a compile at that budget would plan them,
      // down while one places: a budget one slot below the one stated then
      // fails whichever of them it tries.
      int64_t stated =
          splitFailure ? std::min(needed, splitFailure->smallest) : needed;
      bool probedLower = false;
      for (int step = 0; step < 64 && !splitSizes.empty(); ++step) {
        bool placedBelow = false;
        for (int64_t slots = 1; slots <= kDownProbes && !placedBelow; ++slots) {
          int64_t lower = stated - slots * kArenaAlignment;
          if (lower <= fixed)
            break;
          if (!refusedRooms.contains(lower - fixed)) {
            FailureOr<Attempt> a = tryRoom(lower - fixed);
            if (failed(a))
              return failure();
            placedBelow = a->placed && fp->preparePhase(a->keptPrepared,
                                                        a->graphsKept) <= lower;
          }
          for (bool everySize : splitSizes) {
            if (placedBelow)
              break;
            SplitFailure ignored;
            std::optional<int64_t> unused;
            placedBelow =
                succeeded(planSplit(everySize, ignored, unused, lower));
          }
          if (placedBelow)
            stated = lower;
        }
        if (!placedBelow)
          break;
        probedLower = true;
      }
      if (probedLower) {
        needed = stated;
        hi = stated - fixed;
      } else if (splitFailure && splitFailure->smallest < needed) {
        for (auto &[loc, message] : splitFailure->errors)
          mlir::emitError(loc) << message;
        return failure();
      }
      if (!probedLower && preparePhase >= fixed + hi)
        return mlir::emitError(func.getLoc())
               << "memory = " << formatBytes(*budgetBytes)
               << " is below the smallest plan for this program" << on << " ("
               << formatBytes(needed) << ", " << needed
               << " bytes): preparing the graph holds the graph ("
               << formatBytes(fp->graph) << ") and the values derived from "
               << "it (" << formatBytes(fp->prepared + smallest->keptPrepared)
               << ") at once";
      return mlir::emitError(func.getLoc())
             << "memory = " << formatBytes(*budgetBytes)
             << " is below the smallest plan for this program" << on << " ("
             << formatBytes(needed) << ", " << needed
             << " bytes): the session holds " << formatBytes(fixed)
             << " besides the step's workspace (graph-derived values, "
             << (fp->graphReleased ? "" : "graph, ")
             << "inputs, the loss, and any parameters and optimizer state "
                "that must stay), and the step needs at least "
             << formatBytes(hi) << " more with every fate available";
    }
    // The smallest plan fits this budget; a larger room between the
    // boundary and the budget may place a cheaper one.
    if (*boundary < room &&
        failed(bisect(*boundary, room / kArenaAlignment * kArenaAlignment,
                      smallest)))
      return failure();
    result = std::move(*smallest);
  }
  // The cache (profiles that know one: the CPU target's). The arena is
  // ordinary memory there, and the profile's rates, measured beyond the
  // caches, price every op as if each line it reads or writes came from
  // memory. A step whose session peak stays in the last-level cache keeps
  // those lines cached (wholly within half of it, in part up to all of
  // it: cachedFraction). The solver prices ops, not where they live, so
  // auto also plans the rooms from half the cache to fifteen sixteenths of
  // it, prices the simple policies' plans that fit, each with its savings,
  // and keeps the cheapest prediction (docs/CostModel.md, "Steps within
  // the cache").
  // Each prediction reported below includes its savings.
  // An op restricted to some rows (gnn-restrict-rows) writes and reads
  // only their share of its tensors: the savings count that share, or a
  // step of small sets would save more than it costs.
  double resultBytes = 0, readBytes = 0;
  for (const ValueLiveness &v : live->getValues()) {
    if (v.bytes <= 0 || v.storage == Storage::None)
      continue;
    const auto bytes = static_cast<double>(v.bytes);
    if ((v.storage == Storage::Arena || v.storage == Storage::Result) &&
        v.def != StepLiveness::kEntry && !v.inPlaceOf) {
      Operation *def = v.value.getDefiningOp();
      resultBytes += bytes * (def ? estimatedRowShare(def) : 1.0);
    }
    // Every op that names the value reads it once (a view's readers read
    // it again through the view; the simplification counts the view).
    llvm::SmallPtrSet<Operation *, 8> readers;
    for (Operation *user : v.value.getUsers())
      if (!isa<func::ReturnOp>(user))
        readers.insert(user);
    for (Operation *reader : readers)
      readBytes += bytes * estimatedRowShare(reader);
  }
  // What option \p o of a candidate adds to the step under \p a: a plan in
  // the cache copies at the cached rate (one side of each copy in cache).
  auto addedSeconds = [&](const Attempt &a, const plan::Option &o) {
    return o.fate == Fate::Host ? cachedCopySeconds(o.seconds, peakOf(a), prof)
                                : o.seconds;
  };
  auto savings = [&](int64_t peak) {
    return cachedSavings(resultBytes, readBytes, peak, prof);
  };
  auto predicted = [&](const Attempt &a) {
    double seconds = planner.keepAllSeconds - savings(peakOf(a));
    for (auto [c, cand] : llvm::enumerate(problem.candidates))
      seconds += addedSeconds(a, cand.options[a.solution.choice[c]]);
    return seconds;
  };
  // A plan chosen for the cache changes predict too: the homes it picks
  // are predict's (applyHomes), copied in or read in tiles at every
  // validation pass, every eval_every steps. The budget's own plan pays
  // that because it must; one that would only be faster must pay it out
  // of its savings. Unpriced, examples/facebook_gcn.gnn's in-cache plan
  // was predicted 1.5% faster than keep-all and trained 20% slower, its
  // validation twice as slow (docs/CostModel.md).
  const double evalEvery = static_cast<double>(
      std::max<int64_t>(1, getInt("eval_every").value_or(1)));
  auto withValidation = [&](const Attempt &a) {
    return predicted(a) + a.predictSeconds / evalEvery;
  };
  if (policyName == "auto" && cachedArenaBytes(prof) > 0 &&
      cachedFraction(peakOf(*result), prof) < 1) {
    // The rooms that fit fifteen sixteenths of the cache, fourteen, and so
    // on down to half of it: the savings fall linearly over that range, so
    // the cheapest plan may sit anywhere on it. A room that places nothing
    // (neither the solver's plan nor a simple policy's) ends the search:
    // the smaller ones would not place either, which spares a step far
    // beyond the cache (the 2M-node graphs) eight solves.
    bool placedInCache = false;
    for (int sixteenths = 15; sixteenths >= 8; --sixteenths) {
      int64_t cacheRoom =
          static_cast<int64_t>(prof.cacheBytes * sixteenths / 16) /
              kArenaAlignment * kArenaAlignment -
          fixed;
      if (cacheRoom <= 0)
        break;
      if (cacheRoom >= room)
        continue;
      FailureOr<Attempt> cached = tryRoom(cacheRoom);
      if (failed(cached))
        return failure();
      if (!cached->placed)
        break;
      placedInCache = true;
      if (prepareFits(*cached) &&
          withValidation(*cached) < withValidation(*result))
        result = std::move(*cached);
    }
    // The simple policies' plans have peaks of their own, which may sit
    // in the cache where the solver's plan for the room does not; none
    // does when no room within the cache placed (tryRoom tries them too).
    if (placedInCache) {
      FailureOr<std::vector<Attempt> *> fallbacks = simplePlans();
      if (failed(fallbacks))
        return failure();
      for (Attempt &f : **fallbacks)
        if (f.needs() <= room && prepareFits(f) &&
            withValidation(f) < withValidation(*result)) {
          result = f.clone();
          result->placed = true;
          result->solver += " (in cache)";
        }
    }
  }
  // Keep-all's peak, for its own prediction: its plan's when that is the
  // policy, else the curve's peak with nothing moved (placement holes
  // aside), and never below this plan's.
  int64_t keepAllPeak = peakOf(*result);
  if (policyName != "keep_all")
    keepAllPeak = std::max(
        keepAllPeak,
        fixed + plan::evaluate(problem,
                               std::vector<int>(problem.candidates.size(), 0))
                    .peak[0]);
  double keepAllSavings = savings(keepAllPeak);
  double keepAllSeconds =
      unsplitKeepAll.value_or(planner.keepAllSeconds) - keepAllSavings;

  plan::Solution &solution = result->solution;
  OwningOpRef<func::FuncOp> &planned = result->planned;
  int64_t handles = result->handles;

  for (auto [c, cand] : llvm::enumerate(problem.candidates)) {
    Fate f = cand.options[solution.choice[c]].fate;
    numRecomputed += f == Fate::Recompute;
    numOffloaded += f == Fate::Host || f == Fate::Disk;
    numNarrowed += f == Fate::Narrow;
    numSigned += f == Fate::Sign;
  }
  int64_t peakDevice = peakOf(*result);
  func->setAttr(
      "mem.plan",
      mem::PlanAttr::get(func.getContext(), budgetBytes ? *budgetBytes : 0,
                         peakDevice, solution.peak[1], solution.peak[2],
                         predicted(*result), keepAllSeconds, policyName));
  // The cache's part of the difference to keep-all, which no tensor's row
  // holds: `gnnc plan` shows it, and the rows plus it add up.
  if (double cache = keepAllSavings - savings(peakDevice); cache != 0)
    func->setAttr("mem.cache_seconds", b.getF64FloatAttr(cache));
  // The blocks' part of the difference: the split step's own time with
  // every tensor kept, beyond the unsplit one's.
  if (split)
    func->setAttr("mem.split_seconds",
                  b.getF64FloatAttr(planner.keepAllSeconds - *unsplitKeepAll));
  func->setAttr("mem.num_handles", b.getI64IntegerAttr(handles));
  func->setAttr("mem.solver", b.getStringAttr(result->solver));
  // Where the forward part ends on the curves' timeline (the loss op's
  // point), for pictures that mark the forward/backward boundary.
  if (Operation *loss = live->getLossOp())
    func->setAttr("mem.loss_point",
                  b.getI64IntegerAttr(2 * live->getIndex(loss) + 1));
  // The per-tensor table `gnnc plan` prints.
  SmallVector<Attribute> rows;
  for (auto [c, cand] : llvm::enumerate(problem.candidates)) {
    const plan::Option &o = cand.options[solution.choice[c]];
    const CandidateInfo &info = planner.candidates[c];
    NamedAttrList row;
    row.append("name", b.getStringAttr(cand.name));
    row.append("bytes", b.getI64IntegerAttr(cand.bytes));
    row.append("fate", b.getStringAttr(plan::stringifyFate(o.fate)));
    row.append("seconds", b.getF64FloatAttr(addedSeconds(*result, o)));
    // A resident is an argument: defined before the step (-1), and read
    // first at its first use.
    row.append("def", b.getI64IntegerAttr(info.resident ? -1 : info.def));
    row.append("last_forward",
               b.getI64IntegerAttr(info.resident ? -1 : info.lastForward));
    row.append("first_backward", b.getI64IntegerAttr(info.firstBackward));
    row.append("loc", b.getStringAttr(formatLocation(info.value.getLoc())));
    rows.push_back(row.getDictionary(func.getContext()));
  }
  func->setAttr("mem.fates", b.getArrayAttr(rows));
  // Keep the planned body (the analysis above referred to the old one),
  // the homes it chose, and give init and predict the same homes.
  func.getBody().takeBody(planned->getBody());
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (Attribute home = planned->getArgAttr(i, "mem.home"))
      func.setArgAttr(i, "mem.home", home);
  for (unsigned k = 0; k < func.getNumResults(); ++k)
    if (Attribute home = planned->getResultAttr(k, "mem.home"))
      func.setResultAttr(k, "mem.home", home);
  for (StringRef which : {"init", "predict"})
    applyHomes(func, siblingOf(getOperation(), func, which));
  std::vector<int64_t> device =
      plan::tierCurve(problem, solution.choice, Tier::Device);
  for (int64_t &d : device)
    d += fixed;
  func->setAttr("mem.device_curve", b.getDenseI64ArrayAttr(device));
  func->setAttr("mem.host_curve", b.getDenseI64ArrayAttr(plan::tierCurve(
                                      problem, solution.choice, Tier::Host)));
  func->setAttr("mem.disk_curve", b.getDenseI64ArrayAttr(plan::tierCurve(
                                      problem, solution.choice, Tier::Disk)));
  // Counted once per step, by the planning that shipped (a split step is
  // planned again).
  numCandidates += problem.candidates.size();
  return success();
}

} // namespace
