//===- IlpSolver.cpp - The memory plan as a GLPK 0-1 program --------------===//
//
// minimise   sum_{i,o} seconds(i,o) x(i,o)
// subject to sum_o x(i,o) = 1                                  each candidate
//            sum_{i,o} bytes(i,o,t,p) x(i,o) <= cap_t - base_t(p)  each tier,
//            point x(i,o) - x(j,keep) <= 0                 each requirement of
//            (i,o) x binary.
// Points where the same options occupy the same bytes give the same row;
// only the tightest of each is kept, which shrinks the model by the length
// of the intervals without changing its optimum.
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/PlanProblem.h"

#include "llvm/Support/FormatVariadic.h"

#include <glpk.h>

#include <map>
#include <memory>

using namespace mlir::gnn::plan;

namespace {

struct GlpkDeleter {
  void operator()(glp_prob *lp) const { glp_delete_prob(lp); }
};

/// Objective coefficients are microseconds: GLPK's tolerances are absolute,
/// and step costs in seconds (1e-6 .. 1) would sit inside them.
constexpr double kObjectiveScale = 1e6;

} // namespace

llvm::Expected<Solution> mlir::gnn::plan::solveIlp(const Problem &problem,
                                                   double timeLimitSeconds) {
  if (llvm::Error err = problem.verify())
    return std::move(err);
  int n = static_cast<int>(problem.candidates.size());
  std::vector<int> firstColumn(n + 1, 1); // GLPK columns are 1-based.
  for (int i = 0; i < n; ++i)
    firstColumn[i + 1] =
        firstColumn[i] + static_cast<int>(problem.candidates[i].options.size());
  int numColumns = firstColumn[n] - 1;

  // Capacity rows, keyed by their coefficients: (column, bytes) pairs.
  using Row = std::vector<std::pair<int, int64_t>>;
  std::map<Row, int64_t> capacityRows;
  for (int t = 0; t < kNumTiers; ++t) {
    std::vector<std::map<int, int64_t>> at(problem.numPoints);
    for (int i = 0; i < n; ++i) {
      const Candidate &c = problem.candidates[i];
      for (int o = 0; o < static_cast<int>(c.options.size()); ++o)
        for (const Usage &u : c.options[o].usage)
          if (static_cast<int>(u.tier) == t && u.bytes > 0)
            for (int64_t p = u.from; p <= u.to; ++p)
              at[p][firstColumn[i] + o] += u.bytes;
    }
    for (int64_t p = 0; p < problem.numPoints; ++p) {
      int64_t room = problem.capacity[t] - problem.base[t][p];
      if (at[p].empty()) {
        if (room < 0) {
          Solution s;
          s.choice.assign(n, 0);
          s = evaluate(problem, s.choice);
          s.feasible = false;
          s.optimal = true;
          return s;
        }
        continue;
      }
      Row row(at[p].begin(), at[p].end());
      auto [it, inserted] = capacityRows.try_emplace(std::move(row), room);
      if (!inserted)
        it->second = std::min(it->second, room);
    }
  }

  std::unique_ptr<glp_prob, GlpkDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), numColumns);
  for (int i = 0; i < n; ++i) {
    const Candidate &c = problem.candidates[i];
    for (int o = 0; o < static_cast<int>(c.options.size()); ++o) {
      int col = firstColumn[i] + o;
      glp_set_col_kind(lp.get(), col, GLP_BV);
      glp_set_obj_coef(lp.get(), col, c.options[o].seconds * kObjectiveScale);
    }
  }
  // GLPK's sparse matrix, 1-based, index 0 unused.
  std::vector<int> ia(1), ja(1);
  std::vector<double> ar(1);
  int row = 0;
  auto addRow = [&](int type, double lb, double ub) {
    row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), row, type, lb, ub);
  };
  auto coef = [&](int col, double value) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(value);
  };
  for (int i = 0; i < n; ++i) {
    addRow(GLP_FX, 1, 1);
    for (int col = firstColumn[i]; col < firstColumn[i + 1]; ++col)
      coef(col, 1);
  }
  for (const auto &[coefficients, room] : capacityRows) {
    addRow(GLP_UP, 0, static_cast<double>(room));
    for (auto [col, bytes] : coefficients)
      coef(col, static_cast<double>(bytes));
  }
  for (int i = 0; i < n; ++i) {
    const Candidate &c = problem.candidates[i];
    for (int o = 0; o < static_cast<int>(c.options.size()); ++o)
      for (Requirement r : c.options[o].requirements()) {
        addRow(GLP_UP, 0, 0);
        coef(firstColumn[i] + o, 1);
        coef(firstColumn[r.candidate] + r.option, -1);
      }
  }
  glp_load_matrix(lp.get(), static_cast<int>(ia.size()) - 1, ia.data(),
                  ja.data(), ar.data());

  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_ON;
  parm.msg_lev = GLP_MSG_OFF;
  parm.tm_lim = static_cast<int>(timeLimitSeconds * 1000);
  int rc = glp_intopt(lp.get(), &parm);
  int status = glp_mip_status(lp.get());
  Solution s;
  if (status == GLP_NOFEAS || rc == GLP_ENOPFS || rc == GLP_ENODFS) {
    s.choice.assign(n, 0);
    s = evaluate(problem, s.choice);
    s.feasible = false;
    s.optimal = true;
    return s;
  }
  if (status != GLP_OPT && status != GLP_FEAS)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("GLPK found no plan (glp_intopt returned {0}, status "
                      "{1}) within {2} s",
                      rc, status, timeLimitSeconds));
  std::vector<int> choice(n, 0);
  for (int i = 0; i < n; ++i)
    for (int col = firstColumn[i]; col < firstColumn[i + 1]; ++col)
      if (glp_mip_col_val(lp.get(), col) > 0.5)
        choice[i] = col - firstColumn[i];
  s = evaluate(problem, choice);
  s.optimal = status == GLP_OPT && rc == 0;
  return s;
}
