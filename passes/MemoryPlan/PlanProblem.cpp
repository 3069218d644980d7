//===- PlanProblem.cpp - Evaluating and solving memory plans --------------===//
//
// The exact branch and bound and the greedy fall-back over a Problem (see
// PlanProblem.h); the GLPK model is in IlpSolver.cpp.
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/PlanProblem.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace mlir::gnn::plan;

llvm::StringRef mlir::gnn::plan::stringifyTier(Tier tier) {
  switch (tier) {
  case Tier::Device:
    return "device";
  case Tier::Host:
    return "host";
  case Tier::Disk:
    return "disk";
  }
  llvm_unreachable("unknown tier");
}

llvm::StringRef mlir::gnn::plan::stringifyFate(Fate fate) {
  switch (fate) {
  case Fate::Keep:
    return "keep";
  case Fate::Recompute:
    return "recompute";
  case Fate::Host:
    return "host";
  case Fate::Disk:
    return "disk";
  case Fate::Narrow:
    return "narrow";
  case Fate::Sign:
    return "sign";
  }
  llvm_unreachable("unknown fate");
}

Problem::Problem(int64_t points) : numPoints(points) {
  for (std::vector<int64_t> &b : base)
    b.assign(points, 0);
}

llvm::Error Problem::verify() const {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  for (int t = 0; t < kNumTiers; ++t)
    if (static_cast<int64_t>(base[t].size()) != numPoints)
      return fail(llvm::formatv("the {0} base has {1} points, not {2}",
                                stringifyTier(Tier(t)), base[t].size(),
                                numPoints));
  int n = static_cast<int>(candidates.size());
  for (auto [i, c] : llvm::enumerate(candidates)) {
    if (c.options.empty() || c.options[0].fate != Fate::Keep)
      return fail("candidate '" + c.name + "': option 0 must keep it");
    for (auto [o, option] : llvm::enumerate(c.options)) {
      std::string where =
          llvm::formatv("candidate '{0}' option {1}", c.name, o);
      for (const Usage &u : option.usage)
        if (u.from < 0 || u.to < u.from || u.to >= numPoints || u.bytes < 0)
          return fail(where + llvm::formatv(": bad usage [{0}, {1}] of {2} "
                                            "bytes over {3} points",
                                            u.from, u.to, u.bytes, numPoints));
      for (Requirement r : option.requirements())
        if (r.candidate < 0 || r.candidate >= n ||
            r.candidate == static_cast<int>(i) || r.option < 0 ||
            r.option >=
                static_cast<int>(candidates[r.candidate].options.size()))
          return fail(where +
                      llvm::formatv(": requires candidate {0} option {1}",
                                    r.candidate, r.option));
      if (!(option.seconds >= 0))
        return fail(where + ": negative or NaN cost");
    }
  }
  return llvm::Error::success();
}

std::vector<int64_t> mlir::gnn::plan::tierCurve(const Problem &problem,
                                                const std::vector<int> &choice,
                                                Tier tier) {
  int t = static_cast<int>(tier);
  std::vector<int64_t> delta(problem.numPoints + 1, 0);
  for (auto [i, c] : llvm::enumerate(problem.candidates))
    for (const Usage &u : c.options[choice[i]].usage)
      if (u.tier == tier) {
        delta[u.from] += u.bytes;
        delta[u.to + 1] -= u.bytes;
      }
  std::vector<int64_t> curve(problem.numPoints);
  int64_t live = 0;
  for (int64_t p = 0; p < problem.numPoints; ++p) {
    live += delta[p];
    curve[p] = problem.base[t][p] + live;
  }
  return curve;
}

Solution mlir::gnn::plan::evaluate(const Problem &problem,
                                   const std::vector<int> &choice) {
  Solution s;
  s.choice = choice;
  s.feasible = true;
  for (auto [i, c] : llvm::enumerate(problem.candidates)) {
    const Option &option = c.options[choice[i]];
    s.seconds += option.seconds;
    for (Requirement r : option.requirements())
      if (choice[r.candidate] != r.option)
        s.feasible = false;
  }
  for (int t = 0; t < kNumTiers; ++t) {
    std::vector<int64_t> curve = tierCurve(problem, choice, Tier(t));
    for (int64_t p = 0; p < problem.numPoints; ++p)
      if (curve[p] > s.peak[t] || (s.peakPoint[t] < 0 && curve[p] > 0)) {
        s.peak[t] = curve[p];
        s.peakPoint[t] = p;
      }
    if (s.peak[t] > problem.capacity[t])
      s.feasible = false;
  }
  return s;
}

/// Per tier, whether no plan can go over its capacity there: the base's
/// peak plus, for every candidate, its option holding the most bytes in
/// the tier at once, stays within it (host memory without a host_memory
/// limit). Both solvers leave such a tier out: it is never over, and
/// leaving it out took a sixth off the planning time of GAT on Facebook at
/// its smallest plan, whose values mostly go to host memory.
static std::array<bool, kNumTiers> neverOver(const Problem &problem) {
  std::array<bool, kNumTiers> result;
  for (int t = 0; t < kNumTiers; ++t) {
    const int64_t cap = problem.capacity[t];
    int64_t bound = 0;
    for (int64_t b : problem.base[t])
      bound = std::max(bound, b);
    bool within = bound <= cap;
    for (const Candidate &c : problem.candidates) {
      if (!within)
        break;
      int64_t most = 0;
      for (const Option &o : c.options) {
        int64_t sum = 0;
        for (const Usage &u : o.usage)
          if (static_cast<int>(u.tier) == t)
            sum += u.bytes;
        most = std::max(most, sum);
      }
      within = most <= cap - bound;
      bound += within ? most : 0;
    }
    result[t] = within;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Exact: branch and bound
//===----------------------------------------------------------------------===//

namespace {

class BranchAndBound {
public:
  BranchAndBound(const Problem &problem, ExactLimits limits)
      : problem(problem), limits(limits),
        n(static_cast<int>(problem.candidates.size())),
        points(problem.numPoints) {}

  Solution run() {
    // Largest first: the big decisions settle feasibility early, so the
    // memory bound prunes near the root.
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    auto keepBytes = [&](int i) { return problem.candidates[i].bytes; };
    llvm::stable_sort(
        order, [&](int a, int b) { return keepBytes(a) > keepBytes(b); });

    // suffixMin[k][t][p]: the fewest bytes candidates order[k..] can occupy
    // at p in tier t, each on its own (an optimistic completion), plus the
    // base; left empty for the tiers the search leaves out.
    skip = neverOver(problem);
    suffixMin.assign(n + 1, {});
    for (int t = 0; t < kNumTiers; ++t)
      if (!skip[t])
        suffixMin.back()[t].assign(points, 0);
    suffixCost.assign(n + 1, 0);
    for (int k = n - 1; k >= 0; --k) {
      const Candidate &c = problem.candidates[order[k]];
      suffixMin[k] = suffixMin[k + 1];
      double cheapest = std::numeric_limits<double>::infinity();
      for (int t = 0; t < kNumTiers; ++t) {
        if (skip[t])
          continue;
        std::vector<int64_t> least(points, std::numeric_limits<int64_t>::max());
        for (const Option &o : c.options) {
          std::vector<int64_t> curve(points, 0);
          for (const Usage &u : o.usage)
            if (static_cast<int>(u.tier) == t)
              for (int64_t p = u.from; p <= u.to; ++p)
                curve[p] += u.bytes;
          for (int64_t p = 0; p < points; ++p)
            least[p] = std::min(least[p], curve[p]);
        }
        for (int64_t p = 0; p < points; ++p)
          suffixMin[k][t][p] += least[p];
      }
      for (const Option &o : c.options)
        cheapest = std::min(cheapest, o.seconds);
      suffixCost[k] = suffixCost[k + 1] + cheapest;
    }
    // The base, held whatever is decided, is added in once here rather
    // than at every point the search checks.
    for (auto &tiers : suffixMin)
      for (int t = 0; t < kNumTiers; ++t)
        for (int64_t p = 0; p < points && !skip[t]; ++p)
          tiers[t][p] += problem.base[t][p];

    // Options cheapest first, so the first complete plan is a good bound.
    optionOrder.resize(n);
    for (int i = 0; i < n; ++i) {
      auto &ids = optionOrder[i];
      ids.resize(problem.candidates[i].options.size());
      std::iota(ids.begin(), ids.end(), 0);
      llvm::stable_sort(ids, [&](int a, int b) {
        return problem.candidates[i].options[a].seconds <
               problem.candidates[i].options[b].seconds;
      });
    }

    for (int t = 0; t < kNumTiers; ++t)
      if (!skip[t])
        current[t].assign(points, 0);
    choice.assign(n, -1);
    forced.assign(n, 0);
    forcedTo.assign(n, 0);
    best.seconds = std::numeric_limits<double>::infinity();
    if (!limits.incumbent.empty()) {
      Solution start = evaluate(problem, limits.incumbent);
      if (start.feasible) {
        best.seconds = start.seconds;
        bestChoice = limits.incumbent;
        found = true;
      }
    }
    if (fits(0))
      search(0, 0.0);
    Solution result;
    if (!found) {
      result.feasible = false;
      result.optimal = nodes <= limits.maxNodes;
    } else {
      result = evaluate(problem, bestChoice);
      result.optimal = nodes <= limits.maxNodes;
    }
    result.work = nodes;
    return result;
  }

private:
  /// Whether base + the decided options + the optimistic rest fit.
  bool fits(int k) const {
    for (int t = 0; t < kNumTiers; ++t) {
      if (skip[t])
        continue;
      int64_t cap = problem.capacity[t];
      const std::vector<int64_t> &rest = suffixMin[k][t];
      for (int64_t p = 0; p < points; ++p)
        if (current[t][p] + rest[p] > cap)
          return false;
    }
    return true;
  }

  /// Takes back what applyAndFits added for \p o.
  void takeBack(const Option &o) {
    for (const Usage &u : o.usage) {
      if (skip[static_cast<int>(u.tier)])
        continue;
      // In locals: the compiler cannot tell that the curve's elements do
      // not alias u.bytes, and reloading it each point kept the loop
      // from being vectorised.
      int64_t *curve = current[static_cast<int>(u.tier)].data();
      const int64_t bytes = u.bytes;
      for (int64_t p = u.from, to = u.to; p <= to; ++p)
        curve[p] -= bytes;
    }
  }

  /// Applies \p o, candidate order[k]'s option, and returns fits(k + 1),
  /// given fits(k) before. Moving the candidate from its least bytes (in
  /// suffixMin[k]) to \p o's raises the sum only where \p o holds more than
  /// that least, which is inside \p o's own usages, so only their points
  /// are checked, each as its last usage leaves it (usages may overlap):
  /// the same answer as fits(k + 1) in the points the option touches
  /// rather than all of them, most of the search's time on large steps.
  bool applyAndFits(int k, const Option &o) {
    // Any point over: some cap - sum is negative. Or-ed without a branch,
    // so the loops vectorise; the sums are far from overflowing.
    int64_t over = 0;
    for (const Usage &u : o.usage) {
      int t = static_cast<int>(u.tier);
      if (skip[t])
        continue;
      const int64_t cap = problem.capacity[t], delta = u.bytes;
      const int64_t *rest = suffixMin[k + 1][t].data();
      int64_t *curve = current[t].data();
      for (int64_t p = u.from, to = u.to; p <= to; ++p) {
        curve[p] += delta;
        over |= cap - (curve[p] + rest[p]);
      }
    }
    return over >= 0;
  }

  void search(int k, double cost) {
    if (++nodes > limits.maxNodes)
      return;
    if (cost + suffixCost[k] >= best.seconds)
      return;
    if (k == n) {
      best.seconds = cost;
      bestChoice.assign(choice.begin(), choice.end());
      found = true;
      return;
    }
    int i = order[k];
    const Candidate &c = problem.candidates[i];
    for (int o : optionOrder[i]) {
      const Option &option = c.options[o];
      if (forced[i] > 0 && o != forcedTo[i])
        continue;
      // A requirement on a candidate already decided, or required,
      // otherwise.
      llvm::SmallVector<Requirement, 3> needs = option.requirements();
      if (llvm::any_of(needs, [&](Requirement r) {
            int j = r.candidate;
            return (choice[j] >= 0 && choice[j] != r.option) ||
                   (forced[j] > 0 && forcedTo[j] != r.option);
          }))
        continue;
      if (cost + option.seconds + suffixCost[k + 1] >= best.seconds)
        continue;
      if (applyAndFits(k, option)) {
        choice[i] = o;
        for (Requirement r : needs) {
          ++forced[r.candidate];
          forcedTo[r.candidate] = r.option;
        }
        search(k + 1, cost + option.seconds);
        for (Requirement r : needs)
          --forced[r.candidate];
        choice[i] = -1;
      }
      takeBack(option);
      if (nodes > limits.maxNodes)
        return;
    }
  }

  const Problem &problem;
  ExactLimits limits;
  int n;
  int64_t points;
  std::vector<int> order;
  std::vector<std::array<std::vector<int64_t>, kNumTiers>> suffixMin;
  std::vector<double> suffixCost;
  std::vector<std::vector<int>> optionOrder;
  std::array<std::vector<int64_t>, kNumTiers> current;
  /// The tiers never over (neverOver): not tracked in `current` nor in
  /// `suffixMin`.
  std::array<bool, kNumTiers> skip = {};
  /// How many chosen options require each candidate's option forcedTo.
  std::vector<int> choice, forced, forcedTo, bestChoice;
  Solution best;
  bool found = false;
  int64_t nodes = 0;
};

} // namespace

Solution mlir::gnn::plan::solveExact(const Problem &problem,
                                     ExactLimits limits) {
  return BranchAndBound(problem, limits).run();
}

//===----------------------------------------------------------------------===//
// Greedy
//===----------------------------------------------------------------------===//

namespace {

/// The greedy's current plan: each tier's curve under it, and its overflow,
/// bytes over capacity summed over points and tiers. The overflow is zero
/// exactly when a plan fits and shrinks with every byte relieved anywhere,
/// so the greedy's moves always make progress. A move is priced over the
/// points its two options touch only, not by re-evaluating the whole plan.
class GreedyState {
public:
  explicit GreedyState(const Problem &problem)
      : problem(problem), choice(problem.candidates.size(), 0),
        forced(problem.candidates.size(), 0),
        forcedTo(problem.candidates.size(), 0), skip(neverOver(problem)) {
    for (int t = 0; t < kNumTiers; ++t) {
      if (skip[t])
        continue;
      curve[t] = tierCurve(problem, choice, Tier(t));
      for (int64_t bytes : curve[t])
        over += std::max<int64_t>(0, bytes - problem.capacity[t]);
    }
    for (auto [i, c] : llvm::enumerate(problem.candidates))
      for (Requirement r : c.options[0].requirements()) {
        ++forced[r.candidate];
        forcedTo[r.candidate] = r.option;
      }
  }

  /// Whether candidate \p i may take option \p o: what it requires is
  /// kept, and nothing chosen requires \p i kept unless \p o keeps it.
  bool allowed(int i, int o) const {
    if (forced[i] > 0 && o != forcedTo[i])
      return false;
    return llvm::all_of(option(i, o).requirements(), [&](Requirement r) {
      return choice[r.candidate] == r.option;
    });
  }

  /// The overflow if candidate \p i took option \p o.
  int64_t overflowAfter(int i, int o) const {
    const Option &from = option(i, choice[i]), &to = option(i, o);
    int64_t after = over;
    for (int t = 0; t < kNumTiers; ++t) {
      if (skip[t])
        continue;
      int64_t lo = problem.numPoints, hi = -1;
      for (const Option *opt : {&from, &to})
        for (const Usage &u : opt->usage)
          if (static_cast<int>(u.tier) == t) {
            lo = std::min(lo, u.from);
            hi = std::max(hi, u.to);
          }
      if (lo > hi)
        continue;
      // The move's change at each point of [lo, hi], summed usage by
      // usage, then priced in one pass: the same sums as adding each
      // usage's bytes point by point.
      change.assign(hi - lo + 1, 0);
      for (int sign : {-1, +1})
        for (const Usage &u : (sign < 0 ? from : to).usage)
          if (static_cast<int>(u.tier) == t)
            for (int64_t p = u.from; p <= u.to; ++p)
              change[p - lo] += sign * u.bytes;
      int64_t cap = problem.capacity[t];
      const int64_t *now = curve[t].data() + lo;
      for (int64_t p = 0; p <= hi - lo; ++p)
        after += std::max<int64_t>(0, now[p] + change[p] - cap) -
                 std::max<int64_t>(0, now[p] - cap);
    }
    return after;
  }

  void apply(int i, int o) {
    over = overflowAfter(i, o);
    for (int sign : {-1, +1}) {
      const Option &opt = option(i, sign < 0 ? choice[i] : o);
      for (const Usage &u : opt.usage)
        if (!skip[static_cast<int>(u.tier)])
          for (int64_t p = u.from; p <= u.to; ++p)
            curve[static_cast<int>(u.tier)][p] += sign * u.bytes;
      for (Requirement r : opt.requirements()) {
        forced[r.candidate] += sign;
        forcedTo[r.candidate] = r.option;
      }
    }
    choice[i] = o;
  }

  const Option &option(int i, int o) const {
    return problem.candidates[i].options[o];
  }

  const Problem &problem;
  std::vector<int> choice;
  /// How many chosen options require each candidate's option forcedTo.
  std::vector<int> forced, forcedTo;
  /// The tiers never over (neverOver): their curves are left empty.
  std::array<bool, kNumTiers> skip;
  std::array<std::vector<int64_t>, kNumTiers> curve;
  int64_t over = 0;

private:
  /// overflowAfter's scratch, kept to spare an allocation per move priced.
  mutable std::vector<int64_t> change;
};

} // namespace

Solution mlir::gnn::plan::solveGreedy(const Problem &problem) {
  int n = static_cast<int>(problem.candidates.size());
  GreedyState state(problem);
  const std::vector<int> &choice = state.choice;
  int64_t work = 0;
  // Relieve overflow: the move with the least added seconds per byte of
  // overflow removed.
  while (state.over > 0) {
    double bestScore = std::numeric_limits<double>::infinity();
    int bestI = -1, bestO = -1;
    int64_t bestOver = state.over;
    for (int i = 0; i < n; ++i) {
      const Candidate &c = problem.candidates[i];
      for (int o = 0; o < static_cast<int>(c.options.size()); ++o) {
        if (o == choice[i])
          continue;
        ++work;
        if (!state.allowed(i, o))
          continue;
        int64_t after = state.overflowAfter(i, o);
        if (after >= state.over)
          continue;
        double added = c.options[o].seconds - c.options[choice[i]].seconds;
        double score = added / static_cast<double>(state.over - after);
        if (score < bestScore || (score == bestScore && after < bestOver)) {
          bestScore = score;
          bestI = i;
          bestO = o;
          bestOver = after;
        }
      }
    }
    if (bestI < 0)
      break;
    state.apply(bestI, bestO);
  }
  // Undo what is no longer needed: the most expensive choices first, each
  // to the cheapest option that still fits.
  if (state.over == 0) {
    bool changed = true;
    while (changed) {
      changed = false;
      std::vector<int> byCost(n);
      std::iota(byCost.begin(), byCost.end(), 0);
      llvm::stable_sort(byCost, [&](int a, int b) {
        return problem.candidates[a].options[choice[a]].seconds >
               problem.candidates[b].options[choice[b]].seconds;
      });
      for (int i : byCost) {
        const Candidate &c = problem.candidates[i];
        for (int o = 0; o < static_cast<int>(c.options.size()); ++o) {
          if (c.options[o].seconds >= c.options[choice[i]].seconds)
            continue;
          ++work;
          if (state.allowed(i, o) && state.overflowAfter(i, o) == 0) {
            state.apply(i, o);
            changed = true;
            break;
          }
        }
      }
    }
  }
  Solution s = evaluate(problem, choice);
  s.work = work;
  return s;
}
