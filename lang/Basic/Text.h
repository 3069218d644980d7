//===- Text.h - Small text helpers shared by the printers ---------*- C++
//-*-===//
#ifndef GNNC_LANG_BASIC_TEXT_H
#define GNNC_LANG_BASIC_TEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace gnnc {

/// Prints \p text as a .gnn string literal: quoted, with '"' and '\\'
/// escaped, so every dump reads back as source.
inline void printQuoted(llvm::StringRef text, llvm::raw_ostream &os) {
  os << '"';
  for (char c : text) {
    if (c == '"' || c == '\\')
      os << '\\';
    os << c;
  }
  os << '"';
}

} // namespace gnnc

#endif // GNNC_LANG_BASIC_TEXT_H
