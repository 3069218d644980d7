//===- Builtins.h - Signatures of operators and settings ----------*- C++
//-*-===//
//
// One table describes every operator, setting and setting constructor of
// language v1: argument names, kinds, defaults and ranges. Sema binds calls
// against it, the "did you mean" engine draws candidates from it, and
// `gnnc check --list-builtins` prints it (docs/Language.md is checked
// against that listing by a test).
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_SEMA_BUILTINS_H
#define GNNC_LANG_SEMA_BUILTINS_H

#include "lang/Sema/CheckedProgram.h"

#include "llvm/ADT/StringRef.h"

#include <limits>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace gnnc::sema {

enum class ArgKind { Tensor, Int, Real, Bool, Choice, String, Size, IntList };

/// "an integer", "a node tensor", ... for messages.
llvm::StringRef describe(ArgKind kind);

struct ArgSpec {
  llvm::StringRef name;
  ArgKind kind;
  bool required = false;
  int64_t defInt = 0;
  double defReal = 0;
  bool defBool = false;
  llvm::StringRef defString; ///< Choice and String defaults.
  std::vector<int64_t> defList;
  /// Inclusive unless the matching flag says otherwise; for Int and Real,
  /// and for each element of an IntList.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool minExclusive = false, maxExclusive = false;
  std::vector<llvm::StringRef> choices; ///< Choice: the allowed words.
  bool variadic = false;                ///< Tensor: one or more (concat).
  /// IntList: elements may also be this value (fan-out -1 = all).
  std::optional<int64_t> listSentinel;

  /// "[0, 1)", "≥ 1", ... or "" when unbounded.
  std::string rangeText() const;
  /// The default as source text, or "required".
  std::string defaultText() const;
};

/// An operator (`gcn_conv`) or a constructor used in a setting (`adam`).
struct CallSpec {
  llvm::StringRef name;
  std::vector<ArgSpec> args;
  llvm::StringRef summary;
  OpKind op = OpKind::Input; ///< Operators only.

  const ArgSpec *find(llvm::StringRef arg) const;
  std::vector<llvm::StringRef> argNames() const;
};

/// What a setting's value must be.
enum class SettingKind {
  Loss,       ///< a loss constructor
  Optimizer,  ///< an optimizer constructor
  Sampling,   ///< a sampling constructor or word
  Disk,       ///< spill(dir, size)
  Int,        ///< positive integer (or ≥ 0 where min says so)
  Size,       ///< a size literal
  Choice,     ///< one word of `choices`
  MetricList, ///< a list of metric words
};

struct SettingSpec {
  llvm::StringRef name;
  SettingKind kind;
  bool required = false;
  llvm::StringRef defaultText;
  llvm::StringRef summary;
  std::vector<llvm::StringRef> choices; ///< Choice and MetricList.
  int64_t min = 1;                      ///< Int.
};

const std::vector<CallSpec> &operatorSpecs();
const std::vector<CallSpec> &lossSpecs();
const std::vector<CallSpec> &optimizerSpecs();
const std::vector<CallSpec> &samplingSpecs();
const std::vector<CallSpec> &dataSpecs(); ///< dataset, synthetic
const CallSpec &spillSpec();
const std::vector<SettingSpec> &settingSpecs();

const CallSpec *findIn(const std::vector<CallSpec> &specs,
                       llvm::StringRef name);
std::vector<llvm::StringRef> namesOf(const std::vector<CallSpec> &specs);
const SettingSpec *findSetting(llvm::StringRef name);

/// Prints every operator, setting and constructor with its arguments,
/// defaults and ranges, one per line (`gnnc check --list-builtins`).
void printBuiltins(llvm::raw_ostream &os);

} // namespace gnnc::sema

#endif // GNNC_LANG_SEMA_BUILTINS_H
