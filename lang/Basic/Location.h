//===- Location.h - Source locations for the .gnn front end -------*- C++
//-*-===//
//
// A position in the one source file a compilation reads. Plain data so the
// AST stays free of LLVM and ANTLR types; MLIRGen turns it into a
// FileLineColLoc and the diagnostics engine into an llvm::SMLoc.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_BASIC_LOCATION_H
#define GNNC_LANG_BASIC_LOCATION_H

namespace gnnc {

struct Location {
  unsigned line = 0; ///< 1-based; 0 means "no location".
  unsigned col = 0;  ///< 1-based column, counted in bytes.

  bool isValid() const { return line != 0; }
  friend bool operator==(Location a, Location b) {
    return a.line == b.line && a.col == b.col;
  }
  friend bool operator<(Location a, Location b) {
    return a.line != b.line ? a.line < b.line : a.col < b.col;
  }
};

} // namespace gnnc

#endif // GNNC_LANG_BASIC_LOCATION_H
