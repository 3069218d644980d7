//===- Decompose.cpp - gnn-decompose: layer ops to primitives -------------===//
//
// Rewrites every layer op into the primitives every backend implements, as
// the layer descriptions in GnnOps.td define them. Graph-derived values
// (the graph with self loops, edge normalisations) are built once per graph
// at the point where the graph becomes available, so every layer over the
// same graph shares them: the runtime then computes them once per bound
// graph, and autodiff sees them as constants.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Gnn/GnnOps.h"
#include "gnnrt/Footprint.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <tuple>

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNDECOMPOSE
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `[rows, cols]` with the element type of \p like.
RankedTensorType matrixType(int64_t rows, int64_t cols, Value like) {
  return RankedTensorType::get({rows, cols}, tensorType(like).getElementType());
}

/// Builds and caches the graph-derived values of one region tree. A value
/// derived from graph `g` is inserted where `g` becomes available (after the
/// ops already inserted there), so it dominates every layer that uses `g`.
class GraphValues {
public:
  explicit GraphValues(OpBuilder &builder) : builder(builder) {}

  Value selfLoops(Value graph, Location loc) {
    Value &cached = selfLoopGraphs[graph];
    if (cached)
      return cached;
    auto type = cast<GraphType>(graph.getType());
    int64_t edges = type.hasStaticNodes() && type.hasStaticEdges()
                        ? type.getEdges() + type.getNodes()
                        : ShapedType::kDynamic;
    auto resultType =
        GraphType::get(builder.getContext(), type.getNodes(), edges);
    cached = insertAtGraph(graph, [&] {
      return builder.create<AddSelfLoopsOp>(loc, resultType, graph);
    });
    return cached;
  }

  Value edgeNorm(Value graph, EdgeNorm kind, Type elementType, Location loc) {
    Value &cached = edgeNorms[{graph, static_cast<unsigned>(kind),
                               elementType.getAsOpaquePointer()}];
    if (cached)
      return cached;
    auto resultType = RankedTensorType::get(
        {cast<GraphType>(graph.getType()).getEdges()}, elementType);
    cached = insertAtGraph(graph, [&] {
      return builder.create<EdgeNormOp>(
          loc, resultType, EdgeNormAttr::get(builder.getContext(), kind),
          graph);
    });
    return cached;
  }

private:
  /// Runs \p create with the builder just after the definition of \p graph
  /// (or after the graph-derived ops already placed there) and records the
  /// new op as the last one at that place.
  template <typename CreateFn>
  Value insertAtGraph(Value graph, CreateFn create) {
    OpBuilder::InsertionGuard guard(builder);
    void *anchor = anchorOf(graph);
    Operation *&last = lastAt[anchor];
    if (last)
      builder.setInsertionPointAfter(last);
    else if (Operation *def = graph.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(graph).getOwner());
    Operation *op = create();
    last = op;
    anchors[op] = anchor;
    return op->getResult(0);
  }

  /// Where values derived from \p graph go: a graph derived by this pass
  /// shares the place of its source, keeping derived ops together.
  void *anchorOf(Value graph) {
    if (Operation *def = graph.getDefiningOp()) {
      auto it = anchors.find(def);
      return it != anchors.end() ? it->second : def;
    }
    return cast<BlockArgument>(graph).getOwner();
  }

  OpBuilder &builder;
  DenseMap<Value, Value> selfLoopGraphs;
  DenseMap<std::tuple<Value, unsigned, const void *>, Value> edgeNorms;
  DenseMap<void *, Operation *> lastAt;
  DenseMap<Operation *, void *> anchors;
};

/// Rewrites one layer op; each function returns the value replacing the
/// layer's result, or null after reporting why it cannot.
class LayerDecomposer {
public:
  /// \p splitMode and \p budget: see splitHeads.
  LayerDecomposer(OpBuilder &builder, GraphValues &graphs, StringRef splitMode,
                  std::optional<int64_t> budget)
      : builder(builder), graphs(graphs), splitMode(splitMode), budget(budget) {
  }

  Value decompose(Operation *op) {
    builder.setInsertionPoint(op);
    return TypeSwitch<Operation *, Value>(op)
        .Case<GcnConvOp, SageConvOp, GraphConvOp, GinConvOp, GatConvOp,
              LinearOp, BatchNormOp, LayerNormOp>(
            [&](auto layer) { return rewrite(layer); })
        .Default([](Operation *other) {
          other->emitOpError("is a layer gnn-decompose does not know");
          return Value();
        });
  }

private:
  /// Whether a gat_conv that concatenates \p heads heads goes head by head
  /// (split-heads = always), or (auto) whether the budget is below what its
  /// aggregation by the attention needs at once whole: the projected
  /// features, a result as wide and the [E, heads] attention, as Sema's
  /// bound counts them. Split, a head's aggregation needs a head's share of
  /// the last two and of the features. Below that need no plan exists
  /// whole; above it, the heads stay together, which is faster (one pass
  /// over the graph for all heads).
  bool splitHeads(int64_t edges, int64_t rows, int64_t heads, int64_t hf,
                  Value like) const {
    if (splitMode == "always")
      return true;
    if (splitMode != "auto" || !budget || ShapedType::isDynamic(rows) ||
        ShapedType::isDynamic(edges))
      return false;
    const int64_t elt = (tensorType(like).getElementTypeBitWidth() + 7) / 8;
    return static_cast<uint64_t>(*budget) <
           gnnrt::footprint::gatWholeAggregationBytes(edges, rows, heads, hf,
                                                      elt);
  }

  Value matmul(Location loc, Type type, Value a, Value b) {
    return builder.create<MatmulOp>(loc, type, a, b);
  }
  Value biasAdd(Location loc, Type type, Value x, Value bias) {
    if (!bias)
      return x;
    return builder.create<BiasAddOp>(loc, type, x, bias);
  }
  Value spmm(Location loc, Type type, Aggregation aggr, Value graph, Value x,
             Value weights = Value()) {
    return builder.create<SpmmOp>(
        loc, type, AggregationAttr::get(builder.getContext(), aggr), graph, x,
        weights);
  }

  /// gcn: x W over g (with self loops), summed with symmetric weights when
  /// normalising, then the bias. The weighted sum commutes with W, so the
  /// sum runs on the narrower side: over x W when W narrows (the usual
  /// case), over x when it widens, as DGL's GraphConv does. Aggregating the
  /// narrower matrix moves fewer bytes through the graph, and a first layer
  /// over the input then needs no backward aggregation at all (W's gradient
  /// is (A x)^T dy). The two orders round differently; within one program
  /// the order is fixed, so keep-all and every memory plan agree bit for
  /// bit.
  Value rewrite(GcnConvOp op) {
    Location loc = op.getLoc();
    Type type = op.getType();
    Value graph = op.getGraph(), x = op.getInput();
    if (op.getSelfLoops())
      graph = graphs.selfLoops(graph, loc);
    Value weights;
    if (op.getNormalize())
      weights = graphs.edgeNorm(graph, EdgeNorm::symmetric,
                                tensorType(x).getElementType(), loc);
    Value y;
    if (op.aggregatesFirst()) {
      Value a = spmm(loc, x.getType(), Aggregation::sum, graph, x, weights);
      y = matmul(loc, type, a, op.getWeight());
    } else {
      Value z = matmul(loc, type, x, op.getWeight());
      y = spmm(loc, type, Aggregation::sum, graph, z, weights);
    }
    return biasAdd(loc, type, y, op.getBias());
  }

  /// sage and graph_conv: aggr(x) W (+ x W_root) + b.
  Value neighbourAndRoot(Location loc, Type type, Aggregation aggr, Value graph,
                         Value x, Value w, Value root, Value bias) {
    Value a = spmm(loc, x.getType(), aggr, graph, x);
    Value y = matmul(loc, type, a, w);
    if (root) {
      Value r = matmul(loc, type, x, root);
      y = builder.create<AddOp>(loc, type, y, r);
    }
    return biasAdd(loc, type, y, bias);
  }
  Value rewrite(SageConvOp op) {
    return neighbourAndRoot(op.getLoc(), op.getType(), op.getAggr(),
                            op.getGraph(), op.getInput(), op.getWeight(),
                            op.getRootWeight(), op.getBias());
  }
  Value rewrite(GraphConvOp op) {
    return neighbourAndRoot(op.getLoc(), op.getType(), op.getAggr(),
                            op.getGraph(), op.getInput(), op.getWeight(),
                            op.getRootWeight(), op.getBias());
  }

  /// gin: relu((1 + eps) x + sum(x) W1 + b1) W2 + b2.
  Value rewrite(GinConvOp op) {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Value a = spmm(loc, x.getType(), Aggregation::sum, op.getGraph(), x);
    double eps = op.getEps().convertToDouble();
    Value self = x;
    if (eps != 0)
      self = builder.create<ScaleOp>(loc, x.getType(), x,
                                     builder.getF64FloatAttr(1 + eps));
    Value z = builder.create<AddOp>(loc, x.getType(), self, a);
    auto hiddenType = matrixType(tensorType(op.getResult()).getDimSize(0),
                                 tensorType(op.getWeight1()).getDimSize(1), x);
    Value h = matmul(loc, hiddenType, z, op.getWeight1());
    h = biasAdd(loc, hiddenType, h, op.getBias1());
    h = builder.create<ActivationOp>(
        loc, hiddenType,
        ActivationAttr::get(builder.getContext(), Activation::relu), h,
        FloatAttr());
    Value y = matmul(loc, op.getType(), h, op.getWeight2());
    return biasAdd(loc, op.getType(), y, op.getBias2());
  }

  /// gat: per-head scores through head_matrix(sum), leaky relu, edge
  /// softmax over the graph with self loops, optional attention dropout,
  /// the weighted sum, then heads concatenated (as they are) or averaged.
  Value rewrite(GatConvOp op) {
    Location loc = op.getLoc();
    Value x = op.getInput();
    int64_t heads = op.getHeads();
    int64_t hf = tensorType(op.getWeight()).getDimSize(1);
    if (ShapedType::isDynamic(hf)) {
      op.emitOpError("cannot be decomposed: its weight needs a static "
                     "number of columns (heads * out) to build the head "
                     "matrices");
      return nullptr;
    }
    int64_t width = hf / heads;
    int64_t rows = tensorType(op.getResult()).getDimSize(0);
    MLIRContext *ctx = builder.getContext();

    Value graph = graphs.selfLoops(op.getGraph(), loc);
    int64_t edges = cast<GraphType>(graph.getType()).getEdges();
    auto zType = matrixType(rows, hf, x);
    auto nodeScoreType = matrixType(rows, heads, x);

    Value z = matmul(loc, zType, x, op.getWeight());
    // The per-head scores s[i, k] = sum over head k's columns c of
    // z[i, c] att[c] are one product with the [heads, hf] matrix that holds
    // att in head k's block of row k. Scaling z first and summing the heads
    // after (the textbook order) computes the same products but builds an
    // [N, hf] tensor per vector, and its adjoint two more: the gradients of
    // z and of att were the largest point of GAT's backward pass.
    auto spreadType = matrixType(heads, hf, x);
    Value spreadHeads = builder.create<HeadMatrixOp>(
        loc, spreadType, HeadMatrixKind::spread, heads, width);
    auto score = [&](Value att) {
      Value weights =
          builder.create<RowMulOp>(loc, spreadType, spreadHeads, att);
      return builder.create<MatmulOp>(loc, nodeScoreType, z, weights,
                                      /*transposeA=*/false,
                                      /*transposeB=*/true);
    };
    Value sSrc = score(op.getAttSrc());
    Value sDst = score(op.getAttDst());
    // One kernel, not two gathers and an add: the two [E, heads] halves are
    // never both live (they bound GAT's smallest plans).
    // The attention of heads [first, first + count): the edge logits, their
    // soft-max and its dropout, whose mask is that of those columns of the
    // whole [E, heads] tensor.
    auto attention = [&](Value src, Value dst, int64_t first, int64_t count) {
      auto type = matrixType(edges, count, x);
      Value e = builder.create<EdgeAddOp>(loc, type, graph, src, dst);
      e = builder.create<ActivationOp>(
          loc, type, ActivationAttr::get(ctx, Activation::leaky_relu), e,
          builder.getF64FloatAttr(op.getNegativeSlope().convertToDouble()));
      Value alpha = builder.create<EdgeSoftmaxOp>(loc, type, graph, e);
      if (op.getAttnDropout().convertToDouble() > 0) {
        auto dropout = builder.create<DropoutOp>(
            loc, type, alpha, op.getKey(),
            builder.getF64FloatAttr(op.getAttnDropout().convertToDouble()),
            builder.getI64IntegerAttr(op.getStream()));
        if (count != heads)
          dropout.setMaskColumns(heads, first);
        alpha = dropout;
      }
      return alpha;
    };
    Type type = op.getType();
    if (op.getConcat() && heads > 1 && splitHeads(edges, rows, heads, hf, x)) {
      // Head by head: the same values (the projection and the scores are
      // computed whole and sliced, every per-head kernel sums a head's
      // columns as the multi-head one does, and each head's dropout draws
      // its column of the whole mask), but a head's attention and
      // aggregation need a head's share of the device memory
      // (docs/MemoryPlanning.md, "GAT by heads").
      auto headType = matrixType(rows, width, x);
      auto scoreType = matrixType(rows, 1, x);
      auto slice = [&](Value v, Type t, int64_t offset) -> Value {
        return builder.create<SliceOp>(loc, t, v, offset);
      };
      // Every head's features first, so that z dies before the first
      // head's attention: kept until its last slice, z and the heads'
      // outputs would be live together.
      SmallVector<Value> features, outputs;
      for (int64_t k = 0; k < heads; ++k)
        features.push_back(slice(z, headType, k * width));
      for (int64_t k = 0; k < heads; ++k) {
        // In this order: arguments are evaluated in no fixed one.
        Value src = slice(sSrc, scoreType, k);
        Value dst = slice(sDst, scoreType, k);
        Value alpha = attention(src, dst, k, 1);
        outputs.push_back(
            spmm(loc, headType, Aggregation::sum, graph, features[k], alpha));
      }
      Value y = builder.create<ConcatOp>(loc, type, outputs);
      return biasAdd(loc, type, y, op.getBias());
    }
    Value alpha = attention(sSrc, sDst, 0, heads);
    Value y;
    if (op.getConcat()) {
      y = spmm(loc, type, Aggregation::sum, graph, z, alpha);
    } else {
      y = spmm(loc, zType, Aggregation::sum, graph, z, alpha);
      Value meanHeads = builder.create<HeadMatrixOp>(
          loc, matrixType(hf, width, x), HeadMatrixKind::mean, heads, width);
      y = matmul(loc, type, y, meanHeads);
    }
    return biasAdd(loc, type, y, op.getBias());
  }

  Value rewrite(LinearOp op) {
    Value y = matmul(op.getLoc(), op.getType(), op.getInput(), op.getWeight());
    return biasAdd(op.getLoc(), op.getType(), y, op.getBias());
  }

  /// Standardise along `dim`, then the learnt scale and shift.
  template <typename NormOp> Value normLayer(NormOp op, int64_t dim) {
    Location loc = op.getLoc();
    Type type = op.getType();
    Value y = builder.create<NormalizeOp>(
        loc, type, op.getInput(), builder.getI64IntegerAttr(dim),
        builder.getF64FloatAttr(op.getEps().convertToDouble()));
    y = builder.create<RowMulOp>(loc, type, y, op.getWeight());
    return biasAdd(loc, type, y, op.getBias());
  }
  Value rewrite(BatchNormOp op) { return normLayer(op, 0); }
  Value rewrite(LayerNormOp op) { return normLayer(op, 1); }

  OpBuilder &builder;
  GraphValues &graphs;
  StringRef splitMode;
  std::optional<int64_t> budget;
};

/// The memory budget of the training recipe on \p scope, if any.
std::optional<int64_t> budgetOf(Operation *scope) {
  auto config = scope->getAttrOfType<DictionaryAttr>("train.config");
  if (!config)
    return std::nullopt;
  if (auto memory = config.getAs<IntegerAttr>("memory"))
    return memory.getInt();
  return std::nullopt;
}

struct DecomposePass : mlir::gnn::impl::GnnDecomposeBase<DecomposePass> {
  using GnnDecomposeBase::GnnDecomposeBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!llvm::is_contained(kSplitHeadsModes, StringRef(splitHeads))) {
      module.emitError("gnn-decompose: split-heads = '")
          << splitHeads << "' is not one of " << nameList(kSplitHeadsModes);
      return signalPassFailure();
    }
    OpBuilder builder(&getContext());
    bool failedAny = false;
    // One cache per isolated region (each function): graph values must not
    // be shared across functions.
    SmallVector<Operation *> scopes;
    module.walk([&](Operation *scope) {
      if (scope->hasTrait<OpTrait::IsIsolatedFromAbove>() && scope != module)
        scopes.push_back(scope);
    });
    for (Operation *scope : scopes) {
      SmallVector<Operation *> layers;
      scope->walk([&](Operation *op) {
        if (op->hasTrait<gnn::Layer>() &&
            op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>() == scope)
          layers.push_back(op);
      });
      GraphValues graphs(builder);
      LayerDecomposer decomposer(builder, graphs, splitHeads, budgetOf(scope));
      for (Operation *op : layers) {
        Value replacement = decomposer.decompose(op);
        if (!replacement) {
          failedAny = true;
          continue;
        }
        op->getResult(0).replaceAllUsesWith(replacement);
        op->erase();
        ++numLayers;
      }
    }
    // Whatever is still a layer (one this pass could not rewrite, or one at
    // module level) would reach autodiff and the backends undecomposed.
    module.walk([&](Operation *op) {
      if (op->hasTrait<gnn::Layer>()) {
        if (!failedAny)
          op->emitOpError("was not decomposed");
        failedAny = true;
      }
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
