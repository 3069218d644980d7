//===- SplitAggregations.cpp - gnn-split-aggregations ---------------------===//
//
// Rewrites `y = spmm(g, x)` into, for each block of columns [o, o + w),
//
//   s_k = gnn.slice x_k {offset = o}             // x_0 = x
//   y_k = gnn.spmm g, s_k                        // same attributes
//   x_k+1 = gnn.insert_columns y_k into x_k {offset = o}
//
// and y by the last x_k (SplitAggregations.h). The values are the same: a
// column of the result is summed from the same column of the input, in the
// same slot order, by the same kernels. x_k has no reader after its
// insert, which therefore writes over it (Liveness.cpp, inPlaceReads).
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/SplitAggregations.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNSPLITAGGREGATIONS
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

/// Whether every column of \p spmm is weighted alike: no weights, or one
/// per edge. Weights per head each weigh their own columns (GAT), so such
/// a sum neither splits into blocks of columns nor commutes with W.
static bool oneWeightPerEdge(SpmmOp spmm) {
  Value w = spmm.getWeights();
  if (!w)
    return true;
  auto weights = cast<RankedTensorType>(w.getType());
  return weights.getRank() != 2 || weights.getDimSize(1) == 1;
}

/// Whether \p spmm can run a block of columns at a time, each written over
/// its input: its input is a static matrix of its result's type that
/// nothing reads after it (a layer's bias gradient reads its output
/// gradient before its aggregation does), and one weight per edge serves
/// every column (a weight per head would need its own block of the
/// weights).
static bool splittable(SpmmOp spmm) {
  Value input = spmm.getInput();
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || !type.hasStaticShape() || type.getRank() != 2 ||
      type.getDimSize(1) < 2 || type != spmm.getType())
    return false;
  for (Operation *user : input.getUsers())
    if (user != spmm &&
        (user->getBlock() != spmm->getBlock() || !user->isBeforeInBlock(spmm)))
      return false;
  return oneWeightPerEdge(spmm);
}

/// The level of the rows of its input that \p spmm, restricted, reads: its
/// skip (sources past it are left out), else the level of the input's
/// restricted producer when no user reads that outside its set.
static std::optional<RowRestriction> inputRows(SpmmOp spmm) {
  std::optional<RowRestriction> rows = getRowRestriction(spmm);
  if (!rows)
    return std::nullopt;
  if (std::optional<uint64_t> skip = spmm.getSkip())
    return RowRestriction{rows->rowSets, static_cast<int64_t>(*skip)};
  Operation *def = spmm.getInput().getDefiningOp();
  if (!def || !def->hasAttr(kRestUnreadAttr))
    return std::nullopt;
  return getRowRestriction(def);
}

SmallVector<SpmmOp> mlir::gnn::aggregationsToSplit(func::FuncOp func,
                                                   int64_t blocks,
                                                   bool everySize) {
  SmallVector<SpmmOp> spmms;
  int64_t largest = 0;
  func.walk([&](SpmmOp op) {
    if (!splittable(op))
      return;
    spmms.push_back(op);
    largest = std::max(largest, op.getType().getNumElements());
  });
  // Split, an aggregation needs its input and two blocks, (1 + 2 / blocks)
  // times its input; whole, twice it. One whose whole need is below the
  // largest one's split need cannot be what binds the plan, and each split
  // walks its graph once per block: an 8-wide last layer beside 64-wide
  // hidden ones stays whole.
  if (!everySize)
    llvm::erase_if(spmms, [&](SpmmOp op) {
      return 2 * blocks * op.getType().getNumElements() <=
             (blocks + 2) * largest;
    });
  return spmms;
}

int64_t mlir::gnn::splitAggregations(func::FuncOp func, int64_t blocks,
                                     bool everySize) {
  SmallVector<SpmmOp> spmms = aggregationsToSplit(func, blocks, everySize);
  OpBuilder attrs(func.getContext());
  for (SpmmOp spmm : spmms) {
    auto type = cast<RankedTensorType>(spmm.getType());
    const int64_t cols = type.getDimSize(1);
    const int64_t width = (cols + blocks - 1) / blocks;
    // Restricted to the rows of a set, the blocks copy only the rows they
    // read and write only the rows computed: in a restricted step most rows
    // of a 2M-node tensor are neither, and copying them cost more than the
    // aggregations themselves. The rows outside the set of an aggregation
    // whose rest is unread keep its input's values: unread as well.
    std::optional<RowRestriction> reads = inputRows(spmm);
    std::optional<RowRestriction> rows = getRowRestriction(spmm);
    if (!spmm->hasAttr(kRestUnreadAttr))
      rows.reset();
    OpBuilder b(spmm);
    Location loc = spmm.getLoc();
    Value x = spmm.getInput();
    for (int64_t offset = 0; offset < cols; offset += width) {
      auto blockType = RankedTensorType::get(
          {type.getDimSize(0), std::min(width, cols - offset)},
          type.getElementType());
      auto slice = b.create<SliceOp>(loc, blockType, x, offset);
      if (reads) {
        setRowRestriction(slice, reads->rowSets, reads->level);
        slice->setAttr(kRestUnreadAttr, attrs.getUnitAttr());
      }
      IRMapping map;
      map.map(spmm.getInput(), slice);
      Operation *block = b.clone(*spmm, map);
      block->getResult(0).setType(blockType);
      auto insert = b.create<InsertColumnsOp>(loc, type, block->getResult(0), x,
                                              static_cast<uint64_t>(offset));
      if (rows)
        setRowRestriction(insert, rows->rowSets, rows->level);
      x = insert;
    }
    if (rows)
      x.getDefiningOp()->setAttr(kRestUnreadAttr, attrs.getUnitAttr());
    spmm.replaceAllUsesWith(x);
    spmm.erase();
  }
  return static_cast<int64_t>(spmms.size());
}

int64_t mlir::gnn::multiplyFirst(func::FuncOp func, int64_t blocks) {
  SmallVector<MatmulOp> products;
  func.walk([&](MatmulOp matmul) {
    auto spmm = matmul.getLhs().getDefiningOp<SpmmOp>();
    if (!spmm || matmul.getRhs() == matmul.getLhs() || matmul.getTransposeA() ||
        matmul.getTransposeB() || matmul.getRowSets() ||
        getRowRestriction(spmm) || !spmm->hasOneUse() ||
        isCsr(spmm.getInput().getType()))
      return;
    // Sums and means with one weight per edge commute with W; a maximum
    // does not, nor weights per head.
    if (spmm.getAggr() == Aggregation::max || !oneWeightPerEdge(spmm))
      return;
    auto in = dyn_cast<RankedTensorType>(spmm.getType());
    auto out = dyn_cast<RankedTensorType>(matmul.getType());
    if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape())
      return;
    // Split, A (x W) needs (1 + 2 / blocks) out; (A x) W, in + out.
    if (2 * out.getDimSize(1) < blocks * in.getDimSize(1))
      products.push_back(matmul);
  });
  for (MatmulOp matmul : products) {
    auto spmm = matmul.getLhs().getDefiningOp<SpmmOp>();
    OpBuilder b(matmul);
    Location loc = matmul.getLoc();
    Value z = b.create<MatmulOp>(loc, matmul.getType(), spmm.getInput(),
                                 matmul.getRhs());
    Value y = b.create<SpmmOp>(loc, matmul.getType(), spmm.getAggr(),
                               spmm.getGraph(), z, spmm.getWeights());
    matmul.replaceAllUsesWith(y);
    matmul.erase();
    spmm.erase();
  }
  return static_cast<int64_t>(products.size());
}

namespace {
struct SplitAggregationsPass
    : mlir::gnn::impl::GnnSplitAggregationsBase<SplitAggregationsPass> {
  using GnnSplitAggregationsBase::GnnSplitAggregationsBase;
  void runOnOperation() override {
    if (blocks < 1) {
      getOperation().emitError("gnn-split-aggregations: blocks = ")
          << static_cast<int64_t>(blocks) << " must be at least 1";
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (multiplyFirstOption)
        numMultipliedFirst += multiplyFirst(func, blocks);
      numSplit += splitAggregations(func, blocks, everySize);
    }
  }
};
} // namespace
