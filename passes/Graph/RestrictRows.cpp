//===- RestrictRows.cpp - Compute only the rows the loss depends on -------===//
//
// A semi-supervised loss reads a few rows (Facebook: 80 training nodes of
// 22,470), so a two-layer GCN needs its last aggregation at those rows, the
// first at their in-neighbours (1,230 nodes), and the feature product at
// theirs (10,346); and the loss gradient, zero outside the mask, spreads by
// one hop per aggregation over the transposed graph. Computing every row
// spends most of a step on rows nothing reads or on sums of zeros.
//
// Two analyses over node tensors (rank 2, one row per node of the input
// graph) give levels into the nested row sets R_0 c R_1 c ... of
// gnn.receptive_rows (R_0 = the mask, R_{k+1} = R_k and its in-neighbours):
//   support(v): v is zero outside R_support (computed forwards);
//   demand(v):  no use reads v outside R_demand (backwards), capped by the
//               support, since the rows outside it are zeros anyway.
// A restricted op writes zeros outside its set, so every value outside its
// demanded rows holds either its true value or zero: finite either way,
// which is all the unrestricted ops that read it need.
//
// Edge tensors (a row per edge of the graph, GAT's scores and attention)
// get levels too, by their destinations: an edge tensor at level k is zero
// (support) or unread (demand) outside the edges into R_k. The edge kernels
// (SDDMM, edge add, edge soft-max and its gradient) then compute only the
// edges into R_demand, the scatters and the per-head aggregation only the
// rows of R_demand. Element-wise ops over edge tensors (leaky ReLU, the
// attention's dropout, their gradients) are row ops over E rows: they take
// the sets of gnn.receptive_edges, E_k = the edges into R_k, as node
// tensors' ops take R_k. One the CPU target cannot restrict still computes
// every edge, but what it computes outside the demand is never read.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Gnn/Elementwise.h"
#include "dialects/Gnn/RowSets.h"
#include "passes/Graph/InputArguments.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <limits>

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNRESTRICTROWS
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// "Every row": no bound.
constexpr int64_t kAll = std::numeric_limits<int64_t>::max();

/// Levels past this are not worth a set: R_k covers most graphs after a
/// few hops, and each level costs the row sets nothing but a count.
constexpr int64_t kMaxLevel = 16;

int64_t bump(int64_t level) {
  return level == kAll || level + 1 > kMaxLevel ? kAll : level + 1;
}

/// Which way a graph value's edges run relative to the input graph.
enum class Direction { Forward, Transposed, Unknown };

class RowAnalysis {
public:
  RowAnalysis(func::FuncOp func, BlockArgument graph, int64_t nodes)
      : func(func), graph(graph), nodes(nodes) {}

  void run();
  int64_t support(Value v) const {
    auto it = supports.find(v);
    return it == supports.end() ? kAll : it->second;
  }
  int64_t demand(Value v) const {
    auto it = demands.find(v);
    return std::min(it == demands.end() ? kAll : it->second, support(v));
  }
  bool isNodeTensor(Value v) const { return rowsOf(v) == nodes; }
  /// Whether \p v has a row per edge of the graphs the edge ops read (all
  /// of one edge set, that of the input graph or its version with self
  /// loops, forwards or transposed; else no value is an edge tensor).
  bool isEdgeTensor(Value v) const { return edges >= 0 && rowsOf(v) == edges; }
  Direction direction(Value g) const;
  /// Whether a scatter sums at the destinations of the input graph's edges
  /// (a `dst` scatter over it, a `src` one over its transpose).
  bool scattersToDestinations(ScatterOp o) const {
    return (o.getEnd() == EdgeEnd::dst) ==
           (direction(o.getGraph()) == Direction::Forward);
  }

private:
  int64_t rowsOf(Value v) const {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getRank() == 2 ? t.getDimSize(0) : -1;
  }
  void findEdges();
  void forward(Operation *op);
  void backward(Operation *op);
  void need(Value v, int64_t level) {
    if (!isNodeTensor(v) && !isEdgeTensor(v))
      return;
    auto [it, inserted] = demands.try_emplace(v, level);
    if (!inserted)
      it->second = std::max(it->second, level);
  }
  /// The demand of \p v from the uses seen so far (none: nothing reads it).
  int64_t demanded(Value v) const {
    auto it = demands.find(v);
    return it == demands.end() ? -1 : std::min(it->second, support(v));
  }

  func::FuncOp func;
  BlockArgument graph;
  int64_t nodes;
  /// The edge count of the edge tensors; -1 when there are none to track.
  int64_t edges = -1;
  llvm::DenseMap<Value, int64_t> supports, demands;
};

/// The graph an edge op reads, or null for any other op.
Value edgeOpGraph(Operation *op) {
  if (isa<SddmmOp, EdgeAddOp, EdgeSoftmaxOp, EdgeSoftmaxGradOp, GatherOp,
          ScatterOp>(op))
    return op->getOperand(0);
  if (auto o = dyn_cast<SpmmOp>(op); o && o.getWeights())
    return o.getGraph();
  return Value();
}

void RowAnalysis::findEdges() {
  // Levels of edge rows are by the input graph's destinations: every graph
  // an edge op reads must be the input graph (with self loops or not,
  // transposed or not) and all of them of one edge set, which must not
  // look like a node tensor's rows.
  int64_t count = -1;
  for (Operation &op : func.getBody().front()) {
    Value g = edgeOpGraph(&op);
    if (!g)
      continue;
    int64_t e = cast<GraphType>(g.getType()).getEdges();
    if (direction(g) == Direction::Unknown || ShapedType::isDynamic(e) ||
        (count >= 0 && e != count))
      return;
    count = e;
  }
  if (count != nodes)
    edges = count;
}

Direction RowAnalysis::direction(Value g) const {
  if (g == graph)
    return Direction::Forward;
  if (auto loops = g.getDefiningOp<AddSelfLoopsOp>())
    return direction(loops.getGraph());
  if (auto t = g.getDefiningOp<TransposeOp>()) {
    switch (direction(t.getGraph())) {
    case Direction::Forward:
      return Direction::Transposed;
    case Direction::Transposed:
      return Direction::Forward;
    case Direction::Unknown:
      return Direction::Unknown;
    }
  }
  return Direction::Unknown;
}

void RowAnalysis::forward(Operation *op) {
  if (op->getNumResults() != 1 ||
      (!isNodeTensor(op->getResult(0)) && !isEdgeTensor(op->getResult(0))))
    return;
  Value result = op->getResult(0);
  int64_t s = kAll;
  if (isa<train::CrossEntropyGradOp>(op)) {
    s = 0;
  } else if (auto o = dyn_cast<DropoutOp>(op)) {
    s = support(o.getInput());
  } else if (auto o = dyn_cast<ScaleOp>(op)) {
    s = support(o.getInput());
  } else if (auto o = dyn_cast<RowMulOp>(op)) {
    s = support(o.getInput());
  } else if (auto o = dyn_cast<ActivationGradOp>(op)) {
    s = support(o.getResultGrad()); // dy f'(x): zero where dy is
  } else if (auto o = dyn_cast<MulOp>(op)) {
    s = std::min(support(o.getLhs()), support(o.getRhs()));
  } else if (isa<AddOp, SubOp>(op)) {
    s = std::max(support(op->getOperand(0)), support(op->getOperand(1)));
  } else if (auto o = dyn_cast<SliceOp>(op)) {
    s = support(o.getInput());
  } else if (isa<ConcatOp>(op)) {
    // Side by side: zero where every part is (GAT's heads joined).
    s = 0;
    for (Value v : op->getOperands())
      s = std::max(s, support(v));
  } else if (auto o = dyn_cast<MatmulOp>(op)) {
    // x W keeps x's zero rows.
    if (!o.getTransposeA() && isNodeTensor(o.getLhs()))
      s = support(o.getLhs());
  } else if (auto o = dyn_cast<SpmmOp>(op)) {
    // Over the transposed graph, row i gathers the rows i has edges into:
    // non-zero only if one of them is in R_k, which puts i in R_{k+1}.
    // (Over the graph itself that would be out-neighbours, which the sets
    // do not describe.)
    if (o.getAggr() != Aggregation::max &&
        direction(o.getGraph()) == Direction::Transposed)
      s = bump(support(o.getInput()));
  } else if (auto o = dyn_cast<SddmmOp>(op)) {
    // Edge e gets lhs[dst(e)] . rhs[src(e)]: zero where lhs's row is.
    if (direction(o.getGraph()) == Direction::Forward)
      s = support(o.getLhs());
  } else if (auto o = dyn_cast<EdgeSoftmaxGradOp>(op)) {
    // y (dy - sum y dy) over a destination's edges: zero where dy is.
    if (direction(o.getGraph()) == Direction::Forward)
      s = support(o.getResultGrad());
  } else if (auto o = dyn_cast<GatherOp>(op)) {
    if (o.getEnd() == EdgeEnd::dst &&
        direction(o.getGraph()) == Direction::Forward)
      s = support(o.getInput());
  } else if (auto o = dyn_cast<ScatterOp>(op)) {
    // At destinations, row i sums the edges into i; at sources, row j the
    // edges out of j, non-zero only for an edge into R_k, which puts j in
    // R_{k+1}.
    if (direction(o.getGraph()) != Direction::Unknown)
      s = scattersToDestinations(o) ? support(o.getInput())
                                    : bump(support(o.getInput()));
  }
  if (s != kAll)
    supports[result] = s;
}

void RowAnalysis::backward(Operation *op) {
  // What the op needs of each node tensor it reads, given what is needed
  // of its result.
  Value result = op->getNumResults() == 1 ? op->getResult(0) : Value();
  int64_t mine = result && (isNodeTensor(result) || isEdgeTensor(result))
                     ? demanded(result)
                     : kAll;
  if (mine < 0)
    return; // nothing reads the result
  auto rowWise = [&] {
    for (Value v : op->getOperands())
      need(v, mine);
  };
  if (isa<train::CrossEntropyOp, train::CrossEntropyGradOp>(op)) {
    need(op->getOperand(0), 0); // the logits, at the mask's rows
  } else if (isa<AddOp, SubOp, MulOp, ScaleOp, ActivationOp, ActivationGradOp,
                 DropoutOp, BiasAddOp, RowMulOp, SliceOp, ConcatOp>(op)) {
    rowWise();
  } else if (auto o = dyn_cast<SpmmOp>(op)) {
    // Row i reads its in-neighbours, which R_{k+1} holds for i in R_k, and
    // the weights of its edges. Over the transposed graph a row's edges
    // run to anywhere, but a restricted sum leaves out (skip) the edges
    // from the rows of its input outside the input's support.
    bool forwardGraph = direction(o.getGraph()) == Direction::Forward;
    need(o.getInput(), forwardGraph ? bump(mine) : kAll);
    if (Value w = o.getWeights())
      need(w, forwardGraph || mine == kAll ? mine : support(o.getInput()));
  } else if (auto o = dyn_cast<SddmmOp>(op)) {
    bool forwardGraph = direction(o.getGraph()) == Direction::Forward;
    need(o.getLhs(), forwardGraph ? mine : kAll);
    need(o.getRhs(), forwardGraph ? bump(mine) : kAll);
  } else if (auto o = dyn_cast<EdgeAddOp>(op)) {
    bool forwardGraph = direction(o.getGraph()) == Direction::Forward;
    need(o.getDstInput(), forwardGraph ? mine : kAll);
    need(o.getSrcInput(), forwardGraph ? bump(mine) : kAll);
  } else if (auto o = dyn_cast<GatherOp>(op)) {
    bool forwardGraph = direction(o.getGraph()) == Direction::Forward;
    bool dst = o.getEnd() == EdgeEnd::dst;
    need(o.getInput(), !forwardGraph ? kAll : dst ? mine : bump(mine));
  } else if (isa<EdgeSoftmaxOp, EdgeSoftmaxGradOp>(op)) {
    // A destination's edges are normalised together: row-wise by
    // destination.
    bool forwardGraph = direction(op->getOperand(0)) == Direction::Forward;
    for (Value v : op->getOperands().drop_front())
      need(v, forwardGraph ? mine : kAll);
  } else if (auto o = dyn_cast<ScatterOp>(op)) {
    // At destinations, the edges into R_k; at sources, the edges out of
    // R_k, into anywhere (capped by the input's support).
    bool known = direction(o.getGraph()) != Direction::Unknown;
    need(o.getInput(), known && scattersToDestinations(o) ? mine : kAll);
  } else if (auto o = dyn_cast<ReduceOp>(op)) {
    need(o.getInput(), o.getDim() == 0 ? support(o.getInput()) : mine);
  } else if (auto o = dyn_cast<MatmulOp>(op)) {
    if (o.getTransposeA() && isNodeTensor(o.getLhs()) &&
        isNodeTensor(o.getRhs())) {
      // a^T b sums over rows: only where both can be non-zero.
      int64_t both = std::min(support(o.getLhs()), support(o.getRhs()));
      need(o.getLhs(), both);
      need(o.getRhs(), both);
    } else if (!o.getTransposeA()) {
      rowWise();
    } else {
      for (Value v : op->getOperands())
        need(v, kAll);
    }
  } else {
    for (Value v : op->getOperands())
      need(v, kAll);
  }
}

void RowAnalysis::run() {
  findEdges();
  Block &body = func.getBody().front();
  for (Operation &op : body)
    forward(&op);
  for (Operation &op : llvm::reverse(body))
    backward(&op);
}

/// The level of the rows outside which \p user, restricted, reads \p v:
/// kAll when it may read any row of it (unrestricted users among them).
int64_t readLevel(const RowAnalysis &analysis, Operation *user, Value v) {
  if (std::optional<RowRestriction> edges = getEdgeRestriction(user)) {
    // The edges into R_level: their edge rows, their destinations' rows,
    // their sources' rows (one level up).
    bool atSource = (isa<SddmmOp>(user) && v == user->getOperand(2)) ||
                    (isa<EdgeAddOp>(user) && v == user->getOperand(1));
    return atSource ? bump(edges->level) : edges->level;
  }
  std::optional<RowRestriction> rows = getRowRestriction(user);
  if (!rows) {
    // An element-wise op over edge tensors computes every edge, but what it
    // computes from rows no one reads is itself unread: it reads \p v
    // where its own result is read.
    Value result = user->getNumResults() == 1 ? user->getResult(0) : Value();
    if (!result || !analysis.isEdgeTensor(result) ||
        !(isElementwiseOp(user) || isa<DropoutOp>(user)))
      return kAll;
    for (auto [operand, broadcast] : elementwiseReads(user))
      if (operand == v && broadcast)
        return kAll;
    int64_t level = -1;
    for (Operation *next : result.getUsers())
      level = std::max(level, readLevel(analysis, next, result));
    return result.use_empty() ? kAll : level;
  }
  if (auto o = dyn_cast<ScatterOp>(user)) {
    // At sources, the edges into R_skip; at destinations, into R_level.
    if (analysis.scattersToDestinations(o))
      return rows->level;
    return o.getSkip() ? static_cast<int64_t>(*o.getSkip()) : kAll;
  }
  if (auto o = dyn_cast<SpmmOp>(user)) {
    if (v == o.getWeights()) {
      // The edges into the rows computed, or over the transposed graph
      // those from sources in R_skip.
      if (analysis.direction(o.getGraph()) == Direction::Forward)
        return rows->level;
      return o.getSkip() ? static_cast<int64_t>(*o.getSkip()) : kAll;
    }
    if (v != o.getInput())
      return kAll;
    if (o.getSkip())
      return *o.getSkip();
    // Over the graph itself, R_level's rows read their in-neighbours,
    // which R_level+1 holds by its definition.
    return analysis.direction(o.getGraph()) == Direction::Forward
               ? bump(rows->level)
               : kAll;
  }
  if (auto o = dyn_cast<MatmulOp>(user)) {
    // a^T b reads both at the set's rows; a b reads all of b.
    bool rowIndexed = v == o.getLhs() || (o.getTransposeA() && v == o.getRhs());
    return rowIndexed ? rows->level : kAll;
  }
  if (isa<ReduceOp, DropoutOp>(user))
    return rows->level;
  for (auto [operand, broadcast] : elementwiseReads(user))
    if (operand == v && broadcast)
      return kAll;
  return rows->level;
}

/// Marks the restricted ops whose every user reads their result only
/// within their own set (`gnn.rest_unread`): their kernels may then leave
/// the other rows as they were rather than zero them, which is most of a
/// tensor. Dropping the mark only costs that memset again.
void markRestUnread(const RowAnalysis &analysis, ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    std::optional<RowRestriction> rows = getAnyRestriction(op);
    if (!rows || op->getNumResults() != 1)
      continue;
    Value result = op->getResult(0);
    bool unread = !result.use_empty() &&
                  llvm::all_of(result.getUsers(), [&](Operation *user) {
                    return readLevel(analysis, user, result) <= rows->level;
                  });
    if (unread)
      op->setAttr(kRestUnreadAttr, UnitAttr::get(op->getContext()));
  }
}

/// Marks a dense feature matrix that the function reads only at the rows
/// of one set, R_k, with `gnn.rows_read = k`: a host home of it then needs
/// only those rows on the device (gnn-plan-memory's `mem.load_home ...
/// rows`). Its users are the restricted ops; any other reads every row.
void markRowsRead(const RowAnalysis &analysis, BlockArgument features,
                  int64_t hops) {
  if (!features || features.use_empty())
    return;
  auto type = dyn_cast<RankedTensorType>(features.getType());
  if (!type || type.getRank() != 2 || getCsrEncoding(type))
    return;
  int64_t level = 0;
  for (Operation *user : features.getUsers())
    level = std::max(level, readLevel(analysis, user, features));
  if (level > hops)
    return;
  auto func = cast<func::FuncOp>(features.getOwner()->getParentOp());
  func.setArgAttr(
      features.getArgNumber(), kRowsReadAttr,
      IntegerAttr::get(IntegerType::get(func.getContext(), 64), level));
}

/// What a restriction's level names.
enum class SetKind {
  /// The op's rows, a node's each (setRowRestriction, gnn.receptive_rows).
  NodeRows,
  /// The destinations of the edges an edge kernel computes
  /// (setEdgeRestriction, gnn.receptive_rows).
  EdgeKernel,
  /// The op's rows, an edge's each (setRowRestriction,
  /// gnn.receptive_edges): E_level, the edges into R_level.
  EdgeRows,
};

/// The restrictions decided for one op: the level of its set and, for an
/// aggregation, the level outside which its input is zero (kAll: none).
struct Restriction {
  Operation *op;
  int64_t level, skip;
  SetKind kind = SetKind::NodeRows;
};

/// Where a row op over \p result (demanded at \p level) is restricted: its
/// rows are a node's or an edge's each.
std::optional<SetKind> rowKind(const RowAnalysis &analysis, Value result,
                               int64_t level) {
  if (level == kAll)
    return std::nullopt;
  if (analysis.isNodeTensor(result))
    return SetKind::NodeRows;
  if (analysis.isEdgeTensor(result))
    return SetKind::EdgeRows;
  return std::nullopt;
}

/// The most of a graph's edges, as estimated (estimateSetRows), that an
/// element-wise op over edge tensors computes restricted. A restricted op
/// runs its set's rows one by one (a GAT score row is 1 to 8 floats); the
/// whole op streams every edge in long vectorised tiles, at about an
/// eighth of the time per edge (Facebook's 58,177 edges into R_1, 16% of
/// its 364,116, took longer restricted than whole). The estimate misses
/// hubs (it put Facebook's at 5.7%), hence the margin.
constexpr double kEdgeRowsMaxShare = 0.02;

/// Leaves out of \p restrictions the element-wise ops over edge tensors
/// whose set is estimated to hold more than kEdgeRowsMaxShare of the edges
/// (they compute every edge, as without edge-rows). Without an estimate
/// (no `train_nodes`, as in hand-written IR) they stay.
void dropCostlyEdgeRows(Value sets, int64_t nodes,
                        SmallVectorImpl<Restriction> &restrictions) {
  llvm::erase_if(restrictions, [&](const Restriction &r) {
    if (r.kind != SetKind::EdgeRows)
      return false;
    std::optional<double> rows = estimateSetRows(sets.getDefiningOp(), r.level);
    return rows && *rows > kEdgeRowsMaxShare * static_cast<double>(nodes);
  });
}

/// The edge sets (gnn.receptive_edges of the node sets \p sets) that the
/// row ops over edge tensors among \p restrictions need, of as many hops
/// as their deepest level; null when there are none, or when no edge
/// kernel restricted over the input graph's own direction names the edges
/// (their rows are its edge ids, their levels its destinations').
Value edgeSetsFor(Value sets, ArrayRef<Restriction> restrictions) {
  int64_t hops = -1;
  Value graph;
  Operation *first = nullptr;
  for (const Restriction &r : restrictions) {
    if (r.kind == SetKind::EdgeRows)
      hops = std::max(hops, r.level);
    if (r.kind == SetKind::EdgeKernel && !graph)
      graph = r.op->getOperand(0);
    if (r.kind != SetKind::NodeRows && (!first || r.op->isBeforeInBlock(first)))
      first = r.op;
  }
  if (hops < 0 || !graph)
    return Value();
  // Just before the first edge op restricted, which the graph and the node
  // sets precede: the sets (1.25 E integers, 60 MB on 12 M edges) are then
  // not live during the step's first dense layer, often its peak. From
  // there they also serve the host copies of the edge kernels' results,
  // which are E_level too (getEdgeRows).
  OpBuilder builder(first);
  auto edges = cast<GraphType>(graph.getType()).getEdges();
  auto type =
      RankedTensorType::get({rowSetsLength(edges, hops)}, builder.getI32Type());
  return builder.create<ReceptiveEdgesOp>(sets.getLoc(), type, graph, sets,
                                          builder.getI64IntegerAttr(hops));
}

/// Restricts the ops of \p func (with \p edgeRows, the element-wise ops
/// over edge tensors too); returns how many.
unsigned restrictFunction(func::FuncOp func, bool edgeRows) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return 0;
  Block &body = func.getBody().front();
  // The loss and its gradient must read one mask that is an argument, over
  // the rows of the input graph.
  Value mask;
  bool gradient = false;
  for (Operation &op : body) {
    Value m;
    if (auto o = dyn_cast<train::CrossEntropyGradOp>(op)) {
      m = o.getMask();
      gradient = true;
    } else if (auto o = dyn_cast<train::CrossEntropyOp>(op)) {
      m = o.getMask();
    } else {
      continue;
    }
    if (mask && m != mask)
      return 0;
    mask = m;
  }
  BlockArgument graph = inputArgument(func, "graph");
  if (!gradient || !graph || !isa<BlockArgument>(mask))
    return 0;
  int64_t nodes = cast<GraphType>(graph.getType()).getNodes();
  auto maskType = cast<RankedTensorType>(mask.getType());
  if (ShapedType::isDynamic(nodes) || maskType.getDimSize(0) != nodes)
    return 0;

  RowAnalysis rows(func, graph, nodes);
  rows.run();

  SmallVector<Restriction> restrictions;
  for (Operation &op : body) {
    if (auto o = dyn_cast<SpmmOp>(op)) {
      Value w = o.getWeights();
      int64_t level = rows.demand(o.getResult());
      if (o.getAggr() == Aggregation::max || level == kAll)
        continue;
      restrictions.push_back({&op, level, rows.support(o.getInput())});
    } else if (isa<SddmmOp, EdgeAddOp, EdgeSoftmaxOp, EdgeSoftmaxGradOp>(op)) {
      // The edges into R_demand, over the input graph's own direction.
      int64_t level = rows.demand(op.getResult(0));
      if (rows.isEdgeTensor(op.getResult(0)) && level != kAll &&
          rows.direction(op.getOperand(0)) == Direction::Forward)
        restrictions.push_back({&op, level, kAll, SetKind::EdgeKernel});
    } else if (auto o = dyn_cast<ScatterOp>(op)) {
      // At sources, the edges from the rows of R_demand into R_support.
      int64_t level = rows.demand(o.getResult());
      if (rows.isEdgeTensor(o.getInput()) && level != kAll)
        restrictions.push_back({&op, level,
                                rows.scattersToDestinations(o)
                                    ? kAll
                                    : rows.support(o.getInput())});
    } else if (auto o = dyn_cast<DropoutOp>(op)) {
      // CSR (sparse features), or a plain f32 node or edge tensor (some of
      // whose columns, a GAT head's attention, with mask_columns).
      int64_t level = rows.demand(o.getResult());
      if (isCsr(o.getInput().getType())) {
        if (!o.getMaskColumns() && level != kAll)
          restrictions.push_back({&op, level, kAll});
      } else if (std::optional<SetKind> kind =
                     rowKind(rows, o.getResult(), level);
                 kind && isDenseDropout(o)) {
        restrictions.push_back({&op, level, kAll, *kind});
      }
    } else if (isElementwiseOp(&op) && takesRowSets(&op)) {
      // Those the CPU target fuses (plain f32), over node or edge tensors.
      int64_t level = rows.demand(op.getResult(0));
      if (std::optional<SetKind> kind = rowKind(rows, op.getResult(0), level))
        restrictions.push_back({&op, level, kAll, *kind});
    } else if (isa<SliceOp, ConcatOp>(op)) {
      // A head's columns of a node tensor, and the heads joined again (GAT
      // by heads), at their rows.
      int64_t level = rows.demand(op.getResult(0));
      if (rows.isNodeTensor(op.getResult(0)) && level != kAll)
        restrictions.push_back({&op, level, kAll});
    } else if (auto o = dyn_cast<ReduceOp>(op)) {
      // A sum over rows needs only the rows where its input can be
      // non-zero.
      int64_t level = rows.support(o.getInput());
      if (o.getDim() == 0 && o.getKind() != ReduceKind::max && level != kAll &&
          rows.isNodeTensor(o.getInput()))
        restrictions.push_back({&op, level, kAll});
    } else if (auto o = dyn_cast<MatmulOp>(op)) {
      bool csr = isCsr(o.getLhs().getType());
      int64_t level = kAll;
      if (o.getTransposeA()) {
        // a^T b: the rows where both can be non-zero.
        if (!o.getTransposeB() && (csr || (rows.isNodeTensor(o.getLhs()) &&
                                           rows.isNodeTensor(o.getRhs()))))
          level = std::min(rows.support(o.getLhs()), rows.support(o.getRhs()));
      } else if (csr ? !o.getTransposeB() : rows.isNodeTensor(o.getLhs())) {
        level = rows.demand(o.getResult());
      }
      if (level != kAll)
        restrictions.push_back({&op, level, kAll});
    }
  }
  if (restrictions.empty())
    return 0;

  int64_t hops = 0;
  for (const Restriction &r : restrictions)
    hops = std::max({hops, r.level, r.skip == kAll ? 0 : r.skip});
  // A level takes a byte: a model deeper than that computes every row.
  if (hops > kMaxRowSetHops)
    return 0;

  // The sets come from a graph the step reads anyway: the input graph
  // itself would be one more graph resident on the device when only its
  // version with self loops is used (Facebook: 5.6 MB). A graph with self
  // loops has the same sets.
  // A restricted SpMM's or edge kernel's graph serves; when none reads one
  // (a max aggregation is not restricted, only the layer after it),
  // another op's graph with self loops, if it exists before the first
  // restricted op.
  Value setsGraph = graph;
  for (const Restriction &r : restrictions)
    if (isa<SpmmOp>(r.op) || r.kind == SetKind::EdgeKernel) {
      Value g = r.op->getOperand(0);
      if (rows.direction(g) == Direction::Forward) {
        setsGraph = g;
        break;
      }
    }
  if (setsGraph == graph) {
    Operation *first = restrictions.front().op;
    for (const Restriction &r : restrictions)
      if (r.op->isBeforeInBlock(first))
        first = r.op;
    for (Operation &op : body.without_terminator()) {
      if (&op == first)
        break;
      auto loops = dyn_cast<AddSelfLoopsOp>(op);
      if (loops && rows.direction(loops.getResult()) == Direction::Forward) {
        setsGraph = loops.getResult();
        break;
      }
    }
  }
  OpBuilder builder(&body, body.begin());
  if (Operation *def = setsGraph.getDefiningOp())
    builder.setInsertionPointAfter(def);
  auto setsType =
      RankedTensorType::get({rowSetsLength(nodes, hops)}, builder.getI32Type());
  Value sets =
      builder.create<ReceptiveRowsOp>(func.getLoc(), setsType, setsGraph, mask,
                                      builder.getI64IntegerAttr(hops));
  if (edgeRows)
    dropCostlyEdgeRows(sets, nodes, restrictions);
  Value edgeSets = edgeRows ? edgeSetsFor(sets, restrictions) : Value();
  SmallVector<Operation *> restricted;
  for (const Restriction &r : restrictions) {
    if (r.kind == SetKind::EdgeRows && !edgeSets)
      continue; // no graph names the edges: every edge computed, as before
    if (r.kind == SetKind::EdgeKernel)
      setEdgeRestriction(r.op, sets, r.level);
    else
      setRowRestriction(r.op, r.kind == SetKind::EdgeRows ? edgeSets : sets,
                        r.level);
    if (r.skip != kAll) {
      IntegerAttr skip = builder.getI64IntegerAttr(r.skip);
      if (auto o = dyn_cast<SpmmOp>(r.op))
        o.setSkipAttr(skip);
      else
        cast<ScatterOp>(r.op).setSkipAttr(skip);
    }
    restricted.push_back(r.op);
  }
  markRestUnread(rows, restricted);
  markRowsRead(rows, inputArgument(func, "features"), hops);
  return restricted.size();
}

struct RestrictRowsPass
    : mlir::gnn::impl::GnnRestrictRowsBase<RestrictRowsPass> {
  using GnnRestrictRowsBase::GnnRestrictRowsBase;
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      numRestricted += restrictFunction(func, edgeRows);
  }
};

} // namespace
