//===- GnnOps.cpp - gnn dialect operations --------------------------------===//
//
// Verifiers check local invariants only (shapes against each other and
// against the graph's counts); contracts between layers are verifier passes.
// A dynamic dimension (`?`) is compatible with anything.
//
//===----------------------------------------------------------------------===//
#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::gnn;

namespace {
bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

std::string dimText(int64_t d) {
  return ShapedType::isDynamic(d) ? "?" : std::to_string(d);
}

int64_t dim(Value v, unsigned i) {
  return cast<RankedTensorType>(v.getType()).getDimSize(i);
}
int64_t rank(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

/// Checks that dimension `i` of `v` is `expected`; `what` names both.
LogicalResult expectDim(Operation *op, Value v, unsigned i, int64_t expected,
                        StringRef what) {
  if (compatible(dim(v, i), expected))
    return success();
  return op->emitOpError() << what << ": expected " << dimText(expected)
                           << ", got " << dimText(dim(v, i));
}

/// All float tensor operands and results share one element type. Integer
/// tensors (the row sets of gnn-restrict-rows) are indices, not data.
LogicalResult sameElementTypes(Operation *op) {
  Type t;
  SmallVector<Value> values(op->getOperands());
  llvm::append_range(values, op->getResults());
  for (Value v : values) {
    auto tt = dyn_cast<RankedTensorType>(v.getType());
    if (!tt || tt.getElementType().isInteger(32))
      continue;
    if (!t)
      t = tt.getElementType();
    else if (t != tt.getElementType())
      return op->emitOpError("expects one element type for all tensors, got ")
             << t << " and " << tt.getElementType();
  }
  return success();
}

GraphType graphOf(Value v) { return cast<GraphType>(v.getType()); }

/// `x` has one row per node of `g`.
LogicalResult expectNodeRows(Operation *op, Value g, Value x, StringRef what) {
  return expectDim(op, x, 0, graphOf(g).getNodes(),
                   (what + " rows (one per node)").str());
}
LogicalResult expectEdgeRows(Operation *op, Value g, Value x, StringRef what) {
  return expectDim(op, x, 0, graphOf(g).getEdges(),
                   (what + " rows (one per edge)").str());
}

/// `y = x W (+ b)`: W is [in, out], b is [out].
LogicalResult checkDense(Operation *op, Value x, Value w, Value b, Value y,
                         StringRef wname) {
  if (failed(expectDim(op, w, 0, dim(x, 1),
                       (wname + " rows (input width)").str())) ||
      failed(expectDim(op, y, 1, dim(w, 1),
                       ("result width (" + wname + " columns)").str())))
    return failure();
  if (b && failed(expectDim(op, b, 0, dim(y, 1), "bias length")))
    return failure();
  return success();
}

/// The row sets of a gnn.receptive_rows for \p nodes nodes hold
/// `2 nodes + hops + 1` integers; \p level (and \p skip, when given) must
/// name one of the sets. Both or neither of rows and level are given.
LogicalResult checkRowSets(Operation *op, Value rowSets, IntegerAttr level,
                           IntegerAttr skip, int64_t nodes) {
  if (!rowSets) {
    if (level || skip)
      return op->emitOpError("'level' and 'skip' need row sets ('rows')");
    return success();
  }
  if (!level)
    return op->emitOpError("row sets ('rows') need a 'level'");
  int64_t size = dim(rowSets, 0);
  if (ShapedType::isDynamic(size) || ShapedType::isDynamic(nodes))
    return success();
  int64_t hops = rowSetsHops(size, nodes);
  if (hops < 0)
    return op->emitOpError("row sets of ")
           << size << " integers cannot describe " << nodes << " nodes";
  if (level.getInt() > hops)
    return op->emitOpError("level ")
           << level.getInt() << " is beyond the row sets' " << hops << " hops";
  if (skip && skip.getInt() > hops)
    return op->emitOpError("skip ")
           << skip.getInt() << " is beyond the row sets' " << hops << " hops";
  return success();
}

/// The row restriction of a row-wise op (an element-wise op, bias_add,
/// row_mul, dropout): its rows are the result's.
LogicalResult checkRowWise(Operation *op, Value rowSets, IntegerAttr level) {
  Value result = op->getResult(0);
  if (rowSets && rank(result) != 2)
    return op->emitOpError("row sets need a node tensor");
  return checkRowSets(op, rowSets, level, {}, dim(result, 0));
}
} // namespace

//===----------------------------------------------------------------------===//
// Graph ops
//===----------------------------------------------------------------------===//

LogicalResult ReceptiveRowsOp::verify() {
  int64_t nodes = getGraph().getType().getNodes();
  if (failed(expectDim(*this, getMask(), 0, nodes, "mask length")))
    return failure();
  if (getHops() > static_cast<uint64_t>(kMaxRowSetHops))
    return emitOpError("hops ") << getHops() << " exceed the " << kMaxRowSetHops
                                << " a one-byte level allows";
  return expectDim(*this, getResult(), 0,
                   ShapedType::isDynamic(nodes)
                       ? ShapedType::kDynamic
                       : rowSetsLength(nodes, static_cast<int64_t>(getHops())),
                   "result length (hops + 1 + nodes + ceil(nodes / 4))");
}

LogicalResult ReceptiveEdgesOp::verify() {
  GraphType graph = getGraph().getType();
  const int64_t hops = static_cast<int64_t>(getHops());
  int64_t size = dim(getSets(), 0);
  if (graph.hasStaticNodes() && !ShapedType::isDynamic(size)) {
    int64_t nodeHops = rowSetsHops(size, graph.getNodes());
    if (nodeHops < 0)
      return emitOpError("row sets of ") << size << " integers cannot describe "
                                         << graph.getNodes() << " nodes";
    if (hops > nodeHops)
      return emitOpError("hops ")
             << hops << " exceed the node sets' " << nodeHops;
  }
  return expectDim(*this, getResult(), 0,
                   graph.hasStaticEdges()
                       ? rowSetsLength(graph.getEdges(), hops)
                       : ShapedType::kDynamic,
                   "result length (hops + 1 + edges + ceil(edges / 4))");
}

LogicalResult AddSelfLoopsOp::verify() {
  GraphType in = getGraph().getType(), out = getResult().getType();
  if (!compatible(in.getNodes(), out.getNodes()))
    return emitOpError("result must have the input's ")
           << dimText(in.getNodes()) << " nodes, got "
           << dimText(out.getNodes());
  if (in.hasStaticNodes() && in.hasStaticEdges() &&
      !compatible(out.getEdges(), in.getEdges() + in.getNodes()))
    return emitOpError("result must have edges + nodes = ")
           << in.getEdges() + in.getNodes() << " edges, got "
           << dimText(out.getEdges());
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (auto inner = getGraph().getDefiningOp<TransposeOp>())
    return inner.getGraph();
  return {};
}

LogicalResult EdgeNormOp::verify() {
  return expectDim(*this, getResult(), 0, getGraph().getType().getEdges(),
                   "result length (one per edge)");
}

//===----------------------------------------------------------------------===//
// Layer ops
//===----------------------------------------------------------------------===//

LogicalResult GcnConvOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getInput(), "input")) ||
      failed(expectNodeRows(*this, getGraph(), getResult(), "result")))
    return failure();
  return checkDense(*this, getInput(), getWeight(), getBias(), getResult(),
                    "weight");
}

LogicalResult SageConvOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getInput(), "input")) ||
      failed(expectNodeRows(*this, getGraph(), getResult(), "result")) ||
      failed(checkDense(*this, getInput(), getWeight(), getBias(), getResult(),
                        "weight")))
    return failure();
  if (getRootWeight())
    return checkDense(*this, getInput(), getRootWeight(), Value(), getResult(),
                      "root_weight");
  return success();
}

LogicalResult GraphConvOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getInput(), "input")) ||
      failed(expectNodeRows(*this, getGraph(), getResult(), "result")) ||
      failed(checkDense(*this, getInput(), getWeight(), getBias(), getResult(),
                        "weight")))
    return failure();
  return checkDense(*this, getInput(), getRootWeight(), Value(), getResult(),
                    "root_weight");
}

LogicalResult GinConvOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getInput(), "input")) ||
      failed(expectNodeRows(*this, getGraph(), getResult(), "result")))
    return failure();
  if (failed(expectDim(*this, getWeight1(), 0, dim(getInput(), 1),
                       "weight1 rows (input width)")) ||
      failed(expectDim(*this, getBias1(), 0, dim(getWeight1(), 1),
                       "bias1 length")) ||
      failed(expectDim(*this, getWeight2(), 0, dim(getWeight1(), 1),
                       "weight2 rows (weight1 columns)")))
    return failure();
  return checkDense(*this, getWeight1(), getWeight2(), getBias2(), getResult(),
                    "weight2");
}

LogicalResult GatConvOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getInput(), "input")) ||
      failed(expectNodeRows(*this, getGraph(), getResult(), "result")) ||
      failed(expectDim(*this, getWeight(), 0, dim(getInput(), 1),
                       "weight rows (input width)")))
    return failure();
  int64_t heads = getHeads();
  int64_t hf = dim(getWeight(), 1);
  if (!ShapedType::isDynamic(hf) && hf % heads != 0)
    return emitOpError("weight columns (") << hf << ") must be a multiple of "
                                           << "heads (" << heads << ")";
  if (failed(expectDim(*this, getAttSrc(), 0, hf, "att_src length")) ||
      failed(expectDim(*this, getAttDst(), 0, hf, "att_dst length")))
    return failure();
  int64_t out = ShapedType::isDynamic(hf) || getConcat() ? hf : hf / heads;
  if (failed(expectDim(*this, getResult(), 1, out,
                       getConcat() ? "result width (heads * out)"
                                   : "result width (out, heads averaged)")))
    return failure();
  if (getBias() && failed(expectDim(*this, getBias(), 0, out, "bias length")))
    return failure();
  if (getAttnDropout().convertToDouble() < 0 ||
      getAttnDropout().convertToDouble() >= 1)
    return emitOpError("attn_dropout must be in [0, 1)");
  if (getAttnDropout().convertToDouble() > 0 && !getKey())
    return emitOpError("attn_dropout > 0 needs an rng key operand");
  return success();
}

LogicalResult LinearOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(
          expectDim(*this, getResult(), 0, dim(getInput(), 0), "result rows")))
    return failure();
  return checkDense(*this, getInput(), getWeight(), getBias(), getResult(),
                    "weight");
}

template <typename NormOp> static LogicalResult verifyNormLayer(NormOp op) {
  if (failed(sameElementTypes(op)))
    return failure();
  int64_t d = dim(op.getInput(), 1);
  if (failed(expectDim(op, op.getWeight(), 0, d, "weight length")) ||
      failed(expectDim(op, op.getBias(), 0, d, "bias length")))
    return failure();
  return success();
}
LogicalResult BatchNormOp::verify() { return verifyNormLayer(*this); }
LogicalResult LayerNormOp::verify() { return verifyNormLayer(*this); }

//===----------------------------------------------------------------------===//
// Aggregation primitives
//===----------------------------------------------------------------------===//

LogicalResult SpmmOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getInput(), "input")) ||
      failed(expectNodeRows(*this, getGraph(), getResult(), "result")) ||
      failed(
          expectDim(*this, getResult(), 1, dim(getInput(), 1), "result width")))
    return failure();
  if (failed(checkRowSets(*this, getRowSets(), getLevelAttr(), getSkipAttr(),
                          graphOf(getGraph()).getNodes())))
    return failure();
  if (getRowSets() && getAggr() == Aggregation::max)
    return emitOpError("row sets need sum or mean aggregation");
  Value w = getWeights();
  if (!w)
    return success();
  if (getAggr() == Aggregation::max)
    return emitOpError("max aggregation takes no edge weights");
  if (failed(expectEdgeRows(*this, getGraph(), w, "weights")))
    return failure();
  if (rank(w) > 2)
    return emitOpError("weights must be [E] or [E, heads]");
  if (rank(w) == 2) {
    int64_t h = dim(w, 1), d = dim(getInput(), 1);
    if (!ShapedType::isDynamic(h) && !ShapedType::isDynamic(d) &&
        (h == 0 || d % h != 0))
      return emitOpError("weight heads (")
             << h << ") must divide the width (" << d << ")";
  }
  return success();
}

LogicalResult SpmmMaxGradOp::verify() {
  return expectNodeRows(*this, getGraph(), getInput(), "input");
}

LogicalResult SddmmOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getLhs(), "lhs")) ||
      failed(expectNodeRows(*this, getGraph(), getRhs(), "rhs")) ||
      failed(expectDim(*this, getRhs(), 1, dim(getLhs(), 1), "rhs width")) ||
      failed(expectEdgeRows(*this, getGraph(), getResult(), "result")) ||
      failed(expectDim(*this, getResult(), 1, getHeads(), "result columns")) ||
      failed(checkRowSets(*this, getRowSets(), getLevelAttr(), {},
                          graphOf(getGraph()).getNodes())))
    return failure();
  int64_t d = dim(getLhs(), 1);
  if (!ShapedType::isDynamic(d) && d % getHeads() != 0)
    return emitOpError("heads (")
           << getHeads() << ") must divide the width (" << d << ")";
  return success();
}

template <typename EdgeOp>
static LogicalResult verifyGatherScatter(EdgeOp op, bool toEdges) {
  if (failed(sameElementTypes(op)) ||
      failed(expectDim(op, op.getResult(), 1, dim(op.getInput(), 1),
                       "result width")))
    return failure();
  Value nodes = toEdges ? op.getInput() : op.getResult();
  Value edges = toEdges ? op.getResult() : op.getInput();
  if (failed(expectNodeRows(op, op.getGraph(), nodes,
                            toEdges ? "input" : "result")) ||
      failed(expectEdgeRows(op, op.getGraph(), edges,
                            toEdges ? "result" : "input")))
    return failure();
  return success();
}
LogicalResult GatherOp::verify() { return verifyGatherScatter(*this, true); }
LogicalResult ScatterOp::verify() {
  if (failed(verifyGatherScatter(*this, false)))
    return failure();
  return checkRowSets(*this, getRowSets(), getLevelAttr(), getSkipAttr(),
                      graphOf(getGraph()).getNodes());
}

LogicalResult EdgeAddOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectNodeRows(*this, getGraph(), getSrcInput(), "src_input")) ||
      failed(expectNodeRows(*this, getGraph(), getDstInput(), "dst_input")) ||
      failed(expectDim(*this, getDstInput(), 1, dim(getSrcInput(), 1),
                       "dst_input width")) ||
      failed(expectEdgeRows(*this, getGraph(), getResult(), "result")) ||
      failed(expectDim(*this, getResult(), 1, dim(getSrcInput(), 1),
                       "result width")))
    return failure();
  return checkRowSets(*this, getRowSets(), getLevelAttr(), {},
                      graphOf(getGraph()).getNodes());
}

LogicalResult EdgeSoftmaxOp::verify() {
  if (failed(expectEdgeRows(*this, getGraph(), getInput(), "input")))
    return failure();
  return checkRowSets(*this, getRowSets(), getLevelAttr(), {},
                      graphOf(getGraph()).getNodes());
}

LogicalResult EdgeSoftmaxGradOp::verify() {
  if (failed(expectEdgeRows(*this, getGraph(), getOutput(), "output")))
    return failure();
  return checkRowSets(*this, getRowSets(), getLevelAttr(), {},
                      graphOf(getGraph()).getNodes());
}

//===----------------------------------------------------------------------===//
// Dense primitives
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  if (failed(sameElementTypes(*this)))
    return failure();
  // A CSR product's result is dense, and no back end multiplies by a sparse
  // right operand (#gnn.csr).
  if (isCsr(getRhs().getType()) || isCsr(getResult().getType()))
    return emitOpError("only the left operand may be #gnn.csr");
  unsigned am = getTransposeA() ? 1 : 0, ak = 1 - am;
  unsigned bk = getTransposeB() ? 1 : 0, bn = 1 - bk;
  if (failed(expectDim(*this, getRhs(), bk, dim(getLhs(), ak),
                       "contraction dimension of rhs")) ||
      failed(
          expectDim(*this, getResult(), 0, dim(getLhs(), am), "result rows")) ||
      failed(expectDim(*this, getResult(), 1, dim(getRhs(), bn),
                       "result columns")))
    return failure();
  // The row sets index the rows of a: the result's without transpose_a,
  // the contraction's with it.
  if (getRowSets() && getTransposeB() &&
      (getTransposeA() || isCsr(getLhs().getType())))
    return emitOpError("row sets need an untransposed rhs with transpose_a "
                       "or a #gnn.csr lhs");
  return checkRowSets(*this, getRowSets(), getLevelAttr(), {},
                      dim(getLhs(), 0));
}

LogicalResult BiasAddOp::verify() {
  if (failed(sameElementTypes(*this)))
    return failure();
  if (failed(expectDim(*this, getBias(), 0, dim(getInput(), 1), "bias length")))
    return failure();
  return checkRowWise(*this, getRowSets(), getLevelAttr());
}

LogicalResult RowMulOp::verify() {
  if (failed(sameElementTypes(*this)))
    return failure();
  if (failed(
          expectDim(*this, getScale(), 0, dim(getInput(), 1), "scale length")))
    return failure();
  return checkRowWise(*this, getRowSets(), getLevelAttr());
}

LogicalResult ReduceOp::verify() {
  if (failed(sameElementTypes(*this)))
    return failure();
  unsigned kept = getDim() == 0 ? 1 : 0;
  if (failed(expectDim(*this, getResult(), 0, dim(getInput(), kept),
                       "result length")))
    return failure();
  // Rows outside the set count as 0: a sum or mean over rows leaves them
  // out; a max would not.
  if (getRowSets() && (getDim() != 0 || getKind() == ReduceKind::max))
    return emitOpError("row sets need a sum or mean over rows (dim = 0)");
  return checkRowSets(*this, getRowSets(), getLevelAttr(), {},
                      dim(getInput(), 0));
}

LogicalResult HeadMatrixOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  int64_t rows = getHeads() * getWidth();
  int64_t cols = getKind() == HeadMatrixKind::mean ? getWidth() : getHeads();
  if (getKind() == HeadMatrixKind::spread)
    std::swap(rows, cols);
  if (!type.hasStaticShape() || type.getDimSize(0) != rows ||
      type.getDimSize(1) != cols)
    return emitOpError("result must be ")
           << RankedTensorType::get({rows, cols}, type.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// Element-wise primitives
//===----------------------------------------------------------------------===//

namespace {
/// add(x, zeros) -> x and add(zeros, x) -> x: autodiff starts cotangent sums
/// from zeros.
struct AddZero : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getRowSets())
      return failure(); // the rows outside the set would not be 0
    if (op.getLhs().getDefiningOp<ZerosOp>()) {
      rewriter.replaceOp(op, op.getRhs());
      return success();
    }
    if (op.getRhs().getDefiningOp<ZerosOp>()) {
      rewriter.replaceOp(op, op.getLhs());
      return success();
    }
    return failure();
  }
};

/// add(concat(a...), concat(b...)) -> concat(c...) when, column by column,
/// one side is a block of `gnn.zeros`: autodiff sums the cotangents of
/// column slices (a GAT layer split by heads) as zero-framed blocks
/// (Adjoints.cpp, SliceOp), each as wide as the whole. The blocks are
/// joined instead, so the sum never holds a frame per slice; a block is
/// what the sum would hold, since x + 0.0 is x for every x but -0.0, and
/// the cotangents split this way (sums that start at +0.0) are never -0.0.
struct AddZeroFramedBlocks : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  struct Block {
    int64_t begin, end;
    Value value;
  };
  /// The non-zero blocks of \p v, a concat, with their columns.
  static std::optional<SmallVector<Block>> blocksOf(Value v) {
    auto concat = v.getDefiningOp<ConcatOp>();
    if (!concat || concat.getRowSets())
      return std::nullopt;
    SmallVector<Block> blocks;
    int64_t at = 0;
    for (Value in : concat.getInputs()) {
      int64_t width = cast<RankedTensorType>(in.getType()).getDimSize(1);
      if (ShapedType::isDynamic(width))
        return std::nullopt;
      if (!in.getDefiningOp<ZerosOp>())
        blocks.push_back({at, at + width, in});
      at += width;
    }
    return blocks;
  }
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (op.getRowSets() || !type || !type.hasStaticShape() ||
        type.getRank() != 2)
      return failure();
    std::optional<SmallVector<Block>> lhs = blocksOf(op.getLhs());
    std::optional<SmallVector<Block>> rhs = blocksOf(op.getRhs());
    if (!lhs || !rhs)
      return failure();
    SmallVector<Block> blocks(*lhs);
    llvm::append_range(blocks, *rhs);
    llvm::sort(blocks, [](const Block &a, const Block &b) {
      return a.begin < b.begin;
    });
    for (size_t k = 1; k < blocks.size(); ++k)
      if (blocks[k].begin < blocks[k - 1].end)
        return failure(); // both sides non-zero somewhere: a real sum
    SmallVector<Value> inputs;
    int64_t at = 0;
    auto zeros = [&](int64_t width) {
      inputs.push_back(rewriter.create<ZerosOp>(
          op.getLoc(), RankedTensorType::get({type.getDimSize(0), width},
                                             type.getElementType())));
    };
    for (const Block &block : blocks) {
      if (block.begin > at)
        zeros(block.begin - at);
      inputs.push_back(block.value);
      at = block.end;
    }
    if (at < type.getDimSize(1))
      zeros(type.getDimSize(1) - at);
    rewriter.replaceOpWithNewOp<ConcatOp>(op, type, inputs);
    return success();
  }
};

/// scale(scale(x, a), b) -> scale(x, a * b).
struct ComposeScales : OpRewritePattern<ScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaleOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ScaleOp>();
    if (!inner || op.getRowSets() || inner.getRowSets())
      return failure();
    double f =
        op.getFactor().convertToDouble() * inner.getFactor().convertToDouble();
    rewriter.replaceOpWithNewOp<ScaleOp>(op, op.getType(), inner.getInput(),
                                         rewriter.getF64FloatAttr(f));
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<AddZero, AddZeroFramedBlocks>(context);
}

OpFoldResult ScaleOp::fold(FoldAdaptor) {
  // With row sets, a factor of 1 still zeroes the rows outside the set.
  if (getFactor().convertToDouble() == 1.0 && !getRowSets())
    return getInput();
  return {};
}

void ScaleOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<ComposeScales>(context);
}

LogicalResult DropoutOp::verify() {
  if (getP().convertToDouble() >= 1.0)
    return emitOpError("p must be in [0, 1), got ") << getP().convertToDouble();
  if (std::optional<ArrayRef<int64_t>> mask = getMaskColumns()) {
    auto type = cast<RankedTensorType>(getInput().getType());
    if (mask->size() != 2 || type.getRank() != 2 || type.getEncoding())
      return emitOpError("mask_columns needs [columns, offset] and a dense "
                         "matrix");
    const int64_t width = type.getDimSize(1);
    if ((*mask)[1] < 0 ||
        (!ShapedType::isDynamic(width) && (*mask)[1] + width > (*mask)[0]))
      return emitOpError("mask_columns: columns [")
             << (*mask)[1] << ", " << (*mask)[1] + width << ") are not within "
             << (*mask)[0];
  }
  return checkRowWise(*this, getRowSets(), getLevelAttr());
}

OpFoldResult DropoutOp::fold(FoldAdaptor) {
  // With row sets, p = 0 still zeroes the rows outside the set.
  if (getP().convertToDouble() == 0.0 && !getRowSets())
    return getInput();
  return {};
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  if (failed(sameElementTypes(*this)))
    return failure();
  int64_t width = 0;
  for (Value v : getInputs()) {
    if (failed(expectDim(*this, v, 0, dim(getResult(), 0), "input rows")))
      return failure();
    if (ShapedType::isDynamic(dim(v, 1)) || ShapedType::isDynamic(width))
      width = ShapedType::kDynamic;
    else
      width += dim(v, 1);
  }
  if (failed(expectDim(*this, getResult(), 1, width,
                       "result width (sum of the inputs')")))
    return failure();
  return checkRowWise(*this, getRowSets(), getLevelAttr());
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  // With row sets, one input still zeroes the rows outside the set.
  if (getInputs().size() == 1 && !getRowSets() &&
      getInputs().front().getType() == getResult().getType())
    return getInputs().front();
  return {};
}

/// That the columns [offset, offset + width) lie within \p cols (gnn.slice
/// reads them, gnn.insert_columns writes them), where both are known.
static LogicalResult columnsWithin(Operation *op, uint64_t offset,
                                   int64_t width, int64_t cols) {
  if (!ShapedType::isDynamic(cols) && !ShapedType::isDynamic(width) &&
      int64_t(offset) + width > cols)
    return op->emitOpError("columns [")
           << offset << ", " << int64_t(offset) + width
           << ") are out of the input's " << cols;
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(
          expectDim(*this, getResult(), 0, dim(getInput(), 0), "result rows")))
    return failure();
  if (failed(columnsWithin(*this, getOffset(), dim(getResult(), 1),
                           dim(getInput(), 1))))
    return failure();
  return checkRowWise(*this, getRowSets(), getLevelAttr());
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  // Restricted, the slice zeroes (or leaves) the other rows: not a copy.
  if (getOffset() == 0 && getInput().getType() == getResult().getType() &&
      !getRowSets())
    return getInput();
  return {};
}

LogicalResult InsertColumnsOp::verify() {
  if (failed(sameElementTypes(*this)) ||
      failed(expectDim(*this, getBlock(), 0, dim(getInput(), 0), "block rows")))
    return failure();
  if (failed(columnsWithin(*this, getOffset(), dim(getBlock(), 1),
                           dim(getInput(), 1))))
    return failure();
  return checkRowWise(*this, getRowSets(), getLevelAttr());
}

#define GET_OP_CLASSES
#include "dialects/Gnn/GnnOps.cpp.inc"
