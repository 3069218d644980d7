//===- PlanProblem.h - The memory plan as an optimisation problem -*- C++
//-*-===//
//
// The planner's decision, stripped of IR: a timeline of points, the bytes
// each tier holds at every point whatever is decided (`base`), each tier's
// capacity, and candidates, each with a few options (keep, recompute from
// some kept inputs, host or disk offload with a prefetch distance, narrow
// storage). An option costs predicted seconds and occupies bytes of some
// tiers over intervals of points; it may require other candidates to be
// kept (a recompute reads them). A solution picks one option per candidate
// so that every tier fits its capacity at every point, at the lowest total
// cost.
//
// The IR side (PlanMemory.cpp) builds a Problem from the step's liveness
// and the cost model, and rewrites the chosen options into `mem` ops. Kept
// apart so the solvers can be tested, and checked against each other, on
// problems written by hand or drawn at random.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_MEMORYPLAN_PLANPROBLEM_H
#define GNNC_PASSES_MEMORYPLAN_PLANPROBLEM_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace mlir::gnn::plan {

/// The memory policies (`plan` in the language, --plan) and the solvers
/// (--planner): the one list the pass and the tools check names against
/// (and name in messages: mlir::gnn::nameList).
/// `checkpoint_layers` (keep each layer's input, recompute inside layers)
/// is for comparisons, through --plan only: language v1 does not name it.
inline constexpr llvm::StringLiteral kPolicyNames[] = {
    "auto", "keep_all", "recompute_all", "offload_all", "checkpoint_layers"};
inline constexpr llvm::StringLiteral kSolverNames[] = {"auto", "exact",
                                                       "greedy", "ilp"};
/// Where bytes are held. The order is the index into per-tier arrays.
enum class Tier { Device = 0, Host = 1, Disk = 2 };
constexpr int kNumTiers = 3;
llvm::StringRef stringifyTier(Tier tier);

enum class Fate { Keep, Recompute, Host, Disk, Narrow, Sign };
llvm::StringRef stringifyFate(Fate fate);

/// `bytes` held in `tier` at every point of [from, to] (inclusive).
struct Usage {
  Tier tier = Tier::Device;
  int64_t from = 0, to = 0;
  int64_t bytes = 0;
};

/// That candidate `candidate` choose option `option` (0: keep it).
struct Requirement {
  int candidate = 0;
  int option = 0;
};

struct Option {
  Fate fate = Fate::Keep;
  /// Predicted seconds this option adds to the step (0 for keep).
  double seconds = 0;
  llvm::SmallVector<Usage, 4> usage;
  /// Candidates (indices) that must choose Fate::Keep for this option to be
  /// valid: the kept inputs a recompute reads.
  llvm::SmallVector<int, 2> requiresKept;
  /// Other options of other candidates this option needs chosen (an edge
  /// weights' tiles need their graph's tiles).
  llvm::SmallVector<Requirement, 1> requiresOption;
  /// requiresKept (as option 0) and requiresOption, together.
  llvm::SmallVector<Requirement, 3> requirements() const {
    llvm::SmallVector<Requirement, 3> all(requiresOption.begin(),
                                          requiresOption.end());
    for (int j : requiresKept)
      all.push_back({j, 0});
    return all;
  }
  /// What the IR side needs to rewrite the option (a recompute variant, a
  /// prefetch point); opaque to the solvers.
  int64_t detail = 0;
};

struct Candidate {
  std::string name;
  int64_t bytes = 0;
  /// Option 0 is always Fate::Keep.
  std::vector<Option> options;
};

struct Problem {
  int64_t numPoints = 0;
  /// Bytes held at each point whatever the plan, per tier.
  std::array<std::vector<int64_t>, kNumTiers> base;
  std::array<int64_t, kNumTiers> capacity = {0, 0, 0};
  std::vector<Candidate> candidates;

  /// An empty problem over \p points points.
  explicit Problem(int64_t points = 0);
  /// Checks indices, intervals and that option 0 keeps; a message names
  /// the first defect.
  llvm::Error verify() const;
};

struct Solution {
  /// The option chosen for each candidate.
  std::vector<int> choice;
  double seconds = 0;
  std::array<int64_t, kNumTiers> peak = {0, 0, 0};
  /// The point where each tier peaks (-1 if it holds nothing).
  std::array<int64_t, kNumTiers> peakPoint = {-1, -1, -1};
  bool feasible = false;
  /// Whether the solver proved no cheaper feasible choice exists.
  bool optimal = false;
  /// Search nodes (exact), iterations (greedy), or GLPK's B&B nodes.
  int64_t work = 0;
};

/// Cost, peaks and feasibility of \p choice (requirements included).
Solution evaluate(const Problem &problem, const std::vector<int> &choice);

/// The bytes of \p tier at every point under \p choice.
std::vector<int64_t> tierCurve(const Problem &problem,
                               const std::vector<int> &choice, Tier tier);

struct ExactLimits {
  /// Search nodes before giving up on a proof of optimality; the best plan
  /// found so far is returned with `optimal = false`.
  int64_t maxNodes = 4'000'000;
  /// A feasible plan to start from (e.g. the greedy's): the search then
  /// only looks for strictly cheaper ones and prunes against it from the
  /// first node, and returns it when it finds none.
  std::vector<int> incumbent;
};

/// Branch and bound over the candidates, largest first, pruned by cost
/// against the best plan so far and by memory against the smallest bytes
/// each open candidate could still occupy at each point. Exact within
/// \p limits. An infeasible problem gives `feasible = false` and the
/// plan with the lowest device peak the search saw.
Solution solveExact(const Problem &problem, ExactLimits limits = {});

/// Starts from keeping everything and, while a tier overflows, moves the
/// candidate with the cheapest seconds per byte relieved at the worst point
/// to a smaller option; then tries to undo moves that are no longer needed.
/// Linear-ish in candidates x points; for steps too large for solveExact.
Solution solveGreedy(const Problem &problem);

/// The problem as a 0-1 integer program solved by GLPK's branch and cut:
/// one binary per option, one choice per candidate, a capacity row per
/// tier and point, a row per requirement. `--planner=ilp`, and the
/// reference the other solvers are tested against.
llvm::Expected<Solution> solveIlp(const Problem &problem,
                                  double timeLimitSeconds = 60);

} // namespace mlir::gnn::plan

#endif // GNNC_PASSES_MEMORYPLAN_PLANPROBLEM_H
