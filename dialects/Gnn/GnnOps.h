//===- GnnOps.h - gnn dialect operations ------------------------*- C++ -*-===//
#ifndef GNNC_DIALECTS_GNN_GNNOPS_H
#define GNNC_DIALECTS_GNN_GNNOPS_H

#include "dialects/Gnn/GnnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gnn {
/// Marks ops that depend on the graph alone (computed once per graph).
template <typename ConcreteType>
class GraphDerived : public OpTrait::TraitBase<ConcreteType, GraphDerived> {};
/// Marks layer ops, which gnn-decompose must rewrite into primitives.
template <typename ConcreteType>
class Layer : public OpTrait::TraitBase<ConcreteType, Layer> {};
} // namespace mlir::gnn

#define GET_OP_CLASSES
#include "dialects/Gnn/GnnOps.h.inc"

#endif // GNNC_DIALECTS_GNN_GNNOPS_H
