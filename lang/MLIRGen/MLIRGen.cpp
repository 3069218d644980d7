//===- MLIRGen.cpp - The one bridge from the front end to MLIR ------------===//
#include "lang/MLIRGen/MLIRGen.h"

#include "lang/Sema/CheckedProgram.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

// Placeholder until MLIRGen lands: refuses rather than emitting nothing.
mlir::OwningOpRef<mlir::ModuleOp>
gnnc::mlirGen(mlir::MLIRContext &context,
              const sema::CheckedProgram &program) {
  mlir::emitError(mlir::UnknownLoc::get(&context),
                  "MLIRGen is not supported yet");
  return nullptr;
}
