//===- Parser.h - .gnn source to AST ------------------------------*- C++
//-*-===//
//
// The one entry point into the ANTLR-generated parser. Callers get a plain
// AST and diagnostics; no ANTLR type or exception crosses this interface.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_PARSER_PARSER_H
#define GNNC_LANG_PARSER_PARSER_H

#include "lang/AST/AST.h"

#include <memory>

namespace gnnc {

class DiagnosticEngine;

/// Limits that keep pathological input from exhausting the stack.
struct ParserLimits {
  unsigned maxNesting = 256;   ///< Brackets plus runs of unary minus.
  unsigned maxOperands = 4096; ///< Terms of one `a + b - ...` chain.
  unsigned maxDepth = 512;     ///< Depth of one expression's tree.
};

/// Parses the main buffer of \p diags' source manager. Syntax errors are
/// reported to \p diags; recovery continues so several are reported at once.
/// Always returns a program (possibly partial); callers check
/// diags.hasErrors() before trusting it.
std::unique_ptr<ast::Program> parseProgram(DiagnosticEngine &diags,
                                           ParserLimits limits = {});

} // namespace gnnc

#endif // GNNC_LANG_PARSER_PARSER_H
