//===- ExampleFiles.h - The shipped examples, for unit tests ----*- C++ -*-===//
//
// Tests that run every program of examples/ find them here, so a new
// example is covered without editing a list, and strip the settings of
// issues not done yet the same way everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_UNITTESTS_EXAMPLEFILES_H
#define GNNC_TEST_UNITTESTS_EXAMPLEFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

namespace gnnc::test {

/// The file names of every `.gnn` file in \p sourceDir/examples, sorted.
inline std::vector<std::string> shippedExamples(const std::string &sourceDir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(sourceDir + "/examples", ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".gnn"))
      found.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(found.begin(), found.end());
  return found;
}

/// \p text without the settings of later issues (synthetic_gin's sampling,
/// gradient accumulation, bf16), which are "not supported yet" errors
/// today: the model and its shapes are what these tests check.
inline std::string withoutLaterSettings(const std::string &text) {
  static const std::regex later(
      R"(\n\s*(sampling|accumulate|precision|saved_precision)\s*=[^;]*;)");
  return std::regex_replace(text, later, "");
}

} // namespace gnnc::test

#endif // GNNC_TEST_UNITTESTS_EXAMPLEFILES_H
