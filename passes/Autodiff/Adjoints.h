//===- Adjoints.h - Reverse-mode rules of the primitives --------*- C++ -*-===//
#ifndef GNNC_PASSES_AUTODIFF_ADJOINTS_H
#define GNNC_PASSES_AUTODIFF_ADJOINTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::gnn {
/// Attaches DifferentiableOpInterface to every differentiable gnn and train
/// primitive.
void registerDifferentiableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace mlir::gnn

#endif // GNNC_PASSES_AUTODIFF_ADJOINTS_H
