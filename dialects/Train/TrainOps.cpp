//===- TrainOps.cpp - train dialect ---------------------------------------===//
#include "dialects/Train/TrainOps.h"

#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::train;

#include "dialects/Train/TrainDialect.cpp.inc"
#include "dialects/Train/TrainEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Train/TrainAttrs.cpp.inc"

void TrainDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Train/TrainOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Train/TrainAttrs.cpp.inc"
      >();
}

namespace {
bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Logits are [N, C]; labels and mask are [N].
LogicalResult verifyLossOperands(Operation *op, Value logits, Value labels,
                                 Value mask, double smoothing) {
  int64_t n = cast<RankedTensorType>(logits.getType()).getDimSize(0);
  for (Value v : {labels, mask})
    if (!compatible(n, cast<RankedTensorType>(v.getType()).getDimSize(0)))
      return op->emitOpError("labels and mask need one entry per logits row");
  if (smoothing < 0 || smoothing >= 1)
    return op->emitOpError("label_smoothing must be in [0, 1), got ")
           << smoothing;
  return success();
}
} // namespace

LogicalResult InitOp::verify() {
  if ((getKind() == InitKind::glorot && getFanIn() + getFanOut() <= 0) ||
      (getKind() == InitKind::kaiming && getFanIn() <= 0))
    return emitOpError("needs positive fan_in")
           << (getKind() == InitKind::glorot ? " + fan_out" : "");
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  return verifyLossOperands(*this, getLogits(), getLabels(), getMask(),
                            getLabelSmoothing().convertToDouble());
}

LogicalResult CrossEntropyGradOp::verify() {
  if (getLogits().getType() != getResult().getType())
    return emitOpError("result type must equal the logits type");
  return verifyLossOperands(*this, getLogits(), getLabels(), getMask(),
                            getLabelSmoothing().convertToDouble());
}

LogicalResult SgdOp::verify() {
  bool hasMomentum = getMomentum().convertToDouble() > 0;
  if (hasMomentum != bool(getMomentumBuffer()) ||
      hasMomentum != bool(getNewMomentumBuffer()))
    return emitOpError("has a momentum buffer (operand and result) exactly "
                       "when momentum > 0");
  for (Value v : {getGrad(), getNewParam()})
    if (v.getType() != getParam().getType())
      return emitOpError("param, grad and results must have one type");
  if (getMomentumBuffer() &&
      (getMomentumBuffer().getType() != getParam().getType() ||
       getNewMomentumBuffer().getType() != getParam().getType()))
    return emitOpError("the momentum buffer must have the param's type");
  if (getNesterov() && !hasMomentum)
    return emitOpError("nesterov needs momentum > 0");
  return success();
}

#define GET_OP_CLASSES
#include "dialects/Train/TrainOps.cpp.inc"
