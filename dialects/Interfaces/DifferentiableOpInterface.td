//===- DifferentiableOpInterface.td - Reverse-mode rules ---*- tablegen -*-===//
//
// The one contract between the primitives and gnn-autodiff: an op that
// implements it knows how to emit the ops computing its operands' cotangents
// from its results' cotangents. The rules live next to the autodiff pass
// (external models), so the dialects stay free of calculus.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_DIFFERENTIABLE_OP_INTERFACE
#define GNNC_DIFFERENTIABLE_OP_INTERFACE

include "mlir/IR/OpBase.td"

def DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::gnn";
  let description = [{
    A primitive whose vector-Jacobian product gnn-autodiff can emit. Given the
    cotangents of the op's results (one per result, never null), the method
    inserts ops at the builder's insertion point and fills `operandCotangents`
    with one value per operand: the cotangent of that operand, or a null
    `Value` where the operand is not differentiable (a graph, an RNG key,
    labels, masks). The emitted ops may use the op's operands and results
    (which dominate the reverse sweep) and must use only primitives, so that
    backends need no extra knowledge of derivatives.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Emits the vector-Jacobian product of this op.",
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"buildAdjoint",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::mlir::ValueRange":$resultCotangents,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>,
  ];
}

#endif // GNNC_DIFFERENTIABLE_OP_INTERFACE
