//===- Adjoints.cpp - Reverse-mode rules of the primitives ----------------===//
//
// One vector-Jacobian product per differentiable primitive, written with
// primitives only so that no backend needs to know about derivatives. Ops
// with no float tensor operand (graph ops, rng_key, head_matrix, zeros,
// train.init) are constants to the sweep and need no rule. The derivation of
// each rule is in the comment above it; the gradient checks in
// test/unittests/Autodiff compare every rule with finite differences.
//
//===----------------------------------------------------------------------===//
#include "passes/Autodiff/Adjoints.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Interfaces/DifferentiableOpInterface.h"
#include "dialects/Train/TrainOps.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::gnn;

namespace {
using Cotangents = SmallVectorImpl<Value>;

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}
int64_t dimOf(Value v, unsigned i) { return tensorType(v).getDimSize(i); }
Type elementTypeOf(Value v) { return tensorType(v).getElementType(); }

LogicalResult needStatic(Operation *op, ArrayRef<int64_t> dims,
                         StringRef what) {
  if (llvm::none_of(dims, ShapedType::isDynamic))
    return success();
  return op->emitError() << "derivative of '" << op->getName()
                         << "' needs a static " << what;
}

//===----------------------------------------------------------------------===//
// Aggregation
//===----------------------------------------------------------------------===//

// y[i] = sum_{e: dst(e) = i} w(e) x[src(e)] (times 1/deg(i) for mean).
// Then dx[j] = sum_{e: src(e) = j} w(e) dy[dst(e)], an SpMM over the
// transposed graph with the same edge weights, and
// dw(e, k) = sum_{c in head k} dy[dst(e), c] x[src(e), c], an SDDMM. A mean is
// a sum whose weights are multiplied by 1/deg(dst(e)) of the original graph.
// Max routes dy to the (first) maximising source.
LogicalResult rule(SpmmOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  Location loc = op.getLoc();
  Value g = op.getGraph(), x = op.getInput(), w = op.getWeights(), dy = dys[0];
  if (op.getAggr() == Aggregation::max) {
    dxs[1] = b.create<SpmmMaxGradOp>(loc, x.getType(), g, x, dy);
    return success();
  }
  bool rankOneWeights = w && tensorType(w).getRank() == 1;
  Value inverseDegree;
  Value weights = w;
  if (op.getAggr() == Aggregation::mean) {
    if (!w || rankOneWeights) {
      Type t =
          w ? w.getType()
            : RankedTensorType::get({cast<GraphType>(g.getType()).getEdges()},
                                    elementTypeOf(x));
      inverseDegree = b.create<EdgeNormOp>(loc, t, EdgeNorm::mean, g);
    } else {
      // The softmax of zeros over a node's incoming edges is 1/deg in every
      // head column: the [E, H] broadcast of the mean's factor, without a
      // broadcast primitive.
      inverseDegree = b.create<EdgeSoftmaxOp>(
          loc, w.getType(), g, b.create<ZerosOp>(loc, w.getType()));
    }
    weights =
        w ? b.create<MulOp>(loc, w, inverseDegree).getResult() : inverseDegree;
  }
  Value gt = b.create<TransposeOp>(loc, g.getType(), g);
  dxs[1] =
      b.create<SpmmOp>(loc, x.getType(), Aggregation::sum, gt, dy, weights);
  if (!w)
    return success();
  // Edge weights: [E] is one head whose [E, 1] scores are summed to [E].
  int64_t heads = rankOneWeights ? 1 : dimOf(w, 1);
  if (failed(needStatic(op, {heads}, "number of weight heads")))
    return failure();
  Type scoresType =
      rankOneWeights ? RankedTensorType::get({dimOf(w, 0), 1}, elementTypeOf(w))
                     : w.getType();
  Value dw = b.create<SddmmOp>(loc, scoresType, g, dy, x, heads);
  if (rankOneWeights)
    dw = b.create<ReduceOp>(loc, w.getType(), ReduceKind::sum, dw, 1);
  if (inverseDegree)
    dw = b.create<MulOp>(loc, dw, inverseDegree);
  dxs[2] = dw;
  return success();
}

// y[e, k] = sum_{c in k} lhs[dst(e), c] rhs[src(e), c]:
// dlhs[i, c] = sum_{e: dst(e) = i} dy[e, k(c)] rhs[src(e), c] = spmm(g, rhs,
// dy) drhs[j, c] = sum_{e: src(e) = j} dy[e, k(c)] lhs[dst(e), c]
//            = spmm(transpose(g), lhs, dy).
LogicalResult rule(SddmmOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  Location loc = op.getLoc();
  Value g = op.getGraph(), lhs = op.getLhs(), rhs = op.getRhs(), dy = dys[0];
  dxs[1] = b.create<SpmmOp>(loc, lhs.getType(), Aggregation::sum, g, rhs, dy);
  Value gt = b.create<TransposeOp>(loc, g.getType(), g);
  dxs[2] = b.create<SpmmOp>(loc, rhs.getType(), Aggregation::sum, gt, lhs, dy);
  return success();
}

// Gather and scatter with the same end are each other's transposes.
LogicalResult rule(GatherOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  dxs[1] = b.create<ScatterOp>(op.getLoc(), op.getInput().getType(),
                               op.getEnd(), op.getGraph(), dys[0]);
  return success();
}
LogicalResult rule(ScatterOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  dxs[1] = b.create<GatherOp>(op.getLoc(), op.getInput().getType(), op.getEnd(),
                              op.getGraph(), dys[0]);
  return success();
}

// y = gather src(a) + gather dst(b): the add passes dy to both gathers,
// whose adjoints are the scatters (the destination's first, the order the
// two gathers' adjoints ran in before they were one op).
LogicalResult rule(EdgeAddOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  Location loc = op.getLoc();
  dxs[2] = b.create<ScatterOp>(loc, op.getDstInput().getType(), EdgeEnd::dst,
                               op.getGraph(), dys[0]);
  dxs[1] = b.create<ScatterOp>(loc, op.getSrcInput().getType(), EdgeEnd::src,
                               op.getGraph(), dys[0]);
  return success();
}

LogicalResult rule(EdgeSoftmaxOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  dxs[1] = b.create<EdgeSoftmaxGradOp>(op.getLoc(), op.getInput().getType(),
                                       op.getGraph(), op.getResult(), dys[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

// With y = op(A) op(B): for y = A B, dA = dy B^T and dB = A^T dy; the other
// three cases follow by transposing those identities, e.g. for y = A^T B^T,
// dA = (dy B)^T = B^T dy^T and dB = (A dy)^T = dy^T A^T.
//
// dB comes first in the schedule: when A dies at this adjoint (a layer's
// input, read last by its weight gradient), it is then gone before dA, as
// large as A, is allocated, and the step holds two such tensors here, not
// three (docs/MemoryPlanning.md).
LogicalResult rule(MatmulOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  Location loc = op.getLoc();
  Value a = op.getLhs(), m = op.getRhs(), dy = dys[0];
  Type at = a.getType(), mt = m.getType();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  if (!ta && !tb) {
    dxs[1] = b.create<MatmulOp>(loc, mt, a, dy, true, false);
    dxs[0] = b.create<MatmulOp>(loc, at, dy, m, false, true);
  } else if (ta && !tb) {
    dxs[1] = b.create<MatmulOp>(loc, mt, a, dy, false, false);
    dxs[0] = b.create<MatmulOp>(loc, at, m, dy, false, true);
  } else if (!ta && tb) {
    dxs[1] = b.create<MatmulOp>(loc, mt, dy, a, true, false);
    dxs[0] = b.create<MatmulOp>(loc, at, dy, m, false, false);
  } else {
    dxs[1] = b.create<MatmulOp>(loc, mt, dy, a, true, true);
    dxs[0] = b.create<MatmulOp>(loc, at, m, dy, true, true);
  }
  return success();
}

LogicalResult rule(BiasAddOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  dxs[0] = dys[0];
  dxs[1] = b.create<ReduceOp>(op.getLoc(), op.getBias().getType(),
                              ReduceKind::sum, dys[0], 0);
  return success();
}

// y[i, c] = x[i, c] v[c]: dx = dy v (row-wise), dv[c] = sum_i dy[i, c] x[i, c].
LogicalResult rule(RowMulOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  Location loc = op.getLoc();
  Value x = op.getInput(), v = op.getScale(), dy = dys[0];
  dxs[0] = b.create<RowMulOp>(loc, x.getType(), dy, v);
  Value product = b.create<MulOp>(loc, dy, x);
  dxs[1] = b.create<ReduceOp>(loc, v.getType(), ReduceKind::sum, product, 0);
  return success();
}

// A sum spreads dy back over the reduced dimension; a mean also divides by
// its length. Rows of [D] are a bias_add onto zeros; columns of [N] are
// (zeros[1, N] + dy)^T times a [1, D] row of ones, head_matrix(sum) with one
// head being exactly a column of ones.
LogicalResult rule(ReduceOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  Location loc = op.getLoc();
  Value x = op.getInput(), dy = dys[0];
  if (op.getKind() == ReduceKind::max)
    return op.emitError() << "op '" << op->getName()
                          << "' has no derivative rule for 'max'";
  int64_t rows = dimOf(x, 0), cols = dimOf(x, 1);
  Value spread;
  if (op.getDim() == 0) {
    spread = b.create<BiasAddOp>(loc, x.getType(),
                                 b.create<ZerosOp>(loc, x.getType()), dy);
  } else {
    if (failed(needStatic(op, {cols}, "row width")))
      return failure();
    auto rowType = RankedTensorType::get({1, rows}, elementTypeOf(x));
    Value row =
        b.create<BiasAddOp>(loc, rowType, b.create<ZerosOp>(loc, rowType), dy);
    Value ones = b.create<HeadMatrixOp>(
        loc, RankedTensorType::get({cols, 1}, elementTypeOf(x)),
        HeadMatrixKind::sum, 1, cols);
    spread = b.create<MatmulOp>(loc, x.getType(), row, ones, true, true);
  }
  if (op.getKind() == ReduceKind::mean) {
    int64_t count = op.getDim() == 0 ? rows : cols;
    if (failed(needStatic(op, {count}, "reduced dimension")))
      return failure();
    spread =
        b.create<ScaleOp>(loc, spread, b.getF64FloatAttr(1.0 / double(count)));
  }
  dxs[0] = spread;
  return success();
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

LogicalResult rule(AddOp op, OpBuilder &, ValueRange dys, Cotangents &dxs) {
  dxs[0] = dxs[1] = dys[0];
  return success();
}

LogicalResult rule(SubOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  dxs[0] = dys[0];
  dxs[1] = b.create<ScaleOp>(op.getLoc(), dys[0], b.getF64FloatAttr(-1.0));
  return success();
}

LogicalResult rule(MulOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  dxs[0] = b.create<MulOp>(op.getLoc(), dys[0], op.getRhs());
  dxs[1] = b.create<MulOp>(op.getLoc(), dys[0], op.getLhs());
  return success();
}

LogicalResult rule(ScaleOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  dxs[0] = b.create<ScaleOp>(op.getLoc(), dys[0], op.getFactorAttr());
  return success();
}

// activation_grad takes the input so the forward value need not be kept.
LogicalResult rule(ActivationOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  dxs[0] = b.create<ActivationGradOp>(op.getLoc(), op.getInput().getType(),
                                      op.getKindAttr(), op.getInput(), dys[0],
                                      op.getSlopeAttr());
  return success();
}

// The mask is a function of (key, stream, element), so the same dropout
// applied to dy multiplies by the same mask and 1/(1-p): its own adjoint.
LogicalResult rule(DropoutOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  auto dx = b.create<DropoutOp>(op.getLoc(), op.getInput().getType(), dys[0],
                                op.getKey(), op.getPAttr(), op.getStreamAttr());
  dx.setMaskColumnsAttr(op.getMaskColumnsAttr());
  dxs[0] = dx;
  return success();
}

LogicalResult rule(ConcatOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    int64_t width = dimOf(input, 1);
    if (failed(needStatic(op, {width}, "width of every input")))
      return failure();
    dxs[i] = b.create<SliceOp>(op.getLoc(), input.getType(), dys[0], offset);
    offset += width;
  }
  return success();
}

// The cotangent of a column block is dy framed by zero blocks.
LogicalResult rule(SliceOp op, OpBuilder &b, ValueRange dys, Cotangents &dxs) {
  Location loc = op.getLoc();
  Value x = op.getInput(), dy = dys[0];
  int64_t rows = dimOf(x, 0), width = dimOf(x, 1), taken = dimOf(dy, 1);
  int64_t offset = op.getOffset();
  if (failed(needStatic(op, {width, taken}, "input and result width")))
    return failure();
  auto zeros = [&](int64_t cols) -> Value {
    return b.create<ZerosOp>(
        loc, RankedTensorType::get({rows, cols}, elementTypeOf(x)));
  };
  SmallVector<Value> blocks;
  if (offset > 0)
    blocks.push_back(zeros(offset));
  blocks.push_back(dy);
  if (int64_t rest = width - offset - taken; rest > 0)
    blocks.push_back(zeros(rest));
  dxs[0] = blocks.size() == 1 && dy.getType() == x.getType()
               ? dy
               : b.create<ConcatOp>(loc, x.getType(), blocks).getResult();
  return success();
}

LogicalResult rule(NormalizeOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  dxs[0] = b.create<NormalizeGradOp>(op.getLoc(), op.getInput().getType(),
                                     op.getInput(), dys[0], op.getDimAttr(),
                                     op.getEpsAttr());
  return success();
}

// Labels and mask are data: only the logits get a cotangent.
LogicalResult rule(train::CrossEntropyOp op, OpBuilder &b, ValueRange dys,
                   Cotangents &dxs) {
  dxs[0] = b.create<train::CrossEntropyGradOp>(
      op.getLoc(), op.getLogits().getType(), op.getLogits(), op.getLabels(),
      op.getMask(), dys[0], op.getLabelSmoothingAttr(),
      op.getClassWeightsAttr());
  return success();
}

/// The interface model of every op: sizes the result and defers to `rule`.
template <typename OpT>
struct Adjoint
    : public DifferentiableOpInterface::ExternalModel<Adjoint<OpT>, OpT> {
  LogicalResult buildAdjoint(Operation *op, OpBuilder &builder,
                             ValueRange resultCotangents,
                             SmallVectorImpl<Value> &operandCotangents) const {
    operandCotangents.assign(op->getNumOperands(), Value());
    return rule(cast<OpT>(op), builder, resultCotangents, operandCotangents);
  }
};

template <typename... OpTs> void attach(MLIRContext *ctx) {
  (OpTs::template attachInterface<Adjoint<OpTs>>(*ctx), ...);
}
} // namespace

void mlir::gnn::registerDifferentiableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, GnnDialect *) {
    attach<SpmmOp, SddmmOp, GatherOp, ScatterOp, EdgeAddOp, EdgeSoftmaxOp,
           MatmulOp, BiasAddOp, RowMulOp, ReduceOp, AddOp, SubOp, MulOp,
           ScaleOp, ActivationOp, DropoutOp, ConcatOp, SliceOp, NormalizeOp>(
        ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, train::TrainDialect *) {
    attach<train::CrossEntropyOp>(ctx);
  });
}
