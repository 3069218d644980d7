//===- SparseFeatures.cpp - gnn-sparse-features: CSR input features -------===//
//
// Gives mostly-zero input features the #gnn.csr encoding, with the dropout
// chains over them, when every use is a form the back ends implement for
// CSR (a dropout input, the left operand of a matmul). The encoding is
// storage only, so the rewrite is a retyping: no op is created or removed
// and every value means what it meant (GnnSparseFeatures in Passes.td).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Gnn/GnnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNSPARSEFEATURES
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// The values that would become CSR with \p features: the argument and the
/// dropouts over them, transitively; empty when some use cannot take CSR.
llvm::SetVector<Value> csrClosure(BlockArgument features) {
  llvm::SetVector<Value> closure;
  closure.insert(features);
  for (size_t i = 0; i < closure.size(); ++i) {
    for (OpOperand &use : closure[i].getUses()) {
      Operation *user = use.getOwner();
      if (auto dropout = dyn_cast<DropoutOp>(user)) {
        closure.insert(dropout.getResult());
        continue;
      }
      if (auto matmul = dyn_cast<MatmulOp>(user);
          matmul && use.getOperandNumber() == 0 &&
          matmul.getRhs() != matmul.getLhs())
        continue;
      return {};
    }
  }
  return closure;
}

struct SparseFeaturesPass
    : mlir::gnn::impl::GnnSparseFeaturesBase<SparseFeaturesPass> {
  using GnnSparseFeaturesBase::GnnSparseFeaturesBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        sparsify(func);
  }

  void sparsify(func::FuncOp func) {
    for (BlockArgument arg : func.getArguments()) {
      unsigned i = arg.getArgNumber();
      auto role = func.getArgAttrOfType<StringAttr>(i, "gnn.input");
      auto nnz = func.getArgAttrOfType<IntegerAttr>(i, "gnn.nnz");
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!role || role.getValue() != "features" || !nnz || !type ||
          type.getRank() != 2 || !type.hasStaticShape() || type.getEncoding())
        continue;
      double cells = double(type.getDimSize(0)) * double(type.getDimSize(1));
      if (cells == 0 || double(nnz.getInt()) > maxDensity * cells)
        continue;
      llvm::SetVector<Value> closure = csrClosure(arg);
      if (closure.empty())
        continue;
      auto csr = RankedTensorType::get(
          type.getShape(), type.getElementType(),
          CsrEncodingAttr::get(func.getContext(), nnz.getInt()));
      for (Value v : closure)
        v.setType(csr);
      SmallVector<Type> inputs(func.getArgumentTypes());
      inputs[i] = csr;
      func.setType(
          FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
      ++numSparse;
    }
  }
};

} // namespace
