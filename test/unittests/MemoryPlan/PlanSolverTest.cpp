//===- PlanSolverTest.cpp - The plan solvers against each other -----------===//
//
// evaluate() on hand-computed problems; the exact branch and bound against
// GLPK's optimum on random problems (same cost within 1e-9 relative, same
// feasibility); the greedy always feasible when a plan exists with no
// requirements blocking it, and never cheaper than the optimum (it would
// mean the exact search or GLPK is wrong).
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/PlanProblem.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::gnn::plan;

namespace {

/// A value of `bytes` defined at point `def`, last read forward at `fwd`,
/// needed again from `bwd` to `last`; options keep (0), recompute (1, costs
/// `recompute` s, transient `transient` bytes at bwd) and host offload (2,
/// `offload` s, host bytes over the gap).
Candidate makeCandidate(std::string name, int64_t bytes, int64_t def,
                        int64_t fwd, int64_t bwd, int64_t last,
                        double recompute, int64_t transient, double offload) {
  Candidate c;
  c.name = std::move(name);
  c.bytes = bytes;
  Option keep;
  keep.usage.push_back({Tier::Device, def, last, bytes});
  Option rec;
  rec.fate = Fate::Recompute;
  rec.seconds = recompute;
  rec.usage.push_back({Tier::Device, def, fwd, bytes});
  rec.usage.push_back({Tier::Device, bwd, last, bytes});
  if (transient)
    rec.usage.push_back({Tier::Device, bwd, bwd, transient});
  Option host;
  host.fate = Fate::Host;
  host.seconds = offload;
  host.usage.push_back({Tier::Device, def, fwd + 1, bytes});
  host.usage.push_back({Tier::Device, bwd, last, bytes});
  host.usage.push_back({Tier::Host, fwd + 1, bwd, bytes});
  c.options = {keep, rec, host};
  return c;
}

TEST(PlanSolver, EvaluateAddsUsageOverIntervals) {
  Problem p(10);
  p.base[0].assign(10, 100);
  p.capacity = {1000, 50, 0};
  p.candidates.push_back(makeCandidate("a", 300, 1, 2, 7, 8, 0.5, 40, 0.25));
  p.candidates.push_back(makeCandidate("b", 200, 2, 3, 5, 6, 0.125, 0, 1.0));
  ASSERT_FALSE(static_cast<bool>(p.verify()));

  Solution keep = evaluate(p, {0, 0});
  // Both live over [2, 6]: 100 + 300 + 200.
  EXPECT_EQ(keep.peak[0], 600);
  EXPECT_EQ(keep.peakPoint[0], 2);
  EXPECT_EQ(keep.seconds, 0.0);
  EXPECT_TRUE(keep.feasible);

  Solution mixed = evaluate(p, {1, 2});
  // a: 300 on [1,2] and [7,8], 40 more at 7; b: 200 on [2,4] and [5,6],
  // host 200 on [4,5] (over the host's 50).
  EXPECT_EQ(mixed.peak[0], 600);
  EXPECT_EQ(mixed.peak[1], 200);
  EXPECT_EQ(mixed.seconds, 1.5);
  EXPECT_FALSE(mixed.feasible);
  std::vector<int64_t> device = tierCurve(p, {1, 2}, Tier::Device);
  EXPECT_EQ(device, (std::vector<int64_t>{100, 400, 600, 300, 300, 300, 300,
                                          440, 400, 100}));
}

TEST(PlanSolver, RequirementsAreEnforced) {
  Problem p(6);
  p.capacity = {100, 0, 0};
  p.candidates.push_back(makeCandidate("x", 60, 0, 1, 3, 5, 1.0, 0, 9.0));
  p.candidates.push_back(makeCandidate("y", 60, 1, 2, 4, 5, 0.5, 0, 9.0));
  // y's cheap recompute reads x; it is only valid with x kept.
  p.candidates[1].options[1].requiresKept = {0};
  EXPECT_FALSE(evaluate(p, {1, 1}).feasible);
  EXPECT_TRUE(evaluate(p, {0, 1}).peak[0] <= 120);
  Solution exact = solveExact(p);
  llvm::Expected<Solution> ilp = solveIlp(p);
  ASSERT_TRUE(!!ilp) << llvm::toString(ilp.takeError());
  ASSERT_EQ(exact.feasible, ilp->feasible);
  if (exact.feasible) {
    EXPECT_TRUE(evaluate(p, exact.choice).feasible);
    EXPECT_NEAR(exact.seconds, ilp->seconds, 1e-12);
  }
}

TEST(PlanSolver, VerifyRejectsBadProblems) {
  Problem p(4);
  p.candidates.push_back(makeCandidate("a", 8, 0, 1, 2, 3, 1, 0, 1));
  p.candidates[0].options[1].usage[0].to = 4;
  llvm::Error err = p.verify();
  ASSERT_TRUE(!!err);
  EXPECT_NE(llvm::toString(std::move(err)).find("bad usage [0, 4]"),
            std::string::npos);
  Problem q(4);
  q.candidates.push_back(makeCandidate("a", 8, 0, 1, 2, 3, 1, 0, 1));
  std::swap(q.candidates[0].options[0], q.candidates[0].options[1]);
  llvm::Error err2 = q.verify();
  ASSERT_TRUE(!!err2);
  EXPECT_NE(llvm::toString(std::move(err2)).find("option 0 must keep"),
            std::string::npos);
}

/// Random problems shaped like a training step: values defined in a forward
/// half and needed again in the backward half in reverse order, a random
/// base curve, recompute options some of which need an earlier value kept.
Problem randomProblem(std::mt19937_64 &rng, int candidates, int points) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  Problem p(points);
  for (int64_t &b : p.base[0])
    b = uniform(0, 200);
  int half = points / 2;
  for (int i = 0; i < candidates; ++i) {
    int64_t def = uniform(0, half - 2);
    int64_t fwd = uniform(def, half - 1);
    int64_t bwd = uniform(half, points - 2);
    int64_t last = uniform(bwd, points - 1);
    int64_t bytes = uniform(1, 64) * 64;
    Candidate c = makeCandidate("v" + std::to_string(i), bytes, def, fwd, bwd,
                                last, uniform(1, 1000) * 1e-6,
                                uniform(0, 2) * 64, uniform(1, 1000) * 1e-6);
    if (i > 0 && uniform(0, 2) == 0) {
      // A second, cheaper recompute from a kept earlier value.
      Option cheap = c.options[1];
      cheap.seconds /= 4;
      cheap.requiresKept = {static_cast<int>(uniform(0, i - 1))};
      c.options.push_back(cheap);
    }
    if (uniform(0, 3) == 0) {
      // A disk option: no device bytes over the gap, slow.
      Option disk = c.options[2];
      disk.fate = Fate::Disk;
      disk.usage[2].tier = Tier::Disk;
      disk.seconds *= 3;
      c.options.push_back(disk);
    }
    p.candidates.push_back(std::move(c));
  }
  // A budget between the smallest conceivable and keep-all.
  std::vector<int> keepAll(candidates, 0);
  int64_t keepPeak = evaluate(p, keepAll).peak[0];
  int64_t floor = *std::max_element(p.base[0].begin(), p.base[0].end());
  p.capacity[0] = floor + (keepPeak - floor) * uniform(55, 100) / 100;
  p.capacity[1] = uniform(0, 4) * 512;
  p.capacity[2] = uniform(0, 1) << 20;
  return p;
}

TEST(PlanSolver, ExactMatchesIlpOnRandomProblems) {
  std::mt19937_64 rng(20261121);
  int feasible = 0, constrained = 0;
  for (int trial = 0; trial < 300; ++trial) {
    int n = 2 + trial % 9;
    Problem p = randomProblem(rng, n, 12 + 2 * (trial % 7));
    ASSERT_FALSE(static_cast<bool>(p.verify())) << trial;
    Solution exact = solveExact(p);
    ASSERT_TRUE(exact.optimal) << trial;
    llvm::Expected<Solution> ilp = solveIlp(p);
    ASSERT_TRUE(!!ilp) << llvm::toString(ilp.takeError());
    ASSERT_TRUE(ilp->optimal) << trial;
    ASSERT_EQ(exact.feasible, ilp->feasible) << "trial " << trial;
    if (!exact.feasible)
      continue;
    ++feasible;
    constrained += exact.seconds > 0;
    // Both plans really fit, and cost the same.
    EXPECT_TRUE(evaluate(p, exact.choice).feasible) << trial;
    EXPECT_TRUE(evaluate(p, ilp->choice).feasible) << trial;
    EXPECT_NEAR(exact.seconds, ilp->seconds, 1e-9 * (1 + ilp->seconds))
        << "trial " << trial;
    Solution greedy = solveGreedy(p);
    if (greedy.feasible) {
      EXPECT_GE(greedy.seconds, ilp->seconds - 1e-12) << trial;
    }
  }
  // The instances exercise both outcomes and real trade-offs.
  EXPECT_GT(feasible, 100);
  EXPECT_GT(constrained, 50);
  EXPECT_LT(feasible, 300);
}

// Options that need another candidate's option other than keep (an edge
// weights' tiles need the graph's tiles): every solver honours them, and
// the exact search still matches GLPK.
TEST(PlanSolver, OptionRequirementsMatchIlp) {
  std::mt19937_64 rng(20261122);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int withNeeds = 0, usedNeeds = 0;
  for (int trial = 0; trial < 200; ++trial) {
    int n = 3 + trial % 7;
    Problem p = randomProblem(rng, n, 12 + 2 * (trial % 7));
    p.capacity[1] = 1 << 20; // room for every host option
    // A cheap host option for some candidates, with no device bytes after
    // the gap, valid only when another candidate takes its host option
    // (option 2).
    for (int i = 1; i < n; ++i) {
      if (uniform(0, 2) != 0)
        continue;
      Option tied = p.candidates[i].options[2];
      tied.seconds /= 100;
      tied.usage.erase(tied.usage.begin() + 1); // no copy back
      tied.requiresOption = {{static_cast<int>(uniform(0, i - 1)), 2}};
      p.candidates[i].options.push_back(tied);
      ++withNeeds;
    }
    ASSERT_FALSE(static_cast<bool>(p.verify())) << trial;
    Solution exact = solveExact(p);
    ASSERT_TRUE(exact.optimal) << trial;
    llvm::Expected<Solution> ilp = solveIlp(p);
    ASSERT_TRUE(!!ilp) << llvm::toString(ilp.takeError());
    ASSERT_EQ(exact.feasible, ilp->feasible) << "trial " << trial;
    Solution greedy = solveGreedy(p);
    if (greedy.feasible) {
      EXPECT_TRUE(evaluate(p, greedy.choice).feasible) << trial;
    }
    if (!exact.feasible)
      continue;
    EXPECT_TRUE(evaluate(p, exact.choice).feasible) << trial;
    EXPECT_TRUE(evaluate(p, ilp->choice).feasible) << trial;
    EXPECT_NEAR(exact.seconds, ilp->seconds, 1e-9 * (1 + ilp->seconds))
        << "trial " << trial;
    for (int i = 0; i < n; ++i)
      usedNeeds +=
          !p.candidates[i].options[exact.choice[i]].requiresOption.empty();
  }
  EXPECT_GT(withNeeds, 100);
  EXPECT_GT(usedNeeds, 10) << "the optimum uses tied options";
}

TEST(PlanSolver, OptionRequirementsAreEnforced) {
  Problem p(6);
  p.capacity = {1000, 1000, 0};
  p.candidates.push_back(makeCandidate("graph", 60, 0, 1, 3, 5, 1.0, 0, 9.0));
  p.candidates.push_back(makeCandidate("weights", 60, 1, 2, 4, 5, 1.0, 0, 9.0));
  Option tied = p.candidates[1].options[2];
  tied.seconds = 0.5;
  tied.requiresOption = {{0, 2}};
  p.candidates[1].options.push_back(tied);
  EXPECT_FALSE(evaluate(p, {0, 3}).feasible);
  EXPECT_FALSE(evaluate(p, {1, 3}).feasible);
  EXPECT_TRUE(evaluate(p, {2, 3}).feasible);
  Problem bad = p;
  bad.candidates[1].options[3].requiresOption = {{0, 7}};
  llvm::Error err = bad.verify();
  ASSERT_TRUE(!!err);
  EXPECT_NE(
      llvm::toString(std::move(err)).find("requires candidate 0 option 7"),
      std::string::npos);
}

TEST(PlanSolver, ExactReportsWhenItGivesUp) {
  std::mt19937_64 rng(7);
  // The first random problem whose proof takes more than 5 nodes.
  Problem p;
  do
    p = randomProblem(rng, 10, 20);
  while (solveExact(p).work <= 5);
  ExactLimits five;
  five.maxNodes = 5;
  Solution s = solveExact(p, five);
  EXPECT_FALSE(s.optimal);
  EXPECT_LE(s.work, 6);
}

// `solver = auto` starts the exact search from the greedy's plan: with
// room to finish it proves the same optimum as the ILP, and cut short it
// never returns anything worse than the greedy's plan.
TEST(PlanSolver, ExactFromAnIncumbent) {
  std::mt19937_64 rng(4242);
  int started = 0, improved = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem p = randomProblem(rng, 2 + trial % 9, 12 + 2 * (trial % 7));
    Solution greedy = solveGreedy(p);
    if (!greedy.feasible)
      continue;
    ++started;
    ExactLimits from;
    from.incumbent = greedy.choice;
    Solution exact = solveExact(p, from);
    ASSERT_TRUE(exact.optimal) << trial;
    ASSERT_TRUE(exact.feasible) << trial;
    Solution reference = solveExact(p);
    EXPECT_NEAR(exact.seconds, reference.seconds,
                1e-9 * (1 + reference.seconds))
        << trial;
    improved += exact.seconds < greedy.seconds - 1e-12;
    // Cut short after one node: the incumbent comes back unchanged.
    from.maxNodes = 1;
    Solution shortened = solveExact(p, from);
    EXPECT_TRUE(shortened.feasible) << trial;
    EXPECT_LE(shortened.seconds, greedy.seconds + 1e-12) << trial;
  }
  EXPECT_GT(started, 50);
  // Some instances where the search beats the greedy, so the start matters.
  EXPECT_GT(improved, 0);
}

// The solvers leave out a tier no plan can go over (host memory without a
// limit): a capacity exactly the most every option could hold there at
// once is such a tier, one byte less is not and must be respected. Two
// values offloaded over the same points need both their host bytes.
TEST(PlanSolver, HostCapacityAtItsBoundIsRespected) {
  for (int64_t slack : {0, -1}) {
    Problem p(8);
    p.candidates.push_back(makeCandidate("a", 100, 0, 1, 5, 6, 9.0, 0, 1.0));
    p.candidates.push_back(makeCandidate("b", 100, 0, 1, 5, 6, 9.0, 0, 1.0));
    // Over [3, 4] the device holds the base's 200 and neither value: both
    // are offloaded (or recomputed, which costs more).
    p.base[0][3] = p.base[0][4] = 200;
    p.capacity = {250, 200 + slack, 0};
    for (auto [name, solution] :
         {std::pair{"exact", solveExact(p)}, {"greedy", solveGreedy(p)}}) {
      SCOPED_TRACE(std::string(name) + " with slack " + std::to_string(slack));
      EXPECT_LE(solution.peak[1], p.capacity[1]);
      if (slack == 0) {
        ASSERT_TRUE(solution.feasible);
        EXPECT_EQ(solution.choice, (std::vector<int>{2, 2}));
      } else {
        // One offloads, the other is recomputed.
        ASSERT_TRUE(solution.feasible);
        EXPECT_EQ(solution.peak[1], 100);
      }
    }
  }
}

} // namespace
