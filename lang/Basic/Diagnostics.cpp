//===- Diagnostics.cpp - Compiler diagnostics for .gnn files -------------===//
#include "lang/Basic/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

using namespace gnnc;

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &sourceMgr,
                                   unsigned bufferId, llvm::raw_ostream *os,
                                   bool showColors)
    : sourceMgr(sourceMgr), bufferId(bufferId), os(os), showColors(showColors) {
}

llvm::StringRef DiagnosticEngine::getFilename() const {
  return sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
}

void DiagnosticEngine::pushContext(Location loc, std::string message) {
  flushContextNotes();
  contexts.emplace_back(loc, std::move(message));
}

void DiagnosticEngine::popContext() {
  flushContextNotes();
  contexts.pop_back();
}

void DiagnosticEngine::flushContextNotes() {
  if (!contextNotesPending)
    return;
  contextNotesPending = false;
  for (auto it = contexts.rbegin(); it != contexts.rend(); ++it)
    emit(DiagKind::Note, it->first, it->second);
}

void DiagnosticEngine::error(Location loc, const llvm::Twine &message) {
  flushContextNotes();
  if (limitReached) {
    suppressNotes = true;
    return;
  }
  if (numErrors >= errorLimit) {
    limitReached = true;
    suppressNotes = true;
    if (os)
      llvm::SMDiagnostic(getFilename(), llvm::SourceMgr::DK_Error,
                         "too many errors emitted, stopping now")
          .print(nullptr, *os, showColors);
    return;
  }
  emit(DiagKind::Error, loc, message);
  contextNotesPending = !suppressNotes && !contexts.empty();
}

void DiagnosticEngine::warning(Location loc, const llvm::Twine &message) {
  flushContextNotes();
  if (limitReached) {
    suppressNotes = true;
    return;
  }
  emit(DiagKind::Warning, loc, message);
}

void DiagnosticEngine::note(Location loc, const llvm::Twine &message) {
  if (suppressNotes)
    return;
  emit(DiagKind::Note, loc, message);
}

void DiagnosticEngine::emit(DiagKind kind, Location loc,
                            const llvm::Twine &message) {
  std::string text = message.str();
  if (kind != DiagKind::Note) {
    auto key = std::make_tuple(loc.line, loc.col, static_cast<int>(kind), text);
    suppressNotes = !seen.insert(key).second;
    if (suppressNotes)
      return;
    if (kind == DiagKind::Error)
      ++numErrors;
  }
  recorded.push_back({kind, loc, text});
  if (!os)
    return;
  llvm::SourceMgr::DiagKind dk =
      kind == DiagKind::Error     ? llvm::SourceMgr::DK_Error
      : kind == DiagKind::Warning ? llvm::SourceMgr::DK_Warning
                                  : llvm::SourceMgr::DK_Note;
  llvm::SMLoc smLoc;
  if (loc.isValid())
    smLoc = sourceMgr.FindLocForLineAndColumn(bufferId, loc.line, loc.col);
  if (smLoc.isValid()) {
    sourceMgr.PrintMessage(*os, smLoc, dk, text, {}, {}, showColors);
    return;
  }
  // No usable position (e.g. a whole-file problem): still name the file.
  llvm::SMDiagnostic diag(getFilename(), dk, text);
  diag.print(nullptr, *os, showColors);
}
