//===- Sema.h - Semantic analysis of .gnn programs ----------------*- C++
//-*-===//
//
// Checks a parsed program against language v1 and produces the
// CheckedProgram: names and scopes, `repeat` unrolling, compile-time
// arithmetic, operator and setting arguments (kinds, ranges, defaults,
// required ones), model parameters bound by `train M(...)`, width inference
// from the dataset's `features`/`classes`, and the return width.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_SEMA_SEMA_H
#define GNNC_LANG_SEMA_SEMA_H

#include "lang/AST/AST.h"
#include "lang/Sema/CheckedProgram.h"

#include <optional>
#include <string>
#include <vector>

namespace gnnc {

class DiagnosticEngine;

struct SemaOptions {
  /// Directories searched, in order, for `dataset("name")`.
  std::vector<std::string> dataSearchPath;
  /// Directory of the source file: relative dataset paths are tried there
  /// first, then in the working directory.
  std::string sourceDir;
  /// Upper bound on unrolled statements per model, so `repeat` cannot make
  /// the compiler run away.
  unsigned maxUnrolledStatements = 100000;
  /// Replaces every train block's `memory` (the tools' --memory), before
  /// the budget is checked, so an override can also rescue a program
  /// whose own budget is too small.
  std::optional<uint64_t> memory;
};

/// Checks \p program, reporting problems to \p diags (several per run where
/// they are independent). The result is complete only if no error was
/// reported.
sema::CheckedProgram checkProgram(const ast::Program &program,
                                  DiagnosticEngine &diags,
                                  const SemaOptions &options);

/// Whether \p op is a gat_conv that concatenates several heads: one
/// gnn-decompose can run head by head.
bool concatenatesHeads(const sema::LayerOp &op);

/// Whether gnn-decompose's split-heads=auto runs the gat_conv \p op of a
/// train block on \p data head by head under \p budget: it concatenates
/// several heads and the budget is below what its aggregation needs with
/// them together (gnnrt::footprint::gatWholeAggregationBytes, the sum
/// gnn-decompose decides by), \p elt bytes an element.
bool splitsHeadsUnderAuto(const sema::LayerOp &op, const sema::DataSource &data,
                          uint64_t elt, std::optional<uint64_t> budget);

/// The search path a tool uses: \p extraDirs (e.g. --data), then each entry
/// of $GNNC_DATA_PATH, then the datasets that ship with gnnc.
std::vector<std::string>
defaultDataSearchPath(const std::vector<std::string> &extraDirs);

} // namespace gnnc

#endif // GNNC_LANG_SEMA_SEMA_H
