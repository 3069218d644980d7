//===- Diagnostics.h - Compiler diagnostics for .gnn files --------*- C++
//-*-===//
//
// Errors, warnings and notes in the form users know from clang:
//   file:line:col: error: message
//   <the source line>
//       ^
// Built on llvm::SourceMgr, which does the line/caret rendering. Every
// diagnostic is also recorded so unit tests can inspect them.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_BASIC_DIAGNOSTICS_H
#define GNNC_LANG_BASIC_DIAGNOSTICS_H

#include "lang/Basic/Location.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"

#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace gnnc {

enum class DiagKind { Error, Warning, Note };

struct Diagnostic {
  DiagKind kind;
  Location loc;
  std::string message;
};

class DiagnosticEngine {
public:
  /// Diagnostics refer to buffer \p bufferId of \p sourceMgr. Output goes to
  /// \p os when it is non-null (tests may pass null and inspect diagnostics()).
  DiagnosticEngine(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                   llvm::raw_ostream *os, bool showColors = false);

  void error(Location loc, const llvm::Twine &message);
  void warning(Location loc, const llvm::Twine &message);
  /// Attaches a note to the preceding error or warning (and is dropped with
  /// it if that one was a duplicate).
  void note(Location loc, const llvm::Twine &message);

  unsigned errorCount() const { return numErrors; }
  bool hasErrors() const { return numErrors != 0; }
  /// True once the error limit is reached: callers stop producing more.
  bool shouldStop() const { return limitReached; }
  void setErrorLimit(unsigned limit) { errorLimit = limit; }

  /// While a context is pushed, every error is followed (after its own
  /// notes) by a note naming the context, as clang's "in instantiation
  /// of" notes: a model checked for a train block says which block.
  void pushContext(Location loc, std::string message);
  void popContext();

  const std::vector<Diagnostic> &diagnostics() const { return recorded; }
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }
  llvm::StringRef getFilename() const;

private:
  void emit(DiagKind kind, Location loc, const llvm::Twine &message);
  void flushContextNotes();

  llvm::SourceMgr &sourceMgr;
  unsigned bufferId;
  llvm::raw_ostream *os;
  bool showColors;
  unsigned numErrors = 0;
  unsigned errorLimit = 20;
  bool limitReached = false;
  /// The same error reached twice (e.g. a model checked for two `train`
  /// blocks) is reported once; its notes are dropped with it.
  bool suppressNotes = false;
  std::set<std::tuple<unsigned, unsigned, int, std::string>> seen;
  std::vector<Diagnostic> recorded;
  std::vector<std::pair<Location, std::string>> contexts;
  bool contextNotesPending = false;
};

/// Scoped DiagnosticEngine::pushContext / popContext.
class DiagnosticContext {
public:
  DiagnosticContext(DiagnosticEngine &diags, Location loc, std::string message)
      : diags(diags) {
    diags.pushContext(loc, std::move(message));
  }
  ~DiagnosticContext() { diags.popContext(); }
  DiagnosticContext(const DiagnosticContext &) = delete;
  DiagnosticContext &operator=(const DiagnosticContext &) = delete;

private:
  DiagnosticEngine &diags;
};

} // namespace gnnc

#endif // GNNC_LANG_BASIC_DIAGNOSTICS_H
