//===- Adjoints.cpp - Reverse-mode rules of the primitives ----------------===//
#include "passes/Autodiff/Adjoints.h"

#include "mlir/IR/DialectRegistry.h"

// Placeholder: the rules arrive with gnn-autodiff.
void mlir::gnn::registerDifferentiableOpInterfaceExternalModels(
    DialectRegistry &) {}
