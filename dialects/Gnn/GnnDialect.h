//===- GnnDialect.h - gnn dialect, types and attributes ---------*- C++ -*-===//
#ifndef GNNC_DIALECTS_GNN_GNNDIALECT_H
#define GNNC_DIALECTS_GNN_GNNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/TensorEncoding.h"

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
} // namespace mlir::gnn

#endif // GNNC_DIALECTS_GNN_GNNDIALECT_H
