//===- Passes.h - gnnc passes -----------------------------------*- C++ -*-===//
#ifndef GNNC_PASSES_PASSES_H
#define GNNC_PASSES_PASSES_H

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Mem/MemOps.h"
#include "dialects/Train/TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringExtras.h"

#include <iterator>
#include <string>

namespace mlir::gnn {

/// gnn-decompose's split-heads values (gnnc --split-heads): when a
/// multi-head gat_conv that concatenates its heads runs head by head.
inline constexpr llvm::StringLiteral kSplitHeadsModes[] = {"auto", "always",
                                                           "never"};

/// "a, b, c": a list of option values (kSplitHeadsModes, plan::kPolicyNames,
/// plan::kSolverNames) for messages.
template <size_t N>
std::string nameList(const llvm::StringLiteral (&names)[N]) {
  return llvm::join(std::begin(names), std::end(names), ", ");
}

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::gnn

#endif // GNNC_PASSES_PASSES_H
