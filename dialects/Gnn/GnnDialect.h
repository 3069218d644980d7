//===- GnnDialect.h - gnn dialect, types and attributes ---------*- C++ -*-===//
#ifndef GNNC_DIALECTS_GNN_GNNDIALECT_H
#define GNNC_DIALECTS_GNN_GNNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/TensorEncoding.h"

#include "llvm/ADT/StringRef.h"

#include "dialects/Gnn/GnnDialect.h.inc"
#include "dialects/Gnn/GnnEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Gnn/GnnTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Gnn/GnnAttrs.h.inc"

namespace mlir::gnn {
/// The #gnn.csr encoding of \p type, or null when it is not a CSR tensor.
CsrEncodingAttr getCsrEncoding(Type type);
inline bool isCsr(Type type) { return static_cast<bool>(getCsrEncoding(type)); }

/// A unit attribute on a function whose caller reads the tensors it
/// computes and returns from the function's arena, right after the call and
/// before anything else writes the arena (@M.predict's logits, which the
/// session reads from the workspace it shares with the step). Such a result
/// is an arena value live to the end, so it takes the bytes of values that
/// died before it instead of a buffer of its own; gnn-assign-buffers
/// records where as `gnn.result_offsets`.
inline constexpr llvm::StringLiteral kResultsInArenaAttr =
    "gnn.results_in_arena";
} // namespace mlir::gnn

#endif // GNNC_DIALECTS_GNN_GNNDIALECT_H
