//===- Plan.h - gnnc plan ---------------------------------------*- C++ -*-===//
//
// `gnnc plan`: compiles to the plan stage and prints, per train block, what
// gnn-plan-memory decided for the step: a table of the saved tensors and
// their fates, totals, the predicted peak of each tier against its limit and
// the predicted step time against keep-all; or the same as JSON; and
// optionally an SVG picture of memory over the step. The numbers are read
// from the attributes the pass leaves on the step function (`mem.plan`,
// `mem.solver`, `mem.fates`, `mem.*_curve`, `mem.loss_point`), so the tool
// prints what the compiler will build, nothing recomputed on the side.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TOOLS_GNNC_PLAN_H
#define GNNC_TOOLS_GNNC_PLAN_H

#include "compiler/Driver/Driver.h"

#include <string>

namespace gnnc {

struct PlanOptions {
  /// --json: the JSON document (docs/MemoryPlanning.md) instead of tables.
  bool json = false;
  /// --svg: also write the memory-over-time picture to this file.
  std::string svgFile;
  /// --target=cuda: plan as the CUDA target does (its pipeline and its
  /// machine profile).
  bool cudaTarget = false;
};

/// Runs `gnnc plan` on \p compilation, whose front end has run; prints to
/// \p os and returns the process exit code (1: the plan failed or the SVG
/// could not be written, the message already printed).
int planProgram(Compilation &compilation, const PlanOptions &options,
                llvm::raw_ostream &os);

} // namespace gnnc

#endif // GNNC_TOOLS_GNNC_PLAN_H
