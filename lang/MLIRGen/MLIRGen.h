//===- MLIRGen.h - The one bridge from the front end to MLIR ----*- C++ -*-===//
//
// Turns the checked program into the `gnn` dialect. Nothing else in lang/
// sees MLIR, and nothing in MLIR sees the syntax tree: this header only
// forward-declares MLIR types, as the Toy tutorial's MLIRGen.h does.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_MLIRGEN_MLIRGEN_H
#define GNNC_LANG_MLIRGEN_MLIRGEN_H

namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace gnnc {
namespace sema {
struct CheckedProgram;
} // namespace sema

/// Builds one module with a model function per `train` block (see
/// docs/Dialects/Gnn.md, "MLIRGen's output"). Every op carries the
/// FileLineColLoc of its `.gnn` call. Features no later stage implements
/// yet are reported as errors through the context's diagnostic handler;
/// the result is then null.
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &context,
                                          const sema::CheckedProgram &program);

} // namespace gnnc

#endif // GNNC_LANG_MLIRGEN_MLIRGEN_H
