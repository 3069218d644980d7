//===- DifferentiableOpInterface.h - Reverse-mode rules ---------*- C++ -*-===//
//
// See DifferentiableOpInterface.td. The rules for the gnn and train
// primitives are attached as external models by passes/Autodiff.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_DIALECTS_INTERFACES_DIFFERENTIABLEOPINTERFACE_H
#define GNNC_DIALECTS_INTERFACES_DIFFERENTIABLEOPINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/Interfaces/DifferentiableOpInterface.h.inc"

#endif // GNNC_DIALECTS_INTERFACES_DIFFERENTIABLEOPINTERFACE_H
