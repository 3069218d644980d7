//===- Suggest.h - "did you mean" for near-miss names -------------*- C++
//-*-===//
#ifndef GNNC_LANG_BASIC_SUGGEST_H
#define GNNC_LANG_BASIC_SUGGEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace gnnc {

/// Returns the candidate closest to \p word by edit distance, if it is close
/// enough to be a plausible typo: a case-only difference, a distance of at
/// most a third of the word's length (at least 1, at most 3), or a candidate
/// that extends a word of three or more letters ("sage" -> "sage_conv").
/// Ties go to the earlier candidate, so callers list common names first.
std::optional<std::string>
closestMatch(llvm::StringRef word, llvm::ArrayRef<llvm::StringRef> candidates);

/// "; did you mean 'X'?" for the closest match, or "" when there is none.
std::string didYouMean(llvm::StringRef word,
                       llvm::ArrayRef<llvm::StringRef> candidates);

} // namespace gnnc

#endif // GNNC_LANG_BASIC_SUGGEST_H
