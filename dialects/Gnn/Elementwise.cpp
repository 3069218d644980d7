//===- Elementwise.cpp - Which gnn ops compute element by element ---------===//
#include "dialects/Gnn/Elementwise.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// A statically shaped f32 tensor with no encoding (no CSR).
bool isPlainF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32() &&
         !tensor.getEncoding();
}

} // namespace

bool mlir::gnn::isElementwiseOp(Operation *op) {
  if (!isa<AddOp, SubOp, MulOp, ScaleOp, ActivationOp, ActivationGradOp,
           BiasAddOp, RowMulOp, ZerosOp>(op) ||
      op->getNumResults() != 1 || !isPlainF32(op->getResult(0).getType()))
    return false;
  std::optional<RowRestriction> rows = getRowRestriction(op);
  return llvm::all_of(op->getOperands(), [&](Value v) {
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    return !tensor || (rows && v == rows->rowSets) ||
           (tensor.getElementType().isF32() && !tensor.getEncoding());
  });
}

bool mlir::gnn::isDenseDropout(Operation *op) {
  auto dropout = dyn_cast<DropoutOp>(op);
  return dropout && isPlainF32(dropout.getInput().getType()) &&
         isPlainF32(dropout.getResult().getType());
}

SmallVector<std::pair<Value, bool>> mlir::gnn::elementwiseReads(Operation *op) {
  SmallVector<std::pair<Value, bool>> values;
  // The row sets say which rows to compute; they are not read per element.
  std::optional<RowRestriction> rows = getRowRestriction(op);
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()) && !(rows && v == rows->rowSets))
      values.push_back(
          {v, isa<BiasAddOp, RowMulOp>(op) && v == op->getOperand(1)});
  return values;
}
