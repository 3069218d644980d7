//===- Literals.h - Decoding of .gnn literals ---------------------*- C++
//-*-===//
//
// Numbers, sizes and strings as language v1 defines them. Separate from the
// ANTLR-facing parser so the rules are unit-tested on their own.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_PARSER_LITERALS_H
#define GNNC_LANG_PARSER_LITERALS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace gnnc {

/// The size units of language v1, in the order messages list them.
llvm::ArrayRef<llvm::StringRef> sizeUnitNames();
/// Bytes per \p unit, or 0 if it is not a unit.
uint64_t sizeUnitBytes(llvm::StringRef unit);

/// Outcome of decoding a literal: on failure, \p error says why and
/// \p errorOffset is the byte offset in the literal it refers to.
struct LiteralResult {
  bool ok = true;
  std::string error;
  size_t errorOffset = 0;
};

/// Decodes NUMBER text. \p isInteger is set for literals written without a
/// fraction or exponent; those must fit in int64.
LiteralResult decodeNumber(llvm::StringRef text, double &value,
                           bool &isInteger);

/// Exact bytes of `number unit`; fails when the unit is unknown (callers
/// check that first), the result is not a whole number of bytes, or it
/// exceeds 2^64-1.
LiteralResult decodeSize(llvm::StringRef number, llvm::StringRef unit,
                         uint64_t &bytes);

/// Decodes a STRING token including its quotes: only \" and \\ escape.
LiteralResult decodeString(llvm::StringRef token, std::string &value);

} // namespace gnnc

#endif // GNNC_LANG_PARSER_LITERALS_H
