//===- Driver.h - The gnnc compilation pipeline as a library ------*- C++
//-*-===//
//
// `gnnc` is a thin command-line wrapper around this library, so tests, the
// JIT API and later stages (MLIR, planning, code generation) reuse one
// pipeline. A Compilation owns one source file, its diagnostics and every
// stage's result.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_DRIVER_DRIVER_H
#define GNNC_COMPILER_DRIVER_DRIVER_H

#include "compiler/Target/CPU/EmitCpp.h"
#include "gnnc/CompileSettings.h"
#include "lang/AST/AST.h"
#include "lang/Sema/CheckedProgram.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class SourceMgrDiagnosticHandler;
} // namespace mlir

namespace gnnc {

class DiagnosticEngine;

/// What `gnnc` hands the driver: the settings the JIT takes too
/// (gnnc/CompileSettings.h), and what only the command line has.
struct DriverOptions : CompileSettings {
  std::string inputFile; ///< A path, or "-" for standard input.
  bool showColors = false;
  /// --mlir-print-debuginfo: IR stages print each op's location.
  bool printDebugInfo = false;
};

/// Reads a size the way the language spells one: "3MiB", "3 MiB",
/// "1.5 GiB", "512 KiB" or plain bytes ("3145728"); the units are
/// Literals.h's. Fails with a message for anything else, and for 0 (a
/// budget holds at least one byte).
llvm::Expected<uint64_t> parseSizeSpelling(llvm::StringRef text);

/// The stages `gnnc emit --stage=` can print, in pipeline order.
enum class Stage { AST, GNN, Decomposed, Train, Plan, Cpp, Cuda };

/// Parses a stage name; std::nullopt if it names no stage.
std::optional<Stage> parseStage(llvm::StringRef name);
llvm::StringRef stageName(Stage stage);
/// "ast, gnn, ..." for help and errors.
std::string stageList();

class Compilation {
public:
  Compilation(DriverOptions options, llvm::raw_ostream &diagOS);
  ~Compilation();

  /// Reads, parses and checks the input. On failure the diagnostics are
  /// already printed and false is returned.
  bool runFrontend();
  /// The same on \p source, named options.inputFile in diagnostics (the
  /// JIT's compile-from-string). Relative dataset paths resolve from the
  /// working directory.
  bool runFrontendOn(const std::string &source);

  /// Prints \p stage of the program to \p os. Returns false (with a
  /// diagnostic) for stages this version of gnnc does not implement yet.
  bool emit(Stage stage, llvm::raw_ostream &os);

  /// Runs MLIRGen and the pipeline up to \p stage (gnn, decomposed, train
  /// or cpp: train with its buffers assigned). Errors are printed with their
  /// `.gnn` location; null on failure.
  /// \p cpuTarget plans for the CPU target: gnn-restrict-rows runs (only
  /// the CPU target has row kernels) and the planner prices the cache (the
  /// arena is host memory there; docs/CostModel.md).
  mlir::OwningOpRef<mlir::ModuleOp> lowerTo(Stage stage, bool cpuTarget = true);

  /// What the CPU emitter records about this program: its file and the
  /// directory each dataset name resolved to.
  mlir::gnn::CppEmitOptions cppEmitOptions() const;

  const ast::Program &getAST() const { return *ast; }
  const sema::CheckedProgram &getChecked() const { return checked; }
  DiagnosticEngine *getDiags() { return diags.get(); }

private:
  bool readInput(const std::string *source);
  bool runFrontendOn(const std::string *source);
  bool applyOnly();

  DriverOptions options;
  llvm::raw_ostream &diagOS;
  std::unique_ptr<llvm::SourceMgr> sourceMgr;
  std::unique_ptr<DiagnosticEngine> diags;
  std::unique_ptr<ast::Program> ast;
  sema::CheckedProgram checked;
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> mlirDiagHandler;
};

/// "gnnc version X (language v1, LLVM Y)".
std::string versionString();

/// Prints "gnnc: error: MESSAGE" for problems that have no source location
/// (a missing input file, a bad option).
void reportToolError(llvm::raw_ostream &os, const llvm::Twine &message);

} // namespace gnnc

#endif // GNNC_COMPILER_DRIVER_DRIVER_H
